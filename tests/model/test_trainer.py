"""One training loop for every model (model/trainer.py): `python -m
toycalc train MODEL` (with `train` for nano-gpt and `train-writer` kept as
names); a run writes only files it owns, refused in one line before
training: a keeper's file at the weights or record path stays byte for
byte, and no model's --out may name another model's shipped files."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from toycalc.model import models, nanogpt, train, train_writer, trainer, writer
from toycalc.model.weights import DEFAULT_TOY

ROOT = DEFAULT_TOY.parent.parent.parent


def command(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toycalc", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def files(folder) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("args", [["train-writer"], ["train", "writer"]])
def test_an_unrelated_results_json_beside_out_stays_byte_for_byte(tmp_path, args):
    notes = tmp_path / "results.json"
    notes.write_bytes(b'{"my": "results", "of": 13.6}\n')
    before = files(tmp_path)
    run = command(*args, "--out", tmp_path / "results.safetensors", "--steps", "1")
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert run.stderr == (f"error: --out {tmp_path / 'results.safetensors'}: {notes} is there and is not the "
                          "writer's record, which a run writes beside its weights; move it, or name other "
                          "weights with --out\n")
    assert "writer:" not in run.stdout           # refused before training
    assert files(tmp_path) == before


def test_an_unrelated_file_at_the_weights_path_is_refused(tmp_path):
    weights = tmp_path / "results.safetensors"
    weights.write_bytes(b"a keeper's file")
    run = command("train", "--out", weights, "--max-steps", "1")
    assert run.returncode == 2
    assert run.stderr == (f"error: --out {weights}: the file is there and does not hold nano-gpt's weights; "
                          "move it, or name other weights with --out\n")
    assert weights.read_bytes() == b"a keeper's file"


@pytest.mark.parametrize("args, theirs", [
    (["train-writer", "--out", nanogpt.DEFAULT_WEIGHTS], "nano-gpt"),
    (["train", "writer", "--out", nanogpt.DEFAULT_WEIGHTS], "nano-gpt"),
    (["train", "--out", writer.DEFAULT_WEIGHTS], "the writer"),
    (["train", "nano-gpt", "--out", writer.DEFAULT_WEIGHTS.with_name("writer.safetensors")], "the writer"),
])
def test_out_naming_another_models_shipped_weights_is_refused_before_training(args, theirs):
    before = {p: p.read_bytes() for p in (nanogpt.DEFAULT_WEIGHTS, writer.DEFAULT_WEIGHTS)}
    run = command(*args)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "names a file of the book's shipped weights (weights/), which are not " in run.stderr
    assert {p: p.read_bytes() for p in before} == before


def test_an_unknown_model_is_named_with_the_models():
    run = command("train", "gpt-5")
    assert run.returncode == 2
    assert run.stderr == "error: train gpt-5: no such model; the models: nano-gpt, writer\n"


def test_train_model_is_the_same_command_as_the_old_names(tmp_path):
    """`train nano-gpt` and `train` refuse alike: the same recipe, the same checks."""
    old, new = command("train", "--seed", -1), command("train", "nano-gpt", "--seed", -1)
    assert old.returncode == new.returncode == 2 and old.stderr == new.stderr
    old, new = command("train-writer", "--steps", 0), command("train", "writer", "--steps", 0)
    assert old.returncode == new.returncode == 2 and old.stderr == new.stderr


def test_every_registered_model_trains_through_the_one_loop():
    assert set(models.trained().values()) == {train.RECIPE, train_writer.RECIPE}
    assert all(isinstance(r, trainer.Recipe) for r in models.trained().values())


def test_the_loop_repeats_nano_gpts_shipped_first_losses():
    """The one loop, on nano-gpt's recipe: the shipped record's first steps, to the bit (one BLAS thread here)."""
    losses = trainer.first_losses(train.RECIPE, 3, train.MAX_STEPS, nanogpt.load().record["seed"])
    assert np.allclose(losses, nanogpt.load().record["loss_curve"][:3], rtol=0, atol=1e-6)
