"""The figures the browser draws for the reader's sentence are the ones the
build draws: docs/javascripts/draw.js and end_to_end.js against
toycalc/book/draw.py and end_to_end.py, string for string, first on
toycalc's own numbers, then on the browser's own forward pass; and each
mirrored primitive of draw.py and render.py on cases of its own."""
from __future__ import annotations

import pytest

from nodejs import run_json
from toycalc.book import draw, end_to_end, render
from toycalc.book.example import Example
from toycalc.model.weights import DEFAULT_TOY, load_toy
from toycalc.site.export import weights_data

SENTENCES = ["the cat climbed the", "the dog climbed the", "the", "the cat climbed the roof. the",
             " floor roof wall sofa"]

# the twins the runners run (tests/test_mirrors.py); PRIMITIVES below add theirs
JS_CASES = ["end_to_end.js:attentionFigure", "end_to_end.js:probabilitiesFigure"]

RUNNER = r"""
const g = (await js("gpt")), draw = (await js("draw")), e2e = (await js("end_to_end"));
const model = g.load(job.weights);
const show = (i) => g.show(model.vocab[i]);
const vocab = model.vocab.map((t) => g.show(t));
process.stdout.write(JSON.stringify(job.runs.map((r) => {
  const tokens = r.ids.map(show);
  const own = g.run(model, r.text, r.heads, 1);
  return {
    given: {attention: e2e.attentionFigure(tokens, r.tr), probabilities: e2e.probabilitiesFigure(vocab, r.tr)},
    own: {attention: e2e.attentionFigure(tokens, own), probabilities: e2e.probabilitiesFigure(vocab, own)},
  };
})));
"""


def python_side(ex: Example) -> dict:
    return {"attention": end_to_end.attention_figure(ex),
            "probabilities": end_to_end.probabilities_figure(ex)}


@pytest.fixture(scope="module")
def drawn():
    model = load_toy(DEFAULT_TOY)
    runs, examples = [], []
    for text in SENTENCES:
        for heads in (1, 2, 4):
            ex = Example(model, text=text, heads=heads)
            b = ex.block
            runs.append({"text": text, "heads": heads, "ids": ex.ids,
                         "tr": {"ids": ex.ids, "weights": b["weights"].tolist(), "p": ex.trace["p"].tolist()}})
            examples.append(ex)
    job = {"weights": weights_data(model), "runs": runs}
    return list(zip(examples, run_json(RUNNER, job)))


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


# ---------------------------------------------------------------- the primitives, one call at a time

M = [[0.5, -1.25, 0.0], [2.0, None, -0.004]]
TITLES = [["a", "b <c>", "d"], ["e & f", "g", "h"]]
SERIES = [["loss", [[0, 1.5], [1, 0.75], [2, 0.5]], ["x 0", "x 1", "x 2"]],
          ["other", [[0, 1.0], [1, 1.25], [2, 0.25]], ["y 0", "y 1", "y 2"]]]
TICKS = [[0, "0"], [1, "1"], [2, "2"]]

# (JavaScript file, twin, the Python function, its arguments): each called
# on both sides with the same arguments (figure's data: a dict in JavaScript)
PRIMITIVES = [
    ("render.js", "fixed", render.fixed, [-0.0004]), ("render.js", "fixed", render.fixed, [2.5, 0]),
    ("render.js", "short", render.short, [-1.5]), ("render.js", "short", render.short, [1.0, True]),
    ("render.js", "vector", render.vector, [[0.5, -1.0, 1e-9]]),
    ("render.js", "weightsVector", render.weights_vector, [[1.0, -0.5, 0.25]]),
    ("render.js", "tex", render.tex, ["\u22121.5"]), ("render.js", "count", render.count, [124439808]),
    ("render.js", "count", render.count, [12]),
    ("render.js", "htmlTable", render.html_table, ["t&1", ["a", "<b>"], [["1", "2"], ["3", "4"]]]),
    ("render.js", "inlineMath", render.inline_math, ["a < b & c"]),
    ("render.js", "mathBlock", render.math_block, ["x > 1"]),
    ("render.js", "aligned", render.aligned, [[["a", "b"], ["", "c < d"]]]),
    ("render.js", "alignedRows", render.aligned_rows, [["a &= b", "&\\quad + c"]]),
    ("draw.js", "esc", draw.esc, ["<a href='x'>&\"</a>"]),
    ("draw.js", "strength", draw.strength, [0.004]), ("draw.js", "strength", draw.strength, [-0.5]),
    ("draw.js", "strength", draw.strength, [0.0]), ("draw.js", "strength", draw.strength, [1.7]),
    ("draw.js", "sign", draw.sign, [-2]), ("draw.js", "sign", draw.sign, [0]),
    ("draw.js", "largest", draw.largest, [M]), ("draw.js", "largest", draw.largest, [[[0.0]]]),
    ("draw.js", "cell", draw.cell, [1, 2, 3, 4, -0.25, 0.5, "a <b>"]),
    ("draw.js", "cell", draw.cell, [1, 2, 3, 4, 0.25, 1.0, "w", "prob"]),
    ("draw.js", "maskedCells", draw.masked_cells, [[[0, 0, 10, 10], [10, 0, 10, 10]]]),
    ("draw.js", "maskedCells", draw.masked_cells, [[]]),
    ("draw.js", "grid", draw.grid, [M, TITLES, 12, 3, 4]), ("draw.js", "grid", draw.grid, [M, TITLES, 12, 0, 0, 1.0]),
    ("draw.js", "grid", draw.grid, [M, TITLES, 12, 0, 0, 2.0, "prob"]),
    ("draw.js", "label", draw.label, [1, 2, "a & b", "end", "hdr"]), ("draw.js", "label", draw.label, [1, 2, "x"]),
    ("draw.js", "svg", draw.svg, [10, 20, "a \"quoted\" label", "<g/>"]),
    ("draw.js", "svg", draw.svg, [10, 20, "aria", "", "fig mini"]),
    ("draw.js", "textWidth", draw.text_width, ["␣cat"]), ("draw.js", "textWidth", draw.text_width, ["abc", 6]),
    ("draw.js", "attentionSvg", draw.attention_svg, [["a", "␣b"], [[1.0, None], [0.25, 0.75]], 2]),
    ("draw.js", "attentionLinesSvg", draw.attention_lines_svg, [["a", "␣b"], [[1.0, None], [0.25, 0.75]], 1]),
    ("draw.js", "barsSvg", draw.bars_svg, [["x", "y<"], [0.25, 0.75], "bars", 1, [0], "q"]),
    ("draw.js", "barsSvg", draw.bars_svg, [["x", "y"], [0.5, 0.5], "no top"]),
    ("draw.js", "probKey", draw.prob_key, []), ("draw.js", "probKey", draw.prob_key, ["p <", True, True]),
    ("draw.js", "figure", draw.figure, ["kind", "<svg/>", "a caption"]),
    ("charts.js", "at", draw.at, [12.25]), ("charts.js", "at", draw.at, [-0.04]), ("charts.js", "at", draw.at, [7.0]),
    ("charts.js", "niceTicks", draw.nice_ticks, [0, 0.87, 4]), ("charts.js", "niceTicks", draw.nice_ticks, [-3, 17, 5]),
    ("charts.js", "niceTicks", draw.nice_ticks, [2, 2, 5]),
    ("charts.js", "seriesKey", draw.series_key, [["a", "bb"], 10, 12, "line"]),
    ("charts.js", "seriesKey", draw.series_key, [["a", "bb"], 0, 12, "box"]),
    ("charts.js", "lineChartSvg", draw.line_chart_svg, [SERIES, "lines", TICKS, [[0, "0"], [1, "1"], [2, "2"]],
                                                      "x", "y", 300, 200]),
    ("charts.js", "lineChartSvg", draw.line_chart_svg, [SERIES[:1], "a line", TICKS, TICKS, "", "", 480, 240]),
    ("charts.js", "stackedBarsSvg", draw.stacked_bars_svg, [["one", "two"], ["A", "B", "C"],
                                                          [[0.25, 0.5, 0.25], [0.9, 0.05, 0.05]],
                                                          [["1", "2", "3"], ["4", "5", "6"]], "bars", ["→ A", "→ B"]]),
    ("charts.js", "stackedBarsSvg", draw.stacked_bars_svg, [["one"], ["A", "B"], [[1.0, 3.0]], [["1", "2"]], "b",
                                                          None, 120]),
]
JS_CASES += sorted({f"{file}:{name}" for file, name, _, _ in PRIMITIVES})

PRIMITIVES_RUNNER = r"""
const modules = await Promise.all(job.map(([file]) => js(file.replace(/\.js$/, ""))));
process.stdout.write(JSON.stringify(job.map(([, name, args], k) => modules[k][name](...args))));
"""


def test_each_primitive_prints_what_python_prints():
    job = [[file, name, [a for a in args]] for file, name, _, args in PRIMITIVES]
    got = run_json(PRIMITIVES_RUNNER, job)
    for (file, name, function, args), js in zip(PRIMITIVES, got):
        want = function(*args)
        assert js == want, f"{file} {name}{tuple(args)}"
