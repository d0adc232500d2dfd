"""The nano-gpt chapter's page Projection (docs/nano-gpt/projection.md): the
heads stacked, W_O, and the first residual sum."""
from __future__ import annotations

from ..nano_example import Run
from ..render import inline_math as im
from .cells import activations
from .shared import ROWS, block_trace, by_channel, check_t, nano_gpt


@nano_gpt.matrix("A", live=True)
def A_matrix(run: Run, block: int = 1, per_head: int = 3) -> str:
    """The heads' outputs stacked: the first channels of each head (the
    others counted as "N more" columns, which the browser can open)."""
    b = block_trace(run, block)
    A = run.cfg.d // run.cfg.n_heads
    picks = [h * A + i for h in range(run.cfg.n_heads) for i in range(min(per_head, A))]
    names = [f"head {c // A + 1}<br>c = {c + 1}" for c in picks]   # two lines: 12 columns fit a page
    return activations(run, f"nano-A-{block}", b["A"], f"Heads stacked, block {block}", "a",
                       0, col_names=names, col_picks=picks, more_cols=run.cfg.d - len(picks))


@nano_gpt.table("residual", live=True)
def residual_table(run: Run, t: int = 6, block: int = 1, rows: int = ROWS) -> str:
    """The residual sum at one position: heads joined, W_O, x and h."""
    i = check_t(run, t)
    b = block_trace(run, block)
    return by_channel(f"nano-residual-{block}-{t}",
                      {im(f"a_{t}") + " (heads stacked)": b["A"][i], im(f"a_{t} W_O + b_O"): b["attn"][i],
                       im(f"x_{t}") + " (block input)": b["X"][i], im(f"h_{t} = x_{t} + a_{t} W_O + b_O"): b["h"][i]},
                      rows, f"Projection and residual at t = {t}, block {block}, first {rows} of {run.cfg.d} channels")
