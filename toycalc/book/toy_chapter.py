"""What the toy model's chapter shows, as pure functions of an Example.

The chapter (docs/toy/) walks the path one page per step and ends with
generation. It also calls the worked example's tables (book/end_to_end.py);
this file holds only what that page does not have. Three registries, as in
end_to_end.py: TABLES (HTML with stable ids, and one SVG figure), FORMULAS
(display TeX with the numbers in), NUMBERS (one value or token for the
prose). Positions, heads and generation steps are counted from 1.

`generate` is the one loop of the chapter: run the model, pick a token by
a rule, append it, until `<eot>` or until every position of P is used.
Sampling draws from numpy's generator with a fixed seed, so a page is the
same at every build.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

from ..model import gpt, nanogpt, sizes
from .draw import bars_svg, figure, number_line_svg, paired_bars_svg
from .end_to_end import token_id
from .example import Example
from .render import (MINUS, aligned, count, signed_sum, fixed, html_table, inline_math as im, math_block, short, tex,
                     tex_vector, token_code, token_tex, token_text, vector)
from ..model.configs import GPT2_SMALL
from ..model.tokenizer import SPACE_SIGN, TokenizerError, show, tokenize

EOT = "<eot>"
SAMPLE_SEED = 7                     # numpy's default_rng seed for every sampled run
TEMPERATURES = (0.5, 1.0, 2.0)      # the temperatures the chapter compares
TOP_K = 3
TOP_P = 0.9
SHIFT = 10.0                        # the constant added to every logit on the Output page
GELU_POINTS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)


# ---------------------------------------------------------------- generation

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
    out, probs = gpt.generate(model.params, model.cfg, ids, gpt.room(model.cfg, len(ids)), ex.n_heads,
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
    return f"“{html.escape(head)}<strong>{html.escape(new)}</strong>”"


# ---------------------------------------------------------------- tables

def vocab_table(ex: Example) -> str:
    """The whole vocabulary: each token under its id."""
    vocab = ex.model.vocab
    half = (len(vocab) + 1) // 2   # two pairs of columns, so the table fits the page
    rows = [[str(i), token_code(vocab[i])] + ([str(i + half), token_code(vocab[i + half])]
                                              if i + half < len(vocab) else ["", ""])
            for i in range(half)]
    return html_table("table-vocab", ["id", "token", "id", "token"], rows)


def tokenize_table(ex: Example, text: str = "") -> str:
    """Greedy longest match, one row per token taken: what is left to read,
    every token of the vocabulary that fits there, and the longest."""
    text = text or ex.text
    vocab, at, rows = ex.model.vocab, 0, []
    for i in tokenize(text, vocab):
        fits = sorted((t for t in vocab if text.startswith(t, at)), key=len, reverse=True)
        rows.append([f"<code>{token_text(text[at:])}</code>",
                     ", ".join(token_code(t) for t in fits), token_code(vocab[i]), str(i)])
        at += len(vocab[i])
    return html_table("table-tokenize", ["still to read", "tokens that fit there", "taken", "id"], rows)


def order_table(ex: Example) -> str:
    """The sentence and the same tokens with the earlier ones reversed, run
    with P and with P set to zero: the last row's prediction."""
    rows = []
    for label, ids in (("as written", ex.ids), ("earlier tokens reversed", _reordered(ex.ids))):
        for with_p in (True, False):
            p = _last_p(ex, ids, with_p)
            top = int(np.argmax(p))
            rows.append([label, " ".join(token_code(ex.model.vocab[i]) for i in ids),
                         "with " + im("P") if with_p else "without " + im("P"),
                         token_code(ex.model.vocab[top]), fixed(p[top]), fixed(p[ex.target_id])])
    t = token_text(ex.model.vocab[ex.target_id])
    return html_table("table-order", ["order", "tokens", "positions", "prediction", "its p", f"p({t})"],
                      rows, wrap={0, 1})


def ln_rows_table(ex: Example) -> str:
    """Each row's mean and standard deviation before and after LayerNorm."""
    b = ex.block
    rows = [[token_code(t), fixed(mu), fixed(s), fixed(u.mean()), fixed(u.std())]
            for t, mu, s, u in zip(ex.tokens, b["mu"], b["sigma"], b["u"])]
    return html_table("table-ln-rows", ["token", im("\\mu"), im("\\sigma"),
                                        "mean of " + im("u_t"), "std of " + im("u_t")], rows)


def scores_table(ex: Example, head: int = 0) -> str:
    """A head's scaled scores, −∞ where the causal mask hides a later key."""
    if head == 0:
        return "\n".join(scores_table(ex, h) for h in range(1, ex.n_heads + 1))
    _check_head(ex, head)
    s = ex.block["scores"][head - 1]
    rows = [[token_code(q)] + [fixed(s[i, j]) if j <= i else MINUS + "∞" for j in range(len(ex.ids))]
            for i, q in enumerate(ex.tokens)]
    return html_table(f"table-scores-{head}", [f"head {head}"] + [token_code(k) for k in ex.tokens],
                      rows, caption=f"Head {head}: the scores {im('s_{t,j}')} after the mask")


def gelu_table(ex: Example) -> str:
    """GELU and ReLU side by side at a few points."""
    rows = [[fixed(x), fixed(gpt.gelu(x)), fixed(max(x, 0.0))] for x in GELU_POINTS]
    return html_table("table-gelu", [im("x"), im("\\mathrm{GELU}(x)"), im("\\max(x, 0)")], rows)


def gelu_curve(ex: Example) -> str:
    """GELU drawn as an SVG polyline through computed points, with the
    last row's eight inputs u'W_1 marked on it."""
    W, H, lo, hi, ylo, yhi = 320, 200, -4.0, 4.0, -1.0, 4.0
    sx = lambda x: 20 + (x - lo) / (hi - lo) * (W - 40)       # noqa: E731
    sy = lambda y: H - 20 - (y - ylo) / (yhi - ylo) * (H - 40)  # noqa: E731
    xs = np.linspace(lo, hi, 161)
    curve = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, gpt.gelu(xs)))
    pre = ex.block["mlp_pre"][-1]
    dots = "".join(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5"/>'
                   for x, y in zip(pre, gpt.gelu(pre)))
    ticks = "".join(f'<text x="{sx(x):.1f}" y="{H - 4}" text-anchor="middle">{short(x)}</text>'
                    for x in (-4, -2, 0, 2, 4))
    ticks += "".join(f'<text x="{sx(0) - 4:.1f}" y="{sy(y) + 4:.1f}" text-anchor="end">{short(y)}</text>'
                     for y in (2, 4))
    label = (f"The GELU curve from {short(lo)} to {short(hi)}, drawn through {len(xs)} computed "
             f"points; the dots are the {len(pre)} values of the last row before GELU.")
    return (f'<figure id="figure-gelu" class="gelu-curve">'
            f'<svg viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{label}" '
            f'font-size="11" fill="currentColor">'
            f'<line x1="20" y1="{sy(0):.1f}" x2="{W - 20}" y2="{sy(0):.1f}" stroke="currentColor" stroke-opacity="0.4"/>'
            f'<line x1="{sx(0):.1f}" y1="20" x2="{sx(0):.1f}" y2="{H - 20}" stroke="currentColor" stroke-opacity="0.4"/>'
            f'{ticks}<polyline points="{curve}" fill="none" stroke="currentColor" stroke-width="2"/>'
            f'<g fill="var(--md-accent-fg-color, #526cfe)">{dots}</g></svg>'
            f"<figcaption>{label}</figcaption></figure>")


def residual_table(ex: Example) -> str:
    """The two residual sums of the block, row by row."""
    b = ex.block
    rows = [[token_code(t), vector(x), vector(a), vector(h), vector(m), vector(y)]
            for t, x, a, h, m, y in zip(ex.tokens, b["X"], b["attn"], b["h"], b["m"], b["y"])]
    return html_table("table-residual", ["token", im("x_t"), im("a_t W_O"), im("h_t = x_t + a_t W_O"),
                                         im("m_t"), im("y_t = h_t + m_t")], rows, wrap={1, 2, 3, 4, 5})


def shift_table(ex: Example) -> str:
    """Every logit with and without a constant added: the same p."""
    z, p = ex.trace["z"][-1], ex.p_last
    p2 = gpt.softmax(z + SHIFT)
    order = sorted(range(len(p)), key=lambda i: -p[i])
    c = short(SHIFT)
    rows = [[token_code(ex.model.vocab[i]), fixed(z[i]), fixed(p[i]), fixed(z[i] + SHIFT), fixed(p2[i])]
            for i in order]
    return html_table("table-shift", ["token", im("z"), im("p"), im(f"z + {c}"),
                                      im(f"\\mathrm{{softmax}}(z + {c})")], rows)


def temperatures_table(ex: Example) -> str:
    """p of every token at each temperature, tokens in the order of their logits."""
    z = ex.trace["logits"][-1]
    order = sorted(range(len(z)), key=lambda i: -z[i])
    ps = {T: gpt.softmax(z / T) for T in TEMPERATURES}
    rows = [[token_code(ex.model.vocab[i]), fixed(z[i])] + [fixed(ps[T][i]) for T in TEMPERATURES]
            for i in order]
    return html_table("table-temperatures", ["token", "logit"] +
                      [im(f"p,\\ T = {short(T)}") for T in TEMPERATURES], rows)


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


def models_table(ex: Example) -> str:
    """The book's models side by side, every size counted from its config."""
    cfgs = {"the toy": ex.model.cfg, "nano-gpt": nanogpt.CONFIG, "GPT-2 small": GPT2_SMALL}
    heads = {"the toy": ex.model.heads, "nano-gpt": nanogpt.CONFIG.n_heads, "GPT-2 small": GPT2_SMALL.n_heads}
    lines = [("tokens in the vocabulary", lambda c, h: count(c.vocab_size)),
             ("width of a row", lambda c, h: count(c.d)),
             ("positions", lambda c, h: count(c.n_ctx)),
             ("blocks", lambda c, h: str(c.n_blocks)),
             ("heads", lambda c, h: str(h)),
             ("MLP width", lambda c, h: count(c.mlp_width)),
             ("biases, LayerNorm weights", lambda c, h: "yes" if c.bias or c.ln_weights else "no"),
             ("parameters", lambda c, h: count(sizes.count_params(c)["total"]))]
    rows = [[what] + [f(cfgs[m], heads[m]) for m in cfgs] for what, f in lines]
    rows.append(["its weights", "picked by hand", "trained by this book's code", "not used here"])
    return html_table("table-models", [""] + list(cfgs), rows)


# ---------------------------------------------------------------- formulas

def shift_formula(ex: Example) -> str:
    """The top token's p written with the constant added, and cancelled."""
    i, z = ex.top_id, ex.trace["z"][-1]
    c, t = short(SHIFT), token_tex(ex.model.vocab[ex.top_id])
    return math_block(f"p(\\text{{{t}}}) = \\frac{{e^{{{tex(fixed(z[i]))} + {c}}}}}"
                      f"{{\\sum_j e^{{z_j + {c}}}}} = \\frac{{e^{{{c}}}\\, e^{{{tex(fixed(z[i]))}}}}}"
                      f"{{e^{{{c}}} \\sum_j e^{{z_j}}}} = {tex(fixed(ex.p_last[i]))}")


def column_formula(ex: Example) -> str:
    """One cell of Q as a dot product of the last row of u with a column of W_Q."""
    u, W = ex.block["u"][-1], ex.model.params["blocks.0.W_Q"]
    t = len(ex.ids)
    terms = signed_sum([(a, f"{tex(fixed(abs(a)))} \\cdot {tex(short(w))}") for a, w in zip(u, W[:, 0])])
    return math_block(f"Q_{{{t},1}} = u_{t} \\cdot W_Q^{{(1)}} = {terms} = {tex(fixed(ex.block['Q'][-1, 0]))}")


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


# ---------------------------------------------------------------- numbers

def eps_number(ex: Example) -> str:
    """LayerNorm's epsilon, as inline TeX."""
    return im(f"10^{{{round(math.log10(gpt.LN_EPS))}}}")


def ln_mean(ex: Example) -> str:
    """The mean of each row of u, when every row rounds alike (else the list)."""
    means = {fixed(m) for m in ex.block["u"].mean(axis=1)}
    return means.pop() if len(means) == 1 else vector(ex.block["u"].mean(axis=1))


def ln_std(ex: Example) -> str:
    """The standard deviation of each row of u, when every row rounds alike."""
    stds = {fixed(s) for s in ex.block["u"].std(axis=1)}
    return stds.pop() if len(stds) == 1 else vector(ex.block["u"].std(axis=1))


def sqrt_d_head(ex: Example) -> str:
    """The square root of the width of a head: the scores' divisor."""
    return fixed(math.sqrt(ex.model.cfg.d // ex.n_heads))


def pieces_number(ex: Example, word: str = "climbed") -> str:
    """How the tokenizer cuts a word (read with its leading space)."""
    ids = tokenize(" " + word, ex.model.vocab)
    return " + ".join(token_text(ex.model.vocab[i]) for i in ids)


def unknown_number(ex: Example, text: str = "the cat climbed the moon") -> str:
    """The tokenizer's complaint about a text it cannot cut."""
    try:
        tokenize(text, ex.model.vocab)
    except TokenizerError as e:
        return html.escape(str(e).split(". The vocabulary")[0])
    return "(it cuts it without complaint)"


def typed_row(ex: Example, token: str = "") -> str:
    """One row of E as typed (default: the sentence's second token)."""
    i = ex.model.vocab.index(token.replace(SPACE_SIGN, " ")) if token else ex.ids[min(1, len(ex.ids) - 1)]
    return f"{token_text(ex.model.vocab[i])}: {vector(ex.model.params['E'][i], short)}"


def vocab_size(ex: Example) -> str:
    """V, the number of tokens."""
    return str(ex.model.cfg.vocab_size)


def longest_number(ex: Example) -> str:
    """The longest tokens of the vocabulary (all of them, if several) and their length."""
    n = max(map(len, ex.model.vocab))
    longest = [token_text(t) for t in ex.model.vocab if len(t) == n]
    names = longest[0] if len(longest) == 1 else ", ".join(longest[:-1]) + " and " + longest[-1]
    return f"{names} ({n} characters{' each' if len(longest) > 1 else ''})"


def order_number(ex: Example, with_p: bool = False) -> str:
    """The largest difference between the last row's p for the two orders."""
    a, b = _last_p(ex, ex.ids, with_p), _last_p(ex, _reordered(ex.ids), with_p)
    return fixed(np.abs(a - b).max())


def gelu_number(ex: Example, x: float = -1.0) -> str:
    """GELU at one point."""
    return fixed(gpt.gelu(float(x)))


def gelu_min(ex: Example) -> str:
    """Where GELU is lowest, and its value there, as inline TeX."""
    xs = np.linspace(-3.0, 0.0, 30001)
    ys = gpt.gelu(xs)
    i = int(np.argmin(ys))
    return im(f"\\mathrm{{GELU}}({tex(fixed(xs[i], 2))}) = {tex(fixed(ys[i]))}")


def shift_number(ex: Example) -> str:
    """The constant the Output page adds to every logit."""
    return short(SHIFT)


def shift_diff(ex: Example) -> str:
    """The largest change in p when SHIFT is added to every logit, in TeX."""
    d = np.abs(gpt.softmax(ex.trace["z"][-1] + SHIFT) - ex.p_last).max()
    if d == 0:
        return "0"
    return im(f"{d:.0e}".replace("e-", "\\times 10^{-").replace("e+", "\\times 10^{") + "}")


def temperatures_number(ex: Example) -> str:
    """The temperatures the chapter compares, as a list in words."""
    ts = [short(t) for t in TEMPERATURES]
    return ", ".join(ts[:-1]) + " and " + ts[-1]


def top_at(ex: Example) -> str:
    """The most probable token and its p, at the call's temperature."""
    p = ex.p_last
    return f"{token_text(ex.model.vocab[int(np.argmax(p))])} ({fixed(p.max())})"


def same_order(ex: Example) -> str:
    """'the same' if every temperature sorts the vocabulary alike, else 'a different'."""
    z = ex.trace["logits"][-1]
    orders = {tuple(np.argsort(-gpt.softmax(z / T), kind="stable")) for T in TEMPERATURES}
    return "the same" if len(orders) == 1 else "a different"


def seed_number(ex: Example) -> str:
    """The seed of every sampled run."""
    return str(SAMPLE_SEED)


def k_number(ex: Example) -> str:
    """k of top-k."""
    return str(TOP_K)


def top_p_number(ex: Example) -> str:
    """p of top-p."""
    return short(TOP_P)


def kept_number(ex: Example, by: str = "p") -> str:
    """How many tokens top-k or top-p keeps of the first prediction."""
    p = ex.p_last
    q = keep(p, TOP_K) if by == "k" else keep(p, top_p=TOP_P)
    return str(int((q > 0).sum()))


def written_number(ex: Example, text: str = "", rule: str = "greedy") -> str:
    """What the toy writes from a text with greedy or sampled decoding (at
    the call's temperature)."""
    if rule not in ("greedy", "sample"):
        raise ValueError(f"rule = {rule!r}: expected greedy or sample")
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    ids, _, _ = generate(ex, Rule(rule, ex.temperature), text)
    return written(ex, ids, start)


def new_tokens(ex: Example, text: str = "") -> str:
    """How many tokens greedy decoding adds to a text."""
    start = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    ids, _, _ = generate(ex, Rule(), text)
    return str(len(ids) - start)


def eot_number(ex: Example) -> str:
    """The end-of-text token."""
    return token_code(EOT)


def stop_number(ex: Example, text: str = "") -> str:
    """Why greedy decoding from a text stops."""
    return generate(ex, Rule(), text)[2]


def room_number(ex: Example, text: str = "") -> str:
    """How many tokens generation can add after a text: n_ctx − T + 1 (gpt.room)."""
    T = len(tokenize(text, ex.model.vocab)) if text else len(ex.ids)
    return str(gpt.room(ex.model.cfg, T))


def model_count(ex: Example, model: str = "toy") -> str:
    """All the parameters of a model: toy, nano or gpt2."""
    cfg = {"toy": ex.model.cfg, "nano": nanogpt.CONFIG, "gpt2": GPT2_SMALL}
    if model not in cfg:
        raise ValueError(f"model = {model!r}: expected one of {', '.join(cfg)}")
    return count(sizes.count_params(cfg[model])["total"])


# ---------------------------------------------------------------- helpers

def _reordered(ids: list[int]) -> list[int]:
    """The earlier tokens reversed, the last one kept last."""
    return list(ids[:-1])[::-1] + [ids[-1]]


def _last_p(ex: Example, ids, with_p: bool) -> np.ndarray:
    params = ex.model.params if with_p else dict(ex.model.params, P=np.zeros_like(ex.model.params["P"]))
    return gpt.forward(params, ex.model.cfg, list(ids), ex.n_heads, ex.temperature)["p"][-1]


FD_STEP = 1e-4   # the finite-difference step h of the gradient check


def gradient_formula(ex: Example, other: str = "␣wall") -> str:
    """The backward pass's first step: dL/dz = p − onehot(target) for the
    target and one other token, then dL/df_t = (dL/dz) W_Uᵀ for the last row."""
    i, j, t = ex.target_id, token_id(ex, other), len(ex.ids)
    p = ex.p_last
    dz = p - np.eye(len(p))[i]
    df = (dz / ex.temperature) @ ex.model.params["W_U"].T
    name = lambda k: f"\\text{{{token_tex(ex.model.vocab[k])}}}"
    return aligned([
        ("\\frac{\\partial L}{\\partial z_i}", "p_i - [\\, i = \\text{target} \\,]"),
        (f"\\frac{{\\partial L}}{{\\partial z_{{{name(i)}}}}}", f"{tex(fixed(p[i]))} - 1 = {tex(fixed(dz[i]))}"),
        (f"\\frac{{\\partial L}}{{\\partial z_{{{name(j)}}}}}", f"{tex(fixed(p[j]))} - 0 = {tex(fixed(dz[j]))}"),
        (f"\\frac{{\\partial L}}{{\\partial f_{t}}}",
         f"\\sum_i \\frac{{\\partial L}}{{\\partial z_i}}\\, W_U^{{(i)}} = {tex_vector(df)}")])


def chain_E_formula(ex: Example) -> str:
    """The chain rule's last link for the last token: x_t = E[id] + P_t, so
    dL/dE[id] is dL/dx_t (summed over the positions where the token stands)."""
    i = ex.ids[-1]
    where = [k for k, j in enumerate(ex.ids) if j == i]
    dx = ex.grads["P"]   # P_t enters x_t alone, so dL/dP_t = dL/dx_t
    total = " + ".join(f"\\frac{{\\partial L}}{{\\partial x_{k + 1}}}" for k in where)
    return aligned([(f"\\frac{{\\partial L}}{{\\partial E[{i}]}}", total),
                    ("", tex_vector(sum(dx[k] for k in where)))])


def _loss_with(ex: Example, E) -> float:
    tr = gpt.forward(dict(ex.model.params, E=E), ex.model.cfg, ex.ids, ex.n_heads, ex.temperature)
    return gpt.cross_entropy(tr["p"], ex.targets)


def finite_difference(ex: Example, row: int, column: int) -> tuple[float, float, float]:
    """(L with E[row, column] + h, L with it − h, their central difference)."""
    E = ex.model.params["E"].astype(float)
    up, down = E.copy(), E.copy()
    up[row, column] += FD_STEP
    down[row, column] -= FD_STEP
    Lu, Ld = _loss_with(ex, up), _loss_with(ex, down)
    return Lu, Ld, (Lu - Ld) / (2 * FD_STEP)


def finite_difference_formula(ex: Example, places: int = 6) -> str:
    """The check of one entry of dL/dE, the largest of the last token's row:
    the central difference with step h beside the backward pass's value,
    both to `places` places (more than the book's three, to show them agree)."""
    i = ex.ids[-1]
    c = int(np.argmax(np.abs(ex.grads["E"][i])))
    Lu, Ld, numeric = finite_difference(ex, i, c)
    h = f"{FD_STEP:.0e}".replace("e-0", "e-")
    mant, exp = h.split("e")
    h_tex = f"10^{{{int(exp)}}}" if mant == "1" else f"{mant} \\cdot 10^{{{int(exp)}}}"
    entry = f"E_{{{i},{c + 1}}}"
    return aligned([
        (f"\\frac{{L({entry} + h) - L({entry} - h)}}{{2h}}",
         f"\\frac{{{tex(fixed(Lu, places + 2))} - {tex(fixed(Ld, places + 2))}}}{{2 \\cdot {h_tex}}}"
         f" = {tex(fixed(numeric, places))}"),
        (f"\\frac{{\\partial L}}{{\\partial {entry}}}\\ \\text{{(backward pass)}}",
         tex(fixed(ex.grads["E"][i, c], places)))])


def W_U_table(ex: Example) -> str:
    """W_U printed by its columns: one row per token, the column of W_U
    that gives that token's logit, in the E table's layout."""
    W = ex.model.params["W_U"]
    rows = [[str(i), token_code(t)] + [short(v) for v in W[:, i]] for i, t in enumerate(ex.model.vocab)]
    return html_table("table-W-U", ["id", "token"] + [im(f"c_{{{c + 1}}}") for c in range(ex.model.cfg.d)],
                      rows)


def _contrast(ex: Example, a: str, b: str):
    ia, ib = token_id(ex, a), token_id(ex, b)
    f, W = ex.trace["f"][-1], ex.model.params["W_U"]
    return ia, ib, f, W, f * (W[:, ia] - W[:, ib])


def contrast_table(ex: Example, a: str = "", b: str = "␣cat") -> str:
    """Why one token's logit beats another's, column by column of f:
    f_c, the two columns of W_U, and f_c times their difference; the terms
    add up to z_a − z_b. a defaults to the sentence's target."""
    a = a or ex.model.vocab[ex.target_id]
    ia, ib, f, W, terms = _contrast(ex, a, b)
    ta, tb = token_text(ex.model.vocab[ia]), token_text(ex.model.vocab[ib])
    rows = [[im(f"c_{{{c + 1}}}"), fixed(f[c]), short(W[c, ia]), short(W[c, ib]), fixed(terms[c])]
            for c in range(len(f))]
    rows.append(["sum", "", "", "", fixed(ex.trace["z"][-1, ia] * ex.temperature
                                          - ex.trace["z"][-1, ib] * ex.temperature)])
    return html_table("table-contrast", ["column", im("f_c"), f"{im('W_U')} of {ta}", f"{im('W_U')} of {tb}",
                                         "difference × " + im("f_c")], rows)


def contrast_number(ex: Example, a: str = "", b: str = "␣cat", carrier: str = "␣climb") -> str:
    """Which column of f decides between two tokens' logits, as sentences:
    where their columns of W_U differ, the token whose row of E is largest
    in the deciding column (carrier) and the head that writes there; then
    where b's own row of E is largest, and whether W_U tells a from b there."""
    a = a or ex.model.vocab[ex.target_id]
    ia, ib, f, W, terms = _contrast(ex, a, b)
    ta, tb, tc = (token_text(ex.model.vocab[i]) for i in (ia, ib, token_id(ex, carrier)))
    differ = [c for c in range(len(f)) if W[c, ia] != W[c, ib]]
    k = int(np.argmax(np.abs(terms)))
    total = fixed(terms.sum())
    if len(differ) == 1:
        out = (f"The columns of {im('W_U')} for {ta} and {tb} differ only in entry {k + 1}, so the "
               f"difference of their logits, {total}, is that entry's term alone.")
    else:
        out = f"Of the difference of their logits, {total}, the largest term is column {k + 1}'s, {fixed(terms[k])}."
    E = ex.model.params["E"]
    ic = token_id(ex, carrier)
    head = k // (ex.model.cfg.d // ex.n_heads) + 1
    weight = sum(ex.block["weights"][head - 1, -1, j] for j, i in enumerate(ex.ids) if i == ic)
    winner = ta if terms.sum() > 0 else tb
    out += (f" Column {k + 1} of the residual stream is where {tc}'s row of {im('E')}, {vector(E[ic], short)}, is largest, and "
            f"where head {head} writes, a head that gives {fixed(weight)} of its weight to {tc}. "
            f"Here {im(f'f_{k + 1}')} = {fixed(f[k])}, so {winner} wins this contest.")
    kb = int(np.argmax(E[ib]))
    same = W[kb, ia] == W[kb, ib]
    out += (f" {tb}'s own row of {im('E')} is largest in column {kb + 1}, where the two columns of "
            f"{im('W_U')} " + ("agree: what the block carries about the cat there does not choose "
                               "between the two" if same else "differ too"))
    return out


def ablated_p(ex: Example, head: int | None) -> np.ndarray:
    """The last row's p with one head switched off: its output, before W_O,
    set to zero (the same as zeroing its rows of W_O). head=None: none off."""
    params = dict(ex.model.params)
    if head is not None:
        _check_head(ex, head)
        w = ex.model.cfg.d // ex.n_heads
        W_O = params["blocks.0.W_O"].copy()
        W_O[(head - 1) * w:head * w] = 0
        params["blocks.0.W_O"] = W_O
    return gpt.forward(params, ex.model.cfg, ex.ids, ex.n_heads, ex.temperature)["p"][-1]


def ablation_table(ex: Example) -> str:
    """Each head switched off in turn (its output before W_O set to zero):
    what the model then predicts, and p of the sentence's target."""
    t = token_text(ex.model.vocab[ex.target_id])
    rows = []
    for head in [None] + list(range(1, ex.n_heads + 1)):
        p = ablated_p(ex, head)
        top = int(np.argmax(p))
        rows.append(["none" if head is None else f"head {head}", token_code(ex.model.vocab[top]),
                     fixed(p[top]), fixed(p[ex.target_id])])
    return html_table("table-ablation", ["head switched off", "prediction", "its p", f"p({t})"], rows)


def ablation_number(ex: Example) -> str:
    """What switching off each head does to the prediction, as a sentence."""
    base = int(np.argmax(ablated_p(ex, None)))
    parts = []
    for head in range(1, ex.n_heads + 1):
        p = ablated_p(ex, head)
        top = int(np.argmax(p))
        word = token_text(ex.model.vocab[top])
        parts.append(f"without head {head} it {'still predicts' if top == base else 'predicts'} "
                     f"{word} ({fixed(p[top])})")
    if ex.n_heads == 1:
        return f"With its only head switched off, the model {parts[0][len('without head 1 it '):]}"
    return "Switched off one at a time: " + ", ".join(parts[:-1]) + " and " + parts[-1]


def ablation_reading_number(ex: Example) -> str:
    """What the head ablation says about the heads' division of work, as
    sentences: which heads the prediction needs, and where a head that it
    does not need looks hardest."""
    base = int(np.argmax(ablated_p(ex, None)))
    tops = {h: ablated_p(ex, h) for h in range(1, ex.n_heads + 1)}
    needed = [h for h, p in tops.items() if int(np.argmax(p)) != base]
    spare = [h for h in tops if h not in needed]
    word = token_text(ex.model.vocab[base])
    if not spare:
        return f"Every head is needed here: without any one of them the model stops predicting {word}"
    if not needed:
        return f"No single head decides: without any one of them the model still predicts {word}"
    h, k = needed[0], spare[0]
    looks = ex.tokens[int(np.argmax(ex.block["weights"][k - 1, -1]))]
    return (f"Head {h} carries the prediction: without it the model predicts "
            f"{token_text(ex.model.vocab[int(np.argmax(tops[h]))])} instead of {word}. Head {k} "
            f"looks hardest at {token_text(looks)}, yet without it {word} still wins, at "
            f"{fixed(tops[k][base])} instead of {fixed(ablated_p(ex, None)[base])}. So the heads do "
            f"not share the work equally: one is needed for {word}, the other only changes how "
            f"sure the model is, and a name taken from where a head looks (a subject head, say) "
            f"would not tell what the prediction needs from it")


def _check_head(ex: Example, head: int) -> None:
    if not 1 <= head <= ex.n_heads:
        raise ValueError(f"head = {head}: this run has heads 1 to {ex.n_heads}")


def _slug(text: str) -> str:
    return "-".join("".join(c for c in w if c.isalnum()) for w in show(text).replace(SPACE_SIGN, " ").split())


TABLES = {
    "vocab": vocab_table, "tokenize": tokenize_table, "order": order_table, "ln_rows": ln_rows_table,
    "scores": scores_table, "gelu": gelu_table, "gelu_curve": gelu_curve, "residual": residual_table,
    "shift": shift_table, "temperatures": temperatures_table, "generation": generation_table,
    "generation_steps": generation_steps_table, "filter": filter_table, "models": models_table,
    "ablation": ablation_table, "W_U": W_U_table, "contrast": contrast_table,
}


def ln_h_formula(ex: Example) -> str:
    """The second LayerNorm on the last row of h, where the mean is not zero: μ, h − μ, σ, u'."""
    b, t = ex.block, len(ex.ids)
    h = b["h"][-1]
    return aligned([(f"h_{t}", tex_vector(h)), ("\\mu", tex(fixed(b["mu2"][-1]))),
                    (f"h_{t} - \\mu", tex_vector(h - b["mu2"][-1])),
                    ("\\sigma", tex(fixed(b["sigma2"][-1]))),
                    (f"u'_{t} = (h_{t} - \\mu) / \\sigma", tex_vector(b["u2"][-1]))])


FORMULAS = {"shift": shift_formula, "column": column_formula, "sample": sample_formula,
            "ln_h": ln_h_formula, "gradient": gradient_formula, "chain_E": chain_E_formula,
            "finite_difference": finite_difference_formula}


def x_centred_number(ex: Example) -> str:
    """Whether the rows of X already have mean zero (every row of E and of P
    summing to zero), as a sentence; else their means."""
    E, P, X = ex.model.params["E"], ex.model.params["P"], ex.trace["X"]
    if np.allclose(E.sum(axis=1), 0, atol=1e-12) and np.allclose(P.sum(axis=1), 0, atol=1e-12):
        return (f"In the toy the rows of {im('X')} already have mean zero, because every row of "
                f"{im('E')} and every row of {im('P')} sums to zero: on {im('X')}, LayerNorm only divides")
    return f"The rows of {im('X')} have the means {vector(X.mean(axis=1))}, and LayerNorm subtracts them"


def P_repeats_number(ex: Example) -> str:
    """Which rows of P repeat an earlier row (positions count from 1), in
    words, e.g. "rows 6 to 8 repeat rows 2 to 4"; "no row" when none does."""
    P = ex.model.params["P"]
    pairs = [(t, next(s for s in range(t) if np.array_equal(P[s], P[t])))
             for t in range(len(P)) if any(np.array_equal(P[s], P[t]) for s in range(t))]
    if not pairs:
        return "no row repeats an earlier one"
    later, earlier = [t + 1 for t, _ in pairs], [s + 1 for _, s in pairs]

    def span(xs):
        if len(xs) == 1:
            return f"row {xs[0]}"
        if xs == list(range(xs[0], xs[-1] + 1)):
            return f"rows {xs[0]} to {xs[-1]}"
        return "rows " + ", ".join(map(str, xs[:-1])) + f" and {xs[-1]}"
    verb = "repeats" if len(later) == 1 else "repeat"
    return f"{span(later)} {verb} {span(earlier)}"


NUMBERS = {
    "eps": eps_number, "ln_mean": ln_mean, "ln_std": ln_std, "sqrt_d_head": sqrt_d_head, "pieces": pieces_number, "unknown": unknown_number,
    "vocab_size": vocab_size, "typed_row": typed_row, "longest": longest_number, "order": order_number, "gelu": gelu_number, "gelu_min": gelu_min,
    "shift": shift_number, "shift_diff": shift_diff, "temperatures": temperatures_number,
    "top_at": top_at, "same_order": same_order, "seed": seed_number, "k": k_number,
    "top_p": top_p_number, "kept": kept_number, "written": written_number, "new_tokens": new_tokens,
    "room": room_number, "P_repeats": P_repeats_number, "ablation": ablation_number, "ablation_reading": ablation_reading_number, "contrast": contrast_number, "x_centred": x_centred_number, "eot": eot_number, "stop": stop_number, "model_count": model_count,
}


# ---------------------------------------------------------------- figures

def temperatures_figure(ex: Example) -> str:
    """Small multiples: the next token's p at each temperature, tokens in
    the order of their logits (the same order in every panel)."""
    z = ex.trace["logits"][-1]
    order = sorted(range(len(z)), key=lambda i: (-z[i], i))
    labels = [ex.model.show(i) for i in order]
    panels = []
    for T in TEMPERATURES:
        p = gpt.softmax(z / T)
        panels.append(figure("temperatures", bars_svg(labels, [float(p[i]) for i in order],
                                                      f"p of each next token at temperature {short(T)}", top=0),
                             f"{im('T = ' + short(T))}", temperature=short(T)))
    return f'<div class="fig-row">{"".join(panels)}</div>'


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
                                                "cuts away are grey", top=0, greyed=cut), caption, rule=name))
    return f'<div class="fig-row">{"".join(panels)}</div>'


PRIME = "u^\\prime_{t}"


def layernorm_figure(ex: Example, t: int = 0) -> str:
    """One row before and after LayerNorm on a number line: h_t, whose mean
    is not zero, and u'_t = LN(h_t), centred on 0 and scaled (default t:
    the last position). h comes after attention: drawn with the weights
    file's own heads, whatever the reader chose, since this page comes
    before heads are met."""
    ex = ex.with_heads(ex.model.heads)
    t = t or len(ex.ids)
    if not 1 <= t <= len(ex.ids):
        raise ValueError(f"t = {t}: the sentence has positions 1 to {len(ex.ids)}")
    b = ex.block
    h, u2 = b["h"][t - 1], b["u2"][t - 1]
    return figure("layernorm", number_line_svg(
        [(f"h_{t}", h.tolist()), (f"u′_{t}", u2.tolist())],
        [(0, "μ", float(b["mu2"][t - 1])), (1, "mean", float(u2.mean()))],
        f"The {len(h)} numbers of h_{t} and of u′_{t} = LN(h_{t}) on a number line, with their means"),
        f"{im(f'h_{t}')} and {im(PRIME.format(t=t))} = LN({im(f'h_{t}')}): centred on its mean, "
        f"scaled by its spread (with {ex.n_heads} head{'s' * (ex.n_heads > 1)})")


def order_figure(ex: Example) -> str:
    """The last row's p with and without P, for the sentence as written and
    with the earlier tokens reversed: the tokens most probable in any run."""
    runs = {name: (_last_p(ex, ids, True), _last_p(ex, ids, False))
            for name, ids in (("as written", ex.ids), ("earlier tokens reversed", _reordered(ex.ids)))}
    shown = sorted({int(i) for pair in runs.values() for p in pair for i in np.argsort(-p, kind="stable")[:3]})
    labels = [ex.model.show(i) for i in shown]
    panels = [figure("order", paired_bars_svg(labels, [float(with_p[i]) for i in shown],
                                              [float(without[i]) for i in shown], ("with P", "without P"),
                                              f"p of the likeliest next tokens, {name}, with and without P"),
                     name, order=name)
              for name, (with_p, without) in runs.items()]
    return f'<div class="fig-row">{"".join(panels)}</div>'


FIGURES = {"temperatures": temperatures_figure, "filter": filter_figure, "layernorm": layernorm_figure,
           "order": order_figure}
