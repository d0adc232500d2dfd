"""nano-gpt's coloured cells, which every page of its chapter draws
matrices with, in the book's one visual language: a signed number blue
(negative), grey (zero: it prints 0.000) or orange (positive), the shade
growing with its size against the largest of its matrix; a share in [0, 1]
(attention weights, probabilities) purple, the shade growing with it. A
learned weight's cell is framed: weights and activations are told apart by
the frame and the caption's words, not by colour. Big matrices are
summarised by a corner, with the range of all their values (the browser
can open them: shared.openable)."""
from __future__ import annotations

import html

import numpy as np

from ...model import nanogpt
from ..nano_example import Run
from ..render import count, fixed, inline_math as im


KINDS = ("act", "weight", "prob")   # an activation, a learned weight, a share in [0, 1]


def tone(value: float, text: str, kind: str) -> str:
    """The colour's class: purple for a share, else the sign of what the
    cell prints (a value that prints 0.000 is grey, as the key shows zero)."""
    if kind == "prob":
        return "nano-prob"
    return "nano-zero" if text == fixed(0) else "nano-pos" if value > 0 else "nano-neg"


def cell(value: float, kind: str, label: str, scale: float) -> str:
    """One coloured cell: its value printed, in its title (hover) and its
    aria-label (read on keyboard focus); the shade grows with |value|
    against scale (a share's against 1), a weight's cell is framed.
    Reached by the arrow keys, not by Tab (see one_tab_stop)."""
    if kind not in KINDS:
        raise ValueError(f"kind = {kind!r}: expected one of {', '.join(KINDS)}")
    text = fixed(value)
    alpha = 0.08 + 0.55 * min(abs(float(value)) / scale, 1.0) if scale > 0 else 0.08
    said = html.escape(f"{label}: {text}")
    framed = " nano-weight" if kind == "weight" else ""
    return (f'<td class="nano-cell {tone(value, text, kind)}{framed}" tabindex="-1" title="{said}" '
            f'aria-label="{said}" style="--shade:{alpha:.2f}">{text}</td>')


def heat(table_id: str, M, kind: str, rows: list[int], row_names: list[str], cols: list[int],
         col_names: list[str], label, caption: str, blank=lambda r, c: False,
         more_rows: int = 0, more_cols: int = 0) -> str:
    """A matrix as coloured cells. M is indexed [row, col] as displayed;
    label(r, c) names a cell in words; blank(r, c) leaves a cell empty.
    A share's shade is against 1, a signed value's against the largest size."""
    scale = 1.0 if kind == "prob" else float(np.abs(M).max())
    head = "".join(f'<th scope="col">{n}</th>' for n in col_names)
    if more_cols:
        head += f'<th scope="col">… {more_cols} more</th>'
    lines = [f'<table id="{html.escape(table_id)}" class="nano-matrix nano-matrix--{kind}">',
             f"<caption>{caption}</caption>", f'<thead><tr><td></td>{head}</tr></thead>', "<tbody>"]
    for r, name in zip(rows, row_names):
        cells = "".join('<td class="nano-cell nano-masked"></td>' if blank(r, c)
                        else cell(M[r, c], kind, label(r, c), scale) for c in cols)
        if more_cols:
            cells += '<td class="nano-more">…</td>'
        lines.append(f'<tr><th scope="row">{name}</th>{cells}</tr>')
    if more_rows:
        span = len(cols) + (1 if more_cols else 0)
        lines.append(f'<tr><th scope="row">⋮</th><td class="nano-more" colspan="{span}">'
                     f"{more_rows} more rows</td></tr>")
    lines.append("</tbody></table>")
    return one_tab_stop("\n".join(lines))


def one_tab_stop(table: str) -> str:
    """A matrix is one stop of the Tab key, its first cell; the arrow keys
    move within it (docs/javascripts/letters.js), so that an opened W_1
    does not put 9,216 stops between the reader and the next paragraph."""
    return table.replace('tabindex="-1"', 'tabindex="0"', 1)


def value_range(M) -> str:
    return f"from {fixed(np.min(M))} to {fixed(np.max(M))}"


def kind_words(kind: str) -> str:
    """What a matrix's caption says of its cells (the legend draws them)."""
    return {"act": "activations, computed from this input: blue negative, orange positive",
            "weight": "learned weights, framed: the same for every input; blue negative, orange positive",
            "prob": "computed from this input, each from 0 to 1: the stronger the purple, the larger"}[kind]


def activations(run: Run, table_id: str, M, what: str, symbol: str, cols: int,
                col_names=None, col_picks=None, more_cols: int | None = None, kind: str = "act") -> str:
    """A T x n activation as the book draws every sequence: one row per
    position (t = 1 to T, with its letter), one column per channel; the
    first `cols` channels shown (or the channels col_picks, with more_cols
    counted as not shown); kind "prob" for shares in [0, 1]."""
    T, n = M.shape
    picks = list(range(min(cols, n))) if col_picks is None else col_picks
    names = col_names or [f"c = {c + 1}" for c in picks]
    shown = f"all {n} columns" if len(picks) == n else f"{len(picks)} of its {n} columns"
    caption = (f"{what} {im(symbol)}: {T} × {n}, one row per letter; "
               f"{shown}, its {count(T * n)} values run {value_range(M)} ({kind_words(kind)})")
    letters = [nanogpt.VOCAB[i] for i in run.ids[:T]]
    return heat(table_id, M, kind, list(range(T)), [f"t = {t + 1} {letters[t]}" for t in range(T)],
                picks, names, lambda t, c: f"{what}, t = {t + 1} ({letters[t]}), channel {c + 1}", caption,
                more_cols=(n - len(picks) if col_picks is None else 0) if more_cols is None else more_cols)


def weights(table_id: str, W, what: str, symbol: str, rows: int, cols: int,
            col_names=None) -> str:
    """A weight matrix: its top-left corner, with its shape and range."""
    n, m = W.shape
    r, c = min(rows, n), min(cols, m)
    shown = "all of it" if (r, c) == (n, m) else f"rows 1 to {r} and columns 1 to {c}"
    caption = (f"{what} {im(symbol)}: {n} × {m}, {shown}; its {count(n * m)} values run "
               f"{value_range(W)} ({kind_words('weight')})")
    return heat(table_id, W, "weight", list(range(r)), [str(i + 1) for i in range(r)], list(range(c)),
                col_names or [str(j + 1) for j in range(c)],
                lambda i, j: f"{what}, row {i + 1}, column {j + 1}", caption,
                more_rows=n - r, more_cols=m - c)
