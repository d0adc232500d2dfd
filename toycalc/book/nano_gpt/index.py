"""The nano-gpt chapter's Introduction (docs/nano-gpt/index.md): the
legend of the cells, the vocabulary, the example and what the model
answers; and the sizes and counts every later page quotes."""
from __future__ import annotations


import numpy as np

from ...model import gpt, nanogpt, sizes
from ..nano_example import Run
from ..render import count, fixed, html_table, plain
from .cells import cell, one_tab_stop
from .shared import check_t, letter_at, mingpt_count, nano_gpt


@nano_gpt.table("legend", live=True)
def legend_table(run: Run) -> str:
    """The legend: how a weight cell and an activation cell look."""
    w, a = run.params["E"][0, :3], run.trace["X"][0, :3]
    s = max(np.abs(w).max(), np.abs(a).max())
    row_a = "".join(cell(v, "act", f"an activation, value {i + 1}", s) for i, v in enumerate(a))
    row_w = "".join(cell(v, "weight", f"a weight, value {i + 1}", s) for i, v in enumerate(w))
    return one_tab_stop("\n".join([
        '<table id="nano-legend" class="nano-matrix">',
        "<caption>How the chapter draws numbers</caption>", "<tbody>",
        f'<tr><th scope="row">being processed (green)</th>{row_a}</tr>',
        f'<tr><th scope="row">weights (blue)</th>{row_w}</tr>', "</tbody></table>"]))


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
def p_number(run: Run, letter: str = "A", t: int = 5, places: int = 3) -> str:
    """The probability of a letter at position t (letter="top": of the most probable)."""
    check_t(run, t)
    return fixed(run.trace["p"][t, letter_at(run, letter, t)], places)


@nano_gpt.number("top", live=True)
def top_number(run: Run, t: int = 5) -> str:
    """The most probable letter at position t."""
    check_t(run, t)
    return nanogpt.VOCAB[int(np.argmax(run.trace["p"][t]))]


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
