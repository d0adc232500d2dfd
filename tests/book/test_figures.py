"""The toy model's figures in the built site: every mark's <title> is
toycalc's number for every heads choice, every figure is labelled, and the figures follow the weights file."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import as_tex, page
from toycalc.book import draw
from toycalc.book.toy import generation as generation_page, output
from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model import gpt
from toycalc.model.weights import DEFAULT_TOY, load_toy

TITLE = re.compile(r"^(.*): (\S+)$")


def titles(node) -> dict[str, str]:
    """Every mark's title, split into what it names and the number shown."""
    found = {}
    for t in node.select("title"):
        m = TITLE.match(t.get_text())
        if m and m.group(2) != "masked":
            found[m.group(1)] = m.group(2)
    return found


def variant(soup, heads: int):
    """The part of a page shown with `heads` heads: the other variants removed."""
    soup = BeautifulSoup(str(soup), "html.parser")
    for v in soup.select(".heads-variant"):
        if v["data-heads"] != str(heads):
            v.decompose()
    return soup


def attention_titles(ex: Example) -> dict[str, str]:
    tokens = [ex.model.show(i) for i in ex.ids]
    w = ex.block["weights"]
    return {f"head {h + 1}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1})": fixed(w[h, i, j])
            for h in range(ex.n_heads) for i in range(len(tokens)) for j in range(i + 1)}


@pytest.fixture(scope="module")
def toy():
    return load_toy(DEFAULT_TOY)


@pytest.fixture(scope="module", params=[1, 2, 4], ids=lambda h: f"{h}-heads")
def ex(request, toy):
    return Example(toy, heads=request.param)


@pytest.mark.parametrize("where", ["end-to-end", "toy/attention"])
def test_attention_figures_show_toycalcs_weights(site, ex, where):
    shown = variant(page(site, where), ex.n_heads)
    figures = shown.select('figure[data-figure="attention"]')
    assert sorted({f["data-head"] for f in figures}) == [str(h) for h in range(1, ex.n_heads + 1)]
    for f in figures:
        assert len(f.select("svg")) == 2  # the heat-map and the lines
        got = titles(f)
        want = {k: v for k, v in attention_titles(ex).items() if k.startswith(f"head {f['data-head']},")}
        assert got == want
        # the heat-map: a coloured cell per weight, and the cells after each query masked, as one mark
        heat = f.select("svg")[0]
        T = len(ex.ids)
        coloured = {(int(r["x"]), int(r["y"])) for r in heat.select("rect[class^=v-]")}
        (masked,) = heat.select("g.v-masked")
        assert masked.title.get_text() == draw.MASKED
        boxes = {(int(x), int(y)) for x, y in re.findall(r"M(\d+) (\d+)h", masked.select_one("path.cells")["d"])}
        assert len(coloured) == T * (T + 1) // 2 and len(boxes) == T * (T - 1) // 2
        xs, ys = sorted({x for x, _ in coloured}), sorted({y for _, y in coloured})
        assert boxes == {(xs[j], ys[i]) for i in range(T) for j in range(i + 1, T)}


@pytest.mark.parametrize("where", ["end-to-end"])   # Output draws p at T = 1 (test_chapter_figures)
def test_probability_bars_show_toycalcs_p(site, ex, where):
    shown = variant(page(site, where), ex.n_heads)
    (f,) = shown.select('figure[data-figure="probabilities"]')
    bars = [t.get_text() for t in f.select("rect title")]
    p = ex.p_last
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    assert bars == [f"p({ex.model.show(i)}) = {fixed(p[i])}" for i in order]
    assert "bar-top" in f.select("rect")[0]["class"]


def test_the_path_is_the_models_drawing_built_once(site, toy):
    """End to End's path is the model's drawing of the default heads, with
    the nine steps as regions (every <title> toycalc's); the other choices
    are drawn by the page's script, not shipped."""
    from bs4 import BeautifulSoup
    from toycalc.book import model_drawing
    from toycalc.book.example import Example
    e2e = page(site, "end-to-end")
    (figure,) = e2e.select('#path figure[data-figure="model"]')
    ex = Example(toy)
    want = model_drawing.model_svg(ex.trace, [ex.model.show(i) for i in ex.ids], ex.model.vocab, steps=True)
    assert [t.get_text() for t in figure.select("title")] == \
        [t.get_text() for t in BeautifulSoup(want, "html.parser").select("title")]
    assert figure["data-heads"] == str(toy.heads) and not figure.find_parent(attrs={"data-heads": True})
    assert [b["aria-controls"] for b in figure.select("[role=button]")] == [f"step-{n}" for n in range(1, 10)]
    assert [s["id"] for s in e2e.select("#path > section.path-panel")] == [f"step-{n}" for n in range(1, 10)]


def test_chapter_figures(site, ex):
    z = ex.trace["logits"][-1]
    generation = variant(page(site, "toy/generation"), ex.n_heads)
    for shown in (variant(page(site, "toy/output"), ex.n_heads), generation):
        panels = shown.select('figure[data-figure="temperatures"]')
        assert [f["data-temperature"] for f in panels] == ["0.5", "1", "2"]
        for f, T in zip(panels, output.TEMPERATURES):
            p = gpt.softmax(z / T)
            order = sorted(range(len(p)), key=lambda i: (-z[i], i))
            assert [t.get_text() for t in f.select("rect title")] == \
                [f"p({ex.model.show(i)}) = {fixed(p[i])}" for i in order]
    cut = {f["data-rule"]: f for f in generation.select('figure[data-figure="filter"]')}
    for rule, q in (("top-k", generation_page.keep(ex.p_last, generation_page.TOP_K)),
                    ("top-p", generation_page.keep(ex.p_last, top_p=generation_page.TOP_P))):
        grey = {r.select_one("title").get_text().split(")")[0][2:] for r in cut[rule].select("rect.bar-cut")}
        assert grey == {ex.model.show(i) for i in range(len(q)) if q[i] == 0}, rule
    # LayerNorm draws x5, a row already taught (its mean is zero: only the division shows);
    # MLP draws h5, the row after attention, whose mean is not zero, for each heads choice
    T = len(ex.ids)
    sub = str(T).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    drawn = [(page(site, "toy/layernorm"), ex, "x", "u", ex.trace["X"][-1], ex.block["u"][-1],
              ex.block["mu"][-1], ex.block["sigma"][-1])]
    for heads in ex.heads_choices:
        h = ex.with_heads(heads)
        drawn.append((variant(page(site, "toy/mlp"), heads), h, "h", "u′", h.block["h"][-1], h.block["u2"][-1],
                      h.block["mu2"][-1], h.block["sigma2"][-1]))
    for soup, _, before, after, row, normed, mu, sigma in drawn:
        (f,) = soup.select('figure[data-figure="layernorm"]')
        want = {f"{before}{sub}, column {c + 1}": fixed(v) for c, v in enumerate(row)}
        want |= {f"{after}{sub}, column {c + 1}": fixed(v) for c, v in enumerate(normed)}
        assert {k: v for k, v in titles(f).items() if "column" in k} == want
        assert [t.get_text() for t in f.select("line.mark title")] == \
            [f"{before}{sub}: mean μ = {fixed(mu)}", f"{after}{sub}: mean μ = {fixed(normed.mean())}"]
        assert f.select_one("path.spread title").get_text() == f"{before}{sub}: standard deviation σ = {fixed(sigma)}"
        # no two dots on top of each other: the same place, or nearer than their size on the same level
        for name in (before, after):
            dots = [(float(c["cx"]), float(c["cy"])) for c in f.select("circle")
                    if c.select_one("title").get_text().startswith(name + sub)]
            assert len(dots) == len(row)
            assert all((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 >= 100 for a in dots for b in dots if a != b), dots
    ex = ex.with_heads(ex.model.heads)  # Positions shows the weights file's heads only
    positions = variant(page(site, "toy/positions"), ex.n_heads)
    orders = positions.select('figure[data-figure="order"]')
    assert [f["data-order"] for f in orders] == ["as written", "earlier tokens reversed"]
    with_p = {t.get_text() for t in orders[0].select("rect title") if ", with P =" in t.get_text()}
    p = ex.p_last
    assert f"p({ex.model.show(ex.top_id)}), with P = {fixed(p[ex.top_id])}" in with_p


def test_every_figure_is_labelled(site):
    for name in ("end-to-end", "toy/attention", "toy/output", "toy/generation",
                 "toy/layernorm", "toy/positions"):
        soup = page(site, name)
        figures = soup.select("figure.toy-figure")
        assert figures, name
        for f in figures:
            assert f.get("data-figure")
            for svg in f.select("svg"):     # End to End's drawing holds its steps' buttons: a group
                role = "group" if "path-figure" in f["class"] else "img"
                assert svg["role"] == role and len(svg["aria-label"]) > 20, name


def test_the_end_to_end_page_stays_light(site):
    # a guard against figures multiplying (every heads variant drawn in full, say), read with
    # each formula as its TeX (its typeset markup is a given of MathJax's); what the reader
    # downloads, gzipped and with all the page loads, is benchmarks/page_load.py's
    text = (site / "end-to-end" / "index.html").read_text(encoding="utf-8")
    assert len(as_tex(text).encode()) < 260 * 1024


def test_the_figures_follow_the_weights(altered):
    """Built on other weights (conftest.altered_toy)."""
    new, old = Example(load_toy(altered.toy)), Example(load_toy(DEFAULT_TOY))
    for where in ("end-to-end", "toy/attention"):
        shown = variant(page(altered.site, where), new.n_heads)
        drawn = {}
        for f in shown.select('figure[data-figure="attention"]'):
            drawn |= titles(f)
        assert drawn == attention_titles(new)
        assert drawn != attention_titles(old)
    shown = variant(page(altered.site, "end-to-end"), new.n_heads)
    bars = {t.get_text() for t in shown.select('figure[data-figure="probabilities"] rect title')}
    assert bars == {f"p({new.model.show(i)}) = {fixed(new.p_last[i])}" for i in range(len(new.p_last))}
    changed = [i for i in range(len(old.p_last)) if fixed(old.p_last[i]) != fixed(new.p_last[i])]
    assert changed and all(f"p({old.model.show(i)}) = {fixed(old.p_last[i])}" not in bars for i in changed)


# ---------------------------------------------------------------- notation as the book prints it

LEAK = re.compile(r"[_^´]")


def figure_texts(soup) -> list[str]:
    """What a reader sees or hears of every figure: its drawn texts, its
    marks' <title>s, its caption and key (the formulas in them left out:
    MathJax prints those), its svgs' aria-labels; and the headers of every
    table a script fills in (the live tables, data-live or an id sim-*).
    Reads the soup without changing it (the soups are shared)."""
    def shown(elements):      # those outside a formula
        return [el for el in elements if el.find_parent(class_="arithmatex") is None]

    def text(el):             # its text, its formulas' left out
        return "".join(s for s in el.find_all(string=True) if s.find_parent(class_="arithmatex") is None)
    out = []
    for fig in shown(soup.select("figure")):
        out += [text(t) for t in shown(fig.select("text, title, figcaption, .fig-key"))]
        out += [s["aria-label"] for s in shown(fig.select("svg[aria-label]"))]
        out += [e["title"] for e in shown(fig.select("[title]"))]
    for table in shown(soup.select("table[id^=sim-], [data-nano-live] table, table[data-live]")):
        out += [text(th) for th in shown(table.select("th"))]
    return out


def test_no_figure_prints_an_underscore_or_a_caret(site, soups):
    """h₅ and u′₅, never h_5 or u´_5: on every page of the built site, no
    figure text, title, caption, key or live table header shows a _, ^ or
    ´ standing for a subscript, a power or a prime."""
    pages = [path for path in soups if path.name == "index.html"]
    assert len(pages) > 25
    seen, leaks = 0, []
    for path in pages:
        texts = figure_texts(soups[path])
        seen += len(texts)
        leaks += [(str(path.parent.relative_to(site)), t[:80]) for t in texts if LEAK.search(t)]
    assert seen > 1000 and leaks == []


def test_notation_writes_subscripts_and_primes():
    assert draw.notation("u'_5") == 'u′<tspan baseline-shift="sub">5</tspan>'
    assert draw.notation("W_{O} & <b>") == 'W<tspan baseline-shift="sub">O</tspan> &amp; &lt;b&gt;'
    assert draw.plain("u'_12") == "u′₁₂" and draw.plain("h_5, column 1") == "h₅, column 1"


POINT_AT = re.compile(r"point at (?!it\b)", re.I)    # an instruction: "point at a cell", not "point at it"


def test_point_at_instructions_say_tap_and_stay_off_print(site, soups):
    """A tap shows a mark's number too (tips.js): every "point at a cell /
    dot / arrow" of every page says "or tap", inside a .screen-only element
    (the print page leaves those out)."""
    seen, wrong = 0, []
    for path, soup in soups.items():
        if path.name != "index.html":
            continue
        for text in soup.find_all(string=POINT_AT):
            if text.find_parent("article") is None:
                continue
            seen += 1
            if not re.search(r"point at or tap", text, re.I) or text.find_parent(class_="screen-only") is None:
                wrong.append((str(path.parent.relative_to(site)), text.strip()[:80]))
    assert seen >= 8 and wrong == []
