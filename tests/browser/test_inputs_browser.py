"""Every text field of the pages issue 50 covers, at 375 px in chromium:
drawn with a visible border, tied to a label, in a font of at least 16 px
(a smaller one zooms the page on an iPhone when tapped). The End to End and
Simulator fields are tested with their pages."""
from __future__ import annotations

import pytest

PHONE = 375
PAGES = ["/nano-gpt/train/", "/nano-gpt/preliminaries/", "/nano-gpt/output/", "/toy/training/"]

FIELDS = """() => [...document.querySelectorAll('article input')]
  .filter((i) => !['radio', 'checkbox', 'hidden', 'button', 'submit'].includes(i.type))
  .filter((i) => i.getClientRects().length)
  .map((i) => {
    const s = getComputedStyle(i);
    return { id: i.id, font: parseFloat(s.fontSize), border: parseFloat(s.borderTopWidth),
             style: s.borderTopStyle, colour: s.borderTopColor,
             label: (i.labels && i.labels.length ? i.labels[0].textContent.trim() : '')
                    || i.getAttribute('aria-label') || '' };
  })"""


@pytest.mark.parametrize("path", PAGES)
def test_every_field_has_a_border_a_label_and_16_px(visit, path):
    page = visit(PHONE).open(path)
    if path == "/nano-gpt/train/":
        page.wait_for_selector("#nano-train-seed")
    fields = page.evaluate(FIELDS)
    if path in ("/nano-gpt/train/", "/toy/training/"):
        assert fields, f"{path}: no field shown"
    bad = [f for f in fields if f["font"] < 16 or f["border"] < 1 or f["style"] in ("none", "hidden")
           or f["colour"].replace(" ", "") in ("rgba(0,0,0,0)", "transparent") or not f["label"]]
    assert bad == [], f"{path}: {bad}"
