"""The page Type, it writes in a real browser (fixtures visit and server in
conftest.py): the weights are fetched only when the reader starts; a seed
writes the chapter's 200 characters; the top 10 is toycalc's; a character
outside the vocabulary gets its message naming it and its place, and
nothing else changes; a written character shows its distribution."""
from __future__ import annotations

import numpy as np
import pytest

from toycalc.book.render import fixed
from toycalc.book.writer import WriterRun
from toycalc.book.writer.shared import LIVE_TEMPERATURE
from toycalc.model import gpt, writer

PAGE = "/writer/write/"


@pytest.fixture(scope="module")
def run():
    return WriterRun(writer.load())


def started(visit):
    v = visit()
    fetched = []
    v.page.on("request", lambda r: fetched.append(r.url))
    page = v.open(PAGE)
    assert not [u for u in fetched if u.endswith("writer-weights.bin")], "fetched before the reader started"
    page.get_by_role("button", name="Start the writer").click()
    page.wait_for_selector("[data-writer][data-ready]", timeout=60000)
    assert [u for u in fetched if u.endswith("writer-weights.bin")]
    return page


def test_a_seed_writes_the_chapters_200_characters(visit, run):
    page = started(visit)
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=300000)
    written = page.locator("[data-writer-out]").evaluate(
        "o => [...o.querySelectorAll('button')].map(b => b.dataset.char).join('')")
    assert len(written) == 200
    assert written == run.sample_text(LIVE_TEMPERATURE)
    # tapping a written character shows the distribution it was drawn from
    page.locator("[data-writer-out] button[data-step='1']").click()
    rows = page.locator("[data-writer-picked] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    p = gpt.forward(run.params, run.cfg, np.array(writer.encode(run.prompt)), temperature=LIVE_TEMPERATURE)["p"][-1]
    best = int(np.argmax(p))
    assert rows[0] == [{" ": "␣", "\n": "↵"}.get(run.vocab[best], run.vocab[best]), f"{p[best]:.3f}"]


def test_the_top_10_follows_the_text_and_a_foreign_character_gets_its_message(visit, run):
    page = started(visit)
    field = page.get_by_label("Your text")
    field.fill("To be, or not to b")
    page.wait_for_function("() => document.querySelector('[data-writer-next] caption')")
    rows = page.locator("[data-writer-next] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    p = gpt.forward(run.params, run.cfg, np.array(writer.encode("To be, or not to b")))["p"][-1]
    order = sorted(range(65), key=lambda i: (-p[i], i))[:10]
    assert rows == [[{" ": "␣", "\n": "↵"}.get(run.vocab[i], run.vocab[i]), fixed(p[i])] for i in order]
    field.fill("To be\u2014or not")
    message = page.locator("[data-writer-message]")
    assert message.inner_text() == ("Character 6 (“\u2014”, U+2014) is not one of the writer's 65 characters.")
    # nothing else changed: the table is still the last good text's
    assert page.locator("[data-writer-next] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))") == rows
    page.get_by_role("button", name="Write", exact=True).click()
    assert page.locator("[data-writer-out] button").count() == 0


def test_inside_the_heads_maps_come_a_block_at_a_time(visit, run):
    """Inside the writer draws block 1's four maps as the reader comes
    near them (a <noscript> until then, far down the page); the other
    blocks' wait in <template>s (their elements are no part of the page)
    until the reader picks one above the maps, whose cells then carry that
    block's weights (toycalc's); the caption says which block is shown."""
    page = visit().open("/writer/inside/")
    maps = "[data-figure=writer-attention] [data-block]:not([hidden]) svg"
    assert page.locator(maps).count() == 0
    assert page.locator("[data-figure=writer-attention] noscript.near-later").count() == 1
    page.get_by_role("group", name="Block").scroll_into_view_if_needed()
    page.wait_for_function(f"() => document.querySelectorAll('{maps}').length === 4")
    assert page.evaluate("document.querySelectorAll('[data-figure=writer-attention] svg').length") == 4
    chooser = page.get_by_role("group", name="Block")
    chooser.get_by_label("block 4").check()
    page.wait_for_function(f"() => document.querySelectorAll('{maps}').length === 4 && "
                           "document.querySelector('[data-block=\"4\"]:not([hidden]) svg')")
    T = len(run.line)
    for h in range(1, 5):
        cells = page.locator(maps).nth(h - 1).locator("rect title").all_text_contents()
        assert len(cells) == T * (T + 1) // 2
        assert cells[1].endswith(fixed(run.attention(4, h)[1, 0])), (h, cells[1])
    assert "Block 4 here" in page.locator("[data-figure=writer-attention] figcaption").text_content()
    chooser.get_by_label("block 1").check()
    assert page.locator(maps).count() == 4 and page.locator("[data-block='1']:not([hidden])").count() == 1
