"""The nano-gpt chapter's page Layer Norm (docs/nano-gpt/layer-norm.md):
one row normalised channel by channel, its mean and spread."""
from __future__ import annotations

from ..nano_example import Run
from ..render import aligned, fixed, inline_math as im, tex
from .cells import activations
from .shared import ROWS, block_trace, by_channel, check_t, nano_gpt


@nano_gpt.matrix("u", live=True)
def u_matrix(run: Run, block: int = 1, cols: int = ROWS) -> str:
    """The normalised input u of one block as a grid of cells."""
    b = block_trace(run, block)
    return activations(run, f"nano-u-{block}", b["u"], f"Normalised input of block {block}",
                       "u = \\mathrm{LN}(x)", cols)


@nano_gpt.table("layernorm", live=True)
def layernorm_table(run: Run, t: int = 4, block: int = 1, rows: int = ROWS) -> str:
    """LayerNorm of one position, channel by channel: x, x − μ, x̂, γ, β and u."""
    i = check_t(run, t)
    b = block_trace(run, block)
    x, mu = b["X"][i], b["mu"][i]
    g, beta = run.params[f"blocks.{block - 1}.gamma_1"], run.params[f"blocks.{block - 1}.beta_1"]
    columns = {im(f"x_{t}"): x, im("x - \\mu"): x - mu, im("\\hat x"): b["ln1"]["xhat"][i],
               im("\\gamma"): g, im("\\beta"): beta, im("u"): b["u"][i]}
    return by_channel(f"nano-layernorm-{block}-{t}", columns, rows,
                      f"LayerNorm of the row t = {t} in block {block}, first {rows} of {run.cfg.d} channels: "
                      + im("\\hat x = (x - \\mu)/\\sigma") + ", " + im("u = \\gamma \\hat x + \\beta"))


@nano_gpt.formula("layernorm", live=True)
def layernorm_formula(run: Run, t: int = 4, block: int = 1) -> str:
    """μ, σ² and one normalised channel of one position, in full."""
    i = check_t(run, t)
    b = block_trace(run, block)
    x = b["X"][i]
    d = run.cfg.d
    var = ((x - x.mean()) ** 2).mean()
    return aligned([
        ("\\mu", f"\\frac{{1}}{{{d}}}\\sum_{{c=1}}^{{{d}}} x_{{{t},c}} = {tex(fixed(b['mu'][i], 5))}"),
        ("\\sigma", f"\\sqrt{{\\mathrm{{Var}}[x_{t}] + \\varepsilon}} = \\sqrt{{{tex(fixed(var, 6))} + 10^{{-5}}}}"
                    f" = {tex(fixed(b['sigma'][i], 5))}")])


@nano_gpt.number("mu", live=True)
def mu_number(run: Run, t: int = 4, block: int = 1, places: int = 3) -> str:
    """The LayerNorm mean μ at position t of a block."""
    return fixed(block_trace(run, block)["mu"][check_t(run, t)], places)


@nano_gpt.number("sigma", live=True)
def sigma_number(run: Run, t: int = 4, block: int = 1, places: int = 3) -> str:
    """The LayerNorm σ at position t of a block."""
    return fixed(block_trace(run, block)["sigma"][check_t(run, t)], places)


@nano_gpt.number("variance", live=True)
def variance_number(run: Run, t: int = 4, block: int = 1, places: int = 3) -> str:
    """The population variance of the row at t that enters a block's first LayerNorm."""
    return fixed(block_trace(run, block)["X"][check_t(run, t)].var(), places)
