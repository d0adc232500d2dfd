"""What every page of the nano-gpt chapter shares: the part `nano_gpt`,
whose registries the page modules of this package fill, what a registered
output is wrapped in for the browser, and the checks of a call's options.

A page registers a function with `@nano_gpt.table("embed")` (the page calls
`{{ nano_gpt_table("embed") }}`), adding live=True when its output changes
with the input: the browser draws it again for the reader's own letters
(`nano_gpt.live`, which docs/javascripts/nano_gpt.js mirrors and
tests/book/test_nanogpt_switch.py holds to the same strings). Every matrix
is `openable`. Positions t, channels, blocks and heads count from 1, as
in the rest of the book, in what a page shows and in the options a page
passes (t=4: the fourth letter); a token's id counts from 0, and so does
the code (transformer.h[0] is block 1), which the chapter says where it
shows code.
"""
from __future__ import annotations

import functools
import html
import inspect
import json
import re

import numpy as np

from ...model import gpt, nanogpt, sizes
from ..nano_example import Run
from ..part import Part
from ..render import fixed, html_table

ROWS = 8          # rows of a big matrix shown by default
MINGPT_LEAVES_OUT = ("W_U",)   # minGPT counts transformer.parameters(), not lm_head


def mingpt_count(run: Run) -> int:
    """The parameters as minGPT counts them: all but MINGPT_LEAVES_OUT."""
    c = sizes.count_params(run.cfg)
    return c["total"] - sum(c[k] for k in MINGPT_LEAVES_OUT)


def look_words(run: Run, row, t: int) -> str:
    """Where a row of attention weights (the query at position t, from 1)
    is largest, in words: 'A at j = 3 (0.335)'."""
    j = int(np.argmax(row[:t]))
    return f"{nanogpt.VOCAB[run.ids[j]]} at j = {j + 1} ({fixed(row[j])})"


def check_t(run: Run, t: int) -> int:
    """The row of position t (counted from 1) in the trace's arrays, or a
    ValueError that says which positions exist."""
    if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= run.T:
        raise ValueError(f"t = {t!r}: the example has positions 1 to {run.T}")
    return t - 1


def by_channel(table_id: str, columns: dict, rows: int, caption: str) -> str:
    """Vectors of one position side by side, one row per channel (from 1):
    the first `rows`, then ⋮. columns maps each column's header to its vector."""
    body = [[str(c + 1)] + [fixed(v[c]) for v in columns.values()] for c in range(rows)]
    body.append(["⋮"] * (len(columns) + 1))
    return html_table(table_id, ["channel", *columns], body, caption=caption)


def block_trace(run: Run, block: int) -> dict:
    """The trace of block `block`, counted from 1 (checked)."""
    n = run.cfg.n_blocks
    if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= n:
        raise ValueError(f"block = {block!r}: the model has blocks 1 to {n}")
    return run.block(block - 1)


def follow(run: Run, block, head) -> tuple[int, int]:
    """head="best": the block and head (from 1) that most often look at the
    smallest letter (Run.best_head), which the Self Attention page follows."""
    if head != "best":
        return block, head
    b, h = run.best_head
    return b + 1, h + 1


def head_slice(run: Run, head: int) -> slice:
    """The columns of head `head`, counted from 1 (checked)."""
    n = run.cfg.n_heads
    if isinstance(head, bool) or not isinstance(head, int) or not 1 <= head <= n:
        raise ValueError(f"head = {head!r}: the model has heads 1 to {n}")
    return run.head_columns(head - 1)


def letter_id(letter: str) -> int:
    """The id of a letter (checked)."""
    if letter not in nanogpt.VOCAB:
        raise ValueError(f"letter = {letter!r}: expected one of {', '.join(nanogpt.VOCAB)}")
    return nanogpt.VOCAB.index(letter)


def letter_at(run: Run, letter: str, i: int) -> int:
    """The letter's id; "top": the most probable letter at row i of the trace (nano_gpt.js: letterAt)."""
    return int(np.argmax(run.trace["p"][i])) if letter == "top" else letter_id(letter)


def ignored_positions(run: Run) -> list[int]:
    """The rows of the trace (from 0) whose targets training ignores."""
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])
    return [t for t in range(run.T) if targets[0, t] < 0]


def tick(v: float) -> str:
    """An axis tick: the value in as few places as it needs."""
    return f"{v:.2f}".rstrip("0").rstrip(".").replace("-", "\u2212") if v else "0"


# ---------------------------------------------------------------- for the browser

# Every part the browser draws again names its code, docs/javascripts/letters.js
# (book.js imports it on the pages that have such a part).
LETTERS = ' data-module="letters"'


# After a table cut short: the line of its button ("Show all N rows"), which
# letters.js fills. Written here, since an element inserted among the
# article's had chromium restyle all of it once MathJax's MathML was in.
FULL_LINE = '\n<p class="nano-full" hidden></p>'


def openable(name: str, function):
    """`function`, whose table, when it stops at "N more rows" (or columns),
    also names what it shows in data attributes: the registry name, its
    options (block, head, which, ...) and the example's letters, so that
    docs/javascripts/nano_gpt.js can compute the whole matrix in the page
    and draw every cell in the same markup (tests/book/test_nanogpt_live.py
    holds the two to the same strings)."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def drawn(run: Run, **options) -> str:
        out = function(run, **options)
        if 'class="nano-more"' not in out:
            return out
        bound = signature.bind(run, **options)
        bound.apply_defaults()
        data = {"nano-full": name, "example": run.text}
        data.update({k: v for k, v in list(bound.arguments.items())[1:] if k not in ("rows", "cols")})
        if data.get("head") == "best":  # the page names the head it follows, the browser computes that one
            data["block"], data["head"] = follow(run, data.get("block"), "best")
        data.update(zip(("rows", "cols"), full_shape(out)))
        attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in data.items())
        return out.replace("<table ", f"<table{attrs}{LETTERS} ", 1) + FULL_LINE
    return drawn


def full_shape(table: str) -> tuple[int, int]:
    """The rows and columns of the whole matrix behind a table of `heat`:
    those shown plus the "N more" ones."""
    lines = table.split("\n")
    head = next(line for line in lines if line.startswith("<thead>"))
    cols = head.count('<th scope="col">')
    rows = sum(1 for line in lines if line.startswith('<tr><th scope="row">') and "colspan=" not in line)
    more_rows = re.search(r">(\d+) more rows<", table)
    more_cols = re.search(r">… (\d+) more<", head)
    if more_cols:
        cols += int(more_cols.group(1)) - 1
    return rows + (int(more_rows.group(1)) if more_rows else 0), cols


# What changes with the input: the outputs registered with live=True are
# marked with what they are (data-nano-live="kind:name") and their options
# (data-nano-args, JSON, every default filled in), so that
# docs/javascripts/nano_gpt.js can draw them again for the reader's letters,
# string for string as here (tests/book/test_nanogpt_switch.py). What
# depends on the weights alone (WEIGHTS_ONLY: the weight matrices, the
# training record) is live too: it changes when the reader follows the
# weights trained on the page Train it yourself (letters.js). Sizes are
# left alone; so are the facts over all 729 inputs, which letters.js marks
# as the book's while the reader's weights are followed (BOOK_WEIGHTS).


# the live outputs that do not depend on the input (nano_gpt.js's WEIGHTS_ONLY)
WEIGHTS_ONLY = {("matrix", "E"), ("matrix", "P"), ("matrix", "W"), ("number", "largest"), ("number", "record"),
                ("table", "training"), ("figure", "loss")}

# what the browser is told besides the options: facts of the task, not of the input
GIVEN = {("number", "untrained_top"): lambda run: {"ignored": ignored_positions(run)}}


def live(kind: str, name: str, function):
    """`function`, its output marked for the browser."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def marked(run: Run, **options) -> str:
        out = function(run, **options)
        bound = signature.bind(run, **options)
        bound.apply_defaults()
        args = dict(list(bound.arguments.items())[1:]) | GIVEN.get((kind, name), lambda run: {})(run)
        if args.get("head") == "best":   # the head the page names; the browser draws that one
            args["block"], args["head"] = follow(run, args.get("block"), "best")
        attrs = (f' data-nano-live="{kind}:{name}" '
                 f'data-nano-args="{html.escape(json.dumps(args, sort_keys=True))}" '
                 f'data-nano-example="{html.escape(run.text)}"')
        if (kind, name) not in WEIGHTS_ONLY:   # it follows the reader's letters: the page gets their box (book.css)
            attrs += " data-nano-input"
        attrs += LETTERS
        if kind == "number":
            return f'<span class="nano-live"{attrs}>{out}</span>'
        return re.sub(r"^<(table|div|figure|p)\b", lambda m: f"<{m.group(1)}{attrs}", out, count=1)
    return marked


# What depends on the weights but the browser does not compute again: facts
# over all 729 inputs, and how the book's weights were made. While the reader's trained
# weights are followed, letters.js marks these as the book's.
BOOK_WEIGHTS = {("number", "smallest_looks"), ("table", "smallest_looks"), ("number", "made")}


def book_weights(kind: str, function):
    """`function`, its output marked as computed from the book's weights only."""
    @functools.wraps(function)
    def marked(run: Run, **options) -> str:
        out = function(run, **options)
        if kind == "number":
            return f'<span data-nano-book-weights{LETTERS}>{out}</span>'
        return re.sub(r"^<(table|figure|p)\b", lambda m: f"<{m.group(1)} data-nano-book-weights{LETTERS}", out, count=1)
    return marked


def registered(kind: str, name: str, function, is_live: bool):
    """What the registry holds for a function: a matrix made openable, a
    live output marked, one of BOOK_WEIGHTS marked so."""
    if kind == "matrix":
        function = openable(name, function)
    if (kind, name) in BOOK_WEIGHTS:
        function = book_weights(kind, function)
    return live(kind, name, function) if is_live else function


nano_gpt = Part("nano_gpt_", ("matrix", "table", "formula", "number", "figure"), wrap=registered)
