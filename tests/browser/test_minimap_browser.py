"""The "you are here" map in chromium (toycalc/book/minimap.py): the heads
chosen on one page drawn on the next, and a click on a part opens its page.
nano-gpt's map can be read at 1280 px (cells of 4 px or more, each with
its number, the page's parts large). On every chapter page (every part
drawn, the page's parts outlined, text a phone can read): the tour of
every page, test_every_page_browser.py."""
from __future__ import annotations

import re

import pytest

from tests.browser.probes import CHAPTERS, READ, SHOWN
from toycalc.book import minimap
from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show


def test_the_toys_map_follows_the_heads_choice_on_every_page(visit, toy):
    """Chosen on Attention, the heads hold on a page without a chooser (Embedding's map)."""
    v = visit()
    page = v.open("/toy/attention/")
    for heads in (4, 1, 2, 4):
        page.locator(f'.heads-chooser input[value="{heads}"]').first.check()
        seen = page.evaluate(READ)
        ex = Example(toy, heads=heads)
        assert seen["lanes"] == heads
        assert [t.split(", ", 1)[1] for t in seen["softmax"]] == [
            f"p({show(t)}): {fixed(p)}" for t, p in zip(ex.model.vocab, ex.trace["p"][-1])]
    page = v.open("/toy/embedding/")
    assert page.locator(".heads-chooser").count() == 0
    assert page.evaluate(READ)["lanes"] == 4


@pytest.mark.parametrize("start,part,target,title", [
    ("/toy/tokens/", "heads", "/toy/attention/", "Attention"),
    ("/toy/attention/", "next", "/toy/generation/", "Generation"),
    ("/nano-gpt/embedding/", "mlp", "/nano-gpt/mlp/", "MLP"),
    ("/nano-gpt/", "softmax", "/nano-gpt/softmax/", "Softmax")])
def test_a_click_on_a_parts_name_opens_its_page(visit, start, part, target, title):
    page = visit(375).open(start)
    page.locator(f'{SHOWN} g[data-part="{part}"] a').locator("visible=true").first.click()
    page.wait_for_url(f"**{target}")
    page.wait_for_selector("body[data-mathjax=done][data-started]", timeout=60000)
    assert title.lower() in page.locator("article h1").first.text_content().lower()


# Every cell of the shown map: its part, its size on the screen, its title.
CELLS = r"""() => [...document.querySelectorAll('figure[data-figure="minimap"] svg.map-band rect[class^="v-"]')]
  .filter((r) => r.checkVisibility())
  .map((r) => { const box = r.getBoundingClientRect(), title = r.querySelector(':scope > title');
                return {part: r.closest('g[data-part]').dataset.part, size: Math.min(box.width, box.height),
                        title: title && title.textContent}; })"""


@pytest.mark.parametrize("name", dict(CHAPTERS)["nano-gpt"])
def test_nano_gpts_map_can_be_read_at_1280(visit, name):
    """nano-gpt's map at 1280 px: every number a cell of 4 px or more that
    carries it in its <title>; the parts the page explains drawn large
    (their cells and no others), "× 3 blocks" kept."""
    page = visit(1280).open(f"/nano-gpt/{name}/" if name else "/nano-gpt/")
    cells = page.evaluate(CELLS)
    assert len(cells) > 600                      # d = 48 numbers a part, every part
    assert min(c["size"] for c in cells) >= 4, name
    assert all(c["title"] and re.search(r": −?\d+\.\d{3}$", c["title"]) for c in cells), name
    here = minimap.highlighted("nano-gpt", (name or "index") + ".md")
    large = {c["part"] for c in cells if c["size"] >= 7}
    assert large == set(here) & {c["part"] for c in cells}, (name, large)   # the tokens and "next" are words
    if here:
        assert min(c["size"] for c in cells if c["part"] in here) >= 1.75 * max(
            c["size"] for c in cells if c["part"] not in here), name
    assert "× 3 blocks" in page.locator('figure[data-figure="minimap"]').inner_text()
