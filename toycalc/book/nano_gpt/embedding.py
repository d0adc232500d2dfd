"""The nano-gpt chapter's page Embedding (docs/nano-gpt/embedding.md): E, P
and their sum X, one row of it entry by entry."""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..nano_example import Run
from ..render import fixed, inline_math as im
from .cells import activations, heat, value_range, kind_words
from .shared import ROWS, by_channel, check_t, nano_gpt


def embedding_heat(run: Run, name: str, what: str, per: str, rows: list[str], of: list[str], cols: int) -> str:
    """E or P as a grid of cells, one row per letter or position (headed
    `rows`, a cell's words naming `of` it), the first `cols` channels shown."""
    W = run.params[name]
    return heat(f"nano-{name}", W, "weight", list(range(len(rows))), rows, list(range(cols)),
                [f"c = {c + 1}" for c in range(cols)], lambda j, c: f"{what} of {of[j]}, channel {c + 1}",
                f"{what.capitalize()} {im(name)}: one row of {run.cfg.d} per {per}, "
                f"{cols} of its {run.cfg.d} columns; its values run {value_range(W)} "
                f"({kind_words('weight')})", more_cols=run.cfg.d - cols)


@nano_gpt.matrix("E", live=True)
def E_matrix(run: Run, cols: int = ROWS) -> str:
    """The token embedding, one row per letter, named with its id."""
    return embedding_heat(run, "E", "token embedding", "letter",
                          [f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)], nanogpt.VOCAB, cols)


@nano_gpt.matrix("P", live=True)
def P_matrix(run: Run, cols: int = ROWS) -> str:
    """nano-gpt's position embedding P, one row per position (from 1)."""
    positions = [f"t = {t + 1}" for t in range(run.cfg.n_ctx)]
    return embedding_heat(run, "P", "position embedding", "position", positions, positions, cols)


@nano_gpt.matrix("X", live=True)
def X_matrix(run: Run, cols: int = ROWS) -> str:
    """The input embedding X = E[ids] + P as a grid of cells."""
    return activations(run, "nano-X", run.trace["X"], "Input embedding", "x", cols)


@nano_gpt.table("embed", live=True)
def embed_table(run: Run, t: int = 4, rows: int = ROWS) -> str:
    """The embedding of position t: token row + position row = input row."""
    i = check_t(run, t)
    tid, tr = run.ids[i], run.trace
    return by_channel(f"nano-embed-{t}", {f"token {nanogpt.VOCAB[tid]}: {im(f'E[{tid}]')}": tr["E_ids"][i],
                                          f"position: {im(f'P_{t}')}": tr["P_t"][i], im(f"x_{t}"): tr["X"][i]},
                      rows, f"The row of t = {t}, first {rows} of {run.cfg.d} channels")


@nano_gpt.number("letter", live=True)
def letter_number(run: Run, t: int = 4) -> str:
    """The letter at position t (from 1)."""
    return nanogpt.VOCAB[run.ids[check_t(run, t)]]


@nano_gpt.number("id", live=True)
def id_number(run: Run, t: int = 4) -> str:
    """The id at position t (from 1)."""
    return str(run.ids[check_t(run, t)])


@nano_gpt.number("largest", live=True)
def largest_number(run: Run, name: str = "E") -> str:
    """The largest entry, in size, of a weight matrix (E, P, W_U, ...)."""
    if name not in run.params:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(run.params)}")
    return fixed(np.abs(run.params[name]).max())
