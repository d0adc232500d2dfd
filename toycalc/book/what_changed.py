"""What the page "What changed since 2017" shows, as pure functions.

Each change is a switch on gpt.Config, run on the toy model by the same
gpt.forward; this module only derives the toy's weights for a switch (see
`variant`) and turns the traces into strings. Registered on
`what_changed`: what_changed_table(...) (HTML tables with stable ids),
what_changed_formula(...) (display TeX), what_changed_number(...) (one
value for the prose) and what_changed_figure(...). These run the weights
file's own heads at T = 1. Positions count from 1, as the book counts them.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..model import gpt, inference, nanogpt, sizes, writer
from .draw import arrows_svg, figure, line_chart_svg, stacked_bars_svg
from .example import Example
from .example_checks import check_head
from .part import Part
from .render import (aligned, count, fixed, html_table, inline_math as im, tex, tex_vector, tiny,
                     token_code, token_text, vector)
from ..model.configs import GPT2_SMALL, LLAMA2_7B

KV_HEADS_RUN = 4        # the toy runs the sharing comparison with 4 heads: 4, 2 or 1 K/V heads
ROPE_PAIRS = ((3, 1), (7, 5), (5, 1), (8, 4))   # (m, n): two pairs at distance 2, two at 4

what_changed = Part("what_changed_")   # {{ what_changed_table(...) }}, _formula, _number, _figure


# ---------------------------------------------------------------- the toy, switched

def models(ex: Example) -> dict[str, gpt.Config]:
    """The book's three models, then the two published ones, by their column's name."""
    return {"toy": ex.model.cfg, "nano-gpt": nanogpt.CONFIG, "writer": writer.CONFIG,
            "GPT-2 small": GPT2_SMALL, "Llama 2 7B": LLAMA2_7B}


def variant(ex: Example, **switches) -> tuple[gpt.Config, dict]:
    """The toy with some switches on, and weights for it taken from the
    toy's own, so that no new number is typed:
    positions="rope" drops P; mlp="swiglu" reuses W_1 as W_3; n_kv_heads
    averages the K and V columns of the heads of a group (how the
    grouped-query paper turns a multi-head model into a grouped one);
    tied=True drops W_U and reads E^T instead."""
    cfg = dataclasses.replace(ex.model.cfg, **switches)
    params = dict(ex.model.params)
    if cfg.positions == "rope":
        params.pop("P", None)
    if cfg.tied:
        params.pop("W_U", None)
    for b in range(cfg.n_blocks):
        pre = f"blocks.{b}."
        if cfg.mlp == "swiglu":
            params[pre + "W_3"] = params[pre + "W_1"]
        if cfg.n_kv_heads:
            for n in ("W_K", "W_V"):
                W = params[pre + n]                                  # (d, d)
                d_head = cfg.d // cfg.n_heads
                group = cfg.n_heads // cfg.n_kv_heads
                heads = W.reshape(cfg.d, cfg.n_kv_heads, group, d_head)
                params[pre + n] = heads.mean(axis=2).reshape(cfg.d, cfg.n_kv_heads * d_head)
    assert set(params) == set(sizes.param_shapes(cfg)), "variant: the weights do not fit the config"
    return cfg, params


def run(ex: Example, heads: int | None = None, **switches) -> dict:
    cfg, params = variant(ex, **switches)
    heads = ex.n_heads if heads is None else heads
    if cfg.n_kv_heads:
        cfg = dataclasses.replace(cfg, n_heads=heads)
    return gpt.forward(params, cfg, ex.ids, heads)


def _kv_variant(ex: Example, kv: int) -> tuple[gpt.Config, dict]:
    return variant(ex, n_heads=KV_HEADS_RUN, n_kv_heads=kv)


def _prediction(ex: Example, trace: dict) -> list[str]:
    p = trace["p"][-1]
    return [token_code(ex.model.vocab[int(np.argmax(p))]), fixed(p.max())]


# ---------------------------------------------------------------- tables

@what_changed.table("models")
def models_table(ex: Example) -> str:
    """The five models: their configs, then every piece counted by
    sizes.count_params, biases and norms included."""
    cfgs = models(ex)
    counts = {name: sizes.count_params(cfg) for name, cfg in cfgs.items()}
    heads = {name: (ex.n_heads if name == "toy" else cfg.n_heads) for name, cfg in cfgs.items()}

    def row(label, value):
        return [label] + [value(name, cfg) for name, cfg in cfgs.items()]
    rows = [
        row(f"vocabulary {im('V')}", lambda n, c: count(c.vocab_size)),
        row(f"width {im('d')}", lambda n, c: count(c.d)),
        row("positions", lambda n, c: count(c.n_ctx)),
        row("blocks", lambda n, c: str(c.n_blocks)),
        row("heads (K/V heads)", lambda n, c: f"{heads[n]} ({gpt.kv_heads(c, heads[n])})"),
        row("MLP", lambda n, c: f"{c.mlp.upper() if c.mlp == 'gelu' else 'SwiGLU'}, width {count(c.mlp_width)}"),
        row("norm", lambda n, c: f"{c.norm_at}-norm " + ("LayerNorm" if c.norm == "layer" else "RMSNorm")
            + ("" if c.ln_weights else ", nothing learned")),
        row("positions by", lambda n, c: "a learned table" if c.positions == "learned" else "rotation"),
        row(f"embedding {im('E')}", lambda n, c: count(counts[n]["E"])),
        row(f"position table {im('P')}", lambda n, c: count(counts[n]["P"])),
        row(f"{im('W_Q')}, {im('W_K')}, {im('W_V')}", lambda n, c: count(counts[n]["W_QKV"])),
        row(im("W_O"), lambda n, c: count(counts[n]["W_O"])),
        row("MLP matrices", lambda n, c: count(counts[n]["W_MLP"])),
        row(f"output {im('W_U')}", lambda n, c: f"tied to {im('E')}" if c.tied else count(counts[n]["W_U"])),
        row("biases", lambda n, c: count(counts[n]["biases"])),
        row("norm weights", lambda n, c: count(counts[n]["layernorm"])),
        row("<strong>total</strong>", lambda n, c: f"<strong>{count(counts[n]['total'])}</strong>"),
    ]
    return html_table("table-models", [""] + list(cfgs), rows, wrap=set(range(len(cfgs) + 1)))


@what_changed.table("growth")
def growth_table(ex: Example) -> str:
    """GPT-2 small against Llama 2 7B: each piece's share of the total."""
    a, b = sizes.count_params(GPT2_SMALL), sizes.count_params(LLAMA2_7B)
    pieces = [("E", "embedding"), ("P", "position table"), ("W_QKV", "attention Q, K, V"),
              ("W_O", "attention output"), ("W_MLP", "MLP"), ("W_U", "output"),
              ("biases", "biases"), ("layernorm", "norm weights")]
    rows = [[name, count(a[k]), _share(a[k], a["total"]), count(b[k]), _share(b[k], b["total"])]
            for k, name in pieces]
    rows.append(["<strong>total</strong>", f"<strong>{count(a['total'])}</strong>", "",
                 f"<strong>{count(b['total'])}</strong>", ""])
    return html_table("table-growth", ["piece", "GPT-2 small", "share", "Llama 2 7B", "share"], rows)


NORMS = (("post-norm LayerNorm (2017)", {"norm_at": "post"}),
         ("pre-norm LayerNorm (GPT-2, the toy)", {}),
         ("pre-norm RMSNorm (Llama)", {"norm": "rms"}))


@what_changed.table("norms")
def norms_table(ex: Example) -> str:
    """The last row under each placement and kind of norm: what attention
    reads (u), what the MLP reads (u'), and the prediction."""
    t = len(ex.ids)
    rows = []
    for name, switches in NORMS:
        tr = run(ex, **switches)
        b = tr["blocks"][0]
        rows.append([name, vector(b["u"][-1]), vector(b["u2"][-1])] + _prediction(ex, tr))
    return html_table("table-norms", ["norm", im(f"u_{t}") + " (attention reads)",
                                      im(f"u'_{t}") + " (the MLP reads)", "prediction", "its p"], rows,
                      wrap={0, 1, 2})


@what_changed.table("rope")
def rope_table(ex: Example, head: int = 1) -> str:
    """One head's q and k of each token before and after the turn."""
    tr = run(ex, positions="rope")
    b, cols = tr["blocks"][0], ex.head_columns(head)
    d_head = cols.stop - cols.start
    theta = ex.model.cfg.rope_base ** (-0 / d_head)          # pair 1 turns fastest: 1 radian a step
    rows = [[str(i + 1), token_code(tok), fixed(i * theta),
             vector(b["Q"][i, cols]), vector(b["Q_rot"][i, cols]),
             vector(b["K"][i, cols]), vector(b["K_rot"][i, cols])]
            for i, tok in enumerate(ex.tokens)]
    return html_table("table-rope", ["position", "token", "turn (radians)",
                                     im("q"), im("q") + " turned", im("k"), im("k") + " turned"], rows,
                      caption=f"Head {head} of {ex.n_heads}, with rotary positions instead of {im('P')}",
                      wrap={3, 4, 5, 6})


def rope_scores(ex: Example, head: int = 1) -> list[tuple[int, int, float]]:
    """The score of the last token's query against the first token's key,
    the two placed at positions m and n (1-based) for each of ROPE_PAIRS."""
    tr = run(ex, positions="rope")
    b, cols = tr["blocks"][0], ex.head_columns(head)
    q, k = b["Q"][-1, cols], b["K"][0, cols]
    d_head = len(q)
    out = []
    for m, n in ROPE_PAIRS:
        cq, sq = gpt.rope_angles([m - 1], d_head, ex.model.cfg.rope_base)
        ck, sk = gpt.rope_angles([n - 1], d_head, ex.model.cfg.rope_base)
        s = gpt.rope(q[None], cq, sq)[0] @ gpt.rope(k[None], ck, sk)[0] / np.sqrt(d_head)
        out.append((m, n, float(s)))
    return out


@what_changed.table("rope_scores")
def rope_scores_table(ex: Example, head: int = 1) -> str:
    """RoPE: one head's score for the same query and key moved to other positions."""
    t = len(ex.ids)
    rows = [[str(m), str(n), str(m - n), fixed(s)] for m, n, s in rope_scores(ex, head)]
    return html_table("table-rope-scores", [im("m"), im("n"), "distance " + im("m - n"),
                                            f"score of {token_code(ex.tokens[-1])} at {im('m')} "
                                            f"on {token_code(ex.tokens[0])} at {im('n')}"], rows,
                      caption=f"Head {head}: the same two vectors, {im(f'q_{t}')} and {im('k_1')}, "
                              "placed at other positions")


@what_changed.table("mlp")
def mlp_table(ex: Example) -> str:
    """GELU against SwiGLU: matrices and counts at equal width, on the toy
    and at Llama 2 7B's width, and the toy's prediction."""
    toy, big = ex.model.cfg, LLAMA2_7B
    big_gelu = dataclasses.replace(big, mlp="gelu", width=4 * big.d)
    rows = []
    for name, cfg_toy, cfg_big in (
            ("GELU: " + im("W_1, W_2"), toy, big_gelu),
            ("SwiGLU, same width: " + im("W_1, W_2, W_3"), dataclasses.replace(toy, mlp="swiglu"),
             dataclasses.replace(big, width=4 * big.d)),
            ("SwiGLU, Llama's width", None, big)):
        t = f"{count(cfg_toy.mlp_width)}: {count(sizes.count_params(cfg_toy)['W_MLP'])}" if cfg_toy else "—"
        b = (f"{count(cfg_big.mlp_width)}: "
             f"{count(sizes.count_params(cfg_big)['W_MLP'] // cfg_big.n_blocks)}")
        pred = _prediction(ex, run(ex, mlp=cfg_toy.mlp)) if cfg_toy else ["—", "—"]
        rows.append([name, t, b] + pred)
    return html_table("table-mlp", ["MLP", "toy: width: weights", f"at {im('d')} = {count(big.d)}: "
                                    "width: weights per block", "toy's prediction", "its p"], rows)


@what_changed.table("kv_heads")
def kv_heads_table(ex: Example) -> str:
    """Multi-head, grouped-query and multi-query attention on the toy run
    with KV_HEADS_RUN heads: who shares, the count, the cache, the answer."""
    H = KV_HEADS_RUN
    rows = []
    for kv, name in ((H, "multi-head"), (H // 2, "grouped-query"), (1, "multi-query")):
        cfg, params = _kv_variant(ex, kv)
        group = H // kv
        shares = "; ".join(f"heads {', '.join(str(g * group + i + 1) for i in range(group))}"
                           if group > 1 else f"head {g + 1}" for g in range(kv))
        tr = gpt.forward(params, cfg, ex.ids, H)
        rows.append([name, str(kv), shares, count(sizes.count_params(cfg)["W_QKV"]),
                     count(sizes.cache_per_token(cfg))] + _prediction(ex, tr))
    return html_table("table-kv-heads", ["attention", "K/V heads", "who reads each K/V head",
                                         f"{im('W_Q')}, {im('W_K')}, {im('W_V')}",
                                         "cache per token (numbers)", "prediction", "its p"], rows,
                      caption=f"The toy with {H} query heads", wrap={0, 2})


@what_changed.table("kv_cache")
def kv_cache_table(ex: Example) -> str:
    """Greedy generation to the last position, run both ways: the tokens,
    the probabilities and the work of each step."""
    steps = _generation(ex)
    rows = [[str(s["length"]), token_code(ex.model.vocab[s["token"]]), fixed(s["p_full"]),
             fixed(s["p_cached"]), tiny(s['gap']), count(s["work_full"]),
             count(s["work_cached"])] for s in steps]
    rows.append(["<strong>all steps</strong>", "", "", "", "",
                 f"<strong>{count(sum(s['work_full'] for s in steps))}</strong>",
                 f"<strong>{count(sum(s['work_cached'] for s in steps))}</strong>"])
    return html_table("table-kv-cache", ["text length", "next token", "p, whole text again",
                                         "p, with the cache", "largest gap in p",
                                         "multiply-adds, whole text", "multiply-adds, cache"], rows)


@what_changed.table("kv_growth")
def kv_growth_table(ex: Example, lengths: str = "16 128 512 1024") -> str:
    """GPT-2 small's work for one more token as the text grows."""
    cfg = GPT2_SMALL
    rows = []
    for t in (int(x) for x in lengths.split()):
        if not 1 <= t <= cfg.n_ctx:
            raise ValueError(f"length {t}: GPT-2 small has positions 1 to {cfg.n_ctx}")
        full, one = sizes.multiply_adds(cfg, t, t), sizes.multiply_adds(cfg, t, 1)
        rows.append([count(t), count(full), count(one), f"{full / one:.0f}"])
    return html_table("table-kv-growth", ["text length", "multiply-adds, whole text",
                                          "multiply-adds, cache", "ratio"], rows,
                      caption="GPT-2 small, one more token")


@what_changed.table("tied")
def tied_table(ex: Example) -> str:
    """The toy with its own W_U and with W_U = Eᵀ: weights, prediction and its p."""
    rows = []
    for name, tied in (("separate " + im("W_U") + " (the toy)", False), (im("W_U = E^\\top"), True)):
        cfg, params = variant(ex, tied=tied)
        rows.append([name, count(sizes.count_params(cfg)["total"])]
                    + _prediction(ex, gpt.forward(params, cfg, ex.ids, ex.n_heads)))
    return html_table("table-tied", ["output", "toy weights", "prediction", "its p"], rows)


# ---------------------------------------------------------------- formulas

@what_changed.formula("rmsnorm")
def rmsnorm_formula(ex: Example) -> str:
    """u' for the last row, LayerNorm against RMSNorm."""
    t = len(ex.ids)
    h = ex.block["h"][-1]
    ln, rms = run(ex)["blocks"][0], run(ex, norm="rms")["blocks"][0]
    return aligned([
        ("\\mu", tex(fixed(h.mean()))),
        (f"\\mathrm{{LN}}(h_{t})", f"\\frac{{h_{t} - \\mu}}{{{tex(fixed(ln['sigma2'][-1]))}}} = "
                                   f"{tex_vector(ln['u2'][-1])}"),
        (f"\\mathrm{{RMS}}(h_{t})", f"\\frac{{h_{t}}}{{{tex(fixed(rms['sigma2'][-1]))}}} = "
                                    f"{tex_vector(rms['u2'][-1])}")])


# ---------------------------------------------------------------- numbers

@what_changed.number("count")
def count_number(ex: Example, model: str = "Llama 2 7B", piece: str = "total") -> str:
    """A parameter count of one model of the comparison, whole or by piece."""
    cfgs = models(ex)
    if model not in cfgs:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfgs)}")
    counts = sizes.count_params(cfgs[model])
    if piece not in counts:
        raise ValueError(f"piece = {piece!r}: expected one of {', '.join(counts)}")
    return count(counts[piece])


@what_changed.number("first_norm")
def first_norm_note(ex: Example) -> str:
    """Whether the two pre-norms agree on what attention reads, and why. Plain HTML,
    not inline math: in prose arithmatex would mark the marked span again."""
    t, mean = len(ex.ids), ex.trace["X"][-1].mean()
    if fixed(mean) == fixed(0):
        return (f"the two pre-norms agree here, because the row <i>x</i><sub>{t}</sub> has mean "
                f"{fixed(mean)}, and for a row of mean zero RMSNorm and LayerNorm are the same sum")
    return (f"the two pre-norms differ already here, because the row <i>x</i><sub>{t}</sub> has mean "
            f"{fixed(mean)}, which only LayerNorm takes away")


@what_changed.number("size")
def size_number(ex: Example, model: str = "Llama 2 7B", name: str = "n_ctx") -> str:
    """One size of a model of the comparison: V, d, n_ctx, blocks or width."""
    cfgs = models(ex)
    if model not in cfgs:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfgs)}")
    sizes = {"V": cfgs[model].vocab_size, "d": cfgs[model].d, "n_ctx": cfgs[model].n_ctx,
             "blocks": cfgs[model].n_blocks, "width": cfgs[model].mlp_width}
    if name not in sizes:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(sizes)}")
    return count(sizes[name])


@what_changed.number("h_mean")
def h_mean_number(ex: Example) -> str:
    """The mean of h for the last token (what RMSNorm would not subtract)."""
    return fixed(ex.block["h"][-1].mean())


@what_changed.number("rope_gap")
def rope_gap_number(ex: Example) -> str:
    """The largest difference between two scores at the same distance."""
    by_distance: dict[int, list[float]] = {}
    for m, n, s in rope_scores(ex):
        by_distance.setdefault(m - n, []).append(s)
    return tiny(max(max(v) - min(v) for v in by_distance.values()))


@what_changed.number("generated")
def generated_number(ex: Example) -> str:
    """The sentence continued greedily until the context is full: one token per free position, and one more from the full context."""
    ids, _ = inference.generate(ex.model.params, ex.model.cfg, ex.ids, _new_tokens(ex), ex.n_heads)
    return html_escape_tokens(ex, ids)


@what_changed.number("tied_note")
def tied_note_number(ex: Example) -> str:
    """A sentence on the tied and separate outputs' top probabilities when
    they print alike at three places: a coincidence, shown to four."""
    tops = []
    for tied in (False, True):
        cfg, params = variant(ex, tied=tied)
        p = gpt.forward(params, cfg, ex.ids, ex.n_heads)["p"][-1]
        tops.append((token_text(ex.model.vocab[int(np.argmax(p))]), p.max()))
    (a, pa), (b, pb) = tops
    if fixed(pa) != fixed(pb):
        return ""
    tokens = f"the same token, {a}" if a == b else f"two different tokens, {a} and {b}"
    return (f"The two top probabilities both print as {fixed(pa)}, for {tokens}. That is a "
            f"coincidence, not a property of tying: to four places they are {fixed(pa, 4)} "
            f"and {fixed(pb, 4)}.")


@what_changed.number("cache")
def cache_number(ex: Example, model: str = "Llama 2 7B") -> str:
    """The numbers a KV cache keeps per token for one model."""
    cfgs = models(ex)
    if model not in cfgs:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfgs)}")
    return count(sizes.cache_per_token(cfgs[model], ex.n_heads if model == "toy" else None))


what_changed.constant("kv_heads", str(KV_HEADS_RUN), "The number of key/value heads in the grouped-query run.")


# ---------------------------------------------------------------- helpers

def html_escape_tokens(ex: Example, ids: list[int]) -> str:
    return " ".join(token_code(ex.model.vocab[i]) for i in ids)


def _share(part: int, total: int) -> str:
    """A percentage with one place; a share too small for it says so."""
    if 0 < part < total / 2000:
        return "&lt; 0.1%"
    return f"{100 * part / total:.1f}%"


def _new_tokens(ex: Example) -> int:
    return inference.room(ex.model.cfg, len(ex.ids))


def _generation(ex: Example) -> list[dict]:
    """Each step of greedy generation with and without the cache."""
    params, cfg, n = ex.model.params, ex.model.cfg, _new_tokens(ex)
    full_ids, full_p = inference.generate(params, cfg, ex.ids, n, ex.n_heads, cached=False)
    cached_ids, cached_p = inference.generate(params, cfg, ex.ids, n, ex.n_heads, cached=True)
    if full_ids != cached_ids:
        raise ValueError(f"the KV cache changed the text: {full_ids} against {cached_ids}")
    steps, T0 = [], len(ex.ids)
    for s, (pf, pc) in enumerate(zip(full_p, cached_p)):
        length, token = T0 + s, full_ids[T0 + s]
        steps.append({"length": length, "token": token, "p_full": pf[token], "p_cached": pc[token],
                      "gap": float(np.abs(pf - pc).max()),
                      "work_full": sizes.multiply_adds(cfg, length, length, ex.n_heads),
                      # the first step has no cache yet: the prompt is run whole
                      "work_cached": sizes.multiply_adds(cfg, length, length if s == 0 else 1, ex.n_heads)})
    return steps


# ---------------------------------------------------------------- figures
# Drawn from the same numbers as the tables beside them (draw.py's charts).

# Where the parameters sit: sizes.count_params' pieces, in four places and the rest
PLACES = (("embedding", ("E", "P")), ("attention", ("W_QKV", "W_O")), ("MLP", ("W_MLP",)),
          ("output", ("W_U",)), ("other", ("biases", "layernorm")))
# in words: a <title> takes no subscript, and W_Q there would read as a name with an underscore
PLACE_SYMBOLS = {"embedding": "E, P", "attention": "the query, key, value and output matrices",
                 "MLP": "the MLP matrices", "output": "the unembedding matrix", "other": "biases and norm weights"}
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


@what_changed.figure("params")
def params_figure(ex: Example) -> str:
    """GPT-2 small and Llama 2 7B: each model's parameters as one bar cut
    into the places where they sit."""
    models_ = (("GPT-2 small", GPT2_SMALL), ("Llama 2 7B", LLAMA2_7B))
    names = [n for n, _ in PLACES]
    rows, titles, totals = [], [], []
    for model, cfg in models_:
        c = sizes.count_params(cfg)
        row = [sum(c[k] for k in pieces) for _, pieces in PLACES]
        rows.append(row)
        titles.append([f"{model}, {n} ({PLACE_SYMBOLS[n]}): {count(v)} of {count(c['total'])} parameters "
                       f"({_share_text(v, c['total'])})" for n, v in zip(names, row)])
        totals.append(count(c["total"]))
    drawing = stacked_bars_svg([m for m, _ in models_], names, rows, titles,
                               "Two stacked bars, GPT-2 small and Llama 2 7B, each cut into the shares of "
                               "its parameters in the embedding, attention, the MLP, the output layer and "
                               "the rest; the total is printed after each bar", totals, span=150)
    return figure("modern-params", drawing,
                  "Each bar is one model's parameters, whatever their number (printed after the bar)"
                  '<span class="screen-only">; point at or tap a piece for its count</span>')


@what_changed.figure("kv")
def kv_figure(ex: Example, step: int = 64) -> str:
    """GPT-2 small's work for one more token against the length of the
    text, with and without the KV cache (sizes.multiply_adds, as
    table kv_growth)."""
    cfg = GPT2_SMALL
    if not 1 <= step <= cfg.n_ctx:
        raise ValueError(f"step = {step}: expected 1 to {cfg.n_ctx}, GPT-2 small's positions")
    lengths = [1] + list(range(step, cfg.n_ctx + 1, step))
    full = [(t, sizes.multiply_adds(cfg, t, t)) for t in lengths]
    cached = [(t, sizes.multiply_adds(cfg, t, 1)) for t in lengths]
    # on a log axis: the cached work is a thousandth of the other at the end,
    # and a linear axis would lay it flat on zero; a step up is ten times more
    series = [(name, [(t, math.log10(w)) for t, w in work],
               [f"GPT-2 small, text length {count(t)}, {name}: {count(w)} multiply-adds" for t, w in work])
              for name, work in (("without the cache", full), ("with the KV cache", cached))]
    ws = [w for work in (full, cached) for _, w in work]
    powers = range(math.floor(math.log10(min(ws))), math.ceil(math.log10(max(ws))) + 1)
    xs = [q * cfg.n_ctx // 4 for q in range(5)]
    drawing = line_chart_svg(
        series, f"Two lines against the length of the text, 1 to {count(cfg.n_ctx)}, on a logarithmic "
                f"scale of work: GPT-2 small's multiply-adds for one more token when it runs the whole text "
                f"again (rising to {count(full[-1][1])}) and when it reads the KV cache (about flat, "
                f"{count(cached[-1][1])} at the end)",
        [(v, count(int(v))) for v in xs], [(float(k), _power(k)) for k in powers],
        x_label="length of the text (tokens)", y_label="multiply-adds for one more token (log scale)",
        width=336, height=240)
    ratio = full[-1][1] / cached[-1][1]
    return figure("modern-kv", drawing,
                  "The work for one more token, each step up the axis ten times more: without the cache it "
                  f"grows with the text, with it it stays near the work of a single row ({ratio:.0f} times "
                  f"less at {count(cfg.n_ctx)} tokens)<span class=\"screen-only\">; point at or tap a dot for the "
                  "exact count</span>")


def _power(k: int) -> str:
    """10^k as the axis prints it: 1, 10, 100, 1,000 ... up to a thousand, then 10⁴ (a real superscript)."""
    if 0 <= k <= 3:
        return count(10 ** k)
    return "10" + str(k).replace("-", "⁻").translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


@what_changed.figure("rope")
def rope_figure(ex: Example, head: int = 1) -> str:
    """The two vectors of table rope_scores, q of the last token and k of
    the first, in the plane of their first pair of columns (the pair that
    turns fastest), placed at each (m, n) of ROPE_PAIRS: before the turn
    (dashed) and after. At the same distance m − n the turned q and k make
    the same angle."""
    check_head(ex, head)
    b, cols = run(ex, positions="rope")["blocks"][0], ex.head_columns(head)
    q, k = b["Q"][-1, cols], b["K"][0, cols]
    d_head, base, last = len(q), ex.model.cfg.rope_base, len(ex.ids)
    ghosts = [("q", q, "s1", f"q{_sub(last)} (token {last}), its first pair before any turn: {_pair(q)}"),
              ("k", k, "s2", f"k₁ (token 1), its first pair before any turn: {_pair(k)}")]
    parts = []
    for m, n in ROPE_PAIRS:
        arrows, arcs, turned = [], [], {}
        for (name, v, cls, title), pos, radius in zip(ghosts, (m, n), (0.3, 0.4)):
            c, s = gpt.rope_angles([pos - 1], d_head, base)
            w = gpt.rope(v[None], c, s)[0][:2]
            turn = float(pos - 1)   # the first pair turns by one radian a step (theta_0 = base^0)
            turned[name] = w
            if turn:   # unturned, the vector is its own ghost
                arrows.insert(0, (name, float(v[0]), float(v[1]), cls + " dashed", title))
                arcs.append((radius, _angle(v), _angle(v) + turn, cls,
                             f"{name} turned for position {pos}: {fixed(turn)} radians"))
            arrows.append((f"{name}_{pos}", float(w[0]), float(w[1]), cls,
                           f"{name} placed at position {pos}, turned by {fixed(turn)} radians: {_pair(w)}"))
        angle = _angle(turned["q"]) - _angle(turned["k"])
        angle = math.atan2(math.sin(angle), math.cos(angle))
        arcs.append((0.6, _angle(turned["k"]), _angle(turned["k"]) + angle, "s3",
                     f"the angle from k at {n} to q at {m}: {fixed(angle)} radians"))
        drawing = arrows_svg(arrows, f"In the plane of the first pair of columns of head {head}: q placed "
                                     f"at position {m} and k at position {n}, each turned from its place "
                                     f"before the turn (dashed), {fixed(angle)} radians apart", size=144,
                             arcs=arcs)
        parts.append(figure("modern-rope", drawing, f"q at {m}, k at {n}<br>distance {m - n}, angle "
                                                    f"{fixed(angle)}", m=m, n=n))
    key = ('<p class="fig-legend fig-key modern-rope-key"><span class="swatch s1"></span> q '
           '<span class="swatch s2"></span> k; <span class="key-line"></span> placed at its position '
           '(turned), <span class="key-line dashed"></span> before the turn; the arc near the centre: '
           "the angle from k to q. <span class=\"screen-only\">Point at or tap an arrow for its numbers.</span></p>")
    return f'<div class="fig-row">{"".join(parts)}</div>{key}'


def _angle(v) -> float:
    return math.atan2(float(v[1]), float(v[0]))


def _pair(v) -> str:
    return f"({fixed(v[0])}, {fixed(v[1])})"


def _sub(n: int) -> str:
    return str(n).translate(SUBSCRIPT)


def _share_text(part: int, total: int) -> str:
    """_share as plain text, for a <title>."""
    return "< 0.1%" if 0 < part < total / 2000 else f"{100 * part / total:.1f}%"
