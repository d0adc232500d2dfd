"""The nano-gpt chapter's page Self Attention (docs/nano-gpt/self-attention.md):
the weight matrices (W_matrix, which later pages show too), queries, keys
and values, the attention weights, and where the heads look; head="best"
follows the head that most often looks at the smallest letter."""
from __future__ import annotations


import numpy as np

from ...model import nanogpt, sizes
from ..draw import figure, grid, label, prob_key, svg
from ..nano_example import Run
from ..render import aligned, aligned_rows, fixed, html_table, inline_math as im, plain, tex
from .cells import activations, heat, weights, kind_words
from .shared import ROWS, block_trace, check_t, follow, head_slice, look_words, nano_gpt


def exact_lookup() -> int:
    """The lookup in a program that gives attention its names (the page
    shows its two lines): a query that matches one key exactly."""
    # --8<-- [start:exact_lookup]
    ages = {"Ada": 36, "Alan": 41}   # keys and their values
    found = ages["Alan"]             # the query "Alan" matches one key: 41
    # --8<-- [end:exact_lookup]
    return found


@nano_gpt.matrix("W", live=True)
def W_matrix(run: Run, name: str = "W_Q", block: int = 1, rows: int = ROWS, cols: int = ROWS) -> str:
    """A weight matrix of a block (W_Q ...) or of the model (W_U)."""
    if name == "W_U":
        return weights("nano-W_U", run.params["W_U"], "Output matrix", "W_U", rows, cols,
                       col_names=[f"{l} ({i})" for i, l in enumerate(nanogpt.VOCAB)])
    names = [k for k, s in sizes.block_shapes(run.cfg).items() if len(s) == 2]
    if name not in names:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(names + ['W_U'])}")
    block_trace(run, block)
    W = run.params[f"blocks.{block - 1}.{name}"]
    return weights(f"nano-{name}-{block}", W, f"Block {block}'s weight matrix", name, rows, cols)


@nano_gpt.matrix("qkv", live=True)
def qkv_matrix(run: Run, which: str = "Q", head: int = 1, block: int = 1, cols: int = ROWS) -> str:
    """The queries, keys or values of one head of one block as a grid of cells."""
    block, head = follow(run, block, head)
    if which not in ("Q", "K", "V"):
        raise ValueError(f"which = {which!r}: expected one of Q, K, V")
    b, columns = block_trace(run, block), head_slice(run, head)
    what = {"Q": "Queries", "K": "Keys", "V": "Values"}[which]
    return activations(run, f"nano-{which}-{block}-{head}", b[which][:, columns],
                       f"{what} of head {head}, block {block},", which.lower(), cols)


@nano_gpt.matrix("attention", live=True)
def attention_matrix(run: Run, head: int = 1, block: int = 1) -> str:
    """A head's attention weights: one row per query t, one column per key j."""
    block, head = follow(run, block, head)
    b = block_trace(run, block)
    head_slice(run, head)
    a = b["weights"][head - 1]
    T = run.T
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    caption = (f"Attention weights of head {head}, block {block}: row t is the query at position t, "
               f"column j the key it reads; the hatched cells are the future, masked "
               f"({kind_words('prob')})")
    return heat(f"nano-attention-{block}-{head}", a, "prob", list(range(T)),
                [f"t = {t + 1} {letters[t]}" for t in range(T)], list(range(T)),
                [f"j = {j + 1}<br>{letters[j]}" for j in range(T)],
                lambda t, j: f"weight of t = {t + 1} on j = {j + 1}", caption, blank=lambda t, j: j > t)


@nano_gpt.table("attention_row", live=True)
def attention_row_table(run: Run, t: int = 6, head: int = 1, block: int = 1) -> str:
    """Row t of a head: q.k, the scaled score, its softmax, for each key j <= t."""
    block, head = follow(run, block, head)
    i = check_t(run, t)
    b, h = block_trace(run, block), head - 1
    head_slice(run, head)
    dots, s, a = b["dots"][h, i], b["scores"][h, i], b["weights"][h, i]
    m = s[:t].max()
    e = np.exp(s[:t] - m)
    body = [[str(j + 1), nanogpt.VOCAB[run.ids[j]], fixed(dots[j]), fixed(s[j]), fixed(s[j] - m),
             fixed(e[j]), fixed(a[j])] for j in range(t)]
    body.append(["<strong>sum</strong>", "", "", "", "", f"<strong>{fixed(e.sum())}</strong>",
                 f"<strong>{fixed(a[:t].sum())}</strong>"])
    A = run.cfg.d // run.cfg.n_heads
    return html_table(f"nano-attention-row-{block}-{head}-{t}",
                      [im("j"), "letter", im(f"q_{t} \\cdot k_j"), im("s"),
                       im("s - \\max s"), im("e^{s - \\max s}"), im(f"a_{{{t},j}}")], body,
                      caption=f"Head {head} of block {block}, the query of t = {t} against every key "
                              f"up to it, " + im(f"s = q_{t} \\cdot k_j / \\sqrt{{{A}}}") + ": max of the scores "
                              f"{fixed(m)}, sum of the exponentials {fixed(e.sum())}")


@nano_gpt.formula("q_cell", live=True)
def qcell_formula(run: Run, t: int = 6, c: int = 1, block: int = 1, head=None, terms: int = 3) -> str:
    """One entry of Q as its dot product: u_t . (column c of W_Q) + b_Q[c], all counted from 1.
    head (a number, or "best": the page's): c counts that head's channels, as its table of
    queries does, and the column of W_Q is the channel's own."""
    i = check_t(run, t)
    if head is None:
        width, first = run.cfg.d, 0
        where = "the channels are"
    else:
        block, head = follow(run, block, head)
        columns = head_slice(run, head)
        width, first = columns.stop - columns.start, columns.start
        where = f"head {head}'s channels are"
    if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= width:
        raise ValueError(f"c = {c!r}: {where} 1 to {width}")
    b = block_trace(run, block)
    col = first + c                  # the column of W_Q, counted from 1
    u, W, bias = (b["u"][i], run.params[f"blocks.{block - 1}.W_Q"][:, col - 1],
                  run.params[f"blocks.{block - 1}.b_Q"][col - 1])
    parts = " + ".join(f"({tex(fixed(u[k]))})({tex(fixed(W[k]))})" for k in range(terms))
    return aligned([(f"Q_{{{t},{c}}}", f"\\sum_{{k=1}}^{{{run.cfg.d}}} u_{{{t},k}} (W_Q)_{{k,{col}}} + (b_Q)_{{{col}}}"),
                    ("", f"{parts} + \\dots + ({tex(fixed(bias))})"), ("", tex(fixed(b["Q"][i, col - 1])))])


@nano_gpt.formula("head_output", live=True)
def head_output_formula(run: Run, t: int = 6, head: int = 1, block: int = 1, channels: int = 4) -> str:
    """One head's output at one position as the weighted sum of values."""
    block, head = follow(run, block, head)
    i = check_t(run, t)
    b = block_trace(run, block)
    head_slice(run, head)  # checks the head
    a = b["weights"][head - 1, i]
    o = b["outputs"][head - 1, i]
    terms = [f"{tex(fixed(a[j]))}\\, v_{j + 1}" for j in range(t)]
    lines = [f"o_{t} &= " + " + ".join(terms[:3])] + ["&\\quad + " + " + ".join(terms[k:k + 3])
                                                     for k in range(3, len(terms), 3)]
    lines.append(f"&= [{', '.join(tex(fixed(x)) for x in o[:channels])}, \\dots]"
                 f"\\quad ({o.size} \\text{{ values}})")
    return aligned_rows(lines)


@nano_gpt.figure("attention", live=True)
def attention_figure(run: Run) -> str:
    """Every head of every block: its attention matrix as a small heat-map,
    a row of blocks per block, the masked future hatched."""
    B, H, T = run.cfg.n_blocks, run.cfg.n_heads, run.T
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    size, gap, left, top = 14, 14, 70, 32
    body = []
    for h in range(H):
        x = left + h * (T * size + gap)
        body.append(label(x + T * size // 2, 11, f"head {h + 1}", "middle", "hdr"))
        body.extend(label(x + j * size + size // 2, top - 5, letters[j], "middle", "val") for j in range(T))
    for b in range(B):
        y = top + b * (T * size + gap)
        body.append(label(0, y + T * size // 2 + 4, f"block {b + 1}", cls="hdr"))
        body.extend(label(left - 4, y + i * size + 11, letters[i], "end", "val") for i in range(T))
        for h in range(H):
            a = run.block(b)["weights"][h]
            M = [[float(a[t, j]) if j <= t else None for j in range(T)] for t in range(T)]
            titles = [[f"block {b + 1}, head {h + 1}: t = {t + 1} ({letters[t]}) reads j = {j + 1} ({letters[j]})"
                       for j in range(T)] for t in range(T)]
            body.append(grid(M, titles, size, left + h * (T * size + gap), y, scale=1.0, kind="prob"))
    width, height = left + H * T * size + (H - 1) * gap + 2, top + B * T * size + (B - 1) * gap + 2
    drawing = svg(width, height, f"The attention weights of the {H} heads (columns) of the {B} blocks (rows): "
                                 f"in each small map a row per position t reading a column per earlier "
                                 f"position j, the stronger the purple, the larger; the future is hatched", "".join(body))
    return figure("nano-attention", drawing + prob_key("weight", masked=True),
                  f"The {B * H} attention matrices on {plain(run.text)}: rows are the queries t = 1 "
                  f"to {T}, columns the keys j, both labelled with their letters")


@nano_gpt.number("look", live=True)
def look_number(run: Run, t: int = 6, head: int = 1, block: int = 1) -> str:
    """Where a head's row t looks most: 'A at j = 3 (0.335)'."""
    block, head = follow(run, block, head)
    i = check_t(run, t)
    head_slice(run, head)
    return look_words(run, block_trace(run, block)["weights"][head - 1, i], t)


@nano_gpt.number("finds_smallest", live=True)
def finds_smallest_number(run: Run, t: int = 6, head: int = 1, block: int = 1) -> str:
    """Whether a head's row t looks most at a copy of the smallest letter so
    far, in words true of any weights: 'a copy of the smallest letter so
    far' or 'not the smallest letter so far, A'."""
    block, head = follow(run, block, head)
    i = check_t(run, t)
    head_slice(run, head)
    row = block_trace(run, block)["weights"][head - 1, i]
    smallest = min(run.ids[:t])
    if run.ids[int(np.argmax(row[:t]))] == smallest:
        return "a copy of the smallest letter so far"
    return f"not the smallest letter so far, {nanogpt.VOCAB[smallest]}"


@nano_gpt.table("smallest_looks")
def smallest_looks_table(run: Run) -> str:
    """For each head of each block, over every input that mixes letters: how
    often the last input position's largest weight falls on the smallest letter."""
    hits, n = run.smallest_looks
    body = [[f"block {b + 1}"] + [str(hits[b, h]) for h in range(run.cfg.n_heads)] for b in range(len(hits))]
    return html_table("nano-smallest-looks", [""] + [f"head {h + 1}" for h in range(run.cfg.n_heads)], body,
                      caption=f"How often the largest weight at t = {nanogpt.LENGTH} falls on the smallest "
                              f"letter, out of the {n} inputs that mix letters")


@nano_gpt.number("smallest_looks")
def smallest_looks_number(run: Run, block=1, head=1) -> str:
    """How many inputs that mix letters see a head's largest weight at the last input position on the smallest letter; head="best": the best head."""
    block, head = follow(run, block, head)
    head_slice(run, head)
    block_trace(run, block)
    return str(run.smallest_looks[0][block - 1, head - 1])


@nano_gpt.number("best_head")
def best_head_number(run: Run, part: str = "head") -> str:
    """The head (part="block": its block) that most often looks at the smallest letter, from 1."""
    if part not in ("head", "block"):
        raise ValueError(f"part = {part!r}: expected head or block")
    return str(run.best_head[0 if part == "block" else 1] + 1)


@nano_gpt.number("mixed")
def mixed_number(run: Run) -> str:
    """How many of the possible inputs mix letters (not all one letter)."""
    return str(run.smallest_looks[1])


@nano_gpt.number("index")
def index_number(run: Run, block=None, head=None) -> str:
    """A block's or a head's numeral, from 1 as the book counts (checked):
    prose names block 1 or head 3 through this, never by hand."""
    if (block is None) == (head is None):
        raise ValueError("index: expected one of block=... or head=...")
    if head is None:
        block_trace(run, block)
        return str(block)
    head_slice(run, head)
    return str(head)
