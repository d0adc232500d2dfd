"""Load the toy model's YAML weights file, checking every entry.

The file is typed by people, so each mistake gets one message that names
the file, the key (and row) and what was expected.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from .gpt import Config, HeadsError, check_heads
from .tokenizer import SPACE_SIGN, show

MATRICES = ("E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U")
KEYS = ("heads", "vocab") + MATRICES
DEFAULT_TOY = Path(__file__).parent.parent / "weights" / "toy.yaml"


class WeightsError(ValueError):
    """A weights file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Model:
    """A loaded model: its shape, its numbers and its tokens."""

    path: Path
    cfg: Config
    params: dict
    vocab: list       # tokens with real leading spaces

    @property
    def heads(self) -> int:
        return self.cfg.n_heads

    def show(self, i: int) -> str:
        return show(self.vocab[i])


def load_toy(path: str | Path = DEFAULT_TOY) -> Model:
    """Read and validate a toy weights file (see weights/toy.yaml)."""
    path = Path(path)
    where = str(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise WeightsError(f"{where}: cannot read the weights file ({e.strerror})") from None
    except yaml.YAMLError as e:
        raise WeightsError(f"{where}: not valid YAML: {e}") from None
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
    E = read_matrix(data, "E", where, rows=(V, per_token), row_names=[show(t) for t in vocab])
    d = E.shape[1]
    per_column = f"d = {d}, the width of E"
    P = read_matrix(data, "P", where, cols=(d, per_column))
    square = {k: read_matrix(data, k, where, rows=(d, per_column), cols=(d, per_column))
              for k in ("W_Q", "W_K", "W_V", "W_O")}
    W_1 = read_matrix(data, "W_1", where, rows=(d, per_column))
    width = W_1.shape[1]
    W_2 = read_matrix(data, "W_2", where, rows=(width, f"the MLP width {width}, from W_1"),
                      cols=(d, per_column))
    W_U = read_matrix(data, "W_U", where, rows=(d, per_column), cols=(V, per_token))

    heads = data.get("heads", 1)
    if isinstance(heads, bool) or not isinstance(heads, int):
        raise WeightsError(f"{where}: key 'heads': expected a whole number, found {heads!r}")
    try:
        check_heads(d, heads)
    except HeadsError as e:
        raise WeightsError(f"{where}: key 'heads': {e}") from None

    cfg = Config(vocab_size=V, d=d, n_ctx=P.shape[0], n_blocks=1, n_heads=heads,
                 width=width, bias=False, ln_weights=False, tied=False)
    params = {"E": E, "P": P, "W_U": W_U, "blocks.0.W_1": W_1, "blocks.0.W_2": W_2}
    params.update({f"blocks.0.{k}": v for k, v in square.items()})
    return Model(path=path, cfg=cfg, params=params, vocab=vocab)


def read_vocab(raw, where: str) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise WeightsError(f"{where}: key 'vocab': expected a list of tokens, found {raw!r}")
    vocab, seen = [], {}
    for i, token in enumerate(raw):
        if not isinstance(token, str) or not token:
            raise WeightsError(f"{where}: key 'vocab', entry {i}: expected a non-empty "
                               f"token in quotes, found {token!r}")
        token = token.replace(SPACE_SIGN, " ")
        if token in seen:
            raise WeightsError(f"{where}: key 'vocab': token \"{show(token)}\" appears twice "
                               f"(entries {seen[token]} and {i}); each token needs its own row")
        seen[token] = i
        vocab.append(token)
    return vocab


def read_matrix(data, key, where, rows=None, cols=None, row_names=None) -> np.ndarray:
    """A list of rows of finite numbers. rows and cols, when given, are
    (expected count, why) pairs."""
    raw = data[key]
    if not isinstance(raw, list) or not raw:
        raise WeightsError(f"{where}: key '{key}': expected a matrix written as a list of rows "
                           f"of numbers, found {raw!r}")
    if rows is not None and len(raw) != rows[0]:
        raise WeightsError(f"{where}: key '{key}': expected {rows[0]} rows ({rows[1]}), found {len(raw)}")
    width, why = cols if cols is not None else (None, "as many as in row 0")
    for r, row in enumerate(raw):
        label = f"row {r}" + (f" ({row_names[r]})" if row_names else "")
        if not isinstance(row, list) or not row:
            raise WeightsError(f"{where}: key '{key}', {label}: expected a list of numbers, found {row!r}")
        if width is None:
            width = len(row)
        if len(row) != width:
            raise WeightsError(f"{where}: key '{key}', {label}: expected {width} numbers "
                               f"({why}), found {len(row)}")
        for c, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise WeightsError(f"{where}: key '{key}', {label}, column {c}: "
                                   f"expected a number, found {value!r}")
            if not math.isfinite(value):
                raise WeightsError(f"{where}: key '{key}', {label}, column {c}: "
                                   f"expected a finite number, found {value}")
    return np.array(raw, dtype=np.float64)
