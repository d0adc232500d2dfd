"""The nano-gpt chapter's page Output (docs/nano-gpt/output.md): the
logits, the probabilities and the generation loop."""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..draw import figure, stacked_bars_svg
from ..nano_example import Run
from ..render import aligned, fixed, html_table, math_block, tex, tex_vector
from .cells import activations
from .shared import check_t, ignored_positions, letter_at, letter_id, nano_gpt


@nano_gpt.matrix("p", live=True)
def p_matrix(run: Run) -> str:
    """The output probabilities, one row per position, one column per letter."""
    p = run.trace["p"]
    return activations(run, "nano-p", p, "Output probabilities", "p", len(nanogpt.VOCAB),
                       col_names=[f"p({l})" for l in nanogpt.VOCAB], col_picks=[0, 1, 2], kind="prob")


@nano_gpt.formula("logit", live=True)
def logit_formula(run: Run, t: int = 6, letter: str = "A", terms: int = 3) -> str:
    """One letter's logit as f_t · W_U, first terms shown."""
    row = check_t(run, t)
    i = letter_id(letter)
    f, W = run.trace["f"][row], run.params["W_U"][:, i]
    parts = " + ".join(f"({tex(fixed(f[k]))})({tex(fixed(W[k]))})" for k in range(terms))
    return aligned([(f"z_{{{t},\\mathrm{{{letter}}}}}", f"f_{t} \\cdot W_U^{{({letter})}}"),
                    ("", f"{parts} + \\dots"), ("", tex(fixed(run.trace["z"][row, i])))])


@nano_gpt.formula("softmax", live=True)
def softmax_formula(run: Run, t: int = 6) -> str:
    """The softmax of one position's logits, with the shift by the largest."""
    i = check_t(run, t)
    z = run.trace["z"][i]
    m, e = z.max(), np.exp(z - z.max())
    p = run.trace["p"][i]
    return math_block(f"p_i = \\frac{{e^{{z_i - {tex(fixed(m))}}}}}{{{tex(fixed(e.sum()))}}},\\quad "
                      f"p = {tex_vector(p)}")


@nano_gpt.table("generate", live=True)
def generate_table(run: Run) -> str:
    """The generation loop: read, predict, append, six times."""
    body = []
    for k, s in enumerate(run.steps):
        body.append([str(k + 1), " ".join(nanogpt.VOCAB[i] for i in s["ids"])]
                    + [fixed(v) for v in s["p"]] + [f"<strong>{nanogpt.VOCAB[s['next']]}</strong>"])
    return html_table("nano-generate", ["step", "the model reads", "p(A)", "p(B)", "p(C)", "appends"],
                      body, caption="Greedy decoding: the probabilities of the last column, "
                                    "and the letter appended")


@nano_gpt.figure("generate", live=True)
def generate_figure(run: Run) -> str:
    """The generation loop as stacked bars: at each step the probabilities
    of A, B and C, and the letter appended."""
    V = list(nanogpt.VOCAB)
    labels = [f"step {k + 1}" for k in range(len(run.steps))]
    rows = [[float(v) for v in s["p"]] for s in run.steps]
    titles = [[f"step {k + 1}, p({l}) = {fixed(v)}" for l, v in zip(V, row)] for k, row in enumerate(rows)]
    after = [f"→ {V[s['next']]}" for s in run.steps]
    drawing = stacked_bars_svg(labels, V, rows, titles,
                               f"Stacked bars, one per step of the generation loop: the probabilities of "
                               f"{', '.join(V)} cut one bar, and the letter appended after it", after)
    return figure("nano-generate", drawing,
                  "Each bar is one step's probabilities, adding up to 1; the arrow gives the letter appended")


@nano_gpt.number("min_step_p", live=True)
def min_step_p_number(run: Run, places: int = 3) -> str:
    """The lowest probability the chosen letter has in any step of the generation."""
    return fixed(min(s["p"][s["next"]] for s in run.steps), places)


@nano_gpt.number("percent", live=True)
def percent_number(run: Run, letter: str = "A", t: int = 6) -> str:
    """The probability of a letter at position t as a percentage, one place: 99.4 % (letter="top": of the most probable)."""
    i = check_t(run, t)
    return f"{100 * run.trace['p'][i, letter_at(run, letter, i)]:.1f} %"


@nano_gpt.number("untrained_top", live=True)
def untrained_top_number(run: Run) -> str:
    """The least sure of the positions whose targets training ignored: the
    smallest of their largest probabilities."""
    return fixed(min(run.trace["p"][t].max() for t in ignored_positions(run)))
