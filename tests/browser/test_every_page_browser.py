"""Every page of the book in a real browser (Debian's chromium, the site
served on 127.0.0.1 only; fixtures in conftest.py), read on one load each:
a tour of every page at 1280 px in the light scheme, switched to the
dark one by its toggle once read, and one at 375 px (a phone), each
running every per-page check of this file on each page as it goes
(probes.py holds the queries), then one test per check reads what the
tour found. One load per page and width instead of one per check: the
checks were seven sweeps of the whole book, the same pages opened again
by each.

What is checked on every page: nothing moves while it loads and its
scripts set up (the layout shift, at most 0.05, both widths); no TeX
left untypeset in what the reader sees and, at 1280 px, every table and
formula fits the text column (under each heads choice: the default's
tour reads every page, 1 and 4 heads the pages they change); axe finds
nothing above minor (at 1280 px every rule but those that read colours,
which it runs on one page of each kind, in both schemes; at 375 px its
rules that read the layout on nano-gpt's pages and the figures' pages);
the "you are here" map on each chapter page; no figure's label on
another or past its drawing's edge (both widths); every figure text at 4.5:1
in both schemes and at 11 px or more on a phone; on a phone a token
never breaks inside itself nor is set under 11 px in a table, a code
block's copy button covers none of its text, a display formula wider
than the column scrolls and shows it (a shadow inside the edge where
more is hidden: pixels of a screenshot, at both ends of the scroll), and
nothing is wider than the screen; no page logs an error or asks anything
of another host, and each page's toggle switches it to the dark scheme
and back."""
from __future__ import annotations

import pytest

from conftest import axe_violations
from tests.browser import probes
from toycalc.book import minimap
from toycalc.book.example import Example
from toycalc.book.model_drawing import PARTS
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show

GOAL_SHIFT = 0.05
PHONE = 375


def has_figure(site, path) -> bool:
    return 'class="fig' in (site / path.strip("/") / "index.html").read_text(encoding="utf-8")


def chapter_page(path) -> tuple[str, str] | None:
    """(chapter, page name) for a page of the toy's, nano-gpt's or the writer's chapter, else None."""
    for chapter, names in probes.CHAPTERS:
        for name in names:
            if path == (f"/{chapter}/{name}/" if name else f"/{chapter}/"):
                return chapter, name
    return None


def figures_in_column(page, names) -> list:
    """Each named figure's drawings: how far inside the text column, their width and marks."""
    return [page.evaluate("""name => {
        const column = document.querySelector('.md-content__inner').getBoundingClientRect();
        return [...document.querySelectorAll(`figure[data-figure="${name}"] svg`)].map(svg => {
            const r = svg.getBoundingClientRect();
            return {left: r.left - column.left, right: column.right - r.right, width: r.width,
                    marks: svg.querySelectorAll('title').length};
        });
    }""", name) for name in names]


# The rules of axe that read colours (three quarters of its time): the
# desktop tour runs them on one page of each kind (probes.MAIN_PAGES), in
# the light scheme and again in the dark, and nothing else in the dark (the
# other rules read the same page in either scheme); the phone's all but
# these (a text's colours are the same at any width).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def serious(page, levels=("serious", "critical", "moderate"), rules=None, skip=None) -> list:
    """axe's findings above minor (of these rules, when given; without the
    rules to skip), at the top of the page: the probes before it scrolled,
    and what Material fades on a scroll was read half-faded (axe_violations
    waits for the fades once they have started)."""
    page.evaluate("window.scrollTo(0, 0)")
    # Material reacts to the scroll a frame later: the button hides, the
    # header's title swaps back from the page's to the site's
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))")
    page.wait_for_function("() => { const top = document.querySelector('.md-top'); return !top || top.hidden; }")
    return [(v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["target"])
            for v in axe_violations(page, rules, skip) if v["impact"] in levels]


def switch_scheme(page) -> str:
    """The header's toggle (the one of its two labels shown), clicked as a
    reader would: the scheme the page then shows (scheme.js switches it at
    once)."""
    page.locator("[data-scheme-toggle] label:not([hidden])").click()
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def read_dark(page, path, figures) -> dict:
    """The page at rest switched to the dark scheme by its toggle, as a
    reader would, and back: every colour of the site is CSS (no script
    reads one), so a page switched shows what one opened dark does
    (test_reader_conventions_browser.py opens pages dark), without a
    third load of every page."""
    seen = {"scheme": switch_scheme(page)}
    if figures:
        seen["contrasts"] = page.evaluate(probes.CONTRASTS)
    if path in probes.MAIN_PAGES:
        seen["axe"] = serious(page, rules=COLOUR_RULES)
    seen["scheme back"] = switch_scheme(page)
    return seen


def read_page(v, site, path, width, tokens) -> tuple[dict, dict | None]:
    """Every check of the tour on one page, in an order that keeps each
    honest: the layout shift before anything scrolls or opens; the map as
    the page opens; then the formulas brought into view and typeset; axe
    last, on the page at rest; at 1280 px, then the dark scheme's colours.
    Returns what was seen, and (at 1280 px) what was seen in the dark."""
    seen, page = {}, v.open(path)
    nano = path.startswith("/nano-gpt/")
    # the layout shift, once the page's own scripts (simulator, letters,
    # trainer) and Material's have set up after MathJax: a page still
    # changing 5 s on is an error of the tour
    page.wait_for_function(probes.SETTLED, polling=50, timeout=5000)
    seen["shift"] = page.evaluate("window.__shift")
    seen["elements"] = page.evaluate("document.getElementsByTagName('*').length")   # at load, set up
    seen["article shown"] = page.locator("article").is_visible()
    if chapter_page(path):
        seen["map"] = page.evaluate(probes.READ)
    figures = has_figure(site, path)
    v.typeset_shown()      # a formula is typeset when it comes into view: bring each there
    seen["raw tex"] = page.evaluate(probes.RAW_TEX)
    seen["mathjax errors"] = page.evaluate(probes.MATHJAX_ERRORS)
    if path in probes.NANO_FIGURES:
        seen["nano figures"] = figures_in_column(page, probes.NANO_FIGURES[path])
    seen["page width"] = page.evaluate("document.documentElement.scrollWidth")
    seen["labels"] = page.evaluate(probes.LABELS)
    if width == PHONE:
        if nano:
            seen["untypeset"] = page.evaluate(
                "[...document.querySelectorAll('.arithmatex')].filter(m => !m.querySelector('mjx-container')).length")
        seen["broken tokens"] = page.evaluate(probes.BROKEN_TOKENS, tokens)
        seen["small chips"] = page.evaluate(probes.SMALL_CHIPS)
        seen["under copy"] = page.evaluate(probes.UNDER_COPY)
        seen["wide formulas"] = probes.phone_formulas(page)
        seen["clipped formulas"] = page.evaluate(probes.CLIPPED_FORMULAS)
        seen["wide tables"] = page.evaluate(probes.WIDE_TABLES)
        if figures:
            seen["sizes"] = page.evaluate(probes.RENDERED_SIZES)
            # a drawing that scrolls sideways inside a box of its own (the whole model's drawing,
            # the chapter map on a phone, as one piece; the writer's strips in their table's box):
            # that box's right edge
            seen["figures past the screen"] = page.locator("svg.fig").evaluate_all(
                "svgs => svgs.filter(s => s.getClientRects().length && "
                "(s.closest('.map-bands, .model-bands, .md-typeset__scrollwrap') || s)"
                ".getBoundingClientRect().right > 376).length")
        if nano or path in probes.NANO_FIGURES:
            seen["axe"] = serious(page, skip=COLOUR_RULES)
        return seen, None
    seen["too wide"] = page.evaluate(probes.TOO_WIDE)
    # a formula wider than its box at full size (a phone scrolls it instead)
    seen["cut formulas"] = page.evaluate("""() => [...document.querySelectorAll('div.arithmatex')]
        .filter(el => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
        .map(el => el.textContent.slice(0, 60))""")
    if figures:
        seen["contrasts"] = page.evaluate(probes.CONTRASTS)
    seen["axe"] = serious(page, skip=None if path in probes.MAIN_PAGES else COLOUR_RULES)
    return seen, read_dark(page, path, figures)


# Each tour's width; the dark one is read on the desktop tour's loads.
TOURS = {"desktop": 1280, "phone": PHONE, "dark": 1280}


@pytest.fixture(scope="module")
def tours(chromium, server, site, toy):
    """tours(name) -> {path: what read_page saw there}, each tour taken
    once, when a test first asks for it (a check that fails to run is kept
    as its error, for the tests that read it); the dark one comes with the
    desktop one. tours.logged[name]: what each tour's pages logged as
    errors and asked of another host (Visit records both)."""
    from conftest import Visit
    taken: dict = {}
    tokens = [show(t) for t in toy.vocab]

    def take(name):
        tour = "desktop" if name == "dark" else name
        if tour not in taken:
            v = Visit(chromium, server, TOURS[tour])
            v.context.add_init_script(probes.OBSERVE)
            light, dark, errors, outside = {}, {}, [], []
            for path in probes.every_page(site):
                try:
                    light[path], in_dark = read_page(v, site, path, TOURS[tour], tokens)
                    if in_dark is not None:
                        dark[path] = in_dark
                except Exception as error:       # noqa: BLE001 (kept for the tests to report)
                    light[path] = dark[path] = {"error": f"{type(error).__name__}: {error}"}
                    errors += v.errors           # (reset forgets them)
                    outside += v.outside
                    v.reset()                    # the next page opens light, as the others do
            taken[tour] = light
            if tour == "desktop":
                taken["dark"] = dark
            take.logged[tour] = {"errors": errors + v.errors, "outside": outside + v.outside}
            v.context.close()
        return taken[name]
    take.logged = {}
    return take


def found(tour: dict, key: str, keep=lambda value: value) -> dict:
    """What the tour saw under key, on the pages where keep(value) is truthy,
    and every page where the tour stopped short (its error)."""
    out = {path: seen["error"] for path, seen in tour.items() if "error" in seen}
    out |= {path: keep(seen[key]) for path, seen in tour.items() if key in seen and keep(seen[key])}
    return out


def test_every_page_is_toured(tours, site):
    paths = probes.every_page(site)
    assert len(paths) > 25 and "/" in paths and "/toy/mlp/" in paths
    for name in TOURS:
        assert sorted(tours(name)) == sorted(paths), name
    # every page's toggle switches it to the dark scheme and back
    assert found(tours("dark"), "scheme", lambda scheme: scheme if scheme != "slate" else None) == {}
    assert found(tours("dark"), "scheme back", lambda scheme: scheme if scheme != "default" else None) == {}
    assert tours.logged == {tour: {"errors": [], "outside": []} for tour in ("desktop", "phone")}


# The elements a page holds at load, set up (#52): every element is work
# for each style recalculation and layout of a phone. A heads choice's
# blocks wait in a <template> until the reader picks it (render.by_heads);
# End to End's steps, and the writer's heads' maps far down its page, in a
# <noscript> until a step opens or the reader comes near (path.js).
ELEMENTS = 6_000


def test_every_page_holds_at_most_6000_elements_at_load(tours):
    """Counted at 1280 px, the page's scripts set up (the phone's count is
    the same markup)."""
    counts = found(tours("desktop"), "elements")
    over = {path: n for path, n in counts.items() if isinstance(n, str) or n > ELEMENTS}
    assert over == {}
    assert len(counts) >= 30 and counts["/end-to-end/"] > 3_000     # every page counted, the path's drawing in


@pytest.mark.parametrize("tour", ["desktop", "phone"])
def test_no_page_moves_while_its_scripts_set_up(tours, tour):
    """MathJax typesets the first screen's formulas before the article shows
    (mathjax-config.js, book.css): shown earlier, each formula grew from its
    TeX to its own size and moved the lines under it (0.13 on the toy's
    LayerNorm at 1280 px)."""
    seen = tours(tour)
    assert all("shift" in page or "error" in page for page in seen.values())
    assert found(seen, "shift", lambda s: round(s, 3) if s > GOAL_SHIFT else None) == {}, f"{tour}: pages move"
    assert found(seen, "article shown", lambda shown: not shown) == {}


@pytest.mark.parametrize("tour", ["desktop", "phone"])
def test_no_raw_tex_and_no_mathjax_error(tours, tour):
    seen = tours(tour)
    assert found(seen, "raw tex") == {}
    assert found(seen, "mathjax errors") == {}
    assert found(seen, "untypeset") == {}, "nano-gpt's formulas left untypeset on a phone"


def test_at_1280_every_table_and_formula_fits_the_column(tours):
    """The column is 720 px wide at 1280 px; a table may overflow into the
    scrolling box Material wraps it in, a formula not at all."""
    seen = tours("desktop")
    assert found(seen, "too wide") == {}
    assert found(seen, "cut formulas") == {}


@pytest.mark.parametrize("width", [1280, PHONE])
@pytest.mark.parametrize("heads", [1, 4])
def test_no_raw_tex_and_nothing_too_wide_under_other_heads(visit, site, toy, heads, width):
    """The heads choice is the reader's, kept in localStorage, so every page
    opens with it; the tours read every page under the default, this one
    the pages the choice changes: on a phone, no page wider than the
    screen, and the wide tables and formulas as the phone's tour reads them."""
    assert heads != Example(toy).n_heads
    visitor = visit(width, own_context=True)
    visitor.context.add_init_script(f"localStorage.setItem('{probes.HEADS_KEY}', '{heads}')")
    paths = [p for p in probes.every_page(site)
             if 'class="heads-variant"' in (site / p.strip("/") / "index.html").read_text(encoding="utf-8")]
    raw, wide, checked = {}, {}, 0
    for path in paths:
        page = visitor.open(path)
        if page.locator(".heads-chooser").count():
            assert page.locator(f'.heads-chooser input[value="{heads}"]').first.is_checked(), path
        visitor.typeset_shown()
        if tex := page.evaluate(probes.RAW_TEX):
            raw[path] = tex
        if width == PHONE:
            tables = page.evaluate(probes.WIDE_TABLES)
            checked += tables["checked"]
            too = tables["faults"] + page.evaluate(probes.CLIPPED_FORMULAS)
            if (page_width := page.evaluate("document.scrollingElement.scrollWidth")) > PHONE:
                too.append(("page width", page_width))
        else:
            too = page.evaluate(probes.TOO_WIDE)
        if too:
            wide[path] = too
    assert len(paths) > 4, paths
    assert raw == {}, f"raw TeX with {heads} heads: {raw}"
    assert wide == {}, f"too wide at {width} px with {heads} heads: {wide}"
    assert width != PHONE or checked > 10


@pytest.mark.parametrize("tour", ["desktop", "phone", "dark"])
def test_axe_finds_nothing_serious(tours, tour):
    """Above minor (the minor one left: a header cell holding only math reads
    as empty). The rules that read colours on one page of each kind, in
    both schemes; on a phone, the rules that read the layout on nano-gpt's
    pages and the figures' pages. Not the print page: it is every chapter
    again (axe there took as long as on all the rest), and
    test_print_browser reads it."""
    seen = tours(tour)
    assert len(found(seen, "axe", lambda v: True)) >= (25 if tour == "desktop" else 8)
    assert found(seen, "axe") == {}


@pytest.mark.parametrize("tour", ["desktop", "dark"])
def test_every_figure_text_keeps_its_contrast(tours, tour):
    seen, read = tours(tour), 0
    for path, texts in found(seen, "contrasts", lambda v: v or ["no figure text found"]).items():
        assert isinstance(texts, list), f"{path}: {texts}"
        read += 1
        assert texts != ["no figure text found"], path
        low = [(t["text"], round(t["ratio"], 2)) for t in texts if t["ratio"] < 4.5]
        assert low == [], f"{path} ({tour}): {len(low)} of {len(texts)} texts under 4.5:1, e.g. {low[:5]}"
    assert read > 15


def test_on_a_phone_no_figure_text_is_under_11_px_and_nothing_is_wider_than_the_screen(tours):
    seen = tours("phone")
    assert found(seen, "sizes", lambda sizes: [(t, round(px, 1)) for t, px in sizes if px < 11 - 1e-6]
                 or ([] if sizes else ["no figure text found"])) == {}
    assert len(found(seen, "sizes", lambda v: True)) > 15
    assert found(seen, "page width", lambda w: w if w > PHONE else None) == {}
    assert found(seen, "figures past the screen") == {}


@pytest.mark.parametrize("tour", ["desktop", "phone"])
def test_no_label_of_a_figure_covers_another_or_leaves_its_drawing(tours, tour):
    """Every figure's text, on every page at 1280 and 375 px: no two labels
    on each other, none past its drawing's edge (RoPE's k₁ sat on q₃ and
    its k₅ outside its plot; the toy's paired bars and GELU's values
    touched; the writer's 65 characters covered each other: issue 50)."""
    seen = tours(tour)
    assert found(seen, "labels", lambda v: v or None) == {}
    assert set(found(seen, "labels", lambda v: True)) == set(seen)     # read on every page


def test_on_a_phone_tokens_stay_whole_and_wide_formulas_show_they_scroll(tours):
    seen = tours("phone")
    assert found(seen, "broken tokens") == {}, f"tokens cut at {PHONE} px"
    assert found(seen, "small chips", lambda chips: chips[:3]) == {}, f"tokens in tables under 11 px at {PHONE} px"
    blocks = found(seen, "under copy", lambda v: v or None)
    assert blocks, "no code block: the copy button goes untested"
    assert {path: under for path, b in blocks.items() if (under := [t for block in b for t in block])} == {}
    formulas = found(seen, "wide formulas", lambda v: v or None)
    assert formulas, "no formula wider than a phone's column: the cue goes untested"
    # at the start only the right edge is shaded, at the end only the left
    # (a formula a few pixels too wide has a fainter shadow: its cover is near)
    no_cue = {path: [(s, e) for s, e in shades if not (s[1] > 25 and s[0] < 10 and e[0] > 25 and e[1] < 10)]
              for path, shades in formulas.items()}
    assert {p: c for p, c in no_cue.items() if c} == {}, "wide formulas with no cue of their scrolling"


def test_on_a_phone_every_wide_table_keeps_its_first_column_and_shows_it_scrolls(tours):
    """A table wider than a phone's column scrolls in its own box, its
    first column (the token, the row's name) stays at the box's left, a
    shadow says where more is hidden, and its caption stays in the box
    (book.css, "Wide tables"); no display formula is cut."""
    seen = tours("phone")
    assert found(seen, "wide tables", lambda tables: tables["faults"]) == {}
    checked = found(seen, "wide tables", lambda tables: tables["checked"])
    assert sum(checked.values()) > 40 and "/toy/positions/" in checked, checked
    assert found(seen, "clipped formulas") == {}


@pytest.mark.parametrize("tour", ["desktop", "phone"])
def test_the_nano_figures_fit_the_column_and_say_their_numbers(tours, tour):
    seen = tours(tour)
    for path, names in probes.NANO_FIGURES.items():
        assert "error" not in seen[path], seen[path]
        for name, boxes in zip(names, seen[path]["nano figures"]):
            assert boxes, f"{path}: no {name}"
            for box in boxes:
                assert box["left"] >= -0.5 and box["right"] >= -0.5, (path, name, box)
                assert box["width"] >= 140 and box["marks"] > 0, (path, name, box)
        assert seen[path]["page width"] <= TOURS[tour], path


@pytest.mark.parametrize("tour", ["phone", "desktop"])
def test_every_chapter_page_shows_where_it_is(tours, toy, tour):
    """The "you are here" map (toycalc/book/minimap.py) under each chapter
    page's title: every part drawn, the page's parts shaded and underlined
    in ink ("you are here", named in the key), the accent's outline on the
    token the model picks alone (its cell of p and its name), text a phone
    can read, no band past the screen, the heads' lanes and numbers."""
    seen, width, ex = tours(tour), TOURS[tour], Example(toy)
    vocab = [show(t) for t in ex.model.vocab]
    at = f"{ex.model.show(ex.ids[-1])} (position {len(ex.ids)})"
    for chapter, names in probes.CHAPTERS:
        for name in names:
            path = f"/{chapter}/{name}/" if name else f"/{chapter}/"
            assert "map" in seen[path], seen[path]
            m = seen[path]["map"]
            assert m["afterTitle"], path
            assert m["parts"] == PARTS, path
            assert m["here"] == minimap.highlighted(chapter, (name or "index") + ".md"), path
            assert len(m["marks"]) == len(m["here"]) and None not in m["marks"], path
            for stroke, box, bar in m["marks"]:      # in ink, no outline
                assert stroke == "none" and box == bar == m["ink"] != m["accent"], (path, m["marks"])
            assert m["hereKey"] == (["you are here"] if m["here"] else []), path
            # the accent's outline: the token the model picks, and that alone
            assert sorted(o["cls"].split()[-1] for o in m["outlined"]) == ["chosen", "chosen-box"], (path, m["outlined"])
            picked = next(o["title"] for o in m["outlined"] if o["cls"].endswith(" chosen"))
            # (the writer's cell of "the other characters together" is no character's)
            assert float(picked.rsplit(": ", 1)[1]) == max(float(t.rsplit(": ", 1)[1]) for t in m["softmax"]
                                                           if "together" not in t), path
            assert m["smallest"] >= 11, f"{path}: map text down to {m['smallest']:.1f} px"
            assert m["right"] <= width and m["width"] <= width, path
            if chapter == "toy":         # the default heads, as the page shows them
                assert m["lanes"] == ex.n_heads, path
                assert m["softmax"] == [f"p after {at}, p({t}): {fixed(p)}"
                                        for t, p in zip(vocab, ex.trace["p"][-1])], path
