"""On a phone (375 px, in chromium): a tap on a figure's mark shows its
number, as pointing at it does with a mouse (tips.js), and in the dark
scheme a wide formula's cue that it scrolls shows too. The tour of every
page at 375 px (test_every_page_browser.py) reads tokens, chips, code and
the wide formulas' cues in the light scheme."""
from __future__ import annotations

from tests.browser.probes import phone_formulas

PHONE = 375


def test_a_wide_formula_shows_it_scrolls_in_the_dark_scheme(visit):
    """At the start only the right edge is shaded, at the end only the left."""
    v = visit(PHONE, "dark")
    page = v.open("/toy/layernorm/")
    v.typeset_shown()
    shades = phone_formulas(page)
    assert shades, "no formula wider than a phone's column: the cue goes untested"
    assert [(s, e) for s, e in shades if not (s[1] > 25 and s[0] < 10 and e[0] > 25 and e[1] < 10)] == []


def test_a_tap_on_a_mark_shows_its_number(visit):
    v = visit(PHONE, touch=True)
    page = v.open("/toy/attention/")
    mark = page.locator('figure[data-figure="attention"] svg.fig rect:has(> title)').locator("visible=true").first
    mark.scroll_into_view_if_needed()
    title = mark.locator("title").text_content().strip()
    assert page.locator(".fig-tip").count() == 0
    mark.tap()
    tip = page.locator(".fig-tip")
    assert tip.is_visible() and tip.text_content() == title
    tip_box, mark_box = tip.bounding_box(), mark.bounding_box()
    assert abs(tip_box["y"] - (mark_box["y"] + mark_box["height"])) < 40 or tip_box["y"] < mark_box["y"]
    assert tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= PHONE
    page.locator("article h1").tap()      # a tap elsewhere puts it away
    assert page.locator(".fig-tip").count() == 0
    # a nano-gpt cell, named in its title attribute
    page = v.open("/nano-gpt/embedding/")
    cell = page.locator("td.nano-cell[title]").locator("visible=true").first.element_handle()
    cell.scroll_into_view_if_needed()
    title = cell.get_attribute("title")
    cell.tap()
    assert page.locator(".fig-tip").text_content() == title
