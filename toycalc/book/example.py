"""The worked example: one sentence through the toy model, with one
training step on E. Everything a page prints about it is read from here."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..model import gpt, inference
from ..model.tokenizer import SPACE_SIGN, TokenizerError, show, shorten, tokenize, vocabulary
from ..model.weights import Model


@dataclass(frozen=True)
class Example:
    model: Model
    text: str = "the cat climbed the"
    target: str = "␣roof"        # the token the sentence goes on with
    heads: int | None = None      # None: the weights file's default
    temperature: float = 1.0
    eta: float = 0.1              # learning rate of the training step

    @cached_property
    def ids(self) -> list[int]:
        return tokenize(self.text, self.model.vocab)

    @property
    def tokens(self) -> list[str]:
        return [self.model.vocab[i] for i in self.ids]

    @property
    def n_heads(self) -> int:
        return self.model.heads if self.heads is None else self.heads

    @cached_property
    def target_id(self) -> int:
        token = self.target.replace(SPACE_SIGN, " ")
        if token not in self.model.vocab:
            raise TokenizerError(f'the target "{show(shorten(token))}" is not a token of the '
                                 f"vocabulary. {vocabulary(self.model.vocab)}")
        return self.model.vocab.index(token)

    @cached_property
    def generations(self) -> dict:
        """toy/generation.generate's runs from this example, by (rule, text):
        a page asks for the same run several times (a table, the text it
        writes, why it stops), and each costs a pass per new token."""
        return {}

    @cached_property
    def trace(self) -> dict:
        if len(self.ids) > self.model.cfg.n_ctx:   # say which rows are missing: the weights file's P
            raise ValueError(f"{len(self.ids)} tokens, but the model has {self.model.cfg.n_ctx} "
                             "positions (the rows of P)")
        return inference.checked_forward(self.model.params, self.model.cfg, self.ids,
                                   self.n_heads, self.temperature)

    @property
    def block(self) -> dict:
        return self.trace["blocks"][0]

    @property
    def p_last(self) -> np.ndarray:
        return self.trace["p"][-1]

    @property
    def top_id(self) -> int:
        return int(np.argmax(self.p_last))

    # --- the training step: the loss of the last position, on E alone

    @property
    def targets(self) -> np.ndarray:
        targets = np.full(len(self.ids), -1)
        targets[-1] = self.target_id
        return targets

    @cached_property
    def loss(self) -> float:
        return gpt.cross_entropy(self.trace["p"], self.targets)

    # --8<-- [start:step]
    @cached_property
    def grads(self) -> dict:
        return gpt.backward(self.model.params, self.model.cfg, self.trace, self.targets)

    @cached_property
    def stepped_E(self) -> np.ndarray:
        return self.model.params["E"] - self.eta * self.grads["E"]    # E ← E − η ∂L/∂E
    # --8<-- [end:step]

    @cached_property
    def stepped_trace(self) -> dict:
        params = dict(self.model.params, E=self.stepped_E)
        return inference.checked_forward(params, self.model.cfg, self.ids, self.n_heads, self.temperature)

    @property
    def stepped_loss(self) -> float:
        return gpt.cross_entropy(self.stepped_trace["p"], self.targets)

    @property
    def sentence_rows(self) -> list[int]:
        """The ids of the sentence, each once, in order of appearance."""
        return list(dict.fromkeys(self.ids))

    @property
    def still_rows(self) -> list[int]:
        """Rows of E whose gradient is exactly zero."""
        return [i for i in range(self.model.cfg.vocab_size) if not self.grads["E"][i].any()]

    @property
    def heads_choices(self) -> list[int]:
        """Every heads count the model can run with: the divisors of d."""
        d = self.model.cfg.d
        return [h for h in range(1, d + 1) if d % h == 0]

    def with_heads(self, heads: int) -> "Example":
        return replace(self, heads=heads)

    def head_columns(self, head: int) -> slice:
        d_head = self.model.cfg.d // self.n_heads
        return slice((head - 1) * d_head, head * d_head)


INIT_STD = 0.02  # GPT-2's spread of a fresh weight, N(0, 0.02²)


def random_row(d: int, seed: int, std: float = INIT_STD) -> np.ndarray:
    """One row of an embedding table initialised as GPT-2 does."""
    return np.random.default_rng(seed).normal(0.0, std, d)
