"""The writer's record checked as nano-gpt's is (one declared checker,
nanogpt_record's, strict: a boolean is not a number), and what can be
recomputed at every build recomputed (writer.recompute): the training
text's size and hash, the loss on the held-out windows the record names,
the held-out curve's last point, and the held-out loss, which those
windows sample. Each refusal is one line naming the file, the field, the
record's value and the recomputed one."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, mkdocs_env
from toycalc.model import writer

SHIPPED = json.loads(writer.record_path(writer.DEFAULT_WEIGHTS).read_text())
RECOMPUTED = SHIPPED["held_out_windows"]["loss"]


def with_record(tmp_path, **change):
    path = tmp_path / "writer.safetensors"
    path.write_bytes(writer.DEFAULT_WEIGHTS.read_bytes())
    writer.record_path(path).write_text(json.dumps(dict(SHIPPED, **change)))
    return path


def refused(path) -> str:
    with pytest.raises(writer.WriterError) as err:
        writer.load(path)
    message = str(err.value)
    assert "\n" not in message and len(message) < 400, message
    return message


@pytest.fixture
def text(tmp_path, monkeypatch):
    """A copy of the training text the writer reads instead, to alter."""
    copy = tmp_path / "text.txt"
    copy.write_bytes(writer.DATA.read_bytes())
    monkeypatch.setattr(writer, "DATA", copy)
    for cached in (writer.text, writer.vocab, writer.all_ids):
        cached.cache_clear()
    yield copy
    for cached in (writer.text, writer.vocab, writer.all_ids):
        cached.cache_clear()


def test_the_shipped_record_holds():
    loaded = writer.load()
    assert loaded.record["held_out_windows"]["windows"] == writer.check_windows()
    assert abs(loaded.record["held_out_curve"][-1][1] - RECOMPUTED) <= writer.CURVE_TOLERANCE


@pytest.mark.parametrize("loss", [0.9, 0.0])
def test_a_false_held_out_loss_is_refused(tmp_path, loss):
    path = with_record(tmp_path, held_out_loss=loss)
    message = refused(path)
    assert message.startswith(f"{writer.record_path(path)}: field 'held_out_loss': the record says {loss:.4f}; "
                              f"recomputed: {RECOMPUTED:.4f} on the named held_out_windows")


def test_a_fabricated_curve_is_refused(tmp_path):
    curve = [[s, round(3.0 - s / 1000, 3)] for s, _ in SHIPPED["held_out_curve"]]     # a smooth lie
    path = with_record(tmp_path, held_out_curve=curve)
    assert refused(path) == (f"{writer.record_path(path)}: field 'held_out_curve': the record says 1.0000 at step "
                             f"2,000, its last point; recomputed: {RECOMPUTED:.4f} on the held_out_windows, "
                             "the curve's windows")


def test_false_named_windows_are_refused(tmp_path):
    named = dict(SHIPPED["held_out_windows"], loss=1.5)
    path = with_record(tmp_path, held_out_windows=named)
    assert refused(path) == (f"{writer.record_path(path)}: field 'held_out_windows.loss': the record says "
                             f"1.500000; recomputed: {RECOMPUTED:.6f}")


@pytest.mark.parametrize("curve, field", [
    ([[True, 1.0]], "held_out_curve[0][0]': expected a whole number from 0 to 20,000, found True"),
    ([[2000, False]], "held_out_curve[0][1]': expected a number from 0 to below 100, found False"),
])
def test_a_boolean_in_a_curve_is_refused(tmp_path, curve, field):
    path = with_record(tmp_path, held_out_curve=curve)
    assert refused(path) == f"{writer.record_path(path)}: field '{field}"


def test_a_curve_that_does_not_end_at_the_last_step_is_refused(tmp_path):
    path = with_record(tmp_path, held_out_curve=SHIPPED["held_out_curve"][:-1])
    assert refused(path).startswith(f"{writer.record_path(path)}: field 'held_out_curve': expected [step, loss] "
                                    "points in the order of their steps, the last at step 2,000 (steps)")


def test_a_text_that_is_not_utf8_is_named(tmp_path, text):
    text.write_bytes(text.read_bytes()[:100] + b"\xff" + text.read_bytes()[100:])
    assert refused(with_record(tmp_path)) == (f"{text}: the writer's text is not UTF-8 (byte 101, 0xFF); "
                                              "expected the UTF-8 text the record names")


def test_a_text_whose_size_disagrees_with_the_record_is_refused(tmp_path, text):
    text.write_bytes(text.read_bytes() + b"And more.\n")
    path = with_record(tmp_path)
    assert refused(path) == (f"{writer.record_path(path)}: field 'data.characters': the record says "
                             f"1,115,394 characters; recomputed: {text} has 1,115,404")


def test_a_text_changed_within_its_size_is_refused_by_its_hash(tmp_path, text):
    raw = bytearray(text.read_bytes())
    raw[500] = ord("a") if raw[500] != ord("a") else ord("b")
    text.write_bytes(bytes(raw))
    path = with_record(tmp_path)
    message = refused(path)
    assert message.startswith(f"{writer.record_path(path)}: field 'data.sha256': the record says "
                              f"{SHIPPED['data']['sha256']}; recomputed: ") and message.endswith(f", the SHA-256 of {text}")


@pytest.mark.build
@pytest.mark.parametrize("claims", [{}, {"TOYCALC_CLAIMS": "warn"}])
def test_a_false_held_out_loss_stops_the_build(tmp_path, claims):
    """Strict or warn alike: a record that lies is not a sentence to mark."""
    path = with_record(tmp_path, held_out_loss=0.9)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, env=mkdocs_env(TOYCALC_WRITER=str(path), **claims), capture_output=True,
                            text=True, timeout=600)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    lines = [s for s in result.stderr.splitlines() if "field 'held_out_loss'" in s]
    assert len(lines) == 1 and f"{writer.record_path(path)}: field 'held_out_loss': the record says 0.9000; " \
        f"recomputed: {RECOMPUTED:.4f}" in lines[0], result.stderr[-2000:]
