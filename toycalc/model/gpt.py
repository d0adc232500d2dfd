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
(toycalc/model/train.py). What it leaves out: dropout, batching beyond a leading
axis, anything a learning rate schedule needs. Beside it: sizes.py (the
parameters' shapes, counts, initialisation, the cost of a pass) and
inference.py (a pass checked for overflow, generation).

What changed since 2017 is a set of switches on the same Config, each off
by default (the defaults are the model above, bit for bit): `norm_at`
("pre", or "post" as in 2017: the norm after each residual sum), `norm`
("layer", or "rms": RMSNorm, no mean, no beta), `positions` ("learned", or
"rope": no P, q and k rotated by their position), `mlp` ("gelu", or
"swiglu": (SiLU(u' W_1) * u' W_3) W_2), `n_kv_heads` (0: K and V per query
head; fewer: grouped-query, 1: multi-query) and the existing `tied`.
`forward(..., past=trace["cache"])` runs only new tokens against the keys
and values kept from an earlier call: the KV cache. `backward` covers
every switch (checked by central differences), but not a trace run with
`past`: training sees the whole text.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .mirror import mirrored

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


class HeadsError(ValueError):
    pass


def check_heads(d: int, heads: int) -> None:
    if not isinstance(heads, int) or heads < 1 or d % heads:
        divisors = [h for h in range(1, d + 1) if d % h == 0]
        raise HeadsError(
            f"heads = {heads!r} does not divide d = {d}; "
            f"expected one of {', '.join(map(str, divisors))}")


# ---------------------------------------------------------------- the pieces

def layernorm(x, gamma=None, beta=None):
    """Normalise each row to mean 0 and variance 1 (population variance)."""
    mu = x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + LN_EPS)
    xhat = (x - mu) / sigma
    out = xhat if gamma is None else xhat * gamma + beta
    return out, {"mu": mu[..., 0], "sigma": sigma[..., 0], "xhat": xhat}


@mirrored("backward.js", "layernormBackward")
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


def rmsnorm(x, gamma=None):
    """Divide each row by its root mean square: LayerNorm without taking
    the mean away (and without beta), one pass over the row fewer."""
    rms = np.sqrt((x * x).mean(axis=-1, keepdims=True) + LN_EPS)
    xhat = x / rms
    out = xhat if gamma is None else xhat * gamma
    return out, {"mu": None, "sigma": rms[..., 0], "xhat": xhat}


def norm(cfg: Config, x, gamma=None, beta=None):
    """The config's norm: LayerNorm or RMSNorm."""
    return layernorm(x, gamma, beta) if cfg.norm == "layer" else rmsnorm(x, gamma)


# --8<-- [start:gelu_tanh_form]
def gelu_tanh(x):
    """The tanh inside GELU: the forward pass keeps it for the backward pass."""
    return np.tanh(GELU_C * (x + 0.044715 * x * x * x))


def gelu(x, t=None):
    """GELU in GPT-2's tanh form; t: gelu_tanh(x), if already computed."""
    return 0.5 * x * (1.0 + (gelu_tanh(x) if t is None else t))
# --8<-- [end:gelu_tanh_form]


def gelu_backward(dout, x, t=None):
    t = gelu_tanh(x) if t is None else t
    dt = (1.0 - t * t) * GELU_C * (1.0 + 3 * 0.044715 * x * x)
    return dout * (0.5 * (1.0 + t) + 0.5 * x * dt)


def silu(x):
    """SiLU (swish), x times the sigmoid of x: the gate of SwiGLU."""
    return x / (1.0 + np.exp(-x))


def rope_angles(positions, d_head: int, base: float = 10000.0):
    """cos and sin of position * theta_i, theta_i = base^(-2i/d_head), for
    each pair i of a head's columns: (T, d_head/2) each. Pair 0 turns by
    one radian per position, later pairs ever more slowly."""
    theta = base ** (-np.arange(0, d_head, 2) / d_head)          # (d_head/2,)
    angle = np.asarray(positions, dtype=float)[:, None] * theta   # (T, d_head/2)
    return np.cos(angle), np.sin(angle)


def rope(x, cos, sin):
    """Turn each pair of columns (2i, 2i+1) of x (.., T, d_head) by its
    angle. A turn keeps lengths, and q_m . k_n after turning by m and n
    depends on m - n only: the position enters as a distance."""
    even, odd = x[..., 0::2], x[..., 1::2]                        # (.., T, d_head/2)
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


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


def as_rows(a):
    """(.., n) -> (N, n): every row of a, whatever its leading axes."""
    return a.reshape(-1, a.shape[-1])


def linear(x, W, b=None):
    return matmul(x, W) if b is None else matmul(x, W) + b


def attention(u, p, heads, mask=True, kv=None, angles=None, past=None):
    """Causal multi-head self-attention on u (T x d or B x T x d): each
    head's queries meet its keys, and the weights mix its values.

    The changes since 2017, off in the book's models (kv, angles, past),
    are in `turned_cached_shared`. Returns, besides the book's names, "k"
    and "v": the keys and values a later call may reuse."""
    kv = heads if kv is None else kv
    Q = linear(u, p["W_Q"], p.get("b_Q"))
    K = linear(u, p["W_K"], p.get("b_K"))
    V = linear(u, p["W_V"], p.get("b_V"))
    q, k, v = split_heads(Q, heads), split_heads(K, kv), split_heads(V, kv)   # (.., H, T, d_head)
    out = {"Q": Q, "K": K, "V": V}
    q, k, v = turned_cached_shared(q, k, v, out, heads, kv, angles, past)
    T, S, d_head = q.shape[-2], k.shape[-2], q.shape[-1]
    dots = q @ k.swapaxes(-1, -2)                        # (.., H, T, S): q . k
    scores = dots / math.sqrt(d_head)                    # s
    if mask:                                             # row i is position S - T + i
        future = np.triu(np.ones((T, S), dtype=bool), k=S - T + 1)
        scores = np.where(future, -np.inf, scores)
    weights = softmax(scores)                            # a
    outputs = weights @ v                                # o, (.., H, T, d_head)
    A = join_heads(outputs)                              # the heads side by side
    out.update(dots=dots, scores=scores, weights=weights, outputs=outputs, A=A)
    return out


def turned_cached_shared(q, k, v, out, heads, kv, angles=None, past=None):
    """attention's q, k and v after the changes since 2017 (each a no-op
    when off): angles, (cos, sin) of rope_angles for the new rows, turn q
    and k; past, {"k", "v"} per head from earlier rows (the KV cache),
    goes before k and v; kv < heads heads of K and V each serve a group of
    heads/kv query heads. Writes into out Q_rot, K_rot (rope) and k, v
    (what the cache keeps: kv heads only)."""
    if angles is not None:                               # rotary: turn q and k, not v
        q, k = rope(q, *angles), rope(k, *angles)
        out.update(Q_rot=join_heads(q), K_rot=join_heads(k))
    if past is not None:                                 # earlier rows' keys and values
        k = np.concatenate([past["k"], k], axis=-2)
        v = np.concatenate([past["v"], v], axis=-2)
    out.update(k=k, v=v)
    if kv != heads:                                      # each kv head serves heads/kv queries
        k, v = np.repeat(k, heads // kv, axis=-3), np.repeat(v, heads // kv, axis=-3)
    return q, k, v


@mirrored("backward.js", "attentionBackward")
def attention_backward(dA, blk, p, cfg: Config, heads, angles, grads, pre):
    """Gradients of attention's Q, K, V weights (into grads) from dL/dA,
    A the heads side by side, for the block whose trace is blk; returns
    dL/du. The steps of `attention` in reverse."""
    kv = kv_heads(cfg, heads)
    dout = split_heads(dA, heads)                       # (.., H, T, d_head)
    a = blk["weights"]
    q = split_heads(blk["Q_rot" if "Q_rot" in blk else "Q"], heads)
    k, v = blk["k"], blk["v"]                           # (.., kv, T, d_head), turned if rope
    if kv != heads:
        k, v = np.repeat(k, heads // kv, axis=-3), np.repeat(v, heads // kv, axis=-3)
    da = dout @ v.swapaxes(-1, -2)                      # o = a v
    dv = a.swapaxes(-1, -2) @ dout
    ds = a * (da - (da * a).sum(-1, keepdims=True))     # a = softmax(s); masked: a = 0, so ds = 0
    ds /= math.sqrt(q.shape[-1])                        # s = q . k / sqrt(d_head)
    dq, dk = ds @ k, ds.swapaxes(-1, -2) @ q
    if kv != heads:                                     # a shared head collects its group's gradients
        dk, dv = (group_sum(g, kv) for g in (dk, dv))
    if angles is not None:                              # undo the turn: turn back by the same angle
        cos, sin = angles
        dq, dk = rope(dq, cos, -sin), rope(dk, cos, -sin)
    du = np.zeros_like(blk["u"])
    for n, dM in (("Q", dq), ("K", dk), ("V", dv)):     # Q = u W_Q (+ b_Q), and K, V
        dM = join_heads(dM)
        grads[pre + "W_" + n] = as_rows(blk["u"]).T @ as_rows(dM)
        if cfg.bias:
            grads[pre + "b_" + n] = as_rows(dM).sum(0)
        du += matmul(dM, p["W_" + n].T)
    return du


# ---------------------------------------------------------------- forward

def mlp(u2, p, cfg: Config) -> dict:
    """The MLP on u': GELU(u' W_1) W_2, or SwiGLU's (SiLU(u' W_1) * u' W_3) W_2,
    where u' W_3 is a second, ungated copy that the gate scales."""
    out = {"mlp_pre": linear(u2, p["W_1"], p.get("b_1"))}
    if cfg.mlp == "gelu":
        out["mlp_tanh"] = gelu_tanh(out["mlp_pre"])
        out["mlp_post"] = gelu(out["mlp_pre"], out["mlp_tanh"])
    else:
        out["mlp_up"] = linear(u2, p["W_3"], p.get("b_3"))
        out["mlp_post"] = silu(out["mlp_pre"]) * out["mlp_up"]
    out["m"] = linear(out["mlp_post"], p["W_2"], p.get("b_2"))
    return out


@mirrored("gpt.js")
def forward(params, cfg: Config, ids, heads: int | None = None,
            temperature: float = 1.0, mask: bool = True, past: dict | None = None) -> dict:
    """Run the model on ids ((T,) or (B, T)); return the trace.

    Trace names: ids, E_ids, P_t, X, blocks (one dict each: X, u, mu, sigma,
    Q, K, V, dots, scores, weights, outputs, A, attn, h, u2 (u'), mu2,
    sigma2, mlp_pre, mlp_tanh (GELU's tanh, kept for the backward pass),
    mlp_post, m, y), f, mu_f, sigma_f, z, p; and cache, the keys and values
    of every block, to pass as `past` to a later call that runs only the
    tokens after these (the KV cache).
    Switched configs add: Q_rot, K_rot (rope); mlp_up (swiglu); h_sum and
    y_sum, the sums before the norm (post-norm, where u = X, u' = h, f = y)."""
    heads = cfg.n_heads if heads is None else heads
    check_heads(cfg.d, heads)
    kv = kv_heads(cfg, heads)
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    ids = np.asarray(ids)
    start = 0 if past is None else past["length"]      # the first new token's position
    T = ids.shape[-1]
    if not 1 <= T <= cfg.n_ctx - start:
        raise ValueError(f"{start + T} tokens, but the model has {cfg.n_ctx} positions")
    trace = {"ids": ids, "heads": heads, "temperature": temperature}
    # --8<-- [start:embedding]
    trace["E_ids"] = params["E"][ids]                   # row ids[t] of E for each token t
    # --8<-- [end:embedding]
    angles = None
    if cfg.positions == "learned":
        # --8<-- [start:positions]
        trace["P_t"] = params["P"][start:start + T]     # one row of P per position
        x = trace["E_ids"] + trace["P_t"]               # X: one row per token
        # --8<-- [end:positions]
    else:                                               # the position enters at the scores
        angles = rope_angles(np.arange(start, start + T), cfg.d // heads, cfg.rope_base)
        trace["angles"] = angles                        # backward turns the gradients back
        x = trace["E_ids"]
    trace["X"] = x
    trace["blocks"] = []
    post = cfg.norm_at == "post"
    # --8<-- [start:blocks]
    for b in range(cfg.n_blocks):                       # the book's block b + 1
        p = block_params(params, b)
        blk = {"X": x}
        if post:                                        # 2017: attention reads x itself
            blk["u"] = x
        else:
            blk["u"], ln1 = norm(cfg, x, p.get("gamma_1"), p.get("beta_1"))
            blk.update(mu=ln1["mu"], sigma=ln1["sigma"], ln1=ln1)
        blk.update(attention(blk["u"], p, heads, mask, kv, angles,
                             None if past is None else past["blocks"][b]))
        # --8<-- [start:projection]
        blk["attn"] = linear(blk["A"], p["W_O"], p.get("b_O"))   # the heads side by side, times W_O
        blk["h"] = x + blk["attn"]                               # the first residual sum
        # --8<-- [end:projection]
        if post:                                        # the norm comes after the sum
            blk["h_sum"] = blk["h"]
            blk["h"], ln1 = norm(cfg, blk["h_sum"], p.get("gamma_1"), p.get("beta_1"))
            blk.update(mu=ln1["mu"], sigma=ln1["sigma"], ln1=ln1)
            blk["u2"] = blk["h"]
        else:
            blk["u2"], ln2 = norm(cfg, blk["h"], p.get("gamma_2"), p.get("beta_2"))
            blk.update(mu2=ln2["mu"], sigma2=ln2["sigma"], ln2=ln2)
        # --8<-- [start:second_sum]
        blk.update(mlp(blk["u2"], p, cfg))
        blk["y"] = blk["h"] + blk["m"]                  # the second residual sum
        # --8<-- [end:second_sum]
        if post:
            blk["y_sum"] = blk["y"]
            blk["y"], ln2 = norm(cfg, blk["y_sum"], p.get("gamma_2"), p.get("beta_2"))
            blk.update(mu2=ln2["mu"], sigma2=ln2["sigma"], ln2=ln2)
        trace["blocks"].append(blk)
        x = blk["y"]
    # --8<-- [end:blocks]
    trace["cache"] = {"length": start + T,
                      "blocks": [{"k": blk["k"], "v": blk["v"]} for blk in trace["blocks"]]}
    # --8<-- [start:output]
    if post:                                            # every block ends normalised already
        trace["f"] = x
    else:
        trace["f"], lnf = norm(cfg, x, params.get("gamma_f"), params.get("beta_f"))
        trace.update(mu_f=lnf["mu"], sigma_f=lnf["sigma"], lnf=lnf)
    trace["logits"] = matmul(trace["f"], unembedding(params, cfg))   # one logit per token of the vocabulary
    trace["z"] = trace["logits"] / temperature
    trace["p"] = softmax(trace["z"])
    # --8<-- [end:output]
    return trace


def block_params(params, b):
    prefix = f"blocks.{b}."
    return {k[len(prefix):]: v for k, v in params.items() if k.startswith(prefix)}


def unembedding(params, cfg):
    return params["E"].T if cfg.tied else params["W_U"]


# ---------------------------------------------------------------- loss, backward

@mirrored("backward.js", "crossEntropy")
def cross_entropy(p, targets):
    """Mean of -ln p[target] over the positions whose target is >= 0."""
    targets = np.asarray(targets)
    keep = targets >= 0
    picked = np.take_along_axis(p, np.where(keep, targets, 0)[..., None], -1)[..., 0]
    return float(-np.log(picked[keep]).mean())


def cross_entropy_backward(p, targets):
    """dL/dz of cross_entropy, where p = softmax(z): (p - onehot(target)) / N
    at the N positions that have a target, 0 elsewhere."""
    targets = np.asarray(targets)
    keep = targets >= 0
    onehot = np.zeros_like(p)
    np.put_along_axis(onehot, np.where(keep, targets, 0)[..., None], 1.0, -1)
    dz = (p - onehot) * keep[..., None]
    dz /= keep.sum()   # in place: a float32 trace stays float32
    return dz


@mirrored("backward.js", "backward")
def backward(params, cfg: Config, trace, targets) -> dict[str, np.ndarray]:
    """Gradients of cross_entropy(trace['p'], targets) for every parameter,
    for a trace of the whole text (not one run with past)."""
    if trace["cache"]["length"] != trace["ids"].shape[-1]:
        raise NotImplementedError("backward needs a trace of the whole text, not one run with past")
    dlogits = cross_entropy_backward(trace["p"], targets) / trace["temperature"]   # z = logits / T
    grads = {name: np.zeros_like(value) for name, value in params.items()}
    W_U = unembedding(params, cfg)
    dW_U = as_rows(trace["f"]).T @ as_rows(dlogits)
    if cfg.tied:
        grads["E"] += dW_U.T
    else:
        grads["W_U"] = dW_U
    post = cfg.norm_at == "post"
    if post:                                            # f = y: no final norm
        dx = matmul(dlogits, W_U.T)
    else:
        dx, g = norm_backward(cfg, matmul(dlogits, W_U.T), trace["lnf"], params.get("gamma_f"))
        _store_norm_grads(grads, "", "f", g)

    heads = trace["heads"]
    for b in reversed(range(cfg.n_blocks)):
        p, blk, pre = block_params(params, b), trace["blocks"][b], f"blocks.{b}."
        if post:                                        # y = LN(y_sum)
            dx, g = norm_backward(cfg, dx, blk["ln2"], p.get("gamma_2"))
            _store_norm_grads(grads, pre, "2", g)
        # y = h + m
        dh = dx.copy()
        du2 = mlp_backward(dx, blk, p, cfg, grads, pre)
        if post:                                        # u' = h
            dh += du2
            dh, g = norm_backward(cfg, dh, blk["ln1"], p.get("gamma_1"))   # h = LN(h_sum)
            _store_norm_grads(grads, pre, "1", g)
        else:
            dln, g = norm_backward(cfg, du2, blk["ln2"], p.get("gamma_2"))
            _store_norm_grads(grads, pre, "2", g)
            dh += dln
        # h = X + A @ W_O
        dx = dh.copy()
        grads[pre + "W_O"] = as_rows(blk["A"]).T @ as_rows(dh)
        if cfg.bias:
            grads[pre + "b_O"] = as_rows(dh).sum(0)
        du = attention_backward(matmul(dh, p["W_O"].T), blk, p, cfg, heads, trace.get("angles"),
                                grads, pre)
        if post:                                        # u = X
            dx += du
        else:
            dln, g = norm_backward(cfg, du, blk["ln1"], p.get("gamma_1"))
            _store_norm_grads(grads, pre, "1", g)
            dx += dln

    # X = E[ids] + P[:T]; a token that appears twice collects both gradients
    # (np.add.at does this too, but slowly: one row per distinct token instead)
    ids, dx_rows = trace["ids"].reshape(-1), as_rows(dx)
    for i in np.unique(ids):
        grads["E"][i] += dx_rows[ids == i].sum(0)
    if "P" in grads:
        T = trace["ids"].shape[-1]
        grads["P"][:T] += dx.reshape(-1, T, cfg.d).sum(0)
    return grads


def norm_backward(cfg: Config, dout, cache, gamma=None):
    return (layernorm_backward(dout, cache, gamma) if cfg.norm == "layer"
            else rmsnorm_backward(dout, cache, gamma))


def rmsnorm_backward(dout, cache, gamma=None):
    """As layernorm_backward, without the term of the mean."""
    xhat, rms = cache["xhat"], cache["sigma"][..., None]
    grads = {}
    if gamma is not None:
        grads["gamma"] = (dout * xhat).sum(axis=tuple(range(dout.ndim - 1)))
        dout = dout * gamma
    return (dout - xhat * (dout * xhat).mean(-1, keepdims=True)) / rms, grads


def _store_norm_grads(grads, pre, which, g):
    for name, value in g.items():                       # gamma, and beta for LayerNorm
        grads[f"{pre}{name}_{which}"] = value


def silu_backward(dout, x):
    s = 1.0 / (1.0 + np.exp(-x))
    return dout * (s + x * s * (1.0 - s))


def group_sum(g, kv):
    """(.., heads, T, n) -> (.., kv, T, n): sum the heads that share a K/V head."""
    *lead, H, T, n = g.shape
    return g.reshape(*lead, kv, H // kv, T, n).sum(-3)


@mirrored("backward.js", "mlpBackward")
def mlp_backward(dm, blk, p, cfg: Config, grads, pre):
    """Gradients of the MLP's weights (into grads) from dL/dm; returns dL/du'."""
    dpost = matmul(dm, p["W_2"].T)
    grads[pre + "W_2"] = as_rows(blk["mlp_post"]).T @ as_rows(dm)
    if cfg.mlp == "gelu":
        dpre = gelu_backward(dpost, blk["mlp_pre"], blk["mlp_tanh"])
    else:                                               # post = SiLU(pre) * up
        dup = dpost * silu(blk["mlp_pre"])
        dpre = silu_backward(dpost * blk["mlp_up"], blk["mlp_pre"])
        grads[pre + "W_3"] = as_rows(blk["u2"]).T @ as_rows(dup)
    grads[pre + "W_1"] = as_rows(blk["u2"]).T @ as_rows(dpre)
    du2 = matmul(dpre, p["W_1"].T)
    if cfg.bias:
        grads[pre + "b_2"] = as_rows(dm).sum(0)
        grads[pre + "b_1"] = as_rows(dpre).sum(0)
    if cfg.mlp == "swiglu":
        du2 += matmul(dup, p["W_3"].T)
        if cfg.bias:
            grads[pre + "b_3"] = as_rows(dup).sum(0)
    return du2


@mirrored("backward.js", "lossAndGrads")
def loss_and_grads(params, cfg, ids, targets, heads=None, temperature=1.0):
    trace = forward(params, cfg, ids, heads, temperature)
    return cross_entropy(trace["p"], targets), backward(params, cfg, trace, targets)
