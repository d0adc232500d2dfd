"""The whole book, to print: paper has no scrolling, so the print page
typesets every formula at once, where the chapters typeset a formula only
when it comes into view."""
from __future__ import annotations


def test_the_print_page_typesets_every_formula(visit):
    page = visit().open("/print_page/")
    counts = page.evaluate("""() => { const all = [...document.querySelectorAll('.arithmatex')];
        return [all.length, all.filter(e => !e.querySelector('mjx-container')).length]; }""")
    assert counts[0] > 500 and counts[1] == 0, counts
    assert page.evaluate("window.mathjaxErrors") == []
