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
(publish_mathjax.py): one process a build, in a session of its own, so
that the build ends it with whatever it started (node.py). A formula
MathJax cannot typeset fails the build, naming the page, the line and the
TeX's first 80 characters; so do a formula that defines a macro (its
definition would hold on every page built after it), a \\ref or \\eqref to
no label of its formula (MathJax would print "???"), a formula that takes
more than FORMULA_SECONDS (Node is then stopped), a Node that stops or
answers garbage, a page that takes more than PAGE_SECONDS, and a glyph
the page refers to that none of its formulas made (a <use> written into
the page): each in one line. The
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
import subprocess
import threading
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from toycalc.site import node
from toycalc.site.publish_mathjax import mathjax_dir

FORMULAS_CSS_URI = "javascripts/mathjax/formulas.css"
SCRIPT = Path(__file__).with_name("typeset.cjs")
# a formula as arithmatex (generic mode) and the book's render.py write it:
# inline \( \) in a span, display \[ \] in a div (which a macro may give
# attributes of its own: nano-gpt's formulas that follow the reader's letters)
FORMULA = re.compile(r'(<(span|div)\b[^>]*\sclass="arithmatex"[^>]*>)\\([(\[])(.*?)\\([)\]])(</\2>)', re.S)
# every reference of a <use> to a glyph, as MathJax writes it or otherwise
# (href or xlink:href, any attributes before it, either quote or none): each
# must be one the page's formulas made
GLYPH = re.compile(r'<use\b[^>]*?\s(?:xlink:)?href\s*=\s*(?:"#(MJX-[^"]*)"|\'#(MJX-[^\']*)\'|#(MJX-[^\s>]*))', re.I)
GLYPHS_ID = "formula-glyphs"
# TeX that defines: MathJax would keep the definition for the rest of the
# build (typeset.cjs loads no newcommand package either, so these fail there too)
DEFINITION = re.compile(r"\\(def|gdef|edef|xdef|let|futurelet|global|newcommand|renewcommand|providecommand"
                        r"|newenvironment|renewenvironment|DeclareMathOperator|definecolor|Newextarrow|require)"
                        r"(?![A-Za-z])")
FORMULA_SECONDS = 30   # MathJax sets the book's largest formula in well under a second
PAGE_SECONDS = 120
SHOWN = 80             # the characters of a formula's TeX a message shows
LONG = 10_000          # characters: a formula so long (the book's longest has 432) is what takes the time


def shown(tex: str, display: bool) -> str:
    """A formula in a message: on one line, its first SHOWN characters,
    between its marks (and its length, when that is not all of it)."""
    flat = " ".join(tex.split())
    size = "" if len(flat) <= SHOWN else f" ({len(tex):,} characters)"
    flat = flat if len(flat) <= SHOWN else flat[:SHOWN] + "…"
    return (f"\\[{flat}\\]" if display else f"\\({flat}\\)") + size


def line_of(source: str, tex: str, display: bool, part: str = "") -> int | None:
    """The line of the page's Markdown where the formula is written (or,
    given part, where that part of it is), or None for a formula the page
    does not hold as written (a macro's)."""
    marks = ("\\[", "\\]", "$$", "$$") if display else ("\\(", "\\)", "$", "$")
    at = next((i + len(start) for start, end in (marks[:2], marks[2:])
               if (i := source.find(f"{start}{tex}{end}")) >= 0), -1)
    if at < 0 and len(tex.strip()) >= 10:      # a short TeX alone ("x") would find any line
        at = source.find(tex)
    if at >= 0 and part:
        inside = source.find(part, at, at + len(tex))
        at = inside if inside >= 0 else at
    elif at < 0 and part:
        at = source.find(part)
    return None if at < 0 else source.count("\n", 0, at) + 1


def place(where: str, source: str, tex: str, display: bool, part: str = "") -> str:
    """"page.md, line N": the page and the line where it has the formula (or its part)."""
    line = line_of(source, tex, display, part)
    return where if line is None else f"{where}, line {line}"


class Typesetter:
    """MathJax in Node, started at the first formula and kept for the
    process (`mkdocs serve` builds again with it)."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.done: dict[tuple[str, bool], str] = {}
        self.paths: dict[str, str] = {}   # a glyph's id -> its <path>

    def start(self) -> subprocess.Popen:
        if node.node_or_none() is None:
            raise PluginError("Node.js is needed to typeset the book's formulas at build "
                              f"(toycalc/site/typeset.py): {node.INSTALL}")
        # stop() ends its whole process group, whatever Node (or a `node` that is not Node) started
        self.process = node.start(SCRIPT, mathjax_dir() / "js", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  errors="replace")
        # Node's requests written and its answers read by threads of their
        # own, so that waiting for an answer has a time limit (a request
        # larger than the pipe's buffer waits for Node to read it)
        self.requests: queue.Queue = queue.Queue()
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self.write, args=(self.process, self.requests), daemon=True).start()
        threading.Thread(target=self.read, args=(self.process, self.answers), daemon=True).start()
        atexit.register(self.stop)
        return self.process

    @staticmethod
    def write(process: subprocess.Popen, requests: queue.Queue) -> None:
        """Each request to Node, until None (or Node gone): then its input closed."""
        try:
            for request in iter(requests.get, None):
                process.stdin.write(request)
                process.stdin.flush()
        except OSError:
            pass          # Node gone: its answers' reader says so
        try:
            process.stdin.close()
        except OSError:
            pass

    @staticmethod
    def read(process: subprocess.Popen, answers: queue.Queue) -> None:
        for line in process.stdout:
            answers.put(line)
        answers.put("")   # Node stopped

    def stop(self, seconds: float = 5) -> None:
        """Node ended: given `seconds` to finish once its input closes, then
        its process group killed, anything it started with it."""
        process, self.process = self.process, None
        if process is None:
            return
        self.requests.put(None)      # its input closed once the requests before are written
        try:
            if seconds > 0:
                process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pass
        node.end(process)

    def ask(self, request: dict, what: str, seconds: float = FORMULA_SECONDS, late: str = "") -> dict:
        """Node's answer to request, what being what it is for ("bad.md, the
        formula \\(x\\)"), in one line if Node gives none in time (what
        follows `what` then: `late`) or garbage."""
        process = self.process or self.start()
        self.requests.put(json.dumps(request) + "\n")
        try:
            line = self.answers.get(timeout=seconds)
        except queue.Empty:
            self.stop(seconds=0)   # it hangs, or works on for too long: no time to finish
            raise PluginError(f"{what}: " + (late or f"MathJax in Node (toycalc/site/typeset.cjs) gave no "
                                                     f"answer in {seconds:g} s; the build stopped it")) from None
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

    def formula(self, tex: str, display: bool, where: str, seconds: float = FORMULA_SECONDS,
                source: str = "") -> str:
        """The formula's markup; where: its page, source: the page's Markdown
        (to name the line of a formula refused)."""
        key = (tex, display)
        if key not in self.done:
            at, formula = place(where, source, tex, display), shown(tex, display)
            what = f"{at}: the formula {formula}"
            # a long formula is what MathJax took the time over; a short one, MathJax hangs
            late = (f"took more than {seconds:g} s to typeset, and the build stopped MathJax "
                    "(toycalc/site/typeset.cjs): shorten the formula or split it") if len(tex) > LONG else ""
            answer = self.ask({"tex": tex, "display": display}, what, seconds, late)
            if "error" in answer:
                raise PluginError(f"{at}: MathJax cannot typeset the formula {formula}: {str(answer['error'])[:120]}")
            unresolved = answer.get("unresolved")
            if isinstance(unresolved, list) and unresolved:
                ref = " ".join(str(unresolved[0]).split())[:40]
                raise PluginError(f"{place(where, source, tex, display, ref)}: the formula {formula} refers to "
                                  f"{ref}, a label it does not define, and would show ???: each formula is "
                                  "typeset alone, so a reference names a \\label with a \\tag in its own formula")
            if not isinstance(answer.get("html"), str):
                raise PluginError(f"{what}: MathJax in Node (toycalc/site/typeset.cjs) answered no html")
            self.done[key] = answer["html"]
        return self.done[key]

    def glyphs(self, ids: list[str], where: str) -> str:
        """The <path>s of these glyphs (which the page's formulas made), each once."""
        missing = [i for i in ids if i not in self.paths]
        if missing:
            got = self.ask({"glyphs": missing}, f"{where}: the glyphs").get("glyphs")
            self.paths |= {i: p for i, p in (got if isinstance(got, dict) else {}).items() if isinstance(p, str)}
        unknown = [i for i in ids if i not in self.paths]
        if unknown:
            raise PluginError(f"{where}: MathJax in Node (toycalc/site/typeset.cjs) has no glyph "
                              f"#{unknown[0]}, which a formula of the page refers to")
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
    made: set[str] = set()     # the glyphs the page's formulas refer to

    def one(m: re.Match) -> str:
        opening, _, start, tex, end, closing = m.groups()
        display = start == "["
        if (end == "]") != display:
            raise PluginError(f"{where}: a formula opens with \\{start} and closes with \\{end}")
        tex = html.unescape(tex)
        defined = DEFINITION.search(tex)
        if defined:
            raise PluginError(f"{place(where, source, tex, display, defined.group(0))}: the formula "
                              f"{shown(tex, display)} defines with "
                              f"{defined.group(0)}, which the book refuses: a definition would hold on "
                              "every page built after this one; write the TeX out in full")
        left = ends - time.monotonic()
        if left <= 0:
            raise PluginError(f"{where}: its formulas took more than {PAGE_SECONDS} s to typeset; "
                              f"the build stopped at {shown(tex, display)}")
        marked = f'{opening[:-1]} data-tex="{html.escape(tex)}">'   # the TeX it was set from
        formula = TYPESETTER.formula(tex, display, where, min(FORMULA_SECONDS, left), source)
        made.update(glyph_ids(formula))
        return marked + formula + closing
    page_html = FORMULA.sub(one, page_html)
    used = glyph_ids(page_html)
    foreign = sorted(used - made)
    if foreign:
        line = next((f", line {n}" for n, text in enumerate(source.splitlines(), 1) if foreign[0] in text), "")
        raise PluginError(f"{where}{line}: the page refers to the glyph #{foreign[0]}, which none of its "
                          "formulas made (a <use> written into the page?): take it out")
    if not used:
        return page_html
    glyphs = f'<svg id="{GLYPHS_ID}" style="display:none" aria-hidden="true"><defs>{TYPESETTER.glyphs(sorted(used), where)}</defs></svg>'
    at = page_html.rfind("</article>")
    at = at + len("</article>") if at >= 0 else page_html.rfind("</body>")
    return page_html[:at] + glyphs + page_html[at:]


def glyph_ids(markup: str) -> set[str]:
    """The ids of the glyphs markup's <use>s refer to."""
    return {next(filter(None, ids)) for ids in GLYPH.findall(markup)}


@event_priority(-90)   # after html_pass's (mkdocs.yml lists it first), which typesets the print page
def on_post_build(config):
    css = Path(config.site_dir) / FORMULAS_CSS_URI
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(TYPESETTER.stylesheet(), encoding="utf-8")

