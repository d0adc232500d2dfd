"""Careless and hostile weights files: numbers read as people write them,
YAML's traps refused, the limits checked before any work, and each
mistake in one short line naming the file, the key and the limit."""
from __future__ import annotations

import time

import numpy as np
import pytest

from toycalc.book.example import Example
from toycalc.model import gpt, inference, nanogpt, weights
from toycalc.model.weights import DEFAULT_TOY, WeightsError, load_toy

TOY = DEFAULT_TOY.read_text(encoding="utf-8")
FIRST_E_ROW = "  - [-0.5, -0.5,  0,    1  ]   # 0  the"


def write(tmp_path, text, name="toy.yaml"):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else lambda t: path.write_text(t, encoding="utf-8"))(text)
    return path


def refused(tmp_path, text) -> str:
    path = write(tmp_path, text)
    with pytest.raises(WeightsError) as err:
        load_toy(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 400, message
    return message[len(str(path)) + 2:]


def matrix(rows: int, cols: int, value: str = "0") -> str:
    return "".join(f"  - [{', '.join([value] * cols)}]\n" for _ in range(rows))


def replace_key(text: str, key: str, body: str) -> str:
    """text with the rows under `key:` replaced by body."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    end = start + 1
    while end < len(lines) and (lines[end].startswith("  ") or not lines[end].strip()):
        end += 1
    return "".join(lines[:start + 1]) + body + "".join(lines[end:])


# ---------------------------------------------------------------- numbers

def test_numbers_as_people_write_them(tmp_path):
    text = TOY.replace(FIRST_E_ROW, "  - [1e-1, 2E-3, -1_000, .5]")
    E = load_toy(write(tmp_path, text)).params["E"]
    assert E[0].tolist() == [0.1, 0.002, -1000.0, 0.5]


@pytest.mark.parametrize("typed, why", [
    ("010", "a leading zero (YAML 1.1 reads 010 as 8)"),
    ("0x10", "hexadecimal, octal or binary"),
    ("1:30", "base 60 (YAML 1.1 reads 1:30 as 90)"),
    ("1" * 400, "a number of more than 30 digits"),
    ("1e999", "too large for a floating-point number"),
])
def test_numbers_that_are_not_what_they_seem(tmp_path, typed, why):
    message = refused(tmp_path, TOY.replace(FIRST_E_ROW, f"  - [{typed}, 0, 0, 1]"))
    shown = repr(typed if len(typed) <= 40 else typed[:40] + "…")
    assert message.startswith(f"key 'E', row 1 (the), column 1: {shown} is not read as a number: {why}")


@pytest.mark.parametrize("typed", ["1.0e+308", "1000000.1", "-1000000.1", "1e7", "2_000_000", "−1000001"])
def test_a_weight_beyond_the_limit_is_named_as_it_is_written(tmp_path, typed):
    """Not as Python prints it: 1000000.1, not 1e+06 (#65, item 5)."""
    message = refused(tmp_path, TOY.replace(FIRST_E_ROW, f"  - [{typed}, 0, 0, 1]"))
    assert message == f"key 'E', row 1 (the), column 1: {typed} is beyond the limit of a weight, ±1,000,000"


def test_yes_is_not_true(tmp_path):
    message = refused(tmp_path, TOY.replace("heads: 2 ", "heads: yes "))
    assert message == "key 'heads': expected a whole number, found 'yes'"


# ---------------------------------------------------------------- YAML's traps

def test_a_key_written_twice_names_both_lines(tmp_path):
    heads_line = TOY.splitlines().index(next(l for l in TOY.splitlines() if l.startswith("heads:"))) + 1
    text = TOY + "heads: 1\n"
    last = len(text.splitlines())
    assert refused(tmp_path, text) == (f"line {last}: key 'heads' appears twice (lines {heads_line} "
                                       f"and {last}); YAML would keep only the last: remove one")


def test_a_key_written_twice_inside_a_mapping(tmp_path):
    assert refused(tmp_path, "vocab: {a: 1,\n  a: 2}\n").startswith("line 2: key 'a' appears twice (lines 1 and 2)")


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    """3 KB that PyYAML would expand to 10^30 entries."""
    bomb = "heads: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"x{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 31))
    assert len(bomb) < 4000
    start = time.process_time()     # CPU time: the work done, not the wait for a core on a busy machine
    assert refused(tmp_path, bomb) == "line 1: anchor &l0: anchors and aliases are not allowed; write the values out"
    assert time.process_time() - start < 5


def test_an_alias_alone(tmp_path):
    text = TOY.replace("heads: 2 ", "heads: *two ")
    assert refused(tmp_path, text).endswith("alias *two: aliases are not allowed; write the values out")


def test_deep_nesting_does_not_crash(tmp_path):
    """libyaml's composer recurses in C: this would end the process."""
    message = refused(tmp_path, "E: " + "[" * 200_000 + "]" * 200_000 + "\n")
    assert message == "line 1: nested deeper than 8 levels"


def test_tags_are_refused(tmp_path):
    assert "tags are not allowed" in refused(tmp_path, TOY.replace("heads: 2 ", "heads: !!python/object:os.system 2 "))


def test_not_utf8(tmp_path):
    raw = TOY.encode("utf-8").replace("# 0  the".encode(), b"# 0  the \xff")
    line = TOY[:TOY.index("# 0  the")].count("\n") + 1
    assert refused(tmp_path, raw) == f"line {line}: not UTF-8 text (byte 0xff); save the file as UTF-8"


def test_bad_yaml_names_the_file_and_line(tmp_path):
    message = refused(tmp_path, TOY.replace("E:   # V x d", "E: [  # V x d"))
    assert message.startswith("line ") and "not valid YAML" in message and "<unicode string>" not in message


# ---------------------------------------------------------------- limits

@pytest.mark.parametrize("what, change, message", [
    ("V", lambda t: t.replace('"<eot>"]', '"<eot>", ' + ", ".join(f'"t{i}"' for i in range(245)) + "]"),
     "key 'vocab': 257 tokens, more than the limit of 256 (V)"),
    ("token", lambda t: t.replace('"<eot>"', '"' + "x" * 5000 + '"'),
     "key 'vocab', entry 12: 'xxxxxxxxxxxxxxxxxxxx…' has 5000 characters, more than the limit of 32"),
    ("d", lambda t: replace_key(t, "E", matrix(12, 65)),
     "key 'E': row 1 has 65 columns (d, the width of the model), more than the limit of 64"),
    ("positions", lambda t: replace_key(t, "P", matrix(20_000, 4)),
     "key 'P': 20000 rows (positions), more than the limit of 64"),
    ("MLP width", lambda t: replace_key(t, "W_1", matrix(4, 257)),
     "key 'W_1': row 1 has 257 columns (the MLP width), more than the limit of 256"),
    ("file size", lambda t: t + "#" * weights.MAX_BYTES,
     f"the file has {len(TOY.encode()) + weights.MAX_BYTES:,} bytes, more than the limit of a toy weights file, "
     "2,000,000"),
])
def test_limits(tmp_path, what, change, message):
    start = time.process_time()     # as above: refused before the work, however busy the machine
    assert refused(tmp_path, change(TOY)) == message
    assert time.process_time() - start < 5


def test_a_long_list_is_quoted_briefly(tmp_path):
    message = refused(tmp_path, TOY.replace("heads: 2 ", "heads: [" + ", ".join(["1"] * 10_000) + "] "))
    assert message == "key 'heads': expected a whole number, found [1, 1, 1, 1, ...]"


# ---------------------------------------------------------------- once per build

def test_the_file_is_parsed_once_while_it_does_not_change(tmp_path, monkeypatch):
    path = write(tmp_path, TOY)
    calls = []
    real = weights.parse_toy
    monkeypatch.setattr(weights, "parse_toy", lambda raw, p: calls.append(p) or real(raw, p))
    first = load_toy(path)
    assert load_toy(path) is first and len(calls) == 1
    path.write_text(TOY.replace("heads: 2 ", "heads: 1 "), encoding="utf-8")
    assert load_toy(path).heads == 1 and len(calls) == 2


def test_the_yaml_is_read_by_libyaml_where_built():
    import yaml
    from toycalc.model import yamlfile
    assert yamlfile._Parser is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)


# ---------------------------------------------------------------- the forward pass

def test_an_overflow_in_the_forward_pass_names_matrix_row_and_column(toy):
    with pytest.raises(inference.TraceError) as err:
        Example(toy, temperature=1e-310).trace
    assert str(err.value).startswith("the forward pass overflows: z, row 1, column ")
    assert "is -inf" in str(err.value) or "is inf" in str(err.value)


def test_a_nan_inside_the_block_is_found_where_it_appears(toy):
    trace = gpt.forward(toy.params, toy.cfg, [1, 2, 3])
    trace["blocks"][0]["mlp_pre"][2, 5] = np.nan
    with pytest.raises(inference.TraceError, match=r"mlp_pre, row 3, column 6 is nan"):
        inference.check_finite(trace)


def test_the_masked_scores_are_not_an_overflow(toy):
    trace = gpt.forward(toy.params, toy.cfg, [1, 2, 3])
    assert np.isneginf(trace["blocks"][0]["scores"]).any()
    assert inference.check_finite(trace) is trace


def test_a_sentence_longer_than_P_names_P(toy):
    with pytest.raises(ValueError, match=r"9 tokens, but the model has 8 positions \(the rows of P\)"):
        Example(toy, text="the cat the cat the cat the cat the").trace


# ---------------------------------------------------------------- nano-gpt's record

def test_a_record_nested_too_deep(tmp_path):
    (tmp_path / "w.safetensors").write_bytes(nanogpt.DEFAULT_WEIGHTS.read_bytes())
    (tmp_path / "w.json").write_text("[" * 50_000, encoding="utf-8")
    with pytest.raises(nanogpt.NanoWeightsError, match=r"w\.json: not valid JSON: maximum recursion depth"):
        nanogpt.load(tmp_path / "w.safetensors")
