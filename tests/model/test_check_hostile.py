"""`python -m toycalc check` on careless input: one short line on stderr
naming the file, exit code 1, no traceback."""
from __future__ import annotations

import subprocess
import sys

import pytest

from toycalc.model.weights import DEFAULT_TOY

ROOT = DEFAULT_TOY.parent.parent.parent
TOY = DEFAULT_TOY.read_text(encoding="utf-8")


def check(*args) -> str:
    result = subprocess.run([sys.executable, "-m", "toycalc", "check", *map(str, args)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == "", result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) < 500, result.stderr
    return lines[0][len("error: "):]


@pytest.mark.parametrize("what, content, message", [
    ("not UTF-8", TOY.encode("utf-8").replace(b"# 0  the", b"# 0  the \xff"), "not UTF-8 text (byte 0xff)"),
    ("duplicate key", (TOY + "heads: 1\n").encode("utf-8"), "key 'heads' appears twice"),
    ("number trap", TOY.replace("heads: 2 ", "heads: 010 ").encode("utf-8"),
     "key 'heads': '010' is not read as a number: a leading zero"),
    ("400 digits", TOY.replace("heads: 2 ", f"heads: {'4' * 400} ").encode("utf-8"),
     "is not read as a number: a number of more than 30 digits"),
    ("overflow", TOY.replace("  - [-0.5, -0.5,  0,    1  ]   # 0  the", "  - [1.0e+308, 0, 0, 1]").encode("utf-8"),
     "key 'E', row 1 (the), column 1: 1.0e+308 is beyond the limit of a weight"),
])
def test_a_bad_file(tmp_path, what, content, message):
    path = tmp_path / "toy.yaml"
    path.write_bytes(content)
    line = check(path)
    assert line.startswith(f"{path}: ") and message in line


def test_a_sentence_longer_than_P_names_P():
    line = check(DEFAULT_TOY, "the cat " * 10 + "the")
    assert line == f"{DEFAULT_TOY}: 21 tokens, but the model has 8 positions (the rows of P)"


def test_a_long_sentence_is_quoted_briefly():
    line = check(DEFAULT_TOY, "the cat " + "x" * 10_000)
    assert line.startswith(f'{DEFAULT_TOY}: cannot cut "␣xxx') and '(character 8 of "the cat xxx' in line


def test_a_heads_choice_that_does_not_divide_d():
    assert check(DEFAULT_TOY, "--heads", 3) == f"{DEFAULT_TOY}: heads = 3 does not divide d = 4; expected one of 1, 2, 4"
