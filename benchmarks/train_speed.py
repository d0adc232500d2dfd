"""Benchmark (not a test): how fast toycalc trains nano-gpt, against PyTorch.

numpy (toycalc.model.gpt, float32) and PyTorch (the same config, minGPT's
model, float32, on the CPU) take training steps in turn in one loop, on
the same batches, with the same number of threads (BLAS threads for
numpy, torch.set_num_threads for PyTorch), and which goes first alternates
from step to step, so a change of load on the machine hits both. It prints
the median time per step of each and the median of the per-step ratios,
with the goal beside it (numpy <= 1.5 x PyTorch).

--full goes on, still in turn, until greedy decoding sorts all 729 inputs
on each side (checked every 100 steps, as `python -m toycalc train` does;
the checks count in each side's time) and prints the steps and seconds of
each. Nothing is written.

PyTorch is an optional extra (`.venv/bin/pip install --require-hashes -r
requirements-bench.lock`): without it the script times numpy alone and says so. It never installs anything.

    .venv/bin/python benchmarks/train_speed.py [--steps 200] [--threads 2] [--full]
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toycalc.model import blas  # noqa: E402

blas.pin_kernel()   # the kernel training uses, before numpy loads

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from toycalc.model import gpt, nanogpt, sizes, train  # noqa: E402
from toycalc.model.nanogpt import CONFIG  # noqa: E402

GOAL = 1.5
EVERY = train.EVERY


class Numpy:
    name = "numpy"

    def __init__(self):
        self.params, self.opt, self.data = train.start()

    def step(self):
        train.train_step(self.params, self.opt, self.data)

    def accuracy(self) -> int:
        return nanogpt.accuracy(self.params)


class Torch:
    """minGPT's model for nano-gpt's config, with the same AdamW."""

    def __init__(self):
        import torch
        from torch import nn
        from torch.nn import functional as F
        self.torch, self.F = torch, F
        cfg = CONFIG
        torch.manual_seed(train.SEED)

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln_1, self.ln_2 = nn.LayerNorm(cfg.d), nn.LayerNorm(cfg.d)
                self.c_attn, self.c_proj = nn.Linear(cfg.d, 3 * cfg.d), nn.Linear(cfg.d, cfg.d)
                self.fc, self.proj = nn.Linear(cfg.d, cfg.mlp_width), nn.Linear(cfg.mlp_width, cfg.d)
                self.register_buffer("mask", torch.tril(torch.ones(cfg.n_ctx, cfg.n_ctx)).bool())

            def forward(self, x):
                B, T, C = x.shape
                H = cfg.n_heads
                q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
                q, k, v = (a.view(B, T, H, C // H).transpose(1, 2) for a in (q, k, v))
                att = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)
                att = att.masked_fill(~self.mask[:T, :T], float("-inf")).softmax(-1)
                y = (att @ v).transpose(1, 2).reshape(B, T, C)
                x = x + self.c_proj(y)
                return x + self.proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))

        class GPT(nn.Module):
            def __init__(self):
                super().__init__()
                self.wte, self.wpe = nn.Embedding(cfg.vocab_size, cfg.d), nn.Embedding(cfg.n_ctx, cfg.d)
                self.blocks = nn.ModuleList(Block() for _ in range(cfg.n_blocks))
                self.ln_f = nn.LayerNorm(cfg.d)
                self.head = nn.Linear(cfg.d, cfg.vocab_size, bias=False)

            def forward(self, ids):
                x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
                for b in self.blocks:
                    x = b(x)
                return self.head(self.ln_f(x))

        self.model = GPT()
        named = list(self.model.named_parameters())
        decay = [p for n, p in named if p.dim() == 2 and not n.startswith(("wte", "wpe"))]
        other = [p for n, p in named if not (p.dim() == 2 and not n.startswith(("wte", "wpe")))]
        self.opt = torch.optim.AdamW([{"params": decay, "weight_decay": train.WEIGHT_DECAY},
                                      {"params": other, "weight_decay": 0.0}],
                                     lr=train.LR, betas=train.BETAS, eps=train.ADAM_EPS)
        self.data = train.batches(np.random.default_rng(train.SEED))   # the same batches as numpy's
        self.name = f"PyTorch {torch.__version__}"

    def step(self):
        ids, targets = next(self.data)
        logits = self.model(self.torch.from_numpy(ids))
        loss = self.F.cross_entropy(logits.view(-1, CONFIG.vocab_size),
                                    self.torch.from_numpy(targets).view(-1), ignore_index=-1)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()

    def accuracy(self) -> int:
        """Greedy decoding of all 729 inputs, as nanogpt.accuracy does it."""
        inputs = nanogpt.all_inputs()
        ids = self.torch.from_numpy(inputs)
        with self.torch.no_grad():
            for _ in range(nanogpt.LENGTH):
                ids = self.torch.cat([ids, self.model(ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
        return int((ids[:, nanogpt.LENGTH:].numpy() == np.sort(inputs, axis=1)).all(axis=1).sum())


def timed(f) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def per_step(sides, steps: int) -> dict:
    """Seconds of each step of each side, taken in turn, the first alternating."""
    for side in sides:                     # warm up
        for _ in range(3):
            side.step()
    times = {side.name: [] for side in sides}
    for i in range(steps):
        for side in (sides if i % 2 == 0 else sides[::-1]):
            times[side.name].append(timed(side.step))
    return times


def to_729(sides, max_steps: int) -> dict:
    """(steps, seconds) until each side sorts all 729, in turn."""
    result, spent, done = {}, {side.name: 0.0 for side in sides}, set()
    for step in range(1, max_steps + 1):
        for side in (sides if step % 2 == 0 else sides[::-1]):
            if side.name in done:
                continue
            spent[side.name] += timed(side.step)
            if step % EVERY == 0:
                t0 = time.perf_counter()
                correct = side.accuracy()
                spent[side.name] += time.perf_counter() - t0
                if correct == 729:
                    done.add(side.name)
                    result[side.name] = (step, spent[side.name])
        if len(done) == len(sides):
            break
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=blas.THREADS,
                        help=f"threads for both sides (default {blas.THREADS}, as training uses)")
    parser.add_argument("--full", action="store_true", help="also train both to 729/729, in turn")
    args = parser.parse_args()
    with threadpool_limits(limits=args.threads, user_api="blas"):
        sides = [Numpy()]
        if importlib.util.find_spec("torch") is None:
            print("PyTorch is not installed here (.venv/bin/pip install --require-hashes -r requirements-bench.lock): "
                  "numpy alone, no ratio.")
        else:
            import torch
            torch.set_num_threads(args.threads)
            sides.append(Torch())
        machine = blas.describe()
        print(f"nano-gpt {sizes.count_params(CONFIG)['total']:,} parameters, batch {train.BATCH}, float32, "
              f"{args.threads} threads each ({machine['blas']} {machine['kernel']} for numpy), "
              f"{args.steps} steps each, in turn")
        times = per_step(sides, args.steps)
        for name, seconds in times.items():
            print(f"  {name + ':':22s} {statistics.median(seconds) * 1000:7.2f} ms per step (median)")
        if len(sides) == 2:
            ratios = [a / b for a, b in zip(*times.values())]
            print(f"  numpy / PyTorch:       {statistics.median(ratios):7.2f} x per step "
                  f"(median of the per-step ratios)   goal <= {GOAL} x")
        if args.full:
            for side in sides:            # start again from step 0
                side.__init__()
            result = to_729(sides, train.MAX_STEPS)
            for side in sides:
                steps, seconds = result.get(side.name, (None, None))
                print(f"  {side.name + ':':22s} " + (f"729/729 after {steps} steps, {seconds:.1f} s"
                      if steps else f"not 729/729 after {train.MAX_STEPS} steps"))
        else:
            print("  (--full also trains both to 729/729, in turn)")


if __name__ == "__main__":
    main()
