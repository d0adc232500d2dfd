"""Pure functions that turn numbers into the strings a page shows.

Nothing here knows mkdocs. Conventions of the book: computed values with
three places and a true minus sign (U+2212); weights typed by hand as they
were typed (−0.5, 1, 0); a token's leading space as ␣; every token string
HTML-escaped, because the weights file is user input. Inside TeX the minus
stays ASCII: MathJax sets it as a minus.
"""
from __future__ import annotations

import html
import re


from ..model.tokenizer import show
from ..model.mirror import mirrored

MINUS = "\u2212"


# ---------------------------------------------------------------- numbers

@mirrored("render.js")
def fixed(x: float, places: int = 3) -> str:
    """A computed value: fixed places, true minus, never '−0.000'."""
    text = f"{float(x):.{places}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")
    return text.replace("-", MINUS)


@mirrored("render.js")
def short(x: float, keep_decimal: bool = False) -> str:
    """A typed weight or an exact sum of them: at most three places, no
    trailing zeros (1, −0.5); keep_decimal prints 1 as 1.0."""
    text = f"{float(x):.3f}".rstrip("0")
    text = text + "0" if keep_decimal and text.endswith(".") else text.rstrip(".")
    if text in ("-0", "-0.0"):
        text = text[1:]
    return text.replace("-", MINUS)


@mirrored("render.js")
def vector(values, fmt=fixed) -> str:
    return "[" + ", ".join(fmt(v) for v in values) + "]"


@mirrored("render.js")
def weights_vector(values) -> str:
    return vector(values, lambda v: short(v, keep_decimal=True))


@mirrored("render.js")
def tex(text: str) -> str:
    """A number string for use inside TeX: ASCII minus."""
    return text.replace(MINUS, "-")


def tex_vector(values, fmt=fixed) -> str:
    return tex(vector(values, fmt))


def tiny(x: float) -> str:
    """A value that is zero or nearly so, as the book writes it: 0 when it
    is exactly zero, else 5.6 × 10<sup>−17</sup> (one rule for a column)."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{float(x):.1e}".split("e")
    return f"{mantissa.replace('-', MINUS)} × 10<sup>{str(int(exponent)).replace('-', MINUS)}</sup>"


@mirrored("render.js")
def count(n: int) -> str:
    """A whole count with thousands separators: 124,439,808."""
    return f"{int(n):,}"


def approx_count(n: int) -> str:
    """A big count in words, as the book says it: 38.6 million, 786 thousand."""
    if n >= 1e6:
        return f"{n / 1e6:.1f} million"
    if n >= 1e3:
        return f"{n / 1e3:.0f} thousand"
    return str(n)


# ---------------------------------------------------------------- tokens

# What Markdown (with this book's extensions: attr_list's braces, tables'
# bars, arithmatex's dollars) could read as markup, besides HTML's < and &.
# One table, one pass: escaping in two passes would break the first one's
# references (html.escape writes ' as &#x27;, whose # is a Markdown sign).
PLAIN = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}
                      | {c: f"&#{ord(c)};" for c in "\\`*_{}[]()#!|$"})


def plain(value: str) -> str:
    """A string from a file or a reader, for a page: HTML-escaped, and
    Markdown's signs written as character references, so that it shows as
    typed and can never become a link, an emphasis or an element."""
    return value.translate(PLAIN)


def token_text(token: str) -> str:
    """A token for a page: ␣ for the leading space, as plain()."""
    return plain(show(token))


def token_code(token: str) -> str:
    return f"<code>{token_text(token)}</code>"


def token_tex(token: str) -> str:
    """A token for TeX's \\text{}: only braces, $ and backslash are special
    there (arithmatex escapes the HTML)."""
    out = show(token).replace("\\", "\0")
    for ch in "{}$":
        out = out.replace(ch, "\\" + ch)
    return out.replace("\0", "$\\backslash$")


# ---------------------------------------------------------------- tables

@mirrored("render.js")
def html_table(table_id: str, header: list[str], rows: list[list[str]],
               bold_rows: set[int] = frozenset(), caption: str = "",
               wrap: set[int] = frozenset()) -> str:
    """An HTML table with a stable id. Cells arrive as safe HTML.

    Class book-table, as every table of the book (book.css: Material's
    look for a table; the build puts it in Material's boxes). One
    line per row, no blank lines, so Markdown leaves the block alone.
    Cells keep to one line (book.css), but those of the columns in `wrap`
    may break at a space, so that a wide table fits the text column.
    An empty first header: the first column names the rows, so its cells
    are the rows' headers (every cell then has a header, as a screen reader
    needs), set as the other cells (book.css)."""
    named_rows = header[:1] == [""]
    lines = [f'<table id="{html.escape(table_id)}" class="book-table">']
    if caption:
        lines.append(f"<caption>{caption}</caption>")
    lines.append("<thead><tr>" + "".join("<td></td>" if named_rows and k == 0 else f"<th>{h}</th>"
                                         for k, h in enumerate(header)) + "</tr></thead>")
    lines.append("<tbody>")

    def cell(k, c):
        attrs = ' class="wrap"' if k in wrap else ""
        if named_rows and k == 0:
            return f'<th scope="row"{attrs}>{c}</th>'
        return f"<td{attrs}>{c}</td>"

    def cells(row):
        return "".join(cell(k, c) for k, c in enumerate(row))
    for r, row in enumerate(rows):
        if r in bold_rows:
            row = [f"<strong>{c}</strong>" for c in row]
            lines.append('<tr class="in-sentence">' + cells(row) + "</tr>")
        else:
            lines.append("<tr>" + cells(row) + "</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)


@mirrored("render.js")
def inline_math(body: str) -> str:
    """Inline TeX inside raw HTML, marked as arithmatex marks it, so that
    MathJax (which only looks at .arithmatex) typesets it."""
    return f'<span class="arithmatex">\\({html.escape(body, quote=False)}\\)</span>'


def column_header(symbol: str, d: int) -> list[str]:
    """The headers of a row's d columns: symbol_1 … symbol_d, as inline math."""
    return [inline_math(f"{symbol}_{{{c + 1}}}") for c in range(d)]


def prose_math(text: str) -> str:
    """A macro's output for a Markdown paragraph: inline math as plain
    \\( \\), which arithmatex marks itself (marked already, it would be
    marked twice, and MathJax would typeset only the inner mark)."""
    return re.sub(r'<span class="arithmatex">(\\\(.*?\\\))</span>',
                  lambda m: html.unescape(m.group(1)), text)


@mirrored("render.js")
def math_block(body: str) -> str:
    """Display math as arithmatex (generic mode) writes it, so that it also
    works inside raw HTML."""
    return f'<div class="arithmatex">\\[{html.escape(body, quote=False)}\\]</div>'


def signed_sum(terms, first: bool = True) -> str:
    """TeX for a sum of (value, term) pairs, where term is written with the
    value's size: "a - b + c", never "+ -b". first=False starts with the
    sign of the first term, for a sum continued from the line above."""
    out = ""
    for k, (value, term) in enumerate(terms):
        sign = "-" if value < 0 and float(fixed(value).replace(MINUS, "-")) != 0 else "+"
        if k == 0 and first:
            out = ("-" if sign == "-" else "") + term
        else:
            out += f" {sign} {term}"
    return out.strip()


def and_list(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c': a sentence's list."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


@mirrored("render.js")
def aligned(lines: list[tuple[str, str]]) -> str:
    """Display math, one 'left &= right' per line."""
    return aligned_rows(f"{l} &= {r}".lstrip() for l, r in lines)


@mirrored("render.js")
def aligned_rows(rows) -> str:
    """Display math, one row of an aligned environment per item, each
    with its own & (for rows that are not 'left &= right')."""
    return math_block("\\begin{aligned} " + " \\\\ ".join(rows) + " \\end{aligned}")


# ---------------------------------------------------------------- heads variants

def by_heads(outputs: dict[int, str], default: int, inline: bool) -> str:
    """One output per heads choice, for the page's heads chooser.

    When every choice gives the same output, it is printed once. Otherwise
    each goes in its own element marked with data-heads; all but the
    default are hidden, so the page reads right without JavaScript. A
    block's other choices wait inside their element in a template element
    (its content no part of the page until path.js puts it in, when the
    reader picks that choice): End to End held 13,000 elements at load,
    half of them hidden. Element ids get the heads count appended, to stay
    unique on the page."""
    if len(set(outputs.values())) == 1:
        return outputs[default]
    tag = "span" if inline else "div"
    parts = []
    for heads, text in outputs.items():
        text = re.sub(r'\bid="([^"]+)"', rf'id="\1-h{heads}"', text)
        hidden = "" if heads == default else " hidden"
        if hidden and not inline:
            text = f'<template class="heads-later">{text}</template>'
        parts.append(f'<{tag} class="heads-variant" data-heads="{heads}"{hidden}>{text}</{tag}>')
    return ("" if inline else "\n").join(parts)
