"""The page's code, as native ES modules under Material's instant
navigation: a page reached by the site's own links (no reload) starts its
code once for that view, and each module is fetched once in the visit."""
from __future__ import annotations

import re
from collections import Counter

import pytest

# a shown link to the page itself, not to a place in this one; the article
# marked first, since the address changes before the content does
FOLLOW = """(path) => {
  document.querySelector('article').dataset.left = '1';
  [...document.querySelectorAll('a')].find((a) => new URL(a.href).pathname === path && !new URL(a.href).hash
                                            && a.getClientRects().length).click();
}"""
FETCHED = """() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
  .filter((p) => /^\\/javascripts\\/[\\w-]+\\.js$/.test(p))"""


def follow(page, path: str) -> None:
    """A click on a shown link of the page to `path`, as a reader's; back
    when the new page's article is in place."""
    page.evaluate(FOLLOW, path)
    page.wait_for_url(re.compile(re.escape(path) + "$"))
    page.wait_for_selector("article:not([data-left])")


def test_a_page_viewed_again_starts_its_code_once_and_fetches_nothing_again(visit):
    v = visit()
    page = v.open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    page.locator("#toy-training-details > summary").click()     # the editor and the trainer come
    page.wait_for_selector("[data-toy-trainer][data-ready]:not([hidden])")
    page.evaluate("window.__sameDocument = true")      # gone if a link reloaded the page
    follow(page, "/toy/training/")
    page.wait_for_selector("[data-toy-trainer][data-ready]:not([hidden])")
    follow(page, "/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    page.locator("#toy-training-details > summary").click()
    page.wait_for_selector("#sim-trainer[data-ready]:not([hidden])")
    assert page.evaluate("window.__sameDocument") is True
    # one simulator, one editor, one trainer: the view's parts set up once each
    for part in ("#sim-text", "#sim-editor", "#toy-training-details", "#sim-next", "#sim-edit-E",
                 "#toy-training-one"):
        assert page.locator(part).count() == 1, part
    before = page.locator("#sim-next").text_content()
    page.fill("#sim-text", "the dog")          # and it runs
    page.wait_for_function("(before) => document.querySelector('#sim-next').textContent !== before", arg=before)
    fetched = Counter(page.evaluate(FETCHED))
    assert {"/javascripts/book.js", "/javascripts/simulator.js", "/javascripts/toy_training.js",
            "/javascripts/weights_editor.js"} <= set(fetched)
    assert [name for name, n in fetched.items() if n > 1] == []


def test_nano_gpts_pages_start_their_parts_on_each_view(visit):
    v = visit()
    page = v.open("/nano-gpt/")
    for path in ("/nano-gpt/output/", "/nano-gpt/"):
        page.wait_for_selector("[data-nano-sort]:not([hidden]) input")
        follow(page, path)
    page.wait_for_selector("[data-nano-sort]:not([hidden]) input")
    assert page.locator("[data-nano-sort] input").count() == 1
    fetched = Counter(page.evaluate(FETCHED))
    assert fetched["/javascripts/letters.js"] == 1 and fetched["/javascripts/simulator.js"] == 0


def test_mathjax_comes_only_for_the_formulas_a_script_makes(visit):
    """The book's formulas come drawn (toycalc/site/typeset.py), their
    stylesheet with every page, through instant navigation too: no page
    fetches MathJax, nor its fonts, to show them. Letters the reader has
    nano-gpt follow make new formulas: then MathJax comes, once, and sets
    them, with its fonts."""
    v = visit()
    page = v.open("/")
    fetched = """(end) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(end)).length"""
    assert page.evaluate(FORMULAS_CSS) == 1
    follow(page, "/toy/")
    follow(page, "/toy/embedding/")
    assert page.locator("article mjx-container > svg").count() > 3
    assert page.evaluate(FORMULAS_CSS) == 1
    follow(page, "/nano-gpt/self-attention/")   # a page of another depth
    assert page.evaluate(FORMULAS_CSS) == 1
    # each page's glyphs with it, after its article
    assert page.evaluate("""() => [...document.querySelectorAll('article mjx-container use')]
        .every((u) => document.getElementById(u.getAttribute('xlink:href').slice(1)))""")
    live = "article .arithmatex[data-nano-live]"
    before = page.locator(live).first.inner_html()
    assert "<mjx-container" in before
    assert page.evaluate(fetched, "/mathjax.js") == 0 and page.evaluate(fetched, ".woff") == 0
    field = page.get_by_label("Letters for this chapter to follow", exact=True)
    field.fill("cccaab")
    field.press("Enter")
    # the letters followed, then MathJax done with their formulas (before them,
    # .nano-followed names the book's example and data-mathjax is done: a
    # wait for those two alone ended at once, the page not yet drawn again)
    page.wait_for_function("() => document.querySelector('.nano-followed')?.textContent === 'C C C A A B'")
    page.wait_for_selector("body[data-mathjax=done]")
    page.wait_for_function(f"""() => [...document.querySelectorAll('{live}')]
        .every((el) => el.querySelector('mjx-container'))""")
    assert page.locator(live).first.inner_html() != before
    assert page.evaluate(fetched, "/mathjax.js") == 1
    page.wait_for_function("() => [...document.fonts].some((f) => f.family === 'MJXTEX' && f.status === 'loaded')")


# formulas.css: linked once, in the head
FORMULAS_CSS = """() => [...document.querySelectorAll('link[rel=stylesheet]')]
    .filter((l) => l.href.endsWith('/javascripts/mathjax/formulas.css')).length"""


def test_the_pages_stylesheets_are_parsed_once_and_kept_by_instant_navigation(visit):
    """Material's instant navigation makes every relative href of the page
    absolute at its load, a stylesheet's too, and chromium parses each again
    and restyles every element. The build writes the head's links absolute
    (page_speed.with_head_links_absolute): they keep the href the build
    wrote, and a page of another depth reached by the site's own link keeps
    the same stylesheets, each once, styled."""
    v = visit()
    page = v.open("/toy/attention/")
    page.wait_for_selector("body[data-mathjax=done][data-started]")
    links = "() => [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => [l.getAttribute('href'), l.href])"
    written = page.evaluate(links)
    assert len(written) >= 8 and all(attribute == href and href.startswith(v.base) for attribute, href in written), written
    before = page.evaluate("() => [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => (l.kept = true, l.href))")
    follow(page, "/end-to-end/")   # one folder up, with the playground's stylesheets besides
    after = page.evaluate("() => [...document.querySelectorAll('link[rel=stylesheet]')].map((l) => [l.href, !!l.kept])")
    assert [href for href, kept in after if kept] == before, after        # the same elements, each once
    root = before[0].split("/assets/")[0] + "/stylesheets/"
    assert [href for href, kept in after if not kept] == [root + name for name in
                                                          ("simulator.css", "weights_editor.css", "toy_training.css")]
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"


COLOR_SCHEMES = """() => [[...document.querySelectorAll('meta[name=color-scheme]')].map((m) => m.content),
                          getComputedStyle(document.querySelector('.md-header')).colorScheme]"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_scheme_and_its_color_scheme_meta_are_the_readers_from_the_first_paint(visit, scheme):
    """The header's toggle is ours (overrides/partials/palette.html,
    scheme.js): its script shows the system's scheme, with one
    <meta name="color-scheme">, before the first paint; the toggle switches
    both, Material's files as shipped never mark the body as switching, and
    the choice holds after a reload and on the next page."""
    v = visit(scheme=scheme)
    page = v.open("/toy/")
    first = "dark" if scheme == "dark" else "light"
    page.evaluate("""() => { window.marked = 0; new MutationObserver((changes) => { window.marked += changes.filter(
        (c) => c.attributeName === 'data-md-color-switching').length; }).observe(document.body, {attributes: true}); }""")
    assert page.evaluate(COLOR_SCHEMES) == [[first], first]
    page.locator("[data-scheme-toggle] label:not([hidden])").click()
    other = "light" if first == "dark" else "dark"
    page.wait_for_function(f"() => ({COLOR_SCHEMES})()[1] === '{other}'")
    assert page.evaluate(COLOR_SCHEMES) == [[other], other]
    assert page.evaluate("window.marked") == 0
    assert page.locator("[data-scheme-toggle] label:not([hidden])").get_attribute("title") == \
        f"Switch to the {first} scheme"
    page.reload()
    page.wait_for_selector("body[data-mathjax=done][data-started]")
    assert page.evaluate(COLOR_SCHEMES) == [[other], other]
    follow(page, "/toy/attention/")
    assert page.evaluate(COLOR_SCHEMES) == [[other], other]