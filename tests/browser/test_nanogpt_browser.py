"""The nano-gpt chapter in a real browser (Debian's chromium, the site
served on 127.0.0.1 only): a cell's value reachable by keyboard, captions
as wide as the column, the letters box in its place. Each page on a phone
with its answers open (formulas typeset, axe, no overflow): the tour of
every page, test_every_page_browser.py. Fixtures: conftest.py."""
import pytest

from tests.browser.probes import FRAMES
from toycalc.book.nano_example import Run
from toycalc.model import nanogpt


def test_a_cell_says_its_value_on_focus(visit):
    page = visit().open("/nano-gpt/self-attention/")
    page.wait_for_selector("body[data-started]")   # tips.js listens once the page's code runs
    # the page follows block 1's head 2 (the head that finds the smallest letter)
    cell = page.locator("#nano-attention-1-2 td.nano-cell[tabindex='0']").first
    # in view first, the scroll over: tips.js hides its box on a scroll, and
    # focus() scrolling the page there fired one after the ArrowDown's box
    cell.scroll_into_view_if_needed()
    page.evaluate(FRAMES)
    cell.focus()
    said = page.evaluate("document.activeElement.getAttribute('aria-label')")
    text = cell.inner_text().strip()
    assert said.endswith(text) and "weight of t = 1 on j = 1" in said
    page.keyboard.press("ArrowDown")   # within a matrix, the arrow keys (a matrix is one Tab stop)
    assert page.evaluate("document.activeElement.classList.contains('nano-cell')")
    said = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert "weight of t = 2 on j = 1" in said
    # the cell keeps its title for the browser's tooltip on hover, and the
    # keyboard's focus shows it in tips.js's box
    title = page.locator(".fig-tip").inner_text(timeout=5000).strip()
    assert title == said == page.evaluate("document.activeElement.getAttribute('title')")
    assert page.evaluate("document.activeElement.getAttribute('aria-describedby')") is None


def test_the_keyboards_box_follows_its_cell_as_the_page_scrolls(visit):
    """An arrow key that moves the focus to a cell out of view scrolls the
    page there: the box stays beside the focused cell (it was hidden by
    that scroll), and goes once a scroll takes the cell off the screen."""
    page = visit(own_context=True).open("/nano-gpt/self-attention/")
    page.wait_for_selector("body[data-started]")
    cell = page.locator("#nano-attention-1-2 td.nano-cell[tabindex='0']").first
    cell.scroll_into_view_if_needed()
    page.evaluate(FRAMES)
    cell.focus()
    page.keyboard.press("ArrowDown")
    page.locator(".fig-tip").wait_for()
    # the focused cell at the screen's foot: the next ArrowDown scrolls to the one under it
    page.evaluate("""() => { const r = document.activeElement.getBoundingClientRect();
        window.scrollBy(0, r.bottom - innerHeight + 2); }""")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("""() => { const tip = document.querySelector('.fig-tip');
        return tip !== null && tip.textContent === document.activeElement.getAttribute('title'); }""")
    scrolled = page.evaluate("scrollY")
    page.evaluate(FRAMES)
    assert page.evaluate("scrollY") == scrolled
    gap = page.evaluate("""() => { const tip = document.querySelector('.fig-tip').getBoundingClientRect(),
        cell = document.activeElement.getBoundingClientRect();
        return Math.min(Math.abs(tip.top - cell.bottom), Math.abs(cell.top - tip.bottom)); }""")
    assert gap <= 7, f"the box is {gap:.0f} px from its cell"
    page.mouse.wheel(0, 40)     # a small scroll: the box follows the cell
    page.wait_for_function("""() => { const tip = document.querySelector('.fig-tip'),
        cell = document.activeElement.getBoundingClientRect();
        if (!tip) return false; const r = tip.getBoundingClientRect();
        return Math.min(Math.abs(r.top - cell.bottom), Math.abs(cell.top - r.bottom)) <= 7; }""")
    page.mouse.wheel(0, 3000)   # the cell off the screen: its box goes
    page.locator(".fig-tip").wait_for(state="detached")


@pytest.mark.parametrize("width", [1280, 375])
def test_matrix_captions_are_as_wide_as_the_column(visit, width):
    """A matrix's caption runs the width of the text column, not the width
    of a narrow matrix ("Output matrix W_U: 48 × 3, …" was squeezed into
    170 px)."""
    page = visit(width=width).open("/nano-gpt/output/")
    widths = page.evaluate("""() => [...document.querySelectorAll('article table.nano-matrix')].map(t => [
        t.querySelector('caption').getBoundingClientRect().width,
        t.querySelector('tbody').getBoundingClientRect().width,
        t.parentElement.getBoundingClientRect().width])""")
    assert widths and all(caption >= 0.95 * column for caption, _, column in widths), widths
    assert any(body < 0.5 * column for _, body, column in widths)   # a narrow matrix is among them


def test_the_introductions_sorter_is_the_field_the_chapter_follows(visit):
    """nano-gpt's Introduction has one letters field, not two look-alikes:
    it sorts the reader's letters and the chapter follows them, as its
    label and hint say; the way back clears both."""
    v = visit()
    page = v.open("/nano-gpt/")
    field = page.get_by_label("Letters for nano-gpt to sort and this chapter to follow", exact=True)
    assert field.is_visible() and page.locator("article input[type=text]").count() == 1
    first = page.locator("article > p").first.bounding_box()
    assert first["y"] < field.bounding_box()["y"]
    hint = page.locator("[data-nano-sort] .nano-hint").inner_text()
    assert hint.startswith(f"{nanogpt.LENGTH} letters, each A, B or C") and "the next ones" in hint
    assert page.locator(".nano-follow-now").inner_text().endswith("the book's example.")
    field.fill("cccaab")
    field.press("Enter")
    page.wait_for_function("() => document.querySelector('.nano-followed')?.textContent === 'C C C A A B'")
    assert page.locator(".nano-answer-letters").inner_text() == "A A B C C C"
    assert page.evaluate("sessionStorage.getItem('nanogpt-followed')") == "C C C A A B"
    page.get_by_role("button", name="Back to the book's example").click()
    page.wait_for_function("() => document.querySelector('.nano-follow-now').textContent.endsWith(\"the book's example.\")")
    assert page.locator(".nano-answer").inner_text() == "" and field.input_value() == ""
    # a page without a sorter keeps its own field, and follows the letters followed before
    field.fill("cccaab")
    field.press("Enter")
    page.wait_for_function("() => document.querySelector('.nano-followed')?.textContent === 'C C C A A B'")
    page = v.open("/nano-gpt/embedding/")       # the same visit: sessionStorage kept
    follow = page.get_by_label("Letters for this chapter to follow", exact=True)
    page.wait_for_function("() => document.querySelector('.nano-followed')?.textContent === 'C C C A A B'")
    assert follow.input_value() == "C C C A A B"


def test_output_has_one_letters_field_that_sorts_and_that_the_page_follows(visit, nano):
    """Output (issue 65): one field, not a sorter down the page and a
    field to follow at its top: it opens the page, its label says both
    jobs, and the letters sorted are the ones the page's own loop (the
    table of greedy decoding, further down) is drawn again for."""
    page = visit().open("/nano-gpt/output/")
    fields = page.evaluate("""() => [...document.querySelectorAll('article input[type=text]')]
        .map((f) => [...f.labels].map((l) => l.textContent).join(' '))""")
    assert fields == ["Letters for nano-gpt to sort and this chapter to follow"]
    field = page.get_by_label(fields[0], exact=True)
    first = page.locator("article > p").first.bounding_box()
    assert first["y"] < field.bounding_box()["y"] < page.locator("article h2").first.bounding_box()["y"]
    field.fill("cabacb")
    field.press("Enter")
    page.wait_for_function("() => document.querySelector('.nano-followed')?.textContent === 'C A B A C B'")
    assert page.locator(".nano-answer-letters").inner_text() == "A A B B C C"
    steps = Run(nano, "C A B A C B").steps
    shown = page.locator("table#nano-generate").evaluate(
        "t => [...t.tBodies[0].rows].map((r) => r.cells[r.cells.length - 1].textContent.trim())")
    assert shown == [nanogpt.VOCAB[s["next"]] for s in steps]


# Where the box is: the element before it, whether that is the article's
# first paragraph, and that paragraph's top and the room kept under it.
OPENING = """() => {
  const a = document.querySelector('article'), first = a.querySelector(':scope > p');
  const box = document.querySelector('.nano-follow');
  return {before: box && box.previousElementSibling.tagName, afterFirst: !!box && box.previousElementSibling === first,
          first: first.getBoundingClientRect().top, padding: getComputedStyle(first).paddingBottom};
}"""


@pytest.mark.parametrize("width", [1280, 375])
def test_the_letters_box_comes_after_the_first_paragraph(visit, width):
    """The page's prose starts under the title (and its map); the box
    "Letters for this chapter to follow" comes after the first paragraph
    (under the title, it took a phone's first screen before any prose).
    Preliminaries, whose numbers follow the weights alone, gets no box and
    keeps no room for one."""
    v = visit(width)
    page = v.open("/nano-gpt/self-attention/")
    page.wait_for_selector(".nano-follow")
    opening = page.evaluate(OPENING)
    assert opening["afterFirst"] and opening["first"] < 700, opening
    page = v.open("/nano-gpt/preliminaries/")
    page.wait_for_timeout(500)                    # letters.js has set up
    assert page.locator(".nano-follow").count() == 0
    assert page.evaluate(OPENING)["padding"] == "0px"


# every element added among the article's own children or taken from them
# once the page has loaded (Material's, MathJax's or ours)
AMONG_THE_ARTICLES = """() => {
  window.__among = [];
  document.addEventListener('DOMContentLoaded', () => {
    const article = document.querySelector('article.md-content__inner');
    new MutationObserver((records) => records.forEach((r) => window.__among.push(
      ...[...r.addedNodes, ...r.removedNodes].filter((n) => n.nodeType === 1).map((n) => n.outerHTML.slice(0, 60)))))
      .observe(article, { childList: true });
  });
}"""


def test_setting_up_the_page_inserts_nothing_among_the_articles_children(visit):
    """The box to follow letters and each cut matrix's button line have
    their places in the build (page_speed.py, nano_gpt/shared.py), which
    letters.js fills: an element inserted among the article's children,
    once MathJax's hidden MathML is in the page, has chromium restyle the
    whole article."""
    v = visit(own_context=True)
    v.page.add_init_script("(" + AMONG_THE_ARTICLES + ")()")
    page = v.open("/nano-gpt/self-attention/")
    page.wait_for_selector(".nano-follow:not([hidden]) form")
    page.wait_for_selector("p.nano-full:not([hidden]) button")
    assert page.locator("p.nano-full button").count() == page.locator("table[data-nano-full]").count() > 0
    assert page.locator(".nano-follow-place").count() == 0
    assert page.evaluate("window.__among") == []
