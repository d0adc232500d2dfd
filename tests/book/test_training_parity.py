"""nano-gpt's training step in the browser: docs/javascripts/train.js
(AdamW, decays, examples, accuracy, eval_loss), backward.js's and
batched.js's lossAndGrads against toycalc/model/train.py on the same weights and batches: two
steps of a fresh float32 run (the loss, every gradient and AdamW's update,
to 1e-5), and the count of sorted inputs (nanogpt.accuracy's greedy
decoding) on weights that sort some of the 729 inputs but not all, in
float64 (train.js) and in float32 (batched.js, the worker's quick check)."""
from __future__ import annotations

import numpy as np
from safetensors.numpy import load_file
import pytest

from nodejs import js_data, run_json
from toycalc.model import gpt, nanogpt, sizes, train

# the twins the runners run (tests/test_mirrors.py)
JS_CASES = ["train.js:AdamW", "train.js:decays", "train.js:examples", "train.js:accuracy", "train.js:evalLoss",
            "backward.js:lossAndGrads", "batched.js:lossAndGrads", "batched.js:evaluate"]

STEP = r"""
const g = (await js("gpt")), tr = (await js("train"));
// backward.js's float64 step, text by text, or batched.js's float32 one (the page's)
const lossAndGrads = job.batched ? (await js("batched")).lossAndGrads : (await js("backward")).lossAndGrads;
const model = g.load(job.weights), params = g.parameters(model);
const opt = new tr.AdamW(params, job.recipe);
const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v.map(plain));
const named = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plain(v)]));
const steps = job.inputs.map((inputs) => {
  const { ids, targets } = tr.examples(inputs);
  const { loss, grads } = lossAndGrads(model, ids, targets);
  opt.step(params, grads);
  return { ids, targets, loss, grads: named(grads), params: named(params) };
});
const decayed = Object.keys(params).filter(tr.decays);
process.stdout.write(JSON.stringify({ steps, decayed }));
"""

SORTED = r"""
const g = (await js("gpt")), tr = (await js("train")), b = (await js("batched"));
const model = g.load(job.weights), quick = b.evaluate(model, 6);      // float32, the worker's check between steps
const halves = [0, 1].map((part) => b.evaluate(model, 6, part, 2).sorted);    // the worker's and its helper's
process.stdout.write(JSON.stringify({ sorted: tr.accuracy(model, 6), loss: tr.evalLoss(model, 6), float32: quick, halves }));
"""

TOL = 1e-5


def worst(got, want) -> float:
    return float(np.abs(np.asarray(got) - want).max() / max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("batched", [False, True], ids=["backward.js", "batched.js"])
def test_two_training_steps_equal_numpys(batched):
    rng = np.random.default_rng(11)
    params = sizes.init_params(nanogpt.CONFIG, rng, dtype=np.float32)
    inputs = [rng.integers(0, 3, (train.BATCH, nanogpt.LENGTH)) for _ in range(2)]
    recipe = {"lr": train.LR, "betas": list(train.BETAS), "eps": train.ADAM_EPS, "weight_decay": train.WEIGHT_DECAY}
    job = {"weights": js_data(nanogpt.CONFIG, {k: v.astype(np.float64) for k, v in params.items()}, nanogpt.VOCAB),
           "recipe": recipe, "inputs": [x.tolist() for x in inputs], "batched": batched}
    got = run_json(STEP, job, timeout=300)
    assert got["decayed"] == [n for n in params if train.decays(n)]
    opt = train.AdamW(params)
    for x, step in zip(inputs, got["steps"]):
        ids, targets = nanogpt.examples(x)
        assert step["ids"] == ids.tolist() and step["targets"] == targets.tolist()
        loss, grads = gpt.loss_and_grads(params, nanogpt.CONFIG, ids, targets)
        assert abs(step["loss"] - loss) < TOL
        for name, g in grads.items():
            assert worst(step["grads"][name], g) < TOL, name
        opt.step(params, grads)
        for name, p in params.items():
            assert worst(step["params"][name], p) < TOL, name
        moved = np.abs(np.asarray(step["params"]["blocks.0.W_Q"]) - job["weights"]["blocks"][0]["W_Q"]).max()
        assert moved > 1e-4                                # the step changed the weights


def test_the_sorted_count_is_greedy_decodings(nano):
    rng = np.random.default_rng(5)
    # the shipped weights, blurred until they sort some inputs but not all
    params = {k: v + rng.normal(0, 0.02, v.shape) * (k.rsplit(".", 1)[-1].startswith("W_")) for k, v in nano.params.items()}
    want = nanogpt.accuracy(params)
    assert 0 < want < 729
    got = run_json(SORTED, {"weights": js_data(nanogpt.CONFIG, params, nanogpt.VOCAB)}, timeout=300)
    assert got["sorted"] == want == got["float32"]["sorted"] == sum(got["halves"])
    assert min(got["halves"]) > 0
    assert abs(got["loss"] - train.eval_loss(params)) < 1e-9
    assert abs(got["float32"]["loss"] - train.eval_loss(params)) < 1e-5


DOWNLOAD = r"""
const g = (await js("gpt")), tr = (await js("train"));
const model = g.load(job.weights);
fs.writeFileSync(job.out, tr.weightsFile(model));
process.stdout.write("{}");
"""


def test_the_download_is_a_safetensors_file_that_toycalc_loads(tmp_path, nano):
    params = nano.params                                    # float16 numbers: the download keeps them exactly
    out = tmp_path / "mine.safetensors"
    run_json(DOWNLOAD, {"weights": js_data(nanogpt.CONFIG, params, nanogpt.VOCAB), "out": str(out)})
    nanogpt.record_path(out).write_bytes(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_bytes())   # load needs one
    loaded = nanogpt.load(out)
    assert sorted(loaded.params) == sorted(params)
    assert all(np.array_equal(loaded.params[k], v) for k, v in params.items())
    assert load_file(out)["blocks.2.W_1"].dtype == np.float16


HALF = r"""
const tr = (await js("train"));
process.stdout.write(JSON.stringify({ values: job.values.map(tr.half), bits: job.halves.map(tr.halfBits) }));
"""


def test_float16_rounding_is_numpys():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(0, 0.1, 3000), rng.normal(0, 3, 1000), 2.0 ** rng.integers(-26, 15, 500),
                             rng.uniform(-6e-5, 6e-5, 500), [0.0, 65504.0, 65519.0, 1 + 2 ** -11, 1 + 3 * 2 ** -11]])
    every = np.arange(2 ** 16, dtype=np.uint16)
    every = every[np.isfinite(every.view(np.float16))]
    got = run_json(HALF, {"values": values.tolist(), "halves": every.view(np.float16).astype(float).tolist()})
    assert np.array_equal(np.array(got["values"]), values.astype(np.float16).astype(float))
    negative_zero = every == 0x8000                        # JSON writes -0 as 0
    assert np.array_equal(np.array(got["bits"])[~negative_zero], every[~negative_zero])


REFUSED = r"""
const g = (await js("gpt")), b = (await js("batched"));
try { b.lossAndGrads(g.load(job.weights), job.ids, job.ids); process.stdout.write("{}"); }
catch (e) { process.stdout.write(JSON.stringify({ message: e.message })); }
"""


def test_the_batched_step_refuses_a_model_without_nano_gpts_parts(toy):
    """The toy has no biases and no LayerNorm weights: batched.js would
    read zeros for them (a gamma of 0), so it says what it trains instead."""
    got = run_json(REFUSED, {"weights": js_data(toy.cfg, toy.params, toy.vocab), "ids": [[0, 1, 2]]})
    assert got["message"].startswith("batched.js trains nano-gpt's kind of model: biases and LayerNorm weights")


@pytest.mark.parametrize("ids", [[[0, 1, 2] * 4], [[0, 1], [0]]], ids=["past n_ctx", "ragged"])
def test_the_batched_step_refuses_texts_it_cannot_lay_out(nano, ids):
    """Texts longer than the model's positions (they would read past P) or
    of different lengths (the rows of one matrix): a message, not numbers."""
    got = run_json(REFUSED, {"weights": js_data(nanogpt.CONFIG, nano.params, nanogpt.VOCAB), "ids": ids})
    assert "expected all of one length, at most the model's 11 positions" in got["message"]
