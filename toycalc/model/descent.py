"""Plain gradient descent on one sentence: the toy chapter's training step
(docs/toy/training.md), repeated, as the reader runs it in the page.

The sentence predicts one token at its last position (the loss is
−ln p(target) there, as book/example.py's step); each step runs the
model forward, takes gpt.backward's gradients and moves the weights that
learn by −η times their gradient: E alone, as the book's step, or every
matrix. No momentum, no batch, no schedule: exactly the step the page
works by hand. Its twin, docs/javascripts/descent.js, runs the same steps
in the browser (tests/model/test_descent.py holds the two together).
"""
from __future__ import annotations

import numpy as np

from . import gpt
from .mirror import mirrored
from .weights import MAX_WEIGHT

LEARNS = ("E", "all")    # which weights learn: E alone (the book's step), or every matrix
MAX_STEPS = 200          # the page's limit: enough to watch the loss flatten, quick in a browser
# The page's steps by default (at the book's η): every matrix, for E alone barely moves p(target) on the
# book's sentence (0.395 -> 0.416 at best), where every matrix takes it to 0.885 in 20 steps. One step
# and Train move the same weights; E alone, a choice away, is the book's worked step.
# tests/model/test_descent.py holds them to teaching.
TRAIN_LEARNS = "all"
TRAIN_STEPS = 20


def targets_of(ids, target: int) -> np.ndarray:
    """The target of each position: `target` at the last one, none (−1) before it."""
    targets = np.full(len(ids), -1)
    targets[-1] = target
    return targets


@mirrored("descent.js")
def descend(params: dict, cfg: gpt.Config, ids, target: int, eta: float, learns: str = "E",
            steps: int = 1, heads: int | None = None, temperature: float = 1.0) -> list[dict]:
    """`steps` steps of W ← W − η ∂L/∂W on the sentence `ids` and its next
    token `target`, for E alone (learns="E") or every matrix ("all").

    One record per step: the loss and p(target) before it and after it,
    the gradients it took (of every matrix, whichever learn) and the
    weights after it (those that do not learn are the same arrays)."""
    if learns not in LEARNS:
        raise ValueError(f"learns = {learns!r}: expected one of {', '.join(LEARNS)}")
    if not (isinstance(eta, (int, float)) and np.isfinite(eta) and eta > 0):
        raise ValueError(f"eta = {eta!r}: the learning rate must be a number above 0")
    if not (isinstance(steps, (int, np.integer)) and 1 <= steps <= MAX_STEPS):
        raise ValueError(f"steps = {steps!r}: expected a whole number from 1 to {MAX_STEPS}")
    targets = targets_of(ids, target)
    learning = ["E"] if learns == "E" else list(params)
    trace = gpt.forward(params, cfg, ids, heads, temperature)
    records = []
    for _ in range(steps):
        loss, p = gpt.cross_entropy(trace["p"], targets), float(trace["p"][-1, target])
        grads = gpt.backward(params, cfg, trace, targets)
        params = dict(params, **{name: params[name] - eta * grads[name] for name in learning})
        trace = gpt.forward(params, cfg, ids, heads, temperature)
        records.append({"loss": loss, "p": p, "grads": grads, "params": params,
                        "loss_after": gpt.cross_entropy(trace["p"], targets),
                        "p_after": float(trace["p"][-1, target])})
    return records


@mirrored("descent.js")
def beyond_bounds(params: dict) -> dict | None:
    """The first weight that the weights file would refuse (weights.py: not
    finite, or beyond ±MAX_WEIGHT), as {name, index, value}, in the order
    of `params`, the entries of each in row order; None when all hold. The
    page's Train stops before a step that would leave one, so that its
    download always loads."""
    for name, w in params.items():
        bad = ~np.isfinite(w) | (np.abs(np.nan_to_num(w, nan=0.0)) > MAX_WEIGHT)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            return {"name": name, "index": list(index), "value": float(w[index])}
    return None
