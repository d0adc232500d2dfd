"""Layout shift in chromium: while a page loads and its scripts set up
(the heads chooser, the simulator's bar, "Follow my letters", MathJax),
what the reader sees moves by at most 0.05 (the cumulative layout shift,
from a layout-shift PerformanceObserver), on every page, at 1280 and 375 px.
MathJax typesets the first screen's formulas before the article shows
(mathjax-config.js, book.css): shown earlier, each formula grew from its
TeX to its own size and moved the lines under it (0.13 on the toy's
LayerNorm at 1280 px)."""
from __future__ import annotations

import pytest

from tests.browser.test_every_page_browser import every_page

GOAL = 0.05

OBSERVE = """window.__shift = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
}).observe({type: 'layout-shift', buffered: true});"""


@pytest.mark.parametrize("width", [1280, 375])
def test_no_page_moves_while_its_scripts_set_up(visit, site, width):
    v = visit(width)
    v.context.add_init_script(OBSERVE)
    moved, paths = {}, every_page(site)
    assert len(paths) > 25
    for path in paths:
        page = v.open(path)
        # the page's own scripts (simulator, letters, trainer) set up after MathJax
        page.wait_for_timeout(1000 if page.locator("article script").count() else 300)
        shift = page.evaluate("window.__shift")
        if shift > GOAL:
            moved[path] = round(shift, 3)
        assert page.locator("article").is_visible(), path
    assert moved == {}, f"at {width} px the pages move: {moved}"
