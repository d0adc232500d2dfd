"""The nano-gpt chapter in a real browser (Debian's chromium, the site
served on 127.0.0.1 only): formulas typeset, no serious accessibility
violation, no overflow on a phone, and a cell's value reachable by keyboard.
Fixtures chromium, server and visit: conftest.py."""
import pytest

from conftest import axe_violations

PAGES = ["", "preliminaries/", "embedding/", "layer-norm/", "self-attention/", "projection/", "mlp/",
         "transformer/", "softmax/", "output/", "train/"]


@pytest.mark.parametrize("path", PAGES)
def test_every_chapter_page_on_a_phone(visit, path):
    v = visit(width=375)
    page = v.open("/nano-gpt/" + path)
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    v.typeset_shown()
    untypeset, tex_errors = page.evaluate("""() => {
        const all = [...document.querySelectorAll('.arithmatex')];
        return [all.filter(m => !m.querySelector('mjx-container')).length, window.mathjaxErrors];
    }""")
    assert untypeset == 0 and tex_errors == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    violations = axe_violations(page)
    assert [(v["id"], len(v["nodes"]), [n["target"] for n in v["nodes"]]) for v in violations if v["impact"] != "minor"] == []


def test_a_cell_says_its_value_on_focus(visit):
    page = visit().open("/nano-gpt/self-attention/")
    # the page follows block 1's head 2 (the head that finds the smallest letter)
    cell = page.locator("#nano-attention-1-2 td.nano-cell[tabindex='0']").first
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
