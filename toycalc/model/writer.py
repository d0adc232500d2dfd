"""The writer: a character-level GPT trained on Shakespeare (data/tinyshakespeare.txt).

The model is toycalc's one GPT (gpt.py) with a config of its own: 4 blocks
of d = 128 with 4 heads, MLP width 512, 64 positions, biases, LayerNorm
weights, an untied output; its vocabulary is the 65 distinct characters
of the text, in code-point order. The last 10 % of the text is held out:
never trained on (train_writer.py draws batches from the first 90 %).

The weights come from `python -m toycalc train-writer` and live in
`weights/writer.safetensors` (float16, one array per parameter under the names of
`sizes.param_shapes(CONFIG)`), with `weights/writer.json` beside them:
how they were made, the loss of every step, the held-out loss, and the
SHA-256 of the stored numbers, which `load` checks against the weights.
The build only loads them.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import gpt, safetensors_file, sizes
from .files import not_regular, replace_together

DATA = Path(__file__).parent.parent / "data" / "tinyshakespeare.txt"
DATA_SOURCE = "karpathy/char-rnn, data/tinyshakespeare/input.txt (commit 6f9487a)"
HELD_OUT = 0.10                # the last tenth of the text
WEIGHTS_DIR = Path(__file__).parent.parent / "weights"
DEFAULT_WEIGHTS = WEIGHTS_DIR / "writer.safetensors"
TARGET = 1.80                  # the most held-out loss (nats per character) a shipped run may have
MAX_RECORD_BYTES = 400_000     # the loss of every step is kept


def config(vocab_size: int = 65, d: int = 128, n_ctx: int = 64, n_blocks: int = 4,
           n_heads: int = 4) -> gpt.Config:
    """The writer's shape; smaller ones (same switches) serve the gradient check."""
    return gpt.Config(vocab_size=vocab_size, d=d, n_ctx=n_ctx, n_blocks=n_blocks,
                      n_heads=n_heads, width=4 * d, bias=True, ln_weights=True, tied=False)


CONFIG = config()


class WriterError(ValueError):
    """Weights, record or text the writer cannot use; the message says where and why."""


# ---------------------------------------------------------------- the text

@lru_cache(maxsize=1)
def text() -> str:
    try:
        return DATA.read_text(encoding="utf-8")
    except OSError as e:
        raise WriterError(f"{DATA}: cannot read the writer's text ({e.strerror or e})") from None


@lru_cache(maxsize=1)
def vocab() -> str:
    """The text's distinct characters, in code-point order: id i is vocab()[i]."""
    return "".join(sorted(set(text())))


def split_at() -> int:
    """Where the held-out text begins: the last HELD_OUT of the characters."""
    return int(len(text()) * (1 - HELD_OUT))


@lru_cache(maxsize=1)
def all_ids() -> np.ndarray:
    index = {ch: i for i, ch in enumerate(vocab())}
    return np.array([index[ch] for ch in text()], dtype=np.int64)


def train_ids() -> np.ndarray:
    return all_ids()[:split_at()]


def held_out_ids() -> np.ndarray:
    return all_ids()[split_at():]


def held_out_text() -> str:
    return text()[split_at():]


def outside(s: str) -> tuple[int, str] | None:
    """The first character of s that is not in the vocabulary, as
    (its position counted from 1, the character), or None."""
    chars = set(vocab())
    return next(((k + 1, ch) for k, ch in enumerate(s) if ch not in chars), None)


def encode(s: str) -> list[int]:
    bad = outside(s)
    if bad:
        raise WriterError(f"character {bad[0]} ({bad[1]!r}, U+{ord(bad[1]):04X}) is not one of "
                          f"the writer's {len(vocab())} characters")
    index = {ch: i for i, ch in enumerate(vocab())}
    return [index[ch] for ch in s]


def decode(ids) -> str:
    v = vocab()
    return "".join(v[int(i)] for i in ids)


def windows(ids: np.ndarray, n_ctx: int = CONFIG.n_ctx) -> tuple[np.ndarray, np.ndarray]:
    """Non-overlapping windows of n_ctx characters and their next characters:
    ids (N,) -> (W, n_ctx) inputs and targets, every position scored."""
    n = (len(ids) - 1) // n_ctx
    x = ids[:n * n_ctx].reshape(n, n_ctx)
    y = ids[1:n * n_ctx + 1].reshape(n, n_ctx)
    return x, y


def held_out_loss(params, cfg: gpt.Config = CONFIG, rows: int = 64, limit: int | None = None) -> float:
    """Mean loss (nats per character) on the held-out text, cut into
    windows (see `windows`), in the params' dtype; `limit` windows evenly
    spread over it when given (the training's quick look)."""
    x, y = windows(held_out_ids(), cfg.n_ctx)
    if limit is not None:
        pick = np.linspace(0, len(x) - 1, limit).round().astype(int)
        x, y = x[pick], y[pick]
    total = 0.0
    for s in range(0, len(x), rows):
        p = gpt.forward(params, cfg, x[s:s + rows])["p"]
        picked = np.take_along_axis(p, y[s:s + rows][..., None], -1)[..., 0]
        total += float(-np.log(picked.astype(np.float64)).sum())
    return total / y.size


# ---------------------------------------------------------------- the files

@dataclass(frozen=True)
class Writer:
    """The loaded writer: its numbers (float64), its record, its vocabulary."""

    path: Path
    params: dict
    record: dict
    vocab: str
    cfg: gpt.Config = CONFIG


def record_path(weights: Path) -> Path:
    return Path(weights).with_suffix(".json")


def digest(params: dict, cfg: gpt.Config = CONFIG) -> str:
    """SHA-256 of the stored numbers (float16), array after array in
    param_shapes' order: what ties a record to its weights."""
    h = hashlib.sha256()
    for name in sizes.param_shapes(cfg):
        h.update(np.ascontiguousarray(params[name], dtype=np.float16).tobytes())
    return h.hexdigest()


def save(params: dict, record: dict, path: Path = DEFAULT_WEIGHTS) -> None:
    """Write the weights (float16 .safetensors) and their record (.json) beside
    them, each to a temporary file renamed over the old one once both are
    complete: a failure or a kill leaves the files that were there."""
    path = Path(path)
    record_file = record_path(path)
    text_out = json.dumps(record, indent=1, allow_nan=False) + "\n"
    replace_together([(path, lambda f: safetensors_file.write(f, params, sizes.param_shapes(CONFIG))),
                      (record_file, lambda f: f.write(text_out.encode("utf-8")))])


RECORD_FIELDS = ("what", "data", "vocab", "config", "parameters", "seed", "batch", "optimizer",
                 "dtype", "stored_as", "steps", "loss_curve", "held_out_curve", "held_out_loss",
                 "held_out_means", "weights_sha256", "seconds", "made_with")


def check_record(record, where: str) -> dict:
    """The record's fields: present, of the right kind, and agreeing with
    the text and the config; a mistake names the file and the field."""
    if not isinstance(record, dict):
        raise WriterError(f"{where}: expected a JSON object (the record of the weights)")
    for name in RECORD_FIELDS:
        if name not in record:
            raise WriterError(f"{where}: field '{name}' is missing")
    unknown = [k for k in record if k not in RECORD_FIELDS]
    if unknown:
        raise WriterError(f"{where}: unknown field {unknown[0]!r}; expected only {', '.join(RECORD_FIELDS)}")
    if record["vocab"] != vocab():
        raise WriterError(f"{where}: field 'vocab': expected the {len(vocab())} characters of {DATA.name}")
    if record["config"] != {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__}:
        raise WriterError(f"{where}: field 'config': expected the writer's config (model/writer.py)")
    steps = record["steps"]
    if not isinstance(steps, int) or not 1 <= steps <= 100_000:
        raise WriterError(f"{where}: field 'steps': expected a whole number from 1 to 100,000")
    curve = record["loss_curve"]
    if not (isinstance(curve, list) and len(curve) == steps
            and all(isinstance(v, float) and 0 <= v < 100 for v in curve)):
        raise WriterError(f"{where}: field 'loss_curve': expected {steps} losses between 0 and 100")
    held = record["held_out_curve"]
    if not (isinstance(held, list) and held and all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and 0 <= e[0] <= steps
            and isinstance(e[1], float) and 0 <= e[1] < 100 for e in held)):
        raise WriterError(f"{where}: field 'held_out_curve': expected [step, loss] pairs, "
                          f"steps 0 to {steps}, losses between 0 and 100")
    loss = record["held_out_loss"]
    if not isinstance(loss, float) or not 0 <= loss <= TARGET:
        raise WriterError(f"{where}: field 'held_out_loss': expected a loss from 0 to {TARGET} "
                          f"nats per character, found {loss!r}")
    return record


def load(path: str | Path = DEFAULT_WEIGHTS) -> Writer:
    """Read and validate the weights and their record: the arrays by name,
    shape and type, every weight finite and within float16's range where
    the record says float16 (safetensors_file.read, as nano-gpt's), the
    record's fields, and the record's SHA-256 against the weights.
    Parameters come back in float64."""
    from .nanogpt import record_json
    path = Path(path)
    params = safetensors_file.read(path, sizes.param_shapes(CONFIG), WriterError, "writer's",
                                   "python -m toycalc train-writer")
    rec = record_path(path)
    kind = not_regular(rec)
    if kind or not rec.exists():
        raise WriterError(f"{rec}: the record of the weights {path.name} is "
                          f"{kind or 'missing'}; python -m toycalc train-writer writes both files")
    record = record_json(rec, MAX_RECORD_BYTES, WriterError)
    check_record(record, str(rec))
    safetensors_file.check_half(path, params, record, WriterError)
    if record["weights_sha256"] != digest(params):
        raise WriterError(f"{rec}: field 'weights_sha256' does not match the weights in {path.name}: "
                          "the record was written for other weights (train again, or put the "
                          "record made with these weights beside them)")
    return Writer(path=path, params=params, record=record, vocab=vocab())
