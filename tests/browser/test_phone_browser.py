"""On a phone (375 px, in chromium): a tap on a figure's mark shows its
number, as pointing at it does with a mouse (tips.js), and in the dark
scheme a wide formula's cue that it scrolls shows too. The tour of every
page at 375 px (test_every_page_browser.py) reads tokens, chips, code and
the wide formulas' cues in the light scheme."""
from __future__ import annotations

from tests.browser.probes import HEADS_KEY, WIDE_TABLES, phone_formulas

PHONE = 375


def test_a_wide_formula_shows_it_scrolls_in_the_dark_scheme(visit):
    """At the start only the right edge is shaded, at the end only the left."""
    v = visit(PHONE, "dark")
    page = v.open("/toy/layernorm/")
    v.typeset_shown()
    shades = phone_formulas(page)
    assert shades, "no formula wider than a phone's column: the cue goes untested"
    assert [(s, e) for s, e in shades if not (s[1] > 25 and s[0] < 10 and e[0] > 25 and e[1] < 10)] == []


def test_a_tap_on_a_mark_shows_its_number(visit):
    v = visit(PHONE, touch=True)
    page = v.open("/toy/attention/")
    mark = page.locator('figure[data-figure="attention"] svg.fig rect:has(> title)').locator("visible=true").first
    mark.scroll_into_view_if_needed()
    title = mark.locator("title").text_content().strip()
    assert page.locator(".fig-tip").count() == 0
    mark.tap()
    tip = page.locator(".fig-tip")
    assert tip.is_visible() and tip.text_content() == title
    tip_box, mark_box = tip.bounding_box(), mark.bounding_box()
    assert abs(tip_box["y"] - (mark_box["y"] + mark_box["height"])) < 40 or tip_box["y"] < mark_box["y"]
    assert tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= PHONE
    page.locator("article h1").tap()      # a tap elsewhere puts it away
    assert page.locator(".fig-tip").count() == 0
    # a nano-gpt cell, named in its title attribute
    page = v.open("/nano-gpt/embedding/")
    cell = page.locator("td.nano-cell[title]").locator("visible=true").first.element_handle()
    cell.scroll_into_view_if_needed()
    title = cell.get_attribute("title")
    cell.tap()
    assert page.locator(".fig-tip").text_content() == title


def test_the_playground_fits_a_phone(visit):
    """With 4 heads and eight tokens, every part built and the weights
    editor open: the page no wider than the screen; a table of vectors
    (dom.js's stack) laid out a row at a time, each value under its
    column's name, inside the column; any other wide table scrolls with its
    first column kept and the cue (probes.WIDE_TABLES)."""
    v = visit(PHONE, own_context=True)
    v.context.add_init_script(f"localStorage.setItem('{HEADS_KEY}', '4')")
    page = v.open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live]")
    page.fill("#sim-text", "the cat climbed the wall. the")
    stacked = []
    for n in range(1, 10):      # every step's live tables, read while its step is open (one at a time)
        page.locator(f"#path-step-{n}").click()
        page.wait_for_function(f"() => !document.querySelector('#step-{n} .sim-pending')")
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE, n
        stacked += page.evaluate("""() => [...document.querySelectorAll('.path-panel.is-open .sim-stack')].map((box) => {
            const t = box.querySelector('table'), names = [...t.tHead.rows[0].cells].map((c) => c.textContent);
            const rows = [...t.tBodies[0].rows];
            return {id: t.id, fits: box.scrollWidth <= box.clientWidth + 1,
                    labelled: rows.every((r) => [...r.cells].slice(1).every((c, k) => {
                        const label = c.querySelector('.cell-label');
                        return label.checkVisibility() && label.textContent === names[k + 1];
                    })),
                    rows: rows.length};
        })""")
    assert page.evaluate("document.querySelector('#sim-mix th[scope=col]:nth-child(5)') !== null")
    page.locator("#sim-editor > summary").click()
    page.wait_for_selector("#sim-edit-E", state="attached")
    page.evaluate("document.querySelectorAll('.sim-drawer, .sim-matrix').forEach((d) => { d.open = true; })")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE
    assert sorted(s["id"] for s in stacked) == ["sim-QKV", "sim-X", "sim-mix", "sim-mlp"]
    assert all(s["fits"] and s["labelled"] and s["rows"] == 8 for s in stacked), stacked
    tables = page.evaluate(WIDE_TABLES)
    assert tables["faults"] == [] and tables["checked"] >= 3, tables   # the scores, the weights, W_U
