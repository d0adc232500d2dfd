"""The figures in a real browser: typed sentences redraw them with the
browser's numbers, equal to toycalc's; Home's whole model on the first
screen. On every page (contrast in both schemes, 11 px on a phone, axe):
the tour of every page, test_every_page_browser.py."""
from __future__ import annotations

import pytest

from conftest import axe_violations
from tests.browser.probes import CONTRASTS, LEAVING, arrived
from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show

DOG = "the dog climbed the"


def drawn_titles(page, selector) -> list[str]:
    return page.locator(selector).evaluate_all(
        "marks => marks.filter(m => m.getClientRects().length || m.closest('svg').getClientRects().length)"
        ".map(m => m.textContent)")


# the titles drawn_titles reads, read in the page (a wait's condition)
DRAWN = ("(selector) => [...document.querySelectorAll(selector)]"
         ".filter(m => m.getClientRects().length || m.closest('svg').getClientRects().length).map(m => m.textContent)")


def wait_for_drawing(page, ex: Example) -> None:
    """End to End's drawing of ex's run, once path.js has drawn it: a run
    other than the book's is drawn by model_drawing.js, fetched the first
    time, so the drawing comes a moment after the run's tables. (Every
    title: no mark under a resting mouse, whose title tips.js sets aside.)"""
    page.wait_for_function(f"([selector, want]) => JSON.stringify(({DRAWN})(selector)) === JSON.stringify(want)",
                           arg=["#path .path-figure title", model_titles(ex)])


def attention_want(ex: Example) -> set[str]:
    tokens = [ex.model.show(i) for i in ex.ids]
    w = ex.block["weights"]
    return {f"head {h + 1}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1}): {fixed(w[h, i, j])}"
            for h in range(ex.n_heads) for i in range(len(tokens)) for j in range(i + 1)}


def probabilities_want(ex: Example) -> list[str]:
    p = ex.p_last
    return [f"p({ex.model.show(i)}) = {fixed(p[i])}" for i in sorted(range(len(p)), key=lambda i: (-p[i], i))]


def type_sentence(page, text):
    page.locator("#sim-text").fill(text)
    # what is off the screen is drawn when it nears it or the browser is idle
    # (later.js); these tests read every drawing, seen or not
    page.wait_for_function("!document.querySelector('.sim-pending')")


def typed_with_heads(visit, toy, path: str, ready: str, chooser: str, heads: int):
    """The page at path, once `ready` shows, with `heads` chosen in the
    radio buttons `chooser` and DOG typed; and toycalc's run of the same."""
    page = visit().open(path)
    page.wait_for_selector(ready)
    page.locator(f'{chooser}[value="{heads}"]').check()
    type_sentence(page, DOG)
    return page, Example(toy, text=DOG, heads=heads)


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_path_redraws_with_the_readers_sentence(visit, toy, heads):
    page, ex = typed_with_heads(visit, toy, "/end-to-end/", "#sim-text", ".heads-chooser input[name=path]", heads)
    page.locator("#path-step-6").click()
    got = drawn_titles(page, '#step-6 .path-live figure[data-figure="attention"] rect title')
    assert set(got) == attention_want(ex)
    lines = drawn_titles(page, '#step-6 .path-live figure[data-figure="attention"] line title')
    assert set(lines) == attention_want(ex)
    page.locator("#path-step-9").click()
    assert drawn_titles(page, '#step-9 .path-live figure[data-figure="probabilities"] rect title') == \
        probabilities_want(ex)
    # the drawing follows: every title of every part is toycalc's, for this run
    wait_for_drawing(page, ex)
    assert drawn_titles(page, "#path .path-figure title") == model_titles(ex)
    assert page.locator('#path .path-figure g[data-part="heads"]').count() == heads
    answer = page.locator("#path .path-figure text.answer").evaluate("t => t.firstChild.textContent")
    assert answer == f"{ex.model.show(ex.top_id)}, p = {fixed(ex.p_last[ex.top_id])}"
    # back to the book's sentence: the book's drawing again, for these heads
    page.locator("#sim-reset").click()
    assert drawn_titles(page, "#path .path-figure title") == model_titles(Example(toy, heads=heads))


def model_titles(ex: Example) -> list[str]:
    """Every <title> of End to End's drawing of this run, as toycalc draws it."""
    from bs4 import BeautifulSoup
    from toycalc.book import model_drawing
    tokens = [ex.model.show(i) for i in ex.ids]
    svg = model_drawing.model_svg(ex.trace, tokens, ex.model.vocab, steps=True)
    return [t.get_text() for t in BeautifulSoup(svg, "html.parser").select("title")]


def test_end_to_end_draws_every_heads_choice_with_toycalcs_numbers(visit, toy):
    """The build draws the default heads; the page draws the others
    (model_drawing.js), each title equal to toycalc's."""
    page = visit().open("/end-to-end/")
    assert drawn_titles(page, "#path .path-figure title") == model_titles(Example(toy))
    page.wait_for_selector("#sim-text")
    for heads in (4, 1, 2):
        page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
        expected = model_titles(Example(toy, heads=heads))
        # the first other choice waits for model_drawing.js, fetched then
        for _ in range(100):
            if drawn_titles(page, "#path .path-figure title") == expected:
                break
            page.wait_for_timeout(100)
        assert drawn_titles(page, "#path .path-figure title") == expected, heads


def test_end_to_end_shows_the_drawing_on_its_first_screen_and_never_moves_it(visit):
    """At 1280 x 800 the drawing starts on the first screen; opening any
    step moves no region of it (nor the drawing), closed or open."""
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    figure = page.locator("#path .path-figure")
    assert figure.bounding_box()["y"] < 800, f"the drawing starts at y = {figure.bounding_box()['y']}"
    where = """() => [document.querySelector('#path .path-figure'), ...document.querySelectorAll('#path [data-step]')]
        .map(el => { const r = el.getBoundingClientRect(); return [r.x, r.y + scrollY, r.width, r.height]; })"""
    closed = page.evaluate(where)
    assert len(closed) > 18
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        assert page.locator(f"#step-{n}").is_visible()
        assert page.evaluate(where) == closed, f"step {n} open: a region moved"
        page.locator(f"#path-step-{n}").click()
        assert page.evaluate(where) == closed, f"step {n} closed again: a region moved"


def test_end_to_end_keeps_its_contrast_in_the_dark_with_each_step_open(visit):
    """The tour of every page reads what a page shows at rest: End to End's
    steps closed. Here each step open in turn, in the dark scheme: every
    figure text and axe's colour contrast. At 1280 px alone: a text's
    colours and what is drawn under it are the same at any width."""
    page = visit(1280, "dark").open()
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        texts = page.evaluate(CONTRASTS)
        low = [(t["text"], round(t["ratio"], 2)) for t in texts if t["ratio"] < 4.5]
        assert low == [], f"step {n}: {len(low)} of {len(texts)} texts under 4.5:1, e.g. {low[:5]}"
    assert len(texts) > 70      # the last step's bars are read too
    for n in (6, 9):            # the steps with figures of their own
        page.locator(f"#path-step-{n}").click()
        bad = [(v["id"], len(v["nodes"])) for v in axe_violations(page, ["color-contrast"])]
        assert bad == [], n


SHOWN_MODEL = '.heads-variant:not([hidden]) figure[data-figure="model"]'


@pytest.mark.parametrize("width", [1280, 375])
def test_home_shows_the_whole_model_on_its_first_screen(visit, width):
    page = visit(width).open("/")
    drawing = page.locator(SHOWN_MODEL)
    box = drawing.bounding_box()
    assert box["y"] < 800, f"the drawing starts at y = {box['y']}"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    sizes = drawing.locator("svg text").evaluate_all(
        "ts => ts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)")
    assert sizes and min(sizes) >= 11, f"figure text down to {min(sizes):.1f} px"
    if width == 1280:       # two bands side by side: the model in three or four rows, not seven
        tops = {round(b["y"]) for b in drawing.locator("svg").evaluate_all(
            "ss => ss.map(s => s.getBoundingClientRect().toJSON())")}
        assert len(tops) <= 4


def test_home_follows_the_heads_choice(visit, toy):
    page = visit().open("/")
    for heads in (4, 1, 2):
        page.locator(f'.heads-chooser input[value="{heads}"]').check()
        lanes = page.locator(f'{SHOWN_MODEL} g[data-part="heads"]')
        assert lanes.count() == heads
        ex = Example(toy, heads=heads)
        answer = page.locator(f"{SHOWN_MODEL} text.answer").evaluate("t => t.firstChild.textContent")
        assert answer == f"{ex.model.show(ex.top_id)}, p = {fixed(ex.p_last[ex.top_id])}"


def test_each_parts_name_on_home_opens_its_page(visit):
    page = visit().open("/")
    page.evaluate(LEAVING)
    page.locator(f'{SHOWN_MODEL} g[data-part="heads"] a').first.click()
    page.wait_for_url("**/toy/attention/")
    arrived(page)      # the address changes before the page does: Home's h1 until then
    assert "Attention" in page.locator("h1").first.text_content()


def test_live_tables_and_figures_print_the_books_notation(visit, toy):
    """After a typed sentence, the live tables keep the built tables'
    headers (c₁, not c1), and no figure or live table of End to End shows
    a _ or ^ standing for a subscript or a power."""
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    type_sentence(page, DOG)
    wait_for_drawing(page, Example(toy, text=DOG))      # the drawing of the typed sentence, not the book's
    seen = []
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        seen += page.locator(f"#step-{n} .path-live:visible").all_inner_texts()
        seen += page.locator(f"#step-{n} figure:visible").all_inner_texts()
    assert page.locator("#sim-E tr").first.evaluate("r => [...r.cells].map(c => c.textContent)") == \
        ["id", "token", "c₁", "c₂", "c₃", "c₄"]
    seen += page.locator("#path .path-figure").all_text_contents()
    leaks = [line for text in seen for line in text.splitlines() if "_" in line or "^" in line]
    assert leaks == []


def test_the_playgrounds_live_figures_and_tables_print_the_books_notation(visit, toy):
    """After a typed sentence, no figure or live table of End to End's
    steps, nor its drawing, shows a _ or ^ standing for a subscript or a
    power (its drawn texts, captions, keys, <title>s and table headers)."""
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    type_sentence(page, DOG)
    wait_for_drawing(page, Example(toy, text=DOG))      # the drawing of the typed sentence, not the book's
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
    page.wait_for_function("!document.querySelector('.sim-pending')")
    seen = page.evaluate("""() => {
      const out = [];
      for (const f of document.querySelectorAll('#path .path-live figure, #path .path-figure')) {
        for (const t of f.querySelectorAll('text, title, figcaption, .fig-key')) out.push(t.textContent);
      }
      for (const th of document.querySelectorAll('#path .path-live table th')) {
        const c = th.cloneNode(true);
        c.querySelectorAll('.arithmatex, mjx-container').forEach((m) => m.remove());
        out.push(c.textContent);
      }
      return out;
    }""")
    assert len(seen) > 200
    leaks = [t for t in seen if "_" in t or "^" in t or "´" in t]
    assert leaks == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_zero_is_drawn_as_the_key_shows_it(visit, scheme):
    """A cell whose number is 0 is the key's grey, at full strength (its
    strength would make it blank, and the key says grey)."""
    page = visit(scheme=scheme).open("/end-to-end/")
    # a shown one (the drawing's first positional row, P₁, is all zeros)
    page.wait_for_function("() => [...document.querySelectorAll('svg.fig rect.v-zero')].some((r) => r.checkVisibility())")
    cell, key = page.evaluate("""() => {
      const z = [...document.querySelectorAll('svg.fig rect.v-zero')].find((r) => r.checkVisibility());
      const k = document.querySelector('.fig-legend .swatch.v-zero');
      return [[getComputedStyle(z).fill, getComputedStyle(z).fillOpacity], getComputedStyle(k).backgroundColor];
    }""")
    assert cell == [key, "1"]
