"""The "you are here" map in chromium (toycalc/book/minimap.py): the heads
chosen on one page drawn on the next, and a click on a part opens its page.
On every chapter page (every part drawn, the page's parts outlined, text a
phone can read): the tour of every page, test_every_page_browser.py."""
from __future__ import annotations

import pytest

from tests.browser.probes import READ, SHOWN
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
        assert seen["softmax"][0].endswith(", ".join(
            f"{show(t)} {fixed(p)}" for t, p in zip(ex.model.vocab, ex.trace["p"][-1])))
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
    page.wait_for_selector("body[data-mathjax=done]", timeout=60000)
    assert title.lower() in page.locator("article h1").first.text_content().lower()
