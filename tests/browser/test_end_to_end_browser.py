"""The End-to-End page in a real browser: Debian's chromium driven by
Playwright, the site served on 127.0.0.1 and nothing else reachable
(fixtures chromium, server and visit in conftest.py)."""
from __future__ import annotations

import pytest

from conftest import axe_violations
from tests.browser.probes import DRAWN_HEADS, LEAVING, MATHJAX_ERRORS, SHOWN_TEXT, arrived, our_module

from toycalc.book.example import Example
from toycalc.book import end_to_end
from toycalc.book.render import fixed, short, token_text


def step_facts(ex: Example) -> dict[int, str]:
    """For each step, a number its panel must show, computed by toycalc."""
    b, tr = ex.block, ex.trace
    return {1: str(ex.ids[2]), 2: short(ex.model.params["E"][ex.ids[0], 0]), 3: short(tr["X"][1, 0]), 4: fixed(b["u"][2, 1]),
            5: fixed(b["Q"][2, 0]), 6: fixed(b["weights"][0, 2, 0]), 7: fixed(b["A"][-1, 1]).replace("−", "-"),
            8: fixed(b["y"][-1, 3]).replace("−", "-"), 9: fixed(ex.p_last.max())}


def test_every_step_opens_and_closes_by_click(visit, toy):
    page = visit().open()
    facts = step_facts(Example(toy))
    assert page.locator(".path-panel:visible").count() == 0
    for n in range(1, 10):
        step = page.locator(f"#path-step-{n}")
        step.click()
        assert step.get_attribute("aria-expanded") == "true"
        assert page.url.endswith(f"#step-{n}")
        assert page.locator(".path-panel:visible").count() == 1
        panel = page.locator(f"#step-{n}")
        assert panel.is_visible()
        assert facts[n] in panel.inner_text() or facts[n] in panel.text_content()
        assert panel.locator(".path-title:visible").inner_text().startswith(f"Step {n}. ")
    page.locator("#path-step-9").click()
    assert page.locator(".path-panel:visible").count() == 0
    assert "#step-" not in page.url


def test_every_step_opens_and_closes_by_keyboard(visit):
    page = visit().open()
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").focus()
        page.keyboard.press("Enter")
        assert page.locator(f"#step-{n}").is_visible(), n
        page.keyboard.press("Space")
        assert not page.locator(f"#step-{n}").is_visible(), n
    # Tab reaches the steps in order
    page.locator("#path-step-1").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "path-step-2"


# the page's scroll position in each of the next twelve frames
SCROLL_IN_FRAMES = """() => new Promise((done) => {
  const ys = [scrollY];
  const next = () => { ys.push(scrollY); if (ys.length < 12) requestAnimationFrame(next); else done(ys); };
  requestAnimationFrame(next);
})"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_step_opened_out_of_sight_glides_to_it_unless_the_reader_asks_for_less_motion(visit, motion):
    """Step 9's panel opens under the drawing, below the first screen: the
    page scrolls to it, over a few frames, or at once when the reader's
    system asks for reduced motion."""
    page = visit(own_context=True).open()
    page.emulate_media(reduced_motion=motion)
    assert page.evaluate("scrollY") == 0
    page.locator("#path-step-9").click()
    ys = page.evaluate(SCROLL_IN_FRAMES)
    if motion == "reduce":
        assert ys[0] > 0 and set(ys) == {ys[0]}, ys
    else:
        assert len(set(ys)) > 3 and ys == sorted(ys), ys
    page.wait_for_function("() => document.getElementById('step-9').getBoundingClientRect().top < innerHeight - 120")


def test_a_link_opens_its_step(visit):
    page = visit().open("/end-to-end/#step-6")
    assert page.locator("#step-6").is_visible()
    assert page.locator(".path-panel:visible").count() == 1


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_heads_choice_changes_every_number(visit, toy, heads):
    page = visit().open()
    page.locator(f'.heads-chooser[data-ready] input[value="{heads}"]').first.check()
    ex = Example(toy, heads=heads)
    text = " ".join(page.evaluate(SHOWN_TEXT, "article").split())
    top, p = token_text(toy.vocab[ex.top_id]), fixed(ex.p_last.max())
    assert f"The winner is {top} with p = {p}" in text
    assert "Where each head looks most: " + " ".join(end_to_end.heads_summary(ex).split()) in text
    for other in {1, 2, 4} - {heads}:
        o = Example(toy, heads=other)
        if fixed(o.p_last.max()) != p:
            assert f"with p = {fixed(o.p_last.max())}" not in text
    # the diagram follows too (another choice than the build's once model_drawing.js has come)
    page.wait_for_function(DRAWN_HEADS, arg=heads)
    page.locator("#path-step-9").click()
    assert p in page.locator("#step-9").inner_text()
    # both choosers agree, and the choice survives a reload
    assert all(i.is_checked() for i in page.locator(f'.heads-chooser input[value="{heads}"]').all())
    page.reload()
    page.wait_for_selector("body[data-mathjax=done][data-started]")
    assert f"The winner is {top} with p = {p}" in " ".join(page.evaluate(SHOWN_TEXT, "article").split())


def test_a_closed_step_s_formulas_show_set_as_it_opens(visit):
    """The formulas come typeset (toycalc/site/typeset.py): opening a step
    puts its content in the page from its <noscript> (path.py) and shows
    its formulas at their size in the same frame, with nothing to wait
    for, and MathJax's script never comes to the page."""
    page = visit().open()
    step_4 = "#step-4 .arithmatex"
    assert page.locator(step_4).count() == 0 and page.locator("#step-4 > noscript.step-later").count() == 1
    widths = page.evaluate(f"""() => {{
        document.querySelector('#path-step-4').dispatchEvent(new MouseEvent('click', {{bubbles: true}}));
        return [...document.querySelectorAll('{step_4}')].filter((el) => el.checkVisibility())
            
            .map((el) => el.querySelector('mjx-container > svg').getBoundingClientRect().width); }}""")
    assert len(widths) > 3 and min(widths) > 5
    assert page.evaluate("!(window.MathJax && MathJax.version)")


def test_every_formula_is_typeset(visit):
    """Each heads variant of each step, and each question, once shown."""
    v = visit()
    page = v.open()
    for heads in (1, 2, 4):
        page.locator(f'.heads-chooser[data-ready] input[value="{heads}"]').first.check()
        # the drawing, the steps' buttons in it, drawn again for another choice than the
        # build's once model_drawing.js has come (path.js): not while a step is clicked
        page.wait_for_function(DRAWN_HEADS, arg=heads)
        for n in range(1, 10):
            page.locator(f"#path-step-{n}").click()
            assert page.locator(f"#step-{n}").is_visible()
            v.typeset_shown()
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    v.typeset_shown()
    result = page.evaluate(r"""async () => {
        const all = [...document.querySelectorAll('.arithmatex')];
        return {count: all.length,
                untypeset: all.filter(m => !m.querySelector('mjx-container')).length,
                errors: (await """ + our_module("mathjax-config") + r""").errors,
                // every text node, hidden heads variants and closed steps included
                raw: [...(function* walk(n) { for (const c of n.childNodes) {
                        if (c.nodeType === 3) yield c.data;
                        else if (!['SCRIPT', 'STYLE'].includes(c.nodeName)) yield* walk(c); } })(
                        document.querySelector('article'))].filter(t => /\\[(\[]|\$\$/.test(t))};
    }""")
    assert result["count"] > 50
    assert result["untypeset"] == 0 and result["errors"] == [] and result["raw"] == []
    assert page.locator("mjx-container merror").count() == 0
    # screen readers get each formula as MathML
    assert page.locator(".arithmatex mjx-assistive-mml").count() == result["count"]


def test_gpt2s_normal_distribution_keeps_its_calligraphic_n(visit):
    """Where E's numbers come from (toy Embedding, which End to End's step 2
    links to): GPT-2 draws from 𝒩(0, 0.02²). Its 𝒩 is the one letter of
    the page in MathJax's calligraphic font: drawn from its own glyph,
    which the page holds (toycalc/site/typeset.py)."""
    page = visit(375).open("/toy/embedding/")
    para = page.locator("article p:has-text('A random start')").first
    para.scroll_into_view_if_needed()
    n = para.evaluate("""p => {
        const use = [...p.querySelectorAll('use')].find((u) => u.getAttribute('xlink:href') === '#MJX-TEX-C-4E');
        const glyph = document.getElementById('MJX-TEX-C-4E');
        return use ? [glyph.getAttribute('d').length, use.getBoundingClientRect().width] : null; }""")
    assert n and n[0] > 50 and n[1] > 5, n
    assert para.locator("mjx-assistive-mml mi").first.text_content() == "N"


def test_mathjax_after_instant_navigation(visit):
    v = visit()
    page = v.open("/")
    page.evaluate(LEAVING)
    page.locator("article a[href$='end-to-end/']").first.click()
    page.wait_for_url("**/end-to-end/")
    arrived(page)      # the address changes before the page does: Home's marks until then
    page.locator("#path-step-4").click()
    assert page.locator("#step-4").is_visible()
    v.typeset_shown("#step-4")
    assert page.locator("#step-4 .arithmatex mjx-container").count() > 0
    assert page.evaluate(MATHJAX_ERRORS) == []


def test_no_serious_accessibility_violation(visit):
    page = visit().open("/end-to-end/#step-6")
    violations = axe_violations(page)
    bad = [(v["id"], v["impact"], len(v["nodes"])) for v in violations if v["impact"] != "minor"]
    assert bad == []


def test_phone_width_does_not_overflow(visit):
    page = visit(width=375).open()
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"step {n} open: the page is {width} px wide"
    tops = page.locator("#path .model-band").evaluate_all("ss => ss.map(s => s.getBoundingClientRect().y)")
    assert tops == sorted(tops) and len(set(tops)) == len(tops), "on a phone the drawing's bands stack vertically"


# Characters a line: each shown paragraph's width over the width of its
# font's "0" (the ch unit); the drawing's and the widest table's width.
MEASURE = """() => {
  const ch = (el) => { const probe = document.createElement('span');
    probe.textContent = '0'.repeat(100);
    probe.style.cssText = 'position: absolute; white-space: nowrap';
    el.append(probe);
    const w = probe.getBoundingClientRect().width / 100; probe.remove(); return w; };
  const prose = [...document.querySelectorAll('article p, article li')]
    .filter((p) => p.checkVisibility() && !p.closest('.path, .simulator, table, figure'))
    .map((p) => [p.textContent.trim().slice(0, 40), p.getBoundingClientRect().width / ch(p)]);
  const wide = (sel) => Math.max(0, ...[...document.querySelectorAll(sel)].filter((e) => e.checkVisibility())
    .map((e) => e.getBoundingClientRect().width));
  return {prose, drawing: wide('#path figure.path-figure'), table: wide('article .md-typeset__scrollwrap'),
          column: document.querySelector('article').getBoundingClientRect().width};
}"""


def test_on_a_desktop_the_prose_keeps_a_readable_measure(visit):
    """End to End takes the page's width for its drawing: its prose stays
    within about 75 characters a line (it ran to 160 at 1280 px), while the
    drawing's figure and the tables keep the column's width."""
    page = visit(width=1280).open()
    found = page.evaluate(MEASURE)
    assert len(found["prose"]) > 20
    long = [(text, round(chars)) for text, chars in found["prose"] if chars > 76]
    assert long == [], f"{len(long)} paragraphs wider than 76 characters, e.g. {long[:3]}"
    assert found["column"] > 1100
    assert found["drawing"] > 0.95 * found["column"] and found["table"] > found["column"]


def test_without_javascript_every_step_is_readable(chromium, server):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server + "/end-to-end/")
    assert page.locator(".path-panel:visible").count() == 9
    text = page.evaluate(SHOWN_TEXT, "article")
    assert "The winner is ␣roof" in text  # the default, 2 heads
    context.close()


def test_every_formula_of_the_path_fits_at_full_size(visit):
    """On a desktop no formula of the path is cut off or shrunk: each fits
    its column at the size of the text around it."""
    v = visit()
    page = v.open()
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        v.typeset_shown(f"#step-{n}")
        cut = page.evaluate("""n => [...document.querySelectorAll(`#step-${n} div.arithmatex`)]
            .filter(el => el.offsetParent !== null)
            .filter(el => el.scrollWidth > el.clientWidth + 1
                          || el.querySelector('mjx-container').getBoundingClientRect().height < 10)
            .map(el => el.textContent.slice(0, 60))""", n)
        assert cut == [], f"step {n}: {cut}"


def test_printing_lays_every_step_open_with_its_content(visit):
    """A step's content waits in a <noscript> until it first opens (path.py);
    printed, End to End shows every step's (print.css), so each is put in
    before the print, showing the heads the reader chose."""
    page = visit().open()
    page.locator('.heads-chooser[data-ready] input[value="2"]').first.check()
    assert page.locator(".path-panel > noscript.step-later").count() == 9
    page.evaluate("() => dispatchEvent(new Event('beforeprint'))")
    page.emulate_media(media="print")
    assert page.locator(".path-panel > noscript").count() == 0
    for n in range(1, 10):
        assert page.locator(f"#step-{n} .path-title").first.is_visible(), n
    assert page.locator('#step-6 .heads-variant[data-heads="2"]:visible').count() == 1
    assert page.locator('#step-6 .heads-variant[data-heads="1"]:visible').count() == 0
