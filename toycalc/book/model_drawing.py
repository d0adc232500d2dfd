"""The whole model in one drawing, computed from a forward trace.

Each token is a row that runs across the drawing, as in Transformer
Explainer: follow "␣cat" from its row of E to the token the model guesses
after it. Every vector is a strip of cells (one per column, at least 12 px)
on the book's diverging scale; attention weights and probabilities, which
lie in [0, 1], on its sequential scale. The residual stream is the line
along the top: x is put on it, the attention and the MLP branch off it
(each in its box) and add their result back into it at ⊕, and f is read
off its end. A dashed frame is the block.

The drawing is cut into bands, each an <svg> no wider than a phone's
column (BAND): side by side on a wide screen, under each other on a phone,
with no text ever scaled below its size. Each part of the model is a
<g data-part="..."> (PARTS), a link to the page that explains it when the
caller gives one (TOY_PAGES), and every cell carries its number in its <title>.
docs/javascripts/model_drawing.js draws the same markup in the browser.
"""
from __future__ import annotations

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
GROUPS = [("tokens", "E", "P", "X"), ("ln1", "Q", "K", "V", "heads", "W_O", "add1"),
          ("ln2", "mlp", "add2"), ("lnf", "W_U", "softmax", "next")]

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


# End to End's nine steps, each a region of the drawing: (number, label, its parts).
STEPS = [(1, "Tokens and ids", ("tokens",)), (2, "The table E", ("E",)), (3, "P and X", ("P", "X")),
         (4, "LayerNorm", ("ln1",)), (5, "Q, K, V", ("Q", "K", "V")), (6, "The heads", ("heads",)),
         (7, "Mix and W_O", ("W_O",)), (8, "Sum, LayerNorm, MLP", ("add1", "ln2", "mlp", "add2")),
         (9, "Output and softmax", ("lnf", "W_U", "softmax", "next"))]
STEP_OF = {name: n for n, _, names in STEPS for name in names}
# a step's name when its bar is too narrow for its label
SHORT = {1: "ids", 2: "E", 3: "P, X", 4: "Norm", 5: "Q K V", 6: "Heads", 7: "Mix", 8: "Sum", 9: "Output"}
STEP_H = 18                   # the height of a step's bar, under the rows

# The page of the toy chapter that explains each part.
TOY_PAGES = {"tokens": "toy/tokens.md", "E": "toy/embedding.md", "P": "toy/positions.md", "X": "toy/positions.md",
             "ln1": "toy/layernorm.md", "Q": "toy/attention.md", "K": "toy/attention.md", "V": "toy/attention.md",
             "heads": "toy/attention.md", "W_O": "toy/attention.md", "add1": "toy/mlp.md", "ln2": "toy/layernorm.md",
             "mlp": "toy/mlp.md", "add2": "toy/mlp.md", "lnf": "toy/output.md", "W_U": "toy/output.md",
             "softmax": "toy/output.md", "next": "toy/generation.md"}

CELL, PITCH = 12, 14          # a cell, and a token's row (the cell and a gap)
HEAD_CELL = 11                # the width of a cell of an attention map (10 drawn)
GAP = 10                      # between two parts
BAND = 336                    # the widest band: a phone's column at 375 px
STREAM_Y = 20                 # the residual stream's line; the labels of its values above it
BOX_Y = 28                    # the top of a branch's box, under the stream
LABEL_Y = 42                  # the labels of the other parts
TOP = 48                      # the first token's row


def sub(symbol: str) -> str:
    """A symbol in SVG text with its subscript lowered and smaller, as the
    book prints it (W_O: W with a subscript O); a ′ stays a prime."""
    # the drawing's font draws ′ as a slanted tick, like ´: a serif's prime
    prime = '<tspan class="prime">′</tspan>'
    if "_" not in symbol:
        return esc(symbol).replace("′", prime)
    base, low = symbol.split("_", 1)
    return f'{esc(base)}<tspan class="sub" dy="3">{esc(low)}</tspan>'


class DrawnPart:
    """One part: its name (PARTS), its label, its width, and how it draws
    itself at x (a function of x returning SVG)."""

    def __init__(self, name: str, label: str, width: int, draw, stream: bool = False):
        self.name, self.label, self.draw, self.stream = name, label, draw, stream
        self.width = max(width, text_width(label.replace("_", ""), 8))


def strip(M, x: int, row_name, scale_kind: str = "signed", columns=None, chosen: tuple = ()) -> str:
    """A matrix drawn a row per token, a cell per column: cell (t, j) is
    titled "row_name(t), column j: value" (or the column's name); the cell
    (t, j) = chosen, the model's answer, outlined as the one chosen."""
    scale = largest(M) if scale_kind == "signed" else 1.0
    out = []
    for t, row in enumerate(M):
        for j, v in enumerate(row):
            name = f"column {j + 1}" if columns is None else columns[j]
            out.append(cell_mark(x + j * CELL, TOP + t * PITCH, CELL, v, scale, scale_kind,
                                 f"{row_name(t)}, {name}", (t, j) == chosen))
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
    parts = [DrawnPart("tokens", "tokens", 0, lambda x: "")]   # the token labels start every band

    def vectors(name, label, M, row, stream=False, kind="signed", columns=None, chosen=()):
        """M a row per token; row: what row t is, in words ({token}, {t})."""
        def row_name(t):
            return row.format(token=tokens[t], t=t + 1)
        width = len(M[0]) * CELL
        parts.append(DrawnPart(name, label, width, lambda x: strip(M, x, row_name, kind, columns, chosen), stream))

    vectors("E", "E", trace["E_ids"], "E, the row of {token}")
    vectors("P", "+ P", trace["P_t"], "P, row {t} (the position of {token})")
    vectors("X", "x", trace["X"], "x of {token} (position {t})", stream=True)
    vectors("ln1", "u", blk["u"], "u, x after LayerNorm, of {token} (position {t})")
    for n, role in zip("QKV", ("query", "key", "value")):
        vectors(n, n.lower(), blk[n], f"{n.lower()}, the {role} of {{token}} (position {{t}})")
    for h in range(H):
        parts.append(DrawnPart("heads", f"head {h + 1}", T * HEAD_CELL,
                          lambda x, h=h: head_map(blk["weights"][h], x, h, tokens)))
    vectors("W_O", "a W_O", blk["attn"], "attention's output for {token} (position {t})")
    vectors("add1", "h", blk["h"], "h, x plus attention's output, of {token} (position {t})", stream=True)
    vectors("ln2", "u′", blk["u2"], "u′, h after LayerNorm, of {token} (position {t})")
    vectors("mlp", "MLP", blk["m"], "m, the MLP's output for {token} (position {t})")
    vectors("add2", "y", blk["y"], "y, h plus the MLP's output, of {token} (position {t})", stream=True)
    vectors("lnf", "f", trace["f"], "f, y after LayerNorm, of {token} (position {t})", stream=True)
    shown = [show(v) for v in vocab]
    vectors("W_U", "z", trace["z"], "z, the logits after {token} (position {t})", columns=shown)
    best = [int(row.argmax()) for row in trace["p"]]
    vectors("softmax", "p", trace["p"], "p after {token} (position {t})", kind="prob",
            columns=[f"p({v})" for v in shown], chosen=(T - 1, best[-1]))
    words = [shown[i] for i in best]
    p = [trace["p"][t][i] for t, i in enumerate(best)]
    width = max([text_width(w) for w in words[:-1]] + [text_width(answer(words[-1], p[-1]))]) + 8
    parts.append(DrawnPart("next", "next", width, lambda x: next_tokens(words, p, x, tokens)))
    return parts


def head_map(weights, x: int, h: int, tokens: list[str]) -> str:
    """Head h's attention weights: a row per query, a column per key; the
    keys after the query are blank (the mask)."""
    out = []
    for i in range(len(tokens)):
        for j in range(i + 1):
            out.append(cell_mark(x + j * HEAD_CELL, TOP + i * PITCH, HEAD_CELL, weights[i][j], 1.0, "prob",
                                 f"head {h + 1}, {tokens[i]} (query {i + 1}) reads {tokens[j]} (key {j + 1})"))
    return "".join(out)


def answer(word: str, p: float) -> str:
    """The model's answer as the drawing writes it: ␣roof, p = 0.395."""
    return f"{word}, p = {fixed(p)}"


def next_tokens(words: list[str], p: list[float], x: int, tokens: list[str]) -> str:
    """The most probable next token after each position; the last one is the
    model's answer, with its p, in bold in the box of the one chosen."""
    out = []
    for t, (word, value) in enumerate(zip(words, p)):
        last = t == len(words) - 1
        y = TOP + t * PITCH
        if last:
            out.append(f'<rect class="chosen-box" x="{x - 1}" y="{y - 1}" '
                       f'width="{text_width(answer(word, value)) + 6}" height="{CELL + 2}" rx="2"/>')
        out.append(f'<text x="{x + 2}" y="{y + 10}" class="{"lbl answer" if last else "lbl"}">'
                   f'{esc(answer(word, value) if last else word)}'
                   f'<title>after {esc(tokens[t])} (position {t + 1}): {esc(word)}, p = {fixed(value)}</title></text>')
    return "".join(out)


def bands(parts: list[DrawnPart], label_width: int) -> list[list[DrawnPart]]:
    """The parts cut into bands no wider than BAND, a group (GROUPS) kept
    whole when it fits in one band."""
    group_of = {name: k for k, names in enumerate(GROUPS) for name in names}
    out: list[list[DrawnPart]] = [[]]
    used = label_width
    for k, part in enumerate(parts):
        if part.name == "tokens":
            continue
        starts_group = k > 0 and group_of[part.name] != group_of[parts[k - 1].name]
        rest = sum(p.width + GAP for p in parts[k:] if group_of[p.name] == group_of[part.name])
        if out[-1] and (used + part.width + GAP > BAND or (starts_group and used + rest > BAND)):
            out.append([])
            used = label_width
        out[-1].append(part)
        used += part.width + GAP
    return out


def band_svg(band: list[DrawnPart], tokens: list[str], label_width: int, links: dict, here: tuple, n_blocks: int,
             first_block: bool = True, steps: set | None = None) -> str:
    """One band: the token labels, the stream, the branches' boxes, the
    block's frame, then the parts."""
    bottom = TOP + len(tokens) * PITCH
    names = "".join(f'<text x="{label_width - 6}" y="{TOP + t * PITCH + 10}" class="lbl" text-anchor="end">{esc(tok)}'
                    f'<title>token {t + 1}: {esc(tok)}</title></text>' for t, tok in enumerate(tokens))
    if "tokens" in links:                      # the tokens are the labels of their rows
        names = f'<a data-page="{esc(links["tokens"])}">{names}</a>'
    body = [f'<g data-part="tokens"{step_attr("tokens", steps)}>{names}</g>']
    x, placed = label_width, []
    for part in band:
        placed.append((part, x))
        x += part.width + GAP
    width = BAND                               # every band as wide: on a wide screen they line up in columns
    centre = {p.name: px + p.width // 2 for p, px in placed}
    framed = [(p, px) for p, px in placed if p.name in IN_BLOCK]
    if framed:                                 # the block: from its first norm to its last sum
        x0, x1 = framed[0][1] - 6, framed[-1][1] + framed[-1][0].width + 6
        body.append(f'<rect class="block" x="{x0}" y="{STREAM_Y - 14}" width="{x1 - x0}" '
                    f'height="{bottom - STREAM_Y + 18}" rx="6"/>')
        if first_block:
            name = "the block" if n_blocks == 1 else f"a block, × {n_blocks}"
            below = bottom + 18 + (STEP_H + 6 if steps is not None else 0)
            body.append(f'<text x="{x0 + 4}" y="{below}" class="lbl">{esc(name)}</text>')
    for branch, add, cls in ((ATTENTION, "add1", "attention"), (MLP, "add2", "mlp")):
        inside = [(p, px) for p, px in placed if p.name in branch]
        if not inside:
            continue
        x0, x1 = inside[0][1] - 3, inside[-1][1] + inside[-1][0].width + 3
        body.append(f'<rect class="branch {cls}" x="{x0}" y="{BOX_Y}" width="{x1 - x0}" '
                    f'height="{bottom - BOX_Y + 3}" rx="3"/>')
        if inside[0][0].name == branch[0]:     # it branches off the stream
            body.append(f'<path class="tap" d="M{x0 + 6} {STREAM_Y}V{BOX_Y}"/>')
        if add in centre:                      # and is added back at ⊕
            body.append(f'<path class="tap" d="M{x1} {BOX_Y + 6}H{centre[add]}V{STREAM_Y + 5}"/>')
    body.append(f'<path class="stream" d="M{label_width - 4} {STREAM_Y}H{width - 8}"/>'
                f'<path class="stream-end" d="M{width - 8} {STREAM_Y - 4}l7 4l-7 4z"/>')
    for part, px in placed:
        inner = []
        if part.stream:                        # a value of the stream
            inner.append(f'<path class="tap" d="M{centre[part.name]} {STREAM_Y}V{TOP - 2}"/>')
            if part.name in ("add1", "add2"):
                mid = centre[part.name]
                inner.append(add_mark(mid, STREAM_Y, 5))
        label_y = STREAM_Y - 8 if part.stream else LABEL_Y
        label = f'<text x="{px}" y="{label_y}" class="hdr">{sub(part.label)}</text>'
        if part.name in links:                 # the label is the link (the site makes data-page an address,
            # site/blocks.py); a tap on a cell shows its number and stays on the page
            label = (f'<a data-page="{esc(links[part.name])}"><rect class="hit" x="{px - 2}" y="{label_y - 12}" '
                     f'width="{text_width(part.label.replace("_", ""), 8) + 4}" height="16"/>{label}</a>')
        inner.append(label + part.draw(px))
        cls = ' class="here"' if part.name in here else ""
        body.append(f'<g data-part="{part.name}"{cls}{step_attr(part.name, steps)}>{"".join(inner)}</g>')
    height = bottom + (24 if framed else 8)
    role = "img"
    if steps is not None:                      # End to End: the steps' bars, under the rows
        body.insert(0, step_bars(placed, label_width, bottom, steps))
        height, role = height + STEP_H + 6, "group"
    return (f'<svg class="fig model-band" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="{role}" aria-label="{esc(band_aria(band))}">{"".join(body)}</svg>')


def add_mark(x: int, y: int, r: int) -> str:
    """⊕, where a branch adds back into the stream: a circle and its cross, one path."""
    c = r - 2
    return (f'<path class="add" d="M{x - r} {y}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0'
            f'M{x - c} {y}h{2 * c}M{x} {y - c}v{2 * c}"/>')


def step_attr(name: str, steps: set | None) -> str:
    return "" if steps is None else f' data-step="{STEP_OF[name]}"'


def step_bars(placed: list, label_width: int, bottom: int, steps: set) -> str:
    """End to End's steps in this band: under each step's parts a numbered
    bar, and behind them its area. A step's first bar is its button
    (#path-step-N, docs/javascripts/path.js opens its panel); a step cut by
    the band's end goes on in the next band, under a bar that is not.
    steps: the steps already drawn (this function adds the band's)."""
    spans: dict[int, list[int]] = {}
    if 1 not in steps:                         # the token names, at the first band's left
        spans[1] = [2, label_width - 4]
    for part, px in placed:
        x0, x1 = spans.get(STEP_OF[part.name], [px - 2, px + part.width + 2])
        spans[STEP_OF[part.name]] = [min(x0, px - 2), max(x1, px + part.width + 2)]
    out = []
    for n, (x0, x1) in spans.items():
        label = STEPS[n - 1][1]
        words = (f"{n}  {label}" if text_width(label) + 24 < x1 - x0 else
                 f"{n} {SHORT[n]}" if text_width(SHORT[n]) + 18 < x1 - x0 else str(n))
        first = n not in steps
        steps.add(n)
        # the name holds the words the bar shows, so that a reader who says
        # what they see to a voice control reaches the button (label in name)
        shown = "" if words in (str(n), f"{n}  {label}") else f", {SHORT[n]}"
        attrs = (f' id="path-step-{n}" role="button" tabindex="0" aria-controls="step-{n}" aria-expanded="false" '
                 f'aria-label="Step {n}{esc(shown)}: {esc(spoken(label))}"') if first else ' aria-hidden="true"'
        out.append(f'<rect class="step-area" data-step="{n}" x="{x0}" y="2" width="{x1 - x0}" '
                   f'height="{bottom + STEP_H + 4}" rx="4"/><g class="path-step" data-step="{n}"{attrs}>'
                   f'<rect class="step-bar" x="{x0}" y="{bottom + 8}" width="{x1 - x0}" height="{STEP_H}" rx="3"/>'
                   f'<text class="step-n" x="{x0 + 5}" y="{bottom + 21}">{sub(words)}</text></g>')
    return "".join(out)


def band_aria(band: list[DrawnPart]) -> str:
    return "The model's drawing, parts " + ", then ".join(dict.fromkeys(spoken(part.label) for part in band))


def spoken(label: str) -> str:
    """A label for a screen reader: W_O as W O (the drawing lowers the O)."""
    return label.replace("_", " ")


@mirrored("model_drawing.js")
def model_svg(trace: dict, tokens: list[str], vocab: list[str], links: dict | None = None,
              here: tuple = (), n_blocks: int = 1, steps: bool = False) -> str:
    """The whole model on this trace, as bands of SVG inside one figure.
    tokens: the text's tokens as the book prints them (␣); links: part ->
    the page that explains it, as docs/ names it ("toy/embedding.md"); here:
    the parts to highlight; steps: End to End's nine steps as regions (STEPS)."""
    parts = model_parts(trace, tokens, vocab)
    label_width = max(text_width(t) for t in tokens) + 10
    cut = bands(parts, label_width)
    framed = [k for k, band in enumerate(cut) if any(p.name in IN_BLOCK for p in band)]
    done: set | None = set() if steps else None
    drawn = "".join(band_svg(band, tokens, label_width, links or {}, here, n_blocks, k == framed[0], done)
                    for k, band in enumerate(cut))
    return f'<div class="model-bands">{drawn}</div>'


@mirrored("model_drawing.js")
def model_figure(trace: dict, tokens: list[str], vocab: list[str], links: dict | None = None) -> str:
    """The drawing in its <figure>, its key as the caption."""
    return (f'<figure class="toy-figure model-figure" data-figure="model">{model_svg(trace, tokens, vocab, links)}'
            f'<figcaption>{model_key(linked=bool(links))}</figcaption></figure>')


def model_key(steps: bool = False, linked: bool = False) -> str:
    """What the drawing's marks mean, beside it; steps: End to End's way
    in; linked: the parts' names are links."""
    # screen-only: the print page has no pointer and prints every step
    how = ('<span class="screen-only">' + ("Click or tap a numbered step, or press Enter on it, and its "
           "numbers open under the drawing." if steps else "Point at or tap a cell to read its number"
           + ("; a part's name opens its page." if linked else "."))
           + "</span>")
    return ('<p class="fig-legend model-key">Each row is a token of the sentence, followed from its '
            'row of E (top left) to the token the model guesses after it (bottom right). '
            '<span class="swatch v-neg"></span> negative '
            '<span class="swatch v-zero"></span> zero '
            '<span class="swatch v-pos"></span> positive (each strip: full colour for its largest '
            'size); <span class="swatch v-prob"></span> a weight or probability, from 0 to 1; '
            '<span class="swatch chosen"></span> the one chosen: the token the model picks, and its p; '
            '<span class="key-line"></span> the residual stream, ⊕ adds a branch back into it; '
            f'the dashed frame is the block. {how}</p>')
