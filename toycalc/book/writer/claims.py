"""What the writer's chapter says about its weights, checked on every
build by {{ claim(...) }} (book/chapters.py): a check returns None when the sentence
holds, else what is true, and the build stops naming the page and line."""
from __future__ import annotations

import re

import numpy as np

from ...model import writer as model
from ..render import fixed
from .shared import FOLLOWED_HEAD, WriterRun, read_out, stage_row

WRITER_CLAIMS: dict = {}


def writer_claim(name: str):
    def register(check):
        if name in WRITER_CLAIMS:
            raise ValueError(f"writer_claim({name!r}) is registered twice")
        WRITER_CLAIMS[name] = check
        return check
    return register


def offset_share(run: WriterRun, block: int, head: int, offset: int) -> float:
    """The mean weight a head puts on the character `offset` places back,
    over the line's positions that have one."""
    if not (1 <= block <= run.cfg.n_blocks and 1 <= head <= run.cfg.n_heads):
        raise ValueError(f"block {block}, head {head}: the writer has blocks 1 to {run.cfg.n_blocks} "
                         f"and heads 1 to {run.cfg.n_heads}")
    a = run.attention(block, head)
    return float(np.mean([a[t, t - offset] for t in range(offset, len(a))]))


def favourite_offset(run: WriterRun, block: int, head: int) -> int:
    """The offset (0: itself, 1: the character before, ...) on which the
    head puts the largest mean weight, over the line's positions that have it."""
    T = len(run.line)
    shares = [offset_share(run, block, head, k) for k in range(T)]
    return int(max(range(T), key=lambda k: (shares[k], -k)))


@writer_claim("favours")
def favours_claim(run: WriterRun, offset: int, block: int = FOLLOWED_HEAD[0],
                  head: int = FOLLOWED_HEAD[1]) -> str | None:
    """Head `head` of block `block` (by default the head the chapter
    follows, FOLLOWED_HEAD) puts, on average over the held-out line,
    more weight on the character `offset` places back (0: itself) than on
    any other place."""
    best = favourite_offset(run, block, head)
    if best == offset:
        return None
    return (f"head {head} of block {block} favours the character {best} back "
            f"({fixed(offset_share(run, block, head, best))} of its weight on average), "
            f"not {offset} back ({fixed(offset_share(run, block, head, offset))})")


def _cos(E):
    n = E / np.linalg.norm(E, axis=1, keepdims=True)
    return n @ n.T


@writer_claim("case_groups")
def case_groups_claim(run: WriterRun) -> str | None:
    """In E's 128 dimensions, a capital is on average more like (cosine)
    the other capitals than the small letters, and a small letter more like
    the other small letters than the capitals."""
    E, v = run.params["E"], run.vocab
    upper = [i for i, c in enumerate(v) if c.isupper()]
    lower = [i for i, c in enumerate(v) if c.islower()]
    C = _cos(E)

    def mean(a, b):
        vals = [C[i, j] for i in a for j in b if i != j]
        return float(np.mean(vals))
    uu, ll, ul = mean(upper, upper), mean(lower, lower), mean(upper, lower)
    if uu > ul and ll > ul:
        return None
    return (f"the mean cosine is {fixed(uu)} among capitals, {fixed(ll)} among small letters and "
            f"{fixed(ul)} between the two")


# ---------------------------------------------------------------- the embeddings' picture

def case_pairs(run: WriterRun) -> list[tuple[int, int]]:
    """(small letter, its capital) as rows of E, for each letter the
    vocabulary has in both cases."""
    v = run.vocab
    return [(i, v.index(c.upper())) for i, c in enumerate(v) if c.islower() and c.upper() in v]


def kept_variance(run: WriterRun) -> float:
    """The share of the spread of E's rows (about their mean) that the
    picture's two directions keep."""
    E = run.params["E"] - run.params["E"].mean(axis=0)
    return float((run.embedding_2d ** 2).sum() / (E ** 2).sum())


def close_pairs(run: WriterRun) -> list[str]:
    """The letters whose two cases lie nearer each other in the picture
    than the median distance between two letters there."""
    xy, pairs = run.embedding_2d, case_pairs(run)
    letters = [i for pair in pairs for i in pair]
    median = float(np.median([np.linalg.norm(xy[a] - xy[b]) for k, a in enumerate(letters)
                              for b in letters[k + 1:]]))
    return [run.vocab[a] for a, b in pairs if np.linalg.norm(xy[a] - xy[b]) < median]


def own_small_letter(run: WriterRun) -> list[str]:
    """The capitals whose most similar small letter (cosine, in all of E's
    dimensions) is their own."""
    C, pairs = _cos(run.params["E"]), case_pairs(run)
    small = [a for a, _ in pairs]
    return [run.vocab[b] for a, b in pairs if small[int(np.argmax(C[b, small]))] == a]


@writer_claim("apart_first")
def apart_first_claim(run: WriterRun, chars: str) -> str | None:
    """In the picture, each of `chars` lies further along the first
    direction (to the right) than every letter."""
    xy, v = run.embedding_2d, run.vocab
    missing = [c for c in chars if c not in v]
    if missing:
        raise ValueError(f"chars = {chars!r}: {missing[0]!r} is not one of the writer's characters")
    letters = [i for i, c in enumerate(v) if c.isalpha()]
    rightmost = max(letters, key=lambda i: xy[i, 0])
    lowest = min(chars, key=lambda c: xy[v.index(c), 0])
    if xy[v.index(lowest), 0] > xy[rightmost, 0]:
        return None
    return (f"{lowest!r} lies at {fixed(xy[v.index(lowest), 0])} along the first direction, "
            f"the letter {v[rightmost]} at {fixed(xy[rightmost, 0])}")


@writer_claim("case_pairs_close")
def case_pairs_close_claim(run: WriterRun) -> str | None:
    """In the picture, for most letters (more than half) the small letter
    and its capital lie nearer each other than the median two letters."""
    close, n = close_pairs(run), len(case_pairs(run))
    if 2 * len(close) > n:
        return None
    return f"only {len(close)} of the {n} letters have their two cases nearer than the median two letters"


@writer_claim("own_small_letter")
def own_small_letter_claim(run: WriterRun) -> str | None:
    """In all of E's dimensions, for most capitals (more than half) the
    most similar small letter is their own."""
    own, n = own_small_letter(run), len(case_pairs(run))
    if 2 * len(own) > n:
        return None
    return f"only {len(own)} of the {n} capitals are most like their own small letter"


@writer_claim("read_out_leads")
def read_out_leads_claim(run: WriterRun, char: str) -> str | None:
    """Read out of the line's last row at every stage (x, then each
    block's output: chapter.read_out), `char` is the likeliest next
    character, and the model's answer is surer of it than x alone."""
    if char not in run.vocab:
        raise ValueError(f"char = {char!r}: not one of the writer's characters")
    i = run.vocab.index(char)
    for at in ["x", *range(1, run.cfg.n_blocks + 1)]:
        p = read_out(run, stage_row(run, at))
        top = int(np.argmax(p))
        if top != i:
            where = "x" if at == "x" else f"the output of block {at}"
            return f"read out of {where}, {run.vocab[top]!r} ({fixed(p[top])}) is likelier than {char!r} ({fixed(p[i])})"
    first, end = read_out(run, stage_row(run, "x"))[i], run.trace["p"][-1][i]
    if end > first:
        return None
    return f"the model ends at {fixed(end)} for {char!r}, no surer than x read out alone ({fixed(first)})"


@writer_claim("beats_unigram")
def beats_unigram_claim(run: WriterRun) -> str | None:
    """The writer's held-out loss is below the unigram baseline's."""
    ours = run.record["held_out_loss"]
    return None if ours < run.unigram_loss else (f"its held-out loss {fixed(ours)} is not below the "
                                                  f"unigram's {fixed(run.unigram_loss)}")


@writer_claim("top_next")
def top_next_claim(run: WriterRun, char: str) -> str | None:
    """After the held-out line, the most probable next character is `char`."""
    p = run.trace["p"][-1]
    best = run.vocab[int(np.argmax(p))]
    return None if best == char else f"the most probable next character is {best!r}, not {char!r}"


@writer_claim("most_common")
def most_common_claim(run: WriterRun, char: str) -> str | None:
    """`char` is the text's most common character."""
    best = max(run.counts, key=lambda c: (run.counts[c], c))
    return None if best == char else f"the most common character is {best!r}, not {char!r}"


SPEAKER = re.compile(r"^[A-Z][A-Z ]*[A-Z]:$|^[A-Z][a-z]+( [A-Z][a-z]+)*:$")


@writer_claim("sample_has_speaker")
def sample_has_speaker_claim(run: WriterRun, temperature: float) -> str | None:
    """The sample at `temperature` has a line that is a name and a colon, as a play's speaker."""
    lines = run.sample_text(temperature).split("\n")
    if any(SPEAKER.match(line) for line in lines):
        return None
    return f"no line of the sample at temperature {temperature} is a name followed by a colon"


def known_share(run: WriterRun, temperature: float) -> float:
    words = re.findall(r"[A-Za-z]+", run.sample_text(temperature))
    known = set(re.findall(r"[A-Za-z]+", model.text()[:model.split_at()]))
    return sum(w in known for w in words) / max(1, len(words))


@writer_claim("sample_words_known")
def sample_words_known_claim(run: WriterRun, temperature: float, share: float) -> str | None:
    """At least `share` of the words of the sample at `temperature` occur in the training text."""
    got = known_share(run, temperature)
    return None if got >= share else (f"{fixed(got)} of the words of the sample at temperature {temperature} "
                                      f"occur in the training text, less than {share}")
