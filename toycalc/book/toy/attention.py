"""The toy chapter's page Attention (docs/toy/attention.md): the masked
scores, one cell of Q as a dot product, and each head switched off in
turn (the ablation). Heads count from 1."""
from __future__ import annotations

import math

import numpy as np

from ...model import gpt
from ..example_checks import check_head
from ..example import Example
from ..render import (MINUS, signed_sum, fixed, html_table, inline_math as im, math_block, short, tex,
                      token_code, token_text)
from .shared import toy


@toy.table("scores")
def scores_table(ex: Example, head: int = 0) -> str:
    """A head's scaled scores, −∞ where the causal mask hides a later key."""
    if head == 0:
        return "\n".join(scores_table(ex, h) for h in range(1, ex.n_heads + 1))
    check_head(ex, head)
    s = ex.block["scores"][head - 1]
    rows = [[token_code(q)] + [fixed(s[i, j]) if j <= i else MINUS + "∞" for j in range(len(ex.ids))]
            for i, q in enumerate(ex.tokens)]
    return html_table(f"table-scores-{head}", [f"head {head}"] + [token_code(k) for k in ex.tokens],
                      rows, caption=f"Head {head}: the scores {im('s_{t,j}')} after the mask")


@toy.formula("column")
def column_formula(ex: Example) -> str:
    """One cell of Q as a dot product of the last row of u with a column of W_Q."""
    u, W = ex.block["u"][-1], ex.model.params["blocks.0.W_Q"]
    t = len(ex.ids)
    terms = signed_sum([(a, f"{tex(fixed(abs(a)))} \\cdot {tex(short(w))}") for a, w in zip(u, W[:, 0])])
    return math_block(f"Q_{{{t},1}} = u_{t} \\cdot W_Q^{{(1)}} = {terms} = {tex(fixed(ex.block['Q'][-1, 0]))}")


@toy.number("sqrt_d_head")
def sqrt_d_head(ex: Example) -> str:
    """The square root of the width of a head: the scores' divisor."""
    return fixed(math.sqrt(ex.model.cfg.d // ex.n_heads))


def ablated_p(ex: Example, head: int | None) -> np.ndarray:
    """The last row's p with one head switched off: its output, before W_O,
    set to zero (the same as zeroing its rows of W_O). head=None: none off."""
    params = dict(ex.model.params)
    if head is not None:
        check_head(ex, head)
        w = ex.model.cfg.d // ex.n_heads
        W_O = params["blocks.0.W_O"].copy()
        W_O[(head - 1) * w:head * w] = 0
        params["blocks.0.W_O"] = W_O
    return gpt.forward(params, ex.model.cfg, ex.ids, ex.n_heads, ex.temperature)["p"][-1]


@toy.table("ablation")
def ablation_table(ex: Example) -> str:
    """Each head switched off in turn (its output before W_O set to zero):
    what the model then predicts, and p of the sentence's target."""
    t = token_text(ex.model.vocab[ex.target_id])
    rows = []
    for head in [None] + list(range(1, ex.n_heads + 1)):
        p = ablated_p(ex, head)
        top = int(np.argmax(p))
        rows.append(["none" if head is None else f"head {head}", token_code(ex.model.vocab[top]),
                     fixed(p[top]), fixed(p[ex.target_id])])
    return html_table("table-ablation", ["head switched off", "prediction", "its p", f"p({t})"], rows)


@toy.number("ablation")
def ablation_number(ex: Example) -> str:
    """What switching off each head does to the prediction, as a sentence."""
    base = int(np.argmax(ablated_p(ex, None)))
    parts = []
    for head in range(1, ex.n_heads + 1):
        p = ablated_p(ex, head)
        top = int(np.argmax(p))
        word = token_text(ex.model.vocab[top])
        parts.append(f"without head {head} it {'still predicts' if top == base else 'predicts'} "
                     f"{word} ({fixed(p[top])})")
    if ex.n_heads == 1:
        return f"With its only head switched off, the model {parts[0][len('without head 1 it '):]}"
    return "Switched off one at a time: " + ", ".join(parts[:-1]) + " and " + parts[-1]


@toy.number("ablation_reading")
def ablation_reading_number(ex: Example) -> str:
    """What the head ablation says about the heads' division of work, as
    sentences for the run's heads: which heads the prediction needs, and
    where a head that it does not need looks hardest."""
    base = int(np.argmax(ablated_p(ex, None)))
    tops = {h: ablated_p(ex, h) for h in range(1, ex.n_heads + 1)}
    needed = [h for h, p in tops.items() if int(np.argmax(p)) != base]
    spare = [h for h in tops if h not in needed]
    word = token_text(ex.model.vocab[base])
    if ex.n_heads == 1:
        return (f"With one head there is no work to divide: the model predicts {word} with its head "
                f"and without it" if not needed else
                f"With one head, that head carries the prediction: without it the model no longer "
                f"predicts {word}")
    if not spare:
        return f"Every head is needed here: without any one of them the model stops predicting {word}"
    if not needed:
        return (f"No single head decides: without any one of the {ex.n_heads} heads the model still "
                f"predicts {word}")
    h, k = needed[0], spare[0]
    others = "the other" if ex.n_heads == 2 else "the others"
    looks = ex.tokens[int(np.argmax(ex.block["weights"][k - 1, -1]))]
    return (f"Head {h} carries the prediction: without it the model predicts "
            f"{token_text(ex.model.vocab[int(np.argmax(tops[h]))])} instead of {word}. Head {k} "
            f"looks hardest at {token_text(looks)}, yet without it {word} still wins, at "
            f"{fixed(tops[k][base])} instead of {fixed(ablated_p(ex, None)[base])}. So the heads do "
            f"not share the work equally: {'one is' if len(needed) == 1 else 'some are'} needed for "
            f"{word}, {others} only change{'s' * (ex.n_heads == 2)} how sure the model is, and a name "
            f"taken from where a head looks (a subject head, say) would not tell what the prediction "
            f"needs from it")


@toy.number("heads_alone")
def heads_alone_number(ex: Example) -> str:
    """What the heads do with their columns, as a sentence for the run's heads."""
    if ex.n_heads == 1:
        return f"The one head does everything below on all the columns of {im('Q')}, {im('K')} and {im('V')}"
    return f"Each head does everything below on its own columns of {im('Q')}, {im('K')} and {im('V')} alone"
