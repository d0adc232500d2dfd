"""The figures of the nano-gpt chapter and of "What changed since 2017":
draw.py's charts as pure functions, and each figure on its page with its
<title>s equal to the numbers toycalc computes (here, in the test), with
the shipped weights and with altered ones."""
import math
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup

from conftest import page
from toycalc.book import draw, what_changed
from toycalc.book.nano_gpt import nano_gpt, preliminaries, self_attention, transformer
from toycalc.book.example import Example
from toycalc.book.nano_example import Run
from toycalc.book.render import count, fixed
from toycalc.model import gpt, nanogpt, sizes, train
from toycalc.model.configs import GPT2_SMALL, LLAMA2_7B
from toycalc.model.nanogpt import Nano
from toycalc.model.weights import load_toy

# figure -> (page, the id of the table it draws, beside which it stands)
PLACES = {
    "nano-attention": ("nano-gpt/self-attention", re.compile(r"^nano-attention-\d+-\d+$")),  # the head the page follows
    "nano-residual": ("nano-gpt/transformer", "nano-blocks-6"),
    "nano-generate": ("nano-gpt/output", "nano-generate"),
    "nano-loss": ("nano-gpt/preliminaries", "nano-training"),
    "modern-params": ("what-changed", "table-growth"),
    "modern-rope": ("what-changed", "table-rope-scores"),
    "modern-kv": ("what-changed", "table-kv-growth"),
}
COORDINATE = re.compile(r'(?<![\w-])(?:x|y|x1|x2|y1|y2|cx|cy|r|width|height)="([^"]*)"|points="([^"]*)"| d="([^"]*)"')


@pytest.fixture(scope="module")
def ex(toy):
    return Example(toy)


def titles(node) -> list[str]:
    return [t.get_text() for t in node.find_all("title")]


def number(title: str) -> str:
    """The number a title ends with (after its last ': ' or ' = ')."""
    return re.split(r": | = ", title)[-1]


# ------------------------------------------------------------- what toycalc computes (the expectations)

def attention_expected(params, ids) -> dict:
    """{(block, head, t, j): value} for j <= t, from gpt.forward; named from 1, as the book counts."""
    trace = gpt.forward(params, nanogpt.CONFIG, np.array(ids))
    L = [nanogpt.VOCAB[i] for i in ids]
    out = {}
    for b, block in enumerate(trace["blocks"]):
        for h in range(nanogpt.CONFIG.n_heads):
            for t in range(len(ids)):
                for j in range(t + 1):
                    key = f"block {b + 1}, head {h + 1}: t = {t + 1} ({L[t]}) reads j = {j + 1} ({L[j]})"
                    out[key] = fixed(block["weights"][h, t, j])
    return out


def attention_drawn(node, T: int) -> dict:
    """The weights a drawing's titles give; and each small map's masked
    future, one mark (draw.masked_cells) of T (T - 1) / 2 cells."""
    masks = node.select("g.v-masked")
    assert len(masks) == nanogpt.CONFIG.n_blocks * nanogpt.CONFIG.n_heads
    for mask in masks:
        assert mask.title.get_text() == draw.MASKED
        assert mask.select_one("path.cells")["d"].count("z") == T * (T - 1) // 2
    return {t.rsplit(": ", 1)[0]: number(t) for t in titles(node) if t != draw.MASKED}


def residual_expected(params, ids, t=5) -> list[str]:
    blocks = gpt.forward(params, nanogpt.CONFIG, np.array(ids))["blocks"]
    lengths = [np.linalg.norm(blocks[0]["X"][t])]
    for b in blocks:
        lengths += [np.linalg.norm(b["h"][t]), np.linalg.norm(b["y"][t])]
    return [fixed(v) for v in lengths]


def generate_expected(params, ids) -> list[str]:
    ids, out = list(ids), []
    for step in range(nanogpt.LENGTH):
        p = gpt.forward(params, nanogpt.CONFIG, np.array(ids))["p"][-1]
        out += [f"step {step + 1}, p({letter}) = {fixed(v)}" for letter, v in zip(nanogpt.VOCAB, p)]
        ids.append(int(np.argmax(p)))
    return out


def params_expected() -> list[str]:
    out = []
    for cfg in (GPT2_SMALL, LLAMA2_7B):
        c = sizes.count_params(cfg)
        out += [count(c["E"] + c["P"]), count(c["W_QKV"] + c["W_O"]), count(c["W_MLP"]), count(c["W_U"]),
                count(c["biases"] + c["layernorm"])]
    return out


def kv_expected() -> list[str]:
    lengths = [1] + list(range(64, GPT2_SMALL.n_ctx + 1, 64))
    return ([count(sizes.multiply_adds(GPT2_SMALL, t, t)) for t in lengths]
            + [count(sizes.multiply_adds(GPT2_SMALL, t, 1)) for t in lengths])


def turn(v, radians):
    c, s = math.cos(radians), math.sin(radians)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def rope_expected(ex) -> list[list[str]]:
    """For each (m, n): the titles' numbers, computed with a 2 x 2 rotation
    (the first pair turns one radian per position after the first)."""
    b = what_changed.run(ex, positions="rope")["blocks"][0]
    cols = ex.head_columns(1)
    q, k = b["Q"][-1, cols][:2], b["K"][0, cols][:2]

    def pair(v):
        return f"({fixed(v[0])}, {fixed(v[1])})"
    out = []
    for m, n in what_changed.ROPE_PAIRS:
        qt, kt = turn(q, m - 1), turn(k, n - 1)
        angle = math.atan2(kt[0] * qt[1] - kt[1] * qt[0], kt @ qt)
        ghosts = [pair(v) for v, pos in ((q, m), (k, n)) if pos > 1]
        turns = [f"{fixed(pos - 1)} radians" for pos in (m, n) if pos > 1]
        want = ghosts + turns + [pair(qt), pair(kt), f"{fixed(angle)} radians"]
        out.append(sorted(want))
    return out


# ------------------------------------------------------------- the primitives, pure

def test_coordinates_have_one_decimal_at_most():
    assert [draw.at(v) for v in (12.04, 12.05, -0.04, -3.25, 3.25, 7.0)] == ["12", "12.1", "0", "-3.2", "3.3", "7"]


def test_nice_ticks_cover_the_range_in_round_steps():
    assert draw.nice_ticks(0, 200, 4) == [0, 50, 100, 150, 200]
    ticks = draw.nice_ticks(0.3, 1.03, 4)
    assert ticks[0] <= 0.3 and ticks[-1] >= 1.03
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1 and steps.pop() in (0.1, 0.2, 0.5)
    with pytest.raises(ValueError, match="ticks from 2 to 1: expected two finite numbers"):
        draw.nice_ticks(2, 1)


def test_line_chart_puts_each_point_where_its_value_is():
    series = [("a", [(0, 0.0), (10, 1.0)], ["a at 0: 0.000", "a at 10: 1.000"]),
              ("b", [(0, 0.5), (5, 0.25)], ["b at 0: 0.500", "b at 5: 0.250"])]
    out = draw.line_chart_svg(series, "two lines", [(0, "0"), (10, "10")], [(0, "0"), (1, "1")],
                              width=200, height=100)
    assert out == draw.line_chart_svg(series, "two lines", [(0, "0"), (10, "10")], [(0, "0"), (1, "1")],
                                      width=200, height=100)
    svg = BeautifulSoup(out, "html.parser").svg
    assert svg["role"] == "img" and svg["aria-label"] == "two lines"
    dots = svg.find_all("circle")
    assert [d.title.get_text() for d in dots] == series[0][2] + series[1][2]
    (x0, y0), (x1, y1) = [(float(d["cx"]), float(d["cy"])) for d in dots[:2]]
    assert x1 > x0 and y1 < y0          # right and up: y grows upwards
    middle = (float(dots[2]["cy"]) + float(dots[3]["cy"])) / 2
    assert abs(float(dots[2]["cy"]) - (y0 + y1) / 2) < 0.1 and middle > float(dots[2]["cy"])
    assert [p["class"] for p in svg.find_all("polyline")] == [["series", "s1"], ["series", "s2"]]
    assert "a" in svg.get_text() and "b" in svg.get_text()   # two series: a key


def test_stacked_bars_cut_each_bar_by_shares():
    rows = [[1, 1, 2], [3, 0, 1]]
    out = draw.stacked_bars_svg(["one", "two"], ["x", "y", "z"], rows,
                                [[f"{r}{k}" for k in range(3)] for r in range(2)], "bars", ["4", "4"], span=200)
    svg = BeautifulSoup(out, "html.parser").svg
    segs = [s for s in svg.find_all("rect") if s.title]
    assert [s.title.get_text() for s in segs] == ["00", "01", "02", "10", "11", "12"]
    widths = [float(s["width"]) for s in segs]
    assert widths == [50, 50, 100, 150, 0, 50]
    # no gap: each segment starts where the one before ends
    assert float(segs[1]["x"]) == float(segs[0]["x"]) + 50 and float(segs[2]["x"]) == float(segs[1]["x"]) + 50
    # a segment's name is written inside it only where it fits (not in the empty one)
    inside = [t.get_text() for t in svg.find_all("text") if t.get("class", [""])[0].startswith("on-")]
    assert inside == ["x", "y", "z", "x", "z"]


def test_arrows_point_the_way_their_vectors_do():
    out = draw.arrows_svg([("e1", 1.0, 0.0, "s1", "east"), ("e2", 0.0, 2.0, "s2", "north")], "two", size=100,
                          arcs=[(0.5, 0.0, math.pi / 2, "s3", "a quarter turn")])
    svg = BeautifulSoup(out, "html.parser").svg
    east, north = svg.find_all("g", class_="arrow")
    assert east.title.get_text() == "east" and north.title.get_text() == "north"
    # the longest arrow (north, length 2) reaches 70% of the half size; y points up
    assert north.path["d"] == "M50 50L50 15" and east.path["d"] == "M50 50L67.5 50"
    arc = svg.find("path", class_="arc")
    assert arc.title.get_text() == "a quarter turn" and arc["d"] == "M67.5 50A17.5 17.5 0 0 0 50 32.5"


# ------------------------------------------------------------- the figure functions, pure

def test_nano_figures_are_pure_and_carry_their_numbers(nano):
    run = Run(nano)
    for name, function in nano_gpt.registries["figure"].items():
        out = function(run)
        assert out == function(Run(nano)), name                      # the same bytes every time
        for attrs in COORDINATE.findall(out):
            for value in re.findall(r"-?[\d.]+", " ".join(attrs)):
                assert re.fullmatch(r"-?\d+(\.\d)?", value), (name, value)
    got = attention_drawn(BeautifulSoup(self_attention.attention_figure(run), "html.parser"), run.T)
    assert got == attention_expected(nano.params, run.ids)


def test_since_2017_figures_are_pure(ex):
    for name, function in what_changed.what_changed.registries["figure"].items():
        out = function(ex)
        assert out == function(ex), name
        for attrs in COORDINATE.findall(out):
            for value in re.findall(r"-?[\d.]+", " ".join(attrs)):
                assert re.fullmatch(r"-?\d+(\.\d)?", value), (name, value)


def test_without_a_loss_curve_the_page_says_so(nano):
    old = Run(Nano(path=nano.path, params=nano.params, record={"steps": 200}))
    assert "No loss curve in the training record" in preliminaries.loss_figure(old)


def test_figure_mistakes_say_what_exists(nano, ex):
    with pytest.raises(ValueError, match="t = 7: the example has positions 1 to 6"):
        transformer.residual_figure(Run(nano), t=7)
    with pytest.raises(ValueError, match="head = 3: this run has heads 1 to 2"):
        what_changed.rope_figure(ex, head=3)
    with pytest.raises(ValueError, match="step = 0: expected 1 to 1024, GPT-2 small.s positions"):
        what_changed.kv_figure(ex, step=0)


# ------------------------------------------------------------- the record keeps the curve

def test_the_record_keeps_the_loss_of_every_step(nano):
    curve = nano.record["loss_curve"]
    assert len(curve) == nano.record["steps"]
    np.testing.assert_allclose(curve[:3], train.first_losses(3), rtol=0, atol=1e-7)
    every = train.EVERY
    assert np.mean(curve[-every:]) == pytest.approx(nano.record["final_loss"], abs=1e-7)


# ------------------------------------------------------------- on the built pages

def figures_on(site, name):
    where, table_id = PLACES[name]
    soup = page(site, where)
    figs = soup.select(f'figure[data-figure="{name}"]')
    assert figs, f"{name} is not on {where}"
    for fig in figs:
        svg = fig.find("svg")
        assert svg["role"] == "img" and len(svg["aria-label"]) > 40, name
        # every mark that stands for a number says it
        marks = svg.select("rect.seg, circle.dot, g.arrow, path.arc, rect[class^=v-], g.v-masked")
        assert marks and all(m.find("title") for m in marks), name
        # beside its table, not instead of it: the table comes first
        table = soup.find(id=table_id)
        assert table is not None, table_id
        assert table in fig.find_all_previous("table"), (name, table_id)
    return figs


def check_figures(site, nano, ex):
    run = Run(nano)
    fig, = figures_on(site, "nano-attention")
    assert attention_drawn(fig, run.T) == attention_expected(nano.params, run.ids)

    fig, = figures_on(site, "nano-residual")
    assert [number(t) for t in titles(fig)] == residual_expected(nano.params, run.ids, t=5)

    fig, = figures_on(site, "nano-generate")
    assert titles(fig) == generate_expected(nano.params, run.ids)

    fig, = figures_on(site, "nano-loss")
    curve = nano.record["loss_curve"]
    assert titles(fig) == [f"step {s + 1}: loss {fixed(v)}" for s, v in enumerate(curve)]

    fig, = figures_on(site, "modern-params")
    assert [re.search(r": ([\d,]+) of", t).group(1) for t in titles(fig)] == params_expected()

    fig, = figures_on(site, "modern-kv")
    assert [re.search(r": ([\d,]+) multiply-adds", t).group(1) for t in titles(fig)] == kv_expected()

    figs = figures_on(site, "modern-rope")
    assert [(int(f["data-m"]), int(f["data-n"])) for f in figs] == list(what_changed.ROPE_PAIRS)
    got = [sorted(number(t) for t in titles(f)) for f in figs]
    assert got == rope_expected(ex)


def test_each_figure_is_on_its_page_with_toycalcs_numbers(site, nano, ex):
    check_figures(site, nano, ex)


def test_rope_turns_keep_the_angle_at_equal_distance(site, ex):
    """What the figure shows: at the same distance m - n the turned pair
    makes the same angle (to the three places printed)."""
    angles = {}
    for fig in figures_on(site, "modern-rope"):
        m, n = int(fig["data-m"]), int(fig["data-n"])
        angle = next(number(t) for t in titles(fig) if t.startswith("the angle"))
        angles.setdefault(m - n, set()).add(angle)
    assert all(len(a) == 1 for a in angles.values()) and len(angles) == 2


def test_the_contributor_page_lists_the_figure_macros(site):
    soup = page(site, "contributing")
    for macro, registry in (("nano_gpt_figure", nano_gpt.registries["figure"]), ("what_changed_figure", what_changed.what_changed.registries["figure"])):
        table = soup.find(id=f"table-macro-{macro}")
        assert table is not None, macro
        calls = [c.get_text() for c in table.select("tbody tr td:first-child code")]
        assert [re.search(r'\("([^"]+)"', c).group(1) for c in calls] == list(registry)


def test_figures_follow_altered_weights(altered, site):
    """Another toy weights file and another nano-gpt (weights and record,
    conftest.altered_toy and altered_nano; ␣the moves, so the last token's q
    turns elsewhere: with rotary positions P is dropped, so only E moves q
    and k): the figures show the new numbers and none of the old."""
    altered_nano, altered_ex = nanogpt.load(altered.nano), Example(load_toy(altered.toy))
    check_figures(altered.site, altered_nano, altered_ex)
    for name in ("nano-attention", "nano-generate", "nano-loss", "modern-rope"):
        old = [titles(f) for f in figures_on(site, name)]
        new = [titles(f) for f in figures_on(altered.site, name)]
        assert old != new, f"{name} did not change"
    # the What changed counts do not depend on the weights: the same figures
    for name in ("modern-params", "modern-kv"):
        assert [titles(f) for f in figures_on(site, name)] == [titles(f) for f in figures_on(altered.site, name)]


def test_the_kv_cache_lines_read_apart(site):
    """On a log axis the cached work does not lie flat on zero: the two
    lines are apart from the second point on, by more than a dot's size."""
    fig, = figures_on(site, "modern-kv")
    full, cached = [[tuple(map(float, p.split(","))) for p in line["points"].split()]
                    for line in fig.select("polyline")]
    assert full[0] == cached[0]     # one token: the same work, cache or not
    assert all(c[1] - f[1] > 20 for f, c in zip(full[1:], cached[1:])), (full, cached)
    assert "logarithmic" in fig.select_one("svg")["aria-label"]
