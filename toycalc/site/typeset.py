"""The book's formulas typeset at build, by MathJax in Node (the last step
of html_pass.py, the print page's too; this hook writes their stylesheet).

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
MathJax cannot typeset fails the build, naming the page and the TeX; so
do a formula that defines a macro (its definition would hold on every
page built after it), a Node that answers nothing in FORMULA_SECONDS or
garbage, a page that takes more than PAGE_SECONDS, and a glyph the page
refers to that no formula made: each in one line. The
formulas' stylesheet is written beside MathJax's script,
`FORMULAS_CSS_URI`, which every page's head links (overrides/main.html):
instant navigation keeps the head of the page the reader came in on.
"""
from __future__ import annotations

import atexit
import html
import json
import queue
import re
import shutil
import subprocess
import threading
import time
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
# TeX that defines: MathJax would keep the definition for the rest of the
# build (typeset.cjs loads no newcommand package either, so these fail there too)
DEFINITION = re.compile(r"\\(def|gdef|edef|xdef|let|futurelet|global|newcommand|renewcommand|providecommand"
                        r"|newenvironment|renewenvironment|DeclareMathOperator|definecolor|Newextarrow|require)"
                        r"(?![A-Za-z])")
FORMULA_SECONDS = 30   # MathJax sets the book's largest formula in well under a second
PAGE_SECONDS = 120


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
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
        # Node's answers, read by a thread, so that waiting for one has a time limit
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self.read, args=(self.process, self.answers), daemon=True).start()
        atexit.register(self.stop)
        return self.process

    @staticmethod
    def read(process: subprocess.Popen, answers: queue.Queue) -> None:
        for line in process.stdout:
            answers.put(line)
        answers.put("")   # Node stopped

    def stop(self, seconds: float = 5) -> None:
        """Node ended: given `seconds` to finish once its input closes, then killed."""
        process, self.process = self.process, None
        if process is not None:
            try:
                process.stdin.close()
                process.wait(timeout=seconds)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()

    def ask(self, request: dict, what: str, seconds: float = FORMULA_SECONDS) -> dict:
        """Node's answer to request, what being what it is for ("bad.md, the
        formula \\(x\\)"), in one line if Node gives none in time or garbage."""
        process = self.process or self.start()
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            line = self.answers.get(timeout=seconds)
        except queue.Empty:
            self.stop(seconds=0)   # it hangs: no time to finish
            raise PluginError(f"{what}: MathJax in Node (toycalc/site/typeset.cjs) gave no answer in "
                              f"{seconds:g} s; the build stopped it") from None
        except OSError:
            line = ""
        if not line:
            self.stop()
            raise PluginError(f"{what}: MathJax in Node (toycalc/site/typeset.cjs) stopped, exit code "
                              f"{process.wait()}")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.stop()
            raise PluginError(f"{what}: MathJax in Node (toycalc/site/typeset.cjs) answered "
                              f"{line.strip()[:80]!r}, not the JSON object it writes")
        return answer

    def formula(self, tex: str, display: bool, where: str, seconds: float = FORMULA_SECONDS) -> str:
        key = (tex, display)
        if key not in self.done:
            mark = ("\\[", "\\]") if display else ("\\(", "\\)")
            what = f"{where}: the formula {mark[0]}{tex}{mark[1]}"
            answer = self.ask({"tex": tex, "display": display}, what, seconds)
            if "error" in answer:
                raise PluginError(f"{where}: MathJax cannot typeset the formula "
                                  f"{mark[0]}{tex}{mark[1]}: {answer['error']}")
            if not isinstance(answer.get("html"), str):
                raise PluginError(f"{what}: MathJax in Node (toycalc/site/typeset.cjs) answered no html")
            self.done[key] = answer["html"]
        return self.done[key]

    def glyphs(self, ids: list[str], where: str) -> str:
        """The <path>s of these glyphs, each once."""
        missing = [i for i in ids if i not in self.paths]
        if missing:
            got = self.ask({"glyphs": missing}, f"{where}: the glyphs").get("glyphs")
            self.paths |= {i: p for i, p in (got if isinstance(got, dict) else {}).items() if isinstance(p, str)}
        unknown = [i for i in ids if i not in self.paths]
        if unknown:
            raise PluginError(f"{where}: the page refers to the glyph #{unknown[0]}, which none of its "
                              "formulas made (a <use> written into the page?)")
        return "".join(self.paths[i] for i in ids)

    def stylesheet(self) -> str:
        css = self.ask({"css": True}, "the formulas' stylesheet").get("css")
        if not isinstance(css, str):
            raise PluginError("the formulas' stylesheet: MathJax in Node (toycalc/site/typeset.cjs) answered none")
        return css


TYPESETTER = Typesetter()


def typeset(page_html: str, where: str, source: str = "") -> str:
    """page_html with every formula typeset (the TeX is HTML-escaped text),
    its element keeping the TeX in `data-tex` (without its \\( \\) or \\[ \\]:
    a span is inline, a div display). source: the page's Markdown, to name
    the line of a formula refused."""
    ends = time.monotonic() + PAGE_SECONDS

    def one(m: re.Match) -> str:
        opening, _, start, tex, end, closing = m.groups()
        display = start == "["
        if (end == "]") != display:
            raise PluginError(f"{where}: a formula opens with \\{start} and closes with \\{end}")
        tex = html.unescape(tex)
        defined = DEFINITION.search(tex)
        if defined:
            line = next((f", line {n}" for n, text in enumerate(source.splitlines(), 1)
                         if defined.group(0) in text), "")
            raise PluginError(f"{where}{line}: the formula \\{start}{tex}\\{end} defines with "
                              f"{defined.group(0)}, which the book refuses: a definition would hold on "
                              "every page built after this one; write the TeX out in full")
        left = ends - time.monotonic()
        if left <= 0:
            raise PluginError(f"{where}: its formulas took more than {PAGE_SECONDS} s to typeset; "
                              f"the build stopped at \\{start}{tex[:60]}…\\{end}")
        marked = f'{opening[:-1]} data-tex="{html.escape(tex)}">'   # the TeX it was set from
        return marked + TYPESETTER.formula(tex, display, where, min(FORMULA_SECONDS, left)) + closing
    page_html = FORMULA.sub(one, page_html)
    ids = sorted(set(GLYPH.findall(page_html)))
    if not ids:
        return page_html
    glyphs = f'<svg id="{GLYPHS_ID}" style="display:none" aria-hidden="true"><defs>{TYPESETTER.glyphs(ids, where)}</defs></svg>'
    at = page_html.rfind("</article>")
    at = at + len("</article>") if at >= 0 else page_html.rfind("</body>")
    return page_html[:at] + glyphs + page_html[at:]


@event_priority(-90)   # after html_pass's (mkdocs.yml lists it first), which typesets the print page
def on_post_build(config):
    css = Path(config.site_dir) / FORMULAS_CSS_URI
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(TYPESETTER.stylesheet(), encoding="utf-8")

