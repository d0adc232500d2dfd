"""Train nano-gpt to sort six letters, with toycalc's own numpy GPT.

    python -m toycalc train [--seed 1337] [--max-steps 5000] [--every 100]
                            [--out PATH.safetensors | --force]

minGPT's sort demo, in numpy: random batches of 64 inputs of six letters
from {A, B, C}, the loss only on the six sorted positions (see
nanogpt.examples), GPT-2's initialisation (sizes.init_params), AdamW
(beta 0.9, 0.95, learning rate 5e-4, weight decay 0.1 on the 2-D weight
matrices but not the embeddings). The forward and backward passes are
gpt.forward and gpt.backward, the same code that runs the toy model;
training runs them in float32 for speed. Every `--every` steps it prints a
progress line and checks greedy decoding on all 729 inputs, with the
weights rounded to half precision (float16) as they are shipped; it stops
when all 729 come out sorted (or after --max-steps). Only a run that sorts
all 729 writes anything: the weights to --out (.safetensors, float16) and beside
them their record (.json, with the loss of every step: the chapter draws
it). This module is nano-gpt's recipe (RECIPE); the loop, the writing
and the rules of --out are every model's, trainer.py's: it writes only
files it owns (a keeper's results.json beside results.safetensors is
refused before training), atomically, and a write that fails after the
run (a full disk) is one line, the weights kept in a named temporary
folder. The book's own, weights/nanogpt.safetensors, are replaced only
when --out names them or with --force.

Why float16: the reader's browser downloads the weights to run the model,
and 85,728 float32 numbers do not compress (their low bits are noise); in
half precision they weigh half as much. The book computes with exactly the
stored numbers (in float64), and so does the browser (in float32), so
nothing is lost between the two: the rounding happens once, here.

What it leaves out: dropout, a learning-rate schedule, gradient clipping.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from . import blas, gpt, nanogpt, sizes, trainer
from .mirror import mirrored
from .nanogpt import CONFIG
from .nanogpt_record import MAX_STEPS   # the most a run may take: the record keeps every step's loss

SEED = 1337
BATCH = 64
LR = 5e-4
BETAS = (0.9, 0.95)
ADAM_EPS = 1e-8
WEIGHT_DECAY = 0.1
EVERY = 100
DTYPE = np.float32


AdamW, decays = trainer.AdamW, trainer.decays     # every model's optimiser (trainer.py)


def batches(rng: np.random.Generator, batch: int = BATCH):
    """An endless stream of (ids, targets), each (batch, 11)."""
    while True:
        yield nanogpt.examples(rng.integers(0, len(nanogpt.VOCAB), (batch, nanogpt.LENGTH)))


def start(seed: int = SEED):
    """The initial parameters, the optimiser and the batch stream of a run (trainer.start's)."""
    return trainer.start(RECIPE, seed)


def train_step(params, opt, data) -> float:
    return trainer.step(RECIPE, params, opt, data, 0, MAX_STEPS)


def first_losses(n: int, seed: int = SEED) -> list[float]:
    """The losses of the first n steps of a run (the tests pin them)."""
    params, opt, data = start(seed)
    return [train_step(params, opt, data) for _ in range(n)]


def as64(params: dict) -> dict:
    return {k: v.astype(np.float64) for k, v in params.items()}


STORED = np.float16


def stored(params: dict) -> dict:
    """The weights as shipped: each rounded to the nearest float16."""
    return {k: v.astype(STORED) for k, v in params.items()}


@mirrored("train.js")
def eval_loss(params) -> float:
    """The loss on all 729 inputs (float64)."""
    ids, targets = nanogpt.examples(nanogpt.all_inputs())
    return gpt.cross_entropy(gpt.forward(params, CONFIG, ids)["p"], targets)


def check(r: trainer.TrainingRun) -> tuple[str, bool]:
    """Greedy decoding on all 729 inputs, with the weights as they would be
    shipped, in float32; a full score is confirmed in float64, as the book
    computes, and ends the run."""
    shipped = r.shipped()
    correct = nanogpt.accuracy({k: v.astype(DTYPE) for k, v in shipped.items()})
    if correct == 729:
        correct = nanogpt.accuracy(as64(shipped))
    return (f"step {r.step:5d}  loss {np.mean(r.losses[-r.every:]):.6f}  sorted {correct:3d}/729",
            correct == 729)


def record(r: trainer.TrainingRun) -> dict:
    final = as64(r.shipped())
    rec = {
        "what": "nano-gpt, the letter sorter, trained by python -m toycalc train",
        "config": {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__},
        "parameters": sizes.count_params(CONFIG)["total"],
        "seed": r.seed, "batch": BATCH, "optimizer": {"name": "AdamW", "lr": LR, "betas": list(BETAS),
                                                       "eps": ADAM_EPS, "weight_decay": WEIGHT_DECAY},
        "dtype": np.dtype(DTYPE).name,
        "stored_as": np.dtype(STORED).name,
        "steps": r.step,
        "final_loss": round(float(np.mean(r.losses[-r.every:])), 8),
        "final_loss_means": f"mean training loss of the last {min(r.every, r.step)} steps",
        "loss_on_729": round(eval_loss(final), 8),
        # the training loss of each step, on its batch: the chapter's loss curve
        "loss_curve": [round(float(loss), 8) for loss in r.losses],
        "accuracy_on_729": nanogpt.accuracy(final),
        "seconds": round(r.seconds, 1),
        "made_with": r.machine,
    }
    return rec


def accepts(rec: dict) -> str | None:
    return None if rec["accuracy_on_729"] == 729 else "only weights that sort all 729 inputs are written"


def summary(rec: dict) -> str:
    steps = rec["steps"]
    return f"{rec['accuracy_on_729']}/729 sorted after {steps} step{'' if steps == 1 else 's'}, {rec['seconds']:.0f} s"


RECIPE = trainer.Recipe(
    model="nano-gpt", what="nano-gpt", command="python -m toycalc train", config=CONFIG,
    book_weights=lambda: nanogpt.DEFAULT_WEIGHTS, record_path=nanogpt.record_path,
    save=lambda *args: nanogpt.save(*args),          # looked up at the end of a run
    batches=lambda rng: batches(rng), steps=MAX_STEPS, max_steps=MAX_STEPS, steps_option="--max-steps",
    every=EVERY, check=check, record=record, accepts=accepts, summary=summary,
    hint=f"raise --max-steps (at most {MAX_STEPS:,}) or try another --seed", lr=LR, betas=BETAS, eps=ADAM_EPS,
    weight_decay=WEIGHT_DECAY, threads=blas.THREADS,
    start_note=lambda r: (f"nano-gpt: {sizes.count_params(CONFIG)['total']:,} parameters, seed {r.seed}, "
                          f"batch {BATCH}, AdamW lr {LR} betas {BETAS} weight decay {WEIGHT_DECAY}"))


def train(seed: int = SEED, max_steps: int = MAX_STEPS, every: int = EVERY,
          out: Path | None = None, log=print) -> dict:
    """Train until greedy decoding sorts all 729 inputs; return the record.
    The weights and the record are written to out (if given) only when all
    729 are sorted (trainer.run)."""
    return trainer.run(RECIPE, seed, max_steps, every, out, log)


NotWritten = trainer.NotWritten
Arguments = trainer.Arguments


def weights_path(out: Path | None, force: bool) -> Path:
    """trainer.weights_path for nano-gpt (see there)."""
    return trainer.weights_path(RECIPE, out, force)


def main(argv=None) -> int:
    return trainer.main(RECIPE, argv)


if __name__ == "__main__":
    sys.exit(main())
