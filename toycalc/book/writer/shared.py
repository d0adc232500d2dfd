"""What every page of the writer's chapter shares: its part (writer_table,
writer_number, writer_figure), the run of the loaded weights that the
pages read (the held-out line's trace, the samples), and the sampling
the browser repeats (docs/javascripts/writer_pass.js): mulberry32, top-k, the
draw, over a window of the last n_ctx characters."""
from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ...model import gpt, safetensors_file, sizes, writer as model
from ..part import Part

part = Part("writer_", kinds=("table", "number", "figure"))

SAMPLE_SEED = 51                    # every sample of the chapter
TEMPERATURES = (0.5, 0.8, 1.0)      # the chapter's samples, in this order
SAMPLE_LENGTH = 200                 # characters a sample writes
LIVE_TEMPERATURE = 0.8              # the live page's defaults: its first Write is the build's sample
LIVE_TOP_K = 0                      # 0: every character may be drawn
LINE_LENGTH = (24, 32)              # the held-out line the chapter follows: this many characters
PREVIOUS_SHARE = 0.5                # "most weight": more than half
# the head "Inside the writer" follows by name (it reads the character just
# before): (block, head), from 1; the live page's chooser starts on it
FOLLOWED_HEAD = (1, 2)



# ---------------------------------------------------------------- sampling (writer_pass.js)

def published_kib(run) -> str:
    """What the browser fetches of the weights, in KiB: the weights file
    as published (WriterRun.published), as the live page says it."""
    return f"{(len(run.published) + 1023) // 1024:,}"


def mulberry32(seed: int):
    """gpt.js's generator (rng): uniforms in [0, 1) from a 32-bit seed."""
    a = seed & 0xFFFFFFFF

    def imul(x, y):
        return (x * y) & 0xFFFFFFFF

    def draw() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = imul(a ^ (a >> 15), 1 | a)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & 0xFFFFFFFF) ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return draw


def top_k(p, k: int) -> list[float]:
    """p kept on its k largest entries (the earlier one first on a tie),
    shared out again so they sum to 1; k = 0 (or >= V) keeps p whole.
    The sum runs in index order, as in the browser, to the same bits."""
    p = [float(v) for v in p]
    if not 0 < k < len(p):
        return p
    keep = sorted(sorted(range(len(p)), key=lambda i: (-p[i], i))[:k])
    total = 0.0
    for i in keep:
        total += p[i]
    kept = set(keep)
    return [p[i] / total if i in kept else 0.0 for i in range(len(p))]


def sample(q, r: float) -> int:
    """The id whose share of [0, 1) holds r (gpt.js's sample)."""
    cum, last = 0.0, 0
    for i, v in enumerate(q):
        if v > 0:
            last = i
        cum += v
        if r < cum:
            return i
    return last


def write(params, ids, n: int, temperature: float, k: int, seed: int,
          cfg: gpt.Config = model.CONFIG) -> tuple[list[int], list[list[float]]]:
    """n characters after ids: each drawn from p (at temperature, cut to
    top-k) of the last n_ctx characters; returns the new ids and the
    distribution each was drawn from. The passes run in float32, as the
    browser's (writer_pass.js, on kernels.wasm), in half the time
    of float64 (the shipped weights are float16 values, exact in both)."""
    params = {name: np.asarray(value, dtype=np.float32) for name, value in params.items()}
    draw, ids, out, dists = mulberry32(seed), list(ids), [], []
    for _ in range(n):
        p = gpt.forward(params, cfg, np.array(ids[-cfg.n_ctx:]), temperature=temperature)["p"][-1]
        q = top_k(p, k)
        nxt = sample(q, draw())
        ids.append(nxt)
        out.append(nxt)
        dists.append(q)
    return out, dists


# ---------------------------------------------------------------- the run

def lines_of(text: str, low: int, high: int) -> list[str]:
    """The lines of text with low to high characters and three spaces at least (speech, not names)."""
    return [s for s in text.split("\n") if low <= len(s) <= high and s.count(" ") >= 3]


def numpy_sampler(params, cfg, vocab, ids, runs) -> list[list[int]]:
    """Each run (n, temperature, k, seed): the n ids `write` draws after ids."""
    return [write(params, ids, n, temperature, k, seed, cfg)[0] for n, temperature, k, seed in runs]


class WriterRun:
    """The writer's weights and what the chapter computes from them, each
    once. sampler(params, cfg, vocab, ids, runs) writes the samples: numpy's
    write by default; the build's is the browser's own code, writer_pass.js in
    Node (toycalc/site/writer_sampler.py)."""

    def __init__(self, loaded: model.Writer, sampler=numpy_sampler):
        self.sampler = sampler
        self.model = loaded
        self.params = loaded.params
        self.cfg = loaded.cfg
        self.vocab = loaded.vocab
        self.record = loaded.record

    @cached_property
    def published(self) -> bytes:
        """The weights file the browser fetches (safetensors_file.published)."""
        return safetensors_file.published(self.params, sizes.param_shapes(self.cfg))

    @cached_property
    def lines(self) -> list[str]:
        """Held-out lines the chapter and the parity tests use, in text order."""
        return lines_of(model.held_out_text(), *LINE_LENGTH)

    @cached_property
    def line(self) -> str:
        return self.lines[0]

    @cached_property
    def ids(self) -> list[int]:
        return model.encode(self.line)

    @cached_property
    def trace(self) -> dict:
        return gpt.forward(self.params, self.cfg, np.array(self.ids))

    @cached_property
    def counts(self) -> dict[str, int]:
        ids = model.all_ids()
        n = np.bincount(ids, minlength=len(self.vocab))
        return {ch: int(n[i]) for i, ch in enumerate(self.vocab)}

    @cached_property
    def unigram_loss(self) -> float:
        """The held-out loss, in nats per character, of the model that
        ignores context: each character's share of the training text."""
        n = np.bincount(model.train_ids(), minlength=len(self.vocab)).astype(np.float64)
        p = n / n.sum()
        held = model.held_out_ids()
        return float(-np.log(p[held]).mean())

    @cached_property
    def prompt(self) -> str:
        """What the samples continue: the held-out line and its line break."""
        return self.line + "\n"

    def sample_text(self, temperature: float, k: int = 0, seed: int = SAMPLE_SEED,
                    n: int = SAMPLE_LENGTH) -> str:
        """What the writer writes after the prompt; the chapter's samples
        (TEMPERATURES, the seed, top-k 0) are written together, once."""
        cache = self.__dict__.setdefault("_samples", {})
        chapter = [(SAMPLE_LENGTH, t, 0, SAMPLE_SEED) for t in TEMPERATURES]
        key = (n, temperature, k, seed)
        if key not in cache:
            runs = [key] + [run for run in chapter if run not in cache and run != key]
            for run, ids in zip(runs, self.sampler(self.params, self.cfg, self.vocab,
                                                   model.encode(self.prompt), runs)):
                cache[run] = model.decode(ids)
        return cache[key]

    def attention(self, block: int, head: int) -> np.ndarray:
        """Block `block`'s head `head` (both from 1) on the line: (T, T) weights."""
        return self.trace["blocks"][block - 1]["weights"][head - 1]

    @cached_property
    def embedding_2d(self) -> np.ndarray:
        """E's rows projected on its two principal directions (centred), (V, 2),
        each direction's sign fixed so that its largest coordinate is positive."""
        E = self.params["E"] - self.params["E"].mean(axis=0)
        _, _, vt = np.linalg.svd(E, full_matrices=False)
        xy = E @ vt[:2].T
        for c in range(2):
            if xy[np.argmax(np.abs(xy[:, c])), c] < 0:
                xy[:, c] = -xy[:, c]
        return xy


def read_out(run: WriterRun, y) -> np.ndarray:
    """p as the model would give it if it stopped here: the final LayerNorm
    and W_U applied to a block's output y (a row), then softmax."""
    f, _ = gpt.norm(run.cfg, y, run.params.get("gamma_f"), run.params.get("beta_f"))
    return gpt.softmax(gpt.matmul(f, gpt.unembedding(run.params, run.cfg)))


def stage_row(run: WriterRun, at) -> np.ndarray:
    """The line's last row at a stage: at="x", the input of block 1, or a
    block (from 1, or "last"), its output y."""
    t, last = run.trace, len(run.ids) - 1
    if at == "x":
        return t["X"][last]
    if at == "last":
        at = run.cfg.n_blocks
    if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= run.cfg.n_blocks:
        raise ValueError(f"at = {at!r}: expected \"x\", a block (1 to {run.cfg.n_blocks}) or \"last\"")
    return t["blocks"][at - 1]["y"][last]


def nats_to_bits(loss: float) -> float:
    return loss / math.log(2)
