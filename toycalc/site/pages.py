"""MkDocs hooks for what a reader of a Material site expects of each page:
the glossary, a description, edit links.

The glossary lives in one file, docs/includes/abbreviations.md, one
`*[term]: definition` a line. pymdownx.snippets appends it to every page,
so each use of a term becomes an <abbr> whose line docs/javascripts/tips.js
shows beside it; this hook checks the file, lists it on the page
docs/glossary.md, and lets the keyboard reach the first use of each term on
a page. A page's description (search engines, link previews) is its front
matter's `description`, or else its first paragraph. With a repo_url, each
page links to its Markdown there (edit_uri, set here from
TOYCALC_EDIT_BRANCH).
"""
from __future__ import annotations

import html as htmllib
import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

GLOSSARY = "docs/includes/abbreviations.md"
GLOSSARY_PAGE = "glossary.md"
MARKER = "<!-- glossary -->"
DESCRIPTION_CHARS = 160

_terms: dict[str, str] = {}
_LINE = re.compile(r"\*\[(?P<term>[^\]]+)\]:(?P<text>.*)")


def read_glossary(path: Path) -> dict[str, str]:
    """term -> definition, in the file's order. A term twice, a line that is
    not `*[term]: definition`, or an empty definition is an error naming the
    file and the line."""
    terms: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.fullmatch(line.strip())
        if m is None:
            raise PluginError(f"{path}, line {n}: expected '*[term]: definition', got {line.strip()!r}")
        term, text = m["term"].strip(), m["text"].strip()
        if not text:
            raise PluginError(f"{path}, line {n}: the term '{term}' has no definition")
        # "softmax" and "Softmax" are one term: a second spelling that
        # differs only in case must carry the same definition, word for word.
        same = next((t for t in terms if t == term or (t.lower() == term.lower() and terms[t] != text)), None)
        if same is not None:
            raise PluginError(f"{path}, line {n}: the term '{term}' is defined twice "
                              f"(first as '{same}' on line {first_line[same]}); keep one definition")
        terms[term] = text
        first_line[term] = n
    return terms


def glossary_markdown(terms: dict[str, str]) -> str:
    """A definition list, alphabetical; spellings sharing a definition
    (token, tokens) share an entry."""
    entries: dict[str, list[str]] = {}
    for term, text in terms.items():
        entries.setdefault(text, []).append(term)
    items = sorted(entries.items(), key=lambda e: e[1][0].lower())
    return "\n\n".join(f"{', '.join(spellings)}\n:   {text}" for text, spellings in items) + "\n"


def on_config(config):
    if config["repo_url"]:
        branch = os.environ.get("TOYCALC_EDIT_BRANCH") or "main"
        config["edit_uri"] = f"edit/{branch}/docs/"
    path = Path(config["config_file_path"]).parent / GLOSSARY
    if not path.is_file():
        raise PluginError(f"{path} is missing: it holds the glossary, one '*[term]: definition' a line")
    global _terms
    _terms = read_glossary(path)
    return config


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == GLOSSARY_PAGE:
        if MARKER not in markdown:
            raise PluginError(f"docs/{GLOSSARY_PAGE}: the line {MARKER} is missing: "
                              "the glossary's list is written in its place")
        markdown = markdown.replace(MARKER, glossary_markdown(_terms))
    return markdown


_ABBR = re.compile(r"<abbr title=\"([^\"]*)\">([^<]*)</abbr>")


def focusable_first_uses(html: str) -> str:
    """The first use of each term on a page takes the keyboard's focus, so
    its line shows on focus too; the others on hover and tap only (a tab
    stop per use would make the keyboard walk every word)."""
    seen: set[str] = set()

    def one(m):
        if m[1] in seen:
            return m[0]
        seen.add(m[1])
        return f'<abbr title="{m[1]}" tabindex="0">{m[2]}</abbr>'
    return _ABBR.sub(one, html)


_HEADING = re.compile(r"<h([1-6])\b.*?</h\1>", re.S)
_LINK = re.compile(r"<a\b.*?</a>", re.S)
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)


def first_paragraph_text(html: str) -> str:
    """The text of the page's first paragraph, without tags or TeX
    delimiters, cut at a word to at most DESCRIPTION_CHARS characters."""
    m = _PARAGRAPH.search(html)
    if m is None:
        return ""
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", m[1]))
    text = re.sub(r"\\[()\[\]]", "", text)                  # \( \) \[ \]
    text = re.sub(r"\\(?:mathrm|text|mathbf|operatorname)\{([^}]*)\}", r"\1", text)
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_CHARS:
        return text
    cut = text[:DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


# What the search index leaves out (Material's search skips an element
# marked data-search-exclude): the figures and drawings, whose text is
# their marks' numbers; the "You are here" map, the same on every page; the heads
# variants hidden at first (the shown one's words with other numbers); and
# the tables of numbers. A search for "softmax" should find the sentences
# about it, not screens of digits, and every page downloads the index.
_OUT_OF_SEARCH = re.compile(r'(?:<figure class="(?:toy-figure|minimap)"|<svg\b|'
                            r'<(?:div|span) class="heads-variant"(?=[^>]*\shidden))(?![^>]*data-search-exclude)')
_TABLE = re.compile(r"<table\b(?![^>]*data-search-exclude)(.*?</table>)", re.S)
_CELL = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
_TAG = re.compile(r"<[^>]+>")
_NUMBER = re.compile(r"[−+-]?(\d[\d.,]*|\.\d+)(e[−+-]?\d+)?%?|[−+-]?∞|…")


def mostly_numbers(table: str) -> bool:
    cells = [text for cell in _CELL.findall(table) if (text := _TAG.sub("", cell).strip())]
    return bool(cells) and 2 * sum(bool(_NUMBER.fullmatch(c)) for c in cells) > len(cells)


def out_of_search(html: str) -> str:
    html = _OUT_OF_SEARCH.sub(lambda m: m[0] + " data-search-exclude", html)
    return _TABLE.sub(lambda m: "<table data-search-exclude" + m[1] if mostly_numbers(m[1]) else m[0], html)


# A formula in a sentence is a box after which the browser may break the
# line, leaving its full stop or comma alone at the start of the next one:
# a formula and the punctuation that touches it stay on one line.
_MATH_PUNCTUATED = re.compile(r'(\()?(<span class="arithmatex">\\\(.*?\\\)</span>)([.,;:!?)]+)?')


def math_with_its_punctuation(html: str) -> str:
    return _MATH_PUNCTUATED.sub(lambda m: f'<span class="math-nowrap">{m[0]}</span>'
                                if m[1] or m[3] else m[0], html)


# A term's dotted underline (and its tooltip) at its first use in each
# section, a stretch between two headings, only: underlining every use
# shouted (87 on one page, five in one paragraph). A sentence given for
# each heads choice (a heads variant) is shown under one choice only, so it
# holds no underline: the section's first use must be one every reader sees.
_GLOSSARY_SCAN = re.compile(r'<abbr title="([^"]*)">([^<]*)</abbr>|<(/?)(h[1-6]|span|div)\b[^>]*>')


def first_use_per_section(html: str) -> str:
    seen: set[str] = set()
    opened: list[bool] = []          # the open spans and divs: a heads variant or not
    variants = 0

    def one(m):
        nonlocal seen, variants
        if m[1] is not None:         # a term
            if variants or m[1] in seen:
                return m[2]
            seen.add(m[1])           # spellings that share a definition (token, tokens) count once
            return m[0]
        closing, name = m[3] == "/", m[4]
        if name[0] == "h":
            if not closing:
                seen = set()         # a heading opens a new section
        elif not closing and not m[0].endswith("/>"):
            opened.append('class="heads-variant"' in m[0])
            variants += opened[-1]
        elif closing and opened:
            variants -= opened.pop()
        return m[0]
    return _GLOSSARY_SCAN.sub(one, html)


# After blocks.py has put the tables back (100), before any plugin reads the
# page: the print page keeps each page's HTML as it is at this event.
@event_priority(90)
def on_page_content(html, page, config, files):
    html = math_with_its_punctuation(out_of_search(html))
    if not page.meta.get("description"):
        description = first_paragraph_text(html)
        if description:
            # the theme writes it into an attribute unescaped
            page.meta["description"] = htmllib.escape(description, quote=True)
    if page.file.src_uri == GLOSSARY_PAGE:
        # the definitions are on the page itself: no tooltips there
        return _ABBR.sub(r"\2", html)
    # nor in headings, which are titles (and the table of contents' entries),
    # nor in links, which must not hold a second thing to focus
    html = _HEADING.sub(lambda m: _ABBR.sub(r"\2", m[0]), html)
    html = _LINK.sub(lambda m: _ABBR.sub(r"\2", m[0]), html)
    return focusable_first_uses(first_use_per_section(html))
