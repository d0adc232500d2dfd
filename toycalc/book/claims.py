"""The claims: what a sentence of the prose says about the weights or the
model's behaviour, checked on every build by the `claim` macro.

A claim returns None when what the prose says holds, else what is true.
The claim macro checks a toy claim (CLAIMS) on the call's heads, or else
on every heads choice, and a nano-gpt claim (NANO_CLAIMS) on nano-gpt's
example run; it stops the build when the claim is false.
"""
from __future__ import annotations

import numpy as np

from ..model.tokenizer import SPACE_SIGN, TokenizerError, tokenize
from ..model import gpt, nanogpt
from .example_checks import check_head, token_id
from .example import Example
from .nano_example import Run
from .nano_gpt.shared import block_trace, check_t, ignored_positions
from .render import fixed, token_text
from .toy.positions import order_number

CLAIMS: dict = {}        # name -> check of the toy's Example, each registered by @claim beside it
NANO_CLAIMS: dict = {}   # name -> check of nano-gpt's Run, each registered by @nano_claim


def claim(name: str, registry: dict = CLAIMS):
    """Register a check as the claim `name`: {{ claim(name, ...) }} on a page."""
    def register(check):
        if name in CLAIMS or name in NANO_CLAIMS:
            raise ValueError(f"claim({name!r}) is registered twice")
        registry[name] = check
        return check
    return register


def nano_claim(name: str):
    """Register a check of nano-gpt's example run as the claim `name`."""
    return claim(name, NANO_CLAIMS)


@claim("identity")
def identity_claim(ex: Example, name: str) -> str | None:
    """The weight matrix `name` (W_Q, W_K, W_V, W_O, ...) is the identity."""
    W = _block_weight(ex, name)
    if W.shape[0] == W.shape[1] and np.array_equal(W, np.eye(W.shape[0])):
        return None
    return f"{name} is not the identity matrix"


@claim("picks_columns")
def picks_columns_claim(ex: Example, name: str) -> str | None:
    """Each column of the weight matrix `name` holds a single one and zeros,
    so multiplying by it only picks columns."""
    W = _block_weight(ex, name)
    for c in range(W.shape[1]):
        rows = np.flatnonzero(W[:, c])
        if len(rows) == 0:
            return f"column {c + 1} of {name} is all zeros"
        if len(rows) > 1:
            return f"column {c + 1} of {name} has {len(rows)} non-zero entries"
        if W[rows[0], c] != 1:
            return f"column {c + 1} of {name} holds {W[rows[0], c]:g}, not a one"
    return None


BLOCKS = {"I": 1, "-I": -1, "0": 0}


@claim("blocks")
def blocks_claim(ex: Example, name: str, layout: str) -> str | None:
    """The weight matrix `name` is made of d x d blocks I, -I or 0, written
    side by side with | and stacked with ;  (layout="I|-I" is [I, -I])."""
    W = _block_weight(ex, name)
    try:
        grid = [[BLOCKS[b.strip()] for b in row.split("|")] for row in layout.split(";")]
    except KeyError as e:
        raise ValueError(f"layout = {layout!r}: block {e.args[0]!r} is none of I, -I, 0 "
                         "(| puts blocks side by side, ; stacks them)") from None
    if len({len(row) for row in grid}) != 1:
        raise ValueError(f"layout = {layout!r}: each row of blocks needs the same number of blocks")
    d = ex.model.cfg.d
    want = np.block([[s * np.eye(d) for s in row] for row in grid])
    if W.shape != want.shape:
        return (f"{name} is {W.shape[0]} x {W.shape[1]}, while {layout} of {d} x {d} blocks "
                f"is {want.shape[0]} x {want.shape[1]}")
    wrong = np.argwhere(W != want)
    if len(wrong):
        r, c = wrong[0]
        return f"row {r + 1}, column {c + 1} of {name} is {W[r, c]:g}, where {layout} has {want[r, c]:g}"
    return None


@claim("default_heads")
def default_heads_claim(ex: Example, n: int) -> str | None:
    """The weights file's default number of heads (its `heads:` line) is n."""
    h = ex.model.heads
    return None if h == n else f"the weights file's default is {h} head{'' if h == 1 else 's'}"


@claim("attends")
def attends_claim(ex: Example, head: int, keys: str) -> str | None:
    """In the last row, head `head` gives more than half of its weight to
    the tokens `keys` (separated by spaces, written with ␣)."""
    check_head(ex, head)
    a = ex.block["weights"][head - 1, -1]
    wanted = [token_id(ex, k) for k in keys.split()]
    share = sum(a[j] for j, i in enumerate(ex.ids) if i in wanted)
    if share > 0.5:
        return None
    top = int(np.argmax(a))
    return (f"with {_heads(ex)}, head {head} gives {fixed(share)} to {keys} "
            f"and its largest weight, {fixed(a[top])}, to {ex.model.show(ex.ids[top])}")


@claim("top_token")
def top_token_claim(ex: Example, token: str) -> str | None:
    """The most probable next token is `token`."""
    top = ex.model.vocab[ex.top_id]
    return None if top == token.replace(SPACE_SIGN, " ") else \
        f"the most probable token with {_heads(ex)} is {token_text(top)}"


@claim("step_lowers_loss")
def step_lowers_loss_claim(ex: Example) -> str | None:
    """The training step on E lowers the sentence's loss (so p of the target rises)."""
    if ex.stepped_loss < ex.loss:
        return None
    return (f"with {_heads(ex)} the step takes the loss from {fixed(ex.loss, 6)} "
            f"to {fixed(ex.stepped_loss, 6)}")


@claim("order_matters")
def order_matters_claim(ex: Example) -> str | None:
    """With P, reversing the earlier tokens of the sentence changes the last
    row's probabilities by enough to show in three places."""
    shown = order_number(ex, with_p=True)
    return None if shown != fixed(0) else \
        f"with {_heads(ex)} and P the two orders' probabilities differ by {shown} at most"


@claim("cuts")
def cuts_claim(ex: Example, text: str, into: str) -> str | None:
    """The tokenizer cuts `text` into the tokens `into` (separated by
    spaces; ␣ stands for a space in both)."""
    try:
        ids = tokenize(text.replace(SPACE_SIGN, " "), ex.model.vocab)
    except TokenizerError as e:
        return f"the tokenizer {str(e).split('. The vocabulary')[0]}"
    got = " ".join(ex.model.show(i) for i in ids)
    return None if got == into else f'the tokenizer cuts "{text}" into {got}'


@claim("cannot_cut")
def cannot_cut_claim(ex: Example, text: str) -> str | None:
    """The tokenizer cannot cut `text`: some piece of it is in no token."""
    try:
        ids = tokenize(text.replace(SPACE_SIGN, " "), ex.model.vocab)
    except TokenizerError:
        return None
    return f'the tokenizer cuts "{text}" into {" ".join(ex.model.show(i) for i in ids)}'


def _heads(ex: Example) -> str:
    return f"{ex.n_heads} head{'s' * (ex.n_heads > 1)}"


def _block_weight(ex: Example, name: str) -> np.ndarray:
    W = ex.model.params.get(f"blocks.0.{name}")
    if W is None:
        raise ValueError(f"name = {name!r}: expected one of W_Q, W_K, W_V, W_O, W_1, W_2")
    return W


@claim("no_prefix")
def no_prefix_claim(ex: Example) -> str | None:
    """No token of the vocabulary is the start of another, so at any place
    of a text at most one token fits and longest match never chooses."""
    vocab = ex.model.vocab
    for a in vocab:
        for b in vocab:
            if a != b and b.startswith(a):
                return f"{token_text(a)} is the start of {token_text(b)}"
    return None


# ---------------------------------------------------------------- nano-gpt's

@nano_claim("writes_sorted")
def writes_sorted_claim(run: Run) -> str | None:
    """Greedy decoding writes the example's letters sorted."""
    want = sorted(run.ids)
    if run.answer == want:
        return None
    return (f"the model writes {nanogpt.letters(run.answer)} for {nanogpt.letters(run.ids)}, "
            f"whose letters sorted are {nanogpt.letters(want)}")


@nano_claim("sorts_all")
def sorts_all_claim(run: Run) -> str | None:
    """Greedy decoding sorts every one of the 729 possible inputs."""
    n = run.sorted_count
    return None if n == len(nanogpt.all_inputs()) else f"greedy decoding sorts {n} of the 729 inputs"


@nano_claim("starts_with_smallest")
def starts_with_smallest_claim(run: Run) -> str | None:
    """After the last input letter, the most probable letter is the
    smallest letter of the input: the one the answer has to start with."""
    p = run.trace["p"][run.T - 1]
    top, smallest = int(np.argmax(p)), min(run.ids)
    if top == smallest:
        return None
    return (f"after {nanogpt.letters(run.ids)} the most probable letter is {nanogpt.VOCAB[top]} "
            f"({fixed(p[top])}), not the smallest, {nanogpt.VOCAB[smallest]}")


def _variance(run: Run, t: int, block: int) -> tuple[float, float]:
    """The variance of the row t entering a block's first LayerNorm, and its σ."""
    i = check_t(run, t)
    b = block_trace(run, block)
    return float(b["X"][i].var()), float(b["sigma"][i])


@nano_claim("variance_too_coarse")
def variance_too_coarse_claim(run: Run, t: int = 4, block: int = 1) -> str | None:
    """The column's variance at the book's three places is too coarse to
    take a square root of: σ from it is wrong even at three places."""
    var, sigma = _variance(run, t, block)
    rough = np.sqrt(float(fixed(var).replace("\u2212", "-")) + gpt.LN_EPS)
    if fixed(rough) != fixed(sigma):
        return None
    return f"σ from the variance at three places, {fixed(var)}, is {fixed(rough)}, as σ itself is"


@nano_claim("epsilon_nudges_sigma")
def epsilon_nudges_sigma_claim(run: Run, t: int = 4, block: int = 1) -> str | None:
    """The row is nearly flat: its variance is so small that ε changes
    σ in the five places the Layer Norm page prints it, and σ is below 1
    (dividing by it blows the row up)."""
    var, sigma = _variance(run, t, block)
    if fixed(np.sqrt(var), 5) != fixed(sigma, 5) and sigma < 1:
        return None
    return f"the row t = {t} has variance {fixed(var, 6)} and σ = {fixed(sigma, 5)}, which ε leaves as it is"


@nano_claim("untrained_as_sure")
def untrained_as_sure_claim(run: Run) -> str | None:
    """The trained columns learned to be sharp (each step of the greedy
    decoding gives its letter more than half), and the columns whose
    targets training ignores are sharp too: each more than half sure of a
    letter. Not "as sure as the least sure step": that margin is no
    property of a sorter (weights trained to 729 of 729 in the page came
    out 0.990 against 0.991), and the book builds on any sorter."""
    trained = min(s["p"][s["next"]] for s in run.steps)
    if trained <= 0.5:
        return f"a step of the greedy decoding gives its letter only {fixed(trained)}"
    t = min(ignored_positions(run), key=lambda t: run.trace["p"][t].max())
    least = run.trace["p"][t].max()
    if least > 0.5:
        return None
    return (f"the row t = {t + 1}, whose target training ignores, is only {fixed(least)} sure of its letter, "
            "not more than half")
