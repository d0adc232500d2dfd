"""The "you are here" map (toycalc/book/minimap.py), the model's drawing
small: every part once, its strips' <title>s equal to toycalc's numbers
(the toy for each heads choice, nano-gpt with its biases and LayerNorm
weights), every number painted, bands a phone can show, and on the built
site every chapter page opens with it, its page's parts outlined."""
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


def nano_map(run) -> BeautifulSoup:
    links = {name: "nano-gpt/" + target for name, target in minimap.NANO_PAGES.items()}
    return BeautifulSoup(minimap.map_svg(run.trace, [VOCAB[i] for i in run.ids], list(VOCAB), links, [],
                                         run.params, first=0), "html.parser")


def strip_titles(soup, part: str) -> list[str]:
    return [t.get_text() for t in soup.select(f'g[data-part="{part}"] rect.strip > title')]


def numbers(values) -> str:
    return ", ".join(fixed(v) for v in values)


def summary(values) -> str:
    return f"{len(values)} numbers, from {fixed(min(values))} to {fixed(max(values))}"


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_toys_map_carries_the_last_tokens_numbers(toy, heads):
    ex = Example(toy, heads=heads)
    soup = toy_map(ex)
    assert [g["data-part"] for g in soup.select("g[data-part]")] == PARTS
    at = f"{ex.model.show(ex.ids[-1])} (position {len(ex.ids)})"
    blk = ex.trace["blocks"][0]
    assert strip_titles(soup, "E") == [f"E, the row of {at}: {numbers(ex.trace['E_ids'][-1])}"]
    assert strip_titles(soup, "X") == [f"x of {at}: {numbers(ex.trace['X'][-1])}"]
    assert strip_titles(soup, "W_O") == [f"attention's output of {at}: {numbers(blk['attn'][-1])}"]
    assert strip_titles(soup, "add2") == [f"y, h plus the MLP's output of {at}: {numbers(blk['y'][-1])}"]
    tokens = [ex.model.show(i) for i in ex.ids]
    assert strip_titles(soup, "heads") == [
        f"head {h + 1}: what {at} reads: " + ", ".join(f"{t} {fixed(a)}" for t, a in zip(tokens, w[-1]))
        for h, w in enumerate(blk["weights"])]
    p = ex.trace["p"][-1]
    vocab = [show(v) for v in ex.model.vocab]
    assert strip_titles(soup, "softmax") == [f"p after {at}: " + ", ".join(f"{v} {fixed(x)}" for v, x in zip(vocab, p))]
    (answer,) = soup.select('g[data-part="next"] text.answer')
    assert answer.contents[0] == show(ex.model.vocab[ex.top_id])
    assert soup.find(string="the block")


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_every_number_of_the_map_is_painted_and_every_band_fits_a_phone(toy, heads):
    """A cell painted for every number of the strips, but a weight of 0
    (a cell is a stroke: 'M x y v h' or 'm dx dy v h'), a zero grey as the
    key shows it; no band wider than the column at 375 px."""
    ex = Example(toy, heads=heads)
    soup = toy_map(ex)
    painted = sum(len(re.findall(r"[Mm][^Mmv]*v", p["d"])) for p in soup.select("path[class^=m-]"))
    parts = minimap.map_parts(ex.trace, [ex.model.show(i) for i in ex.ids], [show(v) for v in ex.model.vocab])
    assert painted == sum(1 for part in parts for strip in part.strips for v in strip[4] if v or strip[5] == "signed")
    zeros = sum(1 for part in parts for strip in part.strips for v in strip[4] if v == 0 and strip[5] == "signed")
    assert zeros and sum(len(re.findall("v", p["d"])) for p in soup.select("path.m-zero")) == zeros
    assert all(int(svg["width"]) <= 343 for svg in soup.select("svg"))
    assert len(soup.select("svg")) >= 2 and all(svg["role"] == "group" and svg["aria-label"] for svg in soup.select("svg"))


def test_nano_gpts_map_carries_its_weights_and_three_blocks(run):
    soup = nano_map(run)
    assert [g["data-part"] for g in soup.select("g[data-part]")] == PARTS
    assert soup.find(string=re.compile(r"× 3 blocks"))
    at = f"{VOCAB[run.ids[-1]]} (position {run.T - 1})"   # nano-gpt counts from 0
    p, blk = run.params, run.trace["blocks"][0]
    assert strip_titles(soup, "ln1") == [f"u, x after LayerNorm of {at}: {summary(blk['u'][-1])}",
                                         f"γ₁, LayerNorm's learned weights: {summary(p['blocks.0.gamma_1'])}",
                                         f"β₁, its learned biases: {summary(p['blocks.0.beta_1'])}"]
    assert strip_titles(soup, "Q")[1] == f"the bias of q: {summary(p['blocks.0.b_Q'])}"
    assert strip_titles(soup, "W_O")[1] == f"the projection's bias: {summary(p['blocks.0.b_O'])}"
    b1 = p["blocks.0.b_1"]
    assert strip_titles(soup, "mlp")[1:] == [f"the bias of W₁ ({k + 1} to {k + 48}): {summary(b1[k:k + 48])}"
                                             for k in range(0, len(b1), 48)] + [
        f"the bias of W₂: {summary(p['blocks.0.b_2'])}"]
    assert strip_titles(soup, "lnf")[1:] == [f"γ, the last LayerNorm's learned weights: {summary(p['gamma_f'])}",
                                            f"β, its learned biases: {summary(p['beta_f'])}"]
    # f is read off the third block's y; the softmax's numbers are nano-gpt's
    assert strip_titles(soup, "lnf")[0] == f"f, the last block's y after LayerNorm of {at}: {summary(run.trace['f'][-1])}"
    assert strip_titles(soup, "softmax") == [f"p after {at}: " + ", ".join(
        f"{v} {fixed(x)}" for v, x in zip(VOCAB, run.trace["p"][-1]))]
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
    toy, the default shown), the page's parts outlined and marked current,
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
            assert not v.select("a rect.strip"), name    # a strip shows its number on a tap, never a page
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
                assert strip_titles(v, "softmax") == strip_titles(toy_map(ex), "softmax")
                assert len(v.select('g[data-part="heads"] rect.strip')) == ex.n_heads
        else:
            assert strip_titles(m, "lnf") == strip_titles(nano_map(run), "lnf")


def test_the_map_prints_the_books_notation(toy, run):
    """Labels and titles with real subscripts and primes: no _ or ^ standing for them."""
    for soup in (toy_map(Example(toy, heads=4)), nano_map(run)):
        text = soup.get_text(" ") + " ".join(a["aria-label"] for a in soup.select("a"))
        assert "_" not in text and "^" not in text and "´" not in text
        assert soup.select('g[data-part="W_O"] text.hdr tspan.sub')[0].get_text() == "O"
