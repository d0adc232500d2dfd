"""Benchmark (not a test): how fast toycalc trains nano-gpt.

Prints the seconds per training step (numpy, float32, batch 64, the
config of toycalc.nanogpt) and the time until greedy decoding sorts all
729 inputs. Where PyTorch is installed, the same config, batch and
optimiser are timed in PyTorch on the CPU, and the ratio is printed; where
it is not, the script says so (it never installs it).

    .venv/bin/python benchmarks/train_speed.py [--steps 50] [--full]

--full also times a whole training run to 729/729 (about as long as
python -m toycalc train; nothing is written).
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toycalc.model import gpt, nanogpt, train  # noqa: E402
from toycalc.model.nanogpt import CONFIG  # noqa: E402


def numpy_seconds_per_step(steps: int) -> float:
    params, opt, data = train.start()
    for _ in range(3):                      # warm up
        train.train_step(params, opt, data)
    t0 = time.perf_counter()
    for _ in range(steps):
        train.train_step(params, opt, data)
    return (time.perf_counter() - t0) / steps


def torch_seconds_per_step(steps: int) -> float:
    """The same model in PyTorch (CPU, float32), minGPT-style, AdamW."""
    import numpy as np
    import torch
    from torch import nn
    from torch.nn import functional as F

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

    model = GPT()
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith(("wte", "wpe"))]
    other = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith(("wte", "wpe")))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": train.WEIGHT_DECAY},
                             {"params": other, "weight_decay": 0.0}], lr=train.LR, betas=train.BETAS)
    rng = np.random.default_rng(train.SEED)
    data = train.batches(rng)

    def step():
        ids, targets = next(data)
        logits = model(torch.from_numpy(ids))
        loss = F.cross_entropy(logits.view(-1, cfg.vocab_size), torch.from_numpy(targets).view(-1),
                               ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t0) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--full", action="store_true", help="also time a whole run to 729/729")
    args = parser.parse_args()
    print(f"nano-gpt {gpt.count_params(CONFIG)['total']:,} parameters, batch {train.BATCH}, "
          f"{os.cpu_count()} CPUs")
    ours = numpy_seconds_per_step(args.steps)
    print(f"numpy (toycalc.model.gpt, float32): {ours * 1000:.1f} ms per step")
    if args.full:
        t0 = time.perf_counter()
        record = train.train(out=None, log=lambda s: None)
        print(f"numpy: {record['accuracy_on_729']}/729 sorted after {record['steps']} steps, "
              f"{time.perf_counter() - t0:.1f} s (progress checks included)")
    else:
        print("(add --full to time a whole run to 729/729)")
    if importlib.util.find_spec("torch") is None:
        print("PyTorch is not installed here: no side-by-side comparison "
              "(this script does not install it).")
        return
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
    theirs = torch_seconds_per_step(args.steps)
    print(f"PyTorch {torch.__version__} (CPU, float32): {theirs * 1000:.1f} ms per step")
    print(f"numpy / PyTorch: {ours / theirs:.2f}x the time per step")


if __name__ == "__main__":
    main()
