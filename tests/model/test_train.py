"""`python -m toycalc train` never loses weights: every argument is checked
before training, each refusal in one line; only a run that sorts all 729
inputs writes, each file to a temporary one renamed over the old; the
book's own weights are replaced only when asked in so many words."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from toycalc.model import safetensors_file, nanogpt, train, trainer
from toycalc.model.weights import DEFAULT_TOY

ROOT = DEFAULT_TOY.parent.parent.parent


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A copy of the book's weights and record standing in for them, so
    that no test can touch the real ones: its folder's files by name and bytes."""
    folder = tmp_path / "weights"
    folder.mkdir()
    weights_file = folder / "nanogpt.safetensors"
    weights_file.write_bytes(nanogpt.DEFAULT_WEIGHTS.read_bytes())
    nanogpt.record_path(weights_file).write_bytes(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_bytes())
    monkeypatch.setattr(nanogpt, "DEFAULT_WEIGHTS", weights_file)
    return weights_file


def files(folder) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def refused(capsys, *args) -> str:
    """main's one-line refusal of args, given before any training."""
    with pytest.raises(SystemExit) as exit:
        train.main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert exit.value.code == 2 and out == "", out          # no training started: it would print
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0][len("error: "):]


@pytest.mark.parametrize("args, message", [
    (["--every", "0"], "--every 0: expected a whole number of steps, at least 1"),
    (["--every", "-5"], "--every -5: expected a whole number of steps, at least 1"),
    (["--seed", "-1"], "--seed -1: expected a whole number from 0 to 4,294,967,295"),
    (["--seed", str(2 ** 32)], "--seed 4294967296: expected a whole number from 0 to 4,294,967,295"),
    (["--seed", "1.5"], "argument --seed: invalid int value: '1.5'"),
    (["--max-steps", "0"], "--max-steps 0: expected a whole number from 1 to 5,000"),
    (["--max-steps", "5001"], "--max-steps 5001: expected a whole number from 1 to 5,000"),
    (["--steps", "3"], "unrecognized arguments: --steps 3"),
])
def test_a_bad_number_is_refused_before_training(capsys, shipped, tmp_path, args, message):
    before = files(shipped.parent)
    assert message in refused(capsys, *args, "--out", tmp_path / "mine.safetensors")
    assert files(shipped.parent) == before and not (tmp_path / "mine.safetensors").exists()


def test_out_must_name_the_weights_not_the_record(capsys, shipped):
    record = shipped.with_suffix(".json")
    before = files(shipped.parent)
    message = refused(capsys, "--out", record)
    assert message == (f"--out {record}: expected the path of the weights, ending in .safetensors "
                       "(their record goes beside them, as nanogpt.json)")
    assert files(shipped.parent) == before


@pytest.mark.parametrize("where, message", [
    ("{tmp}", "--out {tmp}: is a folder; expected the path of the weights, such as {tmp}/nanogpt.safetensors"),
    ("{tmp}/mine", "--out {tmp}/mine: expected the path of the weights, ending in .safetensors (their record goes "
                   "beside them, as mine.json)"),
    ("{tmp}/nowhere/mine.safetensors", "--out {tmp}/nowhere/mine.safetensors: the folder {tmp}/nowhere does not exist"),
    ("{tmp}/a_file/mine.safetensors", "--out {tmp}/a_file/mine.safetensors: {tmp}/a_file is not a folder"),
    ("{tmp}/a_dir.safetensors", "--out {tmp}/a_dir.safetensors: is a folder; expected the path of the weights, "
                        "such as {tmp}/a_dir.safetensors/nanogpt.safetensors"),
    ("{tmp}/rec.safetensors", "--out {tmp}/rec.safetensors: {tmp}/rec.json is a directory; expected a regular file or none"),
])
def test_a_bad_out_is_refused_before_training(capsys, shipped, tmp_path, where, message):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_dir.safetensors").mkdir()
    (tmp_path / "rec.json").mkdir()
    assert refused(capsys, "--out", where.format(tmp=tmp_path)) == message.format(tmp=tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_a_folder_that_cannot_be_written_is_refused(capsys, shipped, tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert refused(capsys, "--out", folder / "m.safetensors") == f"--out {folder}/m.safetensors: cannot write in the folder {folder}"
    finally:
        folder.chmod(0o755)


def test_the_books_weights_need_to_be_named_or_forced(capsys, shipped):
    before = files(shipped.parent)
    message = refused(capsys)
    assert message.startswith(f"{shipped} holds the book's weights: replace them with --force")
    assert files(shipped.parent) == before
    assert train.weights_path(None, force=True) == shipped
    assert train.weights_path(shipped, force=False) == shipped      # --out naming them


def test_a_run_that_does_not_sort_all_729_writes_nothing(capsys, tmp_path):
    """One step does not sort the 729 inputs: exit 1, and the weights that
    were at --out (here an earlier run's: nano-gpt's, the only ones a run
    may write over) are as they were."""
    out = tmp_path / "mine.safetensors"
    out.write_bytes(nanogpt.DEFAULT_WEIGHTS.read_bytes())
    out.with_suffix(".json").write_bytes(b'{"what": "nano-gpt, an earlier run"}')   # a record, if stale
    before = files(tmp_path)
    assert train.main(["--max-steps", "1", "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "sorted after 1 step," in printed and "1 steps" not in printed and f"nothing written: only weights that sort all 729 inputs are written ({out} is as it was)" in printed
    assert files(tmp_path) == before


def test_an_interrupted_run_writes_nothing(capsys, monkeypatch, shipped):
    def interrupted(*_):
        raise KeyboardInterrupt
    monkeypatch.setattr(trainer, "step", interrupted)     # the one loop's step
    before = files(shipped.parent)
    assert train.main(["--force"]) == 130
    assert capsys.readouterr().err == f"interrupted: nothing written ({shipped} is as it was)\n"
    assert files(shipped.parent) == before


def test_a_bad_argument_on_the_command_line_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "toycalc", "train", "--every", "0", "--out", str(tmp_path / "m.safetensors")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "error: --every 0: expected a whole number of steps, at least 1\n"
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------ nanogpt.save

def test_a_failed_write_leaves_the_old_files(monkeypatch, shipped, nano):
    """The disk fills up halfway through the weights: the old weights and
    record are untouched, and no temporary file is left behind."""
    before = files(shipped.parent)

    def half_written(f, params, shapes, dtype=None):
        f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00 half a file")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(safetensors_file, "write", half_written)
    with pytest.raises(OSError, match="No space left"):
        nanogpt.save(dict(nano.params), nano.record, shipped)
    assert files(shipped.parent) == before and len(list(shipped.parent.iterdir())) == 2


@pytest.mark.parametrize("value, shown", [(float("nan"), "NaN"), (float("inf"), "Infinity"),
                                          (-float("inf"), "-Infinity")])
def test_a_record_with_a_number_json_lacks_is_not_written(shipped, nano, value, shown):
    """What the loader would refuse (nanogpt_record) is not written either."""
    before = files(shipped.parent)
    with pytest.raises(ValueError) as err:
        nanogpt.save(dict(nano.params), dict(nano.record, final_loss=value), shipped)
    assert str(err.value) == (f"{shipped.with_suffix('.json')}: not written: field 'final_loss': expected a "
                              f"finite number of at least 0, found {shown}")
    assert files(shipped.parent) == before and len(list(shipped.parent.iterdir())) == 2


def test_the_weights_are_never_written_over_their_record(tmp_path, nano):
    with pytest.raises(ValueError, match="must not end in .json"):
        nanogpt.save(dict(nano.params), nano.record, tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []


def test_save_replaces_both_files(tmp_path, nano):
    out = tmp_path / "mine.safetensors"
    out.write_bytes(b"old")
    nanogpt.save(dict(nano.params), dict(nano.record, seed=7), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.json", "mine.safetensors"]
    again = nanogpt.load(out)
    assert again.record["seed"] == 7 and all(np.array_equal(again.params[k], v) for k, v in nano.params.items())
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


@pytest.mark.train
def test_force_replaces_the_books_weights_after_a_full_run(capsys, shipped):
    """A whole run with --force writes the (stand-in) book's weights and
    record, and nothing else, once all 729 are sorted."""
    (shipped.parent / "nanogpt.safetensors").write_bytes(b"to be replaced")
    assert train.main(["--force"]) == 0
    assert f"wrote {shipped} and {shipped.with_suffix('.json')}" in capsys.readouterr().out
    assert sorted(p.name for p in shipped.parent.iterdir()) == ["nanogpt.json", "nanogpt.safetensors"]
    made = nanogpt.load(shipped)
    assert made.record["accuracy_on_729"] == 729 == nanogpt.accuracy(made.params)
    assert json.loads(shipped.with_suffix(".json").read_text())["steps"] == made.record["steps"]
