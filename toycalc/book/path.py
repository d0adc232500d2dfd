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

from ..model import descent
from ..model.tokenizer import show
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
    """The whole playground: the sentence and its prediction, the model's
    drawing with its nine steps regions of it (model_drawing.STEPS), its
    key folded, then each step's panel (every heads choice included),
    where the open one shows right under the drawing, then the controls
    (sentence_controls, the heads, the drawers). Only the default heads are drawn here:
    the page's script draws the others (docs/javascripts/path.js, with
    model_drawing.js), which keeps the page light; without JavaScript the
    page shows the default heads and every panel, and none of the controls.
    A panel's content waits in a <noscript> (shown as it is without
    JavaScript; with it, one text node until path.js puts it in, when the
    step first opens): End to End held 7,000 elements at load, 3,000 of
    them in the nine panels, one at most shown."""
    ex = examples[default]
    tokens = [ex.model.show(i) for i in ex.ids]
    drawing = model_drawing.model_svg(ex.trace, tokens, ex.model.vocab, steps=True)
    parts = [sentence_field(ex),
             '<div class="path" id="path">',
             f'<figure class="toy-figure model-figure path-figure" data-figure="model" data-heads="{default}">'
             f'{drawing}<figcaption><details class="drawing-key"><summary><span>Key</span></summary>'
             f'{model_drawing.model_key(steps=True)}</details></figcaption></figure>']
    # the open step's panel right under the drawing, the tools after the panels
    for n, label, _ in model_drawing.STEPS:
        variants = {h: _panel_html(other, n, label) for h, other in examples.items()}
        parts.append(f'<section class="path-panel" id="step-{n}" aria-labelledby="path-step-{n}">'
                     f'<noscript class="step-later">{by_heads(variants, default, inline=False)}</noscript></section>')
    parts.append(controls(ex, heads_chooser(list(examples), default, "path")))
    parts.append("</div>")
    return "\n".join(parts)


def _panel_html(ex: Example, step: int, label: str) -> str:
    matrices, box = panel(ex, step)   # the page's only copy of these tables: the worked example links here
    title = f"Step {step}. {html.escape(label).replace('W_O', 'W<sub>O</sub>')}"
    # the title first, over the step's numbers and its box: with the drawing, on the first screen
    return (f'<p class="path-title">{title}</p><div class="path-body"><div class="path-matrices">{matrices}</div>'
            f'<aside class="path-box">{box}</aside></div>')


def sentence_field(ex: Example) -> str:
    """What the first screen holds above the drawing: the sentence field, the
    vocabulary's tokens to add, and the prediction written out. Built here,
    so that the page has its room and its prediction before any script runs
    (docs/javascripts/simulator.js wires them); the field and the tokens are
    for a reader with JavaScript (html.no-js hides them), the prediction for
    every reader."""
    vocab, n_ctx = ex.model.vocab, ex.model.cfg.n_ctx
    tokens = "".join(f'<button type="button" class="sim-token" data-id="{i}" aria-label="add {html.escape(show(t))}">'
                     f"{html.escape(show(t))}</button>" for i, t in enumerate(vocab))
    return ('<div class="sim-sentence sim-live">'
            '<label for="sim-text" class="sim-label">Your sentence</label>'
            f'<input type="text" id="sim-text" value="{html.escape(ex.text)}" autocomplete="off" '
            'spellcheck="false" aria-describedby="sim-message">'
            '<p id="sim-message" class="sim-message" role="alert" hidden></p>'
            f'<p id="sim-vocab-label" class="sim-label">or add tokens (at most {n_ctx}):</p>'
            f'<div class="sim-vocab" role="group" aria-labelledby="sim-vocab-label">{tokens}</div></div>'
            f'<p id="sim-next" class="sim-next" aria-live="polite">{prediction(ex)}</p>')


def prediction(ex: Example) -> str:
    """The line that says the prediction (simulator.js writes the same for the reader's runs)."""
    return (f'Next token: <span class="sim-pick">{html.escape(token_text(ex.model.vocab[ex.top_id]))}</span> '
            f"with p = {fixed(ex.p_last.max())}")


def controls(ex: Example, chooser: str) -> str:
    """Under the drawing: the buttons that change the sentence, the heads,
    and three drawers folded until the reader opens one (simulator.js fills
    "Change the weights" and "Train" then): the sampling's controls, every
    weight as a box, the trainer."""
    top = token_text(ex.model.vocab[ex.top_id])
    buttons = ('<div class="sim-buttons sim-live">'
               '<button type="button" id="sim-append" class="sim-action md-button md-button--primary">'
               f"Append {html.escape(top)} and run again</button>"
               '<button type="button" id="sim-back" class="sim-action">Remove the last token</button>'
               '<button type="button" id="sim-reset" class="sim-action" disabled>Back to the book’s sentence</button>'
               "</div>")
    sampling = ('<div class="sim-sampling">'
                '<div class="sim-temperature"><label for="sim-temperature">Temperature T</label> '
                '<input type="range" id="sim-temperature" min="0.1" max="3" step="0.1" value="1"> '
                '<output id="sim-temperature-value" for="sim-temperature">1.0</output></div>'
                '<fieldset class="sim-mode choices"><legend>Next token</legend>'
                '<label><input type="radio" name="sim-mode" value="greedy" checked> the most probable</label>'
                '<label><input type="radio" name="sim-mode" value="sample"> drawn at random</label></fieldset>'
                '<div class="sim-seed"><label for="sim-seed">Seed</label> '
                '<input type="number" id="sim-seed" min="0" max="4294967295" step="1" inputmode="numeric" value="1">'
                '<span id="sim-draw"></span></div></div>')
    trainer = (f'<div id="sim-trainer" class="toy-training" data-toy-trainer hidden data-into="live-simulator" '
               f'data-target="{html.escape(ex.target)}" data-eta="{ex.eta:g}" '
               f'data-steps="{descent.TRAIN_STEPS}" data-learns="{descent.TRAIN_LEARNS}"></div>')
    drawer = lambda id_, title, body: (f'<details class="sim-drawer" id="{id_}"><summary>{title}</summary>'
                                       f"{body}</details>")
    return ('<div class="sim-under sim-live">' + buttons + chooser +
            '<div class="sim-drawers">' +
            drawer("sim-sampling", "Sampling: temperature and draws", sampling) +
            drawer("sim-editor", "Change the weights", "") +
            drawer("toy-training-details", "Train", trainer) + "</div></div>")


def heads_chooser(choices: list[int], default: int, name: str) -> str:
    """Radio buttons; hidden until path.js shows them (without JavaScript
    the page shows the default)."""
    buttons = "".join(
        f'<label><input type="radio" name="{name}" value="{h}"{" checked" if h == default else ""}> '
        f'{h} head{"s" * (h > 1)}</label>' for h in choices)
    return (f'<fieldset class="heads-chooser" hidden><legend>Heads</legend>{buttons}</fieldset>')
