"""The nano-gpt chapter's page Projection (docs/nano-gpt/projection.md): the
heads stacked, W_O, and the first residual sum."""
from __future__ import annotations

from ..nano_example import Run
from ..render import fixed, html_table, inline_math as im
from .cells import activations
from .shared import ROWS, block_trace, check_t, nano_gpt


@nano_gpt.matrix("A", live=True)
def A_matrix(run: Run, block: int = 1, per_head: int = 4) -> str:
    """The heads' outputs stacked: the first channels of each head (the
    others counted as "N more rows", which the browser can open)."""
    b = block_trace(run, block)
    A = run.cfg.d // run.cfg.n_heads
    picks = [h * A + i for h in range(run.cfg.n_heads) for i in range(min(per_head, A))]
    names = [f"head {c // A + 1}, c = {c}" for c in picks]
    return activations(run, f"nano-A-{block}", b["A"], f"Heads stacked, block {block}", "a",
                       0, row_names=names, row_picks=picks, more_rows=run.cfg.d - len(picks))


@nano_gpt.table("residual", live=True)
def residual_table(run: Run, t: int = 5, block: int = 1, rows: int = ROWS) -> str:
    """The residual sum at one position: heads joined, W_O, x and h."""
    check_t(run, t)
    b = block_trace(run, block)
    body = [[str(c), fixed(b["A"][t, c]), fixed(b["attn"][t, c]), fixed(b["X"][t, c]),
             fixed(b["h"][t, c])] for c in range(rows)]
    body.append(["⋮"] * 5)
    return html_table(f"nano-residual-{block}-{t}",
                      ["channel", im(f"a_{t}") + " (heads stacked)", im(f"a_{t} W_O + b_O"),
                       im(f"x_{t}") + " (block input)", im(f"h_{t} = x_{t} + a_{t} W_O + b_O")], body,
                      caption=f"Projection and residual at t = {t}, block {block}, "
                              f"first {rows} of {run.cfg.d} channels")
