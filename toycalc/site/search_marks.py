"""What Material's search leaves out of its index (pages.py marks it on
each page's HTML): an element marked data-search-exclude."""
from __future__ import annotations

import re

# What the search index leaves out (Material's search skips an element
# marked data-search-exclude): the figures and drawings, whose text is
# their marks' numbers; the "You are here" map, the same on every page; the heads
# variants hidden at first (the shown one's words with other numbers); and
# the tables of numbers. A search for "softmax" should find the sentences
# about it, not screens of digits, and every page downloads the index.
_OUT_OF_SEARCH = re.compile(r'(?:<figure class="(?:toy-figure|minimap)"|<svg\b|'
                            r'<(?:div|span) class="heads-variant"(?=[^>]*\shidden))(?![^>]*data-search-exclude)')
# the content's tables (render.py's and Markdown's: none holds another) and their cells
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
