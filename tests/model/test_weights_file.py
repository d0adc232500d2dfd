"""A model's weights file (model/safetensors_file.py), as nano-gpt's and
the writer's loaders read it: every limit checked before a number is read
(a regular file, a size the arrays can take, a header within its limit and
JSON, no name twice, the model's arrays and no other, each of its shape
and type, its bytes where the header says), then each weight finite and
within ±1,000,000, or float16's range where the record says float16. Each
refusal is one line naming the file."""
from __future__ import annotations

import json
import os
import shutil
import struct

import numpy as np
import pytest
from safetensors.numpy import load_file, save, save_file

from conftest import nano_refused
from toycalc.model import nanogpt, safetensors_file, sizes, writer
from toycalc.model.weights import MAX_WEIGHT

SHAPES = sizes.param_shapes(nanogpt.CONFIG)
RECORD = json.loads(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_text())


def with_record(path, **change):
    nanogpt.record_path(path).write_text(json.dumps(dict(RECORD, **change)))
    return path


def shipped_arrays(dtype=np.float16) -> dict:
    return {k: v.astype(dtype) for k, v in load_file(nanogpt.DEFAULT_WEIGHTS).items()}


def weights_with(tmp_path, name, index, value, dtype=np.float32, stored_as="float32"):
    arrays = shipped_arrays(dtype)
    with np.errstate(over="ignore"):                # 1e300 in float32: Infinity
        arrays[name][index] = value
    save_file(arrays, tmp_path / "w.safetensors")
    return with_record(tmp_path / "w.safetensors", stored_as=stored_as)


def raw_file(tmp_path, header: dict | bytes, data: bytes = b"") -> os.PathLike:
    """A file in the format's layout, with any header at all."""
    head = header if isinstance(header, bytes) else json.dumps(header).encode()
    path = tmp_path / "w.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + data)
    return with_record(path)


def shipped_header() -> tuple[dict, bytes]:
    raw = nanogpt.DEFAULT_WEIGHTS.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def test_the_shipped_files_are_safetensors_the_package_reads():
    for model in (nanogpt, writer):
        arrays = load_file(model.DEFAULT_WEIGHTS)
        assert set(arrays) == set(sizes.param_shapes(model.CONFIG))
        assert {a.dtype for a in arrays.values()} == {np.dtype(np.float16)}
        np.testing.assert_array_equal(model.load().params["E"], arrays["E"].astype(np.float64))


@pytest.mark.parametrize("name, index, value, dtype, shown", [
    ("E", (0, 0), 1e300, np.float32, None),
    ("blocks.1.W_2", (191, 47), -1_000_001.0, np.float32, "-1000001.0"),
    ("gamma_f", (5,), 2e6, np.float32, "2000000.0"),
    ("P", (3, 4), 1000000.1, np.float32, "1000000.1"),  # as float32 stores it, in its fewest digits
])
def test_a_weight_beyond_the_limit_of_a_weight(tmp_path, name, index, value, dtype, shown):
    message = nano_refused(weights_with(tmp_path, name, index, value, dtype))
    if shown is None:      # 1e300 is infinity in float32
        assert message == f"array '{name}': holds a value that is not finite (at index {index})"
    else:
        assert message == (f"array '{name}': holds {shown} at index {index}, beyond the limit of a weight, "
                           "±1,000,000")


def test_a_weight_at_the_limit_is_read(tmp_path):
    nano = nanogpt.load(weights_with(tmp_path, "P", (3, 4), -MAX_WEIGHT))
    assert nano.params["P"][3, 4] == -MAX_WEIGHT


def test_beyond_float16_where_the_record_says_float16(tmp_path):
    path = weights_with(tmp_path, "E", (1, 2), 70000.0, stored_as="float16")
    assert nano_refused(path) == ("array 'E': holds 70000.0 at index (1, 2), beyond the largest float16, "
                                  "as the record says they are stored, ±65,504")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_value_not_finite(tmp_path, value):
    message = nano_refused(weights_with(tmp_path, "E", (1, 2), value))
    assert message == "array 'E': holds a value that is not finite (at index (1, 2))"


def test_a_missing_array(tmp_path):
    arrays = shipped_arrays()
    del arrays["blocks.1.W_K"]
    save_file(arrays, tmp_path / "w.safetensors")
    message = nano_refused(with_record(tmp_path / "w.safetensors"))
    assert message.startswith("array 'blocks.1.W_K' is missing: expected shape (48, 48); the file needs 53 arrays")


def test_an_unknown_array(tmp_path):
    save_file(dict(shipped_arrays(), W_X=np.zeros(3, np.float16)), tmp_path / "w.safetensors")
    assert nano_refused(with_record(tmp_path / "w.safetensors")).startswith("unknown array 'W_X'; the file holds "
                                                                           "exactly 53 arrays")


def test_an_array_of_another_shape(tmp_path):
    save_file(dict(shipped_arrays(), P=np.zeros((200, 48), np.float16)), tmp_path / "w.safetensors")
    assert nano_refused(with_record(tmp_path / "w.safetensors")) == "array 'P': expected shape (11, 48), found (200, 48)"


@pytest.mark.parametrize("dtype, said", [(np.float64, "F64"), (np.int32, "I32")])
def test_an_array_of_another_type(tmp_path, dtype, said):
    save_file(dict(shipped_arrays(), E=np.zeros((3, 48), dtype)), tmp_path / "w.safetensors")
    assert nano_refused(with_record(tmp_path / "w.safetensors")) == (
        f"array 'E': expected floating-point numbers, F16 or F32, found '{said}'")


def test_a_name_twice_in_the_header(tmp_path):
    header, data = shipped_header()
    text = json.dumps(header)
    twice = text[:-1] + ', "E": ' + json.dumps(header["E"]) + "}"
    assert nano_refused(raw_file(tmp_path, twice.encode(), data)) == (
        "not a safetensors file (array 'E' appears twice in the header)")


def test_offsets_that_overlap(tmp_path):
    header, data = shipped_header()
    header["P"]["data_offsets"] = header["E"]["data_offsets"]
    assert "its bytes are at" in nano_refused(raw_file(tmp_path, header, data))


def test_bytes_after_the_last_array(tmp_path):
    header, data = shipped_header()
    assert nano_refused(raw_file(tmp_path, header, data + b"\0" * 16)) == "16 bytes after the last array's; expected none"


def test_a_file_larger_than_the_arrays_can_take(tmp_path):
    """Refused by its size before it is read."""
    path = with_record(tmp_path / "w.safetensors")
    limit = safetensors_file.max_bytes(SHAPES)
    with open(path, "wb") as f:
        f.truncate(limit + 1)
    assert nano_refused(path) == (f"{limit + 1:,} bytes, more than the {limit:,} that its 53 arrays take in "
                                  "float32, with their header")


def test_a_record_larger_than_its_limit_is_refused_before_it_is_parsed(tmp_path):
    """The records' reading (nanogpt.record_json) shares the weights' bounded
    read (files.read_within): a record past its limit is named by its size."""
    path = tmp_path / "w.safetensors"
    shutil.copyfile(nanogpt.DEFAULT_WEIGHTS, path)
    record = nanogpt.record_path(path)
    record.write_text(json.dumps(RECORD) + " " * nanogpt.MAX_RECORD_BYTES)
    size = record.stat().st_size
    with pytest.raises(nanogpt.NanoWeightsError) as refused:
        nanogpt.load(path)
    assert str(refused.value) == (f"{record}: {size:,} bytes, more than the limit of a record, "
                                  f"{nanogpt.MAX_RECORD_BYTES:,}")


def test_a_header_longer_than_its_limit(tmp_path):
    path = raw_file(tmp_path, b" " * 8, b"")
    path.write_bytes(struct.pack("<Q", 10**9) + b"{}")
    assert nano_refused(path) == "not a safetensors file (a header of 1,000,000,000 bytes, in a file of 10; at most 100,000)"


@pytest.mark.parametrize("content, said", [
    (b"", "not a safetensors file (0 bytes; it starts with the 8 bytes of its header's length)"),
    (b"\x93NUMPY\x01\x00", "not a safetensors file (a header of "),
    (struct.pack("<Q", 3) + b"{no", "not a safetensors file (its header is not JSON: "),
    (struct.pack("<Q", 2) + b"[]", "not a safetensors file (its header is not a JSON object)"),
])
def test_not_a_safetensors_file(tmp_path, content, said):
    path = with_record(tmp_path / "w.safetensors")
    path.write_bytes(content)
    assert nano_refused(path).startswith(said)


def test_a_truncated_file(tmp_path):
    raw = nanogpt.DEFAULT_WEIGHTS.read_bytes()
    path = with_record(tmp_path / "w.safetensors")
    path.write_bytes(raw[:len(raw) // 2])
    assert nano_refused(path).endswith("bytes of numbers: a truncated file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_path_that_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "w.safetensors")
    assert nano_refused(tmp_path / "w.safetensors") == ("the nano-gpt weights path is a FIFO (named pipe); "
                                                        "expected a regular file")
    assert nano_refused(tmp_path) == "the nano-gpt weights path is a directory; expected a regular file"


def test_a_missing_file_says_how_to_make_it(tmp_path):
    assert nano_refused(tmp_path / "none.safetensors") == ("cannot read the nano-gpt weights (No such file or "
                                                           "directory); make them with: python -m toycalc train")


def test_a_record_too_large_is_named_with_its_size_and_the_limit(tmp_path):
    path = weights_with(tmp_path, "E", (0, 0), 0.5)
    record = nanogpt.record_path(path)
    record.write_bytes(b" " * (nanogpt.MAX_RECORD_BYTES + 1))
    with pytest.raises(nanogpt.NanoWeightsError) as refused:
        nanogpt.load(path)
    assert str(refused.value) == (f"{record}: {nanogpt.MAX_RECORD_BYTES + 1:,} bytes, more than the limit of a "
                                  f"record, {nanogpt.MAX_RECORD_BYTES:,}")


def test_float32_weights_are_read_and_published_as_float32(tmp_path):
    path = weights_with(tmp_path, "P", (3, 4), 0.1)
    nano = nanogpt.load(path)
    assert nano.params["P"][3, 4] == np.float32(0.1)
    published = load_file_bytes(safetensors_file.published(nano.params, SHAPES))
    assert published["P"].dtype == np.float32 and published["P"][3, 4] == np.float32(0.1)
    shipped = load_file_bytes(safetensors_file.published(nanogpt.load().params, SHAPES))
    assert {a.dtype for a in shipped.values()} == {np.dtype(np.float16)}


def load_file_bytes(data: bytes) -> dict:
    from safetensors.numpy import load
    return load(data)


def test_the_writer_reads_the_same_format_with_its_own_name(tmp_path):
    save_file({"E": np.zeros(3, np.float16)}, tmp_path / "w.safetensors")
    with pytest.raises(writer.WriterError) as refused:
        writer.load(tmp_path / "w.safetensors")
    assert str(refused.value).startswith(f"{tmp_path / 'w.safetensors'}: array 'P' is missing")
    assert save({"E": np.zeros(1, np.float16)})       # the package itself, as shipped
