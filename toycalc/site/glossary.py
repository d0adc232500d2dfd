"""The glossary: one file, docs/includes/abbreviations.md, one
`*[term]: definition` a line. pymdownx.snippets appends it to every page,
so each use of a term becomes an <abbr> whose line docs/javascripts/tips.js
shows beside it. Here: the file read and checked, the list the page
docs/glossary.md shows, and which uses of a term keep their mark (pages.py
calls them)."""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

GLOSSARY = "docs/includes/abbreviations.md"
GLOSSARY_PAGE = "glossary.md"
MARKER = "<!-- glossary -->"
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


# a term as Python-Markdown's abbr extension writes it, in this one form
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


# a heading and a link of the content, as Python-Markdown writes them (neither
# holds another of its kind)
_HEADING = re.compile(r"<h([1-6])\b.*?</h\1>", re.S)
_LINK = re.compile(r"<a\b.*?</a>", re.S)


def without_marks(html: str) -> str:
    """Every term as plain text (the glossary page, whose definitions are on it)."""
    return _ABBR.sub(r"\2", html)


def marked_uses(html: str) -> str:
    """A term's mark at its first use in a section (not in a heading, which
    is a title, nor in a link, which must not hold a second thing to
    focus), the page's first use of each taking the keyboard's focus."""
    html = _HEADING.sub(lambda m: without_marks(m[0]), html)
    html = _LINK.sub(lambda m: without_marks(m[0]), html)
    return focusable_first_uses(first_use_per_section(html))


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
