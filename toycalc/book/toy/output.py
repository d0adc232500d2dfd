"""The toy chapter's page Output (docs/toy/output.md): W_U, why one token's
logit beats another's, softmax unchanged by a constant, and temperature.
The page prints the logits and p once, in the softmax table
(book/end_to_end.py); what follows refers back to it.

TEMPERATURES are the chapter's: the Generation page's rules and figure
use them too (book/toy/generation.py).
"""
from __future__ import annotations

import numpy as np

from ...model import gpt
from ..draw import bars_svg, figure
from ..example_checks import token_id
from ..example import Example
from ..render import (fixed, html_table, inline_math as im, math_block, short, tex, token_code, token_tex,
                      token_text, vector)
from .shared import toy

TEMPERATURES = (0.5, 1.0, 2.0)      # the temperatures the chapter compares
SHIFT = 10.0                        # the constant added to every logit on the Output page


@toy.table("W_U")
def W_U_table(ex: Example) -> str:
    """W_U printed by its columns: one row per token, the column of W_U
    that gives that token's logit, in the E table's layout."""
    W = ex.model.params["W_U"]
    rows = [[str(i), token_code(t)] + [short(v) for v in W[:, i]] for i, t in enumerate(ex.model.vocab)]
    return html_table("table-W-U", ["id", "token"] + [im(f"c_{{{c + 1}}}") for c in range(ex.model.cfg.d)],
                      rows)


def _contrast(ex: Example, a: str, b: str):
    ia, ib = token_id(ex, a), token_id(ex, b)
    f, W = ex.trace["f"][-1], ex.model.params["W_U"]
    return ia, ib, f, W, f * (W[:, ia] - W[:, ib])


@toy.table("contrast")
def contrast_table(ex: Example, a: str = "", b: str = "␣cat") -> str:
    """Why one token's logit beats another's, column by column of f:
    f_c, the two columns of W_U, and f_c times their difference; the terms
    add up to z_a − z_b. a defaults to the sentence's target."""
    a = a or ex.model.vocab[ex.target_id]
    ia, ib, f, W, terms = _contrast(ex, a, b)
    ta, tb = token_text(ex.model.vocab[ia]), token_text(ex.model.vocab[ib])
    rows = [[im(f"c_{{{c + 1}}}"), fixed(f[c]), short(W[c, ia]), short(W[c, ib]), fixed(terms[c])]
            for c in range(len(f))]
    rows.append(["sum", "", "", "", fixed(ex.trace["z"][-1, ia] * ex.temperature
                                          - ex.trace["z"][-1, ib] * ex.temperature)])
    return html_table("table-contrast", ["column", im("f_c"), f"{im('W_U')} of {ta}", f"{im('W_U')} of {tb}",
                                         "difference × " + im("f_c")], rows)


@toy.number("contrast")
def contrast_number(ex: Example, a: str = "", b: str = "␣cat", carrier: str = "␣climb") -> str:
    """Which column of f decides between two tokens' logits, as sentences:
    where their columns of W_U differ, the token whose row of E is largest
    in the deciding column (carrier) and the head that writes there; then
    where b's own row of E is largest, and whether W_U tells a from b there."""
    a = a or ex.model.vocab[ex.target_id]
    ia, ib, f, W, terms = _contrast(ex, a, b)
    ta, tb, tc = (token_text(ex.model.vocab[i]) for i in (ia, ib, token_id(ex, carrier)))
    differ = [c for c in range(len(f)) if W[c, ia] != W[c, ib]]
    k = int(np.argmax(np.abs(terms)))
    total = fixed(terms.sum())
    if len(differ) == 1:
        out = (f"The columns of {im('W_U')} for {ta} and {tb} differ only in entry {k + 1}, so the "
               f"difference of their logits, {total}, is that entry's term alone.")
    else:
        out = f"Of the difference of their logits, {total}, the largest term is column {k + 1}'s, {fixed(terms[k])}."
    E = ex.model.params["E"]
    ic = token_id(ex, carrier)
    head = k // (ex.model.cfg.d // ex.n_heads) + 1
    weight = sum(ex.block["weights"][head - 1, -1, j] for j, i in enumerate(ex.ids) if i == ic)
    winner = ta if terms.sum() > 0 else tb
    out += (f" Column {k + 1} of the residual stream is where {tc}'s row of {im('E')}, {vector(E[ic], short)}, is largest, and "
            f"where head {head} writes, a head that gives {fixed(weight)} of its weight to {tc}. "
            f"Here {im(f'f_{k + 1}')} = {fixed(f[k])}, so {winner} wins this contest.")
    kb = int(np.argmax(E[ib]))
    same = W[kb, ia] == W[kb, ib]
    out += (f" {tb}'s own row of {im('E')} is largest in column {kb + 1}, where the two columns of "
            f"{im('W_U')} " + ("agree: what the block carries about the cat there does not choose "
                               "between the two" if same else "differ too"))
    return out


@toy.formula("shift")
def shift_formula(ex: Example) -> str:
    """The top token's p written with the constant added, and cancelled."""
    i, z = ex.top_id, ex.trace["z"][-1]
    c, t = short(SHIFT), token_tex(ex.model.vocab[ex.top_id])
    return math_block(f"p(\\text{{{t}}}) = \\frac{{e^{{{tex(fixed(z[i]))} + {c}}}}}"
                      f"{{\\sum_j e^{{z_j + {c}}}}} = \\frac{{e^{{{c}}}\\, e^{{{tex(fixed(z[i]))}}}}}"
                      f"{{e^{{{c}}} \\sum_j e^{{z_j}}}} = {tex(fixed(ex.p_last[i]))}")


toy.constant("shift", short(SHIFT), "The constant the Output page adds to every logit.")


@toy.number("shift_diff")
def shift_diff(ex: Example) -> str:
    """The largest change in p when SHIFT is added to every logit, in TeX."""
    d = np.abs(gpt.softmax(ex.trace["z"][-1] + SHIFT) - ex.p_last).max()
    if d == 0:
        return "0"
    return im(f"{d:.0e}".replace("e-", "\\times 10^{-").replace("e+", "\\times 10^{") + "}")


@toy.figure("temperatures")
def temperatures_figure(ex: Example) -> str:
    """Small multiples: the next token's p at each temperature, tokens in
    the order of their logits (the same order in every panel)."""
    z = ex.trace["logits"][-1]
    order = sorted(range(len(z)), key=lambda i: (-z[i], i))
    labels = [ex.model.show(i) for i in order]
    panels = []
    for T in TEMPERATURES:
        p = gpt.softmax(z / T)
        panels.append(figure("temperatures", bars_svg(labels, [float(p[i]) for i in order],
                                                      f"p of each next token at temperature {short(T)}", top=0),
                             f"{im('T = ' + short(T))}", temperature=short(T)))
    return f'<div class="fig-row">{"".join(panels)}</div>'


@toy.number("temperatures")
def temperatures_number(ex: Example) -> str:
    """The temperatures the chapter compares, as a list in words."""
    ts = [short(t) for t in TEMPERATURES]
    return ", ".join(ts[:-1]) + " and " + ts[-1]


@toy.number("top_at")
def top_at(ex: Example) -> str:
    """The most probable token and its p, at the call's temperature."""
    p = ex.p_last
    return f"{token_text(ex.model.vocab[int(np.argmax(p))])} ({fixed(p.max())})"


@toy.number("same_order")
def same_order(ex: Example) -> str:
    """'the same' if every temperature sorts the vocabulary alike, else 'a different'."""
    z = ex.trace["logits"][-1]
    orders = {tuple(np.argsort(-gpt.softmax(z / T), kind="stable")) for T in TEMPERATURES}
    return "the same" if len(orders) == 1 else "a different"
