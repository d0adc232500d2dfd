"""nano-gpt's weights have the toy's bounds (finite, |w| at most
1,000,000) and their archive is checked before its arrays are read: its
size (and so its number of members), each member's flags, method and
name; each refusal is one line naming the file."""
from __future__ import annotations

import struct
import warnings
import zipfile

import numpy as np
import pytest

from conftest import nano_refused
from toycalc.model import nanogpt
from toycalc.model.weights import MAX_WEIGHT

RECORD = nanogpt.record_path(nanogpt.DEFAULT_NPZ).read_bytes()


def with_record(path):
    nanogpt.record_path(path).write_bytes(RECORD)
    return path


def weights_with(tmp_path, name, index, value, dtype=np.float64):
    arrays = {k: v.astype(dtype) for k, v in nanogpt.load().params.items()}
    with np.errstate(over="ignore"):                # 1e300 in float32: Infinity
        arrays[name][index] = value
    path = tmp_path / "w.npz"
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return with_record(path)


@pytest.mark.parametrize("name, index, value, dtype, shown", [
    ("E", (0, 0), 1e300, np.float64, "1e+300"),
    ("blocks.1.W_2", (191, 47), -1_000_001.0, np.float64, "-1000001.0"),
    ("gamma_f", (5,), 2e6, np.float64, "2000000.0"),
    # as float32 stores it, in its fewest digits: not 1e+06, nor 1000000.125 (#65, item 5)
    ("P", (3, 4), 1000000.1, np.float32, "1000000.1"),
])
def test_a_weight_beyond_the_toys_limit(tmp_path, name, index, value, dtype, shown):
    message = nano_refused(weights_with(tmp_path, name, index, value, dtype))
    assert message == (f"array '{name}': holds {shown} at index {index}, beyond the limit of a weight, "
                       "±1,000,000")


def test_a_record_too_large_is_named_with_its_size_and_the_limit(tmp_path):
    path = weights_with(tmp_path, "E", (0, 0), 0.5)
    record = nanogpt.record_path(path)
    record.write_bytes(b" " * (nanogpt.MAX_RECORD_BYTES + 1))
    with pytest.raises(nanogpt.NanoWeightsError) as refused:
        nanogpt.load(path)
    assert str(refused.value) == (f"{record}: {nanogpt.MAX_RECORD_BYTES + 1:,} bytes, more than the limit of a "
                                  f"record, {nanogpt.MAX_RECORD_BYTES:,}")


def test_a_weight_at_the_limit_is_read(tmp_path):
    nano = nanogpt.load(weights_with(tmp_path, "P", (3, 4), -MAX_WEIGHT, np.float32))
    assert nano.params["P"][3, 4] == -MAX_WEIGHT


def test_a_float32_infinity(tmp_path):
    """1e300 in float32 is Infinity: not finite, said as such."""
    message = nano_refused(weights_with(tmp_path, "E", (1, 2), 1e300, np.float32))
    assert message == "array 'E': holds a value that is not finite (at index (1, 2))"


def shipped_members():
    with zipfile.ZipFile(nanogpt.DEFAULT_NPZ) as z:
        return [(info.filename, z.read(info)) for info in z.infolist()]


def test_an_archive_of_many_members_is_refused_by_its_size(tmp_path):
    """An archive of thousands of empty members: refused before zipfile
    reads their list (a million once cost 660 MB and 12 s)."""
    path = tmp_path / "w.npz"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in shipped_members():
            z.writestr(name, data)
        for k in range(12_000):
            z.writestr(f"x{k}.npy", b"")
    size = path.stat().st_size
    limit = nanogpt.max_npz_bytes(nanogpt.sizes.param_shapes(nanogpt.CONFIG))
    assert size > limit
    assert nano_refused(with_record(path)) == (f"{size:,} bytes, more than the {limit:,} that nano-gpt's 53 arrays "
                                          "take in float64 with their headers")


def test_a_few_extra_members_are_named(tmp_path):
    path = tmp_path / "w.npz"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in shipped_members() + [(f"x{k}.npy", b"") for k in range(1000)]:
            z.writestr(name, data)
    assert nano_refused(with_record(path)) == ("unknown array 'x0'; the file holds exactly 53 arrays, named as "
                                          "sizes.param_shapes names them (E, P, blocks.0.W_Q, ...)")


def test_a_duplicate_member(tmp_path):
    """zipfile reads the last of two members of one name; the loader refuses both."""
    path = tmp_path / "w.npz"
    members = shipped_members()
    with zipfile.ZipFile(path, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")              # zipfile warns of the duplicate it writes
        for name, data in members + [("blocks.2.W_V.npy", dict(members)["blocks.2.W_V.npy"])]:
            z.writestr(name, data)
    assert nano_refused(with_record(path)) == ("array 'blocks.2.W_V' appears twice in the archive; "
                                          "np.savez writes each array once")


def patched(tmp_path, member: str, field: str, value: int):
    """The shipped archive with one member's flags or method changed, in
    its local header and in the central directory, as another zip tool
    would write them."""
    raw = bytearray(nanogpt.DEFAULT_NPZ.read_bytes())
    with zipfile.ZipFile(nanogpt.DEFAULT_NPZ) as z:
        local, central = z.getinfo(member).header_offset, z.start_dir
    at_local, at_central = {"flags": (6, 8), "method": (8, 10)}[field]
    struct.pack_into("<H", raw, local + at_local, value)
    while raw[central:central + 4] == b"PK\x01\x02":
        n, m, k = struct.unpack_from("<HHH", raw, central + 28)
        if raw[central + 46:central + 46 + n].decode() == member:
            struct.pack_into("<H", raw, central + at_central, value)
        central += 46 + n + m + k
    path = tmp_path / "w.npz"
    path.write_bytes(bytes(raw))
    return with_record(path)


def test_an_encrypted_member(tmp_path):
    path = patched(tmp_path, "blocks.0.W_K.npy", "flags", 0x1)
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("blocks.0.W_K.npy").flag_bits & 0x1
    assert nano_refused(path) == "array 'blocks.0.W_K' is encrypted; expected the plain arrays np.savez writes"


@pytest.mark.parametrize("method", [99, zipfile.ZIP_BZIP2])   # 99: AES, which zipfile cannot read
def test_a_member_compressed_by_another_method(tmp_path, method):
    path = patched(tmp_path, "W_U.npy", "method", method)
    assert nano_refused(path) == (f"array 'W_U' is compressed by method {method}; expected stored or deflated, "
                             "as np.savez and np.savez_compressed write them")


def test_savez_compressed_is_read(tmp_path, nano):
    path = tmp_path / "w.npz"
    with open(path, "wb") as f:
        np.savez_compressed(f, **{k: v.astype(np.float16) for k, v in nano.params.items()})
    loaded = nanogpt.load(with_record(path))
    assert all(np.array_equal(loaded.params[k], v) for k, v in nano.params.items())
