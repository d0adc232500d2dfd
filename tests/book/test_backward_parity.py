"""The backward pass in the browser: docs/javascripts/backward.js's `backward`
(through `lossAndGrads`, one text at a time) against toycalc's
gpt.backward, on the same weights and texts. The toy on random weights
(1, 2 and 4 heads, every matrix, to 1e-12 in float64) and nano-gpt (the
loss and every gradient of a batch of sorting examples, on the shipped
weights and on a fresh initialisation)."""
from __future__ import annotations

import numpy as np
import pytest

from nodejs import js_data, run_json
from toycalc.model import gpt, nanogpt, sizes

# the twins the runner runs (tests/test_mirrors.py); lossAndGrads calls
# crossEntropy and backward, which calls layernormBackward, attentionBackward
# and mlpBackward for each block
JS_CASES = ["backward.js:lossAndGrads", "backward.js:backward", "backward.js:crossEntropy",
            "backward.js:layernormBackward", "backward.js:attentionBackward", "backward.js:mlpBackward"]

RUNNER = r"""
const g = (await js("gpt")), b = (await js("backward"));
const model = g.load(job.weights);
const out = b.lossAndGrads(model, job.ids, job.targets, job.heads);
// the first text alone, through backward and crossEntropy themselves
const tr = g.forward(model, job.ids[0], job.heads);
const first = b.backward(model, tr, job.targets[0]);
const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v.map(plain));
const named = (grads) => Object.fromEntries(Object.entries(grads).map(([k, v]) => [k, plain(v)]));
process.stdout.write(JSON.stringify({loss: out.loss, grads: named(out.grads),
  first: {loss: b.crossEntropy(tr.p, job.targets[0]), grads: named(first)}}));
"""


def browser_grads(cfg, params, vocab, ids, targets, heads=None):
    job = {"weights": js_data(cfg, params, vocab), "ids": np.asarray(ids).tolist(),
           "targets": np.asarray(targets).tolist(), "heads": heads or cfg.n_heads}
    return run_json(RUNNER, job)


def assert_same(got, cfg, params, ids, targets, heads, tol):
    """The batch's loss and gradients, and those of its first text alone."""
    close(got, cfg, params, ids, targets, heads, tol)
    close(got["first"], cfg, params, np.asarray(ids)[0], np.asarray(targets)[0], heads, tol)


def close(got, cfg, params, ids, targets, heads, tol):
    loss, want = gpt.loss_and_grads(params, cfg, np.asarray(ids), np.asarray(targets), heads)
    assert abs(got["loss"] - loss) <= tol * max(1.0, abs(loss))
    assert sorted(got["grads"]) == sorted(want)
    for name, g in want.items():
        scale = max(1.0, float(np.abs(g).max()))
        err = float(np.abs(np.array(got["grads"][name]) - g).max())
        assert err <= tol * scale, f"{name}: off by {err:.2e}"


TOY = gpt.Config(vocab_size=12, d=8, n_ctx=8, n_blocks=1, n_heads=2)


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_toys_gradients_on_random_weights(heads):
    rng = np.random.default_rng(heads)
    params = {name: rng.normal(0, 0.7, shape) for name, shape in sizes.param_shapes(TOY).items()}
    ids = rng.integers(0, TOY.vocab_size, (3, TOY.n_ctx))
    targets = rng.integers(0, TOY.vocab_size, (3, TOY.n_ctx))
    targets[0, :3] = -1                                  # ignored positions
    ids[1, :4] = 5                                       # a token that appears again
    got = browser_grads(TOY, params, [f"t{i}" for i in range(TOY.vocab_size)], ids, targets, heads)
    assert_same(got, TOY, params, ids, targets, heads, 1e-12)
    assert np.abs(np.array(got["grads"]["E"])).max() > 1e-3   # not a test of zeros


def test_the_toys_gradients_on_one_text_with_the_books_weights(toy):
    ids, targets = [[0, 1, 2, 0]], [[1, 2, 0, 3]]
    got = browser_grads(toy.cfg, toy.params, toy.vocab, ids, targets)
    assert_same(got, toy.cfg, toy.params, ids, targets, toy.cfg.n_heads, 1e-12)


@pytest.mark.parametrize("weights", ["shipped", "fresh"])
def test_nano_gpts_loss_and_every_gradient(nano, weights):
    cfg = nanogpt.CONFIG
    rng = np.random.default_rng(7)
    params = nano.params if weights == "shipped" else sizes.init_params(cfg, rng)
    ids, targets = nanogpt.examples(rng.integers(0, 3, (16, nanogpt.LENGTH)))
    got = browser_grads(cfg, params, nanogpt.VOCAB, ids, targets)
    assert_same(got, cfg, params, ids, targets, cfg.n_heads, 1e-10)
