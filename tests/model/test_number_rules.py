"""One list of typed numbers through the weights loader and the Simulator's
weights editor (docs/javascripts/weights_editor.js readNumber, in Node):
both accept the same spellings, as the same double, and refuse the same
ones (issue #27). Both follow toycalc/model/yamlfile.py's NUMBER_RULES,
which the editor receives in toy-editor.json."""
from __future__ import annotations

import pytest

from nodejs import run_json
from toycalc.model.weights import DEFAULT_TOY, WeightsError, load_toy
from toycalc.site.export import editor_data

# the twins the runner runs (tests/test_mirrors.py)
JS_CASES = ["weights_editor.js:readNumber"]

TOY = DEFAULT_TOY.read_text(encoding="utf-8")
FIRST_E_ROW = "  - [-0.5, -0.5,  0,    1  ]   # 0  the"

# (typed, what both must make of it: the number, or None for refused)
CASES = [
    ("0.5", 0.5), ("-0.5", -0.5), ("\u22120.5", -0.5), ("+2", 2), (".5", 0.5), ("1.", 1.0),
    ("1e-3", 1e-3), ("1e\u22123", 1e-3), ("2E-3", 2e-3), ("1_000", 1000), ("1_000.5", 1000.5),
    ("-0", 0), ("1000000", 1e6), ("-1e6", -1e6),
    ("1e7", None), ("1000001", None), ("-1e300", None), ("1e300", None), ("1e999", None),
    ("0x10", None), ("0b11", None), ("0o7", None), ("010", None), ("1:30", None),
    ("1__0", None), ("_1", None), ("1_", None), ("abc", None), ("1,5", None),
    (".inf", None), (".nan", None), ("true", None), ("--1", None), ("\u2212\u22121", None),
    ("1" * 31, None), ("0.5\u2212", None),
]


def loader_verdict(tmp_path, typed: str):
    path = tmp_path / "toy.yaml"
    path.write_text(TOY.replace(FIRST_E_ROW, f"  - [{typed}, -0.5, 0, 1]"), encoding="utf-8")
    try:
        return float(load_toy(path).params["E"][0, 0])
    except WeightsError:
        return None


def editor_verdicts(cases: list[str]) -> list:
    runner = r"""
const { readNumber } = (await js("weights_editor"));
process.stdout.write(JSON.stringify(job.cases.map((t) => {
  const read = readNumber(t, job.numbers);
  return read.why ? null : read.value;
})));
"""
    numbers = editor_data(load_toy(DEFAULT_TOY))["numbers"]
    return run_json(runner, {"cases": cases, "numbers": numbers})


def test_the_loader_reads_each_case_as_expected(tmp_path):
    got = [(typed, loader_verdict(tmp_path, typed)) for typed, _ in CASES]
    assert got == [(typed, None if want is None else float(want)) for typed, want in CASES]


def test_the_editor_reads_each_case_as_the_loader_does(tmp_path):
    editor = editor_verdicts([typed for typed, _ in CASES])
    loader = [loader_verdict(tmp_path, typed) for typed, _ in CASES]
    assert list(zip([t for t, _ in CASES], editor)) == list(zip([t for t, _ in CASES], loader))


@pytest.mark.parametrize("typed, why", [
    ("abc", "expected a number"), ("0x10", "hexadecimal, octal or binary"),
    ("1e7", "beyond the limit of a weight, ±1,000,000"), ("", "the cell is empty"),
])
def test_the_editor_says_why(typed, why):
    runner = r"""
process.stdout.write(JSON.stringify((await js("weights_editor")).readNumber(job.typed, job.numbers)));
"""
    read = run_json(runner, {"typed": typed, "numbers": editor_data(load_toy(DEFAULT_TOY))["numbers"]})
    assert why in read["why"]
