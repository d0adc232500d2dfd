"""Checks of what a page's macro names in the toy's worked example (an
Example): a head of its run, a token of its vocabulary, a position of its
sentence. Each raises a ValueError saying what exists, which the build
prints with the page and the call (site/errors.py)."""
from __future__ import annotations

from ..model.tokenizer import SPACE_SIGN, show
from .example import Example


def check_head(ex: Example, head: int) -> None:
    """head counts from 1, as the book counts heads."""
    if not 1 <= head <= ex.n_heads:
        raise ValueError(f"head = {head}: this run has heads 1 to {ex.n_heads}")


def token_id(ex: Example, token: str) -> int:
    """The id of a token of the vocabulary, written with ␣ for its space."""
    t = token.replace(SPACE_SIGN, " ")
    if t not in ex.model.vocab:
        raise ValueError(f"token = {token!r} is not in the vocabulary: "
                         f"{', '.join(show(v) for v in ex.model.vocab)}")
    return ex.model.vocab.index(t)


def check_position(ex: Example, position: int, name: str = "position") -> None:
    """position counts from 1; name: the argument's, for the message."""
    if not 1 <= position <= len(ex.ids):
        raise ValueError(f"{name} = {position}: the sentence has positions 1 to {len(ex.ids)}")
