"""Train nano-gpt to sort six letters, with toycalc's own numpy GPT.

    python -m toycalc train [--seed 1337] [--max-steps 5000] [--every 100]
                            [--out PATH.npz | --force]

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
all 729 writes anything: the weights to --out (.npz, float16) and beside
them their record (.json, with the loss of every step: the chapter draws
it), each to a temporary file renamed over the old one (nanogpt.save), so
no failed, stopped or interrupted run loses the weights already there.
It writes only files it owns: a file where the record would go that is
not a nano-gpt record (a keeper's results.json beside results.npz) is
refused before training; a write that fails after the run (a full disk)
is one line, and the weights are kept in a named temporary folder.
The book's own, weights/nanogpt.npz, are replaced only when --out names
them or with --force. Every argument is checked before training starts,
and a bad one is refused in one line.

Why float16: the reader's browser downloads the weights to run the model,
and 85,728 float32 numbers do not compress (their low bits are noise); in
half precision they weigh half as much. The book computes with exactly the
stored numbers (in float64), and so does the browser (in float32), so
nothing is lost between the two: the rounding happens once, here.

What it leaves out: dropout, a learning-rate schedule, gradient clipping.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from threadpoolctl import threadpool_limits

from . import blas, gpt, nanogpt, sizes
from .files import not_regular
from .mirror import mirrored
from .nanogpt import CONFIG
from .nanogpt_record import MAX_SEED, MAX_STEPS   # the most a run may take: the record keeps every step's loss

SEED = 1337
BATCH = 64
LR = 5e-4
BETAS = (0.9, 0.95)
ADAM_EPS = 1e-8
WEIGHT_DECAY = 0.1
EVERY = 100
DTYPE = np.float32


@mirrored("train.js")
def decays(name: str) -> bool:
    """Weight decay on the 2-D weight matrices, not on E and P, biases or LayerNorm."""
    return name.rsplit(".", 1)[-1].startswith("W_")


@mirrored("train.js", "AdamW")
class AdamW:
    """Adam with decoupled weight decay, as torch.optim.AdamW does it."""

    def __init__(self, params: dict, lr=LR, betas=BETAS, eps=ADAM_EPS, weight_decay=WEIGHT_DECAY):
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict, grads: dict) -> None:
        """Update params in place."""
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for name, p in params.items():
            g, m, v = grads[name], self.m[name], self.v[name]
            if self.wd and decays(name):
                p *= 1 - self.lr * self.wd
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * (g * g)
            p -= (self.lr / c1) * m / (np.sqrt(v / c2) + self.eps)


def batches(rng: np.random.Generator, batch: int = BATCH):
    """An endless stream of (ids, targets), each (batch, 11)."""
    while True:
        yield nanogpt.examples(rng.integers(0, len(nanogpt.VOCAB), (batch, nanogpt.LENGTH)))


def start(seed: int = SEED, dtype=DTYPE):
    """The initial parameters, the optimiser and the batch stream of a run."""
    rng = np.random.default_rng(seed)
    params = sizes.init_params(CONFIG, rng, dtype=dtype)
    return params, AdamW(params), batches(rng)


def train_step(params, opt, data) -> float:
    ids, targets = next(data)
    loss, grads = gpt.loss_and_grads(params, CONFIG, ids, targets)
    opt.step(params, grads)
    return loss


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


def train(seed: int = SEED, max_steps: int = MAX_STEPS, every: int = EVERY,
          out: Path | None = None, log=print) -> dict:
    """Train until greedy decoding sorts all 729 inputs; return the record.
    The weights and the record are written to out (if given) only when all
    729 are sorted. The BLAS threads are pinned meanwhile (see blas.py)."""
    with threadpool_limits(limits=blas.THREADS, user_api="blas"):
        return _train(seed, max_steps, every, out, log)


def _train(seed, max_steps, every, out, log) -> dict:
    machine = blas.describe()
    if machine["kernel"] != blas.CORETYPE:
        log(f"note: OpenBLAS runs its {machine['kernel']} kernel, the shipped weights were made with "
            f"{blas.CORETYPE}'s: start training with `python -m toycalc train` to get the same weights")
    params, opt, data = start(seed)
    log(f"nano-gpt: {sizes.count_params(CONFIG)['total']:,} parameters, seed {seed}, batch {BATCH}, "
        f"AdamW lr {LR} betas {BETAS} weight decay {WEIGHT_DECAY}")
    t0 = tick = time.perf_counter()
    losses, correct, step, done = [], 0, 0, 0
    while step < max_steps:
        losses.append(train_step(params, opt, data))
        step += 1
        if step % every == 0 or step == max_steps:
            ms = 1000 * (time.perf_counter() - tick) / (step - done)
            # checked on the weights as they would be shipped, in float32; a full
            # score is confirmed in float64, as the book computes
            shipped = stored(params)
            correct = nanogpt.accuracy({k: v.astype(DTYPE) for k, v in shipped.items()})
            if correct == 729:
                correct = nanogpt.accuracy(as64(shipped))
            log(f"step {step:5d}  loss {np.mean(losses[-every:]):.6f}  sorted {correct:3d}/729  "
                f"{ms:.1f} ms/step")
            tick, done = time.perf_counter(), step
            if correct == 729:
                break
    seconds = time.perf_counter() - t0
    shipped = stored(params)
    final = as64(shipped)
    record = {
        "what": "nano-gpt, the letter sorter, trained by python -m toycalc train",
        "config": {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__},
        "parameters": sizes.count_params(CONFIG)["total"],
        "seed": seed, "batch": BATCH, "optimizer": {"name": "AdamW", "lr": LR, "betas": list(BETAS),
                                                     "eps": ADAM_EPS, "weight_decay": WEIGHT_DECAY},
        "dtype": np.dtype(DTYPE).name,
        "stored_as": np.dtype(STORED).name,
        "steps": step,
        "final_loss": round(float(np.mean(losses[-every:])), 8),
        "final_loss_means": f"mean training loss of the last {min(every, step)} steps",
        "loss_on_729": round(eval_loss(final), 8),
        # the training loss of each step, on its batch: the chapter's loss curve
        "loss_curve": [round(float(loss), 8) for loss in losses],
        "accuracy_on_729": nanogpt.accuracy(final),
        "seconds": round(seconds, 1),
        "made_with": machine,
    }
    log(f"{record['accuracy_on_729']}/729 sorted after {step} step{'' if step == 1 else 's'}, {seconds:.0f} s")
    if out is None:
        return record
    if record["accuracy_on_729"] < 729:
        log(f"nothing written: only weights that sort all 729 inputs are written "
            f"({out} is as it was); raise --max-steps (at most {MAX_STEPS:,}) or try another --seed")
        return record
    try:
        nanogpt.save(shipped, record, out)
    except OSError as e:
        raise NotWritten(f"{out}: not written ({e.strerror or e}); {kept(shipped, record, out)}") from None
    log(f"wrote {out} and {nanogpt.record_path(out)}")
    return record


class NotWritten(Exception):
    """A run's weights that could not be written where asked: the one line
    to print, which says where they are kept."""


def kept(params: dict, record: dict, out: Path) -> str:
    """Save a finished run's weights under a named temporary folder, so a
    failed write loses no run; what to tell the keeper."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="toycalc-train-"))
        nanogpt.save(params, record, folder / out.name)
    except (OSError, ValueError) as e:
        return f"nor could the weights be kept in a temporary folder ({e}): the run is lost"
    return (f"the weights are kept in {folder / out.name} and their record in "
            f"{nanogpt.record_path(folder / out.name)}; {out} is as it was")


class Arguments(argparse.ArgumentParser):
    """argparse, with each refusal in one line (no usage block above it)."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


def weights_path(out: Path | None, force: bool, model=nanogpt, owns_record=True) -> Path:
    """Where a run will write its weights (the record goes beside them),
    checked before any training: a weights path (.npz) in a folder that
    exists and can be written; the book's own weights only when --out names
    them or with --force. `model` is the module whose weights these are
    (its DEFAULT_NPZ and record_path: nanogpt, or the writer's); with
    owns_record, a file where the record would go must be a nano-gpt record.
    Raises ValueError with the one line to print."""
    if out is None:
        out = model.DEFAULT_NPZ
        if out.exists() and not force:
            raise ValueError(f"{out} holds the book's weights: replace them with --force "
                             f"(or --out naming them), or write elsewhere with --out PATH.npz")
    if out.is_dir():
        raise ValueError(f"--out {out}: is a folder; expected the path of the weights, "
                         f"such as {out / model.DEFAULT_NPZ.name}")
    if out.suffix != ".npz":
        raise ValueError(f"--out {out}: expected the path of the weights, ending in .npz "
                         f"(their record goes beside them, as {out.with_suffix('.json').name})")
    folder = out.parent
    if not folder.exists():
        raise ValueError(f"--out {out}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise ValueError(f"--out {out}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot write in the folder {folder}")
    for path in (out, model.record_path(out)):
        kind = not_regular(path)
        if kind:
            raise ValueError(f"--out {out}: {path} is {kind}; expected a regular file or none")
    record = model.record_path(out)
    if owns_record and record.exists() and not is_a_record(record):
        raise ValueError(f"--out {out}: {record} is there and is not a nano-gpt record, which a run "
                         f"writes beside its weights; move it, or name other weights with --out")
    return out


def is_a_record(path: Path) -> bool:
    """Whether path holds a nano-gpt record (any run's, even one the book
    would refuse now): a JSON object whose "what" says nano-gpt. Anything
    else beside the weights is a keeper's, and train does not write over it."""
    try:
        if path.stat().st_size > nanogpt.MAX_RECORD_BYTES:
            return False
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and str(record.get("what", "")).startswith("nano-gpt")


def main(argv=None) -> int:
    parser = Arguments(prog="python -m toycalc train", description="Train nano-gpt to sort six letters.")
    parser.add_argument("--seed", type=int, default=SEED, help=f"0 to {MAX_SEED:,} (default {SEED})")
    parser.add_argument("--max-steps", type=int, default=MAX_STEPS,
                        help=f"stop after this many steps, 1 to {MAX_STEPS:,} (default {MAX_STEPS:,})")
    parser.add_argument("--every", type=int, default=EVERY,
                        help=f"steps between progress lines and checks on all 729 inputs (default {EVERY})")
    parser.add_argument("--out", type=Path, help="the weights to write (PATH.npz); the record goes "
                        "beside them (PATH.json). Default: the book's, toycalc/weights/nanogpt.npz, "
                        "which needs --force")
    parser.add_argument("--force", action="store_true", help="replace the book's weights")
    args = parser.parse_args(argv)
    if not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed {args.seed}: expected a whole number from 0 to {MAX_SEED:,}")
    if not 1 <= args.max_steps <= MAX_STEPS:
        parser.error(f"--max-steps {args.max_steps}: expected a whole number from 1 to {MAX_STEPS:,} "
                     "(the record keeps every step's loss)")
    if args.every < 1:
        parser.error(f"--every {args.every}: expected a whole number of steps, at least 1")
    try:
        out = weights_path(args.out, args.force)
    except ValueError as e:
        parser.error(str(e))
    try:
        record = train(args.seed, args.max_steps, args.every, out, log=lambda s: print(s, flush=True))
    except KeyboardInterrupt:
        print(f"interrupted: nothing written ({out} is as it was)", file=sys.stderr)
        return 130
    except NotWritten as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0 if record["accuracy_on_729"] == 729 else 1


if __name__ == "__main__":
    sys.exit(main())
