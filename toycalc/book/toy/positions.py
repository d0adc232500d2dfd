"""The toy chapter's page Positions (docs/toy/positions.md): what P adds,
shown by reversing the earlier tokens of the sentence with and without
P, and which rows of P repeat."""
from __future__ import annotations

import numpy as np

from ...model import gpt
from ..draw import figure, paired_bars_svg
from ..example import Example
from ..render import fixed, html_table, inline_math as im, token_code, token_text
from .shared import toy


def _reordered(ids: list[int]) -> list[int]:
    """The earlier tokens reversed, the last one kept last."""
    return list(ids[:-1])[::-1] + [ids[-1]]


def _last_p(ex: Example, ids, with_p: bool) -> np.ndarray:
    params = ex.model.params if with_p else dict(ex.model.params, P=np.zeros_like(ex.model.params["P"]))
    return gpt.forward(params, ex.model.cfg, list(ids), ex.n_heads, ex.temperature)["p"][-1]


@toy.table("order")
def order_table(ex: Example) -> str:
    """The sentence and the same tokens with the earlier ones reversed, run
    with P and with P set to zero: the last row's prediction."""
    rows = []
    for label, ids in (("as written", ex.ids), ("earlier tokens reversed", _reordered(ex.ids))):
        for with_p in (True, False):
            p = _last_p(ex, ids, with_p)
            top = int(np.argmax(p))
            rows.append([label, " ".join(token_code(ex.model.vocab[i]) for i in ids),
                         "with " + im("P") if with_p else "without " + im("P"),
                         token_code(ex.model.vocab[top]), fixed(p[top]), fixed(p[ex.target_id])])
    t = token_text(ex.model.vocab[ex.target_id])
    return html_table("table-order", ["order", "tokens", "positions", "prediction", "its p", f"p({t})"],
                      rows, wrap={0, 1})


@toy.figure("order")
def order_figure(ex: Example) -> str:
    """The last row's p with and without P, for the sentence as written and
    with the earlier tokens reversed: the tokens most probable in any run."""
    runs = {name: (_last_p(ex, ids, True), _last_p(ex, ids, False))
            for name, ids in (("as written", ex.ids), ("earlier tokens reversed", _reordered(ex.ids)))}
    shown = sorted({int(i) for pair in runs.values() for p in pair for i in np.argsort(-p, kind="stable")[:3]})
    labels = [ex.model.show(i) for i in shown]
    panels = [figure("order", paired_bars_svg(labels, [float(with_p[i]) for i in shown],
                                              [float(without[i]) for i in shown], ("with P", "without P"),
                                              f"p of the likeliest next tokens, {name}, with and without P"),
                     name, order=name)
              for name, (with_p, without) in runs.items()]
    return f'<div class="fig-row">{"".join(panels)}</div>'


@toy.number("order")
def order_number(ex: Example, with_p: bool = False) -> str:
    """The largest difference between the last row's p for the two orders."""
    a, b = _last_p(ex, ex.ids, with_p), _last_p(ex, _reordered(ex.ids), with_p)
    return fixed(np.abs(a - b).max())


@toy.number("P_repeats")
def P_repeats_number(ex: Example) -> str:
    """Which rows of P repeat an earlier row (positions count from 1), in
    words, e.g. "rows 6 to 8 repeat rows 2 to 4"; "no row" when none does."""
    P = ex.model.params["P"]
    pairs = [(t, next(s for s in range(t) if np.array_equal(P[s], P[t])))
             for t in range(len(P)) if any(np.array_equal(P[s], P[t]) for s in range(t))]
    if not pairs:
        return "no row repeats an earlier one"
    later, earlier = [t + 1 for t, _ in pairs], [s + 1 for _, s in pairs]

    def span(xs):
        if len(xs) == 1:
            return f"row {xs[0]}"
        if xs == list(range(xs[0], xs[-1] + 1)):
            return f"rows {xs[0]} to {xs[-1]}"
        return "rows " + ", ".join(map(str, xs[:-1])) + f" and {xs[-1]}"
    verb = "repeats" if len(later) == 1 else "repeat"
    return f"{span(later)} {verb} {span(earlier)}"
