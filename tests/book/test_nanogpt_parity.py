"""nano-gpt in the browser: docs/javascripts/gpt.js (the toy's one
JavaScript GPT, with biases, LayerNorm weights and three blocks) on the
weights the build exports, against toycalc on all 729 inputs: the same
sorted answer, the same logits to 1e-5."""
from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pytest

from nodejs import published, run_json
from toycalc.model import gpt, nanogpt
from safetensors.numpy import load, load_file, save

from toycalc.model import sizes
from toycalc.model.safetensors_file import published as published_file
from toycalc.site.export import nano_weights_bytes

# the twins the runners run (tests/test_mirrors.py)
JS_CASES = ["gpt.js:load", "gpt.js:greedy", "gpt.js:forward"]

RUNNER = r"""
const g = (await js("gpt"));
const model = await publishedModel(job.weights);
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
    job = {"weights": published(nano), "inputs": inputs}
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


def read_in_node(data: bytes) -> dict:
    """safetensors.js's `read` of a weights file, run in Node: name -> values (flat)."""
    script = ('const b = Buffer.from(job.file, "base64"), st = await js("safetensors");'
              'const { arrays } = st.read(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));'
              'process.stdout.write(JSON.stringify(Object.fromEntries([...arrays].map(([k, a]) => [k, '
              '{ shape: a.shape, values: Array.from(a.values) }])), (k, v) => Number.isNaN(v) ? "NaN" : '
              'v === Infinity ? "Inf" : v === -Infinity ? "-Inf" : Object.is(v, -0) ? "-0" : v));')
    return run_json(script, {"file": base64.b64encode(data).decode("ascii")})


def test_the_published_file_is_exact_and_compact(nano):
    data = nano_weights_bytes(nano)
    arrays = load(data)                 # the safetensors package reads what the browser reads
    assert {a.dtype for a in arrays.values()} == {np.dtype(np.float16)}   # the shipped numbers are float16
    floats = sum(v.size for v in nano.params.values())
    assert len(data) < floats * 2 + 8000     # two bytes a number, and the header
    got = read_in_node(data)
    assert got["blocks.1.W_1"]["shape"] == [48, 192]
    assert np.array_equal(np.array(got["blocks.1.W_1"]["values"]).reshape(48, 192), nano.params["blocks.1.W_1"])
    assert np.array_equal(np.array(got["E"]["values"]).reshape(3, 48), nano.params["E"])


def test_every_float16_reads_in_the_browser_as_numpy_reads_it():
    every = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    got = read_in_node(save({"all": every}))["all"]["values"]
    want = every.astype(np.float64)
    named = {"NaN": np.nan, "Inf": np.inf, "-Inf": -np.inf, "-0": -0.0}
    got = np.array([named.get(v, v) for v in got], dtype=np.float64)
    assert np.array_equal(got, want, equal_nan=True)
    numbers = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))   # -0 stays -0


def test_weights_that_are_not_float16_numbers_go_out_as_float32(nano):
    params = dict(nano.params, E=nano.params["E"] + 0.1)     # no longer float16 numbers
    data = published_file(params, sizes.param_shapes(nano.cfg))
    assert load(data)["E"].dtype == np.float32
    got = np.array(read_in_node(data)["E"]["values"]).reshape(3, 48)
    assert np.array_equal(got, params["E"].astype(np.float32).astype(np.float64))


@pytest.mark.parametrize("change, said", [
    (lambda h: h["E"].update(dtype="F64"), "E holds \"F64\" numbers, expected F16 or F32"),
    (lambda h: h["E"].update(shape=[3, -48]), "E has the shape [3,-48], not a list of whole numbers"),
    (lambda h: h["P"].update(data_offsets=[0, 4]), "P's bytes are at [0,4]"),
])
def test_the_browsers_reader_refuses_in_one_sentence(nano, change, said):
    data = nano_weights_bytes(nano)
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    change(header)
    head = json.dumps(header).encode()
    script = ('const b = Buffer.from(job.file, "base64");'
              'try { (await js("safetensors")).read(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)); '
              'process.stdout.write(JSON.stringify("read")); } catch (e) { process.stdout.write(JSON.stringify(e.message)); }')
    bad = struct.pack("<Q", len(head)) + head + data[8 + n:]
    message = run_json(script, {"file": base64.b64encode(bad).decode("ascii")})
    assert message.startswith(said) and "undefined" not in message


def test_training_stores_the_weights_as_float16():
    assert {a.dtype for a in load_file(nanogpt.DEFAULT_WEIGHTS).values()} == {np.dtype(np.float16)}
    record = json.loads(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_text(encoding="utf-8"))
    assert record["stored_as"] == "float16" and record["accuracy_on_729"] == 729
