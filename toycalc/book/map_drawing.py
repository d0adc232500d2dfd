"""The drawing of a chapter's "you are here" map (minimap.py says what it
shows and where): the model as a newcomer reads it, left to right, in
one SVG.

                 ┌ Transformer block × N ─────────────────────────────┐
    Tokens     ┏━┿━━━━━━━━━━━━━━━━━━━━━━━━━━━━⊕━━━━━━━━━━━━━━━━━━━━⊕━━━━┿━━━┓
    Embedding E┃ │ ┌ Attention ──────────────┐ Add h ┌ MLP ─────────┐ Add y│ ┌─▼ Output ──────┐
    Positions P┃ │ │ LayerNorm u   head 1 ▪▪ │       │ LayerNorm u′ │      │ │ LayerNorm f    │
    Sum x ━━━━━┛ │ │ Queries q …   head H ▪▪ │       │ m            │      │ │ Logits z …     │
                 │ │ Values v      Mix W_O   │       └──────────────┘      │ │ Next token     │
                 └─────────────────────────────────────────────────────┘ └────────────────┘

Each part is a column of items; an item is its name in words (the
letter the chapter uses beside it) over its numbers: a strip of cells
(8 px, in rows of WRAP, each carrying its number in its <title>), or,
for a vector too long to draw in the map, one bar that carries all its
numbers in its <title>. The block is one frame, drawn once, that says how
often it repeats; the residual stream is one line from the sum x through
the block to the output, the two branches hanging off it in their boxes
and added back at ⊕. A part's name is a link to the page that explains
it, a tap target of TARGET px each way that covers no cell, no other
name's target and no text.

The drawing is as wide as it needs (at most WIDE on a wide screen); a
phone's column scrolls it sideways as one piece (figures.css).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .draw import esc, sign, strength, text_width
from .model_drawing import add_mark, sub

PITCH = 9                  # a cell and its gap: cells of 8 px
WRAP = 16                  # a vector's cells in rows of WRAP
BAR_W, BAR_H = 32, 8       # a vector drawn as one bar
CHAR = 7                   # a character of the map's 11 px monospaced text, wide enough
TARGET = 24                # a name as a tap target, both ways (WCAG 2.5.8)
LABEL_H, ITEM_GAP = 18, 6  # an item's name row, and the gap under its numbers
STREAM_Y = 28              # the residual stream
BOX_Y = 36                 # the top of a box (Attention, MLP, Output): above it, at the right, the Key control
CAPTION_Y = 52             # a box's name, on its first line
ITEM_TOP = 66              # the first item's name row in a box or under the stream (its target from 6 px above)
INPUT_TOP = 10             # the inputs', in no box: from the top
GAP, PAD = 8, 6            # between columns; inside a frame


@dataclass
class Marks:
    """An item's numbers: cells (values, each with its title), or one bar
    (values, with one title that says them all), or a text (a token)."""
    kind: str                       # "cells", "bar" or "text"
    values: list = field(default_factory=list)
    titles: list = field(default_factory=list)
    scale: str = "signed"           # cells: "signed" (the diverging scale) or "prob" (0 to 1)
    chosen: int | None = None       # the cell of the token the model picks
    text: str = ""
    answer: bool = False            # a text that is the model's answer, boxed as the one chosen

    @property
    def width(self) -> int:
        if self.kind == "cells":
            return PITCH * min(len(self.values), WRAP) - 1
        if self.kind == "bar":
            return BAR_W
        return text_width(self.text, CHAR) + (6 if self.answer else 0)

    @property
    def height(self) -> int:
        if self.kind == "cells":
            return PITCH * -(-len(self.values) // WRAP) - 1
        return BAR_H if self.kind == "bar" else 14


@dataclass
class Item:
    """A name over its numbers. words and letter: the name as the map
    writes it (NAMES); spoken: what the link says after the name."""
    part: str
    words: str
    letter: str
    marks: Marks
    spoken: str = ""
    link: bool = True             # the name is the link to its page (the MLP's is its box's name)
    inline: bool = False          # the name left of its numbers, on one line (a head's lane)

    @property
    def label_width(self) -> int:
        return text_width(self.words, CHAR) + (text_width(self.letter.replace("_", ""), CHAR) + 4 * bool(self.words)
                                               if self.letter else 0)

    @property
    def width(self) -> int:
        if self.inline:
            return max(self.label_width, TARGET - 4) + 6 + self.marks.width
        return max(self.label_width, self.marks.width, TARGET - 4)

    @property
    def height(self) -> int:
        if self.inline:
            return max(TARGET, self.marks.height + 8) + 2
        return LABEL_H + self.marks.height + ITEM_GAP + 2


@dataclass
class Map:
    """What one map draws: the parts' items in the model's columns, each a
    list of items; captions: the mlp part's name on its box."""
    inputs: list            # Tokens, Embedding, Positions, Sum
    attention: list         # two columns: LayerNorm and q, k, v; the heads and their mix
    add1: list
    mlp: list               # one column: the second LayerNorm, the MLP's output
    add2: list
    output: list            # LayerNorm, logits, probabilities, the next token
    block_title: str
    mlp_words: str = "MLP"
    mlp_spoken: str = "the MLP"


def column_width(items: list) -> int:
    return max(item.width for item in items)


class Drawn:
    """Each part's pieces of SVG, and the box of its items (for its "you are here" mark)."""

    def __init__(self):
        self.parts: dict[str, list[str]] = {}
        self.boxes: dict[str, list[float]] = {}

    def add(self, part: str, svg: str, box: tuple | None = None) -> None:
        self.parts.setdefault(part, []).append(svg)
        if box is not None:
            x0, y0, x1, y1 = box
            old = self.boxes.get(part)
            self.boxes[part] = [x0, y0, x1, y1] if old is None else [
                min(old[0], x0), min(old[1], y0), max(old[2], x1), max(old[3], y1)]


def label_svg(x: int, y: int, words: str, letter: str, cls: str = "hdr") -> str:
    """A name in words, its letter (the chapter's symbol) beside it in the book's italic."""
    gap = ' dx="4"' if words else ""
    sym = f'<tspan class="sym"{gap}>{sub(letter)}</tspan>' if letter else ""
    return f'<text x="{x}" y="{y}" class="{cls}">{esc(words)}{sym}</text>'


def linked(page: str | None, label: str, hit: tuple, name: str, here: bool) -> str:
    """The name as the link to its page (the site makes data-page an
    address, site/blocks.py), its target the hit box."""
    x, y, w, h = hit
    if page is None:
        return label
    current = ' aria-current="page"' if here else ""
    return (f'<a data-page="{esc(page)}" aria-label="{esc(name)}"{current}>'
            f'<rect class="hit" x="{x}" y="{y}" width="{w}" height="{h}"/>{label}</a>')


def marks_svg(m: Marks, x: int, y: int) -> str:
    """The numbers of an item at (x, y): each cell on the book's scales (a
    signed strip's full colour for its largest size), its number in its
    <title>; a bar with all of them in its own."""
    if m.kind == "text":
        box = (f'<rect class="chosen-box" x="{x - 1}" y="{y}" width="{m.width}" height="15" rx="2"/>'
               if m.answer else "")
        cls = ' class="answer"' if m.answer else ""
        return (f'{box}<text x="{x + (2 if m.answer else 0)}" y="{y + 11}"{cls}>{esc(m.text)}'
                f'<title>{esc(m.titles[0])}</title></text>')
    if m.kind == "bar":
        return (f'<rect class="bar" x="{x}" y="{y}" width="{BAR_W}" height="{BAR_H}" rx="2">'
                f'<title>{esc(m.titles[0])}</title></rect>')
    scale = (max(abs(v) for v in m.values) or 1.0) if m.scale == "signed" else 1.0
    out = []
    for j, v in enumerate(m.values):
        cls = (f"v-{sign(v)}" if m.scale == "signed" else "v-prob") + (" chosen" if j == m.chosen else "")
        out.append(f'<rect class="{cls}" x="{x + j % WRAP * PITCH}" y="{y + j // WRAP * PITCH}" '
                   f'width="{PITCH - 1}" height="{PITCH - 1}" fill-opacity="{strength(v / scale)}">'
                   f'<title>{esc(m.titles[j])}</title></rect>')
    return "".join(out)


def items_svg(d: Drawn, items: list, x: int, top: int, links: dict, here: list) -> int:
    """A column of items from (x, top), each a name (its link) over its numbers; returns its bottom."""
    y = top
    for item in items:
        if item.inline:             # the name, then its numbers, on the line of its target
            label = label_svg(x, y + 11, item.words, item.letter)
            hit = (x - 2, y - 6, max(TARGET, item.label_width + 4), TARGET)
            page = links.get(item.part) if item.link else None
            name = f"{item.words}, {item.spoken}" if item.spoken else item.words
            mx = x + max(item.label_width, TARGET - 4) + 6
            d.add(item.part, linked(page, label, hit, name, item.part in here) + marks_svg(item.marks, mx, y + 2),
                  (x, y - 4, x + item.width, y + 2 + item.marks.height))
            y += item.height
            continue
        label = label_svg(x, y + 13, item.words, item.letter)
        hit = (x - 2, y - 6, max(TARGET, item.label_width + 4), TARGET)
        name = f"{item.words} {item.letter}".strip().replace("_", "") + (f", {item.spoken}" if item.spoken else "")
        page = links.get(item.part) if item.link else None
        d.add(item.part, linked(page, label, hit, name, item.part in here)
              + marks_svg(item.marks, x, y + LABEL_H),
              (x, y, x + item.width, y + LABEL_H + item.marks.height))
        y += item.height
    return y


def box_svg(cls: str, x0: int, x1: int, bottom: int, caption: str | None) -> str:
    out = f'<rect class="branch {cls}" x="{x0}" y="{BOX_Y}" width="{x1 - x0}" height="{bottom - BOX_Y}" rx="4"/>'
    if caption:
        out += label_svg(x0 + 5, CAPTION_Y, caption, "", "box-name")
    return out


def map_svg(m: Map, links: dict, here: list, aria: str) -> str:
    """The map: one SVG, the parts `here` (the page's) marked "you are here"."""
    d = Drawn()
    tall = []                                   # every column's bottom
    # the inputs, free of any frame
    x = 4
    wi = column_width(m.inputs)
    tall.append(items_svg(d, m.inputs, x, INPUT_TOP, links, here))
    sum_item = m.inputs[-1]
    sum_y = tall[-1] - sum_item.height + 9
    start = x + wi + 5
    x = start + GAP
    block_x0 = x
    x += PAD
    # the attention's box: its three columns
    att_x0 = x
    x += PAD
    att_bottom = ITEM_TOP
    for col in m.attention:
        att_bottom = max(att_bottom, items_svg(d, col, x, ITEM_TOP, links, here))
        x += column_width(col) + GAP
    att_x1 = max(x - GAP + PAD, att_x0 + text_width("Attention", CHAR) + 12)
    x = att_x1 + GAP
    add1_x = x
    tall.append(items_svg(d, m.add1, x, ITEM_TOP, links, here))
    x += column_width(m.add1) + GAP
    mlp_x0 = x
    x += PAD
    mlp_bottom = items_svg(d, m.mlp, x, ITEM_TOP, links, here)
    mlp_x1 = max(x + column_width(m.mlp) + PAD, mlp_x0 + text_width(m.mlp_words, CHAR) + 12)
    x = mlp_x1 + GAP
    add2_x = x
    tall.append(items_svg(d, m.add2, x, ITEM_TOP, links, here))
    x += column_width(m.add2) + PAD
    block_x1 = max(x, block_x0 + text_width(m.block_title, CHAR) + 16)
    x = block_x1 + GAP + 4
    out_x0 = x
    out_bottom = items_svg(d, m.output, x + PAD, ITEM_TOP, links, here)
    out_x1 = max(x + PAD + column_width(m.output) + PAD, out_x0 + text_width("Output", CHAR) + 12)
    box_bottom = max(att_bottom, mlp_bottom, out_bottom) + 2
    block_bottom = max([box_bottom] + tall) + 4
    height = max(block_bottom, tall[0]) + 6
    width = out_x1 + 4
    c1 = add1_x + column_width(m.add1) // 2
    c2 = add2_x + column_width(m.add2) // 2
    body = [f'<rect class="block" x="{block_x0}" y="4" width="{block_x1 - block_x0}" '
            f'height="{block_bottom - 4}" rx="6"/>',
            label_svg(block_x0 + 6, 18, m.block_title, "", "block-name"),
            box_svg("attention", att_x0, att_x1, box_bottom, "Attention"),
            box_svg("mlp", mlp_x0, mlp_x1, box_bottom, None),
            box_svg("output", out_x0, out_x1, box_bottom, "Output"),
            # the branches: off the stream into their box, back at ⊕; the sums hang under their ⊕
            f'<path class="tap" d="M{att_x0 + 10} {STREAM_Y}V{BOX_Y}M{att_x1} {BOX_Y + 8}H{c1}V{STREAM_Y}'
            f'M{mlp_x0 + 10} {STREAM_Y}V{BOX_Y}M{mlp_x1} {BOX_Y + 8}H{c2}V{STREAM_Y}'
            f'M{c1} {STREAM_Y}V{ITEM_TOP - 7}M{c2} {STREAM_Y}V{ITEM_TOP - 7}'
            f'M{4 + sum_item.label_width + 4} {sum_y}H{start}"/>',
            # the residual stream: one line from the sum x, through the block, into the output
            f'<path class="stream" d="M{start} {sum_y}V{STREAM_Y}H{out_x0 + 14}V{BOX_Y - 7}"/>'
            f'<path class="stream-end" d="M{out_x0 + 10} {BOX_Y - 7}l4 7l4 -7z"/>',
            add_mark(c1, STREAM_Y, 5), add_mark(c2, STREAM_Y, 5)]
    # the MLP's box is named by the MLP's own link
    cap = label_svg(mlp_x0 + 5, CAPTION_Y, m.mlp_words, "", "box-name")
    hit = (mlp_x0 + 3, BOX_Y, max(TARGET, text_width(m.mlp_words, CHAR) + 4), TARGET)
    d.add("mlp", linked(links.get("mlp"), cap, hit, f"{m.mlp_words}, {m.mlp_spoken}", "mlp" in here))
    order = ["tokens", "E", "P", "X", "ln1", "Q", "K", "V", "heads", "W_O", "add1",
             "ln2", "mlp", "add2", "lnf", "W_U", "softmax", "next"]
    for part in order:
        inner = d.parts.get(part)
        if inner is None:
            continue
        mark = ""
        if part in here and part in d.boxes:
            x0, y0, x1, y1 = d.boxes[part]
            mark = (f'<rect class="here-box" x="{x0 - 3}" y="{y0 - 3}" width="{x1 - x0 + 6}" '
                    f'height="{y1 - y0 + 5}" rx="2"/><rect class="here-bar" x="{x0 - 3}" y="{y1 + 2}" '
                    f'width="{x1 - x0 + 6}" height="3"/>')
        cls = ' class="here"' if part in here else ""
        body.append(f'<g data-part="{part}"{cls}>{mark}{"".join(inner)}</g>')
    return (f'<svg class="fig map-band" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="group" aria-label="{esc(aria)}">{"".join(body)}</svg>')


def size(svg: str) -> tuple[int, int]:
    """A map's width and height, as map_svg wrote them."""
    head = svg[:svg.index(">")]
    width = int(head.split(' width="', 1)[1].split('"', 1)[0])
    height = int(head.split(' height="', 1)[1].split('"', 1)[0])
    return width, height
