"""The "you are here" map at the top of each chapter page: the model's
drawing (model_drawing.py), small, with the parts the page explains
outlined in the accent colour and each part a link to the page that
explains it.

Small, because every chapter page carries it: it follows only the last
token, so each part is one strip of that token's numbers (the big drawing
has a row per token), and a strip's numbers are in one <title> (the
strip's, read by pointing at any of its cells). Under a part, thinner
strips are its weights that are vectors: LayerNorm's γ and β and the
biases, which nano-gpt has and the toy has not. nano-gpt's map draws its
first block and says "× 3 blocks". The bands are cut as the big
drawing's are (no wider than a phone's column) and sit side by side on a
wide screen.
"""
from __future__ import annotations

from ..model.nanogpt import VOCAB
from ..model.tokenizer import show
from .draw import esc, sign, text_width
from .model_drawing import ATTENTION, GROUPS, IN_BLOCK, MLP, PARTS, sub
from .render import by_heads, fixed

# Per chapter: the page that explains each part (model_drawing.PARTS).
TOY_PAGES = {"tokens": "tokens.md", "E": "embedding.md", "P": "positions.md", "X": "positions.md",
             "ln1": "layernorm.md", "Q": "attention.md", "K": "attention.md", "V": "attention.md",
             "heads": "attention.md", "W_O": "attention.md", "add1": "mlp.md", "ln2": "mlp.md", "mlp": "mlp.md",
             "add2": "mlp.md", "lnf": "output.md", "W_U": "output.md", "softmax": "output.md",
             "next": "generation.md"}
NANO_PAGES = {"tokens": "embedding.md", "E": "embedding.md", "P": "embedding.md", "X": "embedding.md",
              "ln1": "layer-norm.md", "Q": "self-attention.md", "K": "self-attention.md", "V": "self-attention.md",
              "heads": "self-attention.md", "W_O": "projection.md", "add1": "projection.md", "ln2": "layer-norm.md",
              "mlp": "mlp.md", "add2": "mlp.md", "lnf": "output.md", "W_U": "output.md", "softmax": "softmax.md",
              "next": "output.md"}
# nano-gpt's pages whose highlight is not simply the parts that link to them
NANO_EXTRA = {"transformer.md": list(IN_BLOCK), "softmax.md": ["heads", "softmax"], "output.md": ["softmax"]}
# what each part is, in words, for the links' names
WORDS = {"tokens": "the tokens", "E": "the embedding E", "P": "the positions P", "X": "x = E + P",
         "ln1": "LayerNorm", "Q": "the queries", "K": "the keys", "V": "the values", "heads": "the heads",
         "W_O": "the heads' outputs, mixed (the projection)", "add1": "h, the first sum", "ln2": "the second LayerNorm",
         "mlp": "the MLP", "add2": "y, the second sum", "lnf": "the last LayerNorm", "W_U": "the logits z",
         "softmax": "the probabilities p", "next": "the next token"}

CELL, FINE, WRAP = 5, 1, 48   # a cell of a short vector, of a long one (d = 48), a long vector's row
HEAD_CELL = 4                 # a cell of a head's lane
ROW, THIN = 8, 4              # an activation's strip, a weight's
GAP, LIMIT = 6, 336           # between two parts; the widest band (a phone's column)
STREAM_Y, BOX_Y, LABEL_Y, TOP = 18, 23, 36, 40
KEY = ('<span class="swatch v-neg"></span> negative <span class="swatch v-zero"></span> zero '
       '<span class="swatch v-pos"></span> positive <span class="swatch v-prob"></span> 0 to 1')


def highlighted(chapter: str, page: str) -> list[str]:
    """The parts the page explains, in the order of PARTS."""
    pages = TOY_PAGES if chapter == "toy" else NANO_PAGES
    extra = NANO_EXTRA.get(page, []) if chapter == "nano-gpt" else []
    return [name for name in PARTS if pages[name] == page or name in extra]


class Part:
    """A part of the map: its strips, each (dx, dy, cell, height, values,
    kind, title), drawn from x; its width fits its strips and its label."""

    def __init__(self, name: str, label: str, strips: list, stream: bool = False, text: tuple = ()):
        self.name, self.label, self.strips, self.stream, self.text = name, label, strips, stream, text
        ends = [dx + cell * len(values) for dx, _, cell, _, values, _, _ in strips]
        self.width = max(ends + [text_width(label.replace("_", ""), 7) + 2, text_width(text[0], 7) if text else 0])
        self.height = max([dy + h for _, dy, _, h, _, _, _ in strips] + [ROW])


def strips(values, title: str, kind: str = "signed", first: bool = True, dy: int = 0) -> list:
    """A vector as strips: one (an activation, ROW high) or, for a weight,
    thin ones of WRAP cells under the activation."""
    values = [float(v) for v in values]
    cell = CELL if len(values) <= 16 else FINE
    height = ROW if first else THIN
    out = []
    for k in range(0, len(values), WRAP):
        part = values[k:k + WRAP]
        where = f" ({k + 1} to {k + len(part)})" if len(values) > WRAP else ""
        numbers = (", ".join(fixed(v) for v in part) if len(part) <= 16 else
                   f"{len(part)} numbers, from {fixed(min(part))} to {fixed(max(part))}")
        out.append((0, dy + k // WRAP * (THIN + 1), cell, height, part, kind, f"{title}{where}: {numbers}"))
    return out


def with_weights(activation, title: str, weights: list) -> list:
    """An activation's strip, then (nano-gpt) the part's weights that are vectors."""
    out, dy = strips(activation, title), ROW + 3
    for values, name in weights:
        if values is not None:
            out += strips(values, name, first=False, dy=dy)
            dy = out[-1][1] + THIN + 1
    return out


def map_parts(trace: dict, tokens: list[str], vocab: list[str], params: dict | None = None,
              first: int = 1) -> list[Part]:
    """The parts of the map for this trace: the last token's numbers, the
    first block (and, with params, its weights that are vectors). Positions
    and heads count from `first`, as the chapter does: the toy from 1, nano-gpt from 0."""
    blk, T = trace["blocks"][0], len(tokens)
    at = f"{tokens[-1]} (position {T - 1 + first})"
    w = (lambda key: params.get(key)) if params else (lambda key: None)
    last = lambda M: M[-1]  # noqa: E731

    def part(name, label, M, what, weights=(), stream=False):
        return Part(name, label, with_weights(last(M), f"{what} of {at}", list(weights)), stream)
    out = [Part("tokens", "", [], text=(tokens[-1], f"the tokens: {' '.join(tokens)}; the map follows the last")),
           part("E", "E", trace["E_ids"], "E, the row"), part("P", "+ P", trace["P_t"], "P, the row"),
           part("X", "x", trace["X"], "x", stream=True),
           part("ln1", "u", blk["u"], "u, x after LayerNorm",
                [(w("blocks.0.gamma_1"), "γ₁, LayerNorm's learned weights"), (w("blocks.0.beta_1"), "β₁, its learned biases")])]
    for n, role in zip("QKV", ("query", "key", "value")):
        out.append(part(n, n.lower(), blk[n], f"{n.lower()}, the {role}", [(w(f"blocks.0.b_{n}"), f"the bias of {n.lower()}")]))
    lanes = []
    for h, weights in enumerate(blk["weights"]):
        seen = ", ".join(f"{tok} {fixed(a)}" for tok, a in zip(tokens, weights[-1][:T]))
        lanes.append((h * (T * HEAD_CELL + 3), 0, HEAD_CELL, ROW, [float(a) for a in weights[-1][:T]], "prob",
                      f"head {h + first}: what {at} reads: {seen}"))
    out.append(Part("heads", "heads", lanes))
    out.append(part("W_O", "a W_O", blk["attn"], "attention's output", [(w("blocks.0.b_O"), "the projection's bias")]))
    out.append(part("add1", "h", blk["h"], "h, x plus attention's output", stream=True))
    out.append(part("ln2", "u′", blk["u2"], "u′, h after LayerNorm",
                    [(w("blocks.0.gamma_2"), "γ₂, LayerNorm's learned weights"), (w("blocks.0.beta_2"), "β₂, its learned biases")]))
    out.append(part("mlp", "MLP", blk["m"], "m, the MLP's output",
                    [(w("blocks.0.b_1"), "the bias of W₁"), (w("blocks.0.b_2"), "the bias of W₂")]))
    out.append(part("add2", "y", blk["y"], "y, h plus the MLP's output", stream=True))
    n_blocks = len(trace["blocks"])
    out.append(part("lnf", "f", trace["f"], "f, the last block's y after LayerNorm" if n_blocks > 1 else
                    "f, y after LayerNorm", [(w("gamma_f"), "γ, the last LayerNorm's learned weights"),
                                             (w("beta_f"), "β, its learned biases")], stream=True))
    z, p = trace["z"][-1], trace["p"][-1]
    out.append(Part("W_U", "z", [(0, 0, CELL, ROW, [float(v) for v in z], "signed",
                                  "z, the logits after " + at + ": " + named(vocab, z))]))
    out.append(Part("softmax", "p", [(0, 0, CELL, ROW, [float(v) for v in p], "prob",
                                      "p after " + at + ": " + named(vocab, p))]))
    best = int(p.argmax())
    out.append(Part("next", "next", [], text=(vocab[best], f"after {at}: {vocab[best]}, p = {fixed(p[best])}")))
    return out


def named(vocab: list[str], values) -> str:
    return ", ".join(f"{v} {fixed(x)}" for v, x in zip(vocab, values))


def cut(parts: list[Part]) -> list[list[Part]]:
    """The parts in bands no wider than LIMIT, a group (model_drawing.GROUPS)
    kept whole when it fits in one."""
    group_of = {name: k for k, names in enumerate(GROUPS) for name in names}
    out: list[list[Part]] = [[]]
    used = 0
    for k, part in enumerate(parts):
        starts = k > 0 and group_of[part.name] != group_of[parts[k - 1].name]
        rest = sum(p.width + GAP for p in parts[k:] if group_of[p.name] == group_of[part.name])
        if out[-1] and (used + part.width > LIMIT or (starts and used + rest > LIMIT)):
            out.append([])
            used = 0
        out[-1].append(part)
        used += part.width + GAP
    return out


def paint(placed: list) -> str:
    """The cells of a band's parts, painted beneath them: each cell a
    vertical stroke, one path per colour, strength, width and height (a
    rect and a <title> each would make the map several times heavier;
    the numbers are in the strips' titles, part_svg)."""
    strokes: dict = {}
    for part, x in placed:
        for dx, dy, cell, height, values, kind, _ in part.strips:
            scale = (max(abs(v) for v in values) or 1.0) if kind == "signed" else 1.0
            for j, v in enumerate(values):
                # a zero is grey, as the key shows it; a weight of 0 is blank, as the [0, 1] key's first swatch
                level = min(10, max(1, round(abs(v) / scale * 10))) if v else 10 if kind == "signed" else 0
                if level:
                    cls = f"m-{sign(v)}" if kind == "signed" else "m-prob"
                    width = max(1, cell - 1)
                    strokes.setdefault((cls, level, width, height), []).append(
                        (x + dx + j * cell + width / 2, TOP + dy))
    out = []
    for (cls, level, width, height), points in sorted(strokes.items()):
        d, (px, py) = [f"M{points[0][0]:g} {points[0][1]}v{height}"], points[0]
        for qx, qy in points[1:]:
            d.append(f"m{qx - px:g} {qy - py - height}v{height}")
            px, py = qx, qy
        out.append(f'<path class="{cls}" stroke-opacity="{level / 10:g}" stroke-width="{width}" d="{"".join(d)}"/>')
    return "".join(out)


def strip_titles(part: Part, x: int) -> str:
    """Over each strip, a clear rect that carries its numbers in its <title>."""
    return "".join(f'<rect class="strip" x="{x + dx}" y="{TOP + dy}" width="{cell * len(values)}" '
                   f'height="{height}"><title>{esc(title)}</title></rect>'
                   for dx, dy, cell, height, values, _, title in part.strips)


def band_svg(band: list[Part], links: dict, here: list[str], block_name: str) -> str:
    """One band: the stream along the top, the branches' boxes and the
    block's frame, then each part, a link to its page."""
    placed, x = [], 4
    for part in band:
        placed.append((part, x))
        x += part.width + GAP
    width = x + 4
    bottom = TOP + max(p.height for p in band)
    centre = {p.name: px + p.width // 2 for p, px in placed}
    body = []
    framed = [(p, px) for p, px in placed if p.name in IN_BLOCK]
    if framed:
        x0, x1 = framed[0][1] - 3, framed[-1][1] + framed[-1][0].width + 3
        body.append(f'<rect class="block" x="{x0}" y="2" width="{x1 - x0}" '
                    f'height="{bottom + 2}" rx="5"/>')
        if block_name:
            body.append(f'<text x="{x0 + 3}" y="{bottom + 17}">{esc(block_name)}</text>')
    for branch, add, cls in ((ATTENTION, "add1", "attention"), (MLP, "add2", "mlp")):
        inside = [(p, px) for p, px in placed if p.name in branch]
        if inside:
            x0, x1 = inside[0][1] - 2, inside[-1][1] + inside[-1][0].width + 2
            body.append(f'<rect class="branch {cls}" x="{x0}" y="{BOX_Y}" width="{x1 - x0}" '
                        f'height="{bottom - BOX_Y + 2}" rx="3"/>')
            if inside[0][0].name == branch[0]:
                body.append(f'<path class="tap" d="M{x0 + 4} {STREAM_Y}V{BOX_Y}"/>')
            if add in centre:
                body.append(f'<path class="tap" d="M{x1} {BOX_Y + 5}H{centre[add]}V{STREAM_Y + 4}"/>')
    body.append(f'<path class="stream" d="M0 {STREAM_Y}H{width - 6}"/>'
                f'<path class="stream-end" d="M{width - 6} {STREAM_Y - 4}l6 4l-6 4z"/>')
    body.append(paint(placed))
    for part, px in placed:
        body.append(part_svg(part, px, centre, bottom, links, part.name in here))
    height = bottom + (22 if framed and block_name else 8 if framed else 4)
    names = ", ".join(dict.fromkeys(WORDS[p.name] for p in band))
    return (f'<svg class="fig map-band" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="group" aria-label="{esc(names)}">{"".join(body)}</svg>')


def part_svg(part: Part, px: int, centre: dict, bottom: int, links: dict, here: bool) -> str:
    """A part: its outline when the page explains it, its label, its
    strips. Its label (for the tokens, which have none, their text) is the
    link to its page, named in words that start with what it shows; a tap
    on a strip shows its number and stays on the page."""
    top = 1 if part.stream else LABEL_Y - 11
    inner = [f'<rect class="here-box" x="{px - 2}" y="{top}" width="{part.width + 4}" '
             f'height="{bottom - top + 3}" rx="3"/>'] if here else []
    current = ' aria-current="page"' if here else ""

    def linked(text: str, shown: str, y: int) -> str:
        return (f'<a data-page="{esc(links[part.name])}" aria-label="{esc(shown)}, {esc(WORDS[part.name])}"{current}>'
                f'<rect class="hit" x="{px - 2}" y="{y - 9}" width="{text_width(shown, 6) + 4}" height="12"/>{text}</a>')
    if part.stream:
        mid = centre[part.name]
        inner.append(f'<path class="tap" d="M{mid} {STREAM_Y}V{TOP - 1}"/>')
        if part.name in ("add1", "add2"):
            inner.append(f'<circle class="add" cx="{mid}" cy="{STREAM_Y}" r="4"/>'
                         f'<path class="add-cross" d="M{mid - 2.5} {STREAM_Y}h5M{mid} {STREAM_Y - 2.5}v5"/>')
    if part.label:
        y = STREAM_Y - 5 if part.stream else LABEL_Y
        inner.append(linked(f'<text x="{px}" y="{y}" class="hdr">{sub(part.label)}</text>',
                            part.label.replace("_", ""), y))
    if part.text:
        cls = ' class="answer"' if part.name == "next" else ""
        text = f'<text x="{px}" y="{TOP + ROW}"{cls}>{esc(part.text[0])}<title>{esc(part.text[1])}</title></text>'
        inner.append(text if part.label else linked(text, part.text[0], TOP + ROW))
    inner.append(strip_titles(part, px))
    cls = ' class="here"' if here else ""
    return f'<g data-part="{part.name}"{cls}>{"".join(inner)}</g>'


def map_svg(trace: dict, tokens: list[str], vocab: list[str], links: dict, here: list[str],
            params: dict | None = None, first: int = 1) -> str:
    """The map for one run: its bands (links: part -> the page, as docs/ names it;
    first: where the chapter counts positions from)."""
    n = len(trace["blocks"])
    block_name = "the block" if n == 1 else f"× {n} blocks (the first drawn)"
    bands = cut(map_parts(trace, tokens, vocab, params, first))
    first = next(k for k, band in enumerate(bands) if any(p.name in IN_BLOCK for p in band))
    return '<div class="map-bands">' + "".join(band_svg(band, links, here, block_name if k == first else "")
                                               for k, band in enumerate(bands)) + "</div>"


def minimap(src_path: str, toy_example=None, nano_run=None) -> str | None:
    """The map for the page at `src_path` (as docs/ names it), or None for
    a page outside the two chapters (or without its runs).
    toy_example(heads): the toy's worked example; nano_run: nano-gpt's."""
    chapter, _, page = src_path.partition("/")
    if chapter not in ("toy", "nano-gpt") or not page.endswith(".md") or "/" in page:
        return None
    here = highlighted(chapter, page)
    pages = TOY_PAGES if chapter == "toy" else NANO_PAGES
    links = {name: f"{chapter}/{target}" for name, target in pages.items()}
    if chapter == "toy":
        if toy_example is None:
            return None
        default = toy_example()
        runs = {h: toy_example(h) for h in default.heads_choices}
        vocab = [show(v) for v in default.model.vocab]
        drawn = by_heads({h: map_svg(ex.trace, [ex.model.show(i) for i in ex.ids], vocab, links, here)
                          for h, ex in runs.items()}, default.n_heads, inline=False)
        model, text, last = "the toy model", default.text, default.model.show(default.ids[-1])
        weights = ""
    else:
        if nano_run is None:
            return None
        drawn = map_svg(nano_run.trace, [VOCAB[i] for i in nano_run.ids], list(VOCAB), links, here, nano_run.params,
                        first=0)
        model, text, last = "nano-gpt", nano_run.text, VOCAB[nano_run.ids[-1]]
        weights = " Thin strips: the part's weights (LayerNorm's γ and β, the biases)."
    lead = "You are here (outlined)" if here else "This page is about the whole model"
    return (f'<figure class="minimap" data-figure="minimap"><figcaption class="fig-legend">{lead}: {model} on '
            f'“{esc(text)}” at its last token, {esc(last)}; each part\'s name links to its page'
            f'<span class="screen-only">; point at or tap a strip for its numbers</span>. '
            f'Colours: {KEY}.{weights}</figcaption>{drawn}</figure>')
