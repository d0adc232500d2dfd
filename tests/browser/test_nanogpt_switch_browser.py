"""The nano-gpt chapter following the reader's letters, in a real browser
(fixtures chromium, server and visit in conftest.py): on each page with
per-input numbers, "Letters for this chapter to follow" redraws every one of them, which
must then be what toycalc computes for those letters (book/nano_gpt's
functions on a Run of them, called here); the way back restores the
book's; the choice holds on the next page; a bad entry gets the field's
message and changes nothing; the sentences written for the book's example
are marked. Then the keyboard: a matrix, even W_1 opened in full, is one
Tab stop, walked with the arrow keys; the stacked heads open in full."""
from __future__ import annotations

import html
import inspect
import json
import re

import pytest

from conftest import axe_violations
from tests.browser.probes import LEAVING, arrived
from bs4 import BeautifulSoup

from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.nano_gpt.transformer import blend_number, lean_number
from toycalc.book.nano_example import Run
from toycalc.model import nanogpt

PAGES = ["/nano-gpt/", "/nano-gpt/embedding/", "/nano-gpt/layer-norm/", "/nano-gpt/self-attention/",
         "/nano-gpt/projection/", "/nano-gpt/mlp/", "/nano-gpt/transformer/", "/nano-gpt/softmax/",
         "/nano-gpt/output/"]
KINDS = nano_gpt.registries
READERS = "aabcca"

# What a reader can read of each per-input output, as the page shows it:
# a number's text; a table's cells (with their hover titles and their
# classes: the colour of the sign or of a share, a weight's frame) and caption,
# math left out (MathJax has replaced it); a formula's TeX, from MathJax's
# own record of it; a figure's marks' titles, its labels and caption.
SHOWN = r"""() => [...document.querySelectorAll('[data-nano-live]')].map((el) => {
  const [kind, name] = el.dataset.nanoLive.split(':');
  const out = { kind, name, args: JSON.parse(el.dataset.nanoArgs) };
  if (kind === 'formula') {
    out.read = MathJax.startup.document.getMathItemsWithin(el).map((m) => m.math);
    return out;
  }
  const copy = el.cloneNode(true);
  copy.querySelectorAll('.arithmatex, mjx-container').forEach((m) => m.remove());
  const text = (n) => n.textContent.replace(/\s+/g, ' ').trim();
  if (kind === 'number') out.read = [text(copy)];
  else if (kind === 'figure') out.read = [...copy.querySelectorAll('title, text, figcaption')].map(text);
  else out.read = [...copy.querySelectorAll('caption, th, td')].map((c) => text(c) + ' | ' + (c.getAttribute('title') || '') +
                                                                       ' | ' + c.className);
  return out;
})"""


def expected(run: Run, kind: str, name: str, args: dict) -> list[str]:
    """What SHOWN reads, from toycalc's own rendering of the same output."""
    function = inspect.unwrap(KINDS[kind][name])
    accepted = list(inspect.signature(function).parameters)[1:]
    markup = function(run, **{k: v for k, v in args.items() if k in accepted})
    if kind == "formula":
        return [html.unescape(m) for m in re.findall(r"\\\[(.*?)\\\]", markup, re.S)]
    soup = BeautifulSoup(markup, "html.parser")
    for m in soup.select(".arithmatex"):
        m.decompose()

    def text(node):
        return " ".join(node.get_text().split())
    if kind == "number":
        return [text(soup)]
    if kind == "figure":
        return [text(n) for n in soup.find_all(["title", "text", "figcaption"])]
    return [text(c) + " | " + c.get("title", "") + " | " + " ".join(c.get("class", []))
            for c in soup.find_all(["caption", "th", "td"])]


def follow(page, text):
    page.locator("#nano-follow-letters").fill(text)
    page.locator("#nano-follow-letters").press("Enter")


def wait_following(page, letters: str):
    page.wait_for_function("t => document.querySelector('.nano-followed')?.textContent === t", arg=letters)
    page.wait_for_selector("body[data-mathjax=done]")


def assert_shows(page, run: Run):
    shown = page.evaluate(SHOWN)
    assert shown
    for item in shown:
        assert item["read"] == expected(run, item["kind"], item["name"], item["args"]), item
    return shown


@pytest.mark.parametrize("path", PAGES)
def test_every_per_input_number_follows_the_readers_letters(visit, nano, path):
    page = visit().open(path)
    book, readers = Run(nano), Run(nano, " ".join(READERS.upper()))
    assert page.locator(".nano-followed").inner_text() == book.text
    follow(page, READERS)
    wait_following(page, readers.text)
    shown = assert_shows(page, readers)
    # the letters change what the page shows, beyond the letters themselves
    changed = [s for s in shown if expected(book, s["kind"], s["name"], s["args"]) != s["read"]]
    assert len(changed) >= max(1, len(shown) // 2), [s["name"] for s in shown]
    # an opened matrix is computed on the letters followed
    tables = page.locator("table[data-nano-full][data-nano-live]")
    if tables.count():
        table = tables.last
        tid = table.get_attribute("id")
        page.locator(f"button[aria-controls='{tid}']").click()
        page.wait_for_selector(f"button[aria-controls='{tid}'][aria-expanded=true]")
        soup = BeautifulSoup(table.evaluate("t => t.outerHTML"), "html.parser")
        said = [td["aria-label"] for td in soup.select("td.nano-cell")]
        assert len(said) == int(soup.table["data-rows"]) * int(soup.table["data-cols"])
        assert soup.table["data-example"] == readers.text
        function = inspect.unwrap(KINDS["matrix"][soup.table["data-nano-full"]])
        whole = json.loads(soup.table["data-nano-args"]) | {"rows": int(soup.table["data-rows"]),
                                                             "cols": int(soup.table["data-cols"]),   # W's
                                                             "per_head": readers.cfg.d // readers.cfg.n_heads}
        want = BeautifulSoup(function(readers, **{k: v for k, v in whole.items()
                                                  if k in inspect.signature(function).parameters}), "html.parser")
        assert said == [td["aria-label"] for td in want.select("td.nano-cell")]


def test_the_way_back_restores_the_books_numbers(visit, nano):
    page = visit().open("/nano-gpt/self-attention/")
    follow(page, "c c b b a a")
    wait_following(page, "C C B B A A")
    page.get_by_role("button", name="Back to the book's example").click()
    wait_following(page, Run(nano).text)
    assert_shows(page, Run(nano))
    assert not page.get_by_role("button", name="Back to the book's example").is_visible()
    assert page.evaluate("sessionStorage.getItem('nanogpt-followed')") is None


def test_the_choice_holds_on_the_next_pages_until_undone(visit, nano):
    readers = Run(nano, "B B A C A C")
    page = visit().open("/nano-gpt/embedding/")
    follow(page, "bbacac")
    wait_following(page, readers.text)
    # by the page's own link (instant navigation), then by a new visit
    page.evaluate(LEAVING)
    page.get_by_role("link", name="Layer Norm").last.click()
    page.wait_for_url(re.compile(r"/nano-gpt/layer-norm/$"))
    arrived(page)      # Embedding, which follows the same letters, stays until the page has come
    wait_following(page, readers.text)
    assert_shows(page, readers)
    page.goto(page.url.replace("layer-norm", "mlp"))
    wait_following(page, readers.text)
    assert_shows(page, readers)
    page.get_by_role("button", name="Back to the book's example").click()
    wait_following(page, Run(nano).text)
    page.goto(page.url.replace("mlp", "projection"))
    page.wait_for_selector("body[data-mathjax=done][data-started]")
    assert page.locator(".nano-followed").inner_text() == Run(nano).text
    assert_shows(page, Run(nano))


def test_a_bad_entry_gets_the_fields_message_and_changes_nothing(visit, nano):
    page = visit().open("/nano-gpt/output/")
    field, message = page.locator("#nano-follow-letters"), page.locator("#nano-follow-letters-message")
    readers = Run(nano, "C A B A C B")
    follow(page, "cabacb")
    wait_following(page, readers.text)
    for text, said in [("abd", '"d" is not a letter nano-gpt knows: type 6 letters, each A, B or C.'),
                       ("ab", "2 letters: nano-gpt sorts exactly 6, each A, B or C."),
                       ("abcabcab", "8 letters: nano-gpt sorts exactly 6, each A, B or C.")]:
        follow(page, text)
        page.wait_for_function("m => m.textContent !== ''", arg=message.element_handle())
        assert message.inner_text() == said
        assert field.get_attribute("aria-invalid") == "true"
        assert page.locator(".nano-followed").inner_text() == readers.text
        message.evaluate("m => { m.textContent = ''; }")
    assert_shows(page, readers)
    follow(page, "  a A b B c C ")
    wait_following(page, "A A B B C C")
    assert message.inner_text() == "" and field.get_attribute("aria-invalid") is None
    assert_shows(page, Run(nano, "A A B B C C"))


def test_the_sentences_written_for_the_books_example_are_marked(visit, nano):
    """Where the heads look is said in computed words, said again for the
    reader's letters (no note); a sentence that holds only for the book's
    example is marked as such while other letters are followed."""
    page = visit().open("/nano-gpt/transformer/")
    notes = page.locator(".nano-example-note")
    words = lambda: " ".join(page.locator("article").inner_text().split())
    assert notes.count() == 0 and "the first block's heads all lean towards the A." in words()
    follow(page, "cccccc")
    wait_following(page, "C C C C C C")
    cccccc = Run(nano, "C C C C C C")
    assert f"{blend_number(cccccc, t=6)}, and the first block's heads {lean_number(cccccc, t=6, block=1)}." in words()
    assert notes.count() == 0
    page.get_by_role("button", name="Back to the book's example").click()
    wait_following(page, Run(nano).text)
    assert notes.count() == 0 and page.locator(".nano-for-example--marked").count() == 0
    # Output's "the input ..., sorted" is marked only where the model does not sort the letters;
    # its "sharp too" (the untrained columns, like the trained) always
    page.goto(page.url.replace("transformer", "output"))
    follow(page, "bcabca")
    run = Run(nano, "B C A B C A")
    wait_following(page, run.text)
    assert notes.count() == 1 + (0 if run.answer == sorted(run.ids) else 1)
    assert page.locator(".nano-for-example--marked").first.inner_text().endswith("sharp too, more than half sure of a letter that means nothing")


def test_following_on_a_phone_stays_in_the_page(visit):
    page = visit(width=375).open("/nano-gpt/self-attention/")
    follow(page, READERS)
    wait_following(page, " ".join(READERS.upper()))
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    box = page.locator(".nano-follow").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375


def tab_stops(page, selector: str) -> int:
    return page.locator(selector).evaluate(
        "t => [...t.querySelectorAll('a[href], button, input, [tabindex]')].filter((e) => e.tabIndex >= 0).length")


def test_an_opened_matrix_is_one_tab_stop_walked_with_the_arrow_keys(visit, nano):
    page = visit().open("/nano-gpt/mlp/")
    W1 = "#nano-W_1-1"
    assert tab_stops(page, W1) == 1
    page.locator("button[aria-controls='nano-W_1-1']").click()
    page.wait_for_selector("button[aria-controls='nano-W_1-1'][aria-expanded=true]")
    cfg = nano.cfg
    cells = page.locator(f"{W1} td.nano-cell")
    assert cells.count() == cfg.d * cfg.mlp_width
    assert tab_stops(page, W1) == 1
    # Tab reaches the first cell, the arrows move within, Tab leaves the matrix
    page.locator("button[aria-controls='nano-W_1-1']").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    page.locator(f"{W1} td.nano-cell[tabindex='0']").focus()
    label = "document.activeElement.getAttribute('aria-label')"
    W = nano.params["blocks.0.W_1"]
    name = "Block 1's weight matrix"
    from toycalc.book.render import fixed
    assert page.evaluate(label) == f"{name}, row 1, column 1: {fixed(W[0, 0])}"
    for key, (i, j) in [("ArrowRight", (0, 1)), ("ArrowDown", (1, 1)), ("End", (1, cfg.mlp_width - 1)),
                        ("ArrowLeft", (1, cfg.mlp_width - 2)), ("Home", (1, 0)), ("ArrowUp", (0, 0)),
                        ("ArrowUp", (0, 0))]:
        page.keyboard.press(key)
        assert page.evaluate(label) == f"{name}, row {i + 1}, column {j + 1}: {fixed(W[i, j])}", key
    page.keyboard.press("ArrowDown")
    assert tab_stops(page, W1) == 1
    assert page.evaluate("document.activeElement.getAttribute('tabindex')") == "0"
    page.keyboard.press("Tab")
    assert page.evaluate(f"!document.querySelector('{W1}').contains(document.activeElement)")
    # hover still names each cell
    assert cells.nth(5).get_attribute("title") == f"{name}, row 1, column 6: {fixed(W[0, 5])}"


def test_the_attention_matrix_skips_the_masked_future(visit, nano):
    page = visit().open("/nano-gpt/self-attention/")
    table = page.locator("table.nano-matrix[id^='nano-attention-']").first
    assert tab_stops(page, "table.nano-matrix[id^='nano-attention-']") == 1
    table.locator("td.nano-cell[tabindex='0']").focus()
    page.keyboard.press("ArrowRight")   # j = 2 is the future of t = 1: nothing to reach
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith("weight of t = 1 on j = 1")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith("weight of t = 2 on j = 2")


def test_the_stacked_heads_open_in_full(visit, nano):
    page = visit().open("/nano-gpt/projection/")
    run = Run(nano)
    button = page.locator("button[aria-controls='nano-A-1']")
    assert button.inner_text() == f"Show all {run.cfg.d} columns"
    button.click()
    page.wait_for_selector("button[aria-controls='nano-A-1'][aria-expanded=true]")
    heads_row = page.locator("#nano-A-1 thead th").evaluate_all("hs => hs.map(h => h.innerText.replace(/\\s+/g, ' '))")
    rows = page.locator("#nano-A-1 tbody tr").evaluate_all(
        "rs => rs.map(r => [r.cells[0].textContent, ...[...r.querySelectorAll('td.nano-cell')].map(c => c.getAttribute('aria-label'))])")
    A, heads = run.block(0)["A"], run.cfg.n_heads
    from toycalc.book.render import fixed
    width = run.cfg.d // heads
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    assert heads_row == [f"head {c // width + 1} c = {c + 1}" for c in range(run.cfg.d)]
    assert rows == [[f"t = {t + 1} {letters[t]}"] + [
        f"Heads stacked, block 1, t = {t + 1} ({letters[t]}), channel {c + 1}: {fixed(A[t, c])}"
        for c in range(run.cfg.d)] for t in range(run.T)]
    button.click()
    page.wait_for_selector("button[aria-controls='nano-A-1'][aria-expanded=false]")
    assert page.locator("#nano-A-1 thead").inner_text().rstrip().endswith(f"… {run.cfg.d - 3 * heads} more")


@pytest.mark.parametrize("path", ["/nano-gpt/", "/nano-gpt/transformer/"])
def test_axe_finds_nothing_serious_while_following(visit, path):
    page = visit().open(path)
    follow(page, "ab")        # a message shown, then letters followed, a sentence marked
    page.wait_for_function("() => document.querySelector('#nano-follow-letters-message').textContent")
    follow(page, "cccccc")
    wait_following(page, "C C C C C C")
    if path == "/nano-gpt/":   # the paragraph that says how shows only where the field works
        assert page.locator("[data-nano-about]").is_visible()
    violations = axe_violations(page)
    assert [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in violations
            if v["impact"] not in ("minor", None)] == []


def test_without_javascript_no_field_and_no_word_of_it(chromium, server):
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + "/nano-gpt/")
        assert page.locator(".nano-follow").count() == 0
        assert not page.locator("[data-nano-about]").is_visible()
    finally:
        context.close()


def test_the_print_page_prints_the_books_example(visit, nano):
    page = visit().open("/nano-gpt/embedding/")
    follow(page, "bbbbbb")
    wait_following(page, "B B B B B B")
    page.goto(page.url.replace("nano-gpt/embedding/", "print_page/"))
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)   # what scripts the page runs have run
    assert page.locator(".nano-follow").count() == 0
    ids = page.locator("[data-nano-live='number:ids']").first.inner_text()
    assert ids == " ".join(map(str, Run(nano).ids))
