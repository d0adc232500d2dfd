"""The nano-gpt chapter in a real browser (Debian's chromium, the site
served on 127.0.0.1 only): a cell's value reachable by keyboard, captions
as wide as the column, the letters box in its place. Each page on a phone
with its answers open (formulas typeset, axe, no overflow): the tour of
every page, test_every_page_browser.py. Fixtures: conftest.py."""
import pytest

from toycalc.model import nanogpt


def test_a_cell_says_its_value_on_focus(visit):
    page = visit().open("/nano-gpt/self-attention/")
    # the page follows block 0's head 1 (the head that finds the smallest letter)
    cell = page.locator("#nano-attention-0-1 td.nano-cell[tabindex='0']").first
    cell.focus()
    said = page.evaluate("document.activeElement.getAttribute('aria-label')")
    # the cell's title shows as Material's tooltip (content.tooltips), on
    # hover and on focus
    page.wait_for_function("document.getElementById(document.activeElement.getAttribute('aria-describedby'))"
                           "?.classList.contains('md-tooltip2--active')")
    title = page.evaluate("""() => {
        const tip = document.getElementById(document.activeElement.getAttribute('aria-describedby'));
        return tip && tip.classList.contains('md-tooltip2--active') ? tip.textContent.trim() : null;
    }""")
    text = cell.inner_text().strip()
    page.keyboard.press("ArrowDown")   # within a matrix, the arrow keys (a matrix is one Tab stop)
    assert said == title and said.endswith(text) and "weight of t = 0 on j = 0" in said
    assert page.evaluate("document.activeElement.classList.contains('nano-cell')")
    assert "weight of t = 1 on j = 0" in page.evaluate("document.activeElement.getAttribute('aria-label')")


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


def test_the_introductions_two_fields_say_what_each_does(visit):
    """nano-gpt's Introduction opens on its tool: the field that sorts the
    reader's letters right there comes after the first paragraph, the one
    for the chapter to follow them after it; their labels and hints say
    which is which, and each names the other."""
    page = visit().open("/nano-gpt/")
    sort = page.get_by_label("Letters for nano-gpt to sort", exact=True)
    follow = page.get_by_label("Letters for this chapter to follow", exact=True)
    assert follow.is_visible() and sort.is_visible()
    first = page.locator("article > p").first.bounding_box()
    task = page.locator("article h2", has_text="The task").bounding_box()
    assert first["y"] < sort.bounding_box()["y"] < follow.bounding_box()["y"] < task["y"]
    sort_hint = page.locator("[data-nano-sort] .nano-hint").inner_text()
    follow_hint = page.locator(".nano-follow .nano-hint").inner_text()
    assert "the rest of the page stays as it is" in sort_hint and "“Letters for this chapter to follow”" in sort_hint
    assert follow_hint.startswith(f"{nanogpt.LENGTH} letters, each A, B or C. Not a sort:") and "next pages" in follow_hint


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
