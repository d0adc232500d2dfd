"""The toy chapter's page Training (docs/toy/training.md): one gradient
step on the book's sentence, after Output and Generation have shown the
whole model: the backward pass's first link (dL/dz = p − onehot), the
chain rule's last link back to E, and a finite-difference check of one
entry of dL/dE. (The loss, the table of dL/dE and the update are the
worked example's, book/end_to_end.py; the step itself is Example's.)"""
from __future__ import annotations

import numpy as np

from ...model import descent, gpt
from ..example_checks import token_id
from ..example import Example
from ..render import (aligned, fixed, html_table, inline_math as im, tex, tex_vector, token_code, token_tex,
                      vector, weights_vector)
from .shared import toy

FD_STEP = 1e-4   # the finite-difference step h of the gradient check

# Train's defaults, written into the trainer's data-* (this page's and End to End's)
toy.constant("train_steps", str(descent.TRAIN_STEPS), "How many steps the trainer's Train takes by default.")
toy.constant("train_learns", descent.TRAIN_LEARNS, 'Which weights Train moves by default: "E" or "all".')


@toy.formula("gradient")
def gradient_formula(ex: Example, other: str = "␣wall") -> str:
    """The backward pass's first step: dL/dz = p − onehot(target) for the
    target and one other token, then dL/df_t = (dL/dz) W_Uᵀ for the last row."""
    i, j, t = ex.target_id, token_id(ex, other), len(ex.ids)
    p = ex.p_last
    dz = p - np.eye(len(p))[i]
    df = (dz / ex.temperature) @ ex.model.params["W_U"].T
    name = lambda k: f"\\text{{{token_tex(ex.model.vocab[k])}}}"
    return aligned([
        ("\\frac{\\partial L}{\\partial z_i}", "p_i - [\\, i = \\text{target} \\,]"),
        (f"\\frac{{\\partial L}}{{\\partial z_{{{name(i)}}}}}", f"{tex(fixed(p[i]))} - 1 = {tex(fixed(dz[i]))}"),
        (f"\\frac{{\\partial L}}{{\\partial z_{{{name(j)}}}}}", f"{tex(fixed(p[j]))} - 0 = {tex(fixed(dz[j]))}"),
        (f"\\frac{{\\partial L}}{{\\partial f_{t}}}",
         f"\\sum_i \\frac{{\\partial L}}{{\\partial z_i}}\\, W_U^{{(i)}} = {tex_vector(df)}")])


@toy.formula("chain_E")
def chain_E_formula(ex: Example) -> str:
    """The chain rule's last link for the last token: x_t = E[id] + P_t, so
    dL/dE[id] is dL/dx_t (summed over the positions where the token stands)."""
    i = ex.ids[-1]
    where = [k for k, j in enumerate(ex.ids) if j == i]
    dx = ex.grads["P"]   # P_t enters x_t alone, so dL/dP_t = dL/dx_t
    total = " + ".join(f"\\frac{{\\partial L}}{{\\partial x_{k + 1}}}" for k in where)
    return aligned([(f"\\frac{{\\partial L}}{{\\partial E[{i}]}}", total),
                    ("", tex_vector(sum(dx[k] for k in where)))])


def _loss_with(ex: Example, E) -> float:
    tr = gpt.forward(dict(ex.model.params, E=E), ex.model.cfg, ex.ids, ex.n_heads, ex.temperature)
    return gpt.cross_entropy(tr["p"], ex.targets)


def finite_difference(ex: Example, row: int, column: int) -> tuple[float, float, float]:
    """(L with E[row, column] + h, L with it − h, their central difference)."""
    E = ex.model.params["E"].astype(float)
    up, down = E.copy(), E.copy()
    up[row, column] += FD_STEP
    down[row, column] -= FD_STEP
    Lu, Ld = _loss_with(ex, up), _loss_with(ex, down)
    return Lu, Ld, (Lu - Ld) / (2 * FD_STEP)


@toy.formula("finite_difference")
def finite_difference_formula(ex: Example, places: int = 6) -> str:
    """The check of one entry of dL/dE, the largest of the last token's row:
    the central difference with step h beside the backward pass's value,
    both to `places` places (more than the book's three, to show them agree)."""
    i = ex.ids[-1]
    c = int(np.argmax(np.abs(ex.grads["E"][i])))
    Lu, Ld, numeric = finite_difference(ex, i, c)
    h = f"{FD_STEP:.0e}".replace("e-0", "e-")
    mant, exp = h.split("e")
    h_tex = f"10^{{{int(exp)}}}" if mant == "1" else f"{mant} \\cdot 10^{{{int(exp)}}}"
    entry = f"E_{{{i},{c + 1}}}"
    return aligned([
        (f"\\frac{{L({entry} + h) - L({entry} - h)}}{{2h}}",
         f"\\frac{{{tex(fixed(Lu, places + 2))} - {tex(fixed(Ld, places + 2))}}}{{2 \\cdot {h_tex}}}"
         f" = {tex(fixed(numeric, places))}"),
        (f"\\frac{{\\partial L}}{{\\partial {entry}}}\\ \\text{{(backward pass)}}",
         tex(fixed(ex.grads["E"][i, c], places)))])


@toy.table("step")
def step_table(ex: Example) -> str:
    """The step on every row of E the sentence read: the row before and
    after E − η dL/dE (the other rows do not move)."""
    E, new = ex.model.params["E"], ex.stepped_E
    rows = [[str(i), token_code(ex.model.vocab[i]), weights_vector(E[i]), vector(new[i])]
            for i in ex.sentence_rows]
    return html_table("table-step", ["id", "token", im("E_i") + " before",
                                     im("E_i - \\eta\\, \\partial L / \\partial E_i") + " after"], rows)
