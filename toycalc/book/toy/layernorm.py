"""The toy chapter's page LayerNorm (docs/toy/layernorm.md): each row's
mean and spread before and after, epsilon, and the second LayerNorm on a
row whose mean is not zero."""
from __future__ import annotations

import math

import numpy as np

from ...model import gpt
from ..draw import figure, number_line_svg
from ..example import Example
from ..example_checks import check_position
from ..render import aligned, fixed, html_table, inline_math as im, tex, tex_vector, token_code, vector
from .shared import toy


@toy.table("ln_rows")
def ln_rows_table(ex: Example) -> str:
    """Each row's mean and standard deviation before and after LayerNorm."""
    b = ex.block
    rows = [[token_code(t), fixed(mu), fixed(s), fixed(u.mean()), fixed(u.std())]
            for t, mu, s, u in zip(ex.tokens, b["mu"], b["sigma"], b["u"])]
    return html_table("table-ln-rows", ["token", im("\\mu"), im("\\sigma"),
                                        "mean of " + im("u_t"), "std of " + im("u_t")], rows)


@toy.formula("ln_h")
def ln_h_formula(ex: Example) -> str:
    """The second LayerNorm on the last row of h, where the mean is not zero: μ, h − μ, σ, u'."""
    b, t = ex.block, len(ex.ids)
    h = b["h"][-1]
    return aligned([(f"h_{t}", tex_vector(h)), ("\\mu", tex(fixed(b["mu2"][-1]))),
                    (f"h_{t} - \\mu", tex_vector(h - b["mu2"][-1])),
                    ("\\sigma", tex(fixed(b["sigma2"][-1]))),
                    (f"u'_{t} = (h_{t} - \\mu) / \\sigma", tex_vector(b["u2"][-1]))])


PRIME = "u^\\prime_{t}"
SIGN_KEY = ('<p class="fig-legend fig-key"><span class="swatch v-neg"></span> a negative number '
            '<span class="swatch v-pos"></span> a positive one; the dashed mark: the row\'s mean μ, the '
            "bracket: one standard deviation σ either side. "
            '<span class="screen-only">Point at or tap a dot for its value.</span></p>')


@toy.figure("layernorm")
def layernorm_figure(ex: Example, t: int = 0) -> str:
    """One row before and after LayerNorm on a number line: h_t, whose mean
    is not zero, and u'_t = LN(h_t), centred on 0 and scaled (default t:
    the last position). h comes after attention: drawn with the weights
    file's own heads, whatever the reader chose, since this page comes
    before heads are met."""
    ex = ex.with_heads(ex.model.heads)
    t = t or len(ex.ids)
    check_position(ex, t, name="t")
    b = ex.block
    h, u2 = b["h"][t - 1], b["u2"][t - 1]
    return figure("layernorm", number_line_svg(
        [(f"h_{t}", h.tolist()), (f"u'_{t}", u2.tolist())],
        [(f"h_{t}", float(b["mu2"][t - 1]), float(b["sigma2"][t - 1])),
         (f"u'_{t}", float(u2.mean()), float(u2.std()))],
        f"The {len(h)} numbers of h{_sub(t)} and of u′{_sub(t)} = LN(h{_sub(t)}) on a number line, each row "
        "with its mean μ and a bracket one standard deviation σ to either side") + SIGN_KEY,
        f"{im(f'h_{t}')} and {im(PRIME.format(t=t))} = LN({im(f'h_{t}')}): centred on its mean μ, "
        f"divided by its spread σ (with {ex.n_heads} head{'s' * (ex.n_heads > 1)})")


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
