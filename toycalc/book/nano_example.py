"""The nano-gpt chapter's example: C B A B B C through the trained sorter.

One forward pass on the six input letters (the trace every table reads),
then the generation loop: six greedy steps, each a forward pass on the
sequence so far. Its arrays count positions, blocks and heads from 0, as
numpy does; the chapter shows them from 1 (nano_gpt/shared.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..model import gpt, nanogpt
from ..model.nanogpt import Nano
from ..model.nanogpt_record import FINAL_LOSS_MEANS

TEXT = "C B A B B C"
# How far a record's loss may be from the one computed here: it keeps 8
# decimals, and the browser's sums run in another order.
LOSS_TOLERANCE = 1e-6


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
    def every_input(self) -> dict:
        """The trace of the last input letter of every input (all 729, in
        all_inputs' order), with the keys and values of all six (its cache).
        The letters are read one at a time with the KV cache: every prefix
        of t + 1 letters reuses the keys and values of its prefix of t, so
        the pass computes 3 + 9 + ... + 729 = 1,092 rows, not 729 x 6."""
        V = len(nanogpt.VOCAB)
        trace = gpt.forward(self.params, self.cfg, np.arange(V)[:, None])
        for t in range(1, nanogpt.LENGTH):
            parent = np.arange(V ** (t + 1)) // V     # all_inputs' order: the last letter varies fastest
            trace = gpt.forward(self.params, self.cfg, np.tile(np.arange(V), V ** t)[:, None],
                                past=_past(trace, t, parent))
        return trace

    @cached_property
    def last_looks(self) -> list[np.ndarray]:
        """For every input (all 729, in all_inputs' order) and each block:
        where each head of the last input position looks, (729, heads, 6)."""
        return [b["weights"][:, :, -1] for b in self.every_input["blocks"]]

    @cached_property
    def answers(self) -> np.ndarray:
        """What greedy decoding writes for every input, (729, 6): as
        nanogpt.sort, but each step runs only the letter it appends, with
        the keys and values of the letters before it (the KV cache)."""
        trace, written = self.every_input, []
        for step in range(nanogpt.LENGTH):
            written.append(trace["p"][:, -1].argmax(-1))
            if step < nanogpt.LENGTH - 1:
                trace = gpt.forward(self.params, self.cfg, written[-1][:, None],
                                    past=_past(trace, nanogpt.LENGTH + step))
        return np.stack(written, axis=1)

    @property
    def sorted_count(self) -> int:
        """How many of the 729 inputs greedy decoding sorts (nanogpt.accuracy)."""
        inputs = nanogpt.all_inputs()
        return int((self.answers == np.sort(inputs, axis=1)).all(axis=1).sum())

    @cached_property
    def loss_on_729(self) -> float:
        """The loss on all 729 inputs, as train.eval_loss computes it: the
        sorted letters' probabilities, the first from the last input
        position, the others from a pass on the sorted letters but the last
        that reuses the inputs' keys and values."""
        inputs = nanogpt.all_inputs()
        answer = np.sort(inputs, axis=1)
        rest = gpt.forward(self.params, self.cfg, answer[:, :-1], past=_past(self.every_input, nanogpt.LENGTH))
        p = np.concatenate([self.every_input["p"][:, -1:], rest["p"]], axis=1)    # (729, 6, V)
        return gpt.cross_entropy(p, answer)

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
        """(block, head), from 0 as the code counts: the head that most often looks at the smallest letter."""
        hits, _ = self.smallest_looks
        b, h = np.unravel_index(int(np.argmax(hits)), hits.shape)
        return int(b), int(h)

    def check_record(self) -> None:
        """Raise NanoWeightsError, naming the record, if what it says the
        weights do is not what they do: how many inputs they sort, their
        loss on all 729, the final loss its curve gives (a record left
        beside other weights, or edited)."""
        rec, where = self.model.record, nanogpt.record_path(self.model.path)
        wrong = None
        if rec["accuracy_on_729"] != self.sorted_count:
            wrong = (f"field 'accuracy_on_729' says the weights sort {rec['accuracy_on_729']} of the "
                     f"729 inputs; they sort {self.sorted_count}")
        elif abs(rec["loss_on_729"] - self.loss_on_729) > LOSS_TOLERANCE:
            wrong = (f"field 'loss_on_729' says {rec['loss_on_729']}; the weights' loss on the 729 "
                     f"inputs is {self.loss_on_729:.8f}")
        else:
            last = FINAL_LOSS_MEANS.fullmatch(rec["final_loss_means"])   # the record's schema holds it
            curve = rec.get("loss_curve")
            if curve and abs(np.mean(curve[-int(last[1]):]) - rec["final_loss"]) > LOSS_TOLERANCE:
                wrong = (f"field 'final_loss' says {rec['final_loss']}; the mean of the last {last[1]} "
                         f"losses of its loss_curve is {np.mean(curve[-int(last[1]):]):.8f}")
        if wrong:
            raise nanogpt.NanoWeightsError(f"{where}: {wrong}: a record of other weights than "
                                           f"{self.model.path.name}? Keep each record beside its weights")

    def head_columns(self, head: int) -> slice:
        """Head h (from 0) reads columns h A .. (h+1) A - 1 of Q, K, V."""
        A = self.cfg.d // self.cfg.n_heads
        return slice(head * A, (head + 1) * A)


def _past(trace: dict, length: int, rows=slice(None)) -> dict:
    """The keys and values of trace, for a forward pass that goes on from
    them (gpt.forward's past), each batch row taken from rows."""
    return {"length": length, "blocks": [{"k": c["k"][rows], "v": c["v"][rows]} for c in trace["cache"]["blocks"]]}
