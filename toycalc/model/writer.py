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

from . import gpt, nanogpt_record as rec, safetensors_file, sizes
from .files import not_regular, replace_together

DATA = Path(__file__).parent.parent / "data" / "tinyshakespeare.txt"
DATA_SOURCE = "karpathy/char-rnn, data/tinyshakespeare/input.txt (commit 6f9487a)"
HELD_OUT = 0.10                # the last tenth of the text
WEIGHTS_DIR = Path(__file__).parent.parent / "weights"
DEFAULT_WEIGHTS = WEIGHTS_DIR / "writer.safetensors"
TARGET = 1.80                  # the most held-out loss (nats per character) a shipped run may have
MAX_RECORD_BYTES = 400_000     # the loss of every step is kept
MAX_STEPS = 20_000             # of a run: the record keeps every step's loss


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
        return DATA.read_bytes().decode("utf-8")
    except OSError as e:
        raise WriterError(f"{DATA}: cannot read the writer's text ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise WriterError(f"{DATA}: the writer's text is not UTF-8 (byte {e.start + 1:,}, "
                          f"0x{e.object[e.start]:02X}); expected the UTF-8 text the record names") from None


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


def _vocab(field, value):
    if value != vocab():
        raise rec.RecordError(field, f"expected the {len(vocab())} characters of {DATA.name}")


def _windows(field, value):
    """The named held-out windows: their numbers among `of`, and the loss on them."""
    rec.fields({"windows": rec.list_of(rec.whole(0, 10 ** 7), 1000), "of": rec.whole(1, 10 ** 7),
                "loss": rec.number(0, below=100), "means": rec.text},
               ("windows", "of", "loss", "means"))(field, value)


RECORD = {
    "what": rec.text,
    "data": rec.fields({"file": rec.text, "source": rec.text, "characters": rec.whole(1, 10 ** 9),
                        "held_out_from": rec.whole(1, 10 ** 9), "sha256": rec.hex_digest},
                       ("file", "source", "characters", "held_out_from", "sha256")),
    "vocab": _vocab,
    "config": rec.config_of(CONFIG, "the writer's (model/writer.py)"),
    "parameters": rec.whole(sizes.count_params(CONFIG)["total"], sizes.count_params(CONFIG)["total"]),
    "seed": rec.whole(0, rec.MAX_SEED),
    "batch": rec.whole(1, rec.MAX_BATCH),
    "optimizer": rec.fields({"name": rec.text, "lr": rec.number(0), "min_lr": rec.number(0),
                             "warmup": rec.whole(0, MAX_STEPS), "schedule": rec.text,
                             "betas": rec.pair(rec.number(0, below=1)), "eps": rec.number(0),
                             "weight_decay": rec.number(0)}, ("name", "lr", "betas", "eps", "weight_decay")),
    "dtype": rec.one_of(*rec.DTYPES),
    "stored_as": rec.one_of(*rec.DTYPES),
    "steps": rec.whole(1, MAX_STEPS),
    "loss_curve": rec.loss_list(MAX_STEPS),
    "held_out_curve": rec.list_of(rec.pair(rec.whole(0, MAX_STEPS), rec.number(0, below=100)), MAX_STEPS + 1),
    "held_out_loss": rec.number(0, below=100),     # the truth, checked by recompute; TARGET is training's bar
    "held_out_means": rec.text,
    "held_out_windows": _windows,
    "weights_sha256": rec.hex_digest,
    "seconds": rec.number(0),
    "made_with": rec.made_with,
}
RECORD_FIELDS = tuple(RECORD)


def check_record(record, where: str) -> dict:
    """The record's fields, by the one declared checker (nanogpt_record's):
    present, of their kinds (a number never a boolean), within their
    ranges, agreeing with the text and the config, the curves one point per
    step and ending at the last; a mistake names the file and the field."""
    try:
        if not isinstance(record, dict):
            raise rec.RecordError("", "expected a JSON object (the record of the weights)")
        rec.fields(RECORD, RECORD_FIELDS)("", record)
        steps = record["steps"]
        if len(record["loss_curve"]) != steps:
            raise rec.RecordError("loss_curve", f"expected one loss per step, {steps:,} (steps), "
                                  f"found {len(record['loss_curve']):,}")
        held = [s for s, _ in record["held_out_curve"]]
        if held != sorted(set(held)) or held[-1] != steps:
            raise rec.RecordError("held_out_curve", f"expected [step, loss] points in the order of their "
                                  f"steps, the last at step {steps:,} (steps), found steps {_steps(held)}")
    except rec.RecordError as e:
        raise WriterError(f"{where}: {e}") from None
    return record


def _steps(held: list) -> str:
    return ", ".join(map(str, held[:3])) + (f", ..., {held[-1]}" if len(held) > 3 else "")


def text_sha256() -> str:
    return hashlib.sha256(DATA.read_bytes()).hexdigest()


# The held-out windows a record names (held_out_windows) and the build
# scores at every build: as many as the training's curve measures, spread
# evenly over the held-out text, so that the curve's last point is theirs.
CHECK_WINDOWS = 64


def check_windows(count: int = CHECK_WINDOWS) -> list[int]:
    """The numbers of `count` windows spread evenly over the held-out text (held_out_loss's limit)."""
    x, _ = windows(held_out_ids(), CONFIG.n_ctx)
    return np.linspace(0, len(x) - 1, count).round().astype(int).tolist()


def window_losses(params, picked: list[int], cfg: gpt.Config = CONFIG) -> np.ndarray:
    """The mean loss of each of the named held-out windows, with the
    weights in float32 (as quick as a build needs: about half a second)."""
    x, y = windows(held_out_ids(), cfg.n_ctx)
    x, y = x[picked], y[picked]
    p = gpt.forward({k: v.astype(np.float32) for k, v in params.items()}, cfg, x)["p"]
    picked_p = np.take_along_axis(p, y[..., None], -1)[..., 0]
    return -np.log(picked_p.astype(np.float64)).mean(axis=1)


def windows_record(params) -> dict:
    """The record's held_out_windows for these (stored) weights."""
    picked = check_windows()
    return {"windows": picked, "of": len(windows(held_out_ids(), CONFIG.n_ctx)[0]),
            "loss": float(window_losses(params, picked).mean()),
            "means": (f"mean loss on these {len(picked)} windows of {CONFIG.n_ctx} characters of the held-out "
                      "text (numbered from 0), with the stored weights in float32: what every build recomputes")}


WINDOWS_TOLERANCE = 1e-5      # float32 sums in another order
CURVE_TOLERANCE = 1e-3        # the curve's last point, measured before the weights were rounded to float16
SPREAD = 4                    # standard errors of the windows' mean that the whole text's loss may lie from it


def recompute(loaded: "Writer") -> None:
    """What the build can recompute, against the record: the text's size
    and hash, the loss on the named held-out windows, the held-out curve's
    last point, and the held-out loss of the whole text (which the named
    windows sample). A disagreement raises WriterError naming the file,
    the field, the record's value and the recomputed one."""
    record, where = loaded.record, record_path(loaded.path)

    def differs(field, said, got):
        raise WriterError(f"{where}: field '{field}': the record says {said}; recomputed: {got}")
    data = record["data"]
    if data["characters"] != len(text()):
        differs("data.characters", f"{data['characters']:,} characters",
                f"{DATA} has {len(text()):,}")
    if data["sha256"] != text_sha256():
        differs("data.sha256", data["sha256"], f"{text_sha256()}, the SHA-256 of {DATA}")
    if data["held_out_from"] != split_at():
        differs("data.held_out_from", f"{data['held_out_from']:,}", f"{split_at():,}")
    named = record["held_out_windows"]
    x, _ = windows(held_out_ids(), CONFIG.n_ctx)
    if named["of"] != len(x) or any(k >= len(x) for k in named["windows"]):
        differs("held_out_windows.of", f"windows numbered of {named['of']:,}",
                f"the held-out text has {len(x):,} windows")
    losses = window_losses(loaded.params, named["windows"])
    got = float(losses.mean())
    if abs(named["loss"] - got) > WINDOWS_TOLERANCE:
        differs("held_out_windows.loss", f"{named['loss']:.6f}", f"{got:.6f}")
    step, last = record["held_out_curve"][-1]
    if named["windows"] == check_windows() and abs(last - got) > CURVE_TOLERANCE:
        differs("held_out_curve", f"{last:.4f} at step {step:,}, its last point",
                f"{got:.4f} on the held_out_windows, the curve's windows")
    margin = SPREAD * float(losses.std(ddof=1)) / np.sqrt(len(losses))
    if abs(record["held_out_loss"] - got) > margin:
        differs("held_out_loss", f"{record['held_out_loss']:.4f}",
                f"{got:.4f} on the named held_out_windows; the whole text's cannot lie more than "
                f"{margin:.4f} from it ({SPREAD} standard errors)")


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
    record_file = record_path(path)
    kind = not_regular(record_file)
    if kind or not record_file.exists():
        raise WriterError(f"{record_file}: the record of the weights {path.name} is "
                          f"{kind or 'missing'}; python -m toycalc train-writer writes both files")
    record = record_json(record_file, MAX_RECORD_BYTES, WriterError)
    check_record(record, str(record_file))
    safetensors_file.check_half(path, params, record, WriterError)
    if record["weights_sha256"] != digest(params):
        raise WriterError(f"{record_file}: field 'weights_sha256' does not match the weights in {path.name}: "
                          "the record was written for other weights (train again, or put the "
                          "record made with these weights beside them)")
    loaded = Writer(path=path, params=params, record=record, vocab=vocab())
    recompute(loaded)
    return loaded
