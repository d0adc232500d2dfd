"""What the nano-gpt chapter shows, as pure functions of a nano_example.Run.

Four registries, each function returning a string: MATRICES (coloured
cells: activations green, weights blue), TABLES (HTML tables with stable
ids), FORMULAS (display TeX with the numbers in) and NUMBERS (one value
for the prose). Time steps t and channels count from 0, as in the code;
heads and blocks are named 1 to 3. Big matrices are summarised: a corner
is shown, with the range of all their values.
"""
from __future__ import annotations

import functools
import html
import inspect
import json
import re

import numpy as np

from ..model import gpt, nanogpt
from .nano_example import Run
from .render import (aligned, aligned_rows, count, fixed, html_table, inline_math as im, math_block, tex,
                     tex_vector)

ROWS = 8          # rows of a big matrix shown by default
MINGPT_LEAVES_OUT = ("W_U",)   # minGPT counts transformer.parameters(), not lm_head
LENGTH_SIGN = im("\\lVert\\cdot\\rVert")


# ---------------------------------------------------------------- coloured cells

def cell(value: float, kind: str, label: str, scale: float) -> str:
    """One coloured cell: its value printed, in its title (hover) and its
    aria-label (read on keyboard focus); the shade grows with |value|.
    Reached by the arrow keys, not by Tab (see one_tab_stop)."""
    text = fixed(value)
    alpha = 0.08 + 0.55 * min(abs(float(value)) / scale, 1.0) if scale > 0 else 0.08
    said = html.escape(f"{label}: {text}")
    return (f'<td class="nano-cell nano-{kind}" tabindex="-1" title="{said}" aria-label="{said}" '
            f'style="--shade:{alpha:.2f}">{text}</td>')


def heat(table_id: str, M, kind: str, rows: list[int], row_names: list[str], cols: list[int],
         col_names: list[str], label, caption: str, blank=lambda r, c: False,
         more_rows: int = 0, more_cols: int = 0) -> str:
    """A matrix as coloured cells. M is indexed [row, col] as displayed;
    label(r, c) names a cell in words; blank(r, c) leaves a cell empty."""
    scale = float(np.abs(M).max())
    head = "".join(f'<th scope="col">{n}</th>' for n in col_names)
    if more_cols:
        head += f'<th scope="col">… {more_cols} more</th>'
    lines = [f'<table id="{html.escape(table_id)}" class="nano-matrix nano-matrix--{kind}">',
             f"<caption>{caption}</caption>", f'<thead><tr><td></td>{head}</tr></thead>', "<tbody>"]
    for r, name in zip(rows, row_names):
        cells = "".join('<td class="nano-cell nano-masked"></td>' if blank(r, c)
                        else cell(M[r, c], kind, label(r, c), scale) for c in cols)
        if more_cols:
            cells += '<td class="nano-more">…</td>'
        lines.append(f'<tr><th scope="row">{name}</th>{cells}</tr>')
    if more_rows:
        span = len(cols) + (1 if more_cols else 0)
        lines.append(f'<tr><th scope="row">⋮</th><td class="nano-more" colspan="{span}">'
                     f"{more_rows} more rows</td></tr>")
    lines.append("</tbody></table>")
    return one_tab_stop("\n".join(lines))


def one_tab_stop(table: str) -> str:
    """A matrix is one stop of the Tab key, its first cell; the arrow keys
    move within it (docs/javascripts/letters.js), so that an opened W_1
    does not put 9,216 stops between the reader and the next paragraph."""
    return table.replace('tabindex="-1"', 'tabindex="0"', 1)


def _range(M) -> str:
    return f"from {fixed(np.min(M))} to {fixed(np.max(M))}"


def _kind_words(kind: str) -> str:
    return {"act": "green: numbers being processed", "weight": "blue: learned weights"}[kind]


def activations(run: Run, table_id: str, M, what: str, symbol: str, rows: int,
                row_names=None, row_picks=None, more_rows: int | None = None) -> str:
    """A T x n activation drawn as the walkthrough draws it: one column per
    time step, one row per channel; the first `rows` channels shown (or the
    channels row_picks, with more_rows counted as not shown)."""
    T, n = M.shape
    picks = list(range(min(rows, n))) if row_picks is None else row_picks
    names = row_names or [f"c = {c}" for c in picks]
    shown = f"all {n} rows" if len(picks) == n else f"{len(picks)} of its {n} rows"
    caption = (f"{what} {im(symbol)}: {T} × {n}, drawn with one column per time step; "
               f"{shown}, its {count(T * n)} values run {_range(M)} ({_kind_words('act')})")
    letters = [nanogpt.VOCAB[i] for i in run.ids[:T]]
    return heat(table_id, M.T, "act", picks, names, list(range(T)),
                [f"t = {t}<br>{letters[t]}" for t in range(T)],
                lambda r, c: f"{what}, channel {r}, t = {c} ({letters[c]})", caption,
                more_rows=(n - len(picks) if row_picks is None else 0) if more_rows is None else more_rows)


def weights(table_id: str, W, what: str, symbol: str, rows: int, cols: int,
            col_names=None) -> str:
    """A weight matrix: its top-left corner, with its shape and range."""
    n, m = W.shape
    r, c = min(rows, n), min(cols, m)
    shown = "all of it" if (r, c) == (n, m) else f"rows 0 to {r - 1} and columns 0 to {c - 1}"
    caption = (f"{what} {im(symbol)}: {n} × {m}, {shown}; its {count(n * m)} values run "
               f"{_range(W)} ({_kind_words('weight')})")
    return heat(table_id, W, "weight", list(range(r)), [str(i) for i in range(r)], list(range(c)),
                col_names or [str(j) for j in range(c)],
                lambda i, j: f"{what}, row {i}, column {j}", caption,
                more_rows=n - r, more_cols=m - c)


# ---------------------------------------------------------------- matrices

def E_matrix(run: Run, rows: int = ROWS) -> str:
    """The token embedding, one column per letter (the walkthrough's layout)."""
    return heat("nano-E", run.params["E"].T, "weight", list(range(rows)),
                [f"c = {c}" for c in range(rows)], [0, 1, 2],
                [f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)],
                lambda c, i: f"token embedding of {nanogpt.VOCAB[i]}, channel {c}",
                f"Token embedding {im('E')}: one column of {run.cfg.d} per letter, "
                f"{rows} of its {run.cfg.d} rows; its values run {_range(run.params['E'])} "
                f"({_kind_words('weight')})", more_rows=run.cfg.d - rows)


def P_matrix(run: Run, rows: int = ROWS) -> str:
    """nano-gpt's position embedding P as a grid of cells, first rows shown."""
    n = run.cfg.n_ctx
    return heat("nano-P", run.params["P"].T, "weight", list(range(rows)),
                [f"c = {c}" for c in range(rows)], list(range(n)), [f"t = {t}" for t in range(n)],
                lambda c, t: f"position embedding of t = {t}, channel {c}",
                f"Position embedding {im('P')}: one column of {run.cfg.d} per position, "
                f"{rows} of its {run.cfg.d} rows; its values run {_range(run.params['P'])} "
                f"({_kind_words('weight')})", more_rows=run.cfg.d - rows)


def X_matrix(run: Run, rows: int = ROWS) -> str:
    """The input embedding X = E[ids] + P as a grid of cells."""
    return activations(run, "nano-X", run.trace["X"], "Input embedding", "x", rows)


def u_matrix(run: Run, block: int = 1, rows: int = ROWS) -> str:
    """The normalised input u of one block as a grid of cells."""
    b = _block(run, block)
    return activations(run, f"nano-u-{block}", b["u"], f"Normalised input of block {block}",
                       "u = \\mathrm{LN}(x)", rows)


def qkv_matrix(run: Run, which: str = "Q", head: int = 1, block: int = 1, rows: int = ROWS) -> str:
    """The queries, keys or values of one head of one block as a grid of cells."""
    block, head = _follow(run, block, head)
    if which not in ("Q", "K", "V"):
        raise ValueError(f"which = {which!r}: expected one of Q, K, V")
    b, cols = _block(run, block), _head(run, head)
    what = {"Q": "Queries", "K": "Keys", "V": "Values"}[which]
    return activations(run, f"nano-{which}-{block}-{head}", b[which][:, cols],
                       f"{what} of head {head}, block {block},", which.lower(), rows)


def attention_matrix(run: Run, head: int = 1, block: int = 1) -> str:
    """A head's attention weights: one row per query t, one column per key j."""
    block, head = _follow(run, block, head)
    b = _block(run, block)
    _head(run, head)
    a = b["weights"][head - 1]
    T = run.T
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    caption = (f"Attention weights of head {head}, block {block}: row t is the query at time t, "
               f"column j the key it reads; the blank cells are the future, masked "
               f"({_kind_words('act')})")
    return heat(f"nano-attention-{block}-{head}", a, "act", list(range(T)),
                [f"t = {t} {letters[t]}" for t in range(T)], list(range(T)),
                [f"j = {j}<br>{letters[j]}" for j in range(T)],
                lambda t, j: f"weight of t = {t} on j = {j}", caption, blank=lambda t, j: j > t)


def A_matrix(run: Run, block: int = 1, per_head: int = 4) -> str:
    """The heads' outputs stacked: the first channels of each head (the
    others counted as "N more rows", which the browser can open)."""
    b = _block(run, block)
    A = run.cfg.d // run.cfg.n_heads
    picks = [h * A + i for h in range(run.cfg.n_heads) for i in range(min(per_head, A))]
    names = [f"head {c // A + 1}, c = {c}" for c in picks]
    return activations(run, f"nano-A-{block}", b["A"], f"Heads stacked, block {block}", "a",
                       0, row_names=names, row_picks=picks, more_rows=run.cfg.d - len(picks))


def W_matrix(run: Run, name: str = "W_Q", block: int = 1, rows: int = ROWS, cols: int = ROWS) -> str:
    """A weight matrix of a block (W_Q ...) or of the model (W_U)."""
    if name == "W_U":
        return weights("nano-W_U", run.params["W_U"], "Output matrix", "W_U", rows, cols,
                       col_names=[f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)])
    names = [k for k, s in gpt.block_shapes(run.cfg).items() if len(s) == 2]
    if name not in names:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(names + ['W_U'])}")
    _block(run, block)
    W = run.params[f"blocks.{block - 1}.{name}"]
    return weights(f"nano-{name}-{block}", W, f"Block {block}'s weight matrix", name, rows, cols)


def mlp_matrix(run: Run, which: str = "mlp_post", block: int = 1, rows: int = ROWS) -> str:
    """One MLP stage of a block (before or after GELU, m, y or h) as a grid of cells."""
    names = {"mlp_pre": ("MLP hidden layer before GELU", "u' W_1 + b_1"),
             "mlp_post": ("MLP hidden layer after GELU", "\\mathrm{GELU}(u' W_1 + b_1)"),
             "m": ("MLP output", "m"), "y": ("Block output", "y"), "h": ("After attention", "h")}
    if which not in names:
        raise ValueError(f"which = {which!r}: expected one of {', '.join(names)}")
    b = _block(run, block)
    return activations(run, f"nano-{which}-{block}", b[which], f"{names[which][0]}, block {block}",
                       names[which][1], rows)


def p_matrix(run: Run) -> str:
    """The output probabilities, one column per time step, one row per letter."""
    p = run.trace["p"]
    return activations(run, "nano-p", p, "Output probabilities", "p", len(nanogpt.VOCAB),
                       row_names=[f"p({l})" for l in nanogpt.VOCAB], row_picks=[0, 1, 2])


# ---------------------------------------------------------------- tables

def legend_table(run: Run) -> str:
    """The legend: how a weight cell and an activation cell look."""
    w, a = run.params["E"][0, :3], run.trace["X"][0, :3]
    s = max(np.abs(w).max(), np.abs(a).max())
    row_a = "".join(cell(v, "act", f"an activation, value {i + 1}", s) for i, v in enumerate(a))
    row_w = "".join(cell(v, "weight", f"a weight, value {i + 1}", s) for i, v in enumerate(w))
    return one_tab_stop("\n".join([
        '<table id="nano-legend" class="nano-matrix">',
        "<caption>How the chapter draws numbers</caption>", "<tbody>",
        f'<tr><th scope="row">being processed (green)</th>{row_a}</tr>',
        f'<tr><th scope="row">weights (blue)</th>{row_w}</tr>', "</tbody></table>"]))


def vocab_table(run: Run) -> str:
    """nano-gpt's three tokens and their indices."""
    return html_table("nano-vocab", ["token"] + list(nanogpt.VOCAB),
                      [["index"] + [str(i) for i in range(len(nanogpt.VOCAB))]])


def params_table(run: Run) -> str:
    """The parameters by piece, and what minGPT's count leaves out."""
    c, cfg = gpt.count_params(run.cfg), run.cfg
    d, w, V, n, B = cfg.d, cfg.mlp_width, cfg.vocab_size, cfg.n_ctx, cfg.n_blocks
    rows = [
        [f"token embedding {im('E')}", f"{V} × {d}", count(c["E"])],
        [f"position embedding {im('P')}", f"{n} × {d}", count(c["P"])],
        [f"{im('W_Q')}, {im('W_K')}, {im('W_V')}", f"{B} blocks × 3 × {d} × {d}", count(c["W_QKV"])],
        [f"projection {im('W_O')}", f"{B} × {d} × {d}", count(c["W_O"])],
        [f"MLP {im('W_1')}, {im('W_2')}", f"{B} × ({d} × {w} + {w} × {d})", count(c["W_MLP"])],
        [f"biases {im('b_Q, b_K, b_V, b_O, b_1, b_2')}", f"{B} × (5 × {d} + {w})", count(c["biases"])],
        ["LayerNorm " + im("\\gamma, \\beta"), f"({2 * B} + 1) × 2 × {d}", count(c["layernorm"])],
        [f"output {im('W_U')} (no bias)", f"{d} × {V}", count(c["W_U"])],
        ["<strong>total</strong>", "", f"<strong>{count(c['total'])}</strong>"],
        ["what minGPT counts (all but the output layer)", "", count(mingpt_count(run))],
    ]
    return html_table("nano-params", ["piece", "shape", "parameters"], rows)


def training_table(run: Run) -> str:
    """How the shipped weights were trained, read from their record."""
    rec = run.model.record
    if not rec:
        return "<p><em>No training record beside the weights file.</em></p>"
    opt = rec.get("optimizer", {})
    rows = [["seed", str(rec.get("seed"))], ["batch", str(rec.get("batch"))],
            ["optimiser", html.escape(f"{opt.get('name')}, learning rate {opt.get('lr')}, "
                                      f"betas {tuple(opt.get('betas', ()))}, weight decay "
                                      f"{opt.get('weight_decay')}")],
            ["steps", count(rec.get("steps", 0))],
            ["final training loss", html.escape(f"{fixed(rec['final_loss'], 4)} "
                                                f"({rec.get('final_loss_means', '')})")],
            ["loss on all 729 inputs", fixed(rec["loss_on_729"], 4)],
            ["inputs sorted by greedy decoding", f"{rec['accuracy_on_729']} of 729"]]
    if "stored_as" in rec:
        rows[3:3] = [["computed in", html.escape(str(rec.get("dtype")))],
                     ["weights stored as", html.escape(str(rec["stored_as"]))]]
    return html_table("nano-training", ["", "this model"], rows)


def embed_table(run: Run, t: int = 3, rows: int = ROWS) -> str:
    """The embedding of time t: token column + position column = input column."""
    _t(run, t)
    i, tr = run.ids[t], run.trace
    body = [[str(c), fixed(tr["E_ids"][t, c]), fixed(tr["P_t"][t, c]), fixed(tr["X"][t, c])]
            for c in range(rows)]
    body.append(["⋮", "⋮", "⋮", "⋮"])
    letter = nanogpt.VOCAB[i]
    return html_table(f"nano-embed-{t}", ["channel", f"token {letter}: {im(f'E[{i}]')}",
                                          f"position: {im(f'P[{t}]')}", im(f"x_{t}")], body,
                      caption=f"The column of t = {t}, first {rows} of {run.cfg.d} channels")


def layernorm_table(run: Run, t: int = 3, block: int = 1, rows: int = ROWS) -> str:
    """LayerNorm of one position, channel by channel: x, x − μ, x̂, γ, β and u."""
    _t(run, t)
    b, B = _block(run, block), block - 1
    x, mu = b["X"][t], b["mu"][t]
    g, beta = run.params[f"blocks.{B}.gamma_1"], run.params[f"blocks.{B}.beta_1"]
    xhat = b["ln1"]["xhat"][t]
    body = [[str(c), fixed(x[c]), fixed(x[c] - mu), fixed(xhat[c]), fixed(g[c]), fixed(beta[c]),
             fixed(b["u"][t, c])] for c in range(rows)]
    body.append(["⋮"] * 7)
    return html_table(f"nano-layernorm-{block}-{t}",
                      ["channel", im(f"x_{t}"), im("x - \\mu"), im("\\hat x"),
                       im("\\gamma"), im("\\beta"), im("u")], body,
                      caption=f"LayerNorm of the column t = {t} in block {block}, "
                              f"first {rows} of {run.cfg.d} channels: "
                              + im("\\hat x = (x - \\mu)/\\sigma") + ", " + im("u = \\gamma \\hat x + \\beta"))


def attention_row_table(run: Run, t: int = 5, head: int = 1, block: int = 1) -> str:
    """Row t of a head: q.k, the scaled score, its softmax, for each key j <= t."""
    block, head = _follow(run, block, head)
    _t(run, t)
    b, h = _block(run, block), head - 1
    _head(run, head)
    dots, s, a = b["dots"][h, t], b["scores"][h, t], b["weights"][h, t]
    m = s[: t + 1].max()
    e = np.exp(s[: t + 1] - m)
    body = [[str(j), nanogpt.VOCAB[run.ids[j]], fixed(dots[j]), fixed(s[j]), fixed(s[j] - m),
             fixed(e[j]), fixed(a[j])] for j in range(t + 1)]
    body.append(["<strong>sum</strong>", "", "", "", "", f"<strong>{fixed(e.sum())}</strong>",
                 f"<strong>{fixed(a[: t + 1].sum())}</strong>"])
    A = run.cfg.d // run.cfg.n_heads
    return html_table(f"nano-attention-row-{block}-{head}-{t}",
                      [im("j"), "letter", im(f"q_{t} \\cdot k_j"), im("s"),
                       im("s - \\max s"), im("e^{s - \\max s}"), im(f"a_{{{t},j}}")], body,
                      caption=f"Head {head} of block {block}, the query of t = {t} against every key "
                              f"up to it, " + im(f"s = q_{t} \\cdot k_j / \\sqrt{{{A}}}") + ": max of the scores "
                              f"{fixed(m)}, sum of the exponentials {fixed(e.sum())}")


def residual_table(run: Run, t: int = 5, block: int = 1, rows: int = ROWS) -> str:
    """The residual sum at one position: heads joined, W_O, x and h."""
    _t(run, t)
    b = _block(run, block)
    body = [[str(c), fixed(b["A"][t, c]), fixed(b["attn"][t, c]), fixed(b["X"][t, c]),
             fixed(b["h"][t, c])] for c in range(rows)]
    body.append(["⋮"] * 5)
    return html_table(f"nano-residual-{block}-{t}",
                      ["channel", im(f"a_{t}") + " (heads stacked)", im(f"a_{t} W_O + b_O"),
                       im(f"x_{t}") + " (block input)", im(f"h_{t} = x_{t} + a_{t} W_O + b_O")], body,
                      caption=f"Projection and residual at t = {t}, block {block}, "
                              f"first {rows} of {run.cfg.d} channels")


def mlp_hidden_table(run: Run, t: int = 5, block: int = 1, rows: int = ROWS) -> str:
    """The MLP's hidden layer at one position, before and after GELU."""
    _t(run, t)
    b = _block(run, block)
    body = [[str(c), fixed(b["mlp_pre"][t, c]), fixed(b["mlp_post"][t, c])] for c in range(rows)]
    body.append(["⋮"] * 3)
    return html_table(f"nano-mlp-hidden-{block}-{t}",
                      ["channel", im(f"u'_{t} W_1 + b_1"), im("\\mathrm{GELU}(\\cdot)")], body,
                      caption=f"The MLP's hidden layer at t = {t}, block {block}, first {rows} "
                              f"of {run.cfg.mlp_width} channels")


def mlp_out_table(run: Run, t: int = 5, block: int = 1, rows: int = ROWS) -> str:
    """The MLP's way out at one position: h, u', m and y."""
    _t(run, t)
    b = _block(run, block)
    body = [[str(c), fixed(b["h"][t, c]), fixed(b["u2"][t, c]), fixed(b["m"][t, c]),
             fixed(b["y"][t, c])] for c in range(rows)]
    body.append(["⋮"] * 5)
    return html_table(f"nano-mlp-out-{block}-{t}",
                      ["channel", im(f"h_{t}"), im(f"u'_{t} = \\mathrm{{LN}}(h_{t})"),
                       im(f"m_{t}"), im(f"y_{t} = h_{t} + m_{t}")], body,
                      caption=f"In and out of the MLP at t = {t}, block {block}, first {rows} "
                              f"of {run.cfg.d} channels")


def blocks_table(run: Run, t: int = 5) -> str:
    """Each block at time t: the length of the residual column before and
    after, and of what attention and the MLP add to it."""
    _t(run, t)
    body = [[str(k + 1), fixed(np.linalg.norm(b["X"][t])), fixed(np.linalg.norm(b["attn"][t])),
             fixed(np.linalg.norm(b["m"][t])), fixed(np.linalg.norm(b["y"][t]))]
            for k, b in enumerate(run.trace["blocks"])]
    return html_table(f"nano-blocks-{t}",
                      ["block", im(f"\\lVert x_{t} \\rVert") + " in", im("\\lVert a W_O + b_O \\rVert"),
                       im("\\lVert m \\rVert"), im(f"\\lVert y_{t} \\rVert") + " out"], body,
                      caption=f"The column t = {t} through the blocks ({LENGTH_SIGN}: its length)")


def looks_table(run: Run, t: int = 5) -> str:
    """Where each head of each block looks most from time t."""
    _t(run, t)
    body = [[str(k + 1)] + [_look(run, b["weights"][h, t], t) for h in range(run.cfg.n_heads)]
            for k, b in enumerate(run.trace["blocks"])]
    return html_table(f"nano-looks-{t}", ["block"] + [f"head {h + 1}" for h in range(run.cfg.n_heads)],
                      body, caption=f"Where each head looks most from t = {t}: the letter, its time step and its weight")


def softmax_table(run: Run, t: int = 5) -> str:
    """The final softmax of column t: logits, max, shifted, exponent, p."""
    _t(run, t)
    z, p = run.trace["z"][t], run.trace["p"][t]
    m = z.max()
    e = np.exp(z - m)
    body = [[l, fixed(z[i]), fixed(z[i] - m), fixed(e[i]), fixed(p[i])] for i, l in enumerate(nanogpt.VOCAB)]
    body.append(["<strong>sum</strong>", "", "", f"<strong>{fixed(e.sum())}</strong>",
                 f"<strong>{fixed(p.sum())}</strong>"])
    return html_table(f"nano-softmax-{t}", ["letter", im("z"), im(f"z - {tex(fixed(m))}"),
                                            im("e^{z - \\max z}"), im("p")], body,
                      caption=f"The softmax of the column t = {t}: max {fixed(m)}, sum {fixed(e.sum())}")


def generate_table(run: Run) -> str:
    """The generation loop: read, predict, append, six times."""
    body = []
    for k, s in enumerate(run.steps):
        body.append([str(k + 1), " ".join(nanogpt.VOCAB[i] for i in s["ids"])]
                    + [fixed(v) for v in s["p"]] + [f"<strong>{nanogpt.VOCAB[s['next']]}</strong>"])
    return html_table("nano-generate", ["step", "the model reads", "p(A)", "p(B)", "p(C)", "appends"],
                      body, caption="Greedy decoding: the probabilities of the last column, "
                                    "and the letter appended")


# ---------------------------------------------------------------- formulas

def layernorm_formula(run: Run, t: int = 3, block: int = 1) -> str:
    """μ, σ² and one normalised channel of one position, in full."""
    _t(run, t)
    b = _block(run, block)
    x = b["X"][t]
    d = run.cfg.d
    var = ((x - x.mean()) ** 2).mean()
    return aligned([
        ("\\mu", f"\\frac{{1}}{{{d}}}\\sum_{{c=0}}^{{{d - 1}}} x_{{{t},c}} = {tex(fixed(b['mu'][t], 5))}"),
        ("\\sigma", f"\\sqrt{{\\mathrm{{Var}}[x_{t}] + \\varepsilon}} = \\sqrt{{{tex(fixed(var, 6))} + 10^{{-5}}}}"
                    f" = {tex(fixed(b['sigma'][t], 5))}")])


def qcell_formula(run: Run, t: int = 5, c: int = 0, block: int = 1, terms: int = 3) -> str:
    """One entry of Q as its dot product: u_t . (column c of W_Q) + b_Q[c]."""
    _t(run, t)
    b, B = _block(run, block), block - 1
    if not 0 <= c < run.cfg.d:
        raise ValueError(f"c = {c}: the channels are 0 to {run.cfg.d - 1}")
    u, W, bias = b["u"][t], run.params[f"blocks.{B}.W_Q"][:, c], run.params[f"blocks.{B}.b_Q"][c]
    parts = " + ".join(f"({tex(fixed(u[i]))})({tex(fixed(W[i]))})" for i in range(terms))
    return aligned([(f"Q_{{{t},{c}}}", f"\\sum_{{i=0}}^{{{run.cfg.d - 1}}} u_{{{t},i}} (W_Q)_{{i,{c}}} + (b_Q)_{{{c}}}"),
                    ("", f"{parts} + \\dots + ({tex(fixed(bias))})"), ("", tex(fixed(b["Q"][t, c])))])


def head_output_formula(run: Run, t: int = 5, head: int = 1, block: int = 1, channels: int = 4) -> str:
    """One head's output at one position as the weighted sum of values."""
    block, head = _follow(run, block, head)
    _t(run, t)
    b, h = _block(run, block), head - 1
    _head(run, head)  # checks the head
    a = b["weights"][h, t]
    o = b["outputs"][h, t]
    terms = [f"{tex(fixed(a[j]))}\\, v_{j}" for j in range(t + 1)]
    lines = [f"o_{t} &= " + " + ".join(terms[:3])] + ["&\\quad + " + " + ".join(terms[k:k + 3])
                                                     for k in range(3, len(terms), 3)]
    lines.append(f"&= [{', '.join(tex(fixed(x)) for x in o[:channels])}, \\dots]"
                 f"\\quad ({o.size} \\text{{ values}})")
    return aligned_rows(lines)


def gelu_formula(run: Run, t: int = 5, c: int = 0, block: int = 1) -> str:
    """The GELU formula and its value for one hidden channel."""
    _t(run, t)
    b = _block(run, block)
    x = b["mlp_pre"][t, c]
    return aligned([("\\mathrm{GELU}(x)", "\\tfrac12 x\\left(1 + \\tanh\\left(\\sqrt{2/\\pi}\\,"
                                           "(x + 0.044715\\, x^3)\\right)\\right)"),
                    (f"\\mathrm{{GELU}}({tex(fixed(x))})", tex(fixed(b["mlp_post"][t, c])))])


def logit_formula(run: Run, t: int = 5, letter: str = "A", terms: int = 3) -> str:
    """One letter's logit as f_t · W_U, first terms shown."""
    _t(run, t)
    i = _letter(letter)
    f, W = run.trace["f"][t], run.params["W_U"][:, i]
    parts = " + ".join(f"({tex(fixed(f[k]))})({tex(fixed(W[k]))})" for k in range(terms))
    return aligned([(f"z_{{{t},\\mathrm{{{letter}}}}}", f"f_{t} \\cdot W_U^{{({letter})}}"),
                    ("", f"{parts} + \\dots"), ("", tex(fixed(run.trace["z"][t, i])))])


def softmax_formula(run: Run, t: int = 5) -> str:
    """The softmax of one position's logits, with the shift by the largest."""
    _t(run, t)
    z = run.trace["z"][t]
    m, e = z.max(), np.exp(z - z.max())
    p = run.trace["p"][t]
    return math_block(f"p_i = \\frac{{e^{{z_i - {tex(fixed(m))}}}}}{{{tex(fixed(e.sum()))}}},\\quad "
                      f"p = {tex_vector(p)}")


# ---------------------------------------------------------------- numbers

def text_number(run: Run) -> str:
    """The chapter's input, as letters."""
    return html.escape(run.text)


def example_number(run: Run) -> str:
    """The book's example, as letters, where it stays when a page follows
    the reader's letters (in an attribute, in words about the example)."""
    return html.escape(run.text)


def ids_number(run: Run) -> str:
    """The chapter's input, as ids."""
    return " ".join(map(str, run.ids))


def answer_number(run: Run) -> str:
    """What the model writes after the input, by greedy decoding."""
    return nanogpt.letters(run.answer)


def sorted_number(run: Run) -> str:
    """The input sorted: the right answer."""
    return nanogpt.letters(sorted(run.ids))


def letter_number(run: Run, t: int = 3) -> str:
    """The letter at position t (0-based)."""
    _t(run, t)
    return nanogpt.VOCAB[run.ids[t]]


def id_number(run: Run, t: int = 3) -> str:
    """The id at position t (0-based)."""
    _t(run, t)
    return str(run.ids[t])


def size_number(run: Run, name: str = "d") -> str:
    """One size of nano-gpt: d, V, n_ctx, width, blocks, heads, A, T or inputs."""
    cfg = run.cfg
    sizes = {"d": cfg.d, "V": cfg.vocab_size, "n_ctx": cfg.n_ctx, "width": cfg.mlp_width,
             "blocks": cfg.n_blocks, "heads": cfg.n_heads, "A": cfg.d // cfg.n_heads, "T": run.T,
             "inputs": len(nanogpt.VOCAB) ** nanogpt.LENGTH}
    if name not in sizes:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(sizes)}")
    return str(sizes[name])


def count_number(run: Run, piece: str = "total") -> str:
    """nano-gpt's parameter count, whole, per block, by piece or as minGPT counts it."""
    counts = gpt.count_params(run.cfg)
    if piece == "block":
        return count(sum(np.prod(s) for s in gpt.block_shapes(run.cfg).values()))
    if piece == "mingpt":
        return count(mingpt_count(run))
    if piece not in counts:
        raise ValueError(f"piece = {piece!r}: expected one of {', '.join(list(counts) + ['block', 'mingpt'])}")
    return count(counts[piece])


def mingpt_printed_number(run: Run) -> str:
    """The count as minGPT prints it when it builds the model: millions, two places ("0.09M")."""
    return f"{mingpt_count(run) / 1e6:.2f}M"


def targets_number(run: Run, scored: bool = True) -> str:
    """The positions whose prediction training scores (scored=false: ignores), from the task's targets."""
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])
    ts = [t for t in range(targets.shape[1]) if (targets[0, t] >= 0) == scored]
    return f"{ts[0]} to {ts[-1]}" if ts == list(range(ts[0], ts[-1] + 1)) else ", ".join(map(str, ts))


def variance_number(run: Run, t: int = 3, block: int = 1, places: int = 3) -> str:
    """The population variance of the column at t that enters a block's first LayerNorm."""
    _t(run, t)
    return fixed(_block(run, block)["X"][t].var(), places)


def smallest_looks_table(run: Run) -> str:
    """For each head of each block, over every input that mixes letters: how
    often the last input position's largest weight falls on the smallest letter."""
    hits, n = run.smallest_looks
    body = [[f"block {b + 1}"] + [str(hits[b, h]) for h in range(run.cfg.n_heads)] for b in range(len(hits))]
    return html_table("nano-smallest-looks", [""] + [f"head {h + 1}" for h in range(run.cfg.n_heads)], body,
                      caption=f"How often the largest weight at t = {nanogpt.LENGTH - 1} falls on the smallest "
                              f"letter, out of the {n} inputs that mix letters")


def smallest_looks_number(run: Run, block=1, head=1) -> str:
    """How many inputs that mix letters see a head's largest weight at the last input position on the smallest letter; head="best": the best head."""
    block, head = _follow(run, block, head)
    _head(run, head)
    return str(run.smallest_looks[0][block - 1, head - 1])


def best_head_number(run: Run, part: str = "head") -> str:
    """The head (part="block": its block) that most often looks at the smallest letter."""
    if part not in ("head", "block"):
        raise ValueError(f"part = {part!r}: expected head or block")
    return str(run.best_head[0 if part == "block" else 1])


def mixed_number(run: Run) -> str:
    """How many of the possible inputs mix letters (not all one letter)."""
    return str(run.smallest_looks[1])


def largest_number(run: Run, name: str = "E") -> str:
    """The largest entry, in size, of a weight matrix (E, P, W_U, ...)."""
    if name not in run.params:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(run.params)}")
    return fixed(np.abs(run.params[name]).max())


def untrained_top_number(run: Run) -> str:
    """The least sure of the positions whose targets training ignored: the
    smallest of their largest probabilities."""
    return fixed(min(run.trace["p"][t].max() for t in _ignored(run)))


def _ignored(run: Run) -> list[int]:
    """The input positions whose targets training ignores."""
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])
    return [t for t in range(run.T) if targets[0, t] < 0]


def record_number(run: Run, key: str = "steps") -> str:
    """One entry of the training record (steps, seconds, accuracy on all inputs, ...)."""
    rec = run.model.record
    keys = ("seed", "batch", "steps", "final_loss", "loss_on_729", "accuracy_on_729", "seconds", "dtype", "stored_as")
    if key not in keys:
        raise ValueError(f"key = {key!r}: expected one of {', '.join(keys)}")
    if key not in rec:
        raise ValueError(f"key = {key!r} is not in the training record {nanogpt.record_path(run.model.path)}")
    value = rec[key]
    return fixed(value, 4) if key in ("final_loss", "loss_on_729") else html.escape(f"{value:,}"
                                                                                   if isinstance(value, int) else str(value))


def mu_number(run: Run, t: int = 3, block: int = 1, places: int = 3) -> str:
    """The LayerNorm mean μ at position t of a block."""
    _t(run, t)
    return fixed(_block(run, block)["mu"][t], places)


def sigma_number(run: Run, t: int = 3, block: int = 1, places: int = 3) -> str:
    """The LayerNorm σ at position t of a block."""
    _t(run, t)
    return fixed(_block(run, block)["sigma"][t], places)


def look_number(run: Run, t: int = 5, head: int = 1, block: int = 1) -> str:
    """Where a head's row t looks most: 'j = 2 (A), 0.335'."""
    block, head = _follow(run, block, head)
    _t(run, t)
    _head(run, head)
    return _look(run, _block(run, block)["weights"][head - 1, t], t)


def strongest_look_number(run: Run, t: int = 5, places: int = 3) -> str:
    """The largest weight any head of any block gives from time t."""
    _t(run, t)
    return fixed(max(b["weights"][:, t].max() for b in run.trace["blocks"]), places)


def p_number(run: Run, letter: str = "A", t: int = 5, places: int = 3) -> str:
    """The probability of a letter at position t (letter="top": of the most probable)."""
    _t(run, t)
    return fixed(run.trace["p"][t, _letter_at(run, letter, t)], places)


def percent_number(run: Run, letter: str = "A", t: int = 5) -> str:
    """The probability of a letter at position t as a percentage, one place: 99.4 % (letter="top": of the most probable)."""
    _t(run, t)
    return f"{100 * run.trace['p'][t, _letter_at(run, letter, t)]:.1f} %"


def top_number(run: Run, t: int = 5) -> str:
    """The most probable letter at position t."""
    _t(run, t)
    return nanogpt.VOCAB[int(np.argmax(run.trace["p"][t]))]


def min_step_p_number(run: Run, places: int = 3) -> str:
    """The lowest probability the chosen letter has in any step of the generation."""
    return fixed(min(s["p"][s["next"]] for s in run.steps), places)


# ---------------------------------------------------------------- helpers

def mingpt_count(run: Run) -> int:
    c = gpt.count_params(run.cfg)
    return c["total"] - sum(c[k] for k in MINGPT_LEAVES_OUT)


def _look(run: Run, row, t: int) -> str:
    j = int(np.argmax(row[: t + 1]))
    return f"{nanogpt.VOCAB[run.ids[j]]} at j = {j} ({fixed(row[j])})"


def _t(run: Run, t: int) -> None:
    if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < run.T:
        raise ValueError(f"t = {t!r}: the example has time steps 0 to {run.T - 1}")


def _block(run: Run, block: int) -> dict:
    n = run.cfg.n_blocks
    if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= n:
        raise ValueError(f"block = {block!r}: the model has blocks 1 to {n}")
    return run.block(block - 1)


def _follow(run: Run, block, head) -> tuple[int, int]:
    """head="best": the block and head that most often look at the smallest
    letter (Run.best_head), which the Self Attention page follows."""
    return run.best_head if head == "best" else (block, head)


def _head(run: Run, head: int) -> slice:
    n = run.cfg.n_heads
    if isinstance(head, bool) or not isinstance(head, int) or not 1 <= head <= n:
        raise ValueError(f"head = {head!r}: the model has heads 1 to {n}")
    return run.head_columns(head)


def _letter(letter: str) -> int:
    if letter not in nanogpt.VOCAB:
        raise ValueError(f"letter = {letter!r}: expected one of {', '.join(nanogpt.VOCAB)}")
    return nanogpt.VOCAB.index(letter)


def _letter_at(run: Run, letter: str, t: int) -> int:
    """The letter's id; "top": the most probable letter at position t (nano_gpt.js: letterAt)."""
    return int(np.argmax(run.trace["p"][t])) if letter == "top" else _letter(letter)


MATRICES = {
    "E": E_matrix, "P": P_matrix, "X": X_matrix, "u": u_matrix, "qkv": qkv_matrix,
    "attention": attention_matrix, "A": A_matrix, "W": W_matrix, "mlp": mlp_matrix, "p": p_matrix,
}
TABLES = {
    "legend": legend_table, "vocab": vocab_table, "params": params_table, "training": training_table,
    "embed": embed_table, "layernorm": layernorm_table, "attention_row": attention_row_table,
    "smallest_looks": smallest_looks_table,
    "residual": residual_table, "mlp_hidden": mlp_hidden_table, "mlp_out": mlp_out_table,
    "blocks": blocks_table, "looks": looks_table, "softmax": softmax_table, "generate": generate_table,
}
FORMULAS = {
    "layernorm": layernorm_formula, "q_cell": qcell_formula, "head_output": head_output_formula,
    "gelu": gelu_formula, "logit": logit_formula, "softmax": softmax_formula,
}
NUMBERS = {
    "text": text_number, "example": example_number, "ids": ids_number, "answer": answer_number, "sorted": sorted_number,
    "letter": letter_number, "id": id_number, "size": size_number, "count": count_number,
    "record": record_number, "mu": mu_number, "sigma": sigma_number,
    "look": look_number, "strongest_look": strongest_look_number, "p": p_number, "top": top_number,
    "min_step_p": min_step_p_number,
    "mingpt_printed": mingpt_printed_number, "targets": targets_number,
    "largest": largest_number, "smallest_looks": smallest_looks_number, "best_head": best_head_number,
    "mixed": mixed_number, "percent": percent_number, "variance": variance_number, "untrained_top": untrained_top_number,
}


# ---------------------------------------------------------------- figures
# Drawn from the same run as the tables beside them (draw.py's charts);
# FIGURES is registered as nano_figure(...).

from .draw import (figure, grid, label, line_chart_svg, nice_ticks, stacked_bars_svg,  # noqa: E402
                   svg)

NORM_SIGN = "\u2016"   # ‖, for the length of a column in a title


def attention_figure(run: Run) -> str:
    """Every head of every block: its attention matrix as a small heat-map,
    a row of blocks per block, the masked future hatched."""
    B, H, T = run.cfg.n_blocks, run.cfg.n_heads, run.T
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    size, gap, left, top = 14, 14, 70, 32
    body = []
    for h in range(H):
        x = left + h * (T * size + gap)
        body.append(label(x + T * size // 2, 11, f"head {h + 1}", "middle", "hdr"))
        body.extend(label(x + j * size + size // 2, top - 5, letters[j], "middle", "val") for j in range(T))
    for b in range(B):
        y = top + b * (T * size + gap)
        body.append(label(0, y + T * size // 2 + 4, f"block {b + 1}", cls="hdr"))
        body.extend(label(left - 4, y + i * size + 11, letters[i], "end", "val") for i in range(T))
        for h in range(H):
            a = run.block(b)["weights"][h]
            M = [[float(a[t, j]) if j <= t else None for j in range(T)] for t in range(T)]
            titles = [[f"block {b + 1}, head {h + 1}: t = {t} ({letters[t]}) reads j = {j} ({letters[j]})"
                       for j in range(T)] for t in range(T)]
            body.append(grid(M, titles, size, left + h * (T * size + gap), y, scale=1.0))
    width, height = left + H * T * size + (H - 1) * gap + 2, top + B * T * size + (B - 1) * gap + 2
    drawing = svg(width, height, f"The attention weights of the {H} heads (columns) of the {B} blocks (rows): "
                                 f"in each small map a row per time step t reading a column per earlier "
                                 f"step j, the darker the larger; the future is hatched", "".join(body))
    return figure("nano-attention", drawing,
                  f"The {B * H} attention matrices on {html.escape(run.text)}: rows are the queries t = 0 "
                  f"to {T - 1}, columns the keys j, both labelled with their letters")


def residual_figure(run: Run, t: int = 5) -> str:
    """The length of column t of the residual stream as it passes the
    blocks: on entering, after each block's attention, after its MLP."""
    _t(run, t)
    points, names = [], []
    first = run.block(0)["X"][t]
    points.append(float(np.linalg.norm(first)))
    names.append((f"t = {t}, entering block 1: {NORM_SIGN}x{NORM_SIGN}", "x"))
    for k, b in enumerate(run.trace["blocks"]):
        for name, where in (("h", "attention"), ("y", "MLP")):
            points.append(float(np.linalg.norm(b[name][t])))
            names.append((f"t = {t}, after block {k + 1}'s {where}: {NORM_SIGN}{name}{NORM_SIGN}",
                          f"{name}{k + 1}"))
    titles = [f"{n} = {fixed(v)}" for (n, _), v in zip(names, points)]
    ys = nice_ticks(0, max(points), 4)
    drawing = line_chart_svg(
        [("length", list(enumerate(points)), titles)],
        f"A line: the length of the column t = {t} on entering the first block ({fixed(points[0])}), "
        f"after each block's attention and after each MLP, to {fixed(points[-1])} on leaving the last",
        [(k, short) for k, (_, short) in enumerate(names)], [(v, _tick(v)) for v in ys],
        x_label="x: the input; h, y: after attention, after the MLP of block 1, 2, 3",
        y_label=f"length of the column t = {t}", width=420, height=220)
    return figure("nano-residual", drawing,
                  f"The length of the column t = {t} after each part of each block; point at a dot "
                  "for its value")


def generate_figure(run: Run) -> str:
    """The generation loop as stacked bars: at each step the probabilities
    of A, B and C, and the letter appended."""
    V = list(nanogpt.VOCAB)
    labels = [f"step {k + 1}" for k in range(len(run.steps))]
    rows = [[float(v) for v in s["p"]] for s in run.steps]
    titles = [[f"step {k + 1}, p({l}) = {fixed(v)}" for l, v in zip(V, row)] for k, row in enumerate(rows)]
    after = [f"→ {V[s['next']]}" for s in run.steps]
    drawing = stacked_bars_svg(labels, V, rows, titles,
                               f"Stacked bars, one per step of the generation loop: the probabilities of "
                               f"{', '.join(V)} cut one bar, and the letter appended after it", after)
    return figure("nano-generate", drawing,
                  "Each bar is one step's probabilities, adding up to 1; the arrow gives the letter appended")


def loss_figure(run: Run) -> str:
    """The training loss of each step, from the record beside the weights."""
    rec = run.model.record
    curve = rec.get("loss_curve")
    if not curve:   # weights made elsewhere, or before the record kept the curve: say so, as training_table does
        return ("<p><em>No loss curve in the training record beside the weights file; "
                "<code>python -m toycalc train</code> writes one.</em></p>")
    steps = len(curve)
    points = [(k + 1, float(v)) for k, v in enumerate(curve)]
    titles = [f"step {s}: loss {fixed(v)}" for s, v in points]
    xs, ys = nice_ticks(0, steps, 4), nice_ticks(0, max(curve), 4)
    drawing = line_chart_svg(
        [("loss", points, titles)],
        f"A line: the training loss of each of the {count(steps)} steps, from {fixed(curve[0])} "
        f"at the first to {fixed(curve[-1])} at the last",
        [(v, _tick(v)) for v in xs], [(v, _tick(v)) for v in ys],
        x_label="training step", y_label="loss on the step's batch", width=420, height=220)
    return figure("nano-loss", drawing,
                  f"The loss on each step's batch of {rec.get('batch', '?')} inputs; point at a dot for its value")


def _tick(v: float) -> str:
    """An axis tick: the value in as few places as it needs."""
    return f"{v:.2f}".rstrip("0").rstrip(".").replace("-", "\u2212") if v else "0"


FIGURES = {"attention": attention_figure, "residual": residual_figure, "generate": generate_figure,
           "loss": loss_figure}

# ---------------------------------------------------------------- opened in full, in the browser

def openable(name: str, function):
    """`function`, whose table, when it stops at "N more rows" (or columns),
    also names what it shows in data attributes: the registry name, its
    options (block, head, which, ...) and the example's letters, so that
    docs/javascripts/nano_gpt.js can compute the whole matrix in the page
    and draw every cell in the same markup (tests/book/test_nanogpt_live.py
    holds the two to the same strings)."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def drawn(run: Run, **options) -> str:
        out = function(run, **options)
        if 'class="nano-more"' not in out:
            return out
        bound = signature.bind(run, **options)
        bound.apply_defaults()
        data = {"nano-full": name, "example": run.text}
        data.update({k: v for k, v in list(bound.arguments.items())[1:] if k not in ("rows", "cols")})
        if data.get("head") == "best":  # the page names the head it follows, the browser computes that one
            data["block"], data["head"] = _follow(run, data.get("block"), "best")
        data.update(zip(("rows", "cols"), full_shape(out)))
        attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in data.items())
        return out.replace("<table ", f"<table{attrs} ", 1)
    return drawn


def full_shape(table: str) -> tuple[int, int]:
    """The rows and columns of the whole matrix behind a table of `heat`:
    those shown plus the "N more" ones."""
    lines = table.split("\n")
    head = next(line for line in lines if line.startswith("<thead>"))
    cols = head.count('<th scope="col">')
    rows = sum(1 for line in lines if line.startswith('<tr><th scope="row">') and "colspan=" not in line)
    more_rows = re.search(r">(\d+) more rows<", table)
    more_cols = re.search(r">… (\d+) more<", head)
    if more_cols:
        cols += int(more_cols.group(1)) - 1
    return rows + (int(more_rows.group(1)) if more_rows else 0), cols


MATRICES = {name: openable(name, function) for name, function in MATRICES.items()}


# ---------------------------------------------------------------- the reader's letters, in the browser

# What changes with the input: these outputs are marked with what they are
# (data-nano-live="kind:name") and their options (data-nano-args, JSON, every
# default filled in), so that docs/javascripts/nano_gpt.js can draw them again
# for the reader's letters, string for string as here
# (tests/book/test_nanogpt_switch.py). Sizes and weights are left alone.
LIVE = {
    "matrix": ("X", "u", "qkv", "attention", "A", "mlp", "p"),
    "table": ("legend", "embed", "layernorm", "attention_row", "residual", "mlp_hidden", "mlp_out",
              "blocks", "looks", "softmax", "generate"),
    "formula": ("layernorm", "q_cell", "head_output", "gelu", "logit", "softmax"),
    "number": ("text", "ids", "answer", "sorted", "letter", "id", "mu", "sigma", "variance",
               "look", "strongest_look", "p", "percent", "top", "min_step_p",
               "untrained_top"),
    "figure": ("attention", "residual", "generate"),
}

# what the browser is told besides the options: facts of the task, not of the input
GIVEN = {("number", "untrained_top"): lambda run: {"ignored": _ignored(run)}}


def live(kind: str, name: str, function):
    """`function`, its output marked for the browser."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def marked(run: Run, **options) -> str:
        out = function(run, **options)
        bound = signature.bind(run, **options)
        bound.apply_defaults()
        args = dict(list(bound.arguments.items())[1:]) | GIVEN.get((kind, name), lambda run: {})(run)
        if args.get("head") == "best":   # the head the page names; the browser draws that one
            args["block"], args["head"] = _follow(run, args.get("block"), "best")
        attrs = (f' data-nano-live="{kind}:{name}" '
                 f'data-nano-args="{html.escape(json.dumps(args, sort_keys=True))}" '
                 f'data-nano-example="{html.escape(run.text)}"')
        if kind == "number":
            return f'<span class="nano-live"{attrs}>{out}</span>'
        return re.sub(r"^<(table|div|figure)\b", lambda m: f"<{m.group(1)}{attrs}", out, count=1)
    return marked


for _kind, _registry in (("matrix", MATRICES), ("table", TABLES), ("formula", FORMULAS),
                         ("number", NUMBERS), ("figure", FIGURES)):
    for _name in LIVE[_kind]:
        _registry[_name] = live(_kind, _name, _registry[_name])
