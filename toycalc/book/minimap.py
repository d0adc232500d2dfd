"""The "you are here" map at the top of each chapter page: the model's
drawing (model_drawing.py), small, with the parts the page explains
outlined in the accent colour and drawn large, and each part a link to
the page that explains it.

Small, because every chapter page carries it: it follows only the last
token, so each part is one vector of that token's numbers (the big
drawing has a row per token), a long one (nano-gpt's d = 48) in rows of
WRAP cells. Every number is a cell of at least 4 px that carries it in
its <title>. Under a part the page explains, its weights that are
vectors, framed: LayerNorm's γ and β and the biases, which nano-gpt has
and the toy has not. nano-gpt's map draws its first block and says
"× 3 blocks"; both count positions, columns and heads from 1, as the book
does. The bands are cut as the big drawing's are (no wider than a
phone's column) and sit side by side on a wide screen; on a phone they
stand one under the other, and where all of them would take more than
CUT_HEIGHT, only bands that hold the page's parts (with the parts beside
them), the first of them and the next while they stand within
CUT_HEIGHT, show until the reader asks for the whole map (a button;
minimap.js).

The page's parts are shaded and underlined ("you are here", in the key):
the accent's outline means only the token the model picks, in the map
as in every figure. A part's name, the link to its page, is a tap target
of 24 × 24 px or more that no cell covers.
"""
from __future__ import annotations

from ..model.nanogpt import VOCAB
from ..model.tokenizer import show
from .draw import esc, sign, strength, text_width
from .model_drawing import ATTENTION, GROUPS, IN_BLOCK, MLP, PARTS, add_mark, sub
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

SMALL, LARGE = 5, 8            # a cell and its gap: a part of the map, the part the page explains
TARGET = 24                    # a part's name as a tap target, both ways (WCAG 2.5.8)
CUT_HEIGHT = 260               # bands taller than this together: a phone shows the page's, this tall at most
WRAP = 16                      # a long vector's cells in rows of WRAP (d = 48: three rows)
FEW = 5                        # a page that explains this many parts or fewer shows their weights
GAP, LIMIT = 6, 336            # between two parts; the widest band (a phone's column)
STREAM_Y, BOX_Y, LABEL_Y, TOP = 18, 23, 36, 40
KEY = ('<span class="swatch v-neg"></span> negative <span class="swatch v-zero"></span> zero '
       '<span class="swatch v-pos"></span> positive <span class="swatch v-prob"></span> 0 to 1 '
       '<span class="swatch chosen"></span> the token the model picks')
HERE_KEY = ' <span class="swatch here"></span> you are here'


def highlighted(chapter: str, page: str) -> list[str]:
    """The parts the page explains, in the order of PARTS."""
    pages = TOY_PAGES if chapter == "toy" else NANO_PAGES
    extra = NANO_EXTRA.get(page, []) if chapter == "nano-gpt" else []
    return [name for name in PARTS if pages[name] == page or name in extra]


class Strip:
    """A vector of the map: its cells in rows of WRAP from (dx, dy), each
    `pitch` apart, the cell's title (its number's name and its number);
    kind: "signed" or "prob" (the [0, 1] scale); weight: a learned vector,
    framed as nano-gpt's chapter frames a weight's cell."""

    def __init__(self, dx: int, dy: int, pitch: int, values, kind: str, titles: list[str],
                 weight: bool = False, chosen: int | None = None):
        self.dx, self.dy, self.pitch, self.kind, self.titles = dx, dy, pitch, kind, titles
        self.values, self.weight, self.chosen = [float(v) for v in values], weight, chosen
        self.width = pitch * min(len(self.values), WRAP)
        self.height = pitch * -(-len(self.values) // WRAP)


class MapPart:
    """A part of the map: its strips, drawn from x; its width fits its
    strips and its label, and its name's target (TARGET wide from 2 px
    before it) ends before the next part begins."""

    def __init__(self, name: str, label: str, strips: list[Strip], stream: bool = False, text: tuple = ()):
        self.name, self.label, self.strips, self.stream, self.text = name, label, strips, stream, text
        self.width = max([s.dx + s.width for s in strips] +
                         [text_width(label.replace("_", ""), 7) + 2, text_width(text[0], 7) + 6 if text else 0,
                          TARGET - GAP])
        self.height = max([s.dy + s.height for s in strips] + [SMALL + 4])


def map_parts(trace: dict, tokens: list[str], vocab: list[str], params: dict | None = None,
              large: tuple = ()) -> list[MapPart]:
    """The parts of the map for this trace: the last token's numbers, the
    first block; the parts named in `large` drawn large and (with params)
    with their weights that are vectors."""
    blk, T = trace["blocks"][0], len(tokens)

    def pos(t: int) -> str:
        return f"position {t + 1}"
    at = f"{tokens[-1]} ({pos(T - 1)})"

    def vector(values, what, pitch, dy=0, kind="signed", names=None, weight=False, chosen=None):
        n = len(values)
        names = names or [f"column {j + 1}" for j in range(n)]
        return Strip(0, dy, pitch, values, kind, [f"{what}, {names[j]}: {fixed(v)}" for j, v in enumerate(values)],
                     weight, chosen)

    def part(name, label, M, what, weights=(), stream=False):
        big = name in large
        pitch = LARGE if big else SMALL
        out = [vector(M[-1], f"{what} of {at}", pitch)]
        for values, about in (weights if big else ()):
            if values is not None:          # nano-gpt's (params given); the toy has none
                out.append(vector(values, about, pitch, out[-1].dy + out[-1].height + 3, weight=True))
        return MapPart(name, label, out, stream)
    w = (lambda key: params.get(key)) if params else (lambda key: None)  # noqa: E731
    out = [MapPart("tokens", "", [], text=(tokens[-1], f"the tokens: {' '.join(tokens)}; the map follows the last")),
           part("E", "E", trace["E_ids"], "E, the row"), part("P", "+ P", trace["P_t"], "P, the row"),
           part("X", "x", trace["X"], "x", stream=True),
           part("ln1", "u", blk["u"], "u, x after LayerNorm",
                [(w("blocks.0.gamma_1"), "γ₁, LayerNorm's learned weights"), (w("blocks.0.beta_1"), "β₁, its learned biases")])]
    for n, role in zip("QKV", ("query", "key", "value")):
        out.append(part(n, n.lower(), blk[n], f"{n.lower()}, the {role}", [(w(f"blocks.0.b_{n}"), f"the bias of {n.lower()}")]))
    pitch = LARGE if "heads" in large else SMALL
    lanes = [Strip(h * (T * pitch + 3), 0, pitch, weights[-1][:T], "prob",
                   [f"head {h + 1}, {at} reads {tok} ({pos(j)}): {fixed(a)}"
                    for j, (tok, a) in enumerate(zip(tokens, weights[-1][:T]))])
             for h, weights in enumerate(blk["weights"])]
    out.append(MapPart("heads", "heads", lanes))
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
    best = int(p.argmax())
    for name, label, values, what, kind, names, chosen in (
            ("W_U", "z", z, "z, the logits", "signed", vocab, None),
            ("softmax", "p", p, "p", "prob", [f"p({v})" for v in vocab], best)):
        pitch = LARGE if name in large else SMALL
        out.append(MapPart(name, label, [vector(values, f"{what} after {at}", pitch, kind=kind, names=names,
                                             chosen=chosen)]))
    out.append(MapPart("next", "next", [], text=(vocab[best], f"after {at}: {vocab[best]}, p = {fixed(p[best])}")))
    return out


def cut(parts: list[MapPart]) -> list[list[MapPart]]:
    """The parts in bands no wider than LIMIT, a group (model_drawing.GROUPS)
    kept whole when it fits in one."""
    group_of = {name: k for k, names in enumerate(GROUPS) for name in names}
    out: list[list[MapPart]] = [[]]
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


def cells(part: MapPart, x: int) -> str:
    """Each number of the part a cell that carries it in its <title>, on
    the book's scales (a signed vector's full colour for its largest size);
    a weight's cell framed; the model's answer outlined as the one chosen."""
    out = []
    for s in part.strips:
        scale = (max(abs(v) for v in s.values) or 1.0) if s.kind == "signed" else 1.0
        size = s.pitch - 1
        for j, v in enumerate(s.values):
            cls = ((f"v-{sign(v)}" if s.kind == "signed" else "v-prob") + (" w" if s.weight else "")
                   + (" chosen" if j == s.chosen else ""))
            out.append(f'<rect class="{cls}" x="{x + s.dx + j % WRAP * s.pitch}" '
                       f'y="{TOP + s.dy + j // WRAP * s.pitch}" width="{size}" height="{size}" '
                       f'fill-opacity="{strength(v / scale)}"><title>{esc(s.titles[j])}</title></rect>')
    return "".join(out)


def band_height(band: list[MapPart], block_name: str) -> int:
    """A band's height: its tallest part, and under the block's frame its name."""
    framed = any(p.name in IN_BLOCK for p in band)
    return TOP + max(p.height for p in band) + (22 if framed and block_name else 8 if framed else 4)


def band_svg(band: list[MapPart], links: dict, here: list[str], block_name: str, phone: bool = True) -> str:
    """One band: the stream along the top, the branches' boxes and the
    block's frame, then each part, a link to its page; phone: shown on a
    phone before the reader asks for the whole map."""
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
    for part, px in placed:
        body.append(part_svg(part, px, centre, bottom, links, part.name in here))
    height = band_height(band, block_name)
    names = ", ".join(dict.fromkeys(WORDS[p.name] for p in band))
    cls = " phone-band" if phone else ""
    return (f'<svg class="fig map-band{cls}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="group" aria-label="{esc(names)}">{"".join(body)}</svg>')


def part_svg(part: MapPart, px: int, centre: dict, bottom: int, links: dict, here: bool) -> str:
    """A part: when the page explains it, shaded and underlined ("you are
    here"); its label, its strips. Its label (for the tokens, which have
    none, their text) is the link to its page, named in words that start
    with what it shows, its target TARGET px each way from above the
    cells (a name over the stream, from the band's top; the tokens' over
    their text): a tap on a cell shows its number and stays on the page."""
    top = 1 if part.stream else LABEL_Y - 11
    inner = [f'<rect class="here-box" x="{px - 2}" y="{top}" width="{part.width + 4}" '
             f'height="{bottom - top}" rx="2"/><rect class="here-bar" x="{px - 2}" y="{bottom + 1}" '
             f'width="{part.width + 4}" height="3"/>'] if here else []
    current = ' aria-current="page"' if here else ""

    def linked(text: str, shown: str, y: int) -> str:
        width = max(TARGET, text_width(shown, 6) + 4)
        return (f'<a data-page="{esc(links[part.name])}" aria-label="{esc(shown)}, {esc(WORDS[part.name])}"{current}>'
                f'<rect class="hit" x="{px - 2}" y="{y}" width="{width}" height="{TARGET}"/>{text}</a>')
    if part.stream:
        mid = centre[part.name]
        inner.append(f'<path class="tap" d="M{mid} {STREAM_Y}V{TOP - 1}"/>')
        if part.name in ("add1", "add2"):
            inner.append(add_mark(mid, STREAM_Y, 4))
    if part.label:
        y = STREAM_Y - 5 if part.stream else LABEL_Y
        inner.append(linked(f'<text x="{px}" y="{y}" class="hdr">{sub(part.label)}</text>',
                            part.label.replace("_", ""), 0 if part.stream else TOP - 2 - TARGET))
    if part.text:
        answer = part.name == "next"        # the model's answer, in the box of the one chosen
        box = (f'<rect class="chosen-box" x="{px - 1}" y="{TOP - 2}" width="{text_width(part.text[0], 7) + 4}" '
               f'height="14" rx="2"/>') if answer else ""
        cls = ' class="answer"' if answer else ""
        text = (f'{box}<text x="{px + 1}" y="{TOP + 8}"{cls}>'
                f'{esc(part.text[0])}<title>{esc(part.text[1])}</title></text>')
        inner.append(text if part.label else linked(text, part.text[0], TOP + 12 - TARGET))
    inner.append(cells(part, px))
    cls = ' class="here"' if here else ""
    return f'<g data-part="{part.name}"{cls}>{"".join(inner)}</g>'


def map_svg(trace: dict, tokens: list[str], vocab: list[str], links: dict, here: list[str],
            params: dict | None = None) -> str:
    """The map for one run: its bands (links: part -> the page, as docs/ names it),
    the parts `here` (the page's) drawn large; when the bands stand taller
    than CUT_HEIGHT, marked for a phone to show the first band of the
    page's parts and those of them that follow within CUT_HEIGHT (is-cut,
    phone-band), with the button that shows the whole map."""
    n = len(trace["blocks"])
    block_name = "the block" if n == 1 else f"× {n} blocks (the first drawn)"
    bands = cut(map_parts(trace, tokens, vocab, params, tuple(here)))
    first = next(k for k, band in enumerate(bands) if any(p.name in IN_BLOCK for p in band))
    names = [block_name if k == first else "" for k in range(len(bands))]
    heights = [band_height(band, name) for band, name in zip(bands, names)]
    # on a phone, some of the page's bands alone when all of them would stand too tall
    phone, used = [True] * len(bands), 0
    if here and sum(heights) > CUT_HEIGHT:
        for k, band in enumerate(bands):
            phone[k] = any(p.name in here for p in band) and (used == 0 or used + heights[k] <= CUT_HEIGHT)
            used += heights[k] if phone[k] else 0
    cut_short = not all(phone)
    whole = ('<button type="button" class="map-whole" aria-expanded="false">The whole map</button>'
             if cut_short else "")
    # a region of its own: said here, as a role set by a script restyled every cell
    return (f'<div class="map-bands{" is-cut" if cut_short else ""}" role="region" aria-label="The model\'s map">'
            + "".join(band_svg(band, links, here, name, shown) for band, name, shown in zip(bands, names, phone))
            + "</div>" + whole)


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
        # a page about the whole block (Transformer) draws it large without its weights, which would
        # make the map taller than the page's first screen
        few = 0 < len(here) <= FEW
        drawn = map_svg(nano_run.trace, [VOCAB[i] for i in nano_run.ids], list(VOCAB), links, here,
                        nano_run.params if few else None)
        model, text, last = "nano-gpt", nano_run.text, VOCAB[nano_run.ids[-1]]
        weights = (" Under the page's part, its weights that are vectors (LayerNorm's γ and β, the biases), "
                   "each cell framed." if few else "")
    lead = ("You are here (the page's parts shaded, underlined and drawn large)" if here
            else "This page is about the whole model")
    module = ' data-module="minimap"' if 'class="map-whole"' in drawn else ""    # its button's code
    return (f'<figure class="minimap" data-figure="minimap"{module}><figcaption class="fig-legend">'
            f'{lead}: {model} on “{esc(text)}” at its last token, {esc(last)}; each part\'s name links to its page'
            f'<span class="screen-only">; point at or tap a cell for its number</span>. '
            f'Key: {KEY}{HERE_KEY if here else ""}.{weights}</figcaption>{drawn}</figure>')
