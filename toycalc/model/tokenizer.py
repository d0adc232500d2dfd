"""Greedy longest match: from the left, take the longest token that fits.

Tokens keep their leading space (" cat"); the book prints it as ␣.
"""
from __future__ import annotations

SPACE_SIGN = "␣"


class TokenizerError(ValueError):
    pass


def show(token: str) -> str:
    """A token as the book prints it: leading space as ␣."""
    return token.replace(" ", SPACE_SIGN)


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
                f'cannot cut "{show(piece)}" (character {at + 1} of "{text}"): '
                f"no token of the vocabulary starts it. "
                f"The vocabulary is: {', '.join(show(t) for t in vocab)}")
        ids.append(match)
        at += len(vocab[match])
    return ids
