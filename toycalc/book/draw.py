"""Figures: pure functions from numbers to SVG, drawn at build time like the tables.

No plotting library. Every figure of the book is cells, bars, lines and
labels, a few SVG elements each, written here with integer coordinates:
the output is small, byte-identical from build to build, and the browser
draws the very same markup for the reader's own sentence
(docs/javascripts/draw.js mirrors the functions marked @mirrored; a
parity test in Node holds the two to the same string).

Conventions:
- every mark that stands for a number carries it in its <title>, printed
  as the page prints it (render.fixed: three places, a true minus sign),
  so a pointer, a tap or the focus shows it (tips.js) and a test reads it;
- one visual language (docs/contributing.md's table): blue for negative,
  orange for positive, the strength of the colour for the size (|value| /
  the largest |value| of the drawing), a zero grey; purple, from pale to
  full, for a weight or probability in [0, 1]; the categorical colours
  s1 .. s5 for names (series, letters); the one chosen mark outlined in
  the accent colour, with a word. The colours are CSS variables
  (docs/stylesheets/figures.css), so a dark scheme only changes them;
- every drawing has its key beside it (signed_key, prob_key, or a series
  key inside the drawing);
- a figure is a <figure data-figure="..."> whose <svg> has role="img" and
  an aria-label saying what it shows.
"""
from __future__ import annotations

import html
import math
import re

from .render import fixed
from ..model.mirror import mirrored


@mirrored("draw.js")
def esc(text: str) -> str:
    return html.escape(text, quote=True)


# ---------------------------------------------------------------- primitives (mirrored)

@mirrored("draw.js")
def strength(a: float) -> str:
    """A share in [0, 1] as an opacity with two digits ("0.07", "1"); a
    non-zero share never fades below 0.06, so that it still shows."""
    k = math.floor(min(1.0, abs(a)) * 100 + 0.5)
    if a != 0:
        k = max(k, 6)
    return "1" if k >= 100 else f"0.{k:02d}"


@mirrored("draw.js")
def sign(v: float) -> str:
    return "pos" if v > 0 else "neg" if v < 0 else "zero"


@mirrored("draw.js")
def largest(rows) -> float:
    """The largest |value| of a drawing, its full colour (1 if all are 0)."""
    m = max((abs(v) for row in rows for v in row if v is not None and math.isfinite(v)), default=0.0)
    return m or 1.0


@mirrored("draw.js")
def cell(x: int, y: int, w: int, h: int, value: float, scale: float, title: str, kind: str = "signed") -> str:
    """One coloured cell: kind "signed" (blue, grey, orange) or "prob"
    (purple, a weight or probability in [0, 1])."""
    cls = "v-prob" if kind == "prob" else f"v-{sign(value)}"
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" class="{cls}" '
            f'fill-opacity="{strength(value / scale)}"><title>{esc(title)}: {fixed(value)}</title></rect>')


MASKED = "masked: a query reads no key after its own position"


@mirrored("draw.js")
def masked_cells(boxes: list[tuple[int, int, int, int]]) -> str:
    """A grid's masked cells (x, y, w, h) as one mark, hatched, no colour:
    an outline and a hatch for all of them, with one title. Drawn cell by
    cell they were four elements each, half of an attention figure's, and
    the browser restyles every element of a drawing that changes."""
    if not boxes:
        return ""
    outline = "".join(f"M{x} {y}h{w}v{h}h{-w}z" for x, y, w, h in boxes)
    hatch = "".join(f"M{x} {y + h}L{x + w} {y}" for x, y, w, h in boxes)
    return f'<g class="v-masked"><title>{MASKED}</title><path class="cells" d="{outline}"/><path d="{hatch}"/></g>'


@mirrored("draw.js")
def grid(M, titles, size: int, x0: int = 0, y0: int = 0, scale: float | None = None,
         kind: str = "signed") -> str:
    """A matrix of cells, row by row; titles[i][j] names cell (i, j); a
    value None is masked (see masked_cells). The masked mark goes first, so
    that a row more (a token more) is drawn by appending."""
    scale = largest(M) if scale is None else scale
    cells, masked = [], []
    for i, row in enumerate(M):
        for j, v in enumerate(row):
            x, y = x0 + j * size, y0 + i * size
            if v is None:
                masked.append((x, y, size, size))
            else:
                cells.append(cell(x, y, size, size, v, scale, titles[i][j], kind))
    return masked_cells(masked) + "".join(cells)


@mirrored("draw.js")
def label(x: int, y: int, text: str, anchor: str = "start", cls: str = "lbl") -> str:
    a = "" if anchor == "start" else f' text-anchor="{anchor}"'
    return f'<text x="{x}" y="{y}" class="{cls}"{a}>{esc(text)}</text>'


@mirrored("draw.js")
def svg(width: int, height: int, aria: str, body: str, cls: str = "fig") -> str:
    return (f'<svg class="{cls}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-label="{esc(aria)}">{body}</svg>')


@mirrored("draw.js")
def text_width(text: str, px: int = 7) -> int:
    """A label's width, estimated by its characters (the same in the browser)."""
    return len(text) * px


# ---------------------------------------------------------------- figures (mirrored)

@mirrored("draw.js")
def attention_svg(tokens: list[str], weights, head: int) -> str:
    """One head's attention weights as a heat-map: a row per query, a
    column per key, the cells above the diagonal masked. Each token's
    labels and row come after the token before's, so that the browser
    draws a token more by appending (a drawing's elements are restyled
    whenever one is inserted among them). Positions are numbered from
    1, as everywhere in the book."""
    T, size = len(tokens), 30
    left = max(text_width(t) for t in tokens) + 8
    top = 20
    body = [masked_cells([(left + j * size, top + i * size, size, size) for i in range(T) for j in range(i + 1, T)])]
    for i in range(T):
        body.append(label(left - 6, top + i * size + 19, tokens[i], "end"))
        body.append(label(left + i * size + 15, top - 6, str(i + 1), "middle"))
        body.extend(cell(left + j * size, top + i * size, size, size, weights[i][j], 1.0,
                         f"head {head}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1})", "prob")
                    for j in range(i + 1))
    return svg(left + T * size + 2, top + T * size + 2,
               f"Head {head}: a heat-map of the attention weights, one row per query, one column per key "
               "(numbered by position); cells after the query are masked", "".join(body))


@mirrored("draw.js")
def attention_lines_svg(tokens: list[str], weights, head: int) -> str:
    """The same weights as lines from each query (right) to the keys it
    reads (left): the thicker the line, the larger the weight. Token by
    token, as attention_svg."""
    T, row = len(tokens), 22
    w = max(text_width(t) for t in tokens) + 8
    gap = 110
    top = 18
    body = [label(w - 6, 12, "keys", "end", "hdr"), label(w + gap + 6, 12, "queries", cls="hdr")]
    for i in range(T):
        body.append(label(w - 6, top + 16 + i * row, tokens[i], "end"))
        body.append(label(w + gap + 6, top + 16 + i * row, tokens[i]))
        for j in range(i + 1):
            a = weights[i][j]
            stroke = math.floor(a * 60 + 0.5) / 10  # 0 to 6 px, one decimal
            body.append(f'<line x1="{w}" y1="{top + 12 + j * row}" x2="{w + gap}" y2="{top + 12 + i * row}" '
                        f'class="v-line" stroke-width="{stroke:.1f}">'
                        f"<title>head {head}, {esc(tokens[i])} (query {i + 1}) reads {esc(tokens[j])} "
                        f"(key {j + 1}): {fixed(a)}</title></line>")
    return svg(2 * w + gap + 50, top + T * row + 4,
               f"Head {head}: each query on the right joined to the keys on the left it reads, "
               "a thicker line for a larger weight", "".join(body))


@mirrored("draw.js")
def bars_svg(labels: list[str], values, aria: str, top: int | None = None, greyed=(), what: str = "p") -> str:
    """Horizontal bars for values in [0, 1], one per label, the value
    printed after each bar; `top` (the largest: the one greedy decoding
    picks) is outlined in the accent colour, its label bold and its value
    followed by "largest"; `greyed` (indexes) in grey (cut away by top-k or
    top-p)."""
    row, span = 18, 200
    left = max(text_width(t) for t in labels) + 8
    body = []
    for k, (name, v) in enumerate(zip(labels, values)):
        y = k * row
        cls = "bar-cut" if k in greyed else "bar-top" if k == top else "bar"
        width = math.floor(v * span + 0.5)
        body.append(label(left - 6, y + 13, name, "end", "lbl top" if k == top else "lbl"))
        body.append(f'<rect x="{left}" y="{y + 3}" width="{width}" height="{row - 6}" class="{cls}">'
                    f"<title>{what}({esc(name)}) = {fixed(v)}</title></rect>")
        body.append(label(left + width + 4, y + 13, fixed(v) + (" largest" if k == top else ""),
                          cls="val top" if k == top else "val"))
    return svg(left + span + 48 + (56 if top is not None else 0), len(labels) * row, aria, "".join(body))


@mirrored("draw.js")
def figure(kind: str, body: str, caption: str = "", **data) -> str:
    """The <figure> around a drawing: data-figure names what it draws."""
    attrs = "".join(f' data-{k}="{esc(str(v))}"' for k, v in data.items())
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="toy-figure" data-figure="{kind}"{attrs}>{body}{cap}</figure>'


def signed_key() -> str:
    """The key of a drawing of signed numbers, beside it."""
    return ('<p class="fig-legend fig-key"><span class="swatch v-neg"></span> negative '
            '<span class="swatch v-zero"></span> zero <span class="swatch v-pos"></span> positive; '
            "the stronger the colour, the larger the number (full colour: the largest of the drawing). "
            '<span class="screen-only">Point at or tap a cell to read its value.</span></p>')


@mirrored("draw.js")
def prob_key(what: str = "weight", masked: bool = False, lines: bool = False) -> str:
    """The key of a drawing of weights (or probabilities) in [0, 1], beside
    it: the purple scale from 0 (blank) to 1 in quarters, the hatched
    masked cell, the lines."""
    steps = "".join(f'<span class="swatch v-prob q{q}"></span>' for q in range(5))
    return (f'<p class="fig-legend fig-key">{esc(what)}: 0 {steps} 1'
            + ('; <span class="swatch v-masked"></span> masked: a later key' if masked else "")
            + ("; the thicker the line, the larger the weight" if lines else "") + "</p>")


def legend() -> str:
    """The signed scale in words, for a page whose drawings share it."""
    return signed_key()


# ---------------------------------------------------------------- build-time only (not mirrored)

def paired_bars_svg(labels: list[str], a, b, names: tuple[str, str], aria: str, what: str = "p") -> str:
    """Two bars per label, a (solid) over b (pale), values in [0, 1]; the
    bars 14 px apart, so that their values (12 px text) do not touch."""
    row, pitch, span = 32, 14, 200
    left = max(text_width(t) for t in labels) + 8
    # the key: a swatch of each kind of bar and its name
    body = [f'<rect x="{left}" y="1" width="12" height="10" class="bar"/>', label(left + 16, 10, names[0], cls="hdr"),
            f'<rect x="{left + 110}" y="1" width="12" height="10" class="bar-alt"/>',
            label(left + 126, 10, names[1], cls="hdr")]
    for k, name in enumerate(labels):
        y = 16 + k * row
        body.append(label(left - 6, y + 17, name, "end"))
        for n, (values, cls) in enumerate(((a, "bar"), (b, "bar-alt"))):
            v = values[k]
            width = math.floor(v * span + 0.5)
            body.append(f'<rect x="{left}" y="{y + 2 + n * pitch}" width="{width}" height="9" class="{cls}">'
                        f"<title>{what}({esc(name)}), {esc(names[n])} = {fixed(v)}</title></rect>")
            body.append(label(left + width + 4, y + 10 + n * pitch, fixed(v), cls="val"))
    return svg(left + span + 48, 16 + len(labels) * row, aria, "".join(body))


SUBSCRIPT = re.compile(r"_(\{[^}]*\}|[A-Za-z0-9]+)")


def notation(text: str) -> str:
    """A name as the book prints it, for an SVG <text>: "u'_5" becomes u′
    with 5 as a subscript (a <tspan> shifted below the line, at the same
    size, so that it keeps the 11 px a phone needs); escaped."""
    out, last = [], 0
    for m in SUBSCRIPT.finditer(text):
        out.append(esc(text[last:m.start()].replace("'", "′")))
        out.append(f'<tspan baseline-shift="sub">{esc(m.group(1).strip("{}"))}</tspan>')
        last = m.end()
    return "".join(out) + esc(text[last:].replace("'", "′"))


def plain(text: str) -> str:
    """The same name as plain text, for a <title> (no markup there): u′₅."""
    digits = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    text = SUBSCRIPT.sub(lambda m: m.group(1).strip("{}").translate(digits), text)
    return text.replace("'", "′")


NUMBER_LINE_TICKS = 10   # at most this many integer steps are ticked one by one


def number_line_svg(rows: list[tuple[str, list[float]]], spreads: list[tuple[str, float, float]],
                    aria: str) -> str:
    """Values as dots on one number line per row (ticks at the integers,
    or at round values 1, 2 or 5 times a power of ten apart when the
    integers would be more than NUMBER_LINE_TICKS);
    spreads[k] = (what, mean, standard deviation) of row k, drawn as the
    mean's dashed mark, labelled μ, under a bracket from μ − σ to μ + σ
    labelled σ on each side. Names take notation() ("h_5"). Dots closer
    than their size are lifted one above the other, so none hides
    another."""
    values = [v for _, vs in rows for v in vs] + [m + s * d for _, m, s in spreads for d in (-1, 1)]
    lo, hi = math.floor(min(values + [0.0])), math.ceil(max(values + [0.0]))
    lo, hi = (lo, hi) if hi > lo else (lo - 1, hi + 1)
    # a tick at each integer while they are few; past that, round ticks
    # (nice_ticks), so the marks stay bounded whatever the weights' range
    ticks = list(range(lo, hi + 1)) if hi - lo <= NUMBER_LINE_TICKS else nice_ticks(lo, hi, 4)
    lo, hi = ticks[0], ticks[-1]
    left, span, pitch, r = 52, 270, 72, 5

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * span
    body = []
    for k, ((name, vs), (what, mu, sigma)) in enumerate(zip(rows, spreads)):
        y = 44 + k * pitch
        body.append(f'<text x="{left - 16}" y="{y + 4}" class="lbl math" text-anchor="end">{notation(name)}</text>')
        body.append(f'<line x1="{left}" y1="{y}" x2="{left + span}" y2="{y}" class="axis"/>')
        for t in ticks:
            body.append(f'<line x1="{at(x(t))}" y1="{y - 3}" x2="{at(x(t))}" y2="{y + 3}" class="axis"/>')
            body.append(label(int(x(t) + 0.5), y + 17, fixed(t, 0), "middle", "val"))
        # the spread: a bracket over the row from μ − σ to μ + σ, and the mean's mark
        b = y - 26
        body.append(f'<path class="spread" d="M{at(x(mu - sigma))} {b + 4}V{b}H{at(x(mu + sigma))}V{b + 4}">'
                    f"<title>{esc(plain(what))}: standard deviation σ = {fixed(sigma)}</title></path>")
        body.append(label(int(x(mu - sigma / 2) + 0.5), b - 4, "σ", "middle", "lbl math"))
        body.append(label(int(x(mu + sigma / 2) + 0.5), b - 4, "σ", "middle", "lbl math"))
        body.append(f'<line x1="{at(x(mu))}" y1="{b}" x2="{at(x(mu))}" y2="{y + 8}" class="mark">'
                    f"<title>{esc(plain(what))}: mean μ = {fixed(mu)}</title></line>")
        body.append(label(int(x(mu) + 0.5), b - 4, "μ", "middle", "lbl math"))
        placed: list[tuple[float, int]] = []
        for c in sorted(range(len(vs)), key=lambda c: vs[c]):
            cx = x(vs[c])
            level = next(n for n in range(len(vs)) if all(abs(cx - px) >= 2 * r + 1 or pl != n for px, pl in placed))
            placed.append((cx, level))
            body.append(f'<circle cx="{at(cx)}" cy="{y - level * (2 * r + 1)}" r="{r}" class="dot v-{sign(vs[c])}">'
                        f"<title>{esc(plain(name))}, column {c + 1}: {fixed(vs[c])}</title></circle>")
    return svg(left + span + 16, 20 + len(rows) * pitch, aria, "".join(body))

# ---------------------------------------------------------------- charts: axes, lines, stacked bars, arrows
# The nano-gpt chapter and "What changed since 2017" draw them; the lines
# and the stacked bars are mirrored, for nano-gpt's figures drawn again on
# the reader's letters (the arrows are drawn at build time only).
# Coordinates keep one decimal at most (`at`), so a build prints the same
# bytes every time.

SERIES = 5  # series classes s1 .. s5 (figures.css), told apart by more than colour


@mirrored("charts.js")
def at(v: float) -> str:
    """A coordinate with one decimal at most: 12, 12.5, −0 never."""
    tenths = math.floor(v * 10 + 0.5)
    return str(tenths // 10) if tenths % 10 == 0 else f"{tenths / 10:.1f}"


@mirrored("charts.js")
def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) that cover
    lo .. hi with about `count` steps; the first tick <= lo, the last >= hi."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
        raise ValueError(f"ticks from {lo} to {hi}: expected two finite numbers, the first the smaller")
    if hi == lo:
        hi = lo + 1
    raw = (hi - lo) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw * (1 - 1e-9))
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [k * step for k in range(first, last + 1)]


@mirrored("charts.js")
def line_chart_svg(series, aria: str, x_ticks, y_ticks, x_label: str = "", y_label: str = "",
                   width: int = 480, height: int = 240) -> str:
    """Lines with axes: series is a list of (name, points, titles), each
    point (x, y) a dot whose <title> is titles[k]; x_ticks and y_ticks are
    (value, text) pairs, and their first and last values set the axes'
    ranges. Series k is drawn in class s{k+1}: its colour and its dash."""
    left = max(text_width(t, 6) for _, t in y_ticks) + 10
    top, bottom = (26 if len(series) > 1 else 10) + (14 if y_label else 0), 34
    right = max(14, text_width(x_ticks[-1][1], 6) // 2 + 4)   # room for the last tick's text
    x0, x1, y0, y1 = x_ticks[0][0], x_ticks[-1][0], y_ticks[0][0], y_ticks[-1][0]

    def X(v):
        return left + (v - x0) * (width - left - right) / ((x1 - x0) or 1)

    def Y(v):
        return height - bottom - (v - y0) * (height - top - bottom) / ((y1 - y0) or 1)
    body = [f'<path class="axis" d="M{left} {top}V{height - bottom}H{width - right}"/>']
    for v, text in x_ticks:
        body.append(f'<path class="tick" d="M{at(X(v))} {height - bottom}v4"/>')
        body.append(label(int(X(v) + 0.5), height - bottom + 16, text, "middle", "val"))
    for v, text in y_ticks:
        body.append(f'<path class="grid" d="M{left} {at(Y(v))}H{width - right}"/>')
        body.append(label(left - 4, int(Y(v) + 4.5), text, "end", "val"))
    # its baseline 4 px above the edge: the descenders of "y" and "p" stay inside
    if x_label:
        body.append(label(width - right, height - 4, x_label, "end", "hdr"))
    if y_label:
        body.append(label(0, top - 10, y_label, cls="hdr"))
    if len(series) > 1:
        body.append(series_key([name for name, _, _ in series], left, 12, "line"))
    for k, (name, points, titles) in enumerate(series):
        cls = f"s{k % SERIES + 1}"
        line = " ".join(f"{at(X(x))},{at(Y(y))}" for x, y in points)
        body.append(f'<polyline class="series {cls}" points="{line}"/>')
        r = 2 if len(points) <= 50 else 1   # many dots would hide the line
        body.extend(f'<circle class="dot {cls}" cx="{at(X(x))}" cy="{at(Y(y))}" r="{r}">'
                    f"<title>{esc(t)}</title></circle>" for (x, y), t in zip(points, titles))
    return svg(width, height, aria, "".join(body))


@mirrored("charts.js")
def series_key(names: list[str], x: int, y: int, mark: str = "box") -> str:
    """A key to the series, in a row: a swatch (or a short line) and a name each."""
    out = []
    for k, name in enumerate(names):
        cls = f"s{k % SERIES + 1}"
        if mark == "line":
            out.append(f'<path class="series {cls}" d="M{x} {y - 4}h18"/>')
        else:
            out.append(f'<rect class="key {cls}" x="{x}" y="{y - 9}" width="10" height="10"/>')
        out.append(label(x + (22 if mark == "line" else 14), y, name, cls="val"))
        x += (22 if mark == "line" else 14) + text_width(name) + 12
    return "".join(out)


@mirrored("charts.js")
def stacked_bars_svg(labels: list[str], names: list[str], rows, titles, aria: str,
                     after: list[str] | None = None, span: int = 240) -> str:
    """One horizontal bar per label, cut into segments, one per series in
    `names` (class s1, s2, ...), each as long as its share of the row's sum;
    titles[r][k] is segment k's <title>. A segment wide enough shows its
    series' name; after[r] is printed past the end of row r."""
    row, top = 22, 24
    left = max(text_width(t) for t in labels) + 8
    tail = max((text_width(t) for t in after), default=0) + 8 if after else 0
    key = sum(text_width(n) + 26 for n in names)
    bars = left + span + tail
    body = [series_key(names, left if left + key <= bars else 0, 12)]   # over the bars if it fits
    for r, (name, values) in enumerate(zip(labels, rows)):
        y, total = top + r * row, sum(values)
        body.append(label(left - 6, y + 14, name, "end"))
        ends, running = [0], 0.0
        for v in values:  # in tenths of a pixel, from the running sum: no gap between segments
            running += v
            ends.append(math.floor(running * span * 10 / (total or 1) + 0.5))
        for k, v in enumerate(values):
            x, w = left * 10 + ends[k], ends[k + 1] - ends[k]
            cls = f"s{k % SERIES + 1}"
            body.append(f'<rect class="seg {cls}" x="{at(x / 10)}" y="{y + 2}" width="{at(w / 10)}" '
                        f'height="{row - 4}"><title>{esc(titles[r][k])}</title></rect>')
            if w / 10 >= text_width(names[k], 6) + 6:
                body.append(label(int((x + w / 2) / 10 + 0.5), y + 15, names[k], "middle", f"on-{cls}"))
        if after:
            body.append(label(left + span + 6, y + 15, after[r], cls="val"))
    width = max(bars, key)
    return svg(width, top + len(labels) * row, aria, "".join(body))


def arrows_svg(arrows, aria: str, size: int = 180, arcs=()) -> str:
    """Vectors in the plane from the origin at the centre: arrows is a list
    of (name, x, y, cls, title), the name in notation() ("q_3"); cls "s1".."s5", with " dashed" for a ghost.
    arcs: (radius share, from angle, to angle, cls, title), angles in
    radians counter-clockwise, drawn as the turn from one to the other.
    The drawing's scale: the longest arrow reaches 70% of the half size."""
    c, reach = size / 2, 0.7 * size / 2
    longest = max((math.hypot(x, y) for _, x, y, _, _ in arrows), default=0.0) or 1.0
    k = reach / longest
    body = [f'<path class="axis" d="M0 {at(c)}H{size}M{at(c)} 0V{size}"/>',
            f'<circle class="grid" cx="{at(c)}" cy="{at(c)}" r="{at(reach)}"/>']
    for share, a, b, cls, title in arcs:
        r = share * reach
        large = 1 if abs(b - a) % (2 * math.pi) > math.pi else 0
        sweep = 0 if b > a else 1   # SVG's y points down: counter-clockwise is sweep 0
        body.append(f'<path class="arc {cls}" d="M{at(c + r * math.cos(a))} {at(c - r * math.sin(a))}'
                    f'A{at(r)} {at(r)} 0 {large} {sweep} {at(c + r * math.cos(b))} {at(c - r * math.sin(b))}">'
                    f"<title>{esc(title)}</title></path>")
    tips = [(c + x * k, c - y * k) for _, x, y, _, _ in arrows]
    # the arcs' points, a degree apart: no name goes on an arc either
    on_arcs = [(c + share * reach * math.cos(a + (b - a) * i / 360), c - share * reach * math.sin(a + (b - a) * i / 360))
               for share, a, b, _, _ in arcs for i in range(361)]
    for (name, x, y, cls, title), (tx, ty) in zip(arrows, tips):
        angle = math.atan2(-(ty - c), tx - c)
        # the head: a small triangle at the tip, drawn by hand (no marker ids to clash on the page)
        l, s = 8, 0.45
        p1 = (tx - l * math.cos(angle - s), ty + l * math.sin(angle - s))
        p2 = (tx - l * math.cos(angle + s), ty + l * math.sin(angle + s))
        body.append(f'<g class="arrow {cls}"><title>{esc(title)}</title>'
                    f'<path d="M{at(c)} {at(c)}L{at(tx)} {at(ty)}"/>'
                    f'<path class="head" d="M{at(tx)} {at(ty)}L{at(p1[0])} {at(p1[1])}L{at(p2[0])} {at(p2[1])}Z"/></g>')
    placed: list[tuple[float, float, float, float]] = []      # the names' boxes: left, top, right, bottom
    for (name, x, y, cls, title), (tx, ty) in zip(arrows, tips):
        angle = math.atan2(-(ty - c), tx - c)
        w = text_width(name)

        # a name's box at (x, baseline y), drawn at 14 px with a subscript:
        # from 13 px above its baseline to 10 below
        def box(x, y):
            return x - w / 2 - 1, y - 13, x + w / 2 + 1, y + 10

        def on(b, x1, y1, x2, y2, near=0.0):
            """Whether the segment runs through box b (grown by `near`), checked every pixel along it."""
            n = max(1, int(math.hypot(x2 - x1, y2 - y1)))
            return any(b[0] - near < x1 + (x2 - x1) * i / n < b[2] + near
                       and b[1] - near < y1 + (y2 - y1) * i / n < b[3] + near for i in range(n + 1))

        def clear(x, y, ring: bool) -> bool:
            """Inside the drawing, off both axes, every arrow (its head's width
            too), every arc, every name placed, and (ring) the grid's circle."""
            b = box(x, y)
            if not (0 <= b[0] and b[2] <= size and 0 <= b[1] and b[3] <= size):
                return False
            if b[0] < c < b[2] or b[1] < c < b[3]:
                return False
            if any(on(b, c, c, px, py, near=4) for px, py in tips):
                return False
            if any(b[0] - 2 < px < b[2] + 2 and b[1] - 2 < py < b[3] + 2 for px, py in on_arcs):
                return False
            if any(b[0] < q[2] and q[0] < b[2] and b[1] < q[3] and q[1] < b[3] for q in placed):
                return False
            corners = [math.hypot(cx - c, cy - c) for cx in (b[0], b[2]) for cy in (b[1], b[3])]
            return not ring or min(corners) > reach + 1 or max(corners) < reach - 1
        # the name beyond its tip on the arrow's own line, else turning round
        # the tip, further out: the first place clear of everything (a name
        # sat on another arrow, and one on the axis, where the line crossed it)
        spots = [(tx + out * math.cos(angle + turn), ty - out * math.sin(angle + turn) + 4)
                 for out in (12, 18, 26, 34, 44) for turn in (0, 0.5, -0.5, 1.0, -1.0, 1.6, -1.6, 2.2, -2.2, math.pi)]
        lx, ly = next(((x, y) for ring in (True, False) for x, y in spots if clear(x, y, ring)), spots[0])
        lx, ly = int(lx + 0.5), int(ly + 0.5)
        placed.append(box(lx, ly))
        body.append(f'<text x="{lx}" y="{ly}" class="lbl math" text-anchor="middle">{notation(name)}</text>')
    return svg(size, size, aria, "".join(body))
