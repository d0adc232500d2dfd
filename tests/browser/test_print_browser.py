"""The whole book, to print (/print_page/, Material's print-site plugin),
read in chromium with the print media: every formula comes typeset
(toycalc/site/typeset.py), has a width and is its own page's formula; the "Check yourself" answers are open; the controls and
the sentences about them are left out; End to End prints its drawing and
every step; printed to PDF, the chapters' titles are its outline."""
from __future__ import annotations

import re

import pytest

from tests.browser.probes import MATHJAX_ERRORS
from tests.conftest import Visit


@pytest.fixture(scope="module")
def printed(chromium, server):
    """The print page, typeset, under the print media (one visit for the module)."""
    visitor = Visit(chromium, server, width=800)
    page = visitor.open("/print_page/")
    page.emulate_media(media="print")
    yield page
    assert visitor.outside == [] and visitor.errors == [], (visitor.outside, visitor.errors)
    visitor.context.close()


def own_pages(site):
    """The print page's section id of every page -> the page's address
    (the contributor page and the Simulator's old address, which sends the
    reader to End to End, are not in the nav, nor on the print page)."""
    leave_out = (site, site / "print_page", site / "contributing", site / "simulator")
    paths = sorted("/" + p.parent.relative_to(site).as_posix() + "/"
                   for p in site.rglob("index.html") if p.parent not in leave_out)
    return {"index": "/"} | {p.strip("/").replace("/", "-"): p for p in paths}


# Each section's formulas: the TeX MathJax typeset (data-tex), the width of
# what it drew, whether the print shows it, and whether it is in a heads
# variant the book's choice hides; beside them, the formulas of the page
# itself, as the server sends it.
FORMULAS = r"""async (pages) => {
  const out = {};
  for (const [id, path] of Object.entries(pages)) {
    const section = document.getElementById(id);
    if (!section) { out[id] = null; continue; }
    const mine = [...section.querySelectorAll('.arithmatex')].filter((el) => el.closest('section.print-page') === section);
    const html = await (await fetch(path)).text();
    const own = new DOMParser().parseFromString(html, 'text/html');
    out[id] = {
      printed: mine.map((el) => {
        const c = el.querySelector('mjx-container');
        return {tex: c ? el.dataset.tex : '(not typeset)',
                width: c ? c.getBoundingClientRect().width : 0, shown: el.checkVisibility(),
                variant: !!el.closest('.heads-variant[hidden]')};
      }),
      own: [...own.querySelectorAll('article .arithmatex')].map((el) => el.dataset.tex),
    };
  }
  return out;
}"""


def test_every_formula_has_a_width_and_is_its_pages(printed, site):
    """Zero widths (407 of 586 once, #24, when the browser typeset them)
    would be characters without their rules in formulas.css."""
    assert printed.evaluate(MATHJAX_ERRORS) == []
    sections = printed.evaluate(FORMULAS, own_pages(site))
    assert None not in sections.values(), [k for k, v in sections.items() if v is None]
    total = shown = 0
    for section, found in sections.items():
        printed_tex = [f["tex"] for f in found["printed"]]
        assert printed_tex == found["own"], f"{section}: the print page's formulas are not its page's"
        for f in found["printed"]:
            total += 1
            if f["shown"]:
                shown += 1
                assert f["width"] > 0, f"{section}: {f['tex']!r} prints with no width"
            else:   # only what the book's heads choice hides goes unprinted
                assert f["variant"], f"{section}: {f['tex']!r} is not printed"
    # (the other heads choices' blocks wait in <template>s, no part of the printed page)
    assert len(sections) >= 25 and total > 600 and shown > 500, (len(sections), total, shown)


def test_check_yourself_answers_print_open(printed):
    answers = printed.evaluate("""() => [...document.querySelectorAll('article details')]
        .filter((d) => d.checkVisibility()).map((d) =>
        [d.querySelector('summary').textContent.trim().slice(0, 50),
         [...d.children].filter((c) => c.tagName !== 'SUMMARY')
           .every((c) => c.checkVisibility() && c.getBoundingClientRect().height > 0)])""")
    assert len(answers) > 25
    assert [summary for summary, shown in answers if not shown] == []


SCREEN_ONLY = ["Type another in the field", "needs JavaScript", "Choose here", "press Enter or Space",
               "Loading the simulator", "Point at or tap", "point at or tap",
               # the playground's intro and controls: its field, its buttons, its drawers
               "Type a sentence, or add tokens", "Your sentence", "Remove the last token", "Sampling: temperature",
               "Three drawers hold"]


def test_controls_and_what_speaks_of_them_are_left_out(printed):
    controls = printed.evaluate("""() => [...document.querySelectorAll(
        'article input, article button, article select, article textarea, article fieldset, article .step-bar')]
        .filter((e) => e.checkVisibility()).map((e) => e.outerHTML.slice(0, 80))""")
    assert controls == []
    text = printed.evaluate("document.querySelector('article').innerText")
    assert [s for s in SCREEN_ONLY if s in text] == []
    # what they replace is there: the nano-gpt trainer's page keeps its prose,
    # End to End prints the book's prediction
    assert "What happens in a run" in text
    # no screen instruction of the Train pages
    for said in ("press Start", "when you press", "Press \"One step\""):
        assert said not in text, said
    # nor any other screen instruction, on any page of the book (issue 50):
    # what is left in print is what paper can show
    told = re.findall(r"[^.\n]*\b(?:press|tap|point at|open a numbered step)\b[^.\n]*", text, re.I)
    assert told == [], told
    assert printed.locator("#sim-next").is_visible()


def test_end_to_end_prints_its_drawing_and_every_step(printed):
    section = printed.locator("section#end-to-end")
    drawing = section.locator('figure[data-figure="model"]').first
    assert drawing.is_visible() and drawing.bounding_box()["height"] > 200
    for n in range(1, 10):
        step = section.locator(f"#step-{n}")
        assert step.is_visible(), n
        box = step.bounding_box()
        assert box["height"] > 40, n
        # its numbers and its box (one per heads variant: the book's choice is shown)
        assert step.locator("table:visible, .arithmatex:visible").count(), n
        assert step.locator(".path-title:visible").count() == 1, n


def test_the_whole_model_and_the_maps_print_whole(printed):
    """A drawing a screen scrolls sideways (the whole model's on Home, End
    to End and nano-gpt's Introduction; the chapter maps, which the print
    page leaves out, take the same rule) is scaled to the paper's width:
    none is cut at the right edge."""
    boxes = printed.evaluate("""() => [...document.querySelectorAll('.model-bands > svg, .map-bands > svg')]
        .filter((svg) => svg.getBoundingClientRect().height > 0)
        .map((svg) => ({id: svg.closest('section[id]')?.id, right: svg.getBoundingClientRect().right,
                        edge: svg.parentElement.getBoundingClientRect().right,
                        page: document.documentElement.clientWidth}))""")
    assert {"index", "end-to-end", "nano-gpt"} <= {b["id"] for b in boxes}
    cut = [b for b in boxes if b["right"] > b["edge"] + 1 or b["right"] > b["page"]]
    assert cut == []


def test_printed_to_pdf_the_chapters_titles_are_its_outline(printed):
    chapters = printed.evaluate("""() => [...document.querySelectorAll('#print-site-page section.print-page > h1')]
        .map((h) => h.textContent.replace('¶', '').trim())""")
    pdf = printed.pdf(format="A4", outline=True, tagged=True, print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    outline = [t.decode("latin-1") for t in re.findall(rb"/Title\s*\(([^)]*)\)", pdf)]
    chapters = [c for c in chapters if c.isascii()]
    assert len(chapters) >= 20
    assert [t for t in outline if t in chapters] == chapters
    assert pages >= len(chapters)
    # the steps' bars, drawn as boxes on a screen, print without their frames
    assert printed.evaluate("""() => [...document.querySelectorAll('.path-step')].filter((b) =>
        b.getClientRects().length && getComputedStyle(b).borderTopStyle !== 'none').length""") == 0
