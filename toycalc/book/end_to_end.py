"""The worked example's steps, as pure functions of an Example: what the
End-to-End page shows, and what the toy chapter (docs/toy/) and Home
call again.

Registered on `steps`, the part whose macros have no prefix: table(...)
(HTML tables with stable ids), formula(...) (display TeX with the numbers
in), number(...) (one value or token for the prose) and figure(...).
Positions and heads are counted from 1, as the book counts them. The
Embedding page's steps (table("E"), formula("one_hot"), ...) are in its
own module, toy/embedding.py, registered on this part too.
"""
from __future__ import annotations


import numpy as np

from ..model import gpt, sizes
from ..model.configs import GPT2_SMALL
from .draw import attention_lines_svg, attention_svg, bars_svg, figure, prob_key
from .example import Example
from .example_checks import check_head, check_position, token_id
from . import model_drawing
from .render import (aligned, aligned_rows, and_list, approx_count, column_header, count, fixed, html_table,
                     inline_math as im, math_block, plain, short, signed_sum, tex, tex_vector, token_code,
                     token_tex, token_text, vector, weights_vector)
from ..model.mirror import PARITY_PLACES, mirrored
from .part import Part

steps = Part("")   # {{ table(...) }}, formula, number, figure


def _rows_of(ex: Example, matrix) -> list[list[str]]:
    return [[token_code(t)] + [fixed(v) for v in row] for t, row in zip(ex.tokens, matrix)]


def _without_biases(counts: dict) -> int:
    return counts["total"] - counts["biases"] - counts["layernorm"]


# ---------------------------------------------------------------- tables

@steps.table("pieces")
def pieces_table(ex: Example) -> str:
    """Where the weights are: each piece's shape and count, toy and GPT-2 small."""
    cfg = ex.model.cfg
    toy, big = sizes.count_params(cfg), sizes.count_params(GPT2_SMALL)
    V, d, n, w = cfg.vocab_size, cfg.d, cfg.n_ctx, cfg.mlp_width
    rows = [
        [f"embedding table {im('E')}", im("V \\times d"), f"{V} × {d} = {toy['E']}", approx_count(big["E"])],
        [f"position table {im('P')}", f"positions × {im('d')}", f"{n} × {d} = {toy['P']}", approx_count(big["P"])],
        [f"{im('W_Q')}, {im('W_K')}, {im('W_V')}", im("3 \\times (d \\times d)"), str(toy["W_QKV"]),
         approx_count(big["W_QKV"])],
        [im("W_O"), im("d \\times d"), str(toy["W_O"]), approx_count(big["W_O"])],
        [f"MLP: {im('W_1')}, {im('W_2')}", im("d \\times") + " width, width " + im("\\times\\, d"),
         f"{d * w} + {w * d} = {toy['W_MLP']}", approx_count(big["W_MLP"])],
        [f"output {im('W_U')}", im("d \\times V"), str(toy["W_U"]),
         f"tied to {im('E')}" if GPT2_SMALL.tied else approx_count(big["W_U"])],
        ["<strong>total</strong>", "", f"<strong>{toy['total']}</strong>",
         f"<strong>≈ {round(_without_biases(big) / 1e6)} million</strong>"],
    ]
    return html_table("table-pieces", ["piece", "shape", "toy",
                                       f"GPT-2 small ({GPT2_SMALL.n_blocks} blocks)"], rows)


@steps.table("ids")
def ids_table(ex: Example) -> str:
    """The sentence's tokens with their ids, one column each."""
    return html_table("table-ids", ["token"] + [token_code(t) for t in ex.tokens],
                      [["id"] + [str(i) for i in ex.ids]])


@steps.table("grad_E")
def grad_E_table(ex: Example) -> str:
    """dL/dE for the rows of the sentence (each row once)."""
    rows = [[str(i), token_code(ex.model.vocab[i]), vector(ex.grads["E"][i])] for i in ex.sentence_rows]
    return html_table("table-grad-E", ["id", "token", im("\\partial L / \\partial E_{i}")], rows)


@steps.table("X")
def X_table(ex: Example) -> str:
    """x_t = E[id] + P_t for each token: the two rows and their sum."""
    tr = ex.trace
    rows = [[token_code(t), weights_vector(e), weights_vector(p), weights_vector(x)]
            for t, e, p, x in zip(ex.tokens, tr["E_ids"], tr["P_t"], tr["X"])]
    return html_table("table-X", ["token", im("E[\\text{id}]"), im("P_t"),
                                  im("x_t = E[\\text{id}] + P_t")], rows)


@steps.table("u")
def u_table(ex: Example) -> str:
    """The LayerNorm output u, one row per token of the sentence."""
    return html_table("table-u", ["token"] + column_header("u", ex.model.cfg.d),
                      _rows_of(ex, ex.block["u"]))


@steps.table("QKV")
def QKV_table(ex: Example) -> str:
    """Q, K and V for each token of the sentence."""
    b = ex.block
    rows = [[token_code(t), vector(q), vector(k), vector(v)]
            for t, q, k, v in zip(ex.tokens, b["Q"], b["K"], b["V"])]
    return html_table("table-QKV", ["token", im("Q"), im("K"), im("V")], rows, wrap={1, 2, 3})


@steps.table("attention")
def attention_table(ex: Example, head: int = 0) -> str:
    """The last row of a head (0: of every head, one table each): its query,
    and q.k, s, e^s, a against each earlier token."""
    if head == 0:
        return "\n".join(attention_table(ex, h) for h in range(1, ex.n_heads + 1))
    check_head(ex, head)
    b, cols, last = ex.block, ex.head_columns(head), len(ex.ids) - 1
    dots, s, a = (b[n][head - 1, last] for n in ("dots", "scores", "weights"))
    rows = [[token_code(t), vector(b["K"][j, cols]), fixed(dots[j]), fixed(s[j]),
             fixed(np.exp(s[j])), fixed(a[j])] for j, t in enumerate(ex.tokens)]
    caption = f"Head {head}, whose query is {im(f'q_{{{last + 1}}}')} = {vector(b['Q'][last, cols])}"
    return html_table(f"table-attention-{head}",
                      [im("j"), im("k_j"), im(f"q_{{{last + 1}}} \\cdot k_j"),
                       im(f"s_{{{last + 1},j}}"), im("e^{s}"), im(f"a_{{{last + 1},j}}")], rows,
                      caption=caption, wrap={1})


@steps.table("weights")
def weights_matrix_table(ex: Example, head: int = 0) -> str:
    """A head's whole attention matrix: one row per query, one column per
    key; the cells the causal mask hides are left blank."""
    if head == 0:
        return "\n".join(weights_matrix_table(ex, h) for h in range(1, ex.n_heads + 1))
    check_head(ex, head)
    a = ex.block["weights"][head - 1]
    rows = [[token_code(q)] + [fixed(a[i, j]) if j <= i else "" for j in range(len(ex.ids))]
            for i, q in enumerate(ex.tokens)]
    return html_table(f"table-weights-{head}", [f"head {head}"] + [token_code(k) for k in ex.tokens], rows,
                      caption=f"Head {head}: the weights {im('a_{t,j}')}, one row per position")


@steps.table("heads")
def heads_table(ex: Example) -> str:
    """Each choice of heads side by side: where each head looks, and what
    the model then predicts."""
    rows = []
    for heads in ex.heads_choices:
        other = ex.with_heads(heads)
        a = other.block["weights"][:, -1]
        looks = "; ".join(f"head {h + 1}: {token_code(other.tokens[int(np.argmax(a[h]))])} "
                          f"{fixed(a[h].max())}" for h in range(heads))
        rows.append([str(heads), looks, fixed(other.p_last[ex.target_id]),
                     token_code(other.model.vocab[other.top_id]), fixed(other.p_last.max())])
    return html_table("table-heads", ["heads", "where each head looks most (weight)",
                                      f"p({token_text(ex.model.vocab[ex.target_id])})",
                                      "prediction", "its p"], rows, wrap={1})


@steps.table("softmax")
def softmax_table(ex: Example) -> str:
    """All the tokens of the vocabulary, most probable first."""
    z, p = ex.trace["z"][-1], ex.p_last
    order = sorted(range(len(p)), key=lambda i: -p[i])
    rows = [[token_code(ex.model.vocab[i]), fixed(z[i]), fixed(np.exp(z[i])), fixed(p[i])] for i in order]
    return html_table("table-softmax", ["token", im("z"), im("e^{z}"), im("p")], rows)


# ---------------------------------------------------------------- formulas

@steps.formula("loss")
def loss_formula(ex: Example) -> str:
    """The loss L = −ln p(target) of the sentence, with its numbers."""
    t, p = token_tex(ex.model.vocab[ex.target_id]), ex.p_last[ex.target_id]
    return math_block(f"L = -\\ln p(\\text{{{t}}}) = -\\ln {tex(fixed(p))} = {tex(fixed(ex.loss))}")


@steps.formula("update")
def update_formula(ex: Example, token: str = "") -> str:
    """One row of E after the step: E - eta dL/dE, written out per column."""
    i = token_id(ex, token) if token else ex.ids[-1]
    old, g, new = ex.model.params["E"][i], ex.grads["E"][i], ex.stepped_E[i]
    eta = short(ex.eta)
    return aligned([(f"{tex(short(o, True))} - {eta} \\cdot ({tex(fixed(gc))})", tex(fixed(n)))
                    for o, gc, n in zip(old, g, new)])


@steps.formula("layernorm")
def layernorm_formula(ex: Example) -> str:
    """μ, σ and u of the last token, in full."""
    b, t = ex.block, len(ex.ids)
    return aligned([("\\mu", tex(fixed(b["mu"][-1]))), ("\\sigma", tex(fixed(b["sigma"][-1]))),
                    (f"u_{t}", f"\\frac{{x_{t} - \\mu}}{{\\sigma}}"), ("", tex_vector(b["u"][-1]))])


@steps.formula("mix")
def mix_formula(ex: Example) -> str:
    """Each head's weighted sum of values for the last token, and the heads joined."""
    b, t = ex.block, len(ex.ids)
    lines = [(f"o_{t}^{{({h + 1})}}", tex_vector(b["outputs"][h, -1])) for h in range(ex.n_heads)]
    lines[0] = (lines[0][0], f"\\sum_j a_{{{t},j}}\\, v_j = {lines[0][1]}")
    return aligned(lines + [(f"a_{t}", tex_vector(b["A"][-1]))])


@steps.formula("mlp")
def mlp_formula(ex: Example) -> str:
    """The last token through the first sum, LayerNorm, the MLP and the second sum."""
    b, t = ex.block, len(ex.ids)
    return aligned([
        (f"h_{t}", f"x_{t} + a_{t} W_O = {tex_vector(b['h'][-1])}"),
        (f"u'_{t}", f"\\mathrm{{LN}}(h_{t}) = {tex_vector(b['u2'][-1])}"),
        (f"u'_{t} W_1", tex_vector(b["mlp_pre"][-1])),
        ("\\mathrm{GELU}(u'_%d W_1)" % t, tex_vector(b["mlp_post"][-1])),
        (f"m_{t}", f"\\mathrm{{GELU}}(\\cdot)\\, W_2 = {tex_vector(b['m'][-1])}"),
        (f"y_{t}", f"h_{t} + m_{t} = {tex_vector(b['y'][-1])}"),
    ])


@steps.formula("logit")
def logit_formula(ex: Example, token: str = "") -> str:
    """f for the last row and one logit written as its sum, two terms a line
    (the path's box is narrow). The column of W_U is named by its token."""
    i = token_id(ex, token) if token else ex.top_id
    f, W_U, t = ex.trace["f"][-1], ex.model.params["W_U"], len(ex.ids)
    name = f"\\text{{{token_tex(ex.model.vocab[i])}}}"
    terms = [(fc, f"{tex(fixed(abs(fc)))} \\cdot ({tex(short(w, True))})") for fc, w in zip(f, W_U[:, i])]
    sums = [signed_sum(terms[k:k + 2], first=k == 0) for k in range(0, len(terms), 2)]
    temp = "" if ex.temperature == 1 else f" / {tex(short(ex.temperature))}"
    if temp:
        sums[0], sums[-1] = "(" + sums[0], sums[-1] + ")" + temp
    lines = [f"f_{t} &= \\mathrm{{LN}}(y_{t}) = {tex_vector(f)}",
             f"z_{{{name}}} &= "
             + (f"(f_{t} \\cdot W_U^{{({name})}}){temp}" if temp else f"f_{t} \\cdot W_U^{{({name})}}"),
             f"&= {sums[0]}"] + [f"&\\quad {s}" for s in sums[1:]]
    lines.append(f"&= {tex(fixed(ex.trace['z'][-1, i]))}")
    return aligned_rows(lines)


# ---------------------------------------------------------------- numbers

@steps.number("p")
def p_number(ex: Example, token: str = "", places: int = 3) -> str:
    """p of a token (default: the most probable) for the next position."""
    return fixed(ex.p_last[token_id(ex, token) if token else ex.top_id], places)


@steps.number("top_token")
def top_token(ex: Example) -> str:
    """The token the model finds most probable after the sentence."""
    return token_text(ex.model.vocab[ex.top_id])


@steps.number("loss")
def loss_number(ex: Example, after_step: bool = False) -> str:
    """The loss of the sentence; after_step=true: after one training step on E."""
    return fixed(ex.stepped_loss if after_step else ex.loss)


@steps.number("p_after_step")
def p_after_step(ex: Example) -> str:
    """p(target) after one training step on E."""
    return fixed(ex.stepped_trace["p"][-1, ex.target_id])


@steps.number("attention")
def attention_number(ex: Example, head: int, keys: str, places: int = 3) -> str:
    """The weight the last row of a head gives to some tokens, summed;
    keys are tokens separated by spaces, written with ␣."""
    check_head(ex, head)
    a = ex.block["weights"][head - 1, -1]
    wanted = [token_id(ex, k) for k in keys.split()]
    return fixed(sum(a[j] for j, i in enumerate(ex.ids) if i in wanted), places)


@steps.number("attention_row")
def attention_row(ex: Example, head: int, position: int) -> str:
    """One row of a head's attention weights, mask included."""
    check_head(ex, head)
    check_position(ex, position)
    return vector(ex.block["weights"][head - 1, position - 1])


@steps.number("heads_summary")
def heads_summary(ex: Example) -> str:
    """Where each head of the last row looks most, as a sentence."""
    a = ex.block["weights"][:, -1]
    parts = [f"head {h + 1} gives {fixed(a[h].max())} to {token_text(ex.tokens[int(np.argmax(a[h]))])}"
             for h in range(ex.n_heads)]
    return and_list(parts)


@steps.number("token")
def token_number(ex: Example, position: int) -> str:
    """The token at a position of the sentence (positions count from 1)."""
    check_position(ex, position)
    return token_text(ex.tokens[position - 1])


@steps.number("masked_positions")
def masked_positions(ex: Example, position: int) -> str:
    """The positions after a given one, which its row of attention may not see, in words."""
    later = list(range(position + 1, len(ex.ids) + 1))
    return ", ".join(map(str, later[:-1])) + (" and " if len(later) > 1 else "") + str(later[-1])


@steps.number("still_rows")
def still_rows(ex: Example) -> str:
    """How many rows of E a training step on the sentence leaves unchanged."""
    return str(len(ex.still_rows))


@steps.number("shape")
def shape_number(ex: Example, name: str, model: str = "toy") -> str:
    """One size of a model: V, d, n_ctx, width, blocks, heads, d_head, T."""
    cfg = _config(ex, model)
    heads = ex.n_heads if model == "toy" else cfg.n_heads
    sizes = {"V": cfg.vocab_size, "d": cfg.d, "n_ctx": cfg.n_ctx, "width": cfg.mlp_width,
             "blocks": cfg.n_blocks, "heads": heads, "d_head": cfg.d // heads, "T": len(ex.ids)}
    if name not in sizes:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(sizes)}")
    return count(sizes[name])  # 50,257 as everywhere in the book: keep it out of TeX


@steps.number("text")
def text_number(ex: Example) -> str:
    """The sentence of the example."""
    return plain(ex.text)


@steps.number("target")
def target_number(ex: Example) -> str:
    """The token the sentence is trained to predict (extra.toycalc.example.target)."""
    return token_text(ex.model.vocab[ex.target_id])


@steps.number("eta")
def eta_number(ex: Example) -> str:
    """The learning rate of the training step (extra.toycalc.example.eta)."""
    return short(ex.eta)


@steps.number("heads_count")
def heads_count(ex: Example) -> str:
    """The run's number of heads with its noun: "1 head", "2 heads"."""
    return f"{ex.n_heads} head{'s' * (ex.n_heads > 1)}"


@steps.number("head_columns")
def head_columns(ex: Example) -> str:
    """Which columns of Q, K and V each head reads (columns count from 1), as a sentence."""
    d, w = ex.model.cfg.d, ex.model.cfg.d // ex.n_heads
    if ex.n_heads == 1:
        return f"With 1 head, that head reads all {d} columns"
    spans = [f"column {h + 1}" if w == 1 else f"columns {h * w + 1} and {h * w + 2}" if w == 2
             else f"columns {h * w + 1} to {h * w + w}" for h in range(ex.n_heads)]
    parts = [f"head {h + 1}{' reads' if h == 0 else ''} {span}" for h, span in enumerate(spans)]
    return f"With {ex.n_heads} heads, each head reads {w} of the {d} columns: " + ", ".join(parts)


@steps.number("column_picks")
def column_picks(ex: Example) -> str:
    """Q, K and V in terms of the columns of u, when W_Q, W_K, W_V only pick
    columns (a single 1 in each column); otherwise the products."""
    parts = []
    for n in "QKV":
        W = ex.model.params[f"blocks.0.W_{n}"]
        picks = [np.flatnonzero(W[:, c]) for c in range(W.shape[1])]
        if all(len(r) == 1 and W[r[0], c] == 1 for c, r in enumerate(picks)):
            parts.append(im(f"{n} = [" + ", ".join(f"u_{r[0] + 1}" for r in picks) + "]"))
        else:
            parts.append(im(f"{n} = u W_{n}"))
    return ", ".join(parts[:-1]) + " and " + parts[-1]


@steps.number("count")
def count_number(ex: Example, model: str = "toy", piece: str = "total") -> str:
    """A parameter count of the toy or GPT-2 small, whole or by piece, with separators."""
    counts = sizes.count_params(_config(ex, model))
    if piece not in counts:
        raise ValueError(f"piece = {piece!r}: expected one of {', '.join(counts)}")
    return count(counts[piece])


@steps.number("share")
def share_number(ex: Example, model: str = "gpt2") -> str:
    """Share of biases and LayerNorm weights in a model, in percent."""
    c = sizes.count_params(_config(ex, model))
    return f"{100 * (c['biases'] + c['layernorm']) / c['total']:.1f}"


steps.constant("parity_places", str(PARITY_PLACES), "The decimal places to which the browser's forward pass "
               "agrees with toycalc's (its parity test's tolerance).")


# ---------------------------------------------------------------- helpers

def _config(ex: Example, model: str) -> gpt.Config:
    configs = {"toy": ex.model.cfg, "gpt2": GPT2_SMALL}
    if model not in configs:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(configs)}")
    return configs[model]


# ---------------------------------------------------------------- figures

@mirrored("end_to_end.js")
@steps.figure("attention")
def attention_figure(ex: Example, view: str = "both") -> str:
    """Each head's attention weights: a heat-map (view="map"), lines
    between the tokens whose width is the weight (view="lines"), or both."""
    if view not in ("both", "map", "lines"):
        raise ValueError(f"view = {view!r}: expected one of both, map, lines")
    tokens = [ex.model.show(i) for i in ex.ids]
    parts = []
    for h in range(ex.n_heads):
        w = ex.block["weights"][h].tolist()
        drawings = ([attention_svg(tokens, w, h + 1)] if view != "lines" else []) + \
                   ([attention_lines_svg(tokens, w, h + 1)] if view != "map" else [])
        parts.append(figure("attention", "".join(drawings), f"Head {h + 1}", head=h + 1))
    key = prob_key("weight", masked=view != "lines", lines=view != "map")   # one for the heads' row
    return f'<div class="fig-row">{"".join(parts)}</div>{key}'


@mirrored("end_to_end.js")
def probabilities_figure(ex: Example) -> str:
    """The next token's probabilities over the whole vocabulary, most
    probable first, as bars."""
    p = ex.p_last
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    labels = [ex.model.show(i) for i in order]
    return figure("probabilities", bars_svg(labels, [float(p[i]) for i in order],
                                            f"The probability of each token of the vocabulary after "
                                            f"position {len(ex.ids)}, most probable first", top=0),
                  f"p of each next token after {token_text(ex.model.vocab[ex.ids[-1]])} "
                  f"(position {len(ex.ids)})")


@steps.figure("model")
def model_figure(ex: Example, links: bool = False) -> str:
    """The whole model on the example, every part and every number
    (book/model_drawing.py), with its key; links=True: each part a link to
    the toy chapter's page that explains it."""
    tokens = [ex.model.show(i) for i in ex.ids]
    return model_drawing.model_figure(ex.trace, tokens, ex.model.vocab, model_drawing.TOY_PAGES if links else None)

