"""The "you are here" map at the top of each chapter page (the toy's,
nano-gpt's, the writer's): the model drawn small, in words, as
map_drawing.py draws it, the parts the page explains marked, each part's
name a link to the page that explains it.

Small, because every chapter page carries it: it follows only the last
token (or character), so each part is one vector of that token's
numbers, and the block is drawn once (its first block's numbers, said in
the titles, with "× N" on its frame). A vector of WRAP numbers or fewer
(the toy's, the heads' lanes, nano-gpt's three letters) is a strip of
cells; a longer one (nano-gpt's d = 48, the writer's 128 channels) is a
strip of cells in rows of WRAP where the page explains it, and one bar
(its numbers in its title) elsewhere, so that the map stays one screen
tall and light: one long vector at least is drawn cell by cell (x, when
the page explains none). The writer's 65 characters: the top TOP and the
rest summed in one cell.

The key and what the map is wait in one small "Key" control at its
top-right, closed (open in print), so that the page opens on its title,
its map and its prose. The page's parts are shaded and underlined ("you
are here", in the key): the accent's outline means only the token the
model picks, in the map as in every figure.
"""
from __future__ import annotations

from ..model.nanogpt import VOCAB
from ..model.tokenizer import show
from .draw import esc
from .map_drawing import CHAR, WRAP, Item, Map, Marks, map_svg, size
from .model_drawing import IN_BLOCK, NAMES, PARTS, block_title
from .render import by_heads, fixed
from .writer.chapter import char_name

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
# the writer's three pages: its text and characters; the numbers inside; what it writes, drawn from p
WRITER_PAGES = {name: "inside.md" for name in PARTS} | {"tokens": "index.md", "softmax": "write.md",
                                                        "next": "write.md"}
CHAPTERS = {"toy": TOY_PAGES, "nano-gpt": NANO_PAGES, "writer": WRITER_PAGES}
# nano-gpt's pages whose highlight is not simply the parts that link to them
NANO_EXTRA = {"transformer.md": list(IN_BLOCK), "softmax.md": ["heads", "softmax"], "output.md": ["softmax"]}
# what each part is, in words, after its name in a link's name
WORDS = {"tokens": "the tokens", "E": "the embedding", "P": "the positions", "X": "x = E + P",
         "ln1": "LayerNorm", "Q": "the queries", "K": "the keys", "V": "the values", "heads": "the heads",
         "W_O": "the heads' outputs, mixed (the projection)", "add1": "h, the first sum", "ln2": "the second LayerNorm",
         "mlp": "the MLP", "add2": "y, the second sum", "lnf": "the last LayerNorm", "W_U": "the logits z",
         "softmax": "the probabilities p", "next": "the next token"}

FEW = 5            # a page that explains this many parts or fewer draws its long vectors cell by cell
TOP = 5            # the writer's characters drawn one by one, the likeliest first; the rest in one cell
WIDE, TALL = 684, 240   # the largest map: the column at 1280 px (688), and the prose on the first screen
KEY = ('<span class="swatch v-neg"></span> negative <span class="swatch v-zero"></span> zero '
       '<span class="swatch v-pos"></span> positive (each strip: full colour for its largest size) '
       '<span class="swatch v-prob"></span> 0 to 1 '
       '<span class="swatch chosen"></span> the token the model picks')
BAR_KEY = ' <span class="swatch bar"></span> a vector too long for the map, its numbers in its title'
HERE_KEY = ' <span class="swatch here"></span> you are here'


def highlighted(chapter: str, page: str) -> list[str]:
    """The parts the page explains, in the order of PARTS."""
    pages = CHAPTERS[chapter]
    extra = NANO_EXTRA.get(page, []) if chapter == "nano-gpt" else []
    return [name for name in PARTS if pages[name] == page or name in extra]


def map_parts(trace: dict, tokens: list[str], vocab: list[str], large: tuple = (), unit: str = "column",
              top: int | None = None, sep: str = "") -> Map:
    """The map's items for this trace: the last token's numbers, the first
    block's; the long vectors of the parts in `large` cell by cell, the
    others as bars; top: only the likeliest `top` probabilities drawn, the
    rest summed (the writer's 65 characters); sep: between two tokens of
    the text shown (nano-gpt's letters are written apart)."""
    blk, T, n = trace["blocks"][0], len(tokens), len(trace["blocks"])
    at = f"{tokens[-1]} (position {T})"
    block = "" if n == 1 else f", block 1 of {n}"

    def marks(part, values, what, names=None, scale="signed", chosen=None) -> Marks:
        values = [float(v) for v in values]
        names = names or [f"{unit} {j + 1}" for j in range(len(values))]
        if len(values) <= WRAP or part in large:
            return Marks("cells", values, [f"{what}, {names[j]}: {fixed(v)}" for j, v in enumerate(values)],
                         scale, chosen)
        return Marks("bar", values, [f"{what}, {len(values)} numbers ({names[0]} to {names[-1]}): "
                                     + ", ".join(fixed(v) for v in values)], scale)

    def item(part, values, what, **options) -> Item:
        words, letter = NAMES[part]
        return Item(part, words, letter, marks(part, values, what, **options), WORDS[part])

    inputs = [item("E", trace["E_ids"][-1], f"E, the row of {at}"),
              item("P", trace["P_t"][-1], f"P, the row of position {T}"),
              item("X", trace["X"][-1], f"x of {at}")]
    # the text's end, as much as the column holds
    room = max(13, max(i.width for i in inputs) // CHAR)
    inputs.insert(0, Item("tokens", "Tokens", "", Marks("text", text=tail(tokens, sep, room), titles=[
        f"the tokens: {' '.join(tokens)}; the map follows the last"]), WORDS["tokens"]))
    qkv = [item("ln1", blk["u"][-1], f"u, x after LayerNorm, of {at}{block}")]
    for name, role in zip("QKV", ("query", "key", "value")):
        qkv.append(item(name, blk[name][-1], f"{name.lower()}, the {role} of {at}{block}"))
    heads = []
    for h, weights in enumerate(blk["weights"]):
        lane = weights[-1][:T]
        names = [f"{tok} (position {j + 1})" for j, tok in enumerate(tokens)]
        m = marks("heads", lane, f"head {h + 1}{block}, {at} reads", names, "prob")
        if m.kind == "cells":           # "head 1, ␣the (position 4) reads ␣cat (position 2): 0.5"
            m.titles = [f"head {h + 1}{block}, {at} reads {names[j]}: {fixed(a)}" for j, a in enumerate(lane)]
        heads.append(Item("heads", f"head {h + 1}", "", m, f"{WORDS['heads']}, head {h + 1} of {len(blk['weights'])}",
                          inline=True))
    heads.append(item("W_O", blk["attn"][-1], f"attention's output of {at}{block}"))   # under the heads it mixes
    add1 = [item("add1", blk["h"][-1], f"h, x plus attention's output, of {at}{block}")]
    mlp = [item("ln2", blk["u2"][-1], f"u′, h after LayerNorm, of {at}{block}"),
           Item("mlp", "", NAMES["mlp"][1], marks("mlp", blk["m"][-1], f"m, the MLP's output for {at}{block}"),
                link=False)]
    add2 = [item("add2", blk["y"][-1], f"y, h plus the MLP's output, of {at}{block}")]
    z, p = trace["z"][-1], trace["p"][-1]
    best = int(p.argmax())
    after = f"after {at}"
    output = [item("lnf", trace["f"][-1], f"f, the last block's y after LayerNorm, of {at}" if n > 1 else
                   f"f, y after LayerNorm, of {at}"),
              item("W_U", z, f"z, the logits {after}", names=vocab)]
    if top is None or len(p) <= WRAP:
        output.append(item("softmax", p, f"p {after}", names=[f"p({v})" for v in vocab], scale="prob", chosen=best))
    else:                               # the likeliest few, the rest in one cell
        order = sorted(range(len(p)), key=lambda i: (-p[i], i))[:top]
        rest = float(sum(p)) - sum(float(p[i]) for i in order)
        titles = [f"p {after}, p({vocab[i]}): {fixed(p[i])}" for i in order]
        titles.append(f"p {after}, the {len(p) - top} other characters together: {fixed(rest)}")
        output.append(Item("softmax", *NAMES["softmax"], Marks("cells", [float(p[i]) for i in order] + [rest],
                                                                titles, "prob", 0), WORDS["softmax"]))
    output.append(Item("next", "Next token", "", Marks("text", text=vocab[best], answer=True, titles=[
        f"{after}: {vocab[best]}, p = {fixed(p[best])}"]), WORDS["next"]))
    return Map(inputs, [qkv, heads], add1, mlp, add2, output, block_title(n))


def tail(tokens: list[str], sep: str = "", room: int = 13) -> str:
    """The text's end as the map shows it: its last tokens, as many as fit
    `room` characters (the last always), after "…" where some are left out."""
    if len(sep.join(tokens)) <= room:
        return sep.join(tokens)
    shown = [tokens[-1]]
    for tok in reversed(tokens[:-1]):
        if len(sep.join(shown)) + len(tok) + len(sep) + 1 > room:
            return "…" + sep.join(shown)
        shown.insert(0, tok)
    return sep.join(shown)


def long_parts(m: Map) -> list[str]:
    """The parts whose vectors are too long to draw cell by cell everywhere."""
    items = m.inputs + [i for col in m.attention for i in col] + m.add1 + m.mlp + m.add2 + m.output
    return list(dict.fromkeys(i.part for i in items if len(i.marks.values) > WRAP))


def drawn(trace: dict, tokens: list[str], vocab: list[str], links: dict, here: list[str], **options) -> str:
    """The map's SVG for one run: the page's long vectors cell by cell (x
    when the page explains none, or many), as many as fit WIDE × TALL."""
    long = long_parts(map_parts(trace, tokens, vocab, **options))
    large = [p for p in here if p in long] if len(here) <= FEW else []
    large = large or ["X"]
    aria = "The model's map, from the tokens to the next token; the page's parts: " + (
        ", ".join(dict.fromkeys(WORDS[p] for p in here)) or "the whole model")
    while True:
        svg = map_svg(map_parts(trace, tokens, vocab, tuple(large), **options), links, here, aria)
        width, height = size(svg)
        if (width <= WIDE and height <= TALL) or not large:
            return (f'<div class="map-bands" role="region" aria-label="The model\'s map" tabindex="0">{svg}</div>'
                    '<span class="map-more" aria-hidden="true">The map scrolls sideways: swipe it for the rest →</span>')
        large.pop()


def minimap(src_path: str, toy_example=None, runs=None) -> str | None:
    """The map for the page at `src_path` (as docs/ names it), or None for
    a page outside the three chapters (or without its runs).
    toy_example(heads): the toy's worked example; runs: model name ->
    its chapter's run() (nano-gpt's, the writer's: loaded when first asked)."""
    chapter, _, page = src_path.partition("/")
    if chapter not in CHAPTERS or not page.endswith(".md") or "/" in page:
        return None
    here = highlighted(chapter, page)
    links = {name: f"{chapter}/{target}" for name, target in CHAPTERS[chapter].items()}
    if chapter == "toy":
        if toy_example is None:
            return None
        default = toy_example()
        examples = {h: toy_example(h) for h in default.heads_choices}
        vocab = [show(v) for v in default.model.vocab]
        svg = by_heads({h: drawn(ex.trace, [ex.model.show(i) for i in ex.ids], vocab, links, here)
                        for h, ex in examples.items()}, default.n_heads, inline=False)
        what = f"the toy model on “{esc(default.text)}”, at its last token, {esc(default.model.show(default.ids[-1]))}"
    elif (runs or {}).get(chapter) is None:
        return None
    elif chapter == "nano-gpt":
        nano_run = runs[chapter]()
        svg = drawn(nano_run.trace, [VOCAB[i] for i in nano_run.ids], list(VOCAB), links, here, sep=" ")
        what = (f"nano-gpt on “{esc(nano_run.text)}”, at its last letter, {esc(VOCAB[nano_run.ids[-1]])}; "
                f"its {len(nano_run.trace['blocks'])} blocks drawn as one, with the first block's numbers")
    else:
        run = runs[chapter]()
        chars = [char_name(c) for c in run.line]
        svg = drawn(run.trace, chars, [char_name(c) for c in run.vocab], links, here, unit="channel", top=TOP)
        what = (f"the writer on the held-out line “{esc(run.line)}”, at its last character, {esc(chars[-1])}; "
                f"its {run.cfg.n_blocks} blocks drawn as one, with the first block's numbers; of its "
                f"{len(run.vocab)} characters, the {TOP} likeliest next and the rest together")
    lead = "" if here else "This page is about the whole model. "
    key = KEY + (BAR_KEY if 'class="bar"' in svg else "") + (HERE_KEY if here else "")
    return (f'<figure class="minimap" data-figure="minimap" data-module="minimap">'
            f'<figcaption class="map-caption"><details class="map-key"><summary>Key</summary>'
            f'<div class="map-key-body fig-legend"><span class="map-key-line">{lead}The map of {what}. Each part\'s name links to the page '
            f'that explains it<span class="screen-only">; point at or tap a cell for its number</span>.</span>'
            f'<span class="map-key-line">{key}.</span></div></details></figcaption>{svg}</figure>')
