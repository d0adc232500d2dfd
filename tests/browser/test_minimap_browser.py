"""The "you are here" map in chromium (toycalc/book/minimap.py,
map_drawing.py), on every chapter page of the three models, at 1280 and
375 px: its stages named in words, one block frame holding every head's
name and the MLP's (the toy at 1, 2 and 4 heads), no two labels over each
other, cells of 8 px, a phone scrolling it as one piece; the page opening
on its title, its map and its prose (the first paragraph on the first
screen, no key before it); the heads chosen on one page drawn on the next,
and a click on a part's name opens its page. The rest of the map on every
chapter page (every part drawn, the page's parts marked, text a phone can
read): the tour of every page, test_every_page_browser.py."""
from __future__ import annotations

import re

import pytest

from tests.browser.probes import CHAPTERS, FRAMES, LEAVING, MAP_READING, READ, SHOWN, arrived
from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show

PAGES = [(c, n) for c, names in CHAPTERS for n in names]
WORDS = ("Embedding", "Attention", "MLP", "Probabilities", "Output", "Tokens", "Next token")
HEADS = {"toy": None, "nano-gpt": 3, "writer": 4}
PROSE_BY = 450          # the first paragraph of prose starts above this, at 1280 × 800


def path_of(chapter: str, name: str) -> str:
    return f"/{chapter}/{name}/" if name else f"/{chapter}/"


def check_reading(seen: dict, heads: int, where) -> None:
    """What every map must show, wherever it is read."""
    labels = " | ".join(seen["labels"])
    for word in WORDS:
        assert any(label.startswith(word) for label in seen["labels"]), (where, word, labels)
    assert seen["heads"] == [f"head {h}" for h in range(1, heads + 1)], (where, seen["heads"])
    # exactly one frame is the block, and it holds every head's name and the MLP's
    assert len(seen["frames"]) == 1, where
    assert sorted(seen["frames"][0]) == sorted(seen["heads"] + ["MLP"]), (where, seen["frames"])
    assert any(re.fullmatch(r"Transformer block × \d", label) for label in seen["labels"]), (where, labels)
    assert seen["overlaps"] == [], (where, seen["overlaps"])
    assert seen["cells"] and not seen["keyOpen"], where
    assert seen["page"] <= seen["screen"] and seen["right"] <= seen["screen"] + 0.5, (where, seen)


@pytest.mark.parametrize("width", [1280, 375])
def test_every_chapter_map_reads_in_words_with_one_block(visit, toy, width):
    """Every chapter page of the toy, nano-gpt and the writer: the stages in
    words, the block one frame with every head and the MLP in it, no label
    over another; at 1280 px every cell 8 px wide, on the screen with
    nothing to scroll; at 375 px the map scrolls sideways as one piece, and
    says so, while the page does not."""
    v = visit(width)
    for chapter, name in PAGES:
        page = v.open(path_of(chapter, name))
        seen = page.evaluate(MAP_READING)
        assert seen is not None, (chapter, name)
        check_reading(seen, HEADS[chapter] or toy.heads, (chapter, name, width))
        if width == 1280:
            assert min(seen["cells"]) >= 8, (chapter, name, min(seen["cells"]))
            assert not seen["scrolls"] and not seen["saysSo"], (chapter, name)
        else:
            assert seen["scrolls"] and seen["saysSo"] and seen["left"] >= 0, (chapter, name, seen)


@pytest.mark.parametrize("width", [1280, 375])
def test_the_toys_map_keeps_one_block_at_every_heads_choice(visit, width):
    """1, 2 and 4 heads, chosen on Attention: each map one frame holding
    every head's name and the MLP's, no label over another; on a phone,
    each says it scrolls."""
    page = visit(width).open("/toy/attention/")
    for heads in (1, 2, 4):
        page.locator(f'.heads-chooser input[value="{heads}"]').first.check()
        page.evaluate(FRAMES)
        seen = page.evaluate(MAP_READING)
        check_reading(seen, heads, heads)
        if width == 1280:
            assert min(seen["cells"]) >= 8, heads
        else:       # a map the choice put in is marked as scrolling too
            assert seen["scrolls"] and seen["saysSo"], heads


def test_every_chapter_page_opens_on_its_prose(chromium, server):
    """At 1280 × 800, every chapter page (the writer's too, each with its
    map): the title, the map, then the prose, whose first paragraph starts
    above PROSE_BY px; no paragraph before it (the key waits in the map's
    closed Key control); nano-gpt's box to follow letters comes after it."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        for chapter, name in PAGES:
            page.goto(server + path_of(chapter, name))
            page.wait_for_selector("body[data-mathjax=done][data-started]", timeout=60000)
            seen = page.evaluate(MAP_READING)
            assert seen is not None, (chapter, name)
            assert seen["before"] == [] and seen["proseTop"] < PROSE_BY, (chapter, name, seen["proseTop"],
                                                                       seen["before"])
            follow = page.evaluate("""() => { const f = document.querySelector('article [data-nano-follow], '
                + 'article .nano-follow'); const p = [...document.querySelectorAll('article p')]
                .find((p) => !p.closest('figure')); return f ? !!(p.compareDocumentPosition(f) & 4) : null; }""")
            assert follow in (None, True), (chapter, name)
    finally:
        context.close()


def test_the_key_opens_and_says_what_the_map_is(visit):
    """Closed at first, a tap opens it over the map (the page below does not
    move): the swatches and which model, text and token the map follows."""
    page = visit(1280).open("/nano-gpt/output/")
    before = page.evaluate(MAP_READING)["proseTop"]
    page.locator("details.map-key > summary").click()
    body = page.locator(".map-key-body")
    assert body.is_visible()
    text = body.inner_text()
    assert "nano-gpt on “C B A B B C”" in text and "you are here" in text and "the token the model picks" in text
    assert page.evaluate(MAP_READING)["proseTop"] == before


def test_the_key_is_open_in_print(visit):
    """Printed, the Key's content shows, its button does not."""
    v = visit(1280, own_context=True)
    page = v.open("/writer/inside/")
    page.emulate_media(media="print")
    body = page.locator(".map-key-body")
    assert body.is_visible() and body.bounding_box()["height"] > 20
    assert "the writer on the held-out line" in body.inner_text()
    assert not page.locator("details.map-key > summary").is_visible()


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
    ("/nano-gpt/", "softmax", "/nano-gpt/softmax/", "Softmax"),
    ("/writer/", "softmax", "/writer/write/", "Type, it writes"),
    ("/writer/write/", "tokens", "/writer/", "Introduction")])
def test_a_click_on_a_parts_name_opens_its_page(visit, start, part, target, title):
    """On a phone, the name scrolled to inside the map, as a finger would."""
    page = visit(375).open(start)
    page.evaluate(LEAVING)
    page.locator(f'{SHOWN} g[data-part="{part}"] a').first.click()
    page.wait_for_url(f"**{target}")
    arrived(page)      # the address changes before the page does: the h1 left until then
    assert title.lower() in page.locator("article h1").first.text_content().lower()


# The map at a phone's width: each name's target (its link's box, and
# whether the link is what a tap at its hit area's centre lands on, once
# scrolled into view inside the map).
TARGETS = r"""() => [...document.querySelectorAll('figure[data-figure="minimap"] svg.map-band a')]
  .filter((a) => a.checkVisibility()).map((a) => {
    a.scrollIntoView({block: 'center', inline: 'center'});
    const box = a.getBoundingClientRect(), hit = a.querySelector('.hit').getBoundingClientRect();
    const under = document.elementFromPoint(hit.left + hit.width / 2, hit.top + hit.height / 2);
    return {name: a.getAttribute('aria-label'), width: box.width, height: box.height, lands: a.contains(under)};
  })"""


@pytest.mark.parametrize("path", ["/toy/attention/", "/nano-gpt/self-attention/", "/writer/inside/"])
def test_a_parts_name_is_a_target_a_finger_lands_on(visit, path):
    """At 375 px, each part's name a target of 24 × 24 px or more that a tap lands on."""
    page = visit(375).open(path)
    targets = page.evaluate(TARGETS)
    small = [t for t in targets if t["width"] < 24 or t["height"] < 24 or not t["lands"]]
    assert len(targets) >= 18 and small == [], small


# Every cell of the shown map: its part, its size on the screen, its title.
CELLS = r"""() => [...document.querySelectorAll('figure[data-figure="minimap"] svg.map-band rect:is([class^="v-"], .bar)')]
  .filter((r) => r.checkVisibility())
  .map((r) => { const box = r.getBoundingClientRect(), title = r.querySelector(':scope > title');
                return {part: r.closest('g[data-part]').dataset.part, width: box.width, bar: r.matches('.bar'),
                        title: title && title.textContent}; })"""


@pytest.mark.parametrize("name", dict(CHAPTERS)["nano-gpt"])
def test_nano_gpts_map_says_every_number(visit, name):
    """nano-gpt's map at 1280 px: every cell 8 px and its number in its
    <title>; every bar's title its 48 numbers; "× 3" on the block."""
    page = visit(1280).open(f"/nano-gpt/{name}/" if name else "/nano-gpt/")
    cells = page.evaluate(CELLS)
    assert all(c["title"] for c in cells), name
    assert min(c["width"] for c in cells if not c["bar"]) >= 8, name
    for c in cells:
        numbers = re.findall(r"−?\d+\.\d{3}", c["title"].rsplit(": ", 1)[-1])
        assert len(numbers) == (48 if c["bar"] else 1), (name, c["title"][:80])
    assert any(c["part"] == "X" and not c["bar"] for c in cells) or any(not c["bar"] for c in cells
                                                                       if c["part"] not in ("heads", "W_U", "softmax"))
    assert "Transformer block × 3" in page.locator('figure[data-figure="minimap"]').inner_text()
