"""Train the writer on Shakespeare, with toycalc's own numpy GPT.

    python -m toycalc train-writer [--seed 1337] [--steps 2000] [--every 100]
                                   [--out PATH.npz | --force]

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
anything: the weights to --out (.npz) and their record beside them
(.json), atomically (writer.save). The book's own, weights/writer.npz, are
replaced only with --force or when --out names them. The BLAS kernel and
threads are pinned (blas.py), so a run repeats to the bit.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from . import blas, gpt, sizes, writer
from . import train as nano_train   # its weights_path (this module has a train of its own)
from .train import AdamW, Arguments, BETAS, ADAM_EPS, WEIGHT_DECAY

SEED = 1337
STEPS = 2000
MAX_STEPS = 20_000
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
    rng = np.random.default_rng(seed)
    params = sizes.init_params(CONFIG, rng, dtype=DTYPE)
    opt = AdamW(params, lr=LR, betas=BETAS, eps=ADAM_EPS, weight_decay=WEIGHT_DECAY)
    return params, opt, batches(rng, writer.train_ids())


def train_step(params, opt, data, step: int, steps: int) -> float:
    x, y = next(data)
    loss, grads = gpt.loss_and_grads(params, CONFIG, x, y)
    opt.lr = learning_rate(step, steps)
    opt.step(params, grads)
    return loss


def first_losses(n: int, steps: int = STEPS, seed: int = SEED) -> list[float]:
    """The losses of the first n steps of a run of `steps` (the tests
    compare them with the shipped record's), BLAS pinned as in a run."""
    with threadpool_limits(limits=THREADS, user_api="blas"):
        params, opt, data = start(seed)
        return [train_step(params, opt, data, k, steps) for k in range(n)]


def train(seed: int = SEED, steps: int = STEPS, every: int = EVERY, out: Path | None = None,
          log=print) -> dict:
    with threadpool_limits(limits=THREADS, user_api="blas"):
        return _train(seed, steps, every, out, log)


def _train(seed, steps, every, out, log) -> dict:
    machine = blas.describe()
    if machine["kernel"] != blas.CORETYPE:
        log(f"note: OpenBLAS runs its {machine['kernel']} kernel, the shipped weights were made with "
            f"{blas.CORETYPE}'s: start with `python -m toycalc train-writer` to get the same weights")
    params, opt, data = start(seed)
    n_params = sizes.count_params(CONFIG)["total"]
    log(f"writer: {n_params:,} parameters, {len(writer.vocab())} characters, seed {seed}, "
        f"{steps:,} steps of {BATCH} x {CONFIG.n_ctx} characters")
    t0 = tick = time.perf_counter()
    losses, held = [], [[0, writer.held_out_loss(params, limit=HELD_OUT_WINDOWS)]]
    for step in range(steps):
        losses.append(train_step(params, opt, data, step, steps))
        done = step + 1
        if done % HELD_OUT_EVERY == 0 or done == steps:
            held.append([done, writer.held_out_loss(params, limit=HELD_OUT_WINDOWS)])
        if done % every == 0 or done == steps:
            ms = 1000 * (time.perf_counter() - tick) / (every if done % every == 0 else done % every)
            left = (steps - done) * ms / 60000
            log(f"step {done:5d}/{steps}  loss {np.mean(losses[-every:]):.4f}  held-out {held[-1][1]:.4f} "
                f"(step {held[-1][0]})  {ms:.0f} ms/step  about {left:.0f} min left")
            tick = time.perf_counter()
    seconds = time.perf_counter() - t0
    shipped = {k: v.astype(np.float16) for k, v in params.items()}
    final = {k: v.astype(np.float64) for k, v in shipped.items()}
    log("held-out loss of the float16 weights, in float64 ...")
    loss = writer.held_out_loss(final)
    record = {
        "what": "the writer, a character-level GPT, trained by python -m toycalc train-writer",
        "data": {"file": writer.DATA.name, "source": writer.DATA_SOURCE,
                 "characters": len(writer.text()), "held_out_from": writer.split_at()},
        "vocab": writer.vocab(),
        "config": {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__},
        "parameters": n_params,
        "seed": seed, "batch": BATCH,
        "optimizer": {"name": "AdamW", "lr": LR, "min_lr": MIN_LR, "warmup": WARMUP,
                      "schedule": "linear warmup, then cosine to min_lr at the last step",
                      "betas": list(BETAS), "eps": ADAM_EPS, "weight_decay": WEIGHT_DECAY},
        "dtype": np.dtype(DTYPE).name, "stored_as": "float16",
        "steps": steps,
        "loss_curve": [float(v) for v in losses],     # every step's training loss, on its batch
        "held_out_curve": [[int(s), float(v)] for s, v in held],
        "held_out_loss": float(loss),
        "held_out_means": (f"mean loss over every character of the held-out text, cut into windows "
                           f"of {CONFIG.n_ctx}, with the float16 weights in float64; the curve's "
                           f"points use {HELD_OUT_WINDOWS} windows spread over it"),
        "weights_sha256": writer.digest(shipped),
        "seconds": round(seconds, 1),
        "made_with": machine,
    }
    log(f"held-out loss {loss:.4f} nats per character after {steps:,} steps, {seconds / 60:.1f} min")
    if out is None:
        return record
    if not loss <= writer.TARGET:
        log(f"nothing written: only weights with a held-out loss of at most {writer.TARGET} are "
            f"written ({out} is as it was); raise --steps or try another --seed")
        return record
    writer.save(shipped, record, out)
    log(f"wrote {out} and {writer.record_path(out)}")
    return record


def weights_path(out: Path | None, force: bool) -> Path:
    """Where a run will write, checked before training: train.weights_path's
    rules, on the writer's weights. (Its record beside them is not yet
    checked to be the writer's own, as nano-gpt's is.)"""
    return nano_train.weights_path(out, force, model=writer, owns_record=False)


def main(argv=None) -> int:
    parser = Arguments(prog="python -m toycalc train-writer",
                       description="Train the writer, a character-level GPT, on Shakespeare.")
    parser.add_argument("--seed", type=int, default=SEED, help=f"0 to {2 ** 32 - 1:,} (default {SEED})")
    parser.add_argument("--steps", type=int, default=STEPS,
                        help=f"steps of training, 1 to {MAX_STEPS:,} (default {STEPS:,})")
    parser.add_argument("--every", type=int, default=EVERY, help=f"steps between progress lines (default {EVERY})")
    parser.add_argument("--out", type=Path, help="the weights to write (PATH.npz); the record goes "
                        "beside them. Default: the book's, toycalc/weights/writer.npz, which needs --force")
    parser.add_argument("--force", action="store_true", help="replace the book's weights")
    args = parser.parse_args(argv)
    if not 0 <= args.seed <= 2 ** 32 - 1:
        parser.error(f"--seed {args.seed}: expected a whole number from 0 to {2 ** 32 - 1:,}")
    if not 1 <= args.steps <= MAX_STEPS:
        parser.error(f"--steps {args.steps}: expected a whole number from 1 to {MAX_STEPS:,}")
    if args.every < 1:
        parser.error(f"--every {args.every}: expected a whole number of steps, at least 1")
    try:
        out = weights_path(args.out, args.force)
        writer.vocab()
    except ValueError as e:
        parser.error(str(e))
    try:
        record = train(args.seed, args.steps, args.every, out, log=lambda s: print(s, flush=True))
    except KeyboardInterrupt:
        print(f"interrupted: nothing written ({out} is as it was)", file=sys.stderr)
        return 130
    return 0 if record["held_out_loss"] <= writer.TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
