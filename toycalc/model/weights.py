"""Load the toy model's YAML weights file, checking every entry.

The file is typed by people, so each mistake gets one message that names
the file, the key (and row) and what was expected, and quotes at most a
short excerpt of what was typed. Rows, columns and entries count from 1,
as the book and the weights editor count them. The limits below are checked before any
work, so that no file, however small or large, can hang the build or
exhaust the memory: they leave room for every experiment a toy invites.
"""
from __future__ import annotations

import hashlib
import math
import reprlib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import not_regular, read_within
from .gpt import Config, HeadsError, check_heads
from .tokenizer import SPACE_SIGN, show
from .yamlfile import Trap, YamlError, excerpt, load as load_yaml, written

MATRICES = ("E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U")
KEYS = ("heads", "vocab") + MATRICES
DEFAULT_TOY = Path(__file__).parent.parent / "weights" / "toy.yaml"

# The limits of a toy weights file (stated in the README).
MAX_BYTES = 2_000_000     # the file
MAX_V = 256               # tokens in vocab: rows of E, columns of W_U
MAX_TOKEN = 32            # characters in one token
MAX_D = 64                # columns of E: the width of the residual stream
MAX_POSITIONS = 64        # rows of P
MAX_WIDTH = 256           # columns of W_1: the MLP's hidden width
MAX_WEIGHT = 1e6          # |w| of any weight: no sum of the forward pass can overflow

_brief = reprlib.Repr()
_brief.maxlevel, _brief.maxlist, _brief.maxdict, _brief.maxstring, _brief.maxother = 2, 4, 4, 30, 30


def brief(value) -> str:
    """What was found, in a few dozen characters, whatever its size."""
    if isinstance(value, Trap):
        return excerpt(value.text)
    return _brief.repr(value)


class WeightsError(ValueError):
    """A weights file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Model:
    """A loaded model: its shape, its numbers and its tokens."""

    path: Path
    cfg: Config
    params: dict
    vocab: list       # tokens with real leading spaces
    text: str = ""    # the file as it was read: its comments go into a download

    @property
    def heads(self) -> int:
        return self.cfg.n_heads

    def show(self, i: int) -> str:
        return show(self.vocab[i])


# The last file read, by its bytes: a build (the macros, the hooks, the
# command line) reads the same file several times but parses it once.
_LOADED: dict = {}


def load_toy(path: str | Path = DEFAULT_TOY) -> Model:
    """Read and validate a toy weights file (see weights/toy.yaml)."""
    path = Path(path)
    where = str(path)
    kind = not_regular(path)
    if kind:
        raise WeightsError(f"{where}: the weights path is {kind}; expected a regular file")
    try:
        raw, size = read_within(path, MAX_BYTES)
    except OSError as e:
        raise WeightsError(f"{where}: cannot read the weights file ({e.strerror})") from None
    if raw is None:
        raise WeightsError(f"{where}: the file has {size:,} bytes, more than the limit of a toy "
                           f"weights file, {MAX_BYTES:,}")
    key = (str(path.resolve()), hashlib.sha256(raw).digest())
    if key not in _LOADED:
        model = parse_toy(raw, path)
        _LOADED.clear()
        _LOADED[key] = model
    return _LOADED[key]


def parse_toy(raw: bytes, path: Path) -> Model:
    where = str(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise WeightsError(f"{where}: line {line}: not UTF-8 text (byte 0x{raw[e.start]:02x}); "
                           "save the file as UTF-8") from None
    try:
        data = load_yaml(text.removeprefix("\ufeff"))
    except YamlError as e:
        at = f"line {e.line}: " if e.line else ""
        raise WeightsError(f"{where}: {at}{e}") from None
    if not isinstance(data, dict):
        raise WeightsError(f"{where}: expected a mapping with the keys {', '.join(KEYS)}")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise WeightsError(f"{where}: unknown key '{unknown[0]}'; the keys are {', '.join(KEYS)}")
    missing = [k for k in KEYS if k not in data and k != "heads"]
    if missing:
        raise WeightsError(f"{where}: key '{missing[0]}' is missing; "
                           f"a toy weights file needs {', '.join(KEYS[1:])}")

    vocab = read_vocab(data["vocab"], where)
    V = len(vocab)
    per_token = f"one per token of vocab, V = {V}"
    E = read_matrix(data, "E", where, rows=(V, per_token), row_names=[show(t) for t in vocab],
                    max_cols=(MAX_D, "columns (d, the width of the model)"))
    d = E.shape[1]
    per_column = f"d = {d}, the width of E"
    P = read_matrix(data, "P", where, cols=(d, per_column), max_rows=(MAX_POSITIONS, "rows (positions)"))
    square = {k: read_matrix(data, k, where, rows=(d, per_column), cols=(d, per_column))
              for k in ("W_Q", "W_K", "W_V", "W_O")}
    W_1 = read_matrix(data, "W_1", where, rows=(d, per_column), max_cols=(MAX_WIDTH, "columns (the MLP width)"))
    width = W_1.shape[1]
    W_2 = read_matrix(data, "W_2", where, rows=(width, f"the MLP width {width}, from W_1"),
                      cols=(d, per_column))
    W_U = read_matrix(data, "W_U", where, rows=(d, per_column), cols=(V, per_token))

    heads = data.get("heads", 1)
    if isinstance(heads, Trap):
        raise WeightsError(f"{where}: key 'heads': {brief(heads)} is not read as a number: {heads.why}")
    if isinstance(heads, bool) or not isinstance(heads, int):
        raise WeightsError(f"{where}: key 'heads': expected a whole number, found {brief(heads)}")
    try:
        check_heads(d, heads)
    except HeadsError as e:
        raise WeightsError(f"{where}: key 'heads': {e}") from None

    cfg = Config(vocab_size=V, d=d, n_ctx=P.shape[0], n_blocks=1, n_heads=int(heads),
                 width=width, bias=False, ln_weights=False, tied=False)
    params = {"E": E, "P": P, "W_U": W_U, "blocks.0.W_1": W_1, "blocks.0.W_2": W_2}
    params.update({f"blocks.0.{k}": v for k, v in square.items()})
    for array in params.values():
        array.flags.writeable = False   # one loaded model serves the whole build
    return Model(path=path, cfg=cfg, params=params, vocab=vocab, text=text)


def read_vocab(raw, where: str) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise WeightsError(f"{where}: key 'vocab': expected a list of tokens, found {brief(raw)}")
    if len(raw) > MAX_V:
        raise WeightsError(f"{where}: key 'vocab': {len(raw)} tokens, more than the limit "
                           f"of {MAX_V} (V)")
    vocab, seen = [], {}
    for i, token in enumerate(raw):
        if not isinstance(token, str) or not token:
            raise WeightsError(f"{where}: key 'vocab', entry {i + 1}: expected a non-empty "
                               f"token in quotes, found {brief(token)}")
        if len(token) > MAX_TOKEN:
            raise WeightsError(f"{where}: key 'vocab', entry {i + 1}: {excerpt(token, 20)} has "
                               f"{len(token)} characters, more than the limit of {MAX_TOKEN}")
        token = token.replace(SPACE_SIGN, " ")
        unreadable = not_text(token)
        if unreadable:
            raise WeightsError(f"{where}: key 'vocab', entry {i + 1}: {excerpt(token, 20)} holds "
                               f"{unreadable}; a token is printable text")
        mixed = scripts(token)
        if len(mixed) > 1:
            raise WeightsError(f"{where}: key 'vocab', entry {i + 1}: {excerpt(token, 20)} mixes "
                               f"{' and '.join(sorted(mixed))} letters, which can look alike; "
                               "write each token in one script")
        if token in seen:
            raise WeightsError(f"{where}: key 'vocab': token \"{show(token)}\" appears twice "
                               f"(entries {seen[token] + 1} and {i + 1}); each token needs its own row")
        seen[token] = i
        vocab.append(token)
    folded: dict = {}
    for i, token in enumerate(vocab):
        same = folded.setdefault(unicodedata.normalize("NFKC", token), i)
        if same != i:
            raise WeightsError(f"{where}: key 'vocab': tokens \"{show(vocab[same])}\" and "
                               f"\"{show(token)}\" (entries {same + 1} and {i + 1}) differ only in "
                               "compatibility forms (Unicode NFKC reads them as one), so a reader "
                               "cannot tell them apart; keep one")
    return vocab


# What a token may not hold (Unicode general categories): control
# characters (line breaks, tabs, NUL), format characters (bidi overrides,
# zero-width spaces and joiners, the byte order mark), line and paragraph
# separators, surrogates, unassigned code points, and any space but the
# plain one (U+0020, which ␣ stands for): each prints as nothing, as
# something else, or breaks the page, the search index or the YAML written
# back by End to End.
NOT_TEXT = {"Cc": "a control character", "Cf": "a format character (invisible)",
            "Zl": "a line separator", "Zp": "a paragraph separator", "Cs": "a surrogate",
            "Cn": "an unassigned code point", "Zs": "a space other than the plain space"}


def not_text(token: str) -> str | None:
    """The first character of token that is not printable text, described
    with its code point and name, or None."""
    for ch in token:
        kind = unicodedata.category(ch)
        if kind in NOT_TEXT and ch != " ":
            name = unicodedata.name(ch, "")
            return f"U+{ord(ch):04X}{' ' + name if name else ''}, {NOT_TEXT[kind]}"
    return None


def scripts(token: str) -> set[str]:
    """The scripts of token's letters, by the first word of their Unicode
    names (LATIN, CYRILLIC, GREEK, ...): a Cyrillic "с" in a Latin word looks
    like "c" and would make two tokens the reader cannot tell apart."""
    found = {unicodedata.name(ch, "?").split()[0].title() for ch in token if ch.isalpha()}
    return {"Chinese, Japanese or Korean" if s in EAST_ASIAN else s for s in found}


# Scripts that one word mixes as a rule (kanji with kana, hanja with hangul).
EAST_ASIAN = {"Cjk", "Hiragana", "Katakana", "Hangul", "Bopomofo", "Halfwidth"}


def read_matrix(data, key, where, rows=None, cols=None, row_names=None,
                max_rows=None, max_cols=None) -> np.ndarray:
    """A list of rows of numbers within ±MAX_WEIGHT. rows and cols, when
    given, are (expected count, why) pairs; max_rows and max_cols are
    (limit, what) pairs, checked before any row is read."""
    raw = data[key]
    if not isinstance(raw, list) or not raw:
        raise WeightsError(f"{where}: key '{key}': expected a matrix written as a list of rows "
                           f"of numbers, found {brief(raw)}")
    if max_rows is not None and len(raw) > max_rows[0]:
        raise WeightsError(f"{where}: key '{key}': {len(raw)} {max_rows[1]}, more than the "
                           f"limit of {max_rows[0]}")
    if rows is not None and len(raw) != rows[0]:
        raise WeightsError(f"{where}: key '{key}': expected {rows[0]} rows ({rows[1]}), found {len(raw)}")
    first = raw[0]
    if max_cols is not None and isinstance(first, list) and len(first) > max_cols[0]:
        raise WeightsError(f"{where}: key '{key}': row 1 has {len(first)} {max_cols[1]}, more "
                           f"than the limit of {max_cols[0]}")
    width, why = cols if cols is not None else (None, "as many as in row 1")
    for r, row in enumerate(raw):
        label = f"row {r + 1}" + (f" ({row_names[r]})" if row_names else "")
        if not isinstance(row, list) or not row:
            raise WeightsError(f"{where}: key '{key}', {label}: expected a list of numbers, "
                               f"found {brief(row)}")
        if width is None:
            width = len(row)
        if len(row) != width:
            raise WeightsError(f"{where}: key '{key}', {label}: expected {width} numbers "
                               f"({why}), found {len(row)}")
        for c, value in enumerate(row):
            at = f"{where}: key '{key}', {label}, column {c + 1}"
            if isinstance(value, Trap):
                raise WeightsError(f"{at}: {brief(value)} is not read as a number: {value.why}")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise WeightsError(f"{at}: expected a number, found {brief(value)}")
            if not math.isfinite(value):
                raise WeightsError(f"{at}: expected a finite number, found {value}")
            if abs(value) > MAX_WEIGHT:
                raise WeightsError(f"{at}: {written(value)} is beyond the limit of a weight, "
                                   f"±{MAX_WEIGHT:,.0f}")
    return np.array(raw, dtype=np.float64)
