"""Every tool opens on the tool (issue 38): End to End's sentence field,
the toy Training page's "One step", nano-gpt's Start and its letters field
start within the first screen of a laptop (1280 × 800) and within the first
two of a phone (375 × 740), as the page opens, under a sentence or two and
no section of explanation. What a reader's page no longer shows (how it is
computed): tests/site/test_tools_first.py. Fixtures: conftest.py."""
from __future__ import annotations

import pytest

# the control a reader comes for, as a reader finds it (its role and name)
TOOLS = {
    "/end-to-end/": lambda page: page.get_by_label("Your sentence", exact=True),
    "/toy/training/": lambda page: page.get_by_role("button", name="One step", exact=True),
    "/nano-gpt/train/": lambda page: page.get_by_role("button", name="Start", exact=True),
    "/nano-gpt/": lambda page: page.get_by_label("Letters for nano-gpt to sort and this chapter to follow", exact=True),
}
# width: (the screen's height, how many screens the control may start within)
SCREENS = {1280: (800, 1), 375: (740, 2)}

# Where the control starts on the page opened (at scroll 0), and the
# section headings of the article above it.
WHERE = """(control) => {
  scrollTo(0, 0);
  const top = control.getBoundingClientRect().top;
  const above = [...document.querySelectorAll('article h2')].filter((h) => h.getBoundingClientRect().top < top);
  return {top, headings: above.map((h) => h.textContent.trim())};
}"""


@pytest.mark.parametrize("width", list(SCREENS))
@pytest.mark.parametrize("path", list(TOOLS))
def test_the_tool_starts_on_the_first_screen(visit, path, width):
    height, screens = SCREENS[width]
    v = visit(width=width)
    v.page.set_viewport_size({"width": width, "height": height})
    try:
        page = v.open(path)
        control = TOOLS[path](page)
        control.wait_for(state="visible")
        where = control.evaluate(WHERE)
    finally:
        v.page.set_viewport_size({"width": width, "height": 900})   # the kept visit's size, for the next test
    assert where["top"] < height * screens, (path, width, where)
    assert where["headings"] == [], (path, width, where)
