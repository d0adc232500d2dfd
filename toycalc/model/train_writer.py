"""Train the writer on Shakespeare, with toycalc's own numpy GPT.

    python -m toycalc train-writer [--seed 1337] [--steps 2000] [--every 100]
                                   [--out PATH.safetensors | --force]

Random batches of 32 windows of 64 characters from the first 90 % of the
text, each position predicting the character after it; GPT-2's
initialisation (sizes.init_params); nano-gpt's AdamW (train.AdamW: beta
0.9, 0.95, weight decay 0.1 on the 2-D weight matrices) with its learning
rate warmed up over the first 100 steps to 1e-3, then lowered along a
cosine to 1e-4 at the last step. gpt.forward and gpt.backward do the work,
in float32. Every --every steps it prints a progress line; every 250 steps
it measures the loss on 64 windows spread over the held-out text (the
record's held-out curve). At the end the weights are rounded to float16,
as shipped, and the loss on the whole held-out text is computed with them
in float64. Only a run whose held-out loss is at most writer.TARGET writes
anything: the weights to --out (.safetensors) and their record beside them
(.json). This module is the writer's recipe (RECIPE); the loop, the
writing and the rules of --out are every model's (trainer.py). The BLAS
kernel and threads are pinned (blas.py), so a run repeats to the bit.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from . import sizes, trainer, writer
from .train import BETAS, ADAM_EPS, WEIGHT_DECAY

SEED = 1337
STEPS = 2000
MAX_STEPS = writer.MAX_STEPS
BATCH = 32
LR, MIN_LR, WARMUP = 1e-3, 1e-4, 100
EVERY = 100
HELD_OUT_EVERY = 250
HELD_OUT_WINDOWS = 64
DTYPE = np.float32
CONFIG = writer.CONFIG
# One BLAS thread, not nano-gpt's two (blas.THREADS): on a busy machine two
# threads wait on each other, and a step took ten times as long. A retrain
# repeats the run to the bit only with the same count.
THREADS = 1


def learning_rate(step: int, steps: int) -> float:
    """The rate of step (counted from 0) in a run of `steps`: linear warmup, then cosine."""
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    done = (step - WARMUP) / max(1, steps - WARMUP)
    return MIN_LR + 0.5 * (LR - MIN_LR) * (1 + math.cos(math.pi * min(1.0, done)))


def batches(rng: np.random.Generator, ids: np.ndarray, batch: int = BATCH, n_ctx: int = CONFIG.n_ctx):
    """An endless stream of (inputs, targets), each (batch, n_ctx), at random places in ids."""
    while True:
        starts = rng.integers(0, len(ids) - n_ctx, batch)
        rows = starts[:, None] + np.arange(n_ctx + 1)
        window = ids[rows]
        yield window[:, :-1], window[:, 1:]


def start(seed: int = SEED):
    return trainer.start(RECIPE, seed)


def first_losses(n: int, steps: int = STEPS, seed: int = SEED) -> list[float]:
    """The losses of the first n steps of a run of `steps` (the tests
    compare them with the shipped record's), BLAS pinned as in a run."""
    return trainer.first_losses(RECIPE, n, steps, seed)


def start_note(r: trainer.TrainingRun) -> str:
    """The run's first line; and the held-out curve's first point, before any step."""
    r.notes["held"] = [[0, writer.held_out_loss(r.params, limit=HELD_OUT_WINDOWS)]]
    return (f"writer: {sizes.count_params(CONFIG)['total']:,} parameters, {len(writer.vocab())} characters, "
            f"seed {r.seed}, {r.steps:,} steps of {BATCH} x {CONFIG.n_ctx} characters")


def after_step(r: trainer.TrainingRun) -> None:
    """Every HELD_OUT_EVERY steps, and at the last, a point of the held-out curve."""
    if r.step % HELD_OUT_EVERY == 0 or r.step == r.steps:
        r.notes["held"].append([r.step, writer.held_out_loss(r.params, limit=HELD_OUT_WINDOWS)])


def check(r: trainer.TrainingRun) -> tuple[str, bool]:
    held = r.notes["held"][-1]
    return (f"step {r.step:5d}/{r.steps}  loss {np.mean(r.losses[-r.every:]):.4f}  held-out {held[1]:.4f} "
            f"(step {held[0]})", False)


def record(r: trainer.TrainingRun) -> dict:
    shipped = r.shipped()
    final = {k: v.astype(np.float64) for k, v in shipped.items()}
    loss = writer.held_out_loss(final)          # the whole held-out text, float16 weights in float64
    return {
        "what": "the writer, a character-level GPT, trained by python -m toycalc train-writer",
        "data": {"file": writer.DATA.name, "source": writer.DATA_SOURCE,
                 "characters": len(writer.text()), "held_out_from": writer.split_at(),
                 "sha256": writer.text_sha256()},
        "vocab": writer.vocab(),
        "config": {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__},
        "parameters": sizes.count_params(CONFIG)["total"],
        "seed": r.seed, "batch": BATCH,
        "optimizer": {"name": "AdamW", "lr": LR, "min_lr": MIN_LR, "warmup": WARMUP,
                      "schedule": "linear warmup, then cosine to min_lr at the last step",
                      "betas": list(BETAS), "eps": ADAM_EPS, "weight_decay": WEIGHT_DECAY},
        "dtype": np.dtype(DTYPE).name, "stored_as": "float16",
        "steps": r.step,
        "loss_curve": [float(v) for v in r.losses],     # every step's training loss, on its batch
        "held_out_curve": [[int(s), float(v)] for s, v in r.notes["held"]],
        "held_out_loss": float(loss),
        "held_out_means": (f"mean loss over every character of the held-out text, cut into windows "
                           f"of {CONFIG.n_ctx}, with the float16 weights in float64; the curve's "
                           f"points use {HELD_OUT_WINDOWS} windows spread over it"),
        "held_out_windows": writer.windows_record(final),     # what every build recomputes
        "weights_sha256": writer.digest(shipped),
        "seconds": round(r.seconds, 1),
        "made_with": r.machine,
    }


def accepts(rec: dict) -> str | None:
    return (None if rec["held_out_loss"] <= writer.TARGET else
            f"only weights with a held-out loss of at most {writer.TARGET} are written")


def summary(rec: dict) -> str:
    return (f"held-out loss {rec['held_out_loss']:.4f} nats per character after {rec['steps']:,} steps, "
            f"{rec['seconds'] / 60:.1f} min")


RECIPE = trainer.Recipe(
    model="the writer", what="the writer", command="python -m toycalc train-writer", config=CONFIG,
    book_weights=lambda: writer.DEFAULT_WEIGHTS, record_path=writer.record_path, save=writer.save,
    batches=lambda rng: batches(rng, writer.train_ids()), steps=STEPS, max_steps=MAX_STEPS,
    steps_option="--steps", every=EVERY, check=check, record=record, accepts=accepts, summary=summary,
    hint="raise --steps or try another --seed", lr=LR, betas=BETAS, eps=ADAM_EPS,
    weight_decay=WEIGHT_DECAY, schedule=learning_rate, threads=THREADS, start_note=start_note,
    after_step=after_step)


def train(seed: int = SEED, steps: int = STEPS, every: int = EVERY, out: Path | None = None,
          log=print) -> dict:
    return trainer.run(RECIPE, seed, steps, every, out, log)


def weights_path(out: Path | None, force: bool) -> Path:
    """trainer.weights_path for the writer (see there)."""
    return trainer.weights_path(RECIPE, out, force)


def main(argv=None) -> int:
    try:
        writer.vocab()              # a text that cannot be read: one line before anything
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return trainer.main(RECIPE, argv,
                        " A run of the default 2,000 steps takes about 13 minutes on two cores.")


if __name__ == "__main__":
    sys.exit(main())
