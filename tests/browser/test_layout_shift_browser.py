"""Layout shift in chromium: while a page loads and its scripts set up
(the heads chooser, the simulator's bar, "Follow my letters", MathJax),
what the reader sees moves by at most 0.05 (the cumulative layout shift,
from a layout-shift PerformanceObserver), at 1280 and 375 px."""
from __future__ import annotations

import pytest

GOAL = 0.05

# The pages whose scripts put something on the screen as they set up: the
# heads chooser (Home, End to End), the simulator's bar (End to End, the
# Simulator), "Follow my letters" (nano-gpt's pages with numbers that follow
# the letters). Pages where MathJax's output alone moves the lines around a
# formula are not held to the goal yet (#24: the toy's Embedding, LayerNorm,
# Positions and Output pages, nano-gpt's LayerNorm, MLP and Softmax, and
# nano-gpt's Output at 375 px, where MathJax alone moves it by 0.049).
PAGES = ["/", "/end-to-end/", "/simulator/", "/toy/attention/", "/nano-gpt/embedding/",
         "/nano-gpt/self-attention/", "/nano-gpt/output/"]
MATHJAX_MOVES = {375: ["/nano-gpt/output/"]}

OBSERVE = """window.__shift = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
}).observe({type: 'layout-shift', buffered: true});"""


@pytest.mark.parametrize("width", [1280, 375])
def test_no_page_moves_while_its_scripts_set_up(visit, width):
    v = visit(width)
    v.context.add_init_script(OBSERVE)
    moved = {}
    for path in [p for p in PAGES if p not in MATHJAX_MOVES.get(width, [])]:
        page = v.open(path)
        page.wait_for_timeout(1000)          # the scripts that set up after MathJax
        shift = page.evaluate("window.__shift")
        if shift > GOAL:
            moved[path] = round(shift, 3)
    assert moved == {}, f"at {width} px the pages move: {moved}"
