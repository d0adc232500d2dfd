"""The shape of a model: Config (everything but its numbers), the shapes,
counts and initialisation of its parameters, and the published models the
book compares with the toy.

gpt.py runs a Config (and gives these names as gpt.Config, ...). Only the
published models' shapes matter here (parameter counts, cache sizes); no
weights of theirs are ever loaded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Config:
    """The shape of a model: everything but its numbers."""

    vocab_size: int          # V
    d: int                   # width of the residual stream
    n_ctx: int               # positions (rows of P)
    n_blocks: int = 1
    n_heads: int = 1         # the default; a run may choose another
    width: int = 0           # MLP hidden width (0 means 4 d)
    bias: bool = False       # biases on the attention and MLP matrices
    ln_weights: bool = False  # LayerNorm's learned gamma and beta
    tied: bool = False       # W_U = E^T
    # the changes since 2017; each default is the model described above
    norm_at: str = "pre"     # "pre": norm before each sublayer (GPT-2); "post": after each sum (2017)
    norm: str = "layer"      # "layer": LayerNorm; "rms": RMSNorm
    positions: str = "learned"  # "learned": the table P; "rope": rotary, no parameters
    mlp: str = "gelu"        # "gelu": GELU(u' W_1) W_2; "swiglu": (SiLU(u' W_1) * u' W_3) W_2
    n_kv_heads: int = 0      # heads of K and V: 0 = one per query head (multi-head)
    rope_base: float = 10000.0  # theta: the slowest pair turns by base^(-(d_head-2)/d_head) per position

    def __post_init__(self):
        choices = {"norm_at": ("pre", "post"), "norm": ("layer", "rms"),
                   "positions": ("learned", "rope"), "mlp": ("gelu", "swiglu")}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"Config.{name} = {getattr(self, name)!r}: expected one of "
                                 f"{', '.join(allowed)}")
        if self.n_kv_heads:
            check_heads(self.d, self.n_heads)
            if self.n_kv_heads < 0 or self.n_heads % self.n_kv_heads:
                raise HeadsError(f"n_kv_heads = {self.n_kv_heads} does not divide "
                                 f"n_heads = {self.n_heads}")
        if self.positions == "rope" and (self.d // self.n_heads) % 2:
            raise HeadsError(f"rope turns pairs of columns: d_head = {self.d // self.n_heads} is odd")

    @property
    def mlp_width(self) -> int:
        return self.width or 4 * self.d

    @property
    def switched(self) -> bool:
        """True when any change since 2017 is on."""
        return (self.norm_at, self.norm, self.positions, self.mlp, self.n_kv_heads) != \
            ("pre", "layer", "learned", "gelu", 0)


def kv_heads(cfg: Config, heads: int) -> int:
    """How many K and V heads a run has: one per query head unless the
    config shares them (n_kv_heads), which fixes the heads to n_heads,
    because the width of W_K and W_V is n_kv_heads * d / n_heads."""
    if not cfg.n_kv_heads:
        return heads
    if heads != cfg.n_heads:
        raise HeadsError(f"heads = {heads}: with n_kv_heads = {cfg.n_kv_heads} the weights "
                         f"fix the heads to {cfg.n_heads}")
    return cfg.n_kv_heads


def kv_width(cfg: Config) -> int:
    """Columns of W_K and W_V: d, or n_kv_heads heads of d / n_heads."""
    return cfg.n_kv_heads * (cfg.d // cfg.n_heads) if cfg.n_kv_heads else cfg.d


class HeadsError(ValueError):
    pass


def check_heads(d: int, heads: int) -> None:
    if not isinstance(heads, int) or heads < 1 or d % heads:
        divisors = [h for h in range(1, d + 1) if d % h == 0]
        raise HeadsError(
            f"heads = {heads!r} does not divide d = {d}; "
            f"expected one of {', '.join(map(str, divisors))}")


# ---------------------------------------------------------------- parameters

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


# ---------------------------------------------------------------- the published models

# GPT-2 small, as OpenAI released it: 12 blocks of d = 768 with 12 heads,
# 1,024 positions, 50,257 tokens, biases, LayerNorm weights, tied output.
GPT2_SMALL = Config(vocab_size=50257, d=768, n_ctx=1024, n_blocks=12, n_heads=12,
                    width=3072, bias=True, ln_weights=True, tied=True)

# Llama 2 7B as its published config gives it: 32 blocks of d = 4,096 with
# 32 heads, SwiGLU width 11,008, RMSNorm with a learned scale, rotary
# positions, 4,096 positions, 32,000 tokens, an untied output, no biases.
LLAMA2_7B = Config(vocab_size=32000, d=4096, n_ctx=4096, n_blocks=32, n_heads=32,
                   width=11008, bias=False, ln_weights=True, tied=False,
                   norm="rms", positions="rope", mlp="swiglu")

# nano-gpt: minGPT's sort demo (3 blocks of d = 48 with 3 heads, 11 positions,
# the letters A, B, C), trained by toycalc.model.train.
NANO_GPT = Config(vocab_size=3, d=48, n_ctx=11, n_blocks=3, n_heads=3, width=192,
                  bias=True, ln_weights=True, tied=False)
