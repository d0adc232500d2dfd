"""What the book's home page (docs/index.md) shows of its models: the
three the book follows (the toy, nano-gpt, the writer) and GPT-2 small for
scale, side by side, their sizes and parameter counts, and one typed row of E.

Registered as toy_table(...) and toy_number(...): the home page meets the
toy before its chapter (docs/toy/) begins; the chapter's own index page
calls only the worked example's macros (book/end_to_end.py).
"""
from __future__ import annotations

from ...model import gpt, nanogpt, sizes, writer
from ...model.configs import GPT2_SMALL
from ..example import Example
from ..example_checks import token_id
from ..render import count, html_table, short, token_text, vector
from .shared import toy

# model= of the numbers below: (the table's column, what trained its weights)
MODELS = {"toy": ("the toy", "picked by hand"),
          "nano": ("nano-gpt", "trained by this book's code"),
          "writer": ("the writer", "trained by this book's code"),
          "gpt2": ("GPT-2 small", "not used here")}


def configs(ex: Example) -> dict[str, gpt.Config]:
    """Each model's configuration under its model= name; the toy's is the weights file's."""
    return {"toy": ex.model.cfg, "nano": nanogpt.CONFIG, "writer": writer.CONFIG, "gpt2": GPT2_SMALL}


def config(ex: Example, model: str) -> gpt.Config:
    cfgs = configs(ex)
    if model not in cfgs:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfgs)}")
    return cfgs[model]


def heads(ex: Example, model: str) -> int:
    """The toy's heads as chosen (the page's chooser splits its block); the others' own."""
    return ex.n_heads if model == "toy" else config(ex, model).n_heads


@toy.table("models")
def models_table(ex: Example) -> str:
    """The book's models and GPT-2 small side by side, every size counted
    from its config."""
    lines = [("tokens in the vocabulary", lambda c, h: count(c.vocab_size)),
             ("width of a row", lambda c, h: count(c.d)),
             ("positions", lambda c, h: count(c.n_ctx)),
             ("blocks", lambda c, h: str(c.n_blocks)),
             ("heads", lambda c, h: str(h)),
             ("MLP width", lambda c, h: count(c.mlp_width)),
             ("biases, LayerNorm weights", lambda c, h: "yes" if c.bias or c.ln_weights else "no"),
             ("parameters", lambda c, h: count(sizes.count_params(c)["total"]))]
    cfgs = configs(ex)
    rows = [[what] + [f(cfgs[m], heads(ex, m)) for m in MODELS] for what, f in lines]
    rows.append(["its weights"] + [trained for _, trained in MODELS.values()])
    # words may break, so that on a phone the scroll box shows more than one model
    return html_table("table-models", [""] + [column for column, _ in MODELS.values()], rows,
                      wrap=set(range(len(MODELS) + 1)))


@toy.number("model_count")
def model_count(ex: Example, model: str = "toy") -> str:
    """All the parameters of a model: toy, nano, writer or gpt2."""
    return count(sizes.count_params(config(ex, model))["total"])


@toy.number("model_size")
def model_size(ex: Example, model: str, name: str) -> str:
    """One size of a model (toy, nano, writer or gpt2): V, d, n_ctx, width,
    blocks or heads, as the models table prints it."""
    cfg = config(ex, model)
    values = {"V": cfg.vocab_size, "d": cfg.d, "n_ctx": cfg.n_ctx, "width": cfg.mlp_width,
              "blocks": cfg.n_blocks, "heads": heads(ex, model)}
    if name not in values:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(values)}")
    return count(values[name])


@toy.number("typed_row")
def typed_row(ex: Example, token: str = "") -> str:
    """One row of E as typed (default: the sentence's second token)."""
    i = token_id(ex, token) if token else ex.ids[min(1, len(ex.ids) - 1)]
    return f"{token_text(ex.model.vocab[i])}: {vector(ex.model.params['E'][i], short)}"
