"""nano-gpt live in a real browser (fixtures chromium, server and visit in
conftest.py): the field "Letters for nano-gpt to sort" sorts the reader's letters with
toycalc's probabilities; a bad entry gets its message and the page keeps
working; a matrix opens in full with toycalc's values; axe finds nothing
serious or moderate; without JavaScript the pages read as the build wrote
them. `visit` fails a test that asked anything of another host or logged
an error."""
from __future__ import annotations

import inspect
import re

import pytest

from conftest import axe_violations
from bs4 import BeautifulSoup

from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.nano_example import Run
from toycalc.book.render import fixed
from toycalc.model import nanogpt

FIELD_PAGES = ["/nano-gpt/", "/nano-gpt/output/"]


def sort(page, text):
    page.locator("[data-nano-sort] input").fill(text)
    page.locator("[data-nano-sort] input").press("Enter")


def shown_steps(page):
    page.wait_for_selector(".nano-answer-letters")
    return page.locator(".nano-sorted table").evaluate(
        "t => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))")


def assert_sorted_as_toycalc(page, nano, letters: str):
    steps = Run(nano, " ".join(letters.upper())).steps
    V = nanogpt.VOCAB
    want = [[str(k + 1), nanogpt.letters(s["ids"])] + [fixed(v) for v in s["p"]] + [V[s["next"]]]
            for k, s in enumerate(steps)]
    assert shown_steps(page) == want
    assert page.locator(".nano-answer-letters").inner_text() == nanogpt.letters(s["next"] for s in steps)
    bars = page.locator(".nano-bars figure").evaluate_all(
        "fs => fs.map(f => [...f.querySelectorAll('rect')].map(r => [r.getAttribute('class'), r.textContent]))")
    assert bars == [[["bar-top" if i == s["next"] else "bar", f"p({V[i]}) = {fixed(s['p'][i])}"] for i in range(3)]
                    for s in steps]


@pytest.mark.parametrize("path", FIELD_PAGES)
def test_cbabbc_sorts_to_ABBBCC_with_toycalcs_probabilities(visit, nano, path):
    page = visit().open(path)
    field = page.get_by_label("Letters for nano-gpt to sort")
    field.fill("cbabbc")
    field.press("Enter")
    page.wait_for_selector(".nano-answer-letters")
    assert page.locator(".nano-answer-letters").inner_text().replace(" ", "") == "ABBBCC"
    assert_sorted_as_toycalc(page, nano, "cbabbc")


def test_bad_entries_get_their_message_and_the_page_keeps_working(visit, nano):
    page = visit().open("/nano-gpt/output/")
    field, message = page.get_by_label("Letters for nano-gpt to sort"), page.locator("[data-nano-sort] [role=alert]")
    sort(page, "a a b c c b")
    shown_steps(page)
    for text, said in [("abd", '"d" is not a letter nano-gpt knows'), ("ab", "2 letters: nano-gpt sorts exactly 6"),
                       ("abcabcab", "8 letters: nano-gpt sorts exactly 6")]:
        sort(page, text)
        page.wait_for_function("m => m.textContent !== ''", arg=message.element_handle())
        assert message.inner_text().startswith(said)
        assert field.get_attribute("aria-invalid") == "true"
        assert page.locator(".nano-sorted").inner_text() == ""   # no answer left over from before
        assert message.get_attribute("id") in field.get_attribute("aria-describedby").split()
        message.evaluate("m => { m.textContent = ''; }")
    sort(page, "  C c A b B a ")
    assert_sorted_as_toycalc(page, nano, "CcAbBa")
    assert message.inner_text() == "" and field.get_attribute("aria-invalid") is None


def test_the_readers_text_is_never_read_as_html(visit):
    page = visit().open("/nano-gpt/")
    sort(page, "<img src=x onerror=alert(1)>")
    page.wait_for_function("() => document.querySelector('[data-nano-sort] [role=alert]').textContent")
    assert page.locator("[data-nano-sort] img").count() == 0
    assert page.locator("[data-nano-sort] [role=alert]").inner_text().startswith('"<" is not a letter')


def tags(markup: str) -> str:
    """A table's markup without the blank between its tags."""
    markup = re.sub(r' (title|data-title|aria-describedby)="[^"]*"', "", markup)  # tips.js moves a term's title
    return re.sub(r">\s+<", "><", markup)


def python_titles(run: Run, table) -> list[list[str]]:
    """Every cell's title of the matrix in full, as the build prints it."""
    function = nano_gpt.registries["matrix"][table["data-nano-full"]]
    accepted = inspect.signature(function).parameters
    def value(k):
        text = table[f"data-{k}"]
        return int(text) if k in ("block", "head", "rows", "cols") and text.isdigit() else text
    options = {k: value(k) for k in accepted if table.has_attr(f"data-{k}")}
    full = BeautifulSoup(function(run, **options), "html.parser")
    assert not full.select(".nano-more")
    return [[td["aria-label"] for td in tr.select("td.nano-cell")] for tr in full.tbody.select("tr")]


@pytest.mark.parametrize("path", ["/nano-gpt/embedding/", "/nano-gpt/mlp/", "/nano-gpt/self-attention/",
                                  "/nano-gpt/output/"])
def test_every_matrix_opens_in_full_with_toycalcs_values(visit, nano, path):
    run = Run(nano)
    page = visit().open(path)
    tables = page.locator("table[data-nano-full]")
    assert tables.count() >= 1
    for k in range(tables.count()):
        table = tables.nth(k)
        tid = table.get_attribute("id")
        button = page.locator(f"button[aria-controls='{tid}']")
        rows, cols = table.get_attribute("data-rows"), table.get_attribute("data-cols")
        # the corner leaves out columns (a sequence's channels), rows (a weight matrix's) or both
        cut = [f"{rows} rows" if table.locator("td.nano-more[colspan]").count() else "",
               f"{cols} columns" if "…" in table.locator("thead").inner_text() else ""]
        assert button.inner_text() == "Show all " + " and ".join(filter(None, cut))
        corner = table.evaluate("t => t.outerHTML")
        button.click()
        page.wait_for_selector(f"button[aria-controls='{tid}'][aria-expanded=true]")
        soup = BeautifulSoup(table.evaluate("t => t.outerHTML"), "html.parser").table
        whole = [tr.select("td.nano-cell") for tr in soup.tbody.select("tr")]
        shown = [[td["aria-label"] for td in row] for row in whole]
        assert shown == python_titles(run, soup)
        assert len(shown) == int(rows) and {len(r) for r in shown} == {int(cols)}
        assert not soup.select(".nano-more")
        # the corner the build printed is the top left of the whole, cell for cell
        before = BeautifulSoup(corner, "html.parser")
        for i, tr in enumerate(before.tbody.select("tr")):
            for j, td in enumerate(tr.select("td.nano-cell")):
                after = whole[i][j]
                assert (td["aria-label"], td["style"], td.text) == (after["aria-label"], after["style"], after.text)
        button.click()
        page.wait_for_selector(f"button[aria-controls='{tid}'][aria-expanded=false]")
        assert tags(table.evaluate("t => t.outerHTML")) == tags(corner)


@pytest.mark.parametrize("path", ["/nano-gpt/", "/nano-gpt/output/", "/nano-gpt/mlp/"])
def test_axe_finds_nothing_serious_with_the_live_parts_open(visit, path):
    """The letters sorted, and the smallest matrix of the page opened in
    full (one function opens every matrix; MLP's 48 × 192 held axe for
    15 s, and every cell's contrast is test_figures_nano_browser's)."""
    page = visit().open(path)
    if page.locator("[data-nano-sort]").count():
        sort(page, "cbabbc")
        shown_steps(page)
    smallest = page.evaluate("""() => { const tables = [...document.querySelectorAll('table[data-nano-full]')];
        const size = (t) => t.dataset.rows * t.dataset.cols;
        return tables.length ? tables.reduce((a, b) => (size(b) < size(a) ? b : a)).id : null; }""")
    assert (smallest is not None) == (path != "/nano-gpt/"), path     # the Introduction has none
    if smallest:
        page.locator(f"button[aria-controls='{smallest}']").click()
        page.wait_for_selector(f"button[aria-controls='{smallest}'][aria-expanded=true]")
    violations = axe_violations(page)
    assert [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in violations
            if v["impact"] not in ("minor", None)] == []


def test_a_bad_entry_is_announced_to_axe_too(visit):
    page = visit().open("/nano-gpt/")
    sort(page, "ab")
    page.wait_for_function("() => document.querySelector('[data-nano-sort] [role=alert]').textContent")
    violations = axe_violations(page)
    assert [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in violations
            if v["impact"] not in ("minor", None)] == []


def test_reached_by_instant_navigation(visit, nano):
    page = visit().open("/nano-gpt/")
    # a shown link to nano-gpt's Output (the toy's Output page comes first in the nav now)
    page.evaluate("[...document.querySelectorAll('a')].find(a => a.href.endsWith('/nano-gpt/output/')"
                  " && a.getClientRects().length).click()")
    page.wait_for_url(re.compile(r"/nano-gpt/output/$"))
    # the new page's own parts, set up by its scripts (the URL may change before the page does)
    page.wait_for_selector("button[aria-controls='nano-W_U']")
    page.wait_for_selector("[data-nano-sort]:not([hidden]) input")
    sort(page, "bbbaaa")
    assert_sorted_as_toycalc(page, nano, "bbbaaa")
    assert page.locator("[data-nano-sort]").count() == 1


def test_without_javascript_the_pages_read_as_the_build_wrote_them(chromium, server):
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        for path in FIELD_PAGES + ["/nano-gpt/mlp/"]:
            page.goto(server + path)
            assert not page.locator("[data-nano-sort]").is_visible()
            assert page.locator(".nano-full button").count() == 0
            assert page.locator(".nano-more").count() >= (1 if path != "/nano-gpt/" else 0)
    finally:
        context.close()


def test_on_a_phone_the_answer_and_a_whole_matrix_stay_in_the_page(visit, nano):
    page = visit(width=375).open("/nano-gpt/output/")
    sort(page, "cbabbc")
    assert_sorted_as_toycalc(page, nano, "cbabbc")
    page.locator("button[aria-controls='nano-W_U']").click()
    page.wait_for_selector("button[aria-controls='nano-W_U'][aria-expanded=true]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
