"""The toy chapter's page MLP (docs/toy/mlp.md): GELU beside ReLU, its
curve with the last row's inputs on it, and the block's two residual
sums. toy_number("gelu") is on the home page (docs/index.md) too."""
from __future__ import annotations

import numpy as np

from ...model import gpt
from ..example import Example
from ..render import fixed, html_table, inline_math as im, short, tex, token_code, vector
from .shared import toy

GELU_POINTS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)


@toy.table("gelu")
def gelu_table(ex: Example) -> str:
    """GELU and ReLU side by side at a few points."""
    rows = [[fixed(x), fixed(gpt.gelu(x)), fixed(max(x, 0.0))] for x in GELU_POINTS]
    return html_table("table-gelu", [im("x"), im("\\mathrm{GELU}(x)"), im("\\max(x, 0)")], rows)


@toy.table("gelu_curve")
def gelu_curve(ex: Example) -> str:
    """GELU drawn as an SVG polyline through computed points, with the
    last row's eight inputs u'W_1 marked on it."""
    W, H, lo, hi, ylo, yhi = 320, 200, -4.0, 4.0, -1.0, 4.0
    sx = lambda x: 20 + (x - lo) / (hi - lo) * (W - 40)       # noqa: E731
    sy = lambda y: H - 20 - (y - ylo) / (yhi - ylo) * (H - 40)  # noqa: E731
    xs = np.linspace(lo, hi, 161)
    curve = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, gpt.gelu(xs)))
    pre = ex.block["mlp_pre"][-1]
    dots = "".join(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5"/>'
                   for x, y in zip(pre, gpt.gelu(pre)))
    ticks = "".join(f'<text x="{sx(x):.1f}" y="{H - 4}" text-anchor="middle">{short(x)}</text>'
                    for x in (-4, -2, 0, 2, 4))
    ticks += "".join(f'<text x="{sx(0) - 4:.1f}" y="{sy(y) + 4:.1f}" text-anchor="end">{short(y)}</text>'
                     for y in (2, 4))
    label = (f"The GELU curve from {short(lo)} to {short(hi)}, drawn through {len(xs)} computed "
             f"points; the dots are the {len(pre)} values of the last row before GELU.")
    return (f'<figure id="figure-gelu" class="gelu-curve">'
            f'<svg viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{label}" '
            f'font-size="11" fill="currentColor">'
            f'<line x1="20" y1="{sy(0):.1f}" x2="{W - 20}" y2="{sy(0):.1f}" stroke="currentColor" stroke-opacity="0.4"/>'
            f'<line x1="{sx(0):.1f}" y1="20" x2="{sx(0):.1f}" y2="{H - 20}" stroke="currentColor" stroke-opacity="0.4"/>'
            f'{ticks}<polyline points="{curve}" fill="none" stroke="currentColor" stroke-width="2"/>'
            f'<g fill="var(--md-accent-fg-color, #526cfe)">{dots}</g></svg>'
            f"<figcaption>{label}</figcaption></figure>")


@toy.table("residual")
def residual_table(ex: Example) -> str:
    """The two residual sums of the block, row by row."""
    b = ex.block
    rows = [[token_code(t), vector(x), vector(a), vector(h), vector(m), vector(y)]
            for t, x, a, h, m, y in zip(ex.tokens, b["X"], b["attn"], b["h"], b["m"], b["y"])]
    return html_table("table-residual", ["token", im("x_t"), im("a_t W_O"), im("h_t = x_t + a_t W_O"),
                                         im("m_t"), im("y_t = h_t + m_t")], rows, wrap={1, 2, 3, 4, 5})


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
