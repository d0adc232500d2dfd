"""The nano-gpt chapter's page Embedding (docs/nano-gpt/embedding.md): E, P
and their sum X, one column of it entry by entry."""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..nano_example import Run
from ..render import fixed, html_table, inline_math as im
from .cells import activations, heat, value_range, kind_words
from .shared import ROWS, check_t, nano_gpt


@nano_gpt.matrix("E", live=True)
def E_matrix(run: Run, rows: int = ROWS) -> str:
    """The token embedding, one column per letter (the walkthrough's layout)."""
    return heat("nano-E", run.params["E"].T, "weight", list(range(rows)),
                [f"c = {c}" for c in range(rows)], [0, 1, 2],
                [f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)],
                lambda c, i: f"token embedding of {nanogpt.VOCAB[i]}, channel {c}",
                f"Token embedding {im('E')}: one column of {run.cfg.d} per letter, "
                f"{rows} of its {run.cfg.d} rows; its values run {value_range(run.params['E'])} "
                f"({kind_words('weight')})", more_rows=run.cfg.d - rows)


@nano_gpt.matrix("P", live=True)
def P_matrix(run: Run, rows: int = ROWS) -> str:
    """nano-gpt's position embedding P as a grid of cells, first rows shown."""
    n = run.cfg.n_ctx
    return heat("nano-P", run.params["P"].T, "weight", list(range(rows)),
                [f"c = {c}" for c in range(rows)], list(range(n)), [f"t = {t}" for t in range(n)],
                lambda c, t: f"position embedding of t = {t}, channel {c}",
                f"Position embedding {im('P')}: one column of {run.cfg.d} per position, "
                f"{rows} of its {run.cfg.d} rows; its values run {value_range(run.params['P'])} "
                f"({kind_words('weight')})", more_rows=run.cfg.d - rows)


@nano_gpt.matrix("X", live=True)
def X_matrix(run: Run, rows: int = ROWS) -> str:
    """The input embedding X = E[ids] + P as a grid of cells."""
    return activations(run, "nano-X", run.trace["X"], "Input embedding", "x", rows)


@nano_gpt.table("embed", live=True)
def embed_table(run: Run, t: int = 3, rows: int = ROWS) -> str:
    """The embedding of time t: token column + position column = input column."""
    check_t(run, t)
    i, tr = run.ids[t], run.trace
    body = [[str(c), fixed(tr["E_ids"][t, c]), fixed(tr["P_t"][t, c]), fixed(tr["X"][t, c])]
            for c in range(rows)]
    body.append(["⋮", "⋮", "⋮", "⋮"])
    letter = nanogpt.VOCAB[i]
    return html_table(f"nano-embed-{t}", ["channel", f"token {letter}: {im(f'E[{i}]')}",
                                          f"position: {im(f'P[{t}]')}", im(f"x_{t}")], body,
                      caption=f"The column of t = {t}, first {rows} of {run.cfg.d} channels")


@nano_gpt.number("letter", live=True)
def letter_number(run: Run, t: int = 3) -> str:
    """The letter at position t (0-based)."""
    check_t(run, t)
    return nanogpt.VOCAB[run.ids[t]]


@nano_gpt.number("id", live=True)
def id_number(run: Run, t: int = 3) -> str:
    """The id at position t (0-based)."""
    check_t(run, t)
    return str(run.ids[t])


@nano_gpt.number("largest", live=True)
def largest_number(run: Run, name: str = "E") -> str:
    """The largest entry, in size, of a weight matrix (E, P, W_U, ...)."""
    if name not in run.params:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(run.params)}")
    return fixed(np.abs(run.params[name]).max())
