"""One numpy GPT for every model of the book.

The toy model, nano-gpt and GPT-2 small are this same architecture with
different configs. Row vectors times matrices (`x @ W`), pre-norm blocks:

    X = E[ids] + P[:T]
    for each block:   u  = LN(X);  h = X + Attn(u) @ W_O
                      u' = LN(h);  y = h + GELU(u' @ W_1) @ W_2
    f = LN(y);  z = f @ W_U / T;  p = softmax(z)

`forward` returns a trace: every intermediate under the name the book gives
it, so a table on a page is a lookup, never a second computation.
`backward` walks the trace in reverse and returns one gradient per
parameter. Both run in the dtype of the parameters: float64 for the
book's pages and the gradient checks, float32 for training nano-gpt
(toycalc/train.py). What it leaves out: dropout, batching beyond a leading
axis, anything a learning rate schedule needs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

LN_EPS = 1e-5
GELU_C = math.sqrt(2.0 / math.pi)


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

    @property
    def mlp_width(self) -> int:
        return self.width or 4 * self.d


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
    d, w = cfg.d, cfg.mlp_width
    shapes = {"W_Q": (d, d), "W_K": (d, d), "W_V": (d, d), "W_O": (d, d),
              "W_1": (d, w), "W_2": (w, d)}
    if cfg.bias:
        shapes.update(b_Q=(d,), b_K=(d,), b_V=(d,), b_O=(d,), b_1=(w,), b_2=(d,))
    if cfg.ln_weights:
        shapes.update(gamma_1=(d,), beta_1=(d,), gamma_2=(d,), beta_2=(d,))
    return shapes


def param_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Every parameter's flat name and shape, e.g. 'blocks.0.W_Q': (d, d)."""
    shapes = {"E": (cfg.vocab_size, cfg.d), "P": (cfg.n_ctx, cfg.d)}
    for b in range(cfg.n_blocks):
        for name, shape in block_shapes(cfg).items():
            shapes[f"blocks.{b}.{name}"] = shape
    if cfg.ln_weights:
        shapes.update({"gamma_f": (cfg.d,), "beta_f": (cfg.d,)})
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
    "W_MLP": ("W_1", "W_2"),
    "W_U": ("W_U",),
    "biases": ("b_Q", "b_K", "b_V", "b_O", "b_1", "b_2"),
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


# ---------------------------------------------------------------- the pieces

def layernorm(x, gamma=None, beta=None):
    """Normalise each row to mean 0 and variance 1 (population variance)."""
    mu = x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + LN_EPS)
    xhat = (x - mu) / sigma
    out = xhat if gamma is None else xhat * gamma + beta
    return out, {"mu": mu[..., 0], "sigma": sigma[..., 0], "xhat": xhat}


def layernorm_backward(dout, cache, gamma=None):
    xhat, sigma = cache["xhat"], cache["sigma"][..., None]
    grads = {}
    if gamma is not None:
        axes = tuple(range(dout.ndim - 1))
        grads["gamma"] = (dout * xhat).sum(axis=axes)
        grads["beta"] = dout.sum(axis=axes)
        dout = dout * gamma
    dx = (dout - dout.mean(-1, keepdims=True)
          - xhat * (dout * xhat).mean(-1, keepdims=True)) / sigma
    return dx, grads


def gelu(x):
    """GELU in GPT-2's tanh form."""
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x * x * x)))


def gelu_backward(dout, x):
    t = np.tanh(GELU_C * (x + 0.044715 * x * x * x))
    dt = (1.0 - t * t) * GELU_C * (1.0 + 3 * 0.044715 * x * x)
    return dout * (0.5 * (1.0 + t) + 0.5 * x * dt)


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(M, heads):
    """(..., T, d) -> (..., heads, T, d/heads): head i reads columns i*d/h .. (i+1)*d/h."""
    *lead, T, d = M.shape
    return M.reshape(*lead, T, heads, d // heads).swapaxes(-2, -3)


def join_heads(M):
    """(..., heads, T, d_head) -> (..., T, d): the heads side by side."""
    *lead, H, T, dh = M.shape
    return M.swapaxes(-2, -3).reshape(*lead, T, H * dh)


def matmul(x, W):
    """x (..., n) @ W (n, m) as one 2-D product: numpy runs a batched
    x @ W as one small product per leading index, which is slower."""
    return (x.reshape(-1, x.shape[-1]) @ W).reshape(*x.shape[:-1], W.shape[-1])


def linear(x, W, b=None):
    return matmul(x, W) if b is None else matmul(x, W) + b


def attention(u, p, heads, mask=True):
    """Causal multi-head self-attention on u (T x d or B x T x d)."""
    Q = linear(u, p["W_Q"], p.get("b_Q"))
    K = linear(u, p["W_K"], p.get("b_K"))
    V = linear(u, p["W_V"], p.get("b_V"))
    q, k, v = split_heads(Q, heads), split_heads(K, heads), split_heads(V, heads)
    T, d_head = q.shape[-2], q.shape[-1]
    dots = q @ k.swapaxes(-1, -2)                        # (.., H, T, T): q . k
    scores = dots / math.sqrt(d_head)                    # s
    if mask:
        future = np.triu(np.ones((T, T), dtype=bool), k=1)
        scores = np.where(future, -np.inf, scores)
    weights = softmax(scores)                            # a
    outputs = weights @ v                                # o, (.., H, T, d_head)
    A = join_heads(outputs)                              # the heads side by side
    return {"Q": Q, "K": K, "V": V, "dots": dots, "scores": scores,
            "weights": weights, "outputs": outputs, "A": A}


# ---------------------------------------------------------------- forward

def forward(params, cfg: Config, ids, heads: int | None = None,
            temperature: float = 1.0, mask: bool = True) -> dict:
    """Run the model on ids ((T,) or (B, T)); return the trace.

    Trace names: ids, E_ids, P_t, X, blocks (one dict each: X, u, mu, sigma,
    Q, K, V, dots, scores, weights, outputs, A, attn, h, u2 (u'), mu2,
    sigma2, mlp_pre, mlp_post, m, y), f, mu_f, sigma_f, z, p."""
    heads = cfg.n_heads if heads is None else heads
    check_heads(cfg.d, heads)
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    ids = np.asarray(ids)
    T = ids.shape[-1]
    if not 1 <= T <= cfg.n_ctx:
        raise ValueError(f"{T} tokens, but the model has {cfg.n_ctx} positions")
    trace = {"ids": ids, "heads": heads, "temperature": temperature,
             "E_ids": params["E"][ids], "P_t": params["P"][:T]}
    x = trace["E_ids"] + trace["P_t"]
    trace["X"] = x
    trace["blocks"] = []
    for b in range(cfg.n_blocks):
        p = block_params(params, b)
        blk = {"X": x}
        blk["u"], ln1 = layernorm(x, p.get("gamma_1"), p.get("beta_1"))
        blk.update(mu=ln1["mu"], sigma=ln1["sigma"], ln1=ln1)
        blk.update(attention(blk["u"], p, heads, mask))
        blk["attn"] = linear(blk["A"], p["W_O"], p.get("b_O"))
        blk["h"] = x + blk["attn"]
        blk["u2"], ln2 = layernorm(blk["h"], p.get("gamma_2"), p.get("beta_2"))
        blk.update(mu2=ln2["mu"], sigma2=ln2["sigma"], ln2=ln2)
        blk["mlp_pre"] = linear(blk["u2"], p["W_1"], p.get("b_1"))
        blk["mlp_post"] = gelu(blk["mlp_pre"])
        blk["m"] = linear(blk["mlp_post"], p["W_2"], p.get("b_2"))
        blk["y"] = blk["h"] + blk["m"]
        trace["blocks"].append(blk)
        x = blk["y"]
    trace["f"], lnf = layernorm(x, params.get("gamma_f"), params.get("beta_f"))
    trace.update(mu_f=lnf["mu"], sigma_f=lnf["sigma"], lnf=lnf)
    trace["logits"] = matmul(trace["f"], unembedding(params, cfg))
    trace["z"] = trace["logits"] / temperature
    trace["p"] = softmax(trace["z"])
    return trace


def block_params(params, b):
    prefix = f"blocks.{b}."
    return {k[len(prefix):]: v for k, v in params.items() if k.startswith(prefix)}


def unembedding(params, cfg):
    return params["E"].T if cfg.tied else params["W_U"]


# ---------------------------------------------------------------- loss, backward

def cross_entropy(p, targets):
    """Mean of -ln p[target] over the positions whose target is >= 0."""
    targets = np.asarray(targets)
    keep = targets >= 0
    picked = np.take_along_axis(p, np.where(keep, targets, 0)[..., None], -1)[..., 0]
    return float(-np.log(picked[keep]).mean())


def backward(params, cfg: Config, trace, targets) -> dict[str, np.ndarray]:
    """Gradients of cross_entropy(trace['p'], targets) for every parameter."""
    targets = np.asarray(targets)
    keep = targets >= 0
    dz = trace["p"].copy()
    onehot = np.zeros_like(dz)
    np.put_along_axis(onehot, np.where(keep, targets, 0)[..., None], 1.0, -1)
    dz = (dz - onehot) * keep[..., None]
    dz /= keep.sum()   # in place: a float32 trace stays float32
    dlogits = dz / trace["temperature"]

    grads = {name: np.zeros_like(value) for name, value in params.items()}
    flat = lambda a: a.reshape(-1, a.shape[-1])  # noqa: E731  (.., n) -> (N, n)
    W_U = unembedding(params, cfg)
    dW_U = flat(trace["f"]).T @ flat(dlogits)
    if cfg.tied:
        grads["E"] += dW_U.T
    else:
        grads["W_U"] = dW_U
    dx, g = layernorm_backward(matmul(dlogits, W_U.T), trace["lnf"], params.get("gamma_f"))
    if g:
        grads["gamma_f"], grads["beta_f"] = g["gamma"], g["beta"]

    heads = trace["heads"]
    for b in reversed(range(cfg.n_blocks)):
        p, blk, pre = block_params(params, b), trace["blocks"][b], f"blocks.{b}."
        # y = h + m
        dh = dx.copy()
        dpost = matmul(dx, p["W_2"].T)
        grads[pre + "W_2"] = flat(blk["mlp_post"]).T @ flat(dx)
        dpre = gelu_backward(dpost, blk["mlp_pre"])
        grads[pre + "W_1"] = flat(blk["u2"]).T @ flat(dpre)
        du2 = matmul(dpre, p["W_1"].T)
        if cfg.bias:
            grads[pre + "b_2"] = flat(dx).sum(0)
            grads[pre + "b_1"] = flat(dpre).sum(0)
        dln, g = layernorm_backward(du2, blk["ln2"], p.get("gamma_2"))
        if g:
            grads[pre + "gamma_2"], grads[pre + "beta_2"] = g["gamma"], g["beta"]
        dh += dln
        # h = X + A @ W_O
        dx = dh.copy()
        grads[pre + "W_O"] = flat(blk["A"]).T @ flat(dh)
        if cfg.bias:
            grads[pre + "b_O"] = flat(dh).sum(0)
        dout = split_heads(matmul(dh, p["W_O"].T), heads)
        a = blk["weights"]
        q, k, v = (split_heads(blk[n], heads) for n in ("Q", "K", "V"))
        da = dout @ v.swapaxes(-1, -2)
        dv = a.swapaxes(-1, -2) @ dout
        ds = a * (da - (da * a).sum(-1, keepdims=True))  # masked: a = 0, so ds = 0
        ds /= math.sqrt(q.shape[-1])
        dq, dk = ds @ k, ds.swapaxes(-1, -2) @ q
        du = np.zeros_like(blk["u"])
        for n, dM in (("Q", dq), ("K", dk), ("V", dv)):
            dM = join_heads(dM)
            grads[pre + "W_" + n] = flat(blk["u"]).T @ flat(dM)
            if cfg.bias:
                grads[pre + "b_" + n] = flat(dM).sum(0)
            du += matmul(dM, p["W_" + n].T)
        dln, g = layernorm_backward(du, blk["ln1"], p.get("gamma_1"))
        if g:
            grads[pre + "gamma_1"], grads[pre + "beta_1"] = g["gamma"], g["beta"]
        dx += dln

    # X = E[ids] + P[:T]; a token that appears twice collects both gradients
    # (np.add.at does this too, but slowly: one row per distinct token instead)
    ids, dx_rows = trace["ids"].reshape(-1), flat(dx)
    for i in np.unique(ids):
        grads["E"][i] += dx_rows[ids == i].sum(0)
    T = trace["ids"].shape[-1]
    grads["P"][:T] += dx.reshape(-1, T, cfg.d).sum(0)
    return grads


def loss_and_grads(params, cfg, ids, targets, heads=None, temperature=1.0):
    trace = forward(params, cfg, ids, heads, temperature)
    return cross_entropy(trace["p"], targets), backward(params, cfg, trace, targets)
