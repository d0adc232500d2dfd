"""What the book's home page (docs/index.md) shows of the toy: its
models side by side, their parameter counts and one typed row of E.

Registered as toy_table(...) and toy_number(...): the home page meets the
toy before its chapter (docs/toy/) begins; the chapter's own index page
calls only the worked example's macros (book/end_to_end.py).
"""
from __future__ import annotations

from ...model import gpt, nanogpt, sizes
from ...model.configs import GPT2_SMALL
from ..example import Example
from ..example_checks import token_id
from ..render import count, html_table, short, token_text, vector
from .shared import toy


@toy.table("models")
def models_table(ex: Example) -> str:
    """The book's models side by side, every size counted from its config;
    the toy's heads as chosen (the page's chooser splits its block)."""
    cfgs = {"the toy": ex.model.cfg, "nano-gpt": nanogpt.CONFIG, "GPT-2 small": GPT2_SMALL}
    heads = {"the toy": ex.n_heads, "nano-gpt": nanogpt.CONFIG.n_heads, "GPT-2 small": GPT2_SMALL.n_heads}
    lines = [("tokens in the vocabulary", lambda c, h: count(c.vocab_size)),
             ("width of a row", lambda c, h: count(c.d)),
             ("positions", lambda c, h: count(c.n_ctx)),
             ("blocks", lambda c, h: str(c.n_blocks)),
             ("heads", lambda c, h: str(h)),
             ("MLP width", lambda c, h: count(c.mlp_width)),
             ("biases, LayerNorm weights", lambda c, h: "yes" if c.bias or c.ln_weights else "no"),
             ("parameters", lambda c, h: count(sizes.count_params(c)["total"]))]
    rows = [[what] + [f(cfgs[m], heads[m]) for m in cfgs] for what, f in lines]
    rows.append(["its weights", "picked by hand", "trained by this book's code", "not used here"])
    return html_table("table-models", [""] + list(cfgs), rows)


@toy.number("model_count")
def model_count(ex: Example, model: str = "toy") -> str:
    """All the parameters of a model: toy, nano or gpt2."""
    cfg = {"toy": ex.model.cfg, "nano": nanogpt.CONFIG, "gpt2": GPT2_SMALL}
    if model not in cfg:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfg)}")
    return count(sizes.count_params(cfg[model])["total"])


@toy.number("typed_row")
def typed_row(ex: Example, token: str = "") -> str:
    """One row of E as typed (default: the sentence's second token)."""
    i = token_id(ex, token) if token else ex.ids[min(1, len(ex.ids) - 1)]
    return f"{token_text(ex.model.vocab[i])}: {vector(ex.model.params['E'][i], short)}"
