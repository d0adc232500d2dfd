"""The toy chapter's page MLP (docs/toy/mlp.md): GELU beside ReLU, its
curve with the last row's inputs on it, and the block's two residual
sums, each shown where the page has computed what it adds. toy_number("gelu") is on the home page (docs/index.md) too."""
from __future__ import annotations

import numpy as np

from ...model import gpt
from ..example import Example
from ..draw import at, label, svg
from ..render import fixed, html_table, inline_math as im, short, tex, token_code
from .shared import toy

GELU_POINTS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)


@toy.table("gelu")
def gelu_table(ex: Example) -> str:
    """GELU and ReLU side by side at a few points."""
    rows = [[fixed(x), fixed(gpt.gelu(x)), fixed(max(x, 0.0))] for x in GELU_POINTS]
    return html_table("table-gelu", [im("x"), im("\\mathrm{GELU}(x)"), im("\\max(x, 0)")], rows)


@toy.table("gelu_curve")
def gelu_curve(ex: Example) -> str:
    """GELU drawn through computed points on labelled axes, with the last
    row's eight inputs u′W₁ as dots on it; each dot's value is printed above
    the plot, joined to its dot by a thin line, the labels spread apart so
    that inputs a few hundredths apart still read apart."""
    lo, hi, ylo, yhi = -3.0, 3.0, -0.5, 3.0
    W, left, right, top, bottom = 340, 34, 326, 72, 226     # the plot's box
    sx = lambda x: left + (x - lo) / (hi - lo) * (right - left)       # noqa: E731
    sy = lambda y: bottom - (y - ylo) / (yhi - ylo) * (bottom - top)  # noqa: E731
    xs = np.linspace(lo, hi, 121)
    curve = " ".join(f"{at(sx(x))},{at(sy(y))}" for x, y in zip(xs, gpt.gelu(xs)))
    pre = ex.block["mlp_pre"][-1]
    t = len(ex.ids)
    body = [f'<path class="grid" d="M{left} {at(sy(0))}H{right}M{at(sx(0))} {top}V{bottom}"/>',
            f'<path class="axis" d="M{left} {top}V{bottom}H{right}"/>']
    for x in range(int(lo), int(hi) + 1):
        body.append(f'<path class="tick" d="M{at(sx(x))} {bottom}v4"/>')
        body.append(label(int(sx(x) + 0.5), bottom + 16, short(float(x)), "middle", "val"))
    for y in range(0, int(yhi) + 1):
        body.append(label(left - 5, int(sy(y) + 4.5), short(float(y)), "end", "val"))
    body.append(label(right, bottom + 30, "x", "end", "hdr"))
    body.append(label(left + 6, top + 10, "GELU(x)", cls="hdr"))
    body.append(f'<polyline class="series curve" points="{curve}"/>')
    # the labels: in the order of their values, at least gap px apart (a 12 px
    # line of text, turned, and a pixel to spare), centred on their dots
    gap = 15
    order = sorted(range(len(pre)), key=lambda c: pre[c])
    want = [sx(pre[c]) for c in order]
    ahead, back = list(want), list(want)
    for k in range(1, len(want)):
        ahead[k] = max(ahead[k], ahead[k - 1] + gap)
    for k in range(len(want) - 2, -1, -1):
        back[k] = min(back[k], back[k + 1] - gap)
    spots = [(a + b) / 2 for a, b in zip(ahead, back)]
    for k in range(1, len(spots)):   # the average of two spread rows is spread too; keep it so
        spots[k] = max(spots[k], spots[k - 1] + gap)
    for c, lx in zip(order, spots):
        x, y = float(pre[c]), float(gpt.gelu(pre[c]))
        body.append(f'<path class="leader" d="M{at(lx)} {top - 8}L{at(sx(x))} {at(sy(y))}"/>')
        body.append(f'<text class="val" transform="translate({at(lx + 4)} {top - 10}) rotate(-90)">'
                    f"{fixed(x)}</text>")
        body.append(f'<circle class="dot gelu-dot" cx="{at(sx(x))}" cy="{at(sy(y))}" r="3">'
                    f"<title>column {c + 1} of u′{_sub(t)}W₁: x = {fixed(x)}, GELU(x) = {fixed(y)}</title></circle>")
    aria = (f"The GELU curve from {short(lo)} to {short(hi)}, drawn through {len(xs)} computed points, "
            f"x across and GELU(x) up; the dots are the {len(pre)} values of the last row before GELU, "
            "each printed above the plot")
    row = im(f"u^\\prime_{t} W_1")
    caption = (f"GELU from {short(lo)} to {short(hi)}, drawn through {len(xs)} computed points; the dots "
               f"are the {len(pre)} values of the last row before GELU, {row}, each "
               "printed above the plot and joined to its dot.")
    return ('<figure id="figure-gelu" class="toy-figure gelu-curve" data-figure="gelu">'
            f'{svg(W, bottom + 34, aria, "".join(body))}<figcaption>{caption}</figcaption></figure>')


def _sub(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _sum_table(table_id: str, ex: Example, parts: list[tuple[str, str]]) -> str:
    """A residual sum row by row: for each (what, key of ex.block) a group
    of d columns, one per entry c_1 … c_d (a vector in one cell wrapped into
    a wall of numbers). Two header rows: the vector's name over its group,
    then the columns. X holds exact sums of typed weights, printed as
    weights are (as on the Positions page); the rest is computed."""
    b, d = ex.block, ex.model.cfg.d

    def entry(key, v):
        return short(v, keep_decimal=True) if key == "X" else fixed(v)

    def cells(values, tag="td", scope=""):
        start = ' class="group-start"'
        return "".join(f"<{tag}{scope}{start if k % d == 0 else ''}>{v}</{tag}>" for k, v in enumerate(values))
    lines = [f'<table id="{table_id}">',
             '<thead><tr><th rowspan="2" scope="col">token</th>'
             + "".join(f'<th colspan="{d}" scope="colgroup" class="group-start">{im(what)}</th>'
                       for what, _ in parts) + "</tr>",
             "<tr>" + cells([im(f"c_{{{c + 1}}}") for _ in parts for c in range(d)], "th", ' scope="col"')
             + "</tr></thead>", "<tbody>"]
    lines += ["<tr><td>" + token_code(t) + "</td>" + cells([entry(key, v) for _, key in parts for v in b[key][k]])
              + "</tr>" for k, t in enumerate(ex.tokens)]
    return "\n".join(lines + ["</tbody></table>"])


@toy.table("first_sum")
def first_sum_table(ex: Example) -> str:
    """The block's first residual sum, h_t = x_t + a_t W_O, row by row."""
    return _sum_table("table-first-sum", ex, [("x_t", "X"), ("a_t W_O", "attn"), ("h_t = x_t + a_t W_O", "h")])


@toy.table("second_sum")
def second_sum_table(ex: Example) -> str:
    """The block's second residual sum, y_t = h_t + m_t, row by row (h_t
    is in the first sum's table, above it on the page)."""
    return _sum_table("table-second-sum", ex, [("m_t", "m"), ("y_t = h_t + m_t", "y")])


@toy.number("gelu")
def gelu_number(ex: Example, x: float = -1.0) -> str:
    """GELU at one point."""
    return fixed(gpt.gelu(float(x)))


@toy.number("gelu_min")
def gelu_min(ex: Example) -> str:
    """Where GELU is lowest, and its value there, as inline TeX."""
    xs = np.linspace(-3.0, 0.0, 30001)
    ys = gpt.gelu(xs)
    i = int(np.argmin(ys))
    return im(f"\\mathrm{{GELU}}({tex(fixed(xs[i]))}) = {tex(fixed(ys[i]))}")
