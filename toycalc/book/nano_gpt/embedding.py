"""The nano-gpt chapter's page Embedding (docs/nano-gpt/embedding.md): E, P
and their sum X, one column of it entry by entry."""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..nano_example import Run
from ..render import fixed, inline_math as im
from .cells import activations, heat, value_range, kind_words
from .shared import ROWS, by_channel, check_t, nano_gpt


def embedding_heat(run: Run, name: str, what: str, per: str, columns: list[str], of: list[str], rows: int) -> str:
    """E or P as a grid of cells, as the walkthrough lays them out: one
    column per letter or position (headed `columns`, a cell's words naming
    `of` it), the first `rows` channels shown."""
    W = run.params[name]
    return heat(f"nano-{name}", W.T, "weight", list(range(rows)), [f"c = {c}" for c in range(rows)],
                list(range(len(columns))), columns, lambda c, j: f"{what} of {of[j]}, channel {c}",
                f"{what.capitalize()} {im(name)}: one column of {run.cfg.d} per {per}, "
                f"{rows} of its {run.cfg.d} rows; its values run {value_range(W)} "
                f"({kind_words('weight')})", more_rows=run.cfg.d - rows)


@nano_gpt.matrix("E", live=True)
def E_matrix(run: Run, rows: int = ROWS) -> str:
    """The token embedding, one column per letter (the walkthrough's layout)."""
    return embedding_heat(run, "E", "token embedding", "letter",
                          [f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)], nanogpt.VOCAB, rows)


@nano_gpt.matrix("P", live=True)
def P_matrix(run: Run, rows: int = ROWS) -> str:
    """nano-gpt's position embedding P as a grid of cells, first rows shown."""
    positions = [f"t = {t}" for t in range(run.cfg.n_ctx)]
    return embedding_heat(run, "P", "position embedding", "position", positions, positions, rows)


@nano_gpt.matrix("X", live=True)
def X_matrix(run: Run, rows: int = ROWS) -> str:
    """The input embedding X = E[ids] + P as a grid of cells."""
    return activations(run, "nano-X", run.trace["X"], "Input embedding", "x", rows)


@nano_gpt.table("embed", live=True)
def embed_table(run: Run, t: int = 3, rows: int = ROWS) -> str:
    """The embedding of time t: token column + position column = input column."""
    check_t(run, t)
    i, tr = run.ids[t], run.trace
    return by_channel(f"nano-embed-{t}", {f"token {nanogpt.VOCAB[i]}: {im(f'E[{i}]')}": tr["E_ids"][t],
                                          f"position: {im(f'P[{t}]')}": tr["P_t"][t], im(f"x_{t}"): tr["X"][t]},
                      rows, f"The column of t = {t}, first {rows} of {run.cfg.d} channels")


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
