"""Home's first minute (docs/index.md): the first screen says what the
book is, gives its answer as toycalc computes it and a way in, with the
model's drawing and no control above it; the story of the path below
marks, part by part, what the reader is reading (story.js)."""
from __future__ import annotations

import pytest

from toycalc.book.example import Example
from toycalc.book.model_drawing import PARTS
from toycalc.book.render import fixed, token_text

SCREENS = [(1280, 800, "light"), (375, 740, "dark")]
FIRST_SCREEN = """() => {
  const top = (el) => el.getBoundingClientRect().top + scrollY;
  const shown = (el) => el.getClientRects().length > 0;
  const drawing = [...document.querySelectorAll('.home-figure svg.model-band')].find(shown);
  const lead = document.querySelector('.home-intro p');
  const prediction = document.querySelector('.home-prediction');
  const start = [...document.querySelectorAll('.home-intro a')].find((a) => a.textContent.trim() === 'Start reading');
  const controls = [...document.querySelectorAll('article input, article select, article button, article textarea')]
    .filter(shown).filter((c) => top(c) < top(drawing));
  return {lead: lead.textContent.trim().length, leadBottom: lead.getBoundingClientRect().bottom,
          prediction: prediction.innerText.trim(), predictionBottom: prediction.getBoundingClientRect().bottom,
          start: start && new URL(start.href).pathname, startBottom: start && start.getBoundingClientRect().bottom,
          drawingTop: drawing.getBoundingClientRect().top, drawingBottom: drawing.closest('.model-bands').getBoundingClientRect().bottom,
          controls: controls.map((c) => c.outerHTML.slice(0, 80)), scrollY};
}"""


@pytest.mark.parametrize("width,height,scheme", SCREENS)
def test_the_first_screen_says_what_the_book_is_its_answer_and_the_way_in(visit, toy, width, height, scheme):
    v = visit(width, scheme, own_context=True)
    page = v.open("/")
    page.set_viewport_size({"width": width, "height": height})
    seen = page.evaluate(FIRST_SCREEN)
    ex = Example(toy)
    assert seen["scrollY"] == 0
    assert seen["lead"] > 150 and seen["leadBottom"] < height
    assert seen["prediction"] == f"“{ex.text}” → {token_text(ex.model.vocab[ex.top_id])}, p = {fixed(ex.p_last.max())}"
    assert seen["predictionBottom"] < height
    assert seen["start"] == "/toy/" and seen["startBottom"] < height
    assert seen["controls"] == []                       # the heads chooser comes after the drawing
    assert seen["drawingTop"] < height                  # a phone sees its start
    if width == 1280:
        assert seen["drawingBottom"] <= height          # the whole drawing


STORY = """() => [...document.querySelectorAll('.story-part')].map((p) => ({
  names: p.dataset.part.split(' '), link: p.querySelector('a:last-child') && new URL(p.querySelector('a:last-child').href).pathname}))"""
TOLD = """(k) => {
  const p = document.querySelectorAll('.story-part')[k], r = p.getBoundingClientRect();
  scrollBy(0, r.top + r.height / 2 - innerHeight / 2);
}"""
CURRENT = """() => ({
  parts: [...document.querySelectorAll('.home-figure [data-part]')]
    .filter((g) => g.closest('svg').getClientRects().length)
    .map((g) => [g.dataset.part, g.getAttribute('aria-current')]),
  elsewhere: [...document.querySelectorAll('[aria-current=step]')].filter((e) => !e.closest('.home-figure')).length})"""


@pytest.mark.parametrize("width", [1280, 375])
def test_the_story_marks_the_part_it_tells_as_the_reader_scrolls(visit, width):
    page = visit(width).open("/")
    story = page.evaluate(STORY)
    told = [name for paragraph in story for name in paragraph["names"]]
    # the whole path, in the drawing's own names and order, each part told once
    assert told == PARTS
    for k, paragraph in enumerate(story):
        assert paragraph["link"] and paragraph["link"].startswith("/toy/"), paragraph
        page.evaluate(TOLD, k)
        page.wait_for_function("(names) => names.every((n) => document.querySelector("
                               "`.home-figure [data-part='${n}'][aria-current=step]`))", arg=paragraph["names"])
        now = page.evaluate(CURRENT)
        # its parts alone (the tokens stand at the head of every band)
        assert {name for name, mark in now["parts"] if mark == "step"} == set(paragraph["names"])
        assert all(mark in (None, "step") for _, mark in now["parts"]) and now["elsewhere"] == 0
    page.evaluate("scrollTo(0, 0)")     # at the top again, none is told
    page.wait_for_function("() => !document.querySelector('.home-figure [aria-current]')")
    if width == 375:   # the strip of the told band is a copy, hidden from screen readers, and links nowhere
        strip = page.locator(".story-band")
        assert strip.get_attribute("aria-hidden") == "true" and strip.locator("a").count() == 0


@pytest.mark.parametrize("where,marks", [
    ("/", '.home-figure g[data-part="softmax"] rect:has(> title)'),
    ("/toy/attention/", 'figure[data-figure="minimap"] g[data-part="softmax"] rect:has(> title)')])
def test_a_tap_on_a_mark_of_the_drawing_shows_its_number_and_stays(visit, where, marks):
    """Home's drawing and a chapter's map: a mark's number on a tap, and
    the page stays; the part's name is the link."""
    v = visit(375, touch=True)
    page = v.open(where)
    mark = page.locator(marks).locator("visible=true").first
    mark.scroll_into_view_if_needed()
    title = mark.locator("title").text_content().strip()
    mark.tap()
    tip = page.locator(".fig-tip")
    assert tip.is_visible() and tip.text_content() == title
    page.wait_for_timeout(300)          # a link would have left by now
    assert page.evaluate("location.pathname") == where
    part = mark.locator("xpath=ancestor::*[local-name()='g'][@data-part][1]")
    assert part.locator("a").count() == 1 and part.locator("a text").count() == 1


# The model's answer in the shown drawing: the cell of p outlined as the
# one chosen (its title, its outline's colour and width, the page's
# colour, their WCAG contrast), and the answer written in its box.
CHOSEN = r"""() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const shown = (el) => el.getClientRects().length > 0;
  // the drawing's own marks, not the story's copy of a row of it
  const drawn = (el) => shown(el) && !el.closest('.story-band');
  const cells = [...document.querySelectorAll('article svg.model-band rect.chosen')].filter(drawn);
  const answers = [...document.querySelectorAll('article svg.model-band text.answer')].filter(drawn);
  const page = rgb(getComputedStyle(document.body).backgroundColor);
  const cell = cells[0], style = cell && getComputedStyle(cell);
  return {cells: cells.map((c) => c.querySelector('title').textContent),
          answers: answers.map((a) => a.firstChild.textContent),
          boxed: answers.map((a) => !!a.previousElementSibling && a.previousElementSibling.matches('rect.chosen-box')),
          contrast: cell && ratio(rgb(style.stroke), page), width: cell && parseFloat(style.strokeWidth),
          boxContrast: answers[0] && ratio(rgb(getComputedStyle(answers[0].previousElementSibling).stroke), page),
          key: [...document.querySelectorAll('article .model-key .swatch.chosen')].filter(shown).length};
}"""


@pytest.mark.parametrize("where", ["/", "/end-to-end/"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_answer_stands_out_in_both_schemes(visit, toy, where, scheme):
    """The token the model picks and its p, under every heads choice: its
    cell of p, the last row's largest, outlined as the one chosen with
    3:1 or more against the page (the cell keeps its colour on the [0, 1]
    scale), the answer written with its p in the box of the one chosen,
    and the highlight in the drawing's key."""
    page = visit(1280, scheme).open(where)
    for heads in Example(toy).heads_choices:
        page.get_by_label(f"{heads} head{'s' * (heads > 1)}", exact=True).first.check()
        ex = Example(toy, heads=heads)
        word, p = token_text(ex.model.vocab[ex.top_id]), fixed(ex.p_last[ex.top_id])
        last = token_text(ex.model.vocab[ex.ids[-1]])
        page.wait_for_function("(want) => [...document.querySelectorAll('article svg.model-band text.answer')]"
                               ".some((a) => a.getClientRects().length && a.firstChild.textContent === want)",
                               arg=f"{word}, p = {p}")
        seen = page.evaluate(CHOSEN)
        assert seen["cells"] == [f"p after {last} (position {len(ex.ids)}), p({word}): {p}"], (heads, seen)
        assert seen["answers"] == [f"{word}, p = {p}"] and seen["boxed"] == [True], (heads, seen)
        assert seen["contrast"] >= 3 and seen["boxContrast"] >= 3 and seen["width"] >= 2, (heads, seen)
        assert seen["key"] == 1, seen


# Boxes of the article laid out in the page's flow, 40 px tall or more,
# that show nothing: no text, no drawing, no control, no formula (a
# table's empty cell is part of its grid).
EMPTY_BOXES = r"""() => [...document.querySelectorAll('article *')]
  .filter((el) => el.checkVisibility() && el.getBoundingClientRect().height >= 40)
  .filter((el) => !['fixed', 'absolute'].includes(getComputedStyle(el).position))
  .filter((el) => !el.matches('td, th, svg, svg *, img, input, button, select, textarea, canvas, mjx-container, mjx-container *')
                  && !el.querySelector('svg, img, input, button, select, textarea, canvas, mjx-container')
                  && !el.innerText.trim())
  .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().height)} px`)"""


def test_home_on_a_phone_has_no_empty_box_and_does_not_shift(visit):
    """At 375 px: nothing empty between the drawing and the story (a strip
    kept for the told part's band stood there, 180 px tall), before and
    while the story is told; the told band shows in its strip at the top
    of the screen, and the page moves by no layout shift of 0.05 or more
    from its load to the story's end."""
    from tests.browser.probes import OBSERVE, SETTLED
    v = visit(375, own_context=True)
    v.context.add_init_script(OBSERVE)
    page = v.open("/")
    page.wait_for_function(SETTLED, polling=50, timeout=10000)
    assert page.evaluate(EMPTY_BOXES) == []
    gap = page.evaluate("""() => { const h = [...document.querySelectorAll('.home-story h2')][0];
        const before = [...document.querySelectorAll('.home-figure figure')].find((c) => c.checkVisibility());
        return h.getBoundingClientRect().top - before.getBoundingClientRect().bottom; }""")
    assert 0 <= gap < 80, gap
    parts = page.locator(".story-part[data-part]")
    for k in range(parts.count()):
        page.evaluate(TOLD, k)
        page.wait_for_function("(k) => document.querySelectorAll('.story-part[data-part]')[k].classList.contains('is-told')",
                               arg=k)
        strip = page.locator(".story-band")
        assert strip.is_visible() and strip.locator("svg").count() == 1
        box = strip.bounding_box()
        assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= 375
        assert page.evaluate(EMPTY_BOXES) == [], k
    assert page.evaluate("window.__shift") <= 0.05
