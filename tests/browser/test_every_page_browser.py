"""Every page of the book in a real browser, under every heads choice
(Debian's chromium, the site served on 127.0.0.1 only; fixtures in
conftest.py): no TeX left untypeset in what the reader sees, and at
1280 px every table and formula fits the text column."""
import pytest

from toycalc.book.example import Example

# Visible text nodes outside code and typeset math: a backslash command,
# \( \[ or $$ there is TeX that MathJax never saw.
RAW_TEX = r"""() => {
    const skip = 'PRE, CODE, SCRIPT, STYLE, MJX-CONTAINER, .md-clipboard';
    const found = [];
    const walk = (n) => { for (const c of n.childNodes) {
        if (c.nodeType === 3) {
            if (/\\[a-zA-Z]+|\\[(\[]|\$\$/.test(c.data) && c.parentElement.checkVisibility())
                found.push(c.data.trim().slice(0, 80));
        } else if (c.nodeType === 1 && !c.matches(skip)) walk(c);
    } };
    walk(document.querySelector('article'));
    return found;
}"""

# Tables and display formulas wider than the article's text column: a
# table overflows the scrolling box Material wraps it in (which reaches
# 0.8rem into the margins), a formula its own box. Left out: the path's
# panels (their own test).
TOO_WIDE = r"""() => {
    const column = document.querySelector('article').clientWidth;
    const box = el => el.closest('.md-typeset__scrollwrap') || el;
    return [...document.querySelectorAll('article table, article div.arithmatex')]
        .filter(el => el.checkVisibility() && !el.closest('.path'))
        .filter(el => box(el).scrollWidth > Math.max(box(el).clientWidth, column) + 1)
        .map(el => [el.id || el.textContent.trim().slice(0, 40), Math.round(el.scrollWidth)]);
}"""


def every_page(site):
    """Every page a reader reaches from the nav, and Home. The print page,
    every chapter again on one page, has tests of its own
    (test_print_browser.py; test_reader_conventions_browser.py prints it)."""
    return sorted("/" + p.parent.relative_to(site).as_posix() + "/"
                  for p in site.rglob("index.html") if p.parent not in (site, site / "print_page")) + ["/"]


@pytest.fixture(scope="module")
def heads_choices(toy):
    return Example(toy).heads_choices


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_no_raw_tex_and_nothing_too_wide(visit, site, toy, heads):
    """The heads choice is the reader's, kept in localStorage, so every page
    opens with it; the column is 720 px wide at 1280 px."""
    visitor = visit()
    visitor.context.add_init_script(f"localStorage.setItem('toycalc.heads', '{heads}')")
    raw, wide = {}, {}
    paths = every_page(site)
    if heads != Example(toy).n_heads:     # the default's walk reads every page; the others, those that change
        paths = [p for p in paths if 'class="heads-variant"' in (site / p.strip("/") / "index.html").read_text()]
    for path in paths:
        page = visitor.open(path)
        if page.locator(".heads-chooser").count():
            assert page.locator(f'.heads-chooser input[value="{heads}"]').first.is_checked(), path
        visitor.typeset_shown()  # a formula is typeset when it comes into view: bring each there
        if found := page.evaluate(RAW_TEX):
            raw[path] = found
        if found := page.evaluate(TOO_WIDE):
            wide[path] = found
    assert len(paths) > (20 if heads == Example(toy).n_heads else 4), paths
    assert raw == {}, f"raw TeX with {heads} heads: {raw}"
    assert wide == {}, f"wider than the text column with {heads} heads: {wide}"
