"""MkDocs hook: the book's formulas typeset at build, by MathJax in Node.

Every page, the print page among them, comes with its formulas as MathJax
draws them: an SVG each, with the hidden MathML a screen reader reads. A
reader's browser neither loads MathJax's script (the largest task of a
formula page's load on a phone) nor MathJax's fonts, and no line moves
when a formula takes its size. MathJax comes to a page only for the
formulas its script makes for the reader (nano-gpt's letters;
mathjax-config.js).

SVG, not MathJax's CommonHTML: a phone laid the thousands of elements of
CommonHTML's formulas out in twice the time (End to End, where MathJax in
the browser had set only the formulas seen). Each character is a <use>
of its glyph; a page holds each glyph it uses once, in a hidden <svg>
after its article (instant navigation swaps the two together).

`typeset.cjs` runs in Node, on the MathJax the site publishes
(publish_mathjax.py): one process a build, a formula a line. A formula
MathJax cannot typeset fails the build, naming the page and the TeX. The
formulas' stylesheet is written beside MathJax's script,
`FORMULAS_CSS_URI`, which every page's head links (overrides/main.html):
instant navigation keeps the head of the page the reader came in on.
"""
from __future__ import annotations

import atexit
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from toycalc.site.publish_mathjax import mathjax_dir

FORMULAS_CSS_URI = "javascripts/mathjax/formulas.css"
SCRIPT = Path(__file__).with_name("typeset.cjs")
# a formula as arithmatex (generic mode) and the book's render.py write it:
# inline \( \) in a span, display \[ \] in a div (which a macro may give
# attributes of its own: nano-gpt's formulas that follow the reader's letters)
FORMULA = re.compile(r'(<(span|div)\b[^>]*\sclass="arithmatex"[^>]*>)\\([(\[])(.*?)\\([)\]])(</\2>)', re.S)
GLYPH = re.compile(r'<use data-c="[0-9A-F]+" xlink:href="#(MJX-[\w-]+)"')
GLYPHS_ID = "formula-glyphs"


class Typesetter:
    """MathJax in Node, started at the first formula and kept for the
    process (`mkdocs serve` builds again with it)."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.done: dict[tuple[str, bool], str] = {}
        self.paths: dict[str, str] = {}   # a glyph's id -> its <path>

    def start(self) -> subprocess.Popen:
        node = shutil.which("node")
        if node is None:
            raise PluginError("Node.js is needed to typeset the book's formulas at build "
                              "(toycalc/site/typeset.py): install it (on Debian: apt install nodejs)")
        self.process = subprocess.Popen(
            [node, str(SCRIPT), str(mathjax_dir() / "js")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        atexit.register(self.stop)
        return self.process

    def stop(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()
            self.process = None

    def ask(self, request: dict) -> dict:
        process = self.process or self.start()
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            self.process = None
            raise PluginError(f"MathJax in Node stopped (toycalc/site/typeset.cjs, exit code {process.wait()})")
        return json.loads(line)

    def formula(self, tex: str, display: bool, where: str) -> str:
        key = (tex, display)
        if key not in self.done:
            answer = self.ask({"tex": tex, "display": display})
            if "error" in answer:
                mark = ("\\[", "\\]") if display else ("\\(", "\\)")
                raise PluginError(f"{where}: MathJax cannot typeset the formula "
                                  f"{mark[0]}{tex}{mark[1]}: {answer['error']}")
            self.done[key] = answer["html"]
        return self.done[key]

    def glyphs(self, ids: list[str]) -> str:
        """The <path>s of these glyphs, each once."""
        missing = [i for i in ids if i not in self.paths]
        if missing:
            self.paths |= self.ask({"glyphs": missing})["glyphs"]
        return "".join(self.paths[i] for i in ids)

    def stylesheet(self) -> str:
        return self.ask({"css": True})["css"]


TYPESETTER = Typesetter()


def typeset(page_html: str, where: str) -> str:
    """page_html with every formula typeset (the TeX is HTML-escaped text),
    its element keeping the TeX in `data-tex` (without its \\( \\) or \\[ \\]:
    a span is inline, a div display)."""
    def one(m: re.Match) -> str:
        opening, _, start, tex, end, closing = m.groups()
        display = start == "["
        if (end == "]") != display:
            raise PluginError(f"{where}: a formula opens with \\{start} and closes with \\{end}")
        tex = html.unescape(tex)
        marked = f'{opening[:-1]} data-tex="{html.escape(tex)}">'   # the TeX it was set from
        return marked + TYPESETTER.formula(tex, display, where) + closing
    page_html = FORMULA.sub(one, page_html)
    ids = sorted(set(GLYPH.findall(page_html)))
    if not ids:
        return page_html
    glyphs = f'<svg id="{GLYPHS_ID}" style="display:none" aria-hidden="true"><defs>{TYPESETTER.glyphs(ids)}</defs></svg>'
    at = page_html.rfind("</article>")
    at = at + len("</article>") if at >= 0 else page_html.rfind("</body>")
    return page_html[:at] + glyphs + page_html[at:]


@event_priority(-90)   # after the other hooks have written the page
def on_post_page(output, page, config):
    return typeset(output, page.file.src_uri)


@event_priority(-90)   # after print-site has written the print page, before staged_build's
def on_post_build(config):
    site = Path(config.site_dir)
    for printed in site.glob("print_page/index.html"):
        printed.write_text(typeset(printed.read_text(encoding="utf-8"), "the print page"), encoding="utf-8")
    css = site / FORMULAS_CSS_URI
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(TYPESETTER.stylesheet(), encoding="utf-8")

