"""The toy chapter's page Tokens (docs/toy/tokens.md): the vocabulary, and
how the greedy longest-match tokenizer cuts a text."""
from __future__ import annotations


from ...model.tokenizer import TokenizerError, tokenize
from ..example import Example
from ..render import and_list, html_table, plain, token_code, token_text
from .shared import toy


@toy.table("vocab")
def vocab_table(ex: Example) -> str:
    """The whole vocabulary: each token under its id."""
    vocab = ex.model.vocab
    half = (len(vocab) + 1) // 2   # two pairs of columns, so the table fits the page
    rows = [[str(i), token_code(vocab[i])] + ([str(i + half), token_code(vocab[i + half])]
                                              if i + half < len(vocab) else ["", ""])
            for i in range(half)]
    return html_table("table-vocab", ["id", "token", "id", "token"], rows)


@toy.table("tokenize")
def tokenize_table(ex: Example, text: str = "") -> str:
    """Greedy longest match, one row per token taken: what is left to read,
    every token of the vocabulary that fits there, and the longest."""
    text = text or ex.text
    vocab, at, rows = ex.model.vocab, 0, []
    for i in tokenize(text, vocab):
        fits = sorted((t for t in vocab if text.startswith(t, at)), key=len, reverse=True)
        rows.append([f"<code>{token_text(text[at:])}</code>",
                     ", ".join(token_code(t) for t in fits), token_code(vocab[i]), str(i)])
        at += len(vocab[i])
    return html_table("table-tokenize", ["still to read", "tokens that fit there", "taken", "id"], rows)


@toy.number("vocab_size")
def vocab_size(ex: Example) -> str:
    """V, the number of tokens."""
    return str(ex.model.cfg.vocab_size)


@toy.number("longest")
def longest_number(ex: Example) -> str:
    """The longest tokens of the vocabulary (all of them, if several) and their length."""
    n = max(map(len, ex.model.vocab))
    longest = [token_text(t) for t in ex.model.vocab if len(t) == n]
    return f"{and_list(longest)} ({n} characters{' each' if len(longest) > 1 else ''})"


@toy.number("pieces")
def pieces_number(ex: Example, word: str = "climbed") -> str:
    """How the tokenizer cuts a word (read with its leading space)."""
    ids = tokenize(" " + word, ex.model.vocab)
    return " + ".join(token_text(ex.model.vocab[i]) for i in ids)


@toy.number("unknown")
def unknown_number(ex: Example, text: str = "the cat climbed the moon") -> str:
    """The tokenizer's complaint about a text it cannot cut."""
    try:
        tokenize(text, ex.model.vocab)
    except TokenizerError as e:
        return plain(str(e).split(". The vocabulary")[0])
    return "(it cuts it without complaint)"
