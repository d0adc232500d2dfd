"""The writer (model/writer.py, model/train_writer.py): its text and
vocabulary, its gradients against central differences, the command that
trains it refusing bad arguments before any training, and the shipped
weights: their held-out loss computed again from the committed text, and
a retrain's first 50 steps repeating the shipped run's losses to the bit."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from references import assert_grads_match
from toycalc.model import sizes, train_writer, writer
from toycalc.model.weights import DEFAULT_TOY

ROOT = DEFAULT_TOY.parent.parent.parent


def test_the_committed_text_is_the_shared_one_with_its_source_named():
    text = writer.text()
    assert len(text) == 1_115_394
    assert len(writer.vocab()) == 65 == writer.CONFIG.vocab_size
    assert writer.vocab() == "".join(sorted(Counter(text)))
    readme = (writer.DATA.parent / "README.md").read_text()
    assert "karpathy/char-rnn" in readme and "6f9487a" in readme
    assert f"{writer.split_at():,}" in readme


def test_the_held_out_text_is_the_last_tenth_and_never_in_a_batch():
    assert writer.split_at() == int(len(writer.text()) * 0.9)
    assert writer.decode(writer.held_out_ids()[:50]) == writer.text()[writer.split_at():][:50]
    data = train_writer.batches(np.random.default_rng(0), writer.train_ids())
    for _ in range(20):
        x, y = next(data)
        assert x.shape == y.shape == (train_writer.BATCH, writer.CONFIG.n_ctx)
        np.testing.assert_array_equal(x[:, 1:], y[:, :-1])
    # the batches index train_ids only, which ends where the held-out text begins
    assert len(writer.train_ids()) == writer.split_at()


def test_encode_names_a_character_outside_the_vocabulary_and_its_place():
    assert writer.decode(writer.encode("To be, or not")) == "To be, or not"
    assert writer.outside("To be\u2014or") == (6, "\u2014")
    with pytest.raises(writer.WriterError, match=r"character 6 \('\u2014', U\+2014\)"):
        writer.encode("To be\u2014or")


def test_the_config_is_about_0_8_million_parameters():
    assert sizes.count_params(writer.CONFIG)["total"] == 818_176
    # float16: two bytes a weight, within the 2 MB the page may fetch
    assert 2 * 818_176 < 2_000_000


def test_backward_of_the_writers_config_against_central_differences():
    cfg = writer.config(vocab_size=7, d=8, n_ctx=6, n_blocks=2, n_heads=4)
    assert (cfg.bias, cfg.ln_weights, cfg.tied, cfg.mlp_width) == (True, True, False, 32)
    rng = np.random.default_rng(3)
    params = {k: rng.normal(0, 0.5, v.shape) for k, v in sizes.init_params(cfg, rng).items()}
    ids = rng.integers(0, 7, (2, 6))
    targets = rng.integers(0, 7, (2, 6))
    assert_grads_match(params, cfg, ids, targets)


def test_the_learning_rate_warms_up_then_falls_along_a_cosine():
    lr = [train_writer.learning_rate(k, 1000) for k in range(1000)]
    assert lr[0] == pytest.approx(train_writer.LR / train_writer.WARMUP)
    assert max(lr) == pytest.approx(train_writer.LR)
    assert lr[-1] == pytest.approx(train_writer.MIN_LR, rel=1e-3)
    assert all(a >= b for a, b in zip(lr[100:], lr[101:]))


@pytest.mark.parametrize("args, message", [
    (["--steps", "0"], "--steps 0: expected a whole number from 1 to 20,000"),
    (["--seed", "-1"], "--seed -1: expected a whole number from 0"),
    (["--every", "0"], "--every 0: expected a whole number of steps, at least 1"),
    (["--out", "w.json"], "expected the path of the weights, ending in .safetensors"),
    (["--out", "/nonexistent/w.safetensors"], "the folder /nonexistent does not exist"),
])
def test_a_bad_argument_is_refused_in_one_line_before_training(args, message, tmp_path):
    run = subprocess.run([sys.executable, "-m", "toycalc", "train-writer", *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"error: {run.stderr.strip()[7:]}"]
    assert message in run.stderr
    assert "writer:" not in run.stdout     # no training began


def test_the_books_weights_need_force(capsys, monkeypatch, tmp_path):
    book = tmp_path / "writer.safetensors"
    book.write_bytes(b"stands for the book's")
    monkeypatch.setattr(writer, "DEFAULT_WEIGHTS", book)
    with pytest.raises(SystemExit) as stop:
        train_writer.main([])
    assert stop.value.code == 2
    assert "replace them with --force" in capsys.readouterr().err
    assert train_writer.weights_path(None, force=True) == book


def a_record(params) -> dict:
    """The shipped record, told true of these weights (as train_writer writes it)."""
    record = json.loads(writer.record_path(writer.DEFAULT_WEIGHTS).read_text())
    named = writer.windows_record({k: v.astype(np.float16) for k, v in params.items()})
    record.update(steps=2, loss_curve=[4.2, 4.1], held_out_curve=[[0, 4.2], [2, named["loss"]]],
                  held_out_loss=named["loss"], held_out_windows=named, weights_sha256=writer.digest(params))
    return record


def test_save_writes_both_files_and_load_checks_the_record_against_the_weights(tmp_path):
    rng = np.random.default_rng(0)
    params = sizes.init_params(writer.CONFIG, rng)
    record = a_record(params)
    path = tmp_path / "w.safetensors"
    writer.save(params, record, path)
    loaded = writer.load(path)
    np.testing.assert_array_equal(loaded.params["E"], params["E"].astype(np.float16))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json", "w.safetensors"]
    record["weights_sha256"] = "0" * 64
    writer.record_path(path).write_text(json.dumps(record))
    with pytest.raises(writer.WriterError, match="w.json: field 'weights_sha256' does not match"):
        writer.load(path)
    record["weights_sha256"] = writer.digest(params)
    record["held_out_loss"] = True
    writer.record_path(path).write_text(json.dumps(record))
    with pytest.raises(writer.WriterError, match="field 'held_out_loss': expected a number from 0 to below 100, "
                                                 "found True"):
        writer.load(path)


def test_a_weight_beyond_the_limit_is_named_with_its_value_and_place(tmp_path):
    params = sizes.init_params(writer.CONFIG, np.random.default_rng(0))
    path = tmp_path / "w.safetensors"
    writer.save(params, a_record(params), path)
    arrays = load_file(path)
    arrays["E"] = arrays["E"].astype(np.float32)
    arrays["E"][2, 3] = 1000000.1
    save_file(arrays, path)
    with pytest.raises(writer.WriterError) as refused:
        writer.load(path)
    assert str(refused.value) == (f"{path}: array 'E': holds 1000000.1 at index (2, 3), beyond the limit "
                                  "of a weight, ±1,000,000")


@pytest.mark.parametrize("value, said", [
    (float("nan"), "holds a value that is not finite (at index (2, 3))"),
    (float("inf"), "holds a value that is not finite (at index (2, 3))"),
    (70000.0, "holds 70000.0 at index (2, 3), beyond the largest float16, as the record says they are stored, ±65,504"),
])
def test_weights_the_browser_cannot_read_are_refused_in_one_line(tmp_path, value, said):
    """NaN, an infinity, and a float32 70,000 (float16, as the browser
    reads the weights, holds at most 65,504: it would get infinity)."""
    params = sizes.init_params(writer.CONFIG, np.random.default_rng(0))
    path = tmp_path / "w.safetensors"
    writer.save(params, a_record(params), path)
    arrays = load_file(path)
    arrays["E"] = arrays["E"].astype(np.float32)
    arrays["E"][2, 3] = value
    save_file(arrays, path)
    with pytest.raises(writer.WriterError) as refused:
        writer.load(path)
    assert str(refused.value) == f"{path}: array 'E': {said}"
    assert "\n" not in str(refused.value)


# ---------------------------------------------------------------- the shipped weights

@pytest.fixture(scope="module")
def shipped():
    return writer.load()


def test_the_shipped_held_out_loss_is_computed_again_from_the_committed_text(shipped):
    loss = writer.held_out_loss(shipped.params)
    assert loss <= writer.TARGET == 1.80
    assert abs(loss - shipped.record["held_out_loss"]) <= 1e-4
    assert shipped.record["weights_sha256"] == writer.digest(shipped.params)
    assert shipped.record["steps"] == len(shipped.record["loss_curve"])
    assert shipped.record["data"]["held_out_from"] == writer.split_at()


def test_the_shipped_weights_are_float16_and_at_most_2_mb(shipped):
    assert shipped.path.stat().st_size <= 2_000_000
    arrays = load_file(shipped.path)    # as the safetensors package reads it
    assert {a.dtype for a in arrays.values()} == {np.dtype(np.float16)}
    assert set(arrays) == set(sizes.param_shapes(writer.CONFIG))


@pytest.mark.train
def test_a_retrain_repeats_the_shipped_runs_first_50_losses_to_the_bit(shipped):
    """In a process of its own, which pins the BLAS kernel before numpy
    loads, as `python -m toycalc train-writer` does (model/blas.py)."""
    code = ("from toycalc.model import blas; blas.pin_kernel(); import json; "
            "from toycalc.model import train_writer; "
            f"print(json.dumps(train_writer.first_losses(50, {shipped.record['steps']}, {shipped.record['seed']})))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    losses = json.loads(run.stdout)
    assert len(losses) == 50
    assert losses == shipped.record["loss_curve"][:50]
