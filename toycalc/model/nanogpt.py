"""nano-gpt, the letter sorter: its config, its task, its weights file.

The model is toycalc's one GPT (gpt.py) with minGPT's sort demo config:
3 blocks, 3 heads, d = 48, MLP width 192, 11 positions, vocabulary A B C.
It reads six letters and writes them sorted: C B A B B C -> A B B B C C.

The weights come from `python -m toycalc train` (see train.py) and live in
`weights/nanogpt.safetensors` (float16), one array per parameter under the names of
`sizes.param_shapes(CONFIG)`:

    E (3, 48)  P (11, 48)
    blocks.{0,1,2}.W_Q W_K W_V W_O (48, 48)  W_1 (48, 192)  W_2 (192, 48)
    blocks.{0,1,2}.b_Q b_K b_V b_O b_2 (48,)  b_1 (192,)
    blocks.{0,1,2}.gamma_1 beta_1 gamma_2 beta_2 (48,)
    gamma_f beta_f (48,)  W_U (48, 3)

and `weights/nanogpt.json` says how they were made (config, seed, steps,
final loss, accuracy on all 729 inputs; its fields: nanogpt_record.py).
The build only loads them.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import gpt, nanogpt_record, safetensors_file, sizes
from .configs import NANO_GPT
from .files import not_regular, read_within, replace_together
from .mirror import mirrored

CONFIG = NANO_GPT
VOCAB = ("A", "B", "C")
LENGTH = 6                     # letters to sort; the model sees 2 * LENGTH - 1 ids
WEIGHTS_DIR = Path(__file__).parent.parent / "weights"
DEFAULT_WEIGHTS = WEIGHTS_DIR / "nanogpt.safetensors"   # a build may read another: site/weights_files.py


class NanoWeightsError(ValueError):
    """A nano-gpt weights file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Nano:
    """The loaded letter sorter: its numbers, and the record of its training."""

    path: Path
    params: dict
    record: dict
    cfg: gpt.Config = CONFIG


# ---------------------------------------------------------------- the task

def letters(ids) -> str:
    return " ".join(VOCAB[int(i)] for i in ids)


def encode(text: str) -> list[int]:
    """'C B A B B C' (spaces optional) -> [2, 1, 0, 1, 1, 2]."""
    out = []
    for ch in text.replace(" ", ""):
        if ch not in VOCAB:
            raise ValueError(f"{ch!r} is not a letter of the vocabulary {' '.join(VOCAB)}")
        out.append(VOCAB.index(ch))
    return out


def all_inputs() -> np.ndarray:
    """All 3^6 = 729 inputs, (729, 6), in the order AAAAAA, AAAAAB, ..."""
    return np.array(list(itertools.product(range(len(VOCAB)), repeat=LENGTH)))


@mirrored("train.js")
def examples(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """minGPT's sort examples: (B, 6) letters -> ids (B, 11), targets (B, 11).

    The 12 ids are the letters then the letters sorted; the model reads the
    first 11, and position t predicts id t + 1. Only the predictions of the
    six sorted ids count; the other targets are -1 (ignored)."""
    full = np.concatenate([inputs, np.sort(inputs, axis=1)], axis=1)   # (B, 12)
    ids, targets = full[:, :-1], full[:, 1:].copy()                    # (B, 11) each
    targets[:, :LENGTH - 1] = -1
    return ids, targets


# ---------------------------------------------------------------- running it

@mirrored("gpt.js", "greedy")
def generate(params, ids, steps: int = LENGTH, cfg: gpt.Config = CONFIG) -> np.ndarray:
    """Greedy decoding: append the most probable id, `steps` times.
    ids (T,) or (B, T) -> (.., T + steps)."""
    ids = np.asarray(ids)
    for _ in range(steps):
        p = gpt.forward(params, cfg, ids)["p"][..., -1, :]                # (.., V)
        ids = np.concatenate([ids, p.argmax(-1)[..., None]], axis=-1)
    return ids


def sort(params, inputs, cfg: gpt.Config = CONFIG) -> np.ndarray:
    """The model's answer for (B, 6) or (6,) inputs: the six ids it writes."""
    return generate(params, inputs, LENGTH, cfg)[..., LENGTH:]


@mirrored("train.js")
def accuracy(params, cfg: gpt.Config = CONFIG) -> int:
    """How many of the 729 inputs greedy decoding sorts exactly."""
    inputs = all_inputs()
    return int((sort(params, inputs, cfg) == np.sort(inputs, axis=1)).all(axis=1).sum())


# ---------------------------------------------------------------- the files

def record_path(weights: Path) -> Path:
    return Path(weights).with_suffix(".json")


def save(params: dict, record: dict, path: Path = DEFAULT_WEIGHTS) -> None:
    """Write the weights to path (.safetensors, float16) and their record
    beside it (.json). Each goes to a temporary file in the same folder,
    renamed over the old one only once both are complete: a failure or a
    kill while writing leaves the files that were there. A record the
    loader would refuse (one holding NaN, say: JSON has no such number, and
    the browser could not read it) is refused (ValueError) before anything
    is written."""
    path = Path(path)
    record_file = record_path(path)
    if record_file == path:
        raise ValueError(f"{path}: the weights path must not end in .json, where their record goes")
    try:
        nanogpt_record.check(record)
    except nanogpt_record.RecordError as e:
        raise ValueError(f"{record_file}: not written: {e}") from None
    text = json.dumps(record, indent=2, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_together([(path, lambda f: safetensors_file.write(f, params, sizes.param_shapes(CONFIG))),
                      (record_file, lambda f: f.write(text.encode("utf-8")))])


MAX_RECORD_BYTES = 100_000     # nanogpt.json, the record


def load(path: str | Path = DEFAULT_WEIGHTS) -> Nano:
    """Read and validate the weights and their record beside them
    (safetensors_file.read: every array by name, shape and type before its
    numbers are read, each weight finite and within ±MAX_WEIGHT, the toy's
    limit, or float16's range where the record says float16; the record
    field by field, read_record). Parameters come back in float64."""
    path = Path(path)
    params = safetensors_file.read(path, sizes.param_shapes(CONFIG), NanoWeightsError, "nano-gpt",
                                   "python -m toycalc train")
    record = read_record(path)
    safetensors_file.check_half(path, params, record, NanoWeightsError)
    return Nano(path=path, params=params, record=record)


def record_json(rec: Path, limit: int, error: type[Exception]):
    """A record file's JSON, read within `limit` bytes: nano-gpt's and the
    writer's records alike; a problem raised as `error`, naming the file."""
    try:
        data, size = read_within(rec, limit)
    except OSError as e:
        raise error(f"{rec}: not valid JSON: {str(e)[:120]}") from None
    if data is None:
        raise error(f"{rec}: {size:,} bytes, more than the limit of a record, {limit:,}")
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise error(f"{rec}: not valid JSON: {str(e)[:120]}") from None


def read_record(path: Path) -> dict:
    """The record beside the weights at path, checked field by field
    (nanogpt_record); a missing one is refused: the chapter prints its facts."""
    rec = record_path(path)
    kind = not_regular(rec)
    if kind:
        raise NanoWeightsError(f"{rec}: the record is {kind}; expected a regular file")
    if not rec.exists():
        raise NanoWeightsError(f"{rec}: the record of the weights {path.name} is missing; the chapter "
                               "prints its facts. python -m toycalc train writes both files, and so "
                               "does the page Train it yourself: keep them in one folder")
    record = record_json(rec, MAX_RECORD_BYTES, NanoWeightsError)
    try:
        nanogpt_record.check(record)
    except nanogpt_record.RecordError as e:
        raise NanoWeightsError(f"{rec}: {e}") from None
    return record
