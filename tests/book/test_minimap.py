"""The "you are here" map (toycalc/book/minimap.py), the model's drawing
small: every part once, each number a cell of 4 px or more whose <title>
is toycalc's number (the toy for each heads choice; nano-gpt counting from
0, with the biases and LayerNorm weights of the page's parts), the page's
parts large, bands a phone can show, and on the built site every chapter
page opens with it, its page's parts marked "you are here" (shaded and
underlined, never the accent's outline of the token the model picks)."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import page
from toycalc.book import minimap
from toycalc.book.example import Example
from toycalc.book.model_drawing import IN_BLOCK, PARTS
from toycalc.book.render import fixed
from toycalc.model.nanogpt import VOCAB
from toycalc.model.tokenizer import show

TOY_PAGES = ["index", "tokens", "embedding", "positions", "layernorm", "attention", "mlp", "output",
             "generation", "training"]
NANO_PAGES = ["index", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
              "transformer", "softmax", "output", "train"]


def toy_map(ex: Example, here=()) -> BeautifulSoup:
    links = {name: "toy/" + target for name, target in minimap.TOY_PAGES.items()}
    return BeautifulSoup(minimap.map_svg(ex.trace, [ex.model.show(i) for i in ex.ids],
                                         [show(v) for v in ex.model.vocab], links, list(here)), "html.parser")


def nano_map(run, here=("ln1", "mlp", "lnf")) -> BeautifulSoup:
    links = {name: "nano-gpt/" + target for name, target in minimap.NANO_PAGES.items()}
    return BeautifulSoup(minimap.map_svg(run.trace, [VOCAB[i] for i in run.ids], list(VOCAB), links, list(here),
                                         run.params), "html.parser")


def titles(soup, part: str, weights: bool | None = False) -> list[str]:
    """The titles of a part's cells: its activation's (weights=False), its weights' (True), all (None)."""
    cells = soup.select(f'g[data-part="{part}"] rect[class^="v-"]')
    return [c.title.get_text() for c in cells if weights is None or ("w" in c["class"]) == weights]


def named(what: str, values, names) -> list[str]:
    return [f"{what}, {n}: {fixed(v)}" for n, v in zip(names, values)]


def columns(n: int) -> list[str]:
    return [f"column {j + 1}" for j in range(n)]


def channels(values) -> list[str]:
    return columns(len(values))


def test_the_map_is_a_region_of_its_own(toy, run):
    """Named in the build: a role set by a script had the browser restyle
    every cell of the map."""
    for soup in (toy_map(Example(toy)), nano_map(run)):
        bands = soup.select_one("div.map-bands")
        assert bands["role"] == "region" and bands["aria-label"] == "The model's map"


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_toys_map_carries_the_last_tokens_numbers(toy, heads):
    """Every number of the last token's vectors a cell, its number in its <title>."""
    ex = Example(toy, heads=heads)
    soup = toy_map(ex)
    assert [g["data-part"] for g in soup.select("g[data-part]")] == PARTS
    at = f"{ex.model.show(ex.ids[-1])} (position {len(ex.ids)})"
    blk, tr = ex.trace["blocks"][0], ex.trace
    assert titles(soup, "E") == named(f"E, the row of {at}", tr["E_ids"][-1], columns(4))
    assert titles(soup, "X") == named(f"x of {at}", tr["X"][-1], columns(4))
    assert titles(soup, "W_O") == named(f"attention's output of {at}", blk["attn"][-1], columns(4))
    assert titles(soup, "add2") == named(f"y, h plus the MLP's output of {at}", blk["y"][-1], columns(4))
    tokens = [ex.model.show(i) for i in ex.ids]
    assert titles(soup, "heads") == [f"head {h + 1}, {at} reads {t} (position {j + 1}): {fixed(a)}"
                                     for h, w in enumerate(blk["weights"]) for j, (t, a) in enumerate(zip(tokens, w[-1]))]
    p = tr["p"][-1]
    vocab = [show(v) for v in ex.model.vocab]
    assert titles(soup, "softmax") == named(f"p after {at}", p, [f"p({v})" for v in vocab])
    (answer,) = soup.select('g[data-part="next"] text.answer')
    assert answer.contents[0] == show(ex.model.vocab[ex.top_id])
    # the answer, the one chosen: its cell of p outlined, its name boxed
    (chosen,) = soup.select("rect.chosen")
    assert chosen.title.get_text() == f"p after {at}, p({vocab[ex.top_id]}): {fixed(p[ex.top_id])}"
    assert answer.find_previous_sibling("rect")["class"] == ["chosen-box"]
    assert soup.find(string="the block")


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_every_number_is_a_cell_of_4_px_and_every_band_fits_a_phone(toy, heads):
    """A cell for every number of the parts (a zero grey, as the key shows
    it), at least 4 px, 7 px in the page's parts; no band wider than the
    column at 375 px."""
    ex = Example(toy, heads=heads)
    here = minimap.highlighted("toy", "attention.md")
    soup = toy_map(ex, here)
    parts = minimap.map_parts(ex.trace, [ex.model.show(i) for i in ex.ids], [show(v) for v in ex.model.vocab],
                              large=tuple(here))
    cells = soup.select('rect[class^="v-"]')
    assert len(cells) == sum(len(strip.values) for part in parts for strip in part.strips)
    assert len(soup.select("rect.v-zero")) == sum(v == 0 for part in parts for strip in part.strips
                                                 for v in strip.values if strip.kind == "signed")
    for cell in cells:
        size = min(float(cell["width"]), float(cell["height"]))
        assert size >= (7 if cell.find_parent("g")["data-part"] in here else 4), cell
    assert all(int(svg["width"]) <= 343 for svg in soup.select("svg"))
    assert len(soup.select("svg")) >= 2 and all(svg["role"] == "group" and svg["aria-label"] for svg in soup.select("svg"))


def test_nano_gpts_map_counts_from_1_and_carries_the_weights_of_the_pages_parts(run):
    """Positions, columns and heads from 1, as the whole book counts; under a part
    the page explains, its weights that are vectors, cell by cell; the
    other parts without; "× 3 blocks"."""
    soup = nano_map(run)
    assert [g["data-part"] for g in soup.select("g[data-part]")] == PARTS
    assert soup.find(string=re.compile(r"× 3 blocks"))
    at = f"{VOCAB[run.ids[-1]]} (position {run.T})"
    p, blk = run.params, run.trace["blocks"][0]
    u = blk["u"][-1]
    assert titles(soup, "ln1") == named(f"u, x after LayerNorm of {at}", u, channels(u))
    assert titles(soup, "ln1", weights=True) == (
        named("γ₁, LayerNorm's learned weights", p["blocks.0.gamma_1"], channels(u)) +
        named("β₁, its learned biases", p["blocks.0.beta_1"], channels(u)))
    b1 = p["blocks.0.b_1"]
    assert titles(soup, "mlp", weights=True) == (named("the bias of W₁", b1, columns(len(b1))) +
                                                 named("the bias of W₂", p["blocks.0.b_2"], channels(u)))
    assert titles(soup, "lnf", weights=True) == (
        named("γ, the last LayerNorm's learned weights", p["gamma_f"], channels(u)) +
        named("β, its learned biases", p["beta_f"], channels(u)))
    # f is read off the third block's y; the softmax's numbers are nano-gpt's
    assert titles(soup, "lnf") == named(f"f, the last block's y after LayerNorm of {at}", run.trace["f"][-1],
                                        channels(u))
    assert titles(soup, "softmax") == named(f"p after {at}", run.trace["p"][-1], [f"p({v})" for v in VOCAB])
    tokens = [VOCAB[i] for i in run.ids]
    assert titles(soup, "heads")[:run.T] == [f"head 1, {at} reads {t} (position {j + 1}): {fixed(a)}"
                                             for j, (t, a) in enumerate(zip(tokens, blk["weights"][0][-1]))]
    # the parts the page does not explain: no weights, small cells
    for part in ("Q", "W_O", "ln2"):
        assert titles(soup, part, weights=True) == [] and len(titles(soup, part)) == len(u), part
    for cell in soup.select('rect[class^="v-"]'):
        large = cell.find_parent("g")["data-part"] in ("ln1", "mlp", "lnf")
        assert float(cell["width"]) == (minimap.LARGE if large else minimap.SMALL) - 1
    assert all(int(svg["width"]) <= 343 for svg in soup.select("svg"))


def test_the_highlight_follows_the_page():
    assert minimap.highlighted("toy", "attention.md") == ["Q", "K", "V", "heads", "W_O"]
    assert minimap.highlighted("nano-gpt", "transformer.md") == [n for n in PARTS if n in IN_BLOCK]
    assert minimap.highlighted("nano-gpt", "softmax.md") == ["heads", "softmax"]
    assert minimap.highlighted("toy", "training.md") == []


# ---------------------------------------------------------------- the built site

@pytest.mark.parametrize("chapter,pages", [("toy", TOY_PAGES), ("nano-gpt", NANO_PAGES)])
def test_every_chapter_page_opens_with_its_map(site, toy, run, chapter, pages):
    """Right under the title; every part once (once per heads choice in the
    toy, the default shown), the page's parts marked "you are here" and current,
    each part a link to the page that explains it; the numbers the build's."""
    pages_of = minimap.TOY_PAGES if chapter == "toy" else minimap.NANO_PAGES
    for name in pages:
        soup = page(site, chapter if name == "index" else f"{chapter}/{name}")
        (m,) = soup.select('figure[data-figure="minimap"]')
        assert soup.select_one("article h1").find_next_sibling() is m, name
        variants = m.select(".heads-variant") or [m]
        if chapter == "toy":
            assert [v["data-heads"] for v in variants] == ["1", "2", "4"]
            assert [v["data-heads"] for v in variants if not v.has_attr("hidden")] == [str(toy.heads)]
        here = minimap.highlighted(chapter, name + ".md")
        for v in variants:
            assert [g["data-part"] for g in v.select("g[data-part]")] == PARTS, name
            assert [g["data-part"] for g in v.select("g.here")] == here, name
            assert [a.find_parent("g")["data-part"] for a in v.select("a[aria-current=page]")] == here, name
            assert not v.select('a rect[class^="v-"]'), name    # a cell shows its number on a tap, never a page
            for a in v.select("a"):
                target = pages_of[a.find_parent("g")["data-part"]]
                # a link relative to this page: ../embedding/ from a page, ./ to itself
                want = ("./" if target == name + ".md" else f"{target[:-3]}/" if name == "index"
                        else f"../{target[:-3]}/")
                assert a["xlink:href"] == want, (name, a.find_parent("g")["data-part"])
                assert a["aria-label"]
        if chapter == "toy":
            for v in variants:
                ex = Example(toy, heads=int(v["data-heads"]))
                assert titles(v, "softmax") == titles(toy_map(ex), "softmax")
                assert len(titles(v, "heads")) == ex.n_heads * len(ex.ids)
        else:
            assert titles(m, "lnf", None) == titles(nano_map(run, here), "lnf", None)


def test_the_map_prints_the_books_notation(toy, run):
    """Labels and titles with real subscripts and primes: no _ or ^ standing for them."""
    for soup in (toy_map(Example(toy, heads=4)), nano_map(run)):
        text = soup.get_text(" ") + " ".join(a["aria-label"] for a in soup.select("a"))
        assert "_" not in text and "^" not in text and "´" not in text
        assert soup.select('g[data-part="W_O"] text.hdr tspan.sub')[0].get_text() == "O"


def box(rect) -> tuple[float, float, float, float]:
    x, y = float(rect["x"]), float(rect["y"])
    return x, y, x + float(rect["width"]), y + float(rect["height"])


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("which", ["toy", "nano"])
def test_a_parts_name_is_a_target_of_24_px_that_no_cell_covers(toy, run, which):
    """Each link's hit area 24 × 24 or more, inside its band, over no cell,
    no text of another part and no other link's area."""
    here = ["Q", "K", "V", "heads", "W_O"]
    soup = toy_map(Example(toy, heads=4), here) if which == "toy" else nano_map(run, here)
    for svg in soup.select("svg"):
        hits = [(a.find_parent("g")["data-part"], box(a.select_one("rect.hit"))) for a in svg.select("a")]
        cells = [box(r) for r in svg.select('rect[class^="v-"], rect.chosen-box')]
        for part, hit in hits:
            assert hit[2] - hit[0] >= minimap.TARGET and hit[3] - hit[1] >= minimap.TARGET, (part, hit)
            assert hit[1] >= 0 and hit[3] <= float(svg["height"]) and hit[2] <= float(svg["width"]), (part, hit)
            assert not any(overlap(hit, c) for c in cells), (part, hit)
            assert not any(overlap(hit, other) for p, other in hits if p != part), (part, hit)


def test_you_are_here_is_its_own_mark_and_the_outline_the_pick_alone(toy, run):
    """The page's parts: a shaded box and a bar under it, no class of the
    one chosen; the accent's classes (chosen, chosen-box) on the token the
    model picks alone; the key names both marks."""
    here = minimap.highlighted("toy", "attention.md")
    soup = toy_map(Example(toy), here)
    for g in soup.select("g.here"):
        assert g.select(":scope > rect.here-box") and g.select(":scope > rect.here-bar"), g["data-part"]
    assert [g["data-part"] for g in soup.select("g.here")] == here
    chosen = soup.select(".chosen, .chosen-box")
    assert [c.find_parent("g")["data-part"] for c in chosen] == ["softmax", "next"]
    caption = minimap.minimap("toy/attention.md", lambda heads=None: Example(toy, heads=heads))
    key = BeautifulSoup(caption, "html.parser").figcaption
    assert key.select_one(".swatch.chosen").next_sibling.strip() == "the token the model picks"
    assert key.select_one(".swatch.here").next_sibling.strip() == "you are here."
    whole = BeautifulSoup(minimap.minimap("toy/index.md", lambda heads=None: Example(toy, heads=heads)), "html.parser")
    assert whole.select(".swatch.here") == [] and "whole model" in whole.figcaption.get_text()


def test_a_phone_shows_the_pages_bands_where_the_whole_map_is_tall(toy, run):
    """nano-gpt's map, taller than CUT_HEIGHT on a phone: cut to the first
    band of the page's parts and those of them that follow within
    CUT_HEIGHT, and a button for the whole; the toy's short map, and a
    page about the whole model, whole."""
    for here in (["Q", "K", "V", "heads"], ["ln1", "ln2"], [n for n in PARTS if n in IN_BLOCK], ["softmax"]):
        soup = nano_map(run, here)
        bands = soup.select("svg.map-band")
        assert "is-cut" in soup.select_one("div.map-bands")["class"], here
        assert sum(int(b["height"]) for b in bands) > minimap.CUT_HEIGHT
        phone = [b for b in bands if "phone-band" in b["class"]]
        assert phone and phone[0] is next(b for b in bands if b.select("g.here")), here
        assert all(b.select("g.here") for b in phone), here
        assert len(phone) == 1 or sum(int(b["height"]) for b in phone) <= minimap.CUT_HEIGHT, here
        (button,) = soup.select("button.map-whole")
        assert button["type"] == "button" and button["aria-expanded"] == "false" and button.get_text() == "The whole map"
    for small in (toy_map(Example(toy), ["E"]), toy_map(Example(toy, heads=4), ["heads"]), nano_map(run, [])):
        assert "is-cut" not in small.select_one("div.map-bands")["class"] and not small.select("button")
        assert all("phone-band" in b["class"] for b in small.select("svg.map-band"))
