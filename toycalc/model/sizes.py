"""How big a model is: its parameters' names and shapes, their count by
piece, GPT-2's initialisation; and what a run costs: the multiply-adds of
a forward pass and the numbers the KV cache keeps per token. Only the
shapes matter here (toycalc/model/configs.py names the published models
the book counts); toycalc/model/gpt.py computes with the numbers.
"""
from __future__ import annotations

import math

import numpy as np

from .gpt import Config, kv_heads


def kv_width(cfg: Config) -> int:
    """Columns of W_K and W_V: d, or n_kv_heads heads of d / n_heads."""
    return cfg.n_kv_heads * (cfg.d // cfg.n_heads) if cfg.n_kv_heads else cfg.d


def block_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    d, w, dkv = cfg.d, cfg.mlp_width, kv_width(cfg)
    shapes = {"W_Q": (d, d), "W_K": (d, dkv), "W_V": (d, dkv), "W_O": (d, d),
              "W_1": (d, w), "W_2": (w, d)}
    if cfg.mlp == "swiglu":
        shapes["W_3"] = (d, w)          # the second input matrix: the gate multiplies by it
    if cfg.bias:
        shapes.update(b_Q=(d,), b_K=(dkv,), b_V=(dkv,), b_O=(d,), b_1=(w,), b_2=(d,))
        if cfg.mlp == "swiglu":
            shapes["b_3"] = (w,)
    if cfg.ln_weights:
        shapes.update(gamma_1=(d,), beta_1=(d,), gamma_2=(d,), beta_2=(d,))
        if cfg.norm == "rms":           # RMSNorm scales but does not shift: no beta
            del shapes["beta_1"], shapes["beta_2"]
    return shapes


def param_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Every parameter's flat name and shape, e.g. 'blocks.0.W_Q': (d, d)."""
    shapes = {"E": (cfg.vocab_size, cfg.d)}
    if cfg.positions == "learned":      # rotary positions have no table
        shapes["P"] = (cfg.n_ctx, cfg.d)
    for b in range(cfg.n_blocks):
        for name, shape in block_shapes(cfg).items():
            shapes[f"blocks.{b}.{name}"] = shape
    if cfg.ln_weights and cfg.norm_at == "pre":  # post-norm ends normalised: no final norm
        shapes["gamma_f"] = (cfg.d,)
        if cfg.norm == "layer":
            shapes["beta_f"] = (cfg.d,)
    if not cfg.tied:
        shapes["W_U"] = (cfg.d, cfg.vocab_size)
    return shapes


# The pieces of the book's "where the weights are" table, and which
# parameters each one gathers.
PIECES = {
    "E": ("E",),
    "P": ("P",),
    "W_QKV": ("W_Q", "W_K", "W_V"),
    "W_O": ("W_O",),
    "W_MLP": ("W_1", "W_2", "W_3"),
    "W_U": ("W_U",),
    "biases": ("b_Q", "b_K", "b_V", "b_O", "b_1", "b_2", "b_3"),
    "layernorm": ("gamma_1", "beta_1", "gamma_2", "beta_2", "gamma_f", "beta_f"),
}


def count_params(cfg: Config) -> dict[str, int]:
    """Parameters by piece (see PIECES) and their 'total'."""
    counts = dict.fromkeys(PIECES, 0)
    for name, shape in param_shapes(cfg).items():
        short = name.rsplit(".", 1)[-1]
        piece = next(p for p, members in PIECES.items() if short in members)
        counts[piece] += math.prod(shape)
    counts["total"] = sum(counts.values())
    return counts


def init_params(cfg: Config, rng: np.random.Generator, std: float = 0.02,
                dtype=np.float64) -> dict[str, np.ndarray]:
    """GPT-2's initialisation: N(0, std^2) matrices, zero biases, unit gamma;
    the matrices that write into the residual stream scaled by 1/sqrt(2 blocks)."""
    params = {}
    for name, shape in param_shapes(cfg).items():
        short = name.rsplit(".", 1)[-1]
        if short.startswith("b_") or short.startswith("beta"):
            value = np.zeros(shape)
        elif short.startswith("gamma"):
            value = np.ones(shape)
        else:
            scale = std / math.sqrt(2 * cfg.n_blocks) if short in ("W_O", "W_2") else std
            value = rng.normal(0.0, scale, shape)
        params[name] = value.astype(dtype)
    return params


# ---------------------------------------------------------------- cost

def multiply_adds(cfg: Config, length: int, rows: int, heads: int | None = None) -> int:
    """Multiply-adds of the matrix products of a forward pass that runs the
    last `rows` tokens of a text of `length` (rows = length: the whole text
    again; rows = 1: one new token against the KV cache), with the output
    layer on the last row only, as generation needs. Left out: norms,
    softmax, GELU, the rotation, which cost a few times d per row, not d^2."""
    heads = cfg.n_heads if heads is None else heads
    d, w, d_head, kv = cfg.d, cfg.mlp_width, cfg.d // heads, kv_heads(cfg, heads)
    seen = sum(range(length - rows + 1, length + 1))   # keys the new rows see, causally
    mlp_matrices = 3 if cfg.mlp == "swiglu" else 2
    per_block = (rows * d * (2 * d + 2 * kv * d_head + mlp_matrices * w)  # W_Q, W_O, W_K, W_V, MLP
                 + 2 * heads * seen * d_head)                             # q . k and a v
    return cfg.n_blocks * per_block + d * cfg.vocab_size


def cache_per_token(cfg: Config, heads: int | None = None) -> int:
    """Numbers the KV cache keeps for each token: a key and a value per
    K/V head per block."""
    heads = cfg.n_heads if heads is None else heads
    return 2 * cfg.n_blocks * kv_heads(cfg, heads) * (cfg.d // heads)
