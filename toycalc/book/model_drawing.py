"""The whole model in one drawing, computed from a forward trace.

Each token is a row that runs across the drawing, as in Transformer
Explainer: follow "␣cat" from its row of E to the token the model guesses
after it. Every part is named in words, with the letter the chapters use
beside it (NAMES). Every vector is a strip of cells (one per column, 12 px)
on the book's diverging scale; attention weights and probabilities, which
lie in [0, 1], on its sequential scale.

One <svg>, three rows of parts read left to right, top to bottom (ROWS):
the embedding, the block (one dashed frame, titled with how often it
repeats), the output. The residual stream is one line through all three,
wrapping from each row's end to the next row's start as a line of text
does: x is put on it, the attention and the MLP branch off it (each in
its grey box) and add their result back at ⊕, and f is read off its end.
The layout is the same on every screen: a phone scrolls the drawing
sideways as one unit, and no text is ever scaled below its size. Each
part of the model is a <g data-part="..."> (PARTS), a link to the page
that explains it when the caller gives one (TOY_PAGES), and every cell
carries its number in its <title>.
docs/javascripts/model_drawing.js draws the same markup in the browser.
"""
from __future__ import annotations

import math

from ..model.mirror import mirrored
from ..model.tokenizer import show
from .draw import esc, largest, sign, strength, text_width
from .render import fixed

# The parts in the order the data flows (data-part), as the tests and pages name them.
PARTS = ["tokens", "E", "P", "X", "ln1", "Q", "K", "V", "heads", "W_O", "add1",
         "ln2", "mlp", "add2", "lnf", "W_U", "softmax", "next"]
ATTENTION = ("ln1", "Q", "K", "V", "heads", "W_O")    # the branch that add1 adds back
MLP = ("ln2", "mlp")                                  # the branch that add2 adds back
IN_BLOCK = ATTENTION + MLP + ("add1", "add2")         # what the block's frame holds
IN_BLOCK_ORDER = ATTENTION + ("add1",) + MLP + ("add2",)

# Every part's name in words, as each drawing of the book writes it (the
# whole model, the chapter maps), and the letter the chapters use for it,
# a second label ("" where there is none).
NAMES = {"tokens": ("Tokens", ""), "E": ("Embedding", "E"), "P": ("Positions", "P"), "X": ("Sum", "x"),
         "ln1": ("LayerNorm", "u"), "Q": ("Queries", "q"), "K": ("Keys", "k"), "V": ("Values", "v"),
         "heads": ("Heads", ""), "W_O": ("Mix", "W_O"), "add1": ("Add", "h"), "ln2": ("LayerNorm", "u′"),
         "mlp": ("MLP", "m"), "add2": ("Add", "y"), "lnf": ("LayerNorm", "f"), "W_U": ("Logits", "z"),
         "softmax": ("Probabilities", "p"), "next": ("Next token", "")}
# The boxes that hold several parts, named in words as well.
ATTENTION_NAME, MLP_NAME, OUTPUT_NAME = "Attention", "MLP", "Output"


def block_title(n_blocks: int) -> str:
    """The block's frame says how often the block repeats: × 1, × 3, × 4."""
    return f"Transformer block × {n_blocks}"


# End to End's nine steps, each a region of the drawing: (number, name, its parts).
STEPS = [(1, "Tokens", ("tokens",)), (2, "Embedding", ("E",)), (3, "Positions", ("P", "X")),
         (4, "LayerNorm", ("ln1",)), (5, "Queries, keys, values", ("Q", "K", "V")), (6, "Heads", ("heads",)),
         (7, "Mix", ("W_O",)), (8, "Add, LayerNorm, MLP", ("add1", "ln2", "mlp", "add2")),
         (9, "Output", ("lnf", "W_U", "softmax", "next"))]
STEP_OF = {name: n for n, _, names in STEPS for name in names}
STEP_H = 18                   # the height of a step's bar, under the rows
# The drawing's three rows of parts, top to bottom, as the data flows:
# the embedding, the block (one frame), the output. Every step lies in one.
ROWS = [("E", "P", "X"), IN_BLOCK_ORDER, ("lnf", "W_U", "softmax", "next")]

# The page of the toy chapter that explains each part.
TOY_PAGES = {"tokens": "toy/tokens.md", "E": "toy/embedding.md", "P": "toy/positions.md", "X": "toy/positions.md",
             "ln1": "toy/layernorm.md", "Q": "toy/attention.md", "K": "toy/attention.md", "V": "toy/attention.md",
             "heads": "toy/attention.md", "W_O": "toy/attention.md", "add1": "toy/mlp.md", "ln2": "toy/layernorm.md",
             "mlp": "toy/mlp.md", "add2": "toy/mlp.md", "lnf": "toy/output.md", "W_U": "toy/output.md",
             "softmax": "toy/output.md", "next": "toy/generation.md"}

CELL, PITCH = 12, 14          # a cell, and a token's row (the cell and a gap)
WIDE = 16                     # a matrix of more columns is drawn as heat strips (heat_strips)
STRIP_CELL, LEVELS = 2, 8     # a strip's column, and the steps of its colour
HEAD_CELL = 11                # the width of a cell of an attention map (10 drawn)
GAP = 10                      # between two parts
NAME_PX = 8                   # a part's name: the width of a character (bold, 12 px)
# In each row of parts, from its top: the block's frame and its title, the
# stream, the branches' boxes and the attention's title, the parts' names,
# the first token's cells.
FRAME_Y, TITLE_Y, STREAM_Y, BOX_Y, BOX_TITLE_Y, LABEL_Y, TOP = 2, 15, 26, 32, 45, 59, 64
RETURN = 12                   # under a row: where the stream runs back to the next row's start


def sub(symbol: str) -> str:
    """A symbol in SVG text with its subscript lowered and smaller, as the
    book prints it (W_O: W with a subscript O); a ′ stays a prime."""
    # the drawing's font draws ′ as a slanted tick, like ´: a serif's prime
    prime = '<tspan class="prime">′</tspan>'
    if "_" not in symbol:
        return esc(symbol).replace("′", prime)
    base, low = symbol.split("_", 1)
    return f'{esc(base)}<tspan class="sub" dy="3">{esc(low)}</tspan>'


def name_text(name: str, label: str) -> str:
    """A part's name as the drawing writes it: words, then its letter."""
    words, letter = NAMES[name]
    if name == "heads":
        return label
    if name in STREAM:
        return letter
    return f"{words} {letter}".strip() if name != "P" else f"+ {words} {letter}"


def name_svg(name: str, label: str) -> str:
    """The same name as SVG text: the letter lighter, its subscript lowered."""
    words, letter = NAMES[name]
    if name == "heads" or name in STREAM or not letter:
        return sub(name_text(name, label))
    return f'{esc(name_text(name, label)[:-len(letter)])}<tspan class="sym">{sub(letter)}</tspan>'


STREAM = ("X", "add1", "add2")   # the stream's values: named by their letter, above it


class DrawnPart:
    """One part: its name (PARTS), its label (a head's: "head 1"), its
    width, and how it draws itself at (x, y), y the top of its row of parts."""

    def __init__(self, name: str, label: str, width: int, draw):
        self.name, self.label, self.draw = name, label, draw
        self.width = max(width, text_width(name_text(name, label).replace("_", ""), NAME_PX))


def strip(M, x: int, y: int, row_name, scale_kind: str = "signed", columns=None, chosen: tuple = ()) -> str:
    """A matrix drawn a row per token, a cell per column: cell (t, j) is
    titled "row_name(t), column j: value" (or the column's name); the cell
    (t, j) = chosen, the model's answer, outlined as the one chosen. A
    matrix wider than WIDE columns is drawn as heat strips instead."""
    scale = largest(M) if scale_kind == "signed" else 1.0
    if len(M[0]) > WIDE:
        return heat_strips(M, x, y, row_name, scale, scale_kind)
    out = []
    for t, row in enumerate(M):
        for j, v in enumerate(row):
            name = f"column {j + 1}" if columns is None else columns[j]
            out.append(cell_mark(x + j * CELL, y + TOP + t * PITCH, CELL, v, scale, scale_kind,
                                 f"{row_name(t)}, {name}", (t, j) == chosen))
    return "".join(out)


def heat_strips(M, x: int, y: int, row_name, scale: float, kind: str) -> str:
    """A wide matrix (nano-gpt's 48 channels, the writer's 128), a row per
    token as one strip, STRIP_CELL px a column and no gap between columns,
    its colour in LEVELS steps: each row's columns of one colour and step
    are one path (a cell each would cost a page thousands of elements), and
    a row's numbers, all of them, are the <title> of the strip that covers
    it, so that pointing at a row reads them."""
    out = []
    for t, row in enumerate(M):
        top = y + TOP + t * PITCH
        paths: dict = {}
        for j, v in enumerate(row):
            cls = f"v-{sign(v)}" if kind == "signed" else "v-prob"
            step = math.ceil(min(1.0, abs(v) / scale) * LEVELS) / LEVELS
            paths.setdefault((cls, strength(step) if v else "0"), []).append(j)
        for (cls, opacity), columns in paths.items():
            d = "".join(f"M{x + j * STRIP_CELL} {top}h{STRIP_CELL}v{CELL}h-{STRIP_CELL}z" for j in columns)
            out.append(f'<path class="{cls}" fill-opacity="{opacity}" d="{d}"/>')
        numbers = ", ".join(fixed(v) for v in row)
        out.append(f'<rect class="strip-hit" x="{x}" y="{top}" width="{len(row) * STRIP_CELL}" height="{CELL}">'
                   f'<title>{esc(row_name(t))}, its {len(row)} columns: {numbers}</title></rect>')
    return "".join(out)


def cell_mark(x: int, y: int, w: int, value: float, scale: float, kind: str, title: str,
              chosen: bool = False) -> str:
    cls = (f"v-{sign(value)}" if kind == "signed" else "v-prob") + (" chosen" if chosen else "")
    return (f'<rect x="{x}" y="{y}" width="{w - 1}" height="{CELL}" class="{cls}" '
            f'fill-opacity="{strength(value / scale)}"><title>{esc(title)}: {fixed(value)}</title></rect>')


def model_parts(trace: dict, tokens: list[str], vocab: list[str]) -> list[DrawnPart]:
    """Every part of the model for this trace (a single block), ready to draw."""
    blk = trace["blocks"][0]
    T = len(tokens)
    H = blk["weights"].shape[0]
    parts = []

    def vectors(name, M, row, kind="signed", columns=None, chosen=()):
        """M a row per token; row: what row t is, in words ({token}, {t})."""
        def row_name(t):
            return row.format(token=tokens[t], t=t + 1)
        width = len(M[0]) * (STRIP_CELL if len(M[0]) > WIDE else CELL)
        parts.append(DrawnPart(name, "", width, lambda x, y: strip(M, x, y, row_name, kind, columns, chosen)))

    vectors("E", trace["E_ids"], "E, the row of {token}")
    vectors("P", trace["P_t"], "P, row {t} (the position of {token})")
    vectors("X", trace["X"], "x of {token} (position {t})")
    vectors("ln1", blk["u"], "u, x after LayerNorm, of {token} (position {t})")
    for n, role in zip("QKV", ("query", "key", "value")):
        vectors(n, blk[n], f"{n.lower()}, the {role} of {{token}} (position {{t}})")
    for h in range(H):
        parts.append(DrawnPart("heads", f"head {h + 1}", T * HEAD_CELL,
                               lambda x, y, h=h: head_map(blk["weights"][h], x, y, h, tokens)))
    vectors("W_O", blk["attn"], "attention's output for {token} (position {t})")
    vectors("add1", blk["h"], "h, x plus attention's output, of {token} (position {t})")
    vectors("ln2", blk["u2"], "u′, h after LayerNorm, of {token} (position {t})")
    vectors("mlp", blk["m"], "m, the MLP's output for {token} (position {t})")
    vectors("add2", blk["y"], "y, h plus the MLP's output, of {token} (position {t})")
    vectors("lnf", trace["f"], "f, y after LayerNorm, of {token} (position {t})")
    shown = [show(v) for v in vocab]
    vectors("W_U", trace["z"], "z, the logits after {token} (position {t})", columns=shown)
    best = [int(row.argmax()) for row in trace["p"]]
    vectors("softmax", trace["p"], "p after {token} (position {t})", kind="prob",
            columns=[f"p({v})" for v in shown], chosen=(T - 1, best[-1]))
    words = [shown[i] for i in best]
    p = [trace["p"][t][i] for t, i in enumerate(best)]
    width = max([text_width(w) for w in words[:-1]] + [text_width(answer(words[-1], p[-1]))]) + 8
    parts.append(DrawnPart("next", "", width, lambda x, y: next_tokens(words, p, x, y, tokens)))
    return parts


def head_map(weights, x: int, y: int, h: int, tokens: list[str]) -> str:
    """Head h's attention weights: a row per query, a column per key; the
    keys after the query are blank (the mask)."""
    out = []
    for i in range(len(tokens)):
        for j in range(i + 1):
            out.append(cell_mark(x + j * HEAD_CELL, y + TOP + i * PITCH, HEAD_CELL, weights[i][j], 1.0, "prob",
                                 f"head {h + 1}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1})"))
    return "".join(out)


def answer(word: str, p: float) -> str:
    """The model's answer as the drawing writes it: ␣roof, p = 0.395."""
    return f"{word}, p = {fixed(p)}"


def next_tokens(words: list[str], p: list[float], x: int, y0: int, tokens: list[str]) -> str:
    """The most probable next token after each position; the last one is the
    model's answer, with its p, in bold in the box of the one chosen."""
    out = []
    for t, (word, value) in enumerate(zip(words, p)):
        last = t == len(words) - 1
        y = y0 + TOP + t * PITCH
        if last:
            out.append(f'<rect class="chosen-box" x="{x - 1}" y="{y - 1}" '
                       f'width="{text_width(answer(word, value)) + 6}" height="{CELL + 2}" rx="2"/>')
        out.append(f'<text x="{x + 2}" y="{y + 10}" class="{"lbl answer" if last else "lbl"}">'
                   f'{esc(answer(word, value) if last else word)}'
                   f'<title>after {esc(tokens[t])} (position {t + 1}): {esc(word)}, p = {fixed(value)}</title></text>')
    return "".join(out)


def widen_steps(parts: list[DrawnPart]) -> None:
    """End to End: a step's bar names it in full ("5  Queries, keys,
    values"), so the step's last part widens until its bar holds the words."""
    for n, label, names in STEPS[1:]:
        mine = [p for p in parts if p.name in names]
        room = sum(p.width for p in mine) + GAP * (len(mine) - 1) + 4
        need = step_text_width(n, label)
        if room < need:
            mine[-1].width += need - room


def step_text_width(n: int, label: str) -> int:
    return text_width(f"{n}  {label}") + 12


def placed_rows(parts: list[DrawnPart], label_width: int) -> list[list[tuple[DrawnPart, int]]]:
    """Each row of parts (ROWS) with every part's x, a little after the
    tokens' names (the block's row further, for its frame's edge)."""
    out = []
    for k, names in enumerate(ROWS):
        x = label_width + (8 if k == 1 else 6)
        row = []
        for part in parts:
            if part.name in names:
                row.append((part, x))
                x += part.width + GAP
        out.append(row)
    return out


def row_svg(k: int, placed: list[tuple[DrawnPart, int]], y: int, tokens: list[str], label_width: int, links: dict,
            here: tuple, n_blocks: int, steps: bool) -> str:
    """Row k of parts from y: the tokens' names, the block's frame (row 2),
    the branches' boxes, the parts, and End to End's bars."""
    bottom = y + TOP + len(tokens) * PITCH
    under = bottom + (6 + STEP_H if steps else 0)     # the rows' cells, then the steps' bars
    body = [tokens_svg(tokens, label_width, y, links, steps, k == 0)]
    centre = {p.name: px + p.width // 2 for p, px in placed}
    if k == 1:                                 # the block: one frame, from its first norm to its last sum
        x0, x1 = placed[0][1] - 8, placed[-1][1] + placed[-1][0].width + 8
        body.append(f'<rect class="block" x="{x0}" y="{y + FRAME_Y}" width="{x1 - x0}" '
                    f'height="{under + 4 - y - FRAME_Y}" rx="6"/>'
                    f'<text x="{x0 + 8}" y="{y + TITLE_Y}" class="frame-title">{esc(block_title(n_blocks))}</text>')
    for branch, add, cls in ((ATTENTION, "add1", "attention"), (MLP, "add2", "mlp")):
        inside = [(p, px) for p, px in placed if p.name in branch]
        if not inside:
            continue
        x0, x1 = inside[0][1] - 4, inside[-1][1] + inside[-1][0].width + 2
        body.append(f'<rect class="branch {cls}" x="{x0}" y="{y + BOX_Y}" width="{x1 - x0}" '
                    f'height="{bottom - y - BOX_Y + 4}" rx="3"/>'
                    f'<path class="tap" d="M{x0 + 6} {y + STREAM_Y}V{y + BOX_Y}"/>'
                    f'<path class="tap" d="M{x1} {y + BOX_Y + 6}H{centre[add]}V{y + STREAM_Y + 5}"/>')
        if cls == "attention":                 # named over its queries: LayerNorm comes first in the box
            qx = next(px for p, px in inside if p.name == "Q")
            body.append(f'<text x="{qx}" y="{y + BOX_TITLE_Y}" class="box-title">{ATTENTION_NAME}</text>')
    for part, px in placed:
        body.append(part_svg(part, px, y, centre, links, here, steps))
    if steps:
        body.insert(0, step_bars(placed, label_width if k == 0 else None, y, bottom))
    return f'<g class="parts-row">{"".join(body)}</g>'


def tokens_svg(tokens: list[str], label_width: int, y: int, links: dict, steps: bool, first: bool) -> str:
    """The tokens' names, a row's labels; the first row's are step 1, under the word "Tokens"."""
    names = "".join(f'<text x="{label_width - 6}" y="{y + TOP + t * PITCH + 10}" class="lbl" text-anchor="end">'
                    f'{esc(tok)}<title>token {t + 1}: {esc(tok)}</title></text>' for t, tok in enumerate(tokens))
    if first:
        names = (f'<text x="{label_width - 6}" y="{y + LABEL_Y}" class="hdr" text-anchor="end">'
                 f'{NAMES["tokens"][0]}</text>' + names)
    if "tokens" in links:                      # the tokens are the labels of their rows
        names = f'<a data-page="{esc(links["tokens"])}">{names}</a>'
    step = f' data-step="{STEP_OF["tokens"]}"' if steps and first else ""
    return f'<g data-part="tokens"{step}>{names}</g>'


def part_svg(part: DrawnPart, px: int, y: int, centre: dict, links: dict, here: tuple, steps: bool) -> str:
    inner = []
    if part.name in STREAM:                    # a value of the stream: drawn off it
        mid = centre[part.name]
        inner.append(f'<path class="tap" d="M{mid} {y + STREAM_Y}V{y + TOP - 2}"/>')
        if part.name != "X":
            inner.append(add_mark(mid, y + STREAM_Y, 5))
    label_y = y + (STREAM_Y - 8 if part.name in STREAM else LABEL_Y)
    label_x = centre[part.name] - 4 if part.name in STREAM else px
    label = f'<text x="{label_x}" y="{label_y}" class="hdr">{name_svg(part.name, part.label)}</text>'
    if part.name in links:                     # the label is the link (the site makes data-page an address,
        # site/blocks.py); a tap on a cell shows its number and stays on the page
        label = (f'<a data-page="{esc(links[part.name])}"><rect class="hit" x="{label_x - 2}" y="{label_y - 12}" '
                 f'width="{text_width(name_text(part.name, part.label).replace("_", ""), NAME_PX) + 4}" '
                 f'height="16"/>{label}</a>')
    inner.append(label + part.draw(px, y))
    cls = ' class="here"' if part.name in here else ""
    step = f' data-step="{STEP_OF[part.name]}"' if steps else ""
    return f'<g data-part="{part.name}"{cls}{step}>{"".join(inner)}</g>'


def add_mark(x: int, y: int, r: int) -> str:
    """⊕, where a branch adds back into the stream: a circle and its cross, one path."""
    c = r - 2
    return (f'<path class="add" d="M{x - r} {y}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0'
            f'M{x - c} {y}h{2 * c}M{x} {y - c}v{2 * c}"/>')


def stream_path(rows: list, tops: list[int], heights: list[int], label_width: int) -> str:
    """The residual stream, one line: from x, along each row of parts past
    its last part, back under it to the next row's start, down into f,
    where an arrow ends it."""
    x_mid = next(px + p.width // 2 for p, px in rows[0] if p.name == "X")
    f_x = next(px for p, px in rows[2] if p.name == "lnf") - 5
    left = label_width - 10
    d = f"M{x_mid} {tops[0] + STREAM_Y}"
    for k in (0, 1):
        back = tops[k] + heights[k] - RETURN // 2
        last, px = rows[k][-1]
        d += f"H{px + last.width + 10}V{back}H{left}V{tops[k + 1] + STREAM_Y}"
    end = tops[2] + TOP - 4
    d += f"H{f_x}V{end - 6}"
    return (f'<path class="stream" d="{d}"/>'
            f'<path class="stream-end" d="M{f_x - 4} {end - 7}l4 7l4 -7z"/>')


def step_bars(placed: list, label_width: int | None, y: int, bottom: int) -> str:
    """End to End's steps in a row of parts: under each step's parts a
    numbered bar naming it, and behind them its area. The bar is the step's
    button (#path-step-N: docs/javascripts/path.js opens its panel).
    label_width: in the first row, step 1 is the tokens' names."""
    spans: dict[int, list[int]] = {}
    if label_width is not None:
        spans[1] = [2, label_width - 4]
    for part, px in placed:
        x0, x1 = spans.get(STEP_OF[part.name], [px - 2, px + part.width + 2])
        spans[STEP_OF[part.name]] = [min(x0, px - 2), max(x1, px + part.width + 2)]
    out = []
    for n, (x0, x1) in spans.items():
        label = STEPS[n - 1][1]
        out.append(f'<rect class="step-area" data-step="{n}" x="{x0}" y="{y + 2}" width="{x1 - x0}" '
                   f'height="{bottom - y + STEP_H + 4}" rx="4"/><g class="path-step" data-step="{n}" '
                   f'id="path-step-{n}" role="button" tabindex="0" aria-controls="step-{n}" aria-expanded="false" '
                   f'aria-label="Step {n}: {esc(label)}">'
                   f'<rect class="step-bar" x="{x0}" y="{bottom + 6}" width="{x1 - x0}" height="{STEP_H}" rx="3"/>'
                   f'<text class="step-n" x="{x0 + 5}" y="{bottom + 19}">{n}  {esc(label)}</text></g>')
    return "".join(out)


def spoken(label: str) -> str:
    """A label for a screen reader: W_O as W O (the drawing lowers the O)."""
    return label.replace("_", " ")


@mirrored("model_drawing.js")
def model_svg(trace: dict, tokens: list[str], vocab: list[str], links: dict | None = None,
              here: tuple = (), n_blocks: int = 1, steps: bool = False) -> str:
    """The whole model on this trace, one <svg> of three rows of parts.
    tokens: the text's tokens as the book prints them (␣); links: part ->
    the page that explains it, as docs/ names it ("toy/embedding.md"); here:
    the parts to highlight; steps: End to End's nine steps as regions (STEPS)."""
    parts = model_parts(trace, tokens, vocab)
    if steps:
        widen_steps(parts)
    label_width = max([text_width(t) for t in tokens] + [step_text_width(1, STEPS[0][1])]) + 10
    rows = placed_rows(parts, label_width)
    bottom = TOP + len(tokens) * PITCH + (6 + STEP_H if steps else 0)
    heights = [bottom + 4 + RETURN] * 3
    tops = [0, heights[0], heights[0] + heights[1]]
    width = max(px + p.width for row in rows for p, px in row) + 20
    body = [row_svg(k, row, tops[k], tokens, label_width, links or {}, here, n_blocks, steps)
            for k, row in enumerate(rows)]
    body.insert(0, stream_path(rows, tops, heights, label_width))
    height = tops[2] + bottom + 8
    words = ", then ".join(dict.fromkeys(spoken(name_text(p.name, p.label)) if p.name != "heads" else "the heads"
                                         for row in rows for p, _ in row))
    # the box scrolls on a narrow screen: it takes the focus, so that a keyboard can scroll it too
    return (f'<div class="model-bands" tabindex="0" role="region" aria-label="The whole model\'s drawing">'
            f'<svg class="fig model-band" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="{"group" if steps else "img"}" '
            f'aria-label="{esc("The whole model: the tokens, then " + words)}">{"".join(body)}</svg></div>')


@mirrored("model_drawing.js")
def model_figure(trace: dict, tokens: list[str], vocab: list[str], links: dict | None = None) -> str:
    """The drawing in its <figure>, its key as the caption."""
    return (f'<figure class="toy-figure model-figure" data-figure="model">{model_svg(trace, tokens, vocab, links)}'
            f'<figcaption>{model_key(linked=bool(links))}</figcaption></figure>')


def model_key(steps: bool = False, linked: bool = False) -> str:
    """What the drawing's marks mean, under it; steps: End to End's way
    in; linked: the parts' names are links."""
    # screen-only: the print page has no pointer and prints every step
    how = ('<span class="screen-only">' + ("Click or tap a numbered step, or press Enter on it, and its "
           "numbers open under the drawing." if steps else "Point at or tap a cell to read its number"
           + ("; a part's name opens its page." if linked else "."))
           + "</span>")
    return ('<p class="fig-legend model-key">A row per token, read left to right and top to bottom. '
            '<span class="swatch v-neg"></span> negative '
            '<span class="swatch v-zero"></span> zero '
            '<span class="swatch v-pos"></span> positive; '
            '<span class="swatch v-prob"></span> a weight or probability, 0 to 1; '
            '<span class="swatch chosen"></span> the token the model picks; '
            '<span class="key-line"></span> the residual stream, ⊕ adds a branch back into it. '
            f'{how}</p>')
