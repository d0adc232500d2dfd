"""nano-gpt, the letter sorter: its config, its task, its weights file.

The model is toycalc's one GPT (gpt.py) with minGPT's sort demo config:
3 blocks, 3 heads, d = 48, MLP width 192, 11 positions, vocabulary A B C.
It reads six letters and writes them sorted: C B A B B C -> A B B B C C.

The weights come from `python -m toycalc train` (see train.py) and live in
`weights/nanogpt.npz`, one array per parameter under the names of
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
import math
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import gpt, nanogpt_record, sizes
from .configs import NANO_GPT
from .files import not_regular, replace_together
from .mirror import mirrored
from .weights import MAX_WEIGHT
from .yamlfile import excerpt

CONFIG = NANO_GPT
VOCAB = ("A", "B", "C")
LENGTH = 6                     # letters to sort; the model sees 2 * LENGTH - 1 ids
WEIGHTS_DIR = Path(__file__).parent.parent / "weights"
DEFAULT_NPZ = WEIGHTS_DIR / "nanogpt.npz"   # a build may read another: site/weights_files.py


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

def record_path(npz: Path) -> Path:
    return Path(npz).with_suffix(".json")


def save(params: dict, record: dict, path: Path = DEFAULT_NPZ) -> None:
    """Write the weights to path (.npz) and their record beside it (.json).
    Each goes to a temporary file in the same folder, renamed over the old
    one only once both are complete: a failure or a kill while writing
    leaves the files that were there. A record the loader would refuse
    (one holding NaN, say: JSON has no such number, and the browser could
    not read it) is refused (ValueError) before anything is written."""
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
    replace_together([(path, lambda f: np.savez(f, **{name: params[name] for name in
                                                      sizes.param_shapes(CONFIG)})),
                      (record_file, lambda f: f.write(text.encode("utf-8")))])


MAX_RECORD_BYTES = 100_000     # nanogpt.json, the record
ENCRYPTED = 0x1                # bit 0 of a zip member's flags
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


def max_array_bytes(shape) -> int:
    """The most one array may take, expanded: float64 numbers and the .npy header."""
    return math.prod(shape) * 8 + 4096


def max_npz_bytes(shapes: dict) -> int:
    """The most a weights file may take: its arrays' limits and 1 KiB of
    zip headers for each (savez_compressed's deflate adds a few bytes)."""
    return sum(max_array_bytes(shape) + 1024 for shape in shapes.values())


def load(path: str | Path = DEFAULT_NPZ) -> Nano:
    """Read and validate the weights and their record beside them; a
    missing, extra or misshapen array gets a message naming the file, the
    array and the shape it must have, a field of the record its file and
    the field (read_record). The file's size, and each member's name,
    flags and method, are checked before zipfile reads a number, and each
    array's size and header before its numbers are read, so a small
    archive that would expand to gigabytes is refused at once. Every
    weight is finite and within ±MAX_WEIGHT, the toy's limit.
    Parameters come back in float64."""
    path = Path(path)
    where = str(path)
    shapes = sizes.param_shapes(CONFIG)
    kind = not_regular(path)
    if kind:
        raise NanoWeightsError(f"{where}: the nano-gpt weights path is {kind}; expected a regular file")
    try:
        with open(path, "rb") as f:
            start = f.read(6)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        reason = e.strerror or str(e)
        raise NanoWeightsError(f"{where}: cannot read the nano-gpt weights ({reason}); "
                               "make them with: python -m toycalc train") from None
    # before zipfile reads the archive's list of members, which costs
    # memory and time in proportion to their number, whatever their size
    limit = max_npz_bytes(shapes)
    if size > limit:
        raise NanoWeightsError(f"{where}: {size:,} bytes, more than the {limit:,} that nano-gpt's "
                               f"{len(shapes)} arrays take in float64 with their headers")
    try:
        archive = zipfile.ZipFile(path)
    except OSError as e:
        raise NanoWeightsError(f"{where}: cannot read the nano-gpt weights ({e.strerror or e})") from None
    except (zipfile.BadZipFile, ValueError, EOFError):
        what = ("the file is empty" if not start else
                "a single .npy array, not an .npz archive" if start == b"\x93NUMPY" else
                "not a zip archive, or a truncated one")
        raise NanoWeightsError(f"{where}: not a numpy .npz file ({what}); expected the "
                               f"{len(shapes)} arrays np.savez writes, as python -m toycalc train "
                               "makes them") from None
    with archive:
        try:
            arrays = read_arrays(archive, shapes, where)
        except NanoWeightsError:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as e:
            reason = str(e).splitlines()[0][:80] if str(e) else type(e).__name__
            raise NanoWeightsError(f"{where}: the archive is corrupt or truncated ({reason})") from None
    params = {}
    for name, a in arrays.items():
        if not np.isfinite(a).all():
            raise NanoWeightsError(f"{where}: array '{name}': holds a value that is not finite "
                                   f"(at index {tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])})")
        beyond = np.abs(a.astype(np.float64)) > MAX_WEIGHT   # the toy's limit: no sum of the forward pass overflows
        if beyond.any():
            at = tuple(int(i) for i in np.argwhere(beyond)[0])
            raise NanoWeightsError(f"{where}: array '{name}': holds {stored(a[at])} at index {at}, beyond "
                                   f"the limit of a weight, ±{MAX_WEIGHT:,.0f}")
        params[name] = a.astype(np.float64)
    return Nano(path=path, params=params, record=read_record(path))


def stored(value: np.generic) -> str:
    """A number of an array as its type stores it, in the fewest digits that
    give it back (1000000.1 in float32, not 1e+06 nor 1000000.125); in
    powers of ten beyond 1e16, as Python writes such floats."""
    if abs(float(value)) < 1e16:
        return np.format_float_positional(value, unique=True, trim="0")
    return np.format_float_scientific(value, unique=True, trim="-")


def record_json(rec: Path, limit: int, error: type[Exception]):
    """A record file's JSON, read within `limit` bytes: nano-gpt's and the
    writer's records alike; a problem raised as `error`, naming the file."""
    try:
        size = rec.stat().st_size
    except OSError:
        size = 0                 # said by the reading below
    if size > limit:
        raise error(f"{rec}: {size:,} bytes, more than the limit of a record, {limit:,}")
    try:
        return json.loads(rec.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError) as e:
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


def read_arrays(archive: zipfile.ZipFile, shapes: dict, where: str) -> dict:
    """The archive's arrays, each checked by name, stored size, shape and
    type before its numbers are read; first, each member is one array
    (no name twice), neither encrypted nor compressed by a method other
    than np.savez's and np.savez_compressed's, whose reading would fail
    deep in zipfile."""
    members = {}
    for info in archive.infolist():
        name = info.filename.removesuffix(".npy")
        if name in members:
            raise NanoWeightsError(f"{where}: array {excerpt(name)} appears twice in the archive; "
                                   "np.savez writes each array once")
        if info.flag_bits & ENCRYPTED:
            raise NanoWeightsError(f"{where}: array {excerpt(name)} is encrypted; expected the plain "
                                   "arrays np.savez writes")
        if info.compress_type not in METHODS:
            raise NanoWeightsError(f"{where}: array {excerpt(name)} is compressed by method "
                                   f"{info.compress_type}; expected {' or '.join(METHODS.values())}, "
                                   "as np.savez and np.savez_compressed write them")
        members[name] = info
    missing = [n for n in shapes if n not in members]
    if missing:
        raise NanoWeightsError(f"{where}: array '{missing[0]}' is missing: expected shape "
                               f"{_shape(shapes[missing[0]])}; the file needs {len(shapes)} arrays, "
                               f"named as sizes.param_shapes names them ({', '.join(list(shapes)[:3])}, ...)")
    unknown = [n for n in members if n not in shapes]
    if unknown:
        raise NanoWeightsError(f"{where}: unknown array {excerpt(unknown[0])}; the file holds exactly "
                               f"{len(shapes)} arrays, named as sizes.param_shapes names them "
                               f"({', '.join(list(shapes)[:3])}, ...)")
    arrays = {}
    for name, shape in shapes.items():
        info = members[name]
        limit = max_array_bytes(shape)
        if info.file_size > limit:
            raise NanoWeightsError(f"{where}: array '{name}' expands to {info.file_size:,} bytes, "
                                   f"more than the {limit:,} of shape {_shape(shape)} in float64")
        with archive.open(info) as f:
            version = np.lib.format.read_magic(f)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)
            found, _, dtype = header(f)
        if found != shape:
            raise NanoWeightsError(f"{where}: array '{name}': expected shape {_shape(shape)}, "
                                   f"found {_shape(found)}")
        if dtype.kind != "f" or dtype.itemsize > 8:
            raise NanoWeightsError(f"{where}: array '{name}': expected floating-point numbers, "
                                   f"found {dtype}")
        with archive.open(info) as f:
            arrays[name] = np.lib.format.read_array(f, allow_pickle=False)
    return arrays


def _shape(shape) -> str:
    return str(tuple(int(n) for n in shape))   # numpy's way: (48, 48), (192,)
