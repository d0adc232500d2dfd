"""The path at the top of the End-to-End page, and the heads chooser.

The whole model's drawing (book/model_drawing.py), its nine numbered
steps regions of it; under it, each step's panel holds that part of the
model with its real numbers and, beside it, a box that explains it with
its sum. The panels hold the page's only copy of these tables: the
worked example further down links to a step (#step-6) instead of
printing its tables again. The HTML reads top to bottom without JavaScript;
docs/javascripts/path.js opens one panel at a time, below the drawing,
which never moves, and switches the heads variants.
"""
from __future__ import annotations

import html

from . import end_to_end as t
from . import model_drawing
from .toy import embedding
from .example import Example
from .render import by_heads, fixed, inline_math as im, plain, token_text, weights_vector

SCORE = im("s_{t,j} = q_t \\cdot k_j / \\sqrt{d_{\\text{head}}}")

def _box(general: str, *sums: str) -> str:
    """What a step does, then its sums for the book's sentence. The sums are
    marked, so that the live simulator can hide them when the reader runs
    another sentence (the tables beside them then change; these would not)."""
    out = [f"<p>{general}</p>"]
    out += [s if s.startswith("<") else f"<p>{s}</p>" for s in sums]
    return "".join(out[:1]) + (f'<div class="path-box-sum">{"".join(out[1:])}</div>' if sums else "")


def panel(ex: Example, step: int) -> tuple[str, str]:
    """(the matrices of a step, the box that explains it), for one run."""
    T, last = len(ex.ids), ex.tokens[-1]
    if step == 1:
        return t.ids_table(ex), _box(
            "The tokenizer cuts the sentence into pieces, always taking the longest piece of the "
            "vocabulary that fits, and replaces each by its row number.",
            f"“{plain(ex.text)}” gives {T} pieces.")
    if step == 2:
        return embedding.E_table(ex), _box(
            f"One row of {t.shape_number(ex, 'd')} weights per token; the rows of the sentence are "
            "in bold. Reading a row is a product with a one-hot vector.",
            f"For the last token, {token_text(last)}:", embedding.one_hot_formula(ex, compact=True))
    if step == 3:
        x = ex.trace
        return t.X_table(ex), _box(
            f"Each position adds its own row of {im('P')}, so that the block knows the order.",
            f"For the last token: {im(f'x_{T}')} = {weights_vector(x['E_ids'][-1])} + "
            f"{weights_vector(x['P_t'][-1])} = {weights_vector(x['X'][-1])}")
    if step == 4:
        return t.u_table(ex), _box(
            "Each row is shifted to mean 0 and scaled to standard deviation 1, on its own.",
            "For the last token:", t.layernorm_formula(ex))
    if step == 5:
        return t.QKV_table(ex), _box(
            f"In the toy, {t.column_picks(ex)}. With {ex.n_heads} head{'s' * (ex.n_heads > 1)}, "
            f"each head reads {t.shape_number(ex, 'd_head')} of the {t.shape_number(ex, 'd')} columns.")
    if step == 6:
        return t.attention_figure(ex) + "\n" + t.weights_matrix_table(ex) + "\n" + t.attention_table(ex), _box(
            f"Each query meets every key: {SCORE}, then a softmax per row. The mask hides the "
            "positions that come later (the blank cells).",
            f"In the last row, {t.heads_summary(ex)}.")
    if step == 7:
        return t.mix_formula(ex), _box(
            "Each head averages the value vectors with its weights; the heads' results sit side "
            f"by side and {im('W_O')} maps them back into the residual stream.")
    if step == 8:
        return t.mlp_formula(ex), _box(
            f"The block adds what attention found to its input, normalises the sum, widens it to "
            f"{t.shape_number(ex, 'width')} numbers with {im('W_1')}, bends them with GELU, folds "
            f"them back with {im('W_2')} and adds them again.")
    if step == 9:
        p = ex.p_last
        return t.probabilities_figure(ex) + "\n" + t.softmax_table(ex), _box(
            f"A last LayerNorm, then {im('W_U')} gives one logit per token, and the softmax "
            "turns them into probabilities. The worked example further down the page writes "
            '<a href="#step-9-the-next-token">one logit out as its sum</a>.',
            f"The prediction: <strong>{token_text(ex.model.vocab[ex.top_id])}</strong> "
            f"with p = {fixed(p.max())}.")
    raise ValueError(f"step = {step}: the path has steps 1 to {len(model_drawing.STEPS)}")


def path_diagram(examples: dict[int, Example], default: int) -> str:
    """The whole path: the model's drawing, its nine steps regions of it
    (model_drawing.STEPS), then each step's panel, every heads choice
    included. Only the default heads are drawn here: the page's script
    draws the others (docs/javascripts/path.js, with model_drawing.js),
    which keeps the page light; without JavaScript the page shows the
    default heads and every panel."""
    ex = examples[default]
    tokens = [ex.model.show(i) for i in ex.ids]
    drawing = model_drawing.model_svg(ex.trace, tokens, ex.model.vocab, steps=True)
    parts = ['<div class="path" id="path">',
             f'<figure class="toy-figure model-figure path-figure" data-figure="model" data-heads="{default}">'
             f'{drawing}<figcaption>{model_drawing.model_key(steps=True)}</figcaption></figure>']
    for n, label, _ in model_drawing.STEPS:
        variants = {h: _panel_html(other, n, label) for h, other in examples.items()}
        parts.append(f'<section class="path-panel" id="step-{n}" aria-labelledby="path-step-{n}">'
                     f"{by_heads(variants, default, inline=False)}</section>")
    parts.append("</div>")
    return "\n".join(parts)


def _panel_html(ex: Example, step: int, label: str) -> str:
    matrices, box = panel(ex, step)   # the page's only copy of these tables: the worked example links here
    title = f"Step {step}. {html.escape(label).replace('W_O', 'W<sub>O</sub>')}"
    return (f'<div class="path-body"><div class="path-matrices">{matrices}</div>'
            f'<aside class="path-box"><p class="path-box-title">{title}</p>{box}</aside></div>')


def heads_chooser(choices: list[int], default: int, name: str) -> str:
    """Radio buttons; hidden until path.js shows them (without JavaScript
    the page shows the default)."""
    buttons = "".join(
        f'<label><input type="radio" name="{name}" value="{h}"{" checked" if h == default else ""}> '
        f'{h} head{"s" * (h > 1)}</label>' for h in choices)
    return (f'<fieldset class="heads-chooser" hidden><legend>Heads</legend>{buttons}</fieldset>')
