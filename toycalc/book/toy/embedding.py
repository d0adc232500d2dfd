"""The toy chapter's page Embedding (docs/toy/embedding.md): the table E,
a row of it drawn as GPT-2 draws its fresh weights, and a token's row read
as a product with a one-hot row.

These are steps of the worked example, which End to End shows
again: they are registered on `steps`, the part whose
macros have no prefix ({{ table("E") }}), as end_to_end.py's are.
"""
from __future__ import annotations

from ..end_to_end import steps
from ..example import INIT_STD, Example, random_row
from ..example_checks import token_id
from ..render import (aligned, column_header, html_table, inline_math as im, math_block, short, tex, tex_vector,
                      token_code, weights_vector)

INIT_SEED = 2019  # the seed of the random row the page shows


@steps.table("E")
def E_table(ex: Example) -> str:
    """The whole embedding table, the sentence's rows in bold."""
    E = ex.model.params["E"]
    rows = [[str(i), token_code(t)] + [short(v) for v in E[i]] for i, t in enumerate(ex.model.vocab)]
    return html_table("table-E", ["id", "token"] + column_header("c", ex.model.cfg.d), rows,
                      bold_rows=set(ex.ids))


@steps.table("E_ids")
def E_ids_table(ex: Example) -> str:
    """The row of E that each token of the sentence reads, with its id."""
    E = ex.model.params["E"]
    rows = [[token_code(t), str(i), weights_vector(E[i])] for t, i in zip(ex.tokens, ex.ids)]
    return html_table("table-E-ids", ["token", "id", im("E[\\text{id}]")], rows)


@steps.formula("random_row")
def random_row_formula(ex: Example) -> str:
    """A row of E drawn as GPT-2 draws it, N(0, 0.02²), from a fixed seed."""
    return math_block(tex_vector(random_row(ex.model.cfg.d, INIT_SEED)))


@steps.formula("one_hot")
def one_hot_formula(ex: Example, token: str = "", compact: bool = False) -> str:
    """Reading a row of E as a product with a one-hot row.

    compact=True writes the zeros after the one as an ellipsis (for the
    path's narrow box)."""
    i = token_id(ex, token) if token else ex.ids[-1]
    entries = ["1" if j == i else "0" for j in range(ex.model.cfg.vocab_size)]
    if compact and len(entries) - i > 3:
        entries = entries[:i + 2] + ["\\ldots", "0"]
    onehot = ", ".join(entries)
    return aligned([(f"E[{i}]", f"[{onehot}]\\, E"),
                    ("", tex(weights_vector(ex.model.params['E'][i])))])


steps.constant("init_std", str(INIT_STD),
               "The standard deviation of GPT-2's fresh weights, which the random row of E is drawn with.")
steps.constant("init_seed", str(INIT_SEED), "The seed of the random row drawn for E.")
