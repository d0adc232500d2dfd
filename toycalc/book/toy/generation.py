"""The toy chapter's page Generation (docs/toy/generation.md): the
generate loop and the rules that pick the next token (greedy, sampling
at a temperature, top-k, top-p).

`generate` is the one loop of the chapter: run the model, pick a token by
a rule, append it, until `<eot>` or until every position of P is used.
Sampling draws from numpy's generator with a fixed seed, so a page is the
same at every build. How greedy decoding ends (greedy_ending) is written
for each heads choice from what it does, so it holds under every choice.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model import gpt, inference
from ...model.tokenizer import SPACE_SIGN, show, tokenize
from ..draw import bars_svg, figure
from ..example import Example
from ..render import fixed, html_table, inline_math as im, math_block, plain, short, tex, token_code, token_tex
from .output import TEMPERATURES
from .shared import toy

EOT = "<eot>"
SAMPLE_SEED = 7                     # numpy's default_rng seed for every sampled run
TOP_K = 3
TOP_P = 0.9


@dataclass(frozen=True)
class Rule:
    """How the next token is picked from p."""

    name: str = "greedy"            # greedy or sample
    temperature: float = 1.0
    k: int = 0                      # top-k: keep the k most probable (0: all)
    top_p: float = 1.0              # top-p: keep the fewest tokens whose p reaches top_p
    seed: int = SAMPLE_SEED

    def describe(self) -> str:
        if self.name == "greedy":
            return "greedy (the most probable token)"
        parts = [f"sampling, {im('T = ' + short(self.temperature))}"]
        if self.k:
            parts.append(f"top-k, {im('k = ' + str(self.k))}")
        if self.top_p < 1:
            parts.append(f"top-p, {im('p = ' + short(self.top_p))}")
        return ", ".join(parts) + f" (seed {self.seed})"


def keep(p: np.ndarray, k: int = 0, top_p: float = 1.0) -> np.ndarray:
    """p restricted to top-k and/or top-p over the whole vocabulary, renormalised."""
    order = np.argsort(-p, kind="stable")
    kept = np.zeros(len(p), dtype=bool)
    n = len(p) if not k else min(k, len(p))
    if top_p < 1:
        reach = int(np.searchsorted(np.cumsum(p[order]), top_p) + 1)
        n = min(n, reach)
    kept[order[:n]] = True
    q = np.where(kept, p, 0.0)
    return q / q.sum()


@dataclass(frozen=True)
class Step:
    ids: tuple          # what the model read
    p: np.ndarray       # p at the temperature of the rule, before top-k/top-p
    q: np.ndarray       # what the token was drawn from
    chosen: int


def generate(ex: Example, rule: Rule = Rule(), text: str = "") -> tuple[tuple[int, ...], list[Step], str]:
    """(all ids, one Step per new token, why it stopped)."""
    if (rule, text) not in ex.generations:
        ex.generations[rule, text] = _generate(ex, rule, text)
    return ex.generations[rule, text]


def _generate(ex: Example, rule: Rule, text: str) -> tuple[tuple[int, ...], list[Step], str]:
    model = ex.model
    ids = tokenize(text, model.vocab) if text else list(ex.ids)
    rng = np.random.default_rng(rule.seed)
    drawn_from: list[np.ndarray] = []

    def choose(p: np.ndarray) -> int:
        q = p if rule.name == "greedy" else keep(p, rule.k, rule.top_p)
        drawn_from.append(q)
        return int(np.argmax(p)) if rule.name == "greedy" else int(rng.choice(len(q), p=q))

    stop = tuple(i for i, t in enumerate(model.vocab) if t == EOT)
    # the whole text again at every step, as the chapter tells it (no KV cache)
    out, probs = inference.generate(model.params, model.cfg, ids, inference.room(model.cfg, len(ids)), ex.n_heads,
                              cached=False, temperature=rule.temperature, choose=choose, stop=stop)
    steps = [Step(tuple(out[:len(ids) + n]), p, q, out[len(ids) + n])
             for n, (p, q) in enumerate(zip(probs, drawn_from))]
    why = (f"it wrote {token_code(EOT)}" if steps and out[-1] in stop
           else f"all {model.cfg.n_ctx} positions are full")
    return tuple(out), steps, why


def RULES() -> list[Rule]:
    return ([Rule()] + [Rule("sample", t) for t in TEMPERATURES]
            + [Rule("sample", 1.0, k=TOP_K), Rule("sample", 1.0, top_p=TOP_P)])


def written(ex: Example, ids: list[int], start: int) -> str:
    """The text of ids, the part from `start` on in bold; ␣ shown as a space."""
    head = "".join(ex.model.vocab[i] for i in ids[:start])
    new = "".join(ex.model.vocab[i] for i in ids[start:])
    return f"“{plain(head)}<strong>{plain(new)}</strong>”"


def _slug(text: str) -> str:
    return "-".join("".join(c for c in w if c.isalnum()) for w in show(text).replace(SPACE_SIGN, " ").split())


@toy.table("generation")
def generation_table(ex: Example, text: str = "") -> str:
    """Each rule, and what the toy writes with it."""
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    rows = []
    for rule in RULES():
        ids, steps, why = generate(ex, rule, text)
        rows.append([rule.describe(), written(ex, ids, start),
                     " ".join(token_code(ex.model.vocab[i]) for i in ids[start:]), why])
    suffix = "" if not text else "-" + _slug(text)
    return html_table(f"table-generation{suffix}", ["rule", "what the toy writes", "new tokens",
                                                    "it stops because"], rows, wrap={0, 1, 2, 3})


@toy.table("generation_steps")
def generation_steps_table(ex: Example, text: str = "") -> str:
    """Greedy decoding, one row per new token: the three most probable."""
    ids, steps, why = generate(ex, Rule(), text)
    rows = []
    for n, step in enumerate(steps, 1):
        top = np.argsort(-step.p, kind="stable")[:3]
        rows.append([str(n), str(len(step.ids)), token_code(ex.model.vocab[step.ids[-1]]),
                     ", ".join(f"{token_code(ex.model.vocab[i])} {fixed(step.p[i])}" for i in top),
                     token_code(ex.model.vocab[step.chosen])])
    suffix = "" if not text else "-" + _slug(text)
    return html_table(f"table-generation-steps{suffix}",
                      ["new token", "tokens read", "last one read", "three most probable (p)", "chosen"],
                      rows, wrap={3})


@toy.table("filter")
def filter_table(ex: Example) -> str:
    """The first prediction (at the call's temperature) over the whole
    vocabulary, and what top-k and top-p keep of it, renormalised (blank: cut)."""
    p = ex.p_last
    qk, qp = keep(p, TOP_K), keep(p, top_p=TOP_P)
    order = sorted(range(len(p)), key=lambda i: -p[i])
    cum = np.cumsum(p[order])
    rows = [[token_code(ex.model.vocab[i]), fixed(p[i]), fixed(c),
             fixed(qk[i]) if qk[i] else "", fixed(qp[i]) if qp[i] else ""] for i, c in zip(order, cum)]
    return html_table("table-filter", ["token", im("p"), "running sum",
                                       f"top-k, {im(f'k = {TOP_K}')}", f"top-p, {im(f'p = {short(TOP_P)}')}"],
                      rows)


@toy.figure("filter")
def filter_figure(ex: Example) -> str:
    """The first prediction's p, with the tokens that top-k and top-p cut
    away greyed: what is left is renormalised and drawn from."""
    p = ex.p_last
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    labels = [ex.model.show(i) for i in order]
    values = [float(p[i]) for i in order]
    panels = []
    for name, q, caption in (("top-k", keep(p, TOP_K), f"top-k, {im(f'k = {TOP_K}')}"),
                             ("top-p", keep(p, top_p=TOP_P), f"top-p, {im(f'p = {short(TOP_P)}')}")):
        cut = [k for k, i in enumerate(order) if q[i] == 0]
        panels.append(figure("filter", bars_svg(labels, values, f"p of each next token; the tokens {name} "
                                                "cuts away are grey", top=0, greyed=cut),
                              f"{caption}; grey: cut away", rule=name))
    return f'<div class="fig-row">{"".join(panels)}</div>'


@toy.formula("sample")
def sample_formula(ex: Example) -> str:
    """The first draw of the sampled run at T = 1: the uniform number and
    where it falls in the running sum."""
    rng = np.random.default_rng(SAMPLE_SEED)
    p = ex.p_last
    r = rng.random()
    cum = np.cumsum(p)
    chosen = int(np.searchsorted(cum, r, side="right"))
    lo = cum[chosen - 1] if chosen else 0.0
    t = token_tex(ex.model.vocab[chosen])
    return math_block(f"r = {tex(fixed(r))},\\quad {tex(fixed(lo))} \\le r < {tex(fixed(cum[chosen]))}"
                      f"\\ \\Rightarrow\\ \\text{{{t}}}")


toy.constant("eot", token_code(EOT), "The end-of-text token.")
toy.constant("seed", str(SAMPLE_SEED), "The seed of every sampled run.")
toy.constant("k", str(TOP_K), "k of top-k.")
toy.constant("top_p", short(TOP_P), "p of top-p.")


@toy.number("kept")
def kept_number(ex: Example, by: str = "p") -> str:
    """How many tokens top-k or top-p keeps of the first prediction."""
    p = ex.p_last
    q = keep(p, TOP_K) if by == "k" else keep(p, top_p=TOP_P)
    return str(int((q > 0).sum()))


@toy.number("written")
def written_number(ex: Example, text: str = "", rule: str = "greedy") -> str:
    """What the toy writes from a text with greedy or sampled decoding (at
    the call's temperature)."""
    if rule not in ("greedy", "sample"):
        raise ValueError(f"rule = {rule!r}: expected greedy or sample")
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    ids, _, _ = generate(ex, Rule(rule, ex.temperature), text)
    return written(ex, ids, start)


@toy.number("new_tokens")
def new_tokens(ex: Example, text: str = "") -> str:
    """How many tokens greedy decoding adds to a text."""
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    ids, _, _ = generate(ex, Rule(), text)
    return str(len(ids) - start)


@toy.number("stop")
def stop_number(ex: Example, text: str = "") -> str:
    """Why greedy decoding from a text stops."""
    return generate(ex, Rule(), text)[2]


def came_back(ex: Example, text: str = "") -> tuple[int, int] | None:
    """The first pair of tokens in a row that greedy decoding from `text`
    (default: the sentence) writes a second time, the second token of it
    written by the model; None if none comes back."""
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    ids, _, _ = generate(ex, Rule(), text)
    pairs = list(zip(ids, ids[1:]))
    return next((pairs[j] for j in range(start - 1, len(pairs)) if pairs[j] in pairs[:j]), None)


@toy.number("greedy_ending")
def greedy_ending_number(ex: Example, text: str = "") -> str:
    """How greedy decoding from a text ends, in words, for the run's heads:
    on <eot>, or with every position full, having written a pair of tokens
    a second time or not."""
    ids, steps, _ = generate(ex, Rule(), text)
    heads = f"With {ex.n_heads} head{'s' * (ex.n_heads > 1)}"
    pair = came_back(ex, text)
    again = (f"{token_code(ex.model.vocab[pair[0]])} {token_code(ex.model.vocab[pair[1]])}"
             if pair else "")
    if steps and ex.model.vocab[ids[-1]] == EOT:
        return (f"{heads}, it writes {token_code(EOT)}, the token that ends a text, and the loop "
                f"stops there" + (f", though it had already come back to {again}" if pair else ""))
    if pair:
        # A pair written again is a repeat, not proof of a loop: the rows
        # differ (other positions, more context) and the next choice may too.
        return (f"{heads}, it writes {again} a second time, a pair already in the text, and goes on "
                "until every position is full")
    return f"{heads}, it fills every position without writing any pair of tokens twice"


@toy.number("room")
def room_number(ex: Example, text: str = "") -> str:
    """How many tokens generation can add after a text: n_ctx − T + 1 (inference.room)."""
    T = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    return str(inference.room(ex.model.cfg, T))
