"""The nano-gpt chapter's page MLP (docs/nano-gpt/mlp.md): the hidden layer
before and after GELU, and the block's way out."""
from __future__ import annotations

from ..nano_example import Run
from ..render import aligned, fixed, inline_math as im, tex
from .cells import activations
from .shared import ROWS, block_trace, by_channel, check_t, nano_gpt


@nano_gpt.matrix("mlp", live=True)
def mlp_matrix(run: Run, which: str = "mlp_post", block: int = 1, cols: int = ROWS) -> str:
    """One MLP stage of a block (before or after GELU, m, y or h) as a grid of cells."""
    names = {"mlp_pre": ("MLP hidden layer before GELU", "u' W_1 + b_1"),
             "mlp_post": ("MLP hidden layer after GELU", "\\mathrm{GELU}(u' W_1 + b_1)"),
             "m": ("MLP output", "m"), "y": ("Block output", "y"), "h": ("After attention", "h")}
    if which not in names:
        raise ValueError(f"which = {which!r}: expected one of {', '.join(names)}")
    b = block_trace(run, block)
    return activations(run, f"nano-{which}-{block}", b[which], f"{names[which][0]}, block {block}",
                       names[which][1], cols)


@nano_gpt.table("mlp_hidden", live=True)
def mlp_hidden_table(run: Run, t: int = 6, block: int = 1, rows: int = ROWS) -> str:
    """The MLP's hidden layer at one position, before and after GELU."""
    i = check_t(run, t)
    b = block_trace(run, block)
    return by_channel(f"nano-mlp-hidden-{block}-{t}",
                      {im(f"u'_{t} W_1 + b_1"): b["mlp_pre"][i], im("\\mathrm{GELU}(\\cdot)"): b["mlp_post"][i]}, rows,
                      f"The MLP's hidden layer at t = {t}, block {block}, first {rows} of {run.cfg.mlp_width} channels")


@nano_gpt.table("mlp_out", live=True)
def mlp_out_table(run: Run, t: int = 6, block: int = 1, rows: int = ROWS) -> str:
    """The MLP's way out at one position: h, u', m and y."""
    i = check_t(run, t)
    b = block_trace(run, block)
    return by_channel(f"nano-mlp-out-{block}-{t}",
                      {im(f"h_{t}"): b["h"][i], im(f"u'_{t} = \\mathrm{{LN}}(h_{t})"): b["u2"][i],
                       im(f"m_{t}"): b["m"][i], im(f"y_{t} = h_{t} + m_{t}"): b["y"][i]}, rows,
                      f"In and out of the MLP at t = {t}, block {block}, first {rows} of {run.cfg.d} channels")


@nano_gpt.formula("gelu", live=True)
def gelu_formula(run: Run, t: int = 6, c: int = 1, block: int = 1) -> str:
    """The GELU formula and its value for hidden channel c (from 1)."""
    i = check_t(run, t)
    if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= run.cfg.mlp_width:
        raise ValueError(f"c = {c!r}: the hidden channels are 1 to {run.cfg.mlp_width}")
    b = block_trace(run, block)
    x = b["mlp_pre"][i, c - 1]
    return aligned([("\\mathrm{GELU}(x)", "\\tfrac12 x\\left(1 + \\tanh\\left(\\sqrt{2/\\pi}\\,"
                                           "(x + 0.044715\\, x^3)\\right)\\right)"),
                    (f"\\mathrm{{GELU}}({tex(fixed(x))})", tex(fixed(b["mlp_post"][i, c - 1])))])
