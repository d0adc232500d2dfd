"""The figures the browser draws for the reader's sentence are the ones the
build draws: docs/javascripts/toygpt.js's `draw` against toycalc/book/draw.py,
string for string, first on toycalc's own numbers, then on the browser's
own forward pass."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import ROOT
from toycalc.book import end_to_end, path
from toycalc.book.example import Example
from toycalc.model.weights import DEFAULT_TOY, load_toy
from toycalc.site.export import weights_data

TOYGPT = ROOT / "docs" / "javascripts" / "toygpt.js"
NODE = shutil.which("node") or "/usr/bin/node"
SENTENCES = ["the cat climbed the", "the dog climbed the", "the", "the cat climbed the roof. the",
             " floor roof wall sofa"]

RUNNER = r"""
const fs = require("fs");
const g = require(process.argv[1]);
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const model = g.load(job.weights);
const show = (i) => g.show(model.vocab[i]);
const vocab = model.vocab.map((t) => g.show(t));
process.stdout.write(JSON.stringify(job.runs.map((r) => {
  const tokens = r.ids.map(show);
  const own = g.run(model, r.text, r.heads, 1);
  return {
    given: {path: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => g.draw.pathSvg(n, tokens, r.run, vocab)),
            attention: g.draw.attentionFigure(tokens, r.tr), probabilities: g.draw.probabilitiesFigure(vocab, r.tr)},
    own: {path: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => g.draw.pathSvg(n, tokens, g.draw.pathRun(own), vocab)),
          attention: g.draw.attentionFigure(tokens, own), probabilities: g.draw.probabilitiesFigure(vocab, own)},
  };
})));
"""


def python_side(ex: Example) -> dict:
    return {"path": [path.drawing(ex, n) for n in range(1, 10)],
            "attention": end_to_end.attention_figure(ex),
            "probabilities": end_to_end.probabilities_figure(ex)}


@pytest.fixture(scope="module")
def drawn():
    if not shutil.which(NODE):
        pytest.skip("node is needed (apt-get install nodejs)")
    model = load_toy(DEFAULT_TOY)
    runs, examples = [], []
    for text in SENTENCES:
        for heads in (1, 2, 4):
            ex = Example(model, text=text, heads=heads)
            b = ex.block
            run = {k: v.tolist() for k, v in {"E_ids": ex.trace["E_ids"], "X": ex.trace["X"], "u": b["u"],
                                               "Q": b["Q"], "K": b["K"], "V": b["V"], "h": b["h"], "y": b["y"],
                                               "weights": b["weights"], "p": ex.p_last}.items()}
            runs.append({"text": text, "heads": heads, "ids": ex.ids, "run": run,
                         "tr": {"ids": ex.ids, "weights": b["weights"].tolist(), "p": ex.trace["p"].tolist()}})
            examples.append(ex)
    job = {"weights": weights_data(model), "runs": runs}
    out = subprocess.run([NODE, "-e", RUNNER, str(TOYGPT)], input=json.dumps(job), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return list(zip(examples, json.loads(out.stdout)))


def test_the_browser_draws_toycalcs_numbers_as_the_build_does(drawn):
    for ex, js in drawn:
        assert js["given"] == python_side(ex), (ex.text, ex.n_heads)


def test_the_browser_draws_its_own_run_as_the_build_draws_toycalcs(drawn):
    for ex, js in drawn:
        assert js["own"] == python_side(ex), (ex.text, ex.n_heads)


def test_the_drawings_differ_between_sentences_and_heads(drawn):
    """So the comparisons above compare something."""
    figures = {(ex.text, ex.n_heads): js["own"]["attention"] for ex, js in drawn}
    assert len(set(figures.values())) == len(figures)
