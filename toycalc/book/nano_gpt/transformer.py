"""The nano-gpt chapter's page Transformer (docs/nano-gpt/transformer.md): one
column through the three blocks, and where each head looks from it."""
from __future__ import annotations

import numpy as np

from ...model import nanogpt
from ..draw import figure, line_chart_svg, nice_ticks
from ..nano_example import Run
from ..render import and_list, fixed, html_table, inline_math as im
from .shared import block_trace, check_t, look_words, nano_gpt, tick

LENGTH_SIGN = im("\\lVert\\cdot\\rVert")
NORM_SIGN = "\u2016"   # ‖, for the length of a column in a title


@nano_gpt.table("blocks", live=True)
def blocks_table(run: Run, t: int = 6) -> str:
    """Each block at position t: the length of the residual row before and
    after, and of what attention and the MLP add to it."""
    i = check_t(run, t)
    body = [[str(k + 1), fixed(np.linalg.norm(b["X"][i])), fixed(np.linalg.norm(b["attn"][i])),
             fixed(np.linalg.norm(b["m"][i])), fixed(np.linalg.norm(b["y"][i]))]
            for k, b in enumerate(run.trace["blocks"])]
    return html_table(f"nano-blocks-{t}",
                      ["block", im(f"\\lVert x_{t} \\rVert") + " in", im("\\lVert a W_O + b_O \\rVert"),
                       im("\\lVert m \\rVert"), im(f"\\lVert y_{t} \\rVert") + " out"], body,
                      caption=f"The row t = {t} through the blocks ({LENGTH_SIGN}: its length)")


@nano_gpt.table("looks", live=True)
def looks_table(run: Run, t: int = 6) -> str:
    """Where each head of each block looks most from position t."""
    i = check_t(run, t)
    body = [[str(k + 1)] + [look_words(run, b["weights"][h, i], t) for h in range(run.cfg.n_heads)]
            for k, b in enumerate(run.trace["blocks"])]
    return html_table(f"nano-looks-{t}", ["block"] + [f"head {h + 1}" for h in range(run.cfg.n_heads)],
                      body, caption=f"Where each head looks most from t = {t}: the letter, its position and its weight")


SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"   # the axis's names as the book prints them: h₁, not h1 (one digit: blocks 1 to 9)


@nano_gpt.figure("residual", live=True)
def residual_figure(run: Run, t: int = 6) -> str:
    """The length of row t of the residual stream as it passes the
    blocks: on entering, after each block's attention, after its MLP."""
    i = check_t(run, t)
    points, names = [], []
    first = run.block(0)["X"][i]
    points.append(float(np.linalg.norm(first)))
    names.append((f"t = {t}, entering block 1: {NORM_SIGN}x{NORM_SIGN}", "x"))
    for k, b in enumerate(run.trace["blocks"]):
        for name, where in (("h", "attention"), ("y", "MLP")):
            points.append(float(np.linalg.norm(b[name][i])))
            names.append((f"t = {t}, after block {k + 1}'s {where}: {NORM_SIGN}{name}{NORM_SIGN}",
                          f"{name}{SUBSCRIPTS[k + 1]}"))
    titles = [f"{n} = {fixed(v)}" for (n, _), v in zip(names, points)]
    ys = nice_ticks(0, max(points), 4)
    drawing = line_chart_svg(
        [("length", list(enumerate(points)), titles)],
        f"A line: the length of the row t = {t} on entering the first block ({fixed(points[0])}), "
        f"after each block's attention and after each MLP, to {fixed(points[-1])} on leaving the last",
        [(k, short) for k, (_, short) in enumerate(names)], [(v, tick(v)) for v in ys],
        x_label="h, y: after attention, after the MLP",
        y_label=f"length of the row t = {t}", width=336, height=220)
    return figure("nano-residual", drawing,
                  f"The length of the row t = {t} after each part of each block"
                  '<span class="screen-only">; point at or tap a dot for its value</span>')


@nano_gpt.number("strongest_look", live=True)
def strongest_look_number(run: Run, t: int = 6, places: int = 3) -> str:
    """The largest weight any head of any block gives from position t."""
    i = check_t(run, t)
    return fixed(max(b["weights"][:, i].max() for b in run.trace["blocks"]), places)


@nano_gpt.number("blend", live=True)
def blend_number(run: Run, t: int = 6) -> str:
    """What the heads hand on from position t, in words true of any
    weights: a blend of several positions' values from each head that
    gives no single position half of its weight, mostly one position's value
    from the others (copies of a letter are other positions, with values of
    their own)."""
    i = check_t(run, t)
    strongest = [row[:t].max() for b in run.trace["blocks"] for row in b["weights"][:, i]]
    sharp = sum(w >= 0.5 for w in strongest)
    if sharp == 0:
        return "so every head hands on a blend of several positions' values"
    if sharp == len(strongest):
        return "so every head hands on mostly one position's value"
    return (f"so {sharp} of the {len(strongest)} heads hand{'s' if sharp == 1 else ''} on mostly one "
            "position's value and the others a blend of several")


@nano_gpt.number("lean", live=True)
def lean_number(run: Run, t: int = 6, block: int = 1) -> str:
    """Which letters a block's heads look at most from position t, in words
    true of any weights: 'all lean towards the A', or 'lean towards the A
    (heads 1 and 3) and the C (head 2)'."""
    i = check_t(run, t)
    letters = [nanogpt.VOCAB[run.ids[int(np.argmax(row[:t]))]] for row in block_trace(run, block)["weights"][:, i]]
    if len(set(letters)) == 1:
        return f"all lean towards the {letters[0]}"
    heads = {letter: [str(h + 1) for h, x in enumerate(letters) if x == letter] for letter in letters}
    return "lean towards " + and_list([f"the {letter} (head{'s' if len(hs) > 1 else ''} {and_list(hs)})"
                                       for letter, hs in heads.items()])
