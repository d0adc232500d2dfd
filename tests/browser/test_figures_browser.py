"""The figures in a real browser: typed sentences redraw them with the
browser's numbers, equal to toycalc's; they fit a phone; axe is content."""
from __future__ import annotations

import pytest

from conftest import axe_violations

from toycalc.book import draw
from toycalc.book.example import Example
from toycalc.book.render import fixed

DOG = "the dog climbed the"


def drawn_titles(page, selector) -> list[str]:
    return page.locator(selector).evaluate_all(
        "marks => marks.filter(m => m.getClientRects().length || m.closest('svg').getClientRects().length)"
        ".map(m => m.textContent)")


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


@pytest.mark.parametrize("heads", [1, 4])
def test_the_simulator_redraws_with_the_browsers_numbers(visit, toy, heads):
    page = visit().open("/simulator/")
    page.wait_for_selector("#sim-softmax")
    page.locator(f'input[name=sim-heads][value="{heads}"]').check()
    type_sentence(page, DOG)
    ex = Example(toy, text=DOG, heads=heads)
    results = "#sim-results"
    got = drawn_titles(page, f'{results} figure[data-figure="attention"] svg:first-of-type rect title')
    assert set(got) == attention_want(ex)
    lines = drawn_titles(page, f'{results} figure[data-figure="attention"] line title')
    assert set(lines) == attention_want(ex)
    assert drawn_titles(page, f'{results} figure[data-figure="probabilities"] rect title') == probabilities_want(ex)


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_path_redraws_with_the_readers_sentence(visit, toy, heads):
    page = visit().open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
    type_sentence(page, DOG)
    ex = Example(toy, text=DOG, heads=heads)
    page.locator("#path-step-6").click()
    got = drawn_titles(page, '#step-6 .path-live figure[data-figure="attention"] rect title')
    assert set(got) == attention_want(ex)
    page.locator("#path-step-9").click()
    assert drawn_titles(page, '#step-9 .path-live figure[data-figure="probabilities"] rect title') == \
        probabilities_want(ex)
    # the drawings on the buttons follow: step 9's four bars, step 6's heads
    bars = page.locator("#path-step-9 .path-drawing-live title").all_text_contents()
    assert bars == probabilities_want(ex)[:4]
    cells = page.locator("#path-step-6 .path-drawing-live rect title").all_text_contents()
    assert len(cells) == heads * 15
    # and each head's masked future is one mark
    assert page.locator("#path-step-6 .path-drawing-live g.v-masked > title").all_text_contents() == \
        [draw.MASKED] * heads
    assert page.locator("#path-step-6 .path-drawing-live").is_visible()
    assert page.locator("#path-step-6 .path-drawing:not(.path-drawing-live)").evaluate_all(
        "els => els.filter(e => e.getClientRects().length).length") == 0
    # back to the book's sentence: the book's drawings again
    page.locator("#sim-reset").click()
    book = Example(toy, heads=heads)
    assert drawn_titles(page, "#path-step-9 .path-drawing title") == probabilities_want(book)[:4]


@pytest.mark.parametrize("where", ["/end-to-end/", "/toy/attention/", "/toy/generation/", "/simulator/"])
def test_figures_fit_a_phone(visit, where):
    page = visit(375).open(where)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"{where} is {width} px wide"
    wide = page.locator("svg.fig").evaluate_all(
        "svgs => svgs.filter(s => s.getClientRects().length && s.getBoundingClientRect().right > 376).length")
    assert wide == 0


@pytest.mark.parametrize("where", ["/end-to-end/#step-6", "/toy/attention/", "/toy/generation/",
                                   "/toy/positions/", "/toy/layernorm/", "/toy/output/", "/nano-gpt/embedding/"])
def test_axe_is_content_with_the_figures(visit, where):
    page = visit().open(where)
    violations = axe_violations(page)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in violations
           if v["impact"] in ("serious", "critical", "moderate")]
    assert bad == []
