"""The toy chapter's page LayerNorm (docs/toy/layernorm.md): each row's
mean and spread before and after, epsilon, and the last row of X on a
number line. The second LayerNorm, on h (a row whose mean is not zero),
is drawn on the MLP page, after attention has made h."""
from __future__ import annotations

import math

import numpy as np

from ...model import gpt
from ..draw import figure, number_line_svg
from ..example import Example
from ..example_checks import check_position
from ..render import fixed, html_table, inline_math as im, token_code, vector
from .shared import toy


@toy.table("ln_rows")
def ln_rows_table(ex: Example) -> str:
    """Each row's mean and standard deviation before and after LayerNorm."""
    b = ex.block
    rows = [[token_code(t), fixed(mu), fixed(s), fixed(u.mean()), fixed(u.std())]
            for t, mu, s, u in zip(ex.tokens, b["mu"], b["sigma"], b["u"])]
    return html_table("table-ln-rows", ["token", im("\\mu"), im("\\sigma"),
                                        "mean of " + im("u_t"), "std of " + im("u_t")], rows)


PRIME = "u^\\prime_{t}"
SIGN_KEY = ('<p class="fig-legend fig-key"><span class="swatch v-neg"></span> a negative number '
            '<span class="swatch v-pos"></span> a positive one; the dashed mark: the row\'s mean μ, the '
            "bracket: one standard deviation σ either side. "
            '<span class="screen-only">Point at or tap a dot for its value.</span></p>')


@toy.figure("layernorm")
def layernorm_figure(ex: Example, t: int = 0, row: str = "x") -> str:
    """One row before and after a LayerNorm on a number line (default t:
    the last position). row="x": x_t and u_t = LN(x_t), the block's first
    LayerNorm, on the LayerNorm page; its mean is zero already in the toy,
    so only the division shows. row="h": h_t, the row after attention, and
    u'_t = LN(h_t), the second LayerNorm, on the MLP page, where attention
    has been taught; its mean is not zero, so the centring shows too."""
    if row not in ("x", "h"):
        raise ValueError(f'row must be "x" (the first LayerNorm) or "h" (the second), not {row!r}')
    t = t or len(ex.ids)
    check_position(ex, t, name="t")
    b = ex.block
    i = t - 1
    if row == "x":
        before, after, mu, sigma, out = ex.trace["X"][i], b["u"][i], b["mu"][i], b["sigma"][i], "u"
    else:
        before, after, mu, sigma, out = b["h"][i], b["u2"][i], b["mu2"][i], b["sigma2"][i], "u'"
    name, out_tex = f"{row}_{t}", (PRIME if row == "h" else "u_{t}").format(t=t)
    shown_out = out.replace("'", "′")
    return figure("layernorm", number_line_svg(
        [(name, before.tolist()), (f"{out}_{t}", after.tolist())],
        [(name, float(mu), float(sigma)), (f"{out}_{t}", float(after.mean()), float(after.std()))],
        f"The {len(before)} numbers of {row}{_sub(t)} and of {shown_out}{_sub(t)} = LN({row}{_sub(t)}) on a "
        "number line, each row with its mean μ and a bracket one standard deviation σ to either side") + SIGN_KEY,
        f"{im(name)} and {im(out_tex)} = LN({im(name)}): centred on its mean μ, divided by its spread σ"
        + (f" (with {ex.n_heads} head{'s' * (ex.n_heads > 1)})" if row == "h" else ""), row=row)


def _sub(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


@toy.number("eps")
def eps_number(ex: Example) -> str:
    """LayerNorm's epsilon, as inline TeX."""
    return im(f"10^{{{round(math.log10(gpt.LN_EPS))}}}")


@toy.number("ln_mean")
def ln_mean(ex: Example) -> str:
    """The mean of each row of u, when every row rounds alike (else the list)."""
    means = {fixed(m) for m in ex.block["u"].mean(axis=1)}
    return means.pop() if len(means) == 1 else vector(ex.block["u"].mean(axis=1))


@toy.number("ln_std")
def ln_std(ex: Example) -> str:
    """The standard deviation of each row of u, when every row rounds alike."""
    stds = {fixed(s) for s in ex.block["u"].std(axis=1)}
    return stds.pop() if len(stds) == 1 else vector(ex.block["u"].std(axis=1))


@toy.number("x_centred")
def x_centred_number(ex: Example) -> str:
    """Whether the rows of X already have mean zero (every row of E and of P
    summing to zero), as a sentence; else their means."""
    E, P, X = ex.model.params["E"], ex.model.params["P"], ex.trace["X"]
    if np.allclose(E.sum(axis=1), 0, atol=1e-12) and np.allclose(P.sum(axis=1), 0, atol=1e-12):
        return (f"In the toy the rows of {im('X')} already have mean zero, because every row of "
                f"{im('E')} and every row of {im('P')} sums to zero: on {im('X')}, LayerNorm only divides")
    return f"The rows of {im('X')} have the means {vector(X.mean(axis=1))}, and LayerNorm subtracts them"
