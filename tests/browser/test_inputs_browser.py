"""Every field a reader types in (issue 50): at 375 px its text is at least
16 px (a phone zooms the page on a smaller field when it is tapped), it
has a visible border, and a label tied to it. Radio buttons, boxes and
sliders are not typed in. Fixtures: conftest.py."""
from __future__ import annotations

import pytest

# the pages with fields, and what opens the ones folded away
PAGES = {
    "/end-to-end/": "#sim-editor > summary, #toy-training-details > summary, #sim-sampling > summary",
    "/toy/training/": None,
    "/nano-gpt/": None,
    "/nano-gpt/output/": None,
    "/nano-gpt/train/": None,
    "/writer/write/": ".writer-live button >> nth=0",
}
# what shows once every field of the page is there: those its scripts build
# after the page's code has started (the Training page's trainer, once its
# weights have come; the playground's drawers, once their modules have; the
# writer's tool, once its weights have)
READY = {
    "/end-to-end/": ["#sim-edit-E", "[data-toy-trainer][data-ready]:not([hidden]) #toy-training-one"],
    "/toy/training/": ["[data-toy-trainer][data-ready]:not([hidden]) #toy-training-one"],
    "/writer/write/": ["[data-writer][data-ready]"],
}

FIELDS = """() => [...document.querySelectorAll('article input, article textarea')]
  .filter((f) => !['radio', 'checkbox', 'range', 'hidden'].includes(f.type) && f.checkVisibility())
  .map((f) => {
    const s = getComputedStyle(f);
    const named = f.labels.length > 0 || f.hasAttribute('aria-label') || f.hasAttribute('aria-labelledby');
    return {field: f.id || f.getAttribute('aria-label') || f.outerHTML.slice(0, 60),
            px: parseFloat(s.fontSize), border: Math.min(...['Top', 'Right', 'Bottom', 'Left']
              .map((side) => s[`border${side}Style`] === 'none' ? 0 : parseFloat(s[`border${side}Width`]))),
            named};
  })"""


@pytest.mark.parametrize("path", list(PAGES))
def test_every_field_reads_as_one_and_does_not_zoom_a_phone(visit, path):
    page = visit(width=375).open(path)
    if PAGES[path]:
        for opener in PAGES[path].split(", "):
            page.locator(opener).click()
    for ready in READY.get(path, []):
        page.wait_for_selector(ready, state="attached", timeout=60000)
    if path == "/end-to-end/":
        page.evaluate("document.querySelectorAll('.sim-matrix').forEach((d) => { d.open = true; })")
    fields = page.evaluate(FIELDS)
    assert fields, path
    bad = [f for f in fields if f["px"] < 16 or f["border"] < 1 or not f["named"]]
    assert bad == [], bad[:5]
