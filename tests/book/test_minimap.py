"""The "you are here" map (toycalc/book/minimap.py, map_drawing.py): the
model in words, left to right, its block one frame; every number a cell
of 8 px whose <title> is toycalc's number, or (a vector too long for the
map) one bar whose <title> holds all of them; the page's parts marked
"you are here"; and on the built site every chapter page of the three
models opens with it, its key in a closed "Key" control."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import page
from toycalc.book import map_drawing, minimap
from toycalc.book.example import Example
from toycalc.book.model_drawing import IN_BLOCK, PARTS
from toycalc.book.render import fixed
from toycalc.model.nanogpt import VOCAB
from toycalc.model.tokenizer import show

TOY_PAGES = ["index", "tokens", "embedding", "positions", "layernorm", "attention", "mlp", "output",
             "generation", "training"]
NANO_PAGES = ["index", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
              "transformer", "softmax", "output", "train"]
WRITER_PAGES = ["index", "inside", "write"]


def links_of(chapter: str) -> dict:
    return {name: f"{chapter}/{target}" for name, target in minimap.CHAPTERS[chapter].items()}


def toy_map(ex: Example, here=()) -> BeautifulSoup:
    return BeautifulSoup(minimap.drawn(ex.trace, [ex.model.show(i) for i in ex.ids], [show(v) for v in ex.model.vocab],
                                       links_of("toy"), list(here)), "html.parser")


def nano_map(run, here=("ln1", "mlp", "lnf")) -> BeautifulSoup:
    return BeautifulSoup(minimap.drawn(run.trace, [VOCAB[i] for i in run.ids], list(VOCAB), links_of("nano-gpt"),
                                       list(here), sep=" "), "html.parser")


def titles(soup, part: str) -> list[str]:
    """The titles of a part's cells (and bars)."""
    return [c.title.get_text() for c in soup.select(f'g[data-part="{part}"] rect:is([class^="v-"], .bar)')]


def named(what: str, values, names) -> list[str]:
    return [f"{what}, {n}: {fixed(v)}" for n, v in zip(names, values)]


def columns(n: int) -> list[str]:
    return [f"column {j + 1}" for j in range(n)]


def box(rect) -> tuple[float, float, float, float]:
    x, y = float(rect["x"]), float(rect["y"])
    return x, y, x + float(rect["width"]), y + float(rect["height"])


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_map_is_a_region_of_its_own(toy, run):
    """Named in the build (a role set by a script had the browser restyle
    every cell), and reachable by the keyboard, since a phone scrolls it."""
    for soup in (toy_map(Example(toy)), nano_map(run)):
        bands = soup.select_one("div.map-bands")
        assert bands["role"] == "region" and bands["aria-label"] == "The model's map" and bands["tabindex"] == "0"
        assert len(bands.select("svg")) == 1


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
    assert titles(soup, "add2") == named(f"y, h plus the MLP's output, of {at}", blk["y"][-1], columns(4))
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
    assert soup.select("rect.bar") == []            # the toy's vectors are short: every number a cell


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_map_names_its_parts_in_words_and_draws_one_block(toy, heads):
    """The stages in words, the letters beside them; one frame, "Transformer
    block × 1", holding the attention's box with a name for every head, and
    the MLP's; one residual stream, the only thick line."""
    soup = toy_map(Example(toy, heads=heads))
    words = [t.get_text(" ") for t in soup.select("text")]
    for name in ("Tokens", "Embedding E", "Positions P", "Sum x", "Attention", "Queries q", "MLP", "Output",
                 "Logits z", "Probabilities p", "Next token", "Transformer block × 1"):
        assert any(" ".join(w.split()) == name for w in words), (name, words)
    (frame,) = soup.select("rect.block")
    inside = box(frame)
    names = [t for t in soup.select("text") if re.fullmatch(r"head \d+|MLP", t.get_text())]
    assert sorted(t.get_text() for t in names) == sorted([f"head {h + 1}" for h in range(heads)] + ["MLP"])
    for t in names:
        assert inside[0] < float(t["x"]) < inside[2] and inside[1] < float(t["y"]) < inside[3], t
    assert len(soup.select("path.stream")) == 1 and len(soup.select("rect.branch")) == 3


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_every_number_is_a_cell_of_8_px(toy, heads):
    """A cell for every number of the parts (a zero grey, as the key shows it), 8 px."""
    ex = Example(toy, heads=heads)
    soup = toy_map(ex, minimap.highlighted("toy", "attention.md"))
    cells = soup.select('rect[class^="v-"]')
    d, T, V = 4, len(ex.ids), len(ex.model.vocab)
    assert len(cells) == 13 * d + heads * T + 2 * V        # E, P, x, u, q, k, v, mix, h, u′, m, y, f; lanes; z, p
    for cell in cells:
        assert float(cell["width"]) == float(cell["height"]) == map_drawing.PITCH - 1 >= 8, cell


def test_nano_gpts_map_counts_from_1_and_draws_the_pages_long_vectors(run):
    """Positions, columns, blocks and heads from 1, as the whole book counts;
    the page's vectors of 48 numbers cell by cell, the others one bar each
    whose title holds every number; "× 3"."""
    soup = nano_map(run, ["ln1"])
    assert [g["data-part"] for g in soup.select("g[data-part]")] == PARTS
    assert soup.find(string="Transformer block × 3")
    at = f"{VOCAB[run.ids[-1]]} (position {run.T})"
    blk = run.trace["blocks"][0]
    assert titles(soup, "ln1") == named(f"u, x after LayerNorm, of {at}, block 1 of 3", blk["u"][-1], columns(48))
    (bar,) = titles(soup, "Q")
    assert bar == (f"q, the query of {at}, block 1 of 3, 48 numbers (column 1 to column 48): "
                   + ", ".join(fixed(v) for v in blk["Q"][-1]))
    assert titles(soup, "softmax") == named(f"p after {at}", run.trace["p"][-1], [f"p({v})" for v in VOCAB])
    tokens = [VOCAB[i] for i in run.ids]
    assert titles(soup, "heads")[:run.T] == [f"head 1, block 1 of 3, {at} reads {t} (position {j + 1}): {fixed(a)}"
                                             for j, (t, a) in enumerate(zip(tokens, blk["weights"][0][-1]))]
    width, height = map_drawing.size(str(soup.svg))
    assert width <= minimap.WIDE and height <= minimap.TALL
    # a page of no long part of its own: x, cell by cell
    assert len(titles(nano_map(run, ["softmax"]), "X")) == 48


def test_the_highlight_follows_the_page():
    assert minimap.highlighted("toy", "attention.md") == ["Q", "K", "V", "heads", "W_O"]
    assert minimap.highlighted("nano-gpt", "transformer.md") == [n for n in PARTS if n in IN_BLOCK]
    assert minimap.highlighted("nano-gpt", "softmax.md") == ["heads", "softmax"]
    assert minimap.highlighted("toy", "training.md") == []
    assert minimap.highlighted("writer", "index.md") == ["tokens"]
    assert minimap.highlighted("writer", "write.md") == ["softmax", "next"]
    assert minimap.highlighted("writer", "inside.md") == PARTS[1:-2]


def test_the_tail_of_the_text_fits_its_column():
    assert minimap.tail(["␣the", "␣cat", "␣climb", "ed", "␣the"]) == "…␣climbed␣the"
    assert minimap.tail(list("CBABBC"), " ") == "C B A B B C"
    assert minimap.tail(list("Good␣morrow,␣neighbour␣Baptista."), room=20) == "…neighbour␣Baptista."


def test_a_parts_name_is_a_target_of_24_px_that_no_cell_covers(toy, run):
    """Each link's hit area 24 × 24 or more, inside the map, over no cell or
    bar and no other link's area; no two texts' boxes (estimated) overlap."""
    for soup in (toy_map(Example(toy, heads=4), ["Q", "K", "V", "heads", "W_O"]), nano_map(run)):
        svg = soup.svg
        hits = [(a.find_parent("g")["data-part"], box(a.select_one("rect.hit"))) for a in svg.select("a")]
        cells = [box(r) for r in svg.select('rect[class^="v-"], rect.bar, rect.chosen-box')]
        assert len(hits) >= 18
        for k, (part, hit) in enumerate(hits):
            assert hit[2] - hit[0] >= map_drawing.TARGET and hit[3] - hit[1] >= map_drawing.TARGET, (part, hit)
            assert hit[1] >= 0 and hit[3] <= float(svg["height"]) and hit[2] <= float(svg["width"]), (part, hit)
            assert not any(overlap(hit, c) for c in cells), (part, hit)
            assert not any(overlap(hit, other) for j, (_, other) in enumerate(hits) if j != k), (part, hit)


def test_the_map_prints_the_books_notation(toy, run):
    """Labels and titles with real subscripts and primes: no _ or ^ standing for them."""
    for soup in (toy_map(Example(toy, heads=4)), nano_map(run)):
        text = soup.get_text(" ") + " ".join(a["aria-label"] for a in soup.select("a"))
        assert "_" not in text and "^" not in text and "´" not in text
        assert soup.select('g[data-part="W_O"] text tspan.sub')[0].get_text() == "O"


def test_you_are_here_is_its_own_mark_and_the_outline_the_pick_alone(toy):
    """The page's parts: a shaded box and a bar under it, no class of the
    one chosen; the accent's classes (chosen, chosen-box) on the token the
    model picks alone; the Key names both marks, closed at first."""
    here = minimap.highlighted("toy", "attention.md")
    soup = toy_map(Example(toy), here)
    for g in soup.select("g.here"):
        assert g.select(":scope > rect.here-box") and g.select(":scope > rect.here-bar"), g["data-part"]
    assert [g["data-part"] for g in soup.select("g.here")] == here
    chosen = soup.select(".chosen, .chosen-box")
    assert [c.find_parent("g")["data-part"] for c in chosen] == ["softmax", "next"]
    figure = BeautifulSoup(minimap.minimap("toy/attention.md", lambda heads=None: Example(toy, heads=heads)),
                           "html.parser")
    (key,) = figure.select("figure > figcaption > details.map-key")
    assert not key.has_attr("open") and key.summary.get_text() == "Key"
    assert key.select_one(".swatch.chosen").next_sibling.strip() == "the token the model picks"
    assert key.select_one(".swatch.here").next_sibling.strip() == "you are here."
    assert figure.select("p") == [] and "“the cat climbed the”" in key.get_text()
    whole = BeautifulSoup(minimap.minimap("toy/index.md", lambda heads=None: Example(toy, heads=heads)), "html.parser")
    assert whole.select(".swatch.here") == [] and "whole model" in whole.figcaption.get_text()


# ---------------------------------------------------------------- the writer

def test_the_writers_map_draws_its_channels_and_its_likeliest_characters(writer_run):
    """From the shipped weights on the held-out line: x's 128 channels cell
    by cell, the 4 blocks one frame with block 1's numbers, the 4 heads
    named, the 65 characters as the 5 likeliest and the rest, summing to 1."""
    run = writer_run
    figure = BeautifulSoup(minimap.minimap("writer/write.md", runs={"writer": lambda: run}), "html.parser")
    svg = figure.svg
    x = titles(svg, "X")
    assert len(x) == 128 and x[0].startswith("x of . (position 32), channel 1: ")
    assert svg.find(string="Transformer block × 4")
    assert [t.get_text() for t in svg.select('g[data-part="heads"] text')] == [f"head {h}" for h in range(1, 5)]
    assert all("block 1 of 4" in t for t in titles(svg, "Q") + titles(svg, "heads"))
    p = titles(svg, "softmax")
    assert len(p) == minimap.TOP + 1 and "the 60 other characters together" in p[-1]
    assert abs(sum(float(t.rsplit(": ", 1)[1].replace("−", "-")) for t in p) - 1) < 0.01
    links = {a["data-page"] for a in svg.select("a")}
    assert links == {"writer/index.md", "writer/inside.md", "writer/write.md"}


@pytest.fixture(scope="module")
def writer_run():
    from toycalc.book.writer import WriterRun
    from toycalc.model import writer
    return WriterRun(writer.load())


# ---------------------------------------------------------------- the built site

@pytest.mark.parametrize("chapter,pages", [("toy", TOY_PAGES), ("nano-gpt", NANO_PAGES), ("writer", WRITER_PAGES)])
def test_every_chapter_page_opens_with_its_map(site, toy, run, chapter, pages):
    """Right under the title; every part once (once per heads choice in the
    toy, the default shown), the page's parts marked "you are here" and current,
    each part a link to the page that explains it; no paragraph before the prose."""
    pages_of = minimap.CHAPTERS[chapter]
    for name in pages:
        soup = page(site, chapter if name == "index" else f"{chapter}/{name}")
        (m,) = soup.select('figure[data-figure="minimap"]')
        assert soup.select_one("article h1").find_next_sibling() is m, name
        assert m.select("p") == [], name          # the key is no paragraph: the prose's first is the page's
        variants = m.select(".heads-variant") or [m]
        if chapter == "toy":
            assert [v["data-heads"] for v in variants] == ["1", "2", "4"]
            assert [v["data-heads"] for v in variants if not v.has_attr("hidden")] == [str(toy.heads)]
        here = minimap.highlighted(chapter, name + ".md")
        for v in variants:
            assert [g["data-part"] for g in v.select("g[data-part]")] == PARTS, name
            assert [g["data-part"] for g in v.select("g.here")] == here, name
            current = [a.find_parent("g")["data-part"] for a in v.select("a[aria-current=page]")]
            assert list(dict.fromkeys(current)) == here, name
            assert not v.select('a rect[class^="v-"]'), name    # a cell shows its number on a tap, never a page
            for a in v.select("a"):
                target = pages_of[a.find_parent("g")["data-part"]]
                # a link relative to this page: ../embedding/ from a page, ./ to itself
                want = ("./" if target == name + ".md" else f"{target[:-3]}/" if name == "index"
                        else f"../{target[:-3]}/")
                if target == "index.md":
                    want = "./" if name == "index" else "../"
                assert a["xlink:href"] == want, (name, a.find_parent("g")["data-part"])
                assert a["aria-label"]
        if chapter == "toy":
            for v in variants:
                ex = Example(toy, heads=int(v["data-heads"]))
                assert titles(v, "softmax") == titles(toy_map(ex), "softmax")
                assert len(titles(v, "heads")) == ex.n_heads * len(ex.ids)
        elif chapter == "nano-gpt":
            assert titles(m, "lnf") == titles(nano_map(run, here), "lnf")
