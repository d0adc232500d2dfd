"""A model's weights file: safetensors, read and written for every model
(nano-gpt's, the writer's, any other registered one).

The format (https://huggingface.co/docs/safetensors): an 8-byte
little-endian header length, a JSON header naming each array (its dtype,
F16 or F32 here, its shape and the byte offsets of its numbers), then the
numbers, raw and little-endian. The browser reads the same file with a few
lines of its own (docs/javascripts/safetensors.js).

`read` checks everything it can before a number is read: the path is a
regular file, the file no larger than the arrays could take, the header
within its limit and valid JSON (no name twice), the arrays those of the
model (none missing, none unknown), each of the right shape and type and
its bytes exactly where the header says, one after the other. Then the
`safetensors` package reads the numbers, which must be finite and within
±MAX_WEIGHT (±65,504, the largest float16, where the record says float16).
A problem is one line naming the file (and the array): `error`.
"""
from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import safetensors
import safetensors.numpy

from .files import not_regular, read_within
from .weights import MAX_WEIGHT
from .yamlfile import excerpt

DTYPES = {"F16": np.dtype("<f2"), "F32": np.dtype("<f4")}    # what the browser reads too
MAX_HEADER = 100_000             # bytes of JSON: a few lines per array
FLOAT16_MAX = float(np.finfo(np.float16).max)    # 65,504


def max_bytes(shapes: dict) -> int:
    """The most a weights file may take: its arrays in float32, and the header."""
    return sum(math.prod(s) * 4 for s in shapes.values()) + 8 + MAX_HEADER


def _shape(shape) -> str:
    return str(tuple(int(n) for n in shape))   # numpy's way: (48, 48), (192,)


def stored(value: np.generic) -> str:
    """A number of an array as its type stores it, in the fewest digits that
    give it back (1000000.1 in float32, not 1e+06 nor 1000000.125); in
    powers of ten beyond 1e16, as Python writes such floats."""
    if abs(float(value)) < 1e16:
        return np.format_float_positional(value, unique=True, trim="0")
    return np.format_float_scientific(value, unique=True, trim="-")


def _no_twice(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"array {excerpt(key)} appears twice in the header")
        out[key] = value
    return out


def read(path: str | Path, shapes: dict, error: type[Exception], what: str, make: str) -> dict:
    """The arrays of the weights file at path, by the names of `shapes`
    (name -> shape), in float64; `what` names the weights in a message
    ("nano-gpt"), `make` the command that makes them."""
    path = Path(path)
    where = str(path)
    kind = not_regular(path)
    if kind:
        raise error(f"{where}: the {what} weights path is {kind}; expected a regular file")
    try:
        data, size = read_within(path, max_bytes(shapes))
    except OSError as e:
        raise error(f"{where}: cannot read the {what} weights ({e.strerror or e}); "
                    f"make them with: {make}") from None
    if data is None:
        raise error(f"{where}: {size:,} bytes, more than the {max_bytes(shapes):,} that "
                    f"its {len(shapes)} arrays take in float32, with their header")
    header = _header(data, where, error)
    missing = [n for n in shapes if n not in header]
    if missing:
        raise error(f"{where}: array '{missing[0]}' is missing: expected shape {_shape(shapes[missing[0]])}; "
                    f"the file needs {len(shapes)} arrays, named as sizes.param_shapes names them "
                    f"({', '.join(list(shapes)[:3])}, ...)")
    unknown = [n for n in header if n not in shapes]
    if unknown:
        raise error(f"{where}: unknown array {excerpt(unknown[0])}; the file holds exactly {len(shapes)} "
                    f"arrays, named as sizes.param_shapes names them ({', '.join(list(shapes)[:3])}, ...)")
    at, numbers = 0, len(data) - 8 - struct.unpack("<Q", data[:8])[0]
    for name, entry in sorted(header.items(), key=lambda item: _offsets(item[1])[0]):
        _check_entry(name, entry, shapes[name], at, where, error)
        at = entry["data_offsets"][1]
        if at > numbers:
            raise error(f"{where}: array '{name}': its bytes end at {at:,}, beyond the file's "
                        f"{numbers:,} bytes of numbers: a truncated file")
    if at != numbers:
        raise error(f"{where}: {numbers - at:,} bytes after the last array's; expected none")
    try:
        arrays = safetensors.numpy.load(data)
    except (safetensors.SafetensorError, ValueError) as e:     # what the checks above did not foresee
        raise error(f"{where}: not a safetensors file ({str(e)[:80]})") from None
    params = {}
    for name in shapes:
        a = arrays[name]
        if not np.isfinite(a).all():
            raise error(f"{where}: array '{name}': holds a value that is not finite "
                        f"(at index {tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])})")
        _within(a, name, MAX_WEIGHT, "the limit of a weight", where, error)  # no sum of the forward pass overflows
        params[name] = a.astype(np.float64)
    return params


def check_half(path, params: dict, record: dict, error: type[Exception]) -> None:
    """Where the record says the weights are stored in float16, each is
    within its range (a larger one would be infinity there)."""
    if record.get("stored_as") == "float16":
        for name, a in params.items():
            _within(a, name, FLOAT16_MAX, "the largest float16, as the record says they are stored",
                    str(path), error)


def _within(a, name, limit, why, where, error):
    beyond = np.abs(a.astype(np.float64)) > limit
    if beyond.any():
        index = tuple(int(i) for i in np.argwhere(beyond)[0])
        raise error(f"{where}: array '{name}': holds {stored(a[index])} at index {index}, beyond "
                    f"{why}, ±{limit:,.0f}")


def _header(data: bytes, where: str, error) -> dict:
    """The header's arrays (its __metadata__ aside), checked to be JSON
    within MAX_HEADER bytes and inside the file."""
    if len(data) < 8:
        raise error(f"{where}: not a safetensors file ({len(data)} bytes; it starts with the 8 bytes "
                    "of its header's length)")
    n = struct.unpack("<Q", data[:8])[0]
    if n > MAX_HEADER or 8 + n > len(data):
        raise error(f"{where}: not a safetensors file (a header of {n:,} bytes, in a file of {len(data):,}; "
                    f"at most {MAX_HEADER:,})")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=_no_twice)
    except ValueError as e:
        reason = str(e) if "appears twice" in str(e) else f"its header is not JSON: {str(e)[:80]}"
        raise error(f"{where}: not a safetensors file ({reason})") from None
    if not isinstance(header, dict):
        raise error(f"{where}: not a safetensors file (its header is not a JSON object)")
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise error(f"{where}: the header's __metadata__ must map names to text")
    return header


def _offsets(entry):
    try:
        begin, end = entry["data_offsets"]
        return (begin, end) if isinstance(begin, int) and isinstance(end, int) else (-1, -1)
    except (TypeError, KeyError, ValueError):
        return (-1, -1)


def _check_entry(name, entry, shape, at, where, error):
    """One array's header entry: its type, shape and bytes, where the last one's ended."""
    if not isinstance(entry, dict):
        raise error(f"{where}: array '{name}': expected its dtype, shape and data_offsets")
    dtype = entry.get("dtype")
    if dtype not in DTYPES:
        raise error(f"{where}: array '{name}': expected floating-point numbers, F16 or F32, "
                    f"found {excerpt(str(dtype))}")
    found = entry.get("shape")
    if not (isinstance(found, list) and all(type(n) is int and n >= 0 for n in found)):
        raise error(f"{where}: array '{name}': expected shape {_shape(shape)}, found {excerpt(str(found))}")
    if tuple(found) != tuple(shape):
        raise error(f"{where}: array '{name}': expected shape {_shape(shape)}, found {_shape(found)}")
    begin, end = _offsets(entry)
    size = math.prod(shape) * DTYPES[dtype].itemsize
    if begin != at or end - begin != size:
        raise error(f"{where}: array '{name}': its bytes are at {excerpt(str(entry.get('data_offsets')))}; "
                    f"expected [{at}, {at + size}], {size:,} bytes after the array before it")


def write(f, params: dict, shapes: dict, dtype=np.float16) -> None:
    """The arrays named by shapes as a safetensors file, to the open file f."""
    f.write(safetensors.numpy.save({name: np.ascontiguousarray(params[name], dtype=dtype)
                                    for name in shapes}))


def published(params: dict, shapes: dict) -> bytes:
    """The weights as the browser fetches them: in float16 when every
    number is one (the shipped ones are: training stores them so), else in
    float32, exact either way. Half the bytes matter, since the reader
    downloads them and float bytes hardly compress."""
    with np.errstate(over="ignore"):         # a number beyond float16's range is just not one
        exact = all(np.array_equal(params[n].astype(np.float16), params[n]) for n in shapes)
    return safetensors.numpy.save({n: np.ascontiguousarray(params[n], dtype=np.float16 if exact else np.float32)
                                   for n in shapes})
