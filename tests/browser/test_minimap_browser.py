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
    link = page.locator(f'{SHOWN} g[data-part="{part}"] a').locator("visible=true")
    if link.count() == 0:        # on a band a phone folds away: the whole map first
        page.locator('figure[data-figure="minimap"] .map-whole').locator("visible=true").click()
    link.first.click()
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


# The map at a phone's width, as shown: the widest shown band's right edge
# and the figure's own scrolling width against the screen; its shown cells'
# smallest side; each shown part name's target (its link's box, and
# whether the link is what a tap at its hit area's centre lands on); the
# bands shown and drawn; the whole map's button, if any.
PHONE_MAP = r"""() => {
  const figure = document.querySelector('figure[data-figure="minimap"]');
  const all = [...figure.querySelectorAll('svg.map-band')].filter((s) => !s.closest('[hidden]'));
  const shown = all.filter((s) => s.checkVisibility());
  const screen = document.documentElement.clientWidth;
  const targets = shown.flatMap((s) => [...s.querySelectorAll('a')]).map((a) => {
    a.scrollIntoView({block: 'center'});
    const box = a.getBoundingClientRect(), hit = a.querySelector('.hit').getBoundingClientRect();
    const under = document.elementFromPoint(hit.left + hit.width / 2, hit.top + hit.height / 2);
    return {name: a.getAttribute('aria-label'), width: box.width, height: box.height, lands: a.contains(under)};
  });
  scrollTo(0, 0);
  const button = [...figure.querySelectorAll('.map-whole')].find((b) => b.checkVisibility());
  return {screen, right: Math.max(...shown.map((s) => s.getBoundingClientRect().right)),
          overflow: Math.max(...[...figure.querySelectorAll('.map-bands')].map((b) => b.scrollWidth - b.clientWidth)),
          page: document.documentElement.scrollWidth,
          cell: Math.min(...shown.flatMap((s) => [...s.querySelectorAll('rect[class^="v-"]')])
                .map((r) => { const b = r.getBoundingClientRect(); return Math.min(b.width, b.height); })),
          targets, shown: shown.length, drawn: all.length,
          // the bands shown hold the page's parts (or all are shown), the first of them among them
          ofPage: shown.every((s) => s.querySelector('g.here')) || shown.length === all.length,
          firstShown: (all.find((s) => s.querySelector('g.here')) || all[0]).checkVisibility(),
          button: button ? button.getAttribute('aria-expanded') : null,
          tall: Math.round(figure.getBoundingClientRect().height)};
}"""


@pytest.mark.parametrize("chapter,name", [(c, n) for c, names in CHAPTERS for n in names])
def test_the_map_fits_a_phone(visit, chapter, name):
    """At 375 px, every chapter page: no band of the map past the screen
    and nothing to scroll sideways, cells of 4 px or more, each part's name
    a target of 24 × 24 px or more that a tap lands on; where the whole map
    would stand too tall, the first bands of the page's parts (with their
    neighbours) and a button that shows the whole, which fits too."""
    page = visit(375).open(f"/{chapter}/{name}/" if name else f"/{chapter}/")
    seen = page.evaluate(PHONE_MAP)
    states = [seen]
    if seen["button"] is not None:
        assert seen["button"] == "false" and 0 < seen["shown"] < seen["drawn"], seen
        page.locator('figure[data-figure="minimap"] .map-whole').locator("visible=true").click()
        states.append(page.evaluate(PHONE_MAP))
        assert states[1]["button"] == "true" and states[1]["shown"] == states[1]["drawn"], states[1]
    else:
        assert seen["shown"] == seen["drawn"], seen
    for s in states:
        assert s["right"] <= s["screen"] == 375 and s["overflow"] <= 0 and s["page"] <= 375, s
        assert s["cell"] >= 4, s
        small = [t for t in s["targets"] if t["width"] < 24 or t["height"] < 24 or not t["lands"]]
        assert s["targets"] and small == [], small
    # the page's own part is in the first screen's map
    assert states[0]["ofPage"] and states[0]["firstShown"], states[0]
