"""Greedy longest match: from the left, take the longest token that fits.

Tokens keep their leading space (" cat"); the book prints it as ␣.
"""
from __future__ import annotations

from .mirror import mirrored

SPACE_SIGN = "␣"


class TokenizerError(ValueError):
    pass


@mirrored("gpt.js")
def show(token: str) -> str:
    """A token as the book prints it: leading space as ␣."""
    return token.replace(" ", SPACE_SIGN)


@mirrored("gpt.js")
def shorten(text: str, limit: int = 40) -> str:
    """At most `limit` characters of a text a person typed, for a message."""
    return text if len(text) <= limit else text[:limit] + "…"


@mirrored("gpt.js")
def vocabulary(vocab: list[str], limit: int = 30) -> str:
    """The vocabulary for a message: every token, when they are few."""
    if len(vocab) > limit:
        return f"The vocabulary has {len(vocab)} tokens, from {show(vocab[0])} to {show(vocab[-1])}."
    return f"The vocabulary is: {', '.join(show(t) for t in vocab)}."


@mirrored("gpt.js")
def tokenize(text: str, vocab: list[str]) -> list[int]:
    """Cut text into ids of vocab, always taking the longest match."""
    by_length = sorted(range(len(vocab)), key=lambda i: -len(vocab[i]))
    ids, at = [], 0
    while at < len(text):
        match = next((i for i in by_length if vocab[i] and text.startswith(vocab[i], at)), None)
        if match is None:
            end = text.find(" ", at + 1)
            piece = text[at:] if end < 0 else text[at:end]
            raise TokenizerError(
                f'cannot cut "{show(shorten(piece))}" (character {at + 1} of "{shorten(text)}"): '
                f"no token of the vocabulary starts it. {vocabulary(vocab)}")
        ids.append(match)
        at += len(vocab[match])
    return ids
