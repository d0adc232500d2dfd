"""The numbered path at the top of the End-to-End page, and the heads chooser.

Laid out like Transformer Explainer: one button per step, left to right
(stacked on a phone). Each step's panel holds that part of the model with
its real numbers and, beside it, a box that explains it with its sum. The
HTML reads top to bottom without JavaScript; docs/javascripts/path.js
opens one panel at a time and switches the heads variants.
"""
from __future__ import annotations

import re

from . import end_to_end as t
from .draw import legend, path_svg
from .example import Example
from .render import by_heads, fixed, inline_math as im, plain, token_text, weights_vector

SCORE = im("s_{t,j} = q_t \\cdot k_j / \\sqrt{d_{\\text{head}}}")

# (number, short label for the button, part of the model)
STEPS = [
    (1, "Tokens and ids", "embedding"),
    (2, "The table E", "embedding"),
    (3, "P and X", "embedding"),
    (4, "Layer\u00adNorm", "attention"),
    (5, "Q, K, V", "attention"),
    (6, "The heads", "attention"),
    (7, "Mix and W_O", "attention"),
    (8, "Sum, LayerNorm, MLP", "mlp"),
    (9, "Output and softmax", "output"),
]


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
        return t.E_table(ex), _box(
            f"One row of {t.shape_number(ex, 'd')} weights per token; the rows of the sentence are "
            "in bold. Reading a row is a product with a one-hot vector.",
            f"For the last token, {token_text(last)}:", t.one_hot_formula(ex, compact=True))
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
            "turns them into probabilities.",
            f"The prediction: <strong>{token_text(ex.model.vocab[ex.top_id])}</strong> "
            f"with p = {fixed(p.max())}.",
            t.logit_formula(ex))
    raise ValueError(f"step = {step}: the path has steps 1 to {len(STEPS)}")


def drawing(ex: Example, step: int) -> str:
    """The drawing on a step's button: the data at that point of the model."""
    b, tr = ex.block, ex.trace
    run = {"E_ids": tr["E_ids"], "X": tr["X"], "u": b["u"], "Q": b["Q"], "K": b["K"], "V": b["V"],
           "h": b["h"], "y": b["y"], "weights": b["weights"], "p": ex.p_last}
    run = {k: v.tolist() for k, v in run.items()}
    return path_svg(step, [ex.model.show(i) for i in ex.ids], run, [ex.model.show(i) for i in range(len(ex.model.vocab))])


def path_diagram(examples: dict[int, Example], default: int) -> str:
    """The whole path: buttons and panels, every heads choice included.
    Each button carries a drawing of the data at its step, in the order the
    data flows, so the path is a picture of the model."""
    parts = [legend(), '<div class="path" id="path">']
    for n, label, part in STEPS:
        pictures = by_heads({h: f'<span class="path-drawing">{drawing(ex, n)}</span>' for h, ex in examples.items()},
                            default, inline=True)
        parts.append(
            f'<button type="button" class="path-step path-{part}" id="path-step-{n}" '
            f'aria-controls="step-{n}" aria-expanded="false">'
            f'<span class="path-n">{n}</span> <span class="path-label">{label.replace("W_O", "W<sub>O</sub>")}</span>'
            f"{pictures}</button>")
        variants = {h: _panel_html(ex, n) for h, ex in examples.items()}
        parts.append(f'<section class="path-panel" id="step-{n}" aria-labelledby="path-step-{n}">'
                     f"{by_heads(variants, default, inline=False)}</section>")
    parts.append("</div>")
    return "\n".join(parts)


def _panel_html(ex: Example, step: int) -> str:
    matrices, box = panel(ex, step)
    matrices = re.sub(r'\bid="', 'id="path-', matrices)  # the worked example has the same tables
    return (f'<div class="path-body"><div class="path-matrices">{matrices}</div>'
            f'<aside class="path-box"><p class="path-box-title">Step {step}</p>{box}</aside></div>')


def heads_chooser(choices: list[int], default: int, name: str) -> str:
    """Radio buttons; hidden until path.js shows them (without JavaScript
    the page shows the default)."""
    buttons = "".join(
        f'<label><input type="radio" name="{name}" value="{h}"{" checked" if h == default else ""}> '
        f'{h} head{"s" * (h > 1)}</label>' for h in choices)
    return (f'<fieldset class="heads-chooser" hidden><legend>Heads</legend>{buttons}</fieldset>')
