"""nano-gpt in the browser: docs/javascripts/gpt.js (the toy's one
JavaScript GPT, with biases, LayerNorm weights and three blocks) on the
weights the build exports, against toycalc on all 729 inputs: the same
sorted answer, the same logits to 1e-5."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nodejs import run_json
from toycalc.model import gpt, nanogpt
from toycalc.site.export import nano_weights_data, nano_weights_json, packed

# the twins the runners run (tests/test_mirrors.py)
JS_CASES = ["gpt.js:load", "gpt.js:greedy", "gpt.js:forward", "gpt.js:unpack"]

RUNNER = r"""
const g = (await js("gpt"));
const model = g.load(job.weights);
const out = job.inputs.map((ids) => {
  const run = g.greedy(model, ids, 6);
  const tr = g.forward(model, run.ids.slice(0, 11));
  return { ids: run.ids, logits: tr.logits.map((r) => Array.from(r)), p: run.probabilities };
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def browser_runs(nano):
    inputs = nanogpt.all_inputs().tolist()
    job = {"weights": json.loads(nano_weights_json(nano)), "inputs": inputs}
    return inputs, run_json(RUNNER, job, timeout=300)


def test_the_browser_sorts_all_729_as_toycalc_does(nano, browser_runs):
    inputs, runs = browser_runs
    want = nanogpt.generate(nano.params, np.array(inputs))
    assert [r["ids"] for r in runs] == want.tolist()
    assert all(r["ids"][6:] == sorted(r["ids"][:6]) for r in runs)


def test_the_browsers_logits_are_toycalcs(nano, browser_runs):
    inputs, runs = browser_runs
    ids = np.array([r["ids"][:11] for r in runs])
    want = gpt.forward(nano.params, nano.cfg, ids)["logits"]
    got = np.array([r["logits"] for r in runs])
    assert np.abs(got - want).max() < 1e-5
    p_steps = np.array([r["p"] for r in runs])           # (729, 6 steps, 3)
    want_p = gpt.forward(nano.params, nano.cfg, ids)["p"][:, 5:11]
    assert np.abs(p_steps - want_p).max() < 1e-5


def unpacked(data: dict) -> dict:
    """gpt.js's `unpack` of export's data, run in Node."""
    script = ('process.stdout.write(JSON.stringify((await js("gpt")).unpack(job), (k, v) => Number.isNaN(v) ? "NaN" : '
              'v === Infinity ? "Inf" : v === -Infinity ? "-Inf" : Object.is(v, -0) ? "-0" : v));')
    return run_json(script, data)


def test_the_export_is_exact_and_compact(nano):
    data = nano_weights_data(nano)
    assert data["blocks"][2]["W_1"]["shape"] == [48, 192]
    # the shipped weights are float16 numbers, so they go out as float16
    assert all("f16" in data["blocks"][b][n] for b in range(3) for n in data["blocks"][b])
    assert all("f16" in data[n] for n in ("E", "P", "W_U", "gamma_f", "beta_f"))
    size = len(nano_weights_json(nano).encode())
    floats = sum(v.size for v in nano.params.values())
    assert size < floats * 2 * 1.4  # base64 of float16: about 4/3 of the raw bytes
    got = unpacked(data)
    assert np.array_equal(np.array(got["blocks"][1]["W_1"]), nano.params["blocks.1.W_1"])
    assert np.array_equal(np.array(got["E"]), nano.params["E"])


def test_every_float16_reads_in_the_browser_as_numpy_reads_it():
    every = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    got = unpacked({"packed": True, "all": packed(every)})["all"]
    want = every.astype(np.float64)
    named = {"NaN": np.nan, "Inf": np.inf, "-Inf": -np.inf, "-0": -0.0}
    got = np.array([named.get(v, v) for v in got], dtype=np.float64)
    assert np.array_equal(got, want, equal_nan=True)
    numbers = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))   # -0 stays -0


def test_weights_that_are_not_float16_numbers_go_out_as_float32():
    values = np.array([[0.1, -2.5], [1e-3, 3.0]])      # 0.1 and 1e-3 are not float16 numbers
    data = packed(values)
    assert "f32" in data and "f16" not in data
    got = np.array(unpacked({"packed": True, "W": data})["W"])
    assert np.array_equal(got, values.astype(np.float32).astype(np.float64))


def test_training_stores_the_weights_as_float16():
    with np.load(nanogpt.DEFAULT_NPZ) as archive:
        assert {archive[name].dtype for name in archive.files} == {np.dtype(np.float16)}
    record = json.loads(nanogpt.record_path(nanogpt.DEFAULT_NPZ).read_text(encoding="utf-8"))
    assert record["stored_as"] == "float16" and record["accuracy_on_729"] == 729
