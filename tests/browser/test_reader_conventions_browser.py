"""What a reader of a Material site expects, in chromium: the light and dark
schemes (system preference first, then the toggle) with no serious
accessibility violation in either, the glossary's lines on hover and
focus, edit links that make no outside request, search, the table of
contents following the scroll, the code copy button, the nav on a phone.
The whole book printed: test_print_browser.py. Fixtures chromium, server
and visit: conftest.py; the built HTML: tests/site/test_reader_conventions.py."""
import re

import pytest

from conftest import FORK, axe_violations
from tests.browser.probes import ARTICLE, BUTTON_CONTRAST, FRAMES, LEAVING, arrived

from toycalc.book.example import Example


def scheme_of(page):
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def variable(page, name):
    return page.evaluate(f"getComputedStyle(document.body).getPropertyValue('{name}').trim()")


def test_the_scheme_follows_the_system_then_the_toggle(visit):
    v = visit(scheme="dark")
    page = v.open("/nano-gpt/self-attention/")
    assert scheme_of(page) == "slate"
    dark = {n: variable(page, n) for n in ("--toy-neg", "--toy-pos", "--toy-ink", "--toy-nano-strength")}
    cell = page.locator("td.nano-pos").first
    dark_cell = cell.evaluate("c => [getComputedStyle(c).backgroundColor, getComputedStyle(c).color]")
    page.locator("label[title='Switch to the light scheme']").click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'default'")
    light = {n: variable(page, n) for n in dark}
    assert all(dark[n] and light[n] and dark[n] != light[n] for n in dark), (dark, light)
    assert cell.evaluate("c => [getComputedStyle(c).backgroundColor, getComputedStyle(c).color]") != dark_cell
    # the choice is kept on the next page, over the system's preference
    page.goto(v.base + "/toy/attention/")
    assert scheme_of(page) == "default"


def test_a_placeholder_reads_in_the_dark_scheme(visit):
    """nano-gpt's letter fields show their format as a placeholder
    ("C B A B B C"); in the dark scheme the browser's grey read at 2.4:1
    against the field. Every placeholder reads at 4.5:1: the sorter's field
    (the Introduction) and the follow field (a page without a sorter)."""
    v = visit(375, scheme="dark")
    ratios = []
    for path in ("/nano-gpt/", "/nano-gpt/embedding/"):
        page = v.open(path)
        page.wait_for_selector("#nano-follow-letters")
        ratios += page.evaluate(PLACEHOLDERS)
    assert len(ratios) >= 2, ratios
    assert all(r >= 4.5 for _, r in ratios), ratios


# The contrast of each shown placeholder of the article with its field: [id, ratio].
PLACEHOLDERS = """() => {
      const rgba = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
      const L = (rgb) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]); };
      return [...document.querySelectorAll('article input[placeholder]')].filter((el) => el.checkVisibility()).map((el) => {
        const bg = rgba(getComputedStyle(el).backgroundColor);
        const ph = rgba(getComputedStyle(el, '::placeholder').color);
        const seen = [0, 1, 2].map((k) => ph[k] * ph[3] + bg[k] * (1 - ph[3]));   // the text over its field
        const [a, b] = [L(seen), L(bg)];
        return [el.id, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
      });
    }"""


@pytest.mark.parametrize("path", ["/", "/toy/attention/", "/end-to-end/"])
def test_no_serious_violation_on_a_dark_phone(visit, path):
    """On a phone the nav is a drawer, its sections (with their index pages)
    in the page though off screen: each needs a name of its own."""
    page = visit(375, scheme="dark").open(path)
    violations = axe_violations(page)
    assert [(x["id"], len(x["nodes"]), x["nodes"][0]["target"]) for x in violations
            if x["impact"] in ("serious", "critical", "moderate")] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


TERM_TIP = "#term-tip.fig-tip[role=tooltip]"


def shown_line(page):
    return " ".join(page.locator(TERM_TIP).inner_text().split())


def test_a_term_shows_its_definition_on_focus_and_on_hover(visit):
    """tips.js: a term's line in a box beside it, which describes it while
    shown (aria-describedby); the browser's own tooltip does not show it a
    second time (its title moves to data-title)."""
    page = visit().open("/toy/attention/")
    first = page.locator("article abbr[tabindex='0']").first
    definition = first.get_attribute("title")
    first.focus()
    page.locator(TERM_TIP).wait_for()
    assert shown_line(page) == definition
    assert first.get_attribute("aria-describedby") == "term-tip"
    assert first.get_attribute("title") is None and first.get_attribute("data-title") == definition
    # it closes when the focus moves on (to the next term's first use, whose line then shows)
    page.keyboard.press("Tab")
    page.wait_for_function("t => !t.hasAttribute('aria-describedby')", arg=first.element_handle())
    focused = page.evaluate("document.activeElement.matches('abbr') && document.activeElement.dataset.title")
    assert page.locator(TERM_TIP).count() == (1 if focused else 0)
    if focused:
        assert shown_line(page) == focused
    # a later use (not a tab stop) opens on hover, stays while the pointer
    # moves onto the box, closes once it leaves both, and on Escape
    page.mouse.move(0, 0)
    later = page.locator("article abbr:not([tabindex]) >> visible=true").nth(2)
    later.scroll_into_view_if_needed()
    definition = later.get_attribute("title")
    later.hover()
    page.locator(TERM_TIP).wait_for()
    assert shown_line(page) == definition and later.get_attribute("aria-describedby") == "term-tip"
    box = page.locator(TERM_TIP).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)
    page.wait_for_timeout(400)
    assert page.locator(TERM_TIP).count() == 1
    page.mouse.move(0, 0)
    page.wait_for_selector(TERM_TIP, state="detached")
    later.hover()
    page.locator(TERM_TIP).wait_for()
    page.keyboard.press("Escape")
    page.wait_for_selector(TERM_TIP, state="detached")


def test_a_term_shows_its_definition_on_a_tap(visit):
    """The glossary says a term's line appears on a tap too: on a phone's
    touch screen, the first use of a term (a tab stop) and a later one."""
    v = visit(375, touch=True)
    said = v.open("/glossary/").locator("article").inner_text()
    assert "point at it, tap it, or reach it with the keyboard" in " ".join(said.split())
    page = v.open("/toy/attention/")
    for term in (page.locator("article abbr[tabindex='0'] >> visible=true").first,
                 page.locator("article abbr:not([tabindex]) >> visible=true").nth(2)):
        term.scroll_into_view_if_needed()
        definition = term.get_attribute("title") or term.get_attribute("data-title")
        term.tap()
        page.wait_for_function("t => t.getAttribute('aria-describedby') === 'term-tip'", arg=term.element_handle())
        assert definition and shown_line(page) == definition
        # the box lies on the screen, beside the term
        box, at = page.locator(TERM_TIP).bounding_box(), term.bounding_box()
        below, above = abs(box["y"] - (at["y"] + at["height"])) < 12, abs(box["y"] + box["height"] - at["y"]) < 12
        assert 0 <= box["x"] and box["x"] + box["width"] <= 375 and (below or above), (box, at)


def test_a_title_cut_short_in_the_nav_shows_whole_on_hover(visit):
    """Material's script, as shipped, gives the link of a title cut short
    (…) its whole title, for the browser to show; a title that fits has
    none. (The nav is made narrow before the page's scripts run.)"""
    v = visit()
    v.page.add_init_script("""document.addEventListener('DOMContentLoaded', () => document.head.append(Object.assign(
        document.createElement('style'), {textContent: '.md-sidebar--primary .md-nav__item--active > .md-nav__link ~ nav .md-ellipsis {display: block; width: 3em}'})))""")
    page = v.open("/toy/attention/")
    cut = page.locator(".md-sidebar--primary .md-nav__item--active > .md-nav__link ~ nav .md-ellipsis >> visible=true").first
    whole = cut.inner_text()
    page.wait_for_function("e => (e.closest('a') || e).title", arg=cut.element_handle())
    assert cut.evaluate("e => (e.closest('a') || e).title") == whole
    fits = page.locator(".md-sidebar--primary .md-nav__item--active > .md-nav__link .md-ellipsis >> visible=true").first
    assert fits.evaluate("e => e.offsetWidth >= e.scrollWidth && !(e.closest('a') || e).title")


def test_edit_and_view_links_ask_nothing_of_another_host(visit):
    """The repository link would make Material ask GitHub's API for stars
    (an outside request; the visit fixture fails on any)."""
    page = visit().open("/toy/embedding/")
    edit = page.locator("a.md-content__button[rel=edit]")
    assert edit.is_visible() and edit.get_attribute("href") == f"{FORK}/edit/trunk/docs/toy/embedding.md"
    assert page.locator("a.md-source").first.get_attribute("href") == FORK
    page.wait_for_timeout(1000)   # time for a repository-facts request, were it made


def test_without_javascript_the_formulas_come_typeset(chromium, server):
    """The formulas are typeset at build (toycalc/site/typeset.py): a reader
    without JavaScript, or before any script runs, sees each drawn, with
    its size and its glyphs, and neither MathJax's script nor its fonts
    come."""
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(server + "/toy/attention/")
    formulas = page.evaluate("""[...document.querySelectorAll('article .arithmatex')]
        .filter((el) => el.checkVisibility())
        .map((el) => {
          const svg = el.querySelector('mjx-container > svg');
          const glyphs = svg ? [...svg.querySelectorAll('use')] : [];
          return [el.dataset.tex, svg ? svg.getBoundingClientRect().width : 0,
                  glyphs.length > 0 && glyphs.every((u) => u.getBBox().width > 0)];
        })""")
    assert len(formulas) > 30
    assert [tex for tex, width, drawn in formulas if width < 5 or not drawn] == []
    assert not [url for url in requested if url.endswith("/mathjax.js") or url.endswith(".woff")]
    context.close()


def test_a_kept_visit_is_reset_as_a_new_context_would_be(visit, toy):
    """The visit fixture hands a file's tests one page of each kind, reset
    between them (Visit.reset): nothing a test stored, asked or logged
    reaches the next, and a second visit of a kind in one test is its own."""
    ex = Example(toy)
    default = ex.n_heads
    other = next(h for h in ex.heads_choices if h != default)
    v = visit()
    page = v.open("/end-to-end/")
    page.locator(f'.heads-chooser[data-ready] input[value="{other}"]').first.check()
    page.evaluate("sessionStorage.setItem('nanogpt-followed', 'C B A B B C')")
    assert page.evaluate("Object.keys(localStorage).length") > 0
    v.errors.append("a logged error")
    v.outside.append("https://example.org/")
    v.reset()
    assert (v.errors, v.outside) == ([], [])
    page = v.open("/end-to-end/")
    assert page.locator(f'.heads-chooser input[value="{default}"]').first.is_checked()
    assert page.evaluate("sessionStorage.getItem('nanogpt-followed')") is None
    second = visit()
    assert second is not v and second.context is not v.context


def test_the_browser_asks_no_other_host_and_a_visit_records_who_tried(visit):
    """What test_edit_and_view_links_ask_nothing_of_another_host leans on:
    a request for another host fails in the browser (conftest's host
    rules) and the visit records it."""
    v = visit()
    page = v.open("/")
    failed = page.evaluate("""() => fetch('https://api.github.com/repos/a/b', {mode: 'no-cors'})
        .then(() => 'answered', (error) => 'failed')""")
    assert failed == "failed"
    assert v.outside == ["https://api.github.com/repos/a/b"]
    v.outside.clear()      # what the fixture would fail on: seen here on purpose
    v.errors[:] = [e for e in v.errors if "api.github.com" not in e and "ERR_NAME_NOT_RESOLVED" not in e]


SEARCH_INDEX = "() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/search/search_index.json')).length"


@pytest.mark.parametrize("width", [1280, 375])
def test_search_suggests_and_highlights(visit, width):
    page = visit(width).open("/")
    page.wait_for_selector("body[data-mathjax=done][data-started]")
    if width < 1220:
        page.locator("label.md-header__button[for=__search]").click()
    page.locator("input.md-search__input").click()
    page.keyboard.type("softm")
    # the worker answers each keystroke in turn: wait for the answer to the
    # whole word, not to "s" or "so" (a race that failed once in .ci/run)
    page.wait_for_function("""() => {
        const link = document.querySelector('.md-search-result__item a');
        return link !== null && new URL(link.href).searchParams.get('h') === 'softm'
            && document.querySelector('.md-search__suggest').textContent.trim().startsWith('softmax');
    }""")
    page.evaluate(LEAVING)
    page.locator(".md-search-result__item a").first.click()
    page.wait_for_url(re.compile(r"\?h=softm"))
    # the address changes at the click, the page once it has come (instant
    # navigation): its article, then the search's marks in it (the search's
    # results, <article>s too, mark the words as well)
    arrived(page)
    page.wait_for_selector(f"{ARTICLE} mark[data-md-highlight]")
    assert page.locator(f"{ARTICLE} mark[data-md-highlight]").count() > 0
    # once the new page is laid out, nothing is wider than the screen
    page.wait_for_function("w => document.documentElement.scrollWidth <= w", arg=width)


def test_a_page_opened_at_a_search_s_highlights_shows_them(visit):
    """An address with ?h= (a search's result, shared or reloaded) shows
    its highlights without the reader touching the search."""
    page = visit().open("/toy/attention/?h=softmax")
    page.wait_for_selector("article mark[data-md-highlight]")
    assert page.evaluate(SEARCH_INDEX) == 1


def test_the_table_of_contents_follows_the_scroll(visit):
    page = visit().open("/toy/attention/")
    active = ".md-sidebar--secondary .md-nav__link--active"
    first = page.evaluate(f"document.querySelector('{active}')?.textContent.trim() ?? ''")
    last = page.locator("article h2").last
    last.scroll_into_view_if_needed()
    page.wait_for_function(f"(t) => (document.querySelector('{active}')?.textContent.trim() ?? '') !== t", arg=first)
    assert page.locator(active).inner_text().strip() == last.inner_text().replace("¶", "").strip()


@pytest.mark.parametrize("width", [1280, 375])
def test_a_formula_keeps_its_punctuation_on_its_line(visit, width):
    """"…and channels c." once put the full stop alone on the next line:
    a formula and the punctuation after it keep one line (pages.py)."""
    v = visit(width)
    page = v.open("/nano-gpt/embedding/")      # "… where it stands, P_4. Both are …"
    v.typeset_shown()
    # a box per piece, the formula's and the text's: on one line, each overlaps the first
    kept = page.evaluate("""() => [...document.querySelectorAll('article .math-nowrap')]
        .filter((el) => el.checkVisibility()).map((el) => {
          const [first, ...rest] = el.getClientRects();
          return [el.textContent, rest.every((r) => r.top < first.bottom && r.bottom > first.top)];
        })""")
    assert any(text.rstrip()[-1] in ".,;:" for text, _ in kept), kept
    assert [text for text, one_line in kept if not one_line] == []


@pytest.mark.parametrize("width", [1280, 375])
def test_code_blocks_have_a_copy_button(visit, width):
    page = visit(width).open("/contributing/")
    button = page.locator("pre .md-code__button[data-md-type=copy]").first
    assert button.is_visible() and button.get_attribute("title") == "Copy to clipboard"
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_nav_on_a_phone(visit):
    page = visit(375).open("/toy/tokens/")
    page.locator("label.md-header__button[for=__drawer]").click()
    nav = page.locator("nav.md-nav--primary")
    nav.wait_for()
    sections = [t.strip() for t in nav.locator(":scope > ul > li > label, :scope > ul > li > div > a, "
                                               ":scope > ul > li > a").all_inner_texts()]
    assert sections.index("The toy model") < sections.index("nano-gpt")
    assert "Writing for the book" not in nav.inner_text()
    footer = page.locator(".book-footer-links a")
    assert footer.all_inner_texts() == ["The whole book, to print", "Writing for the book"]
    # previous and next at the foot of the page
    assert page.locator(".md-footer__link--next").get_attribute("aria-label") == "Next: Embedding"


PERMALINK_ALONE = """() => [...document.querySelectorAll('article :is(h1, h2, h3, h4, h5, h6)')].map(h => {
  const a = h.querySelector(':scope > .headerlink');
  if (!a || !h.getClientRects().length) return null;
  const text = document.createRange();
  text.setStart(h, 0);
  text.setEndBefore(a);
  const last = Math.max(...[...text.getClientRects()].map(r => r.top));
  return a.getBoundingClientRect().top - last > 5 ? h.textContent.trim() : null;
}).filter(Boolean)"""


@pytest.mark.parametrize("path", ["/toy/attention/", "/nano-gpt/self-attention/", "/nano-gpt/", "/end-to-end/"])
def test_the_permalink_sign_never_wraps_a_heading_on_a_phone(visit, path):
    """At 375 px a heading's ¶ stays on the line of its last word: "The toy
    model: Attention" took two lines for its ¶ alone (issue #25)."""
    page = visit(375).open(path)
    assert page.evaluate(PERMALINK_ALONE) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path, opener, button", [
    ("/", None, ".home-answer .md-button:not(.md-button--primary)"),
    ("/", None, ".home-answer .md-button--primary"),
    ("/writer/write/", "[data-writer-start]", "[data-writer-write]"),
])
def test_a_buttons_label_reads_at_rest_under_the_pointer_and_focused(visit, scheme, path, opener, button):
    """Material fills a button under the pointer or the focus in the accent
    colour and writes on it in white (4.3:1); the book's plain buttons, in
    the links' colour at rest, even wrote that colour on the fill (1.2:1)."""
    page = visit(scheme=scheme).open(path)
    page.wait_for_selector("body[data-started]")
    if opener:
        page.locator(opener).click()
    target = page.locator(button).first
    target.wait_for()
    target.scroll_into_view_if_needed()
    page.evaluate(FRAMES)
    assert target.evaluate(BUTTON_CONTRAST) >= 4.5
    target.hover()
    page.wait_for_function(f"(b) => ({BUTTON_CONTRAST})(b) >= 4.5 && getComputedStyle(b).backgroundColor "
                           "!== 'rgba(0, 0, 0, 0)'", arg=target.element_handle(), timeout=5000)
    page.mouse.move(0, 0)
    target.focus()
    page.wait_for_function(f"(b) => ({BUTTON_CONTRAST})(b) >= 4.5 && getComputedStyle(b).backgroundColor "
                           "!== 'rgba(0, 0, 0, 0)'", arg=target.element_handle(), timeout=5000)
