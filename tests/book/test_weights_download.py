"""The Simulator's "Download these weights": the toy.yaml that
docs/javascripts/weights_editor.js writes loads back in toycalc as the same weights, keeps the book's comments
where they still hold, and passes `python -m toycalc check`."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from nodejs import run_text
from toycalc.model.weights import DEFAULT_TOY, load_toy
from toycalc.site.export import editor_data, weights_data

# the twins the runner runs (tests/test_mirrors.py)
JS_CASES = ["gpt.js:load", "weights_editor.js:toYaml"]

RUNNER = r"""
const model = Object.assign((await js("gpt")).load(job.weights), job.editor);   // as simulator.js assembles it
for (const [name, r, c, v] of job.edits) model[name][r][c] = v;
process.stdout.write((await js("weights_editor")).toYaml(model, new Set(job.edits.map((e) => e[0]))));
"""


def written(tmp_path, edits) -> tuple[str, object]:
    model = load_toy(DEFAULT_TOY)
    job = {"weights": weights_data(model), "editor": editor_data(model), "edits": edits}
    text = run_text(RUNNER, job, timeout=60)
    path = tmp_path / "toy.yaml"
    path.write_text(text, encoding="utf-8")
    return text, path


def test_unchanged_weights_come_back_the_same_with_their_comments(tmp_path):
    text, path = written(tmp_path, [])
    book, back = load_toy(DEFAULT_TOY), load_toy(path)
    assert back.vocab == book.vocab and back.heads == book.heads
    for name, value in book.params.items():
        assert np.array_equal(back.params[name], value), name
    original = DEFAULT_TOY.read_text(encoding="utf-8")
    for line in original.splitlines():
        if line.startswith("#"):
            assert line in text.splitlines(), line
    # every comment of a row or inside a matrix too (# u1 … and W_U's token line, issue #27)
    written_comments = [line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line]
    for line in original.splitlines():
        if line[:1].isspace() and "#" in line:
            assert line.split("#", 1)[1].strip() in written_comments, line
    assert "W_O:   # d x d: the identity, the joined heads pass unchanged" in text


def test_edits_come_back_and_comments_that_no_longer_hold_go(tmp_path):
    edits = [["W_K", 0, 0, 0.25], ["W_O", 0, 1, 1e-7], ["E", 2, 0, -1.125]]
    text, path = written(tmp_path, edits)
    back = load_toy(path)
    assert back.params["blocks.0.W_K"][0, 0] == 0.25
    assert back.params["blocks.0.W_O"][0, 1] == 1e-7
    assert back.params["E"][2, 0] == -1.125
    lines = text.splitlines()
    assert not any("W_Q, W_K, W_V only pick columns" in line for line in lines)  # it names W_K
    assert "W_O:   # d x d   # changed in the Simulator" in lines
    assert any(line.startswith("# The MLP: W_1 = [I | -I]") for line in lines)  # W_1, W_2 unchanged
    result = subprocess.run([sys.executable, "-m", "toycalc", "check", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
