"""The nano-gpt chapter's example: C B A B B C through the trained sorter.

One forward pass on the six input letters (the trace every table reads),
then the generation loop: six greedy steps, each a forward pass on the
sequence so far. Time steps t count from 0, as in the code.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..model import gpt, nanogpt
from ..model.nanogpt import Nano

TEXT = "C B A B B C"


@dataclass(frozen=True)
class Run:
    model: Nano
    text: str = TEXT

    @property
    def cfg(self) -> gpt.Config:
        return self.model.cfg

    @property
    def params(self) -> dict:
        return self.model.params

    @cached_property
    def ids(self) -> list[int]:
        ids = nanogpt.encode(self.text)
        if len(ids) != nanogpt.LENGTH:
            raise ValueError(f"the example needs {nanogpt.LENGTH} letters, found {len(ids)}")
        return ids

    @property
    def T(self) -> int:
        return len(self.ids)

    @cached_property
    def trace(self) -> dict:
        """The forward pass on the six input letters."""
        return gpt.forward(self.params, self.cfg, np.array(self.ids))

    def block(self, b: int) -> dict:
        return self.trace["blocks"][b]

    @cached_property
    def steps(self) -> list[dict]:
        """The generation loop: for each step, the ids read, the
        probabilities of the last column and the id appended."""
        ids, out = list(self.ids), []
        for _ in range(nanogpt.LENGTH):
            p = gpt.forward(self.params, self.cfg, np.array(ids))["p"][-1]
            out.append({"ids": list(ids), "p": p, "next": int(np.argmax(p))})
            ids.append(out[-1]["next"])
        return out

    @property
    def answer(self) -> list[int]:
        return [s["next"] for s in self.steps]

    @cached_property
    def last_looks(self) -> list[np.ndarray]:
        """For every input (all 729, in all_inputs' order) and each block:
        where each head of the last input position looks, (729, heads, 6).
        The letters are read one at a time with the KV cache: every prefix
        of t + 1 letters reuses the keys and values of its prefix of t, so
        the pass computes 3 + 9 + ... + 729 = 1,092 rows, not 729 x 6."""
        V = len(nanogpt.VOCAB)
        trace = gpt.forward(self.params, self.cfg, np.arange(V)[:, None])
        for t in range(1, nanogpt.LENGTH):
            parent = np.arange(V ** (t + 1)) // V     # all_inputs' order: the last letter varies fastest
            past = {"length": t, "blocks": [{"k": c["k"][parent], "v": c["v"][parent]}
                                            for c in trace["cache"]["blocks"]]}
            trace = gpt.forward(self.params, self.cfg, np.tile(np.arange(V), V ** t)[:, None], past=past)
        return [b["weights"][:, :, -1] for b in trace["blocks"]]

    @cached_property
    def smallest_looks(self) -> tuple[np.ndarray, int]:
        """For each block and head (blocks x heads): over the inputs that mix
        letters, how often the largest attention weight of the last input
        position falls on a copy of the input's smallest letter; and how
        many such inputs there are."""
        inputs = nanogpt.all_inputs()
        smallest = inputs.min(1)
        mixed = smallest != inputs.max(1)
        rows = np.arange(len(inputs))
        hits = [[int((inputs[rows, looks[:, h].argmax(-1)] == smallest)[mixed].sum())
                 for h in range(self.cfg.n_heads)] for looks in self.last_looks]
        return np.array(hits), int(mixed.sum())

    @property
    def best_head(self) -> tuple[int, int]:
        """(block, head), from 1: the head that most often looks at the smallest letter."""
        hits, _ = self.smallest_looks
        b, h = np.unravel_index(int(np.argmax(hits)), hits.shape)
        return int(b) + 1, int(h) + 1

    def head_columns(self, head: int) -> slice:
        """Head h (from 1) reads columns (h-1) A .. h A - 1 of Q, K, V."""
        A = self.cfg.d // self.cfg.n_heads
        return slice((head - 1) * A, head * A)
