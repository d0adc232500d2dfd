"""One training loop for every model: `python -m toycalc train MODEL`.

A model's training is a `Recipe` (its declaration's training part: the
config, the batches, AdamW's settings and schedule, what a progress check
prints and whether it ends the run, the record, and which runs may be
written); `run` is the loop: GPT-2's initialisation (sizes.init_params)
from the seed, then each step a batch, gpt.loss_and_grads in float32, the
step's learning rate, AdamW (train.AdamW), with the BLAS kernel and
threads pinned (blas.py) so that a run repeats to the bit. At the end the
weights are rounded to float16, as shipped, and only a run the recipe
accepts writes anything: the weights and their record, each to a
temporary file renamed over the old (the model's save), so no failed,
stopped or interrupted run loses the files already there.

It writes only files it owns (`weights_path`, checked before training):
an existing file at the weights or record path must be this model's own
(a keeper's results.json beside --out results.safetensors is refused, and
stays as it was), no other model's shipped files may be named, and the
book's own weights are replaced only with --force or when --out names them.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
from threadpoolctl import threadpool_limits

from . import blas, gpt, safetensors_file, sizes
from .files import not_regular
from .mirror import mirrored

MAX_SEED = 2 ** 32 - 1
SHIPPED = Path(__file__).parent.parent / "weights"     # the book's weights, every model's: toycalc/weights
DTYPE = np.float32            # training's arithmetic
STORED = np.float16           # the weights as shipped


@dataclass(frozen=True)
class Recipe:
    """How one model trains. The callables get the run's state (`Run`)."""

    model: str                          # "nano-gpt": in messages, and its record's "what" starts so
    what: str                           # how its record's "what" begins ("nano-gpt", "the writer")
    command: str                        # "python -m toycalc train"
    config: gpt.Config
    book_weights: Callable[[], Path]    # the book's weights file (its record beside it), looked up when needed
    record_path: Callable[[Path], Path]
    save: Callable[[dict, dict, Path], None]
    batches: Callable[[np.random.Generator], Iterator]
    steps: int                          # the default number of steps (at most, for a run that may stop early)
    max_steps: int
    steps_option: str                   # "--max-steps" or "--steps"
    every: int                          # steps between progress lines
    check: Callable[["TrainingRun"], tuple[str, bool]]   # at a progress step: what to print, and whether the run is done
    record: Callable[["TrainingRun"], dict]              # the record of a finished run
    accepts: Callable[[dict], str | None]        # None when the run may be written, else why not
    summary: Callable[[dict], str]               # the run's last line, from its record
    hint: str                                    # what to do when a run is not written
    lr: float = 5e-4
    betas: tuple = (0.9, 0.95)
    eps: float = 1e-8
    weight_decay: float = 0.1
    schedule: Callable[[int, int], float] | None = None    # the rate of step k of a run of n, when not constant
    threads: int = blas.THREADS
    start_note: Callable[["TrainingRun"], str] | None = None       # the run's first line
    after_step: Callable[["TrainingRun"], None] | None = None      # after every step (the writer's held-out curve)


@dataclass
class TrainingRun:
    """A run's state, as the recipe's callables see it."""

    recipe: Recipe
    seed: int
    steps: int
    every: int
    params: dict
    losses: list
    step: int = 0
    seconds: float = 0.0
    machine: dict | None = None
    notes: dict | None = None           # what a recipe keeps between its checks (the writer's held-out curve)

    def shipped(self) -> dict:
        """The weights as they would be shipped: each rounded to float16."""
        return {k: v.astype(STORED) for k, v in self.params.items()}


@mirrored("train.js")
def decays(name: str) -> bool:
    """Weight decay on the 2-D weight matrices, not on E and P, biases or LayerNorm."""
    return name.rsplit(".", 1)[-1].startswith("W_")


@mirrored("train.js", "AdamW")
class AdamW:
    """Adam with decoupled weight decay, as torch.optim.AdamW does it."""

    def __init__(self, params: dict, lr=5e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
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


def start(recipe: Recipe, seed: int):
    """The initial parameters, the optimiser and the batch stream of a run."""
    rng = np.random.default_rng(seed)
    params = sizes.init_params(recipe.config, rng, dtype=DTYPE)
    opt = AdamW(params, lr=recipe.lr, betas=recipe.betas, eps=recipe.eps, weight_decay=recipe.weight_decay)
    return params, opt, recipe.batches(rng)


def step(recipe: Recipe, params, opt, data, k: int, steps: int) -> float:
    """Step k (from 0) of a run of `steps`: a batch, its loss and gradients, AdamW."""
    x, y = next(data)
    loss, grads = gpt.loss_and_grads(params, recipe.config, x, y)
    if recipe.schedule is not None:
        opt.lr = recipe.schedule(k, steps)
    opt.step(params, grads)
    return loss


def first_losses(recipe: Recipe, n: int, steps: int, seed: int) -> list[float]:
    """The losses of the first n steps of a run (the tests compare them with the shipped record's)."""
    with threadpool_limits(limits=recipe.threads, user_api="blas"):
        params, opt, data = start(recipe, seed)
        return [step(recipe, params, opt, data, k, steps) for k in range(n)]


class NotWritten(Exception):
    """A run's weights that could not be written where asked: the one line
    to print, which says where they are kept."""


def run(recipe: Recipe, seed: int, steps: int, every: int, out: Path | None = None, log=print) -> dict:
    """Train; return the record, and write the weights and the record to
    out (if given) when the recipe accepts the run."""
    with threadpool_limits(limits=recipe.threads, user_api="blas"):
        return _run(recipe, seed, steps, every, out, log)


def _run(recipe, seed, steps, every, out, log) -> dict:
    machine = blas.describe()
    if machine["kernel"] != blas.CORETYPE:
        log(f"note: OpenBLAS runs its {machine['kernel']} kernel, the shipped weights were made with "
            f"{blas.CORETYPE}'s: start training with `{recipe.command}` to get the same weights")
    params, opt, data = start(recipe, seed)
    r = TrainingRun(recipe, seed, steps, every, params, [], machine=machine, notes={})
    if recipe.start_note:
        log(recipe.start_note(r))
    t0 = tick = time.perf_counter()
    done_at = 0
    while r.step < steps:
        r.losses.append(step(recipe, params, opt, data, r.step, steps))
        r.step += 1
        if recipe.after_step:
            recipe.after_step(r)
        if r.step % every == 0 or r.step == steps:
            ms = 1000 * (time.perf_counter() - tick) / (r.step - done_at)
            line, finished = recipe.check(r)
            left = "" if finished or r.step == steps else f", at most {(steps - r.step) * ms / 60000:.0f} min left"
            log(f"{line}  {ms:.1f} ms/step{left}")
            tick, done_at = time.perf_counter(), r.step
            if finished:
                break
    r.seconds = time.perf_counter() - t0
    record = recipe.record(r)
    log(recipe.summary(record))
    if out is None:
        return record
    why = recipe.accepts(record)
    if why:
        log(f"nothing written: {why} ({out} is as it was); {recipe.hint}")
        return record
    shipped = r.shipped()
    try:
        recipe.save(shipped, record, out)
    except OSError as e:
        raise NotWritten(f"{out}: not written ({e.strerror or e}); {kept(recipe, shipped, record, out)}") from None
    log(f"wrote {out} and {recipe.record_path(out)}")
    return record


def kept(recipe: Recipe, params: dict, record: dict, out: Path) -> str:
    """Save a finished run's weights under a named temporary folder, so a
    failed write loses no run; what to tell the keeper."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="toycalc-train-"))
        recipe.save(params, record, folder / out.name)
    except (OSError, ValueError) as e:
        return f"nor could the weights be kept in a temporary folder ({e}): the run is lost"
    return (f"the weights are kept in {folder / out.name} and their record in "
            f"{recipe.record_path(folder / out.name)}; {out} is as it was")


# ---------------------------------------------------------------- where a run writes

def weights_path(recipe: Recipe, out: Path | None, force: bool) -> Path:
    """Where a run will write its weights (the record goes beside them),
    checked before any training: a .safetensors path in a folder that
    exists and can be written; in the book's own folder of weights
    (SHIPPED), where every model's shipped files are, only this model's
    own; the book's own weights only when --out names them or with
    --force; an existing file at either path this model's own.
    Raises ValueError with the one line to print."""
    if out is None:
        out = recipe.book_weights()
        if out.exists() and not force:
            raise ValueError(f"{out} holds the book's weights: replace them with --force "
                             f"(or --out naming them), or write elsewhere with --out PATH.safetensors")
    if out.is_dir():
        raise ValueError(f"--out {out}: is a folder; expected the path of the weights, "
                         f"such as {out / recipe.book_weights().name}")
    if out.suffix != ".safetensors":
        raise ValueError(f"--out {out}: expected the path of the weights, ending in .safetensors "
                         f"(their record goes beside them, as {out.with_suffix('.json').name})")
    record = recipe.record_path(out)
    own = out.resolve() == recipe.book_weights().resolve()    # the model's own path, whatever it holds now
    if out.resolve().parent == SHIPPED.resolve() and not own:
        raise ValueError(f"--out {out}: names a file of the book's shipped weights ({SHIPPED.name}/), which "
                         f"are not {recipe.model}'s own ({recipe.book_weights().name}); write elsewhere")
    folder = out.parent
    if not folder.exists():
        raise ValueError(f"--out {out}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise ValueError(f"--out {out}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot write in the folder {folder}")
    for path in (out, record):
        kind = not_regular(path)
        if kind:
            raise ValueError(f"--out {out}: {path} is {kind}; expected a regular file or none")
    if record.exists() and not is_a_record(recipe, record):
        raise ValueError(f"--out {out}: {record} is there and is not {recipe.model}'s record, which a run "
                         f"writes beside its weights; move it, or name other weights with --out")
    if out.exists() and not own and not are_weights(recipe, out):
        raise ValueError(f"--out {out}: the file is there and does not hold {recipe.model}'s weights; "
                         f"move it, or name other weights with --out")
    return out


def is_a_record(recipe: Recipe, path: Path) -> bool:
    """Whether path holds a record of this model (any run's, even one the
    book would refuse now): a JSON object whose "what" names the model.
    Anything else is a keeper's, and a run does not write over it."""
    try:
        if path.stat().st_size > 1_000_000:
            return False
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and str(record.get("what", "")).startswith(recipe.what)


def are_weights(recipe: Recipe, path: Path) -> bool:
    """Whether path holds weights of this model: a weights file its loader reads."""
    try:
        safetensors_file.read(path, sizes.param_shapes(recipe.config), ValueError, recipe.model, recipe.command)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- the command line

class Arguments(argparse.ArgumentParser):
    """argparse, with each refusal in one line (no usage block above it)."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


def main(recipe: Recipe, argv=None, minutes: str = "") -> int:
    """`python -m toycalc train MODEL [options]`: train the recipe's model."""
    parser = Arguments(prog=recipe.command, description=f"Train {recipe.model}.{minutes}")
    parser.add_argument("--seed", type=int, default=1337, help=f"0 to {MAX_SEED:,} (default 1337)")
    parser.add_argument(recipe.steps_option, dest="steps", type=int, default=recipe.steps,
                        help=f"steps of training, 1 to {recipe.max_steps:,} (default {recipe.steps:,})")
    parser.add_argument("--every", type=int, default=recipe.every,
                        help=f"steps between progress lines (default {recipe.every})")
    parser.add_argument("--out", type=Path, help="the weights to write (PATH.safetensors); the record goes "
                        f"beside them (PATH.json). Default: the book's, {recipe.book_weights().name}, which needs --force")
    parser.add_argument("--force", action="store_true", help="replace the book's weights")
    args = parser.parse_args(argv)
    if not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed {args.seed}: expected a whole number from 0 to {MAX_SEED:,}")
    if not 1 <= args.steps <= recipe.max_steps:
        parser.error(f"{recipe.steps_option} {args.steps}: expected a whole number from 1 to "
                     f"{recipe.max_steps:,} (the record keeps every step's loss)")
    if args.every < 1:
        parser.error(f"--every {args.every}: expected a whole number of steps, at least 1")
    try:
        out = weights_path(recipe, args.out, args.force)
    except ValueError as e:
        parser.error(str(e))
    try:
        record = run(recipe, args.seed, args.steps, args.every, out, log=lambda s: print(s, flush=True))
    except KeyboardInterrupt:
        print(f"interrupted: nothing written ({out} is as it was)", file=sys.stderr)
        return 130
    except NotWritten as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0 if recipe.accepts(record) is None else 1
