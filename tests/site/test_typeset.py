"""The book's formulas come typeset in its pages (toycalc/site/typeset.py):
MathJax in Node at build, the markup a browser's MathJax would write, and
no page loads MathJax to show them."""
from __future__ import annotations

import html
import re
import shutil

import pytest
from mkdocs.exceptions import PluginError

from conftest import TYPESET, build_with_page
from toycalc.site import typeset

# a formula not typeset: its TeX still between \( \) or \[ \]
TEX_LEFT = re.compile(r'class="arithmatex"[^>]*>\\[(\[]')
GLYPH_USED = re.compile(r'<use data-c="[0-9A-F]+" xlink:href="#([\w-]+)"')
GLYPH_DRAWN = re.compile(r'<path id="([\w-]+)" d="[^"]*"')


def built_pages(site):
    return sorted(site.rglob("*.html"))


def test_every_formula_of_every_page_is_typeset_with_its_tex_and_its_mathml(site):
    """Every formula, the print page's too: MathJax's SVG (hidden from a
    screen reader) beside the MathML a screen reader reads, the TeX kept
    in data-tex."""
    counted = {}
    for path in built_pages(site):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(site)
        assert not TEX_LEFT.search(text), where
        formulas = TYPESET.findall(text)
        assert len(formulas) == text.count('class="arithmatex"'), where
        counted[str(where)] = len(formulas)
        for m in TYPESET.finditer(text):
            one = m.group(0)
            assert one.count("<mjx-container") == 1 and one.count("<svg ") == 1, (where, m.group(3))
            assert re.search(r'<svg [^>]*role="img" focusable="false"[^>]*aria-hidden="true"', one), (where, m.group(3))
            assert re.search(r'<mjx-assistive-mml unselectable="on" display="(inline|block)"><math ', one), where
            assert ('display="true"' in one) == (m.group(2) == "div"), (where, m.group(3))
    assert counted["end-to-end/index.html"] > 150 and counted["nano-gpt/self-attention/index.html"] > 15
    assert counted["print_page/index.html"] > 900 and counted["index.html"] == 0


def test_the_tex_kept_is_the_formula_s(site):
    """data-tex is the TeX MathJax set: x_5 in the TeX is x with 5 below
    in its MathML."""
    text = (site / "toy" / "attention" / "index.html").read_text(encoding="utf-8")
    found = {html.unescape(m.group(3)): m.group(0) for m in TYPESET.finditer(text)}
    one = next(t for t in found if t.startswith("s_{t,j} = \\frac{q_t \\cdot k_j}"))
    assert "<msub><mi>s</mi><mrow" in found[one] and "<mfrac>" in found[one] and "<msqrt>" in found[one]


def test_every_glyph_a_page_uses_is_in_the_page_once(site):
    """Each character of a formula is a <use> of its glyph: the page holds
    each glyph it uses once, in the hidden <svg> right after its article
    (instant navigation swaps the two together), and no other."""
    glyphs = set()
    for path in built_pages(site):
        text = path.read_text(encoding="utf-8")
        used = set(GLYPH_USED.findall(text))
        where = path.relative_to(site)
        if not used:
            assert typeset.GLYPHS_ID not in text, where
            continue
        box = re.search(rf'</article><svg id="{typeset.GLYPHS_ID}" style="display:none" aria-hidden="true"><defs>(.*?)</defs></svg>', text)
        assert box and text.count(typeset.GLYPHS_ID) == 1, where
        drawn = GLYPH_DRAWN.findall(box.group(1))
        assert sorted(drawn) == sorted(used), where
        glyphs |= used
    assert len(glyphs) > 100
    css = (site / typeset.FORMULAS_CSS_URI).read_text(encoding="utf-8")
    assert 'mjx-container[jax="SVG"]' in css and "@font-face" not in css


def test_no_page_loads_mathjax_to_show_the_book_s_formulas(site):
    """MathJax's script is published for the formulas a script makes for
    the reader (letters.js); no page names it, nor preloads it."""
    for path in built_pages(site):
        assert "mathjax/mathjax.js" not in path.read_text(encoding="utf-8"), path.relative_to(site)
    assert (site / "javascripts" / "mathjax" / "mathjax.js").is_file()


@pytest.mark.parametrize("formula, error", [
    ("\\(\\frac{1\\)", r"Missing close brace"),
    ("\\(\\softmaxx(x)\\)", r"Undefined control sequence \\softmaxx"),
])
def test_a_formula_mathjax_cannot_typeset_fails_the_build_naming_it(project, formula, error):
    result = build_with_page(project, f"# A page\n\nThe formula {formula} here.\n")
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert "Traceback" not in said
    assert re.search(rf"bad\.md, line 3: MathJax cannot typeset the formula .*: {error}", said), said[-800:]


def test_a_build_without_node_says_so(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(PluginError, match=r"Node\.js is needed to typeset the book's formulas at build"):
        typeset.Typesetter().start()


def test_the_same_formula_is_typeset_once_and_an_escaped_one_as_its_tex():
    """A page's TeX is HTML text (&lt; for <): MathJax gets the TeX, the
    page keeps it escaped in data-tex; a formula seen before is not sent
    to Node again."""
    setter = typeset.TYPESETTER
    page = '<p><span class="arithmatex">\\(a &lt; b\\)</span> <span class="arithmatex">\\(a &lt; b\\)</span></p>'
    done = typeset.typeset(page, "test.md")
    assert done.count('data-tex="a &lt; b"') == 2 and "<mo>&lt;</mo>" in done
    assert ("a < b", False) in setter.done
    asked = []
    real = setter.ask
    setter.ask = lambda request, *how: asked.append(request) or real(request, *how)
    try:
        assert typeset.typeset(page, "test.md") == done
    finally:
        del setter.ask
    assert asked == []
