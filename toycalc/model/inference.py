"""The model run for an answer: a forward pass checked for overflow (a
weights file or a temperature can be extreme), and generation, token by
token, with the KV cache. gpt.py computes; this runs it.
"""
from __future__ import annotations

import numpy as np

from .gpt import Config, forward


class TraceError(ValueError):
    """A forward pass that overflowed or made a NaN somewhere."""


def check_finite(trace: dict) -> dict:
    """The trace, or TraceError naming the first matrix, row and column of
    it that is not a finite number, in the order the pass computes them.
    The causal mask's -inf in the scores is by design."""
    def arrays(d, prefix=""):
        for name, value in d.items():
            if name in ("cache", "ln1", "ln2", "lnf"):       # the same arrays again
                continue
            if name == "blocks":
                for b, block in enumerate(value):
                    yield from arrays(block, f"block {b + 1}: " if len(value) > 1 else "")
            elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
                yield prefix + name, value
    for name, a in arrays(trace):
        bad = np.isnan(a) | (a == np.inf) if name.endswith("scores") else ~np.isfinite(a)
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            where = ", ".join(f"{axis} {i + 1}" for axis, i in   # counted from 1, as the book counts
                              zip(("head", "row", "column")[-len(at):] if len(at) <= 3 else
                                  [f"axis {k}" for k in range(len(at))], at))
            raise TraceError(f"the forward pass overflows: {name}, {where} is {a[at]} "
                             "(a weight or the temperature is too extreme)")
    return trace


def checked_forward(*args, **kwargs) -> dict:
    """forward, then check_finite, without numpy's warnings on the way."""
    with np.errstate(all="ignore"):
        return check_finite(forward(*args, **kwargs))


# ---------------------------------------------------------------- generation

def room(cfg: Config, length: int) -> int:
    """How many tokens generation can add after a text of `length` tokens:
    one per free position, plus the one predicted at the last position,
    which is never read back and so needs no position of its own."""
    return max(cfg.n_ctx - length + 1, 0)


def generate(params, cfg: Config, ids, n_new: int, heads: int | None = None,
             cached: bool = True, temperature: float = 1.0, choose=None,
             stop: tuple[int, ...] = ()) -> tuple[list[int], list[np.ndarray]]:
    """Generation of up to n_new tokens after ids (a 1-D list); returns the
    ids with the new ones, and each step's probabilities. choose(p) picks
    the next id from them (default: the most probable); a chosen id in
    `stop` ends it early. cached=True runs each new token alone against the
    KV cache of the earlier ones; cached=False runs the whole text again at
    every step."""
    choose = choose or (lambda p: int(np.argmax(p)))
    ids, probs = list(ids), []
    if n_new <= 0:
        return ids, probs
    trace = checked_forward(params, cfg, ids, heads, temperature)
    for step in range(n_new):
        probs.append(trace["p"][-1])
        ids.append(choose(probs[-1]))
        if step == n_new - 1 or ids[-1] in stop:
            break
        trace = (checked_forward(params, cfg, ids[-1:], heads, temperature, past=trace["cache"])
                 if cached else checked_forward(params, cfg, ids, heads, temperature))
    return ids, probs
