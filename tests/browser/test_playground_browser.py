"""One playground, End to End (issue 49): its first screen holds the
sentence field, the drawing's top and the prediction written out, and no
other control above the drawing's bottom edge; a weight edited in its
drawer moves the prediction to toycalc's for the edited weights; the
Simulator's old address leads there. Fixtures: conftest.py."""
from __future__ import annotations

import dataclasses

import pytest

from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show

# width: the first screen's height (a laptop, a phone)
SCREENS = {1280: 800, 375: 740}

# Where the parts of the first screen are, as the page opens (at scroll 0):
# the field, the prediction, the drawing's top and bottom edges, and every
# form control of the article that starts above the drawing's bottom edge
# (the vocabulary's tokens, which belong to the field, apart).
FIRST_SCREEN = """() => {
  scrollTo(0, 0);
  const box = (el) => el.getBoundingClientRect();
  const drawing = box(document.querySelector('#path .path-figure svg, #path .path-figure .model-bands'));
  const field = box(document.getElementById('sim-text')), next = box(document.getElementById('sim-next'));
  const controls = [...document.querySelectorAll('article :is(input, select, textarea, button, summary)')]
    .filter((c) => c.checkVisibility() && c.id !== 'sim-text' && !c.classList.contains('sim-token')
                   && !c.closest('#path .path-figure'))
    .filter((c) => box(c).top < drawing.bottom)
    .map((c) => c.outerHTML.slice(0, 80));
  return {field: [field.top, field.bottom], next: [next.top, next.bottom], drawingTop: drawing.top,
          controls};
}"""


@pytest.mark.parametrize("width", list(SCREENS))
def test_the_first_screen_holds_the_sentence_the_drawing_and_the_prediction(visit, toy, width):
    height = SCREENS[width]
    v = visit(width=width)
    v.page.set_viewport_size({"width": width, "height": height})
    try:
        page = v.open("/end-to-end/")
        page.wait_for_selector("#live-simulator[data-live]")
        ex = Example(toy)
        assert page.locator("#sim-next").text_content() == (f"Next token: {show(toy.vocab[ex.top_id])} "
                                                            f"with p = {fixed(ex.p_last.max())}")
        seen = page.evaluate(FIRST_SCREEN)
        assert 0 <= seen["field"][0] and seen["field"][1] <= height, seen
        assert 0 <= seen["next"][0] and seen["next"][1] <= height, seen
        assert seen["drawingTop"] < height - 40, seen      # the drawing's top, on the first screen
        assert seen["controls"] == [], seen
    finally:
        v.page.set_viewport_size({"width": width, "height": 900})


def test_a_weight_edited_in_its_drawer_moves_the_prediction(visit, toy):
    """W_U's column of ␣wall made three times ␣roof's, in the drawer "Change
    the weights": the prediction and the drawing's answer are toycalc's
    for those weights; reset brings the book's back."""
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    page.locator("#sim-editor > summary").click()
    W = toy.params["W_U"].copy()
    roof, wall = toy.vocab.index(" roof"), toy.vocab.index(" wall")
    W[:, wall] = 3 * W[:, roof]
    edited = Example(dataclasses.replace(toy, params={**toy.params, "W_U": W}))
    assert edited.top_id == wall        # the edit changes the answer
    page.locator("#sim-edit-W_U").locator("xpath=ancestor::details[1]/summary").click()
    sub = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    for r, value in enumerate(W[:, wall]):
        page.get_by_label(f"W_U, ␣wall, c{r + 1}".translate(sub), exact=True).fill(repr(float(value)))
    want = f"Next token: ␣wall with p = {fixed(edited.p_last.max())}"
    assert page.locator("#sim-next").text_content() == want
    # the drawing follows the run once path.js has model_drawing.js, which it
    # fetches for the first run other than the book's: the answer it draws then
    page.wait_for_function("(want) => document.querySelector('#path .path-figure text.answer')"
                           ".firstChild.textContent === want", arg=f"␣wall, p = {fixed(edited.p_last.max())}")
    answer = page.locator("#path .path-figure text.answer").evaluate("t => t.firstChild.textContent")
    assert answer == f"␣wall, p = {fixed(edited.p_last.max())}"
    # edited weights are not the book's: the way back to its sentence is offered
    assert page.locator("#sim-reset").is_enabled()
    page.locator("#sim-weights-reset").click()
    book = Example(toy)
    assert page.locator("#sim-next").text_content() == (f"Next token: {show(toy.vocab[book.top_id])} "
                                                        f"with p = {fixed(book.p_last.max())}")
    assert page.locator("#sim-reset").is_disabled()


def test_the_simulators_address_leads_to_end_to_end(visit):
    """GitHub Pages has no redirects: the old page holds a link, and a
    meta refresh takes the reader on."""
    v = visit()
    v.page.goto(v.base + "/simulator/")
    v.page.wait_for_url("**/end-to-end/")
    v.page.wait_for_selector("#live-simulator[data-live]")
    assert v.page.locator("#sim-text").is_visible()


def test_the_drawers_keep_their_state(visit, toy):
    """A drawer closed and opened again keeps what the reader set in it, and
    the numbers follow it all along."""
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    page.locator("#sim-sampling > summary").click()
    page.locator("#sim-temperature").fill("2")
    page.locator("#sim-sampling > summary").click()      # closed
    assert page.locator("#sim-sampling").get_attribute("open") is None
    ex = Example(toy, temperature=2.0)
    assert page.locator("#sim-next").text_content() == (f"Next token: {show(toy.vocab[ex.top_id])} "
                                                        f"with p = {fixed(ex.p_last.max())}")
    page.locator("#sim-sampling > summary").click()
    assert page.locator("#sim-temperature-value").text_content() == "2.0"


# ---------------------------------------------------------------- the drawing comes alive (light.js)

# What the drawing does, recorded from the start: each class the animation
# sets, in order, and the layout shift (without input) all along.
RECORD = """
window.__lit = []; window.__shift = 0;
new PerformanceObserver((list) => list.getEntries().forEach((e) => { if (!e.hadRecentInput) window.__shift += e.value; }))
  .observe({type: 'layout-shift', buffered: true});
new MutationObserver((changes) => changes.forEach(({target}) => {
  const cls = target.classList;
  if (!cls) return;
  if (cls.contains('is-lit') && target.dataset.part && !window.__lit.includes(target.dataset.part)) window.__lit.push(target.dataset.part);
  for (const mark of ['is-lighting', 'is-arrived', 'cell-changed']) if (cls.contains(mark) && !window.__lit.includes(mark)) window.__lit.push(mark);
})).observe(document, {subtree: true, attributes: true, attributeFilter: ['class']});
"""
DRAWING = {"/": ".home-figure figure[data-figure=model]", "/end-to-end/": "#path .path-figure"}


def moving_visit(chromium, server, width, motion="no-preference"):
    context = chromium.new_context(viewport={"width": width, "height": SCREENS[width]}, reduced_motion=motion)
    context.add_init_script(RECORD)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


@pytest.mark.parametrize("width", list(SCREENS))
@pytest.mark.parametrize("path", list(DRAWING))
def test_the_path_lights_on_the_first_look_and_moves_nothing(chromium, server, path, width):
    context, page, errors = moving_visit(chromium, server, width)
    try:
        page.goto(server + path)
        page.wait_for_selector("body[data-started]")
        page.locator(DRAWING[path]).locator("visible=true").first.scroll_into_view_if_needed()
        page.wait_for_function("window.__lit.includes('is-arrived')", timeout=15000)
        lit = page.evaluate("window.__lit")
        parts = [p for p in lit if not p.startswith("is-")]
        order = page.evaluate("""(sel) => [...[...document.querySelectorAll(sel)].find((f) => f.checkVisibility())
            .querySelectorAll('[data-part]')].map((p) => p.dataset.part).filter((p, k, all) => all.indexOf(p) === k)""",
                              DRAWING[path])
        # from the tokens to the prediction, every part once, in the drawing's order
        assert lit[0] == "is-lighting" and parts[0] == "tokens" and parts[-1] == "next", lit
        assert parts == ["tokens"] + [p for p in order if p != "tokens"], lit
        page.wait_for_function(f"!document.querySelector(':is({DRAWING[path]}):is(.is-arrived, .is-lighting)')",
                               timeout=5000)
        assert page.evaluate("window.__shift") <= 0.05
        # once a visit: the page again does not light
        page.reload()
        page.wait_for_selector("body[data-started]")
        page.locator(DRAWING[path]).locator("visible=true").first.scroll_into_view_if_needed()
        page.wait_for_timeout(600)
        assert page.evaluate("window.__lit") == []
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("path", list(DRAWING))
def test_nothing_moves_for_a_reader_who_asks_for_less_motion(chromium, server, path):
    context, page, errors = moving_visit(chromium, server, 1280, motion="reduce")
    try:
        page.goto(server + path)
        page.wait_for_selector("body[data-started]")
        page.locator(DRAWING[path]).locator("visible=true").first.scroll_into_view_if_needed()
        page.wait_for_timeout(1500)
        if path == "/end-to-end/":
            page.wait_for_selector("#live-simulator[data-live]")
            page.locator("#sim-text").fill("the dog climbed the")
            page.wait_for_timeout(300)
        assert page.evaluate("window.__lit") == [] and errors == []
    finally:
        context.close()


def test_the_reader_can_stop_it_and_a_run_flashes_what_changed(chromium, server, toy):
    context, page, errors = moving_visit(chromium, server, 1280)
    try:
        page.goto(server + "/end-to-end/")
        page.wait_for_selector("#live-simulator[data-live]")
        page.wait_for_selector(".path-figure.is-lighting .light-skip")
        # clicked at once (a slow machine could reach the animation's end first)
        left = page.evaluate("""() => { document.querySelector('.light-skip').click();
            return document.querySelectorAll('.path-figure.is-lighting, .path-figure .is-lit, .light-skip').length; }""")
        assert left == 0
        # another sentence: the cells whose number changed flash, and only those
        before = page.evaluate("""() => new Map([...document.querySelectorAll('#path .model-bands rect')]
            .map((r) => r.querySelector('title')).filter(Boolean).map((t) => t.textContent.split(': ')).map(([k, v]) => [k, v]))
            .size""")
        assert before > 100
        page.locator("#sim-text").fill("the dog climbed the")
        page.wait_for_function("window.__lit.includes('cell-changed')")
        flashed = page.evaluate("""() => [...document.querySelectorAll('#path .cell-changed')].map((m) => m.querySelector('title').textContent)""")
        ex = Example(toy, text="the dog climbed the")
        # ␣dog's row of E is new; the first token's row of E is the same, and does not flash
        assert any(t.startswith("E, the row of ␣dog") for t in flashed), flashed[:5]
        assert not [t for t in flashed if t.startswith("E, the row of the")], flashed[:5]
        assert len(flashed) < page.locator("#path .model-bands rect").count()
        assert ex.top_id is not None and errors == []
    finally:
        context.close()


def test_the_tokens_stand_under_their_label(visit):
    """At 1280 px the line "or add tokens" stood at the far right of the
    sentence's row, its tokens on the next line at the left (issue 49)."""
    page = visit().open("/end-to-end/")
    label, tokens = page.locator("#sim-vocab-label").bounding_box(), page.locator(".sim-vocab").bounding_box()
    assert abs(label["x"] - tokens["x"]) < 2 and label["y"] + label["height"] <= tokens["y"] + 1


def test_a_step_tapped_on_a_phone_shows_its_numbers(visit):
    """At 375 px each step tapped opens under its band with its first table
    or figure starting on the screen (step 4's table once scrolled out of view)."""
    page = visit(width=375, touch=True).open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    for n in range(1, 10):
        step = page.locator(f"#path-step-{n}")
        step.scroll_into_view_if_needed()
        step.tap()
        page.wait_for_function(f"document.querySelector('#path-step-{n}').getAttribute('aria-expanded') === 'true'")
        top = page.evaluate(f"""() => {{
          const first = [...document.querySelectorAll('#step-{n} :is(table, figure, .arithmatex)')]
            .find((e) => e.checkVisibility());
          return first.getBoundingClientRect().top;
        }}""")
        assert 0 <= top < 740 - 60, (n, top)


def test_another_heads_choice_on_home_flashes_what_changed(chromium, server):
    """Home holds a drawing per heads choice: choosing another shows it, and
    its cells whose number differs from the drawing shown before flash
    (the heads' weights do; the embeddings do not)."""
    context, page, errors = moving_visit(chromium, server, 1280)
    try:
        page.goto(server + "/")
        page.wait_for_selector("body[data-started]")
        page.locator('.heads-chooser input[value="4"]').first.check(force=True)
        page.wait_for_function("window.__lit.includes('cell-changed')")
        flashed = page.evaluate("""() => [...document.querySelectorAll('.home-figure .cell-changed')]
            .filter((m) => m.checkVisibility()).map((m) => m.querySelector('title').textContent)""")
        assert flashed and any(t.startswith("head 4") for t in flashed), flashed[:5]
        assert not [t for t in flashed if t.startswith("E, ")], flashed[:5]
        assert errors == []
    finally:
        context.close()
