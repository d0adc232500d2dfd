"""nano-gpt in the browser: docs/javascripts/toygpt.js (the toy's one
JavaScript GPT, with biases, LayerNorm weights and three blocks) on the
weights the build exports, against toycalc on all 729 inputs: the same
sorted answer, the same logits to 1e-5."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from toycalc.model import gpt, nanogpt
from toycalc.site.export import nano_weights_data, nano_weights_json

TOYGPT = ROOT / "docs" / "javascripts" / "toygpt.js"
NODE = shutil.which("node") or "/usr/bin/node"

RUNNER = r"""
const fs = require("fs");
const g = require(process.argv[1]);
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const model = g.load(job.weights);
const out = job.inputs.map((ids) => {
  const run = g.greedy(model, ids, 6);
  const tr = g.forward(model, run.ids.slice(0, 11));
  return { ids: run.ids, logits: tr.logits.map((r) => Array.from(r)), p: run.probabilities };
});
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def nano():
    return nanogpt.load()


@pytest.fixture(scope="module")
def browser_runs(nano):
    if not shutil.which(NODE):
        pytest.skip("node is needed (apt-get install nodejs)")
    inputs = nanogpt.all_inputs().tolist()
    job = {"weights": json.loads(nano_weights_json(nano)), "inputs": inputs}
    out = subprocess.run([NODE, "-e", RUNNER, str(TOYGPT)], input=json.dumps(job), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return inputs, json.loads(out.stdout)


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


def test_the_export_is_exact_and_compact(nano):
    data = nano_weights_data(nano)
    assert data["blocks"][2]["W_1"]["shape"] == [48, 192]
    size = len(nano_weights_json(nano).encode())
    floats = sum(v.size for v in nano.params.values())
    assert size < floats * 4 * 1.4  # base64 of float32: about 4/3 of the raw bytes
