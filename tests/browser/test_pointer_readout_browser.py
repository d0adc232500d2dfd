"""A mouse reads a mark at once (tips.js): pointing at a mark of any
figure (Home's drawing, a chapter's map, End to End's drawing, a chart, a
nano-gpt cell) shows the book's box with the mark's own words in the
first frame after the pointer comes over it, inside the screen, and no
title is left on the mark or around it for the browser's own tooltip to
show over the box; the pointer gone, the words are back in the <title>
(or title attribute), where tests and screen readers read them."""
from __future__ import annotations

import pytest

from tests.browser.probes import FRAMES

# Where each kind of mark is, and the marks (the shown ones; the first
# taken, or at 375 px the one furthest right in the screen, where the box
# is likeliest to run off it).
MARKS = [
    ("/", '.home-figure svg.model-band rect[class^="v-"]:has(> title)'),
    ("/toy/attention/", 'figure[data-figure="minimap"] svg.map-band rect[class^="v-"]:has(> title)'),
    ("/end-to-end/", 'article svg.model-band rect[class^="v-"]:has(> title)'),
    ("/nano-gpt/preliminaries/", 'figure[data-figure="nano-loss"] circle.dot:has(> title)'),
    ("/nano-gpt/embedding/", "td.nano-cell[title]"),
]

# Armed before the pointer moves: from the first pointerover, each
# animation frame looks for the box; it resolves with the frames and the
# time it took, what the box says and where it lies, and the titles left
# on the element under the pointer and its ancestors.
ARM = r"""() => {
  window.__readout = new Promise((resolve) => {
    let over = null, frames = 0, x = 0, y = 0;
    addEventListener('pointerover', (e) => {
      if (over === null) { over = performance.now(); x = e.clientX; y = e.clientY; }
    }, {capture: true});
    const look = () => {
      if (over !== null) {
        frames += 1;
        const tip = document.querySelector('.fig-tip');
        const box = tip && tip.getBoundingClientRect();
        if ((tip && tip.checkVisibility() && box.width > 0) || frames > 30) {
          const titled = [];
          for (let n = document.elementFromPoint(x, y); n && n.nodeType === 1; n = n.parentNode) {
            if (n.hasAttribute('title')) titled.push(`${n.tagName} title="${n.getAttribute('title')}"`);
            for (const c of n.children) if (c.tagName.toLowerCase() === 'title') titled.push(`${n.tagName} <title>${c.textContent}`);
          }
          return resolve({frames, after: performance.now() - over, text: tip && tip.textContent,
                          box: box && {left: box.left, right: box.right, top: box.top, bottom: box.bottom},
                          screen: [document.documentElement.clientWidth, innerHeight], titled});
        }
      }
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
}"""

WORDS = """(el) => { const t = el.querySelector(':scope > title');
                   return t ? t.textContent.trim() : el.getAttribute('title'); }"""

# at 375 px, the shown mark furthest right within the screen
RIGHTMOST = """(marks) => { let best = -1, right = -1;
  marks.forEach((m, k) => { const r = m.getBoundingClientRect();
    if (m.checkVisibility() && r.width > 0 && r.right <= document.documentElement.clientWidth && r.right > right) {
      best = k; right = r.right; } });
  return best; }"""


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("where,marks", MARKS)
def test_a_mouse_over_a_mark_shows_its_number_at_once_without_the_browsers_tooltip(visit, where, marks, width):
    page = visit(width).open(where)
    found = page.locator(marks)
    mark = found.locator("visible=true").first
    mark.scroll_into_view_if_needed()
    if width == 375:
        mark = found.nth(found.evaluate_all(RIGHTMOST))
        mark.scroll_into_view_if_needed()
    page.evaluate(FRAMES)   # the scroll's event fired: tips.js takes a mouse's box away on a scroll
    words = mark.evaluate(WORDS)
    assert words and any(ch.isdigit() for ch in words), words
    box = mark.bounding_box()
    page.evaluate(ARM)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    seen = page.evaluate("window.__readout")
    assert seen["text"] == words, seen
    # in the first frame after the pointer came (well within the 100 ms;
    # the milliseconds themselves are not asserted: this machine is shared)
    assert seen["frames"] == 1, seen
    assert seen["titled"] == [], seen                             # nothing for the browser's tooltip
    screen_w, screen_h = seen["screen"]
    tip = seen["box"]
    assert tip["left"] >= 0 and tip["right"] <= screen_w and tip["top"] >= 0 and tip["bottom"] <= screen_h, seen
    # the pointer gone: the box too, and the words back where they were
    page.mouse.move(1, 1)
    page.wait_for_function("() => !document.querySelector('.fig-tip')", timeout=2000)
    assert mark.evaluate(WORDS) == words


def test_a_mouse_moving_from_mark_to_mark_reads_each(visit):
    """Along a row of Home's drawing: each cell's own number, one box at a
    time, and each cell left keeps its <title>."""
    page = visit(1280).open("/")
    cells = page.locator('.home-figure svg.model-band g[data-part="softmax"] rect[class^="v-"]:has(> title)')
    cells = cells.locator("visible=true").element_handles()[:4]
    cells[0].scroll_into_view_if_needed()
    page.evaluate(FRAMES)   # the scroll's event fired: tips.js takes a mouse's box away on a scroll
    for cell in cells:
        words = cell.evaluate(WORDS)
        box = cell.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert page.locator(".fig-tip").count() == 1
        assert page.locator(".fig-tip").text_content() == words
        assert cell.evaluate("(el) => el.querySelector(':scope > title')") is None
    page.mouse.move(1, 1)
    assert page.evaluate("""() => [...document.querySelectorAll('.home-figure g[data-part="softmax"] rect[class^="v-"]')]
        .filter((r) => !r.querySelector(':scope > title')).length""") == 0


def test_a_drawing_redrawn_under_the_pointer_leaves_no_stale_box(visit):
    """Home's drawing under a resting mouse, the heads changed from the
    keyboard (another drawing shows): once the mouse moves off the
    drawing, no box is left with the old number."""
    page = visit(1280).open("/")
    cell = page.locator('.home-figure svg.model-band g[data-part="softmax"] rect[class^="v-"]:has(> title)')
    cell = cell.locator("visible=true").element_handles()[5]
    cell.scroll_into_view_if_needed()
    page.evaluate(FRAMES)   # the scroll's event fired: tips.js takes a mouse's box away on a scroll
    box = cell.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert page.locator(".fig-tip").count() == 1
    page.evaluate("""() => { const other = [...document.querySelectorAll('.home-story .heads-chooser input')]
        .find((i) => !i.checked); other.focus(); other.click(); }""")
    page.mouse.move(box["x"] + box["width"] / 2, 5)      # the header, far from any mark
    assert page.locator(".fig-tip").count() == 0
    assert cell.evaluate("(el) => !!el.querySelector(':scope > title')")    # its words back, though hidden
