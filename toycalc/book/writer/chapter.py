"""The pages of the writer's chapter (docs/writer/): their tables, numbers
and figures, each a pure function of the WriterRun (shared.py)."""
from __future__ import annotations

import math

import numpy as np

from ...model import sizes, train_writer, writer as model
from ..draw import esc, figure, grid, label, line_chart_svg, nice_ticks, prob_key, signed_key, svg
from ..render import count, fixed, html_table, plain
from .shared import (read_out, stage_row, published_kib, FOLLOWED_HEAD, LIVE_TEMPERATURE, LIVE_TOP_K, SAMPLE_LENGTH, SAMPLE_SEED, TEMPERATURES, WriterRun, nats_to_bits, part)


def char_name(ch: str) -> str:
    """A character as a page shows it: the space and the line break by name."""
    return {" ": "␣", "\n": "↵"}.get(ch, ch)


def char_text(ch: str) -> str:
    return plain(char_name(ch))


# ---------------------------------------------------------------- numbers

@part.number("fact")
def fact_number(run: WriterRun, key: str) -> str:
    """A fact of the text, the model or its training (key: characters,
    distinct, held_out_from, held_out, trained_on, parameters, kib, d,
    blocks, heads, n_ctx, batch, steps, minutes, lr, seed, line, line_last,
    followed_block and followed_head: the head the chapter follows)."""
    rec, cfg = run.record, run.cfg
    n = len(model.text())
    values = {
        "characters": count(n), "distinct": count(len(run.vocab)),
        "held_out_from": count(model.split_at()), "held_out": count(n - model.split_at()),
        "held_out_percent": f"{round(100 * model.HELD_OUT)}", "trained_on": count(model.split_at()),
        "parameters": count(sizes.count_params(cfg)["total"]),
        "kib": published_kib(run),
        "d": count(cfg.d), "blocks": count(cfg.n_blocks), "heads": count(cfg.n_heads),
        "n_ctx": count(cfg.n_ctx), "batch": count(rec["batch"]), "steps": count(rec["steps"]),
        "chars_seen": count(rec["steps"] * rec["batch"] * cfg.n_ctx),
        "minutes": f"{rec['seconds'] / 60:.0f}", "lr": str(rec["optimizer"]["lr"]),
        "min_lr": str(rec["optimizer"]["min_lr"]), "seed": str(rec["seed"]),
        "line": f"<code>{plain(run.line)}</code>", "line_length": count(len(run.line)),
        "line_last": f'<span class="writer-ch">{char_text(run.line[-1])}</span>',
        "followed_block": str(FOLLOWED_HEAD[0]), "followed_head": str(FOLLOWED_HEAD[1]),
        "sample_seed": str(SAMPLE_SEED), "sample_length": count(SAMPLE_LENGTH),
        "live_temperature": str(LIVE_TEMPERATURE), "live_top_k": str(LIVE_TOP_K),
        "t_low": str(TEMPERATURES[0]), "t_mid": str(TEMPERATURES[1]), "t_high": str(TEMPERATURES[2]),
    }
    if key not in values:
        raise ValueError(f"key = {key!r}: expected one of {', '.join(values)}")
    return values[key]


@part.number("count")
def count_number(run: WriterRun, char: str) -> str:
    """How often a character occurs in the whole text."""
    if char not in run.counts:
        raise ValueError(f"char = {char!r}: not one of the text's {len(run.vocab)} characters")
    return count(run.counts[char])


@part.number("loss")
def loss_number(run: WriterRun, which: str = "held_out", unit: str = "nats") -> str:
    """A loss per character: which = held_out (the shipped weights on the
    held-out text), train (the mean of the last 100 steps), unigram (the
    context-blind baseline), start (ln V, a uniform guess); unit = nats, bits
    or perplexity (e to the loss: as unsure as a choice among that many)."""
    losses = {"held_out": run.record["held_out_loss"], "train": float(np.mean(run.record["loss_curve"][-100:])),
              "unigram": run.unigram_loss, "start": math.log(len(run.vocab))}
    if which not in losses:
        raise ValueError(f"which = {which!r}: expected one of {', '.join(losses)}")
    loss = losses[which]
    if unit == "nats":
        return fixed(loss, 2)
    if unit == "bits":
        return fixed(nats_to_bits(loss), 2)
    if unit == "perplexity":
        return fixed(math.exp(loss), 1)
    raise ValueError(f"unit = {unit!r}: expected nats, bits or perplexity")


@part.number("share")
def share_number(run: WriterRun, offset: int, block: int = FOLLOWED_HEAD[0], head: int = FOLLOWED_HEAD[1]) -> str:
    """The mean weight head `head` of block `block` (by default the head
    the chapter follows, FOLLOWED_HEAD) puts on the character `offset`
    places back (0: itself), over the held-out line."""
    from .claims import offset_share
    return fixed(offset_share(run, block, head, offset), 2)


@part.number("embedding")
def embedding_number(run: WriterRun, key: str) -> str:
    """What the embeddings' picture shows (key: kept, the percent of the
    rows' spread its two directions keep; letters, the letters in both cases;
    close_pairs, how many of them lie nearer their other case than the
    median two letters; own_small_letter, how many capitals are most like
    their own small letter in all dimensions)."""
    from .claims import case_pairs, close_pairs, kept_variance, own_small_letter
    values = {"kept": lambda: f"{100 * kept_variance(run):.0f} %", "letters": lambda: count(len(case_pairs(run))),
              "close_pairs": lambda: count(len(close_pairs(run))),
              "own_small_letter": lambda: count(len(own_small_letter(run)))}
    if key not in values:
        raise ValueError(f"key = {key!r}: expected one of {', '.join(values)}")
    return values[key]()


@part.number("next_p")
def next_p_number(run: WriterRun, char: str) -> str:
    """The probability the writer gives `char` after the held-out line."""
    if char not in run.vocab:
        raise ValueError(f"char = {char!r}: not one of the writer's characters")
    return fixed(run.trace["p"][-1][run.vocab.index(char)], 3)


@part.number("target")
def target_number(run: WriterRun) -> str:
    """The most held-out loss the book ships (nats per character)."""
    return fixed(model.TARGET, 2)


# ---------------------------------------------------------------- tables

@part.table("characters")
def characters_table(run: WriterRun, columns: int = 4) -> str:
    """The 65 characters and how often each occurs, most frequent first, in `columns` pairs of columns."""
    ranked = sorted(run.counts.items(), key=lambda kv: (-kv[1], kv[0]))
    per = math.ceil(len(ranked) / columns)
    rows = []
    for r in range(per):
        row = []
        for c in range(columns):
            k = c * per + r
            row += ([f'<span class="writer-ch">{char_text(ranked[k][0])}</span>', count(ranked[k][1])]
                    if k < len(ranked) else ["", ""])
        rows.append(row)
    return html_table("writer-characters", ["character", "count"] * columns, rows,
                      caption=f"The {len(ranked)} characters of the text, most frequent first "
                              "(␣ the space, ↵ the line break)")


@part.table("losses")
def losses_table(run: WriterRun) -> str:
    """One loss per character in three units, for the writer, the unigram baseline and a uniform guess."""
    rows = []
    for name, which in (("the writer, on the held-out text", "held_out"),
                        ("each character's share, ignoring context (unigram)", "unigram"),
                        (f"a uniform guess among {len(run.vocab)}", "start")):
        rows.append([name] + [loss_number(run, which, u) for u in ("nats", "bits", "perplexity")])
    return html_table("writer-losses", ["", "nats per character", "bits per character", "perplexity"],
                      rows, bold_rows={0})


# ---------------------------------------------------------------- figures

@part.figure("curves")
def curves_figure(run: WriterRun, every: int = 100) -> str:
    """The two loss curves of the record: training (the mean of each `every`
    steps) and held-out (as measured while it trained)."""
    curve = run.record["loss_curve"]
    train_pts = [(min(s + every, len(curve)), float(np.mean(curve[s:s + every])))
                 for s in range(0, len(curve), every)]
    held = [(s, v) for s, v in run.record["held_out_curve"]]
    lo = min(v for _, v in train_pts + held)
    hi = max(v for _, v in train_pts + held)
    y_ticks = [(v, fixed(v, 1)) for v in nice_ticks(math.floor(lo * 2) / 2, hi, 6)]
    x_ticks = [(v, count(int(v))) for v in nice_ticks(0, len(curve), 6)]
    series = [("training text", train_pts, [f"steps {max(0, s - every) + 1} to {s}: mean loss {fixed(v)}"
                                            for s, v in train_pts]),
              ("held-out text", held, [f"step {s}: held-out loss {fixed(v)}" for s, v in held])]
    chart = line_chart_svg(series, "The writer's loss per character while it trained: training text and "
                           "held-out text, falling together", x_ticks, y_ticks, "step", "loss (nats per character)",
                           width=336, height=240)   # a phone's column: its text stays at 11 px
    return figure("writer-curves", chart, f"Loss in nats per character, step by step: the training curve is "
                  f"the mean of each {every} steps; the held-out curve was measured every "
                  f"{train_writer.HELD_OUT_EVERY} steps on {train_writer.HELD_OUT_WINDOWS} windows of the "
                  "held-out text.")


@part.figure("sample")
def sample_figure(run: WriterRun, temperature: float) -> str:
    """The sample written at `temperature` after the held-out line, with the chapter's seed."""
    if temperature not in TEMPERATURES:
        raise ValueError(f"temperature = {temperature!r}: the chapter samples at "
                         f"{', '.join(map(str, TEMPERATURES))}")
    text = run.sample_text(temperature)
    prompt = esc(run.prompt)
    return (f'<figure class="writer-sample" data-figure="writer-sample" data-temperature="{temperature}" '
            f'data-seed="{SAMPLE_SEED}"><pre class="writer-text"><span class="writer-prompt">{prompt}</span>'
            f'<span class="writer-written">{esc(text)}</span></pre>'
            f"<figcaption>Temperature {temperature}, seed {SAMPLE_SEED}: the held-out line (plain) "
            f"and the {count(len(text))} characters the writer wrote after it (bold).</figcaption></figure>")


def heat_svg(chars: list[str], weights, block: int, head: int, size: int = 9) -> str:
    """One head's attention on the line: a row per query, a column per key."""
    T = len(chars)
    left, top = 2, 16
    body = []
    # the characters along the top only: the rows are the same characters in
    # the same order (row i meets column i on the diagonal), and 12 px labels
    # on rows 9 px apart would overlap
    for i, ch in enumerate(chars):
        body.append(label(left + i * size + size // 2, top - 4, char_name(ch), "middle", "val"))
    M = [[float(weights[i][j]) if j <= i else None for j in range(T)] for i in range(T)]
    titles = [[f"block {block}, head {head}: {char_name(chars[i])} (position {i + 1}) reads "
               f"{char_name(chars[j])} (position {j + 1})" for j in range(T)] for i in range(T)]
    body.append(grid(M, titles, size, left, top, 1.0, "prob"))
    return svg(left + T * size + 2, top + T * size + 2,
               f"Block {block}, head {head}: attention on the line, a row per character reading, "
               "a column per character read", "".join(body))


@part.figure("attention")
def attention_figure(run: WriterRun) -> str:
    """Every head of every block on the held-out line, as heat-maps, a
    block at a time: the first in the page, each other one's in a
    template element until the reader picks it in the chooser above (path.js),
    as its 2,100 elements a block made the page 23,000 at load. The first
    block's maps wait in a <noscript> (shown as they are without
    JavaScript) until the reader scrolls near them (path.js): 4,400 of the
    page's 9,800 elements at load."""
    chars, blocks = list(run.line), []
    for b in range(1, run.cfg.n_blocks + 1):
        maps = "".join(f'<div class="writer-head"><p class="writer-head-name">block {b}, head {h}</p>'
                       f"{heat_svg(chars, run.attention(b, h), b, h)}</div>" for h in range(1, run.cfg.n_heads + 1))
        blocks.append(f'<div class="writer-block" data-block="{b}"><noscript class="near-later">{maps}</noscript></div>'
                      if b == 1 else
                      f'<div class="writer-block" data-block="{b}" hidden><template class="block-later">{maps}'
                      "</template></div>")
    chooser = ('<fieldset class="choices block-chooser" hidden><legend>Block</legend>'
               + "".join(f'<label><input type="radio" name="writer-block" value="{b}"{" checked" if b == 1 else ""}> '
                         f"block {b}</label>" for b in range(1, run.cfg.n_blocks + 1)) + "</fieldset>")
    return (f'{chooser}<figure class="writer-heads" data-figure="writer-attention">{"".join(blocks)}'
            f"<figcaption>The attention of each head of a block on the line {plain(run.line)}: "
            "a row per character (the query), a column per character it may read (the keys before it "
            f"and itself). Block <span class=\"block-shown\">1</span> here<span class=\"screen-only\">; choose another of the "
            f"{count(run.cfg.n_blocks)} above the maps</span>.</figcaption></figure>\n\n"
            + prob_key("attention weight", masked=True))


STEPS = [("E", "the character's row of E", lambda t, b: t["E_ids"]),
         ("P", "the position's row of P", lambda t, b: t["P_t"]),
         ("x", "x = E + P, the block's input", lambda t, b: t["X"]),
         ("u", "LayerNorm(x)", lambda t, b: t["blocks"][b]["u"]),
         ("q", "the query, u W<sub>Q</sub>", lambda t, b: t["blocks"][b]["Q"]),
         ("k", "the key, u W<sub>K</sub>", lambda t, b: t["blocks"][b]["K"]),
         ("v", "the value, u W<sub>V</sub>", lambda t, b: t["blocks"][b]["V"]),
         ("attn", "the heads' outputs, joined and times W<sub>O</sub>", lambda t, b: t["blocks"][b]["attn"]),
         ("h", "h = x + attn", lambda t, b: t["blocks"][b]["h"]),
         ("m", "the MLP's output", lambda t, b: t["blocks"][b]["m"]),
         ("y", "y = h + m, the block's output", lambda t, b: t["blocks"][b]["y"]),
         ("f", "after the last block, LayerNorm(y)", lambda t, b: t["f"]),
         ("logits", "the logits, f W<sub>U</sub>", lambda t, b: t["logits"]),
         ("p", "p = softmax(logits)", lambda t, b: t["p"])]


def strip_svg(values, name: str, names=None, size: int = 4, height: int = 18) -> str:
    """A wide vector as a strip of cells, each with its value in its title."""
    n = len(values)
    kind = "prob" if name == "p" else "signed"
    titles = [[f"{name}[{(names[j] if names else j + 1)}]" for j in range(n)]]
    body = grid([list(map(float, values))], titles, size, 0, 0, 1.0 if kind == "prob" else None, kind)
    # grid draws squares; stretch them into a strip
    return (f'<svg class="fig writer-strip" viewBox="0 0 {n * size} {size}" width="{n * size}" '
            f'height="{height}" preserveAspectRatio="none" role="img" '
            f'aria-label="{esc(name)}: {n} numbers, one cell each">{body}</svg>')


@part.table("steps")
def steps_table(run: WriterRun, block: int = 1) -> str:
    """End to End's steps for the line's last character, at this size:
    each vector as a strip (every number in its cell's title) and its
    first four numbers written out."""
    if not 1 <= block <= run.cfg.n_blocks:
        raise ValueError(f"block = {block}: expected 1 to {run.cfg.n_blocks}")
    t, last = run.trace, len(run.ids) - 1
    rows = []
    for name, what, get in STEPS:
        v = get(t, block - 1)[last]
        names = [char_name(c) for c in run.vocab] if name in ("logits", "p") else None
        first = ", ".join(fixed(x) for x in v[:4])
        rows.append([f"<code>{name}</code>", what, count(len(v)), strip_svg(v, name, names),
                     f"{first}, …"])
    return html_table("writer-steps", ["", "what", "numbers", "all of them", "the first four"], rows,
                      wrap={1}, caption=f"The line's last character, {char_text(run.line[-1])} "
                      f"(position {len(run.line)}), through block {block} and out")


@part.number("read_out")
def read_out_number(run: WriterRun, at, char: str) -> str:
    """p of `char` read out of the line's last row at a stage (stage_row)."""
    if char not in run.vocab:
        raise ValueError(f"char = {char!r}: not one of the writer's characters")
    return fixed(read_out(run, stage_row(run, at))[run.vocab.index(char)], 3)


@part.table("through_blocks")
def through_blocks_table(run: WriterRun) -> str:
    """The line's last character through every block: x into the first,
    then each block's output y, as strips; and what each would predict if
    the model stopped there (read_out), the likeliest next character and
    its p, the last row being the model's own answer."""
    stages = [("x", "into block 1", stage_row(run, "x"))]
    stages += [("y", f"out of block {b}", stage_row(run, b)) for b in range(1, run.cfg.n_blocks + 1)]
    rows = []
    for name, what, v in stages:
        p = read_out(run, v)
        top = int(np.argmax(p))
        rows.append([f"<code>{name}</code>", what, strip_svg(v, name), f"{', '.join(fixed(x) for x in v[:4])}, …",
                     f'<span class="writer-ch">{char_text(run.vocab[top])}</span> {fixed(p[top])}'])
    return html_table("writer-through", ["", "where", "all of them", "the first four",
                                         "read out here: the likeliest next, p"], rows, wrap={1},
                      caption=f"The line's last character, {char_text(run.line[-1])} (position {len(run.line)}), through the "
                      f"{count(run.cfg.n_blocks)} blocks: its row of the residual stream after each, "
                      "and the next character the final LayerNorm and W<sub>U</sub> would read from it")


@part.table("next")
def next_table(run: WriterRun, top: int = 10) -> str:
    """The `top` most probable next characters after the line, with p."""
    p = run.trace["p"][-1]
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))[:top]
    return html_table("writer-next", ["character", "p"],
                      [[f'<span class="writer-ch">{char_text(run.vocab[i])}</span>', fixed(p[i])] for i in order],
                      bold_rows={0})


# the embeddings' marks by kind of character: a named one in a font of its
# kind, a dot in a shape of its kind (the figure's key says which)
KINDS = {"upper": "a capital", "lower": "a small letter", "other": "any other character"}


def char_kind(ch: str) -> str:
    return "upper" if ch.isupper() else "lower" if ch.islower() else "other"


def kind_mark(kind: str, x: float, y: float, title: str = "") -> str:
    """A character's dot: a disc (capital), a ring (small letter) or a diamond (any other)."""
    if kind == "other":
        return (f'<path class="writer-dot writer-other" d="M{x:.1f} {y - 3.5:.1f}l3.5 3.5l-3.5 3.5l-3.5 -3.5z">'
                f"{title}</path>")
    return f'<circle class="writer-dot writer-{kind}" cx="{x:.1f}" cy="{y:.1f}" r="2.8">{title}</circle>'


def crosses(name, a, b) -> bool:
    """Whether the line from spot a to spot b (drawn 4 px above their
    baselines) runs through the box of the name at spot `name` (x, baseline,
    width; 12 px text, 2 px to spare), checked every pixel along it."""
    X, Y, w = name
    (x1, y1, _), (x2, y2, _) = a, b
    steps = max(1, int(math.hypot(x2 - x1, y2 - y1)))
    return any(abs(x1 + (x2 - x1) * i / steps - X) < w / 2 + 2 and -13 < y1 - 4 + (y2 - y1) * i / steps - Y < 5
               for i in range(steps + 1))


@part.figure("embeddings")
def embeddings_figure(run: WriterRun) -> str:
    """E's 65 rows on its two principal directions, each character at its
    place, a line joining each letter's two cases; its key under it."""
    from .claims import case_pairs
    xy = run.embedding_2d
    size, pad, below = 336, 24, 20     # a phone's column: the labels stay at 11 px
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    bottom = size - below - pad / 2
    body = [f'<path class="axis" d="M{pad} {pad / 2}V{bottom}H{size - pad / 2}"/>',
            label(size - pad // 2, size - 6, "first direction →", "end"),
            f'<text class="lbl" transform="translate(14 {pad / 2}) rotate(-90)" text-anchor="end">second direction →</text>']
    spots = [(pad + 8 + (x - lo[0]) / span[0] * (size - 2 * pad - 8),
              bottom - 10 - (y - lo[1]) / span[1] * (bottom - 10 - pad / 2 - 12), 7 * len(char_name(ch)) + 2)
             for ch, (x, y) in zip(run.vocab, xy)]
    # a name on another's (close rows) would hide both, and a name over a
    # dot or across another letter's line to its capital would be unreadable:
    # such a character is a dot, named in its title
    pairs = case_pairs(run)
    named = []
    for k, (X, Y, w) in enumerate(spots):
        if all(abs(X - spots[j][0]) >= (w + spots[j][2]) / 2 or abs(Y - spots[j][1]) >= 14 for j in named):
            named.append(k)
    while True:
        dots = [spots[k] for k in range(len(spots)) if k not in named]
        covering = [k for k in named if any(abs(spots[k][0] - X) < spots[k][2] / 2 + 4
                                            and -5 < spots[k][1] - (Y - 4) < 17 for X, Y, _ in dots)
                    or any(k not in pair and crosses(spots[k], spots[pair[0]], spots[pair[1]]) for pair in pairs)]
        if not covering:
            break
        named = [k for k in named if k not in covering]
    for small, capital in pairs:      # under the marks: a line from a letter to its capital
        (x1, y1, _), (x2, y2, _) = spots[small], spots[capital]
        apart = float(np.linalg.norm(xy[small] - xy[capital]))
        body.append(f'<line class="writer-pair" x1="{x1:.1f}" y1="{y1 - 4:.1f}" x2="{x2:.1f}" y2="{y2 - 4:.1f}">'
                    f"<title>{esc(run.vocab[small])} and {esc(run.vocab[capital])}: {fixed(apart)} apart</title></line>")
    for k, (ch, (x, y)) in enumerate(zip(run.vocab, xy)):
        X, Y, _ = spots[k]
        kind = char_kind(ch)
        title = f"<title>{esc(char_name(ch))} ({KINDS[kind]}): ({fixed(x)}, {fixed(y)})</title>"
        if k in named:
            body.append(f'<text x="{X:.1f}" y="{Y:.1f}" class="lbl writer-{kind}" text-anchor="middle">'
                        f"{esc(char_name(ch))}{title}</text>")
        else:
            body.append(kind_mark(kind, X, Y - 4, title))
    chart = svg(size, size, "The characters' embeddings projected on the two directions along which "
                "their rows differ most, each character at its place, a line joining each letter's two cases",
                "".join(body))
    key = ('<p class="fig-legend fig-key writer-key">'
           + "; ".join(f'<svg class="fig" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true">'
                       f"{kind_mark(kind, 5, 5)}</svg> {what}" for kind, what in KINDS.items())
           + ' (named: <b>bold</b>, regular, <i>italic</i>); a line joins a letter\'s two cases.'
           '<span class="screen-only"> Point at or tap a mark for its character and place.</span></p>')
    return figure("writer-embeddings", chart, "Each character's row of E (128 numbers) projected on the two "
                  "directions along which the rows differ most (principal components, computed at build); "
                  "where a name would cover another's, a dot or another letter's line, a dot of its kind.") + "\n\n" + key


@part.figure("key")
def key_figure(run: WriterRun) -> str:
    """The signed scale's key, for the strips."""
    return signed_key()
