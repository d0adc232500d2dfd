"""The nano-gpt chapter's Introduction (docs/nano-gpt/index.md): the
legend of the cells, the vocabulary, the example and what the model
answers; and the sizes and counts every later page quotes."""
from __future__ import annotations


import numpy as np

from ...model import gpt, nanogpt, sizes
from ..model_drawing import model_key, model_svg
from ..nano_example import Run
from ..draw import esc
from ..render import count, fixed, html_table, plain
from .cells import cell, one_tab_stop
from .shared import check_t, letter_at, mingpt_count, nano_gpt


@nano_gpt.table("legend", live=True)
def legend_table(run: Run) -> str:
    """The key of the chapter's cells, drawn with them: the smallest value,
    a zero and the largest value of an activation (x) and of a weight
    matrix (E, framed), then the shares p of the last column (purple)."""
    def signed(M, kind: str, what: str, where) -> str:
        s = float(np.abs(M).max())
        lo, hi = (np.unravel_index(f(M), M.shape) for f in (np.argmin, np.argmax))
        return "".join([cell(M[lo], kind, f"{what}, the smallest: {where(*lo)}", s),
                        cell(0.0, kind, f"{what}, zero", s),
                        cell(M[hi], kind, f"{what}, the largest: {where(*hi)}", s)])
    row_x = signed(run.trace["X"], "act", "an activation", lambda t, c: f"x at t = {t + 1}, channel {c + 1}")
    row_w = signed(run.params["E"], "weight", "a weight",
                   lambda i, c: f"E of {nanogpt.VOCAB[i]}, channel {c + 1}")
    p = run.trace["p"][run.T - 1]
    row_p = "".join(cell(p[i], "prob", f"a share, p({l}) at t = {run.T}", 1.0) for i, l in enumerate(nanogpt.VOCAB))
    heads = "".join(f'<th scope="col">p({l})</th>' for l in nanogpt.VOCAB)
    return one_tab_stop("\n".join([
        '<table id="nano-legend" class="nano-matrix nano-legend">',
        "<caption>How the chapter draws numbers: blue negative, grey zero, orange positive, the shade "
        "by the size against the largest of its matrix; a learned weight framed; a share from 0 to 1 "
        "purple</caption>",
        '<thead><tr><td></td><th scope="col">negative</th><th scope="col">zero</th>'
        '<th scope="col">positive</th></tr></thead>', "<tbody>",
        f'<tr><th scope="row">an activation, computed from this input</th>{row_x}</tr>',
        f'<tr><th scope="row">a learned weight (framed), the same for every input</th>{row_w}</tr>',
        f'<tr><td></td>{heads}</tr>',
        f'<tr><th scope="row">a share from 0 to 1: an attention weight, a probability</th>{row_p}</tr>',
        "</tbody></table>"]))


@nano_gpt.table("vocab")
def vocab_table(run: Run) -> str:
    """nano-gpt's three tokens and their indices."""
    return html_table("nano-vocab", ["token"] + list(nanogpt.VOCAB),
                      [["index"] + [str(i) for i in range(len(nanogpt.VOCAB))]])


@nano_gpt.number("text", live=True)
def text_number(run: Run) -> str:
    """The chapter's input, as letters."""
    return plain(run.text)


@nano_gpt.number("example")
def example_number(run: Run) -> str:
    """The book's example, as letters, where it stays when a page follows
    the reader's letters (in an attribute, in words about the example)."""
    return plain(run.text)


@nano_gpt.number("ids", live=True)
def ids_number(run: Run) -> str:
    """The chapter's input, as ids."""
    return " ".join(map(str, run.ids))


@nano_gpt.number("answer", live=True)
def answer_number(run: Run) -> str:
    """What the model writes after the input, by greedy decoding."""
    return nanogpt.letters(run.answer)


@nano_gpt.number("sorted", live=True)
def sorted_number(run: Run) -> str:
    """The input sorted: the right answer."""
    return nanogpt.letters(sorted(run.ids))


@nano_gpt.number("p", live=True)
def p_number(run: Run, letter: str = "A", t: int = 6, places: int = 3) -> str:
    """The probability of a letter at position t (letter="top": of the most probable)."""
    i = check_t(run, t)
    return fixed(run.trace["p"][i, letter_at(run, letter, i)], places)


@nano_gpt.number("top", live=True)
def top_number(run: Run, t: int = 6) -> str:
    """The most probable letter at position t."""
    return nanogpt.VOCAB[int(np.argmax(run.trace["p"][check_t(run, t)]))]


@nano_gpt.number("size")
def size_number(run: Run, name: str = "d") -> str:
    """One size of nano-gpt: d, V, n_ctx, width, blocks, heads, A, T or inputs."""
    cfg = run.cfg
    sizes = {"d": cfg.d, "V": cfg.vocab_size, "n_ctx": cfg.n_ctx, "width": cfg.mlp_width,
             "blocks": cfg.n_blocks, "heads": cfg.n_heads, "A": cfg.d // cfg.n_heads, "T": run.T,
             "inputs": len(nanogpt.VOCAB) ** nanogpt.LENGTH}
    if name not in sizes:
        raise ValueError(f"name = {name!r}: expected one of {', '.join(sizes)}")
    return str(sizes[name])


@nano_gpt.number("count")
def count_number(run: Run, piece: str = "total") -> str:
    """nano-gpt's parameter count, whole, per block, by piece or as minGPT counts it."""
    counts = sizes.count_params(run.cfg)
    if piece == "block":
        return count(sum(np.prod(s) for s in sizes.block_shapes(run.cfg).values()))
    if piece == "mingpt":
        return count(mingpt_count(run))
    if piece not in counts:
        raise ValueError(f"piece = {piece!r}: expected one of {', '.join(list(counts) + ['block', 'mingpt'])}")
    return count(counts[piece])


@nano_gpt.figure("model", live=True)
def model_figure(run: Run) -> str:
    """The whole of nano-gpt on the input, drawn as the book draws the toy
    (model_drawing): a row per letter, its blocks as one frame with the
    first block's numbers, each vector of d channels a heat strip."""
    letters = [nanogpt.VOCAB[i] for i in run.ids]
    drawing = model_svg(run.trace, letters, list(nanogpt.VOCAB), n_blocks=run.cfg.n_blocks)
    return (f'<figure class="toy-figure model-figure nano-model" data-figure="nano-model">{drawing}'
            f'<figcaption>nano-gpt on {esc(run.text)}, a row per letter. Its {run.cfg.n_blocks} blocks have one '
            f"shape, drawn once with the first block's numbers; each vector of {run.cfg.d} channels is a strip, "
            f"its numbers in the strip's title."
            f'<span class="screen-only"> It is wider than the page: scroll it sideways.</span> '
            f"{model_key()}</figcaption></figure>")
