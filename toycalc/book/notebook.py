"""A notebook per chapter page: the page's code (the regions its `code`
calls show, book/source.py) as a Jupyter notebook (nbformat 4) that a
reader runs, and CI executes (tests/site/test_notebooks.py).

Its cells: what it is and how it installs; the installation, toycalc's
wheel from the site's own address (its dependencies, numpy, PyYAML and
safetensors, are the wheel's Requires-Dist, not the build's packages:
Colab has them, pip fetches what another Jupyter lacks); the set-up of the page's chapter (the weights the package
ships, the book's example); then, for each region the page shows, its
code as the file has it and a call that prints the page's numbers at the
book's precision (three places, a true minus: render.fixed).

A region's call may need names the code around it defines (a region in
the middle of `forward` reads `trace`, `params`, `x`): `before` sets them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from .source import Region
from .writer.live import WEIGHTS_URI as WRITER_WEIGHTS

WHEEL = "toycalc-0.1.0-py3-none-any.whl"     # the wheel the site publishes (site/publish_notebooks.py)
# what the wheel needs besides the standard library (its Requires-Dist): the
# packages toycalc imports outside the build (yaml reads the toy's weights,
# safetensors nano-gpt's and the writer's, threadpoolctl comes with the
# writer's training code). Colab has them; pip fetches what another
# Jupyter lacks (tests/site/test_notebooks.py runs a notebook where only
# the kernel, pip and numpy are)
REQUIRES = ("numpy", "PyYAML", "safetensors", "threadpoolctl")


@dataclass(frozen=True)
class Check:
    before: str      # names the region's code reads, set as the code around it would
    after: str       # the call that prints the page's numbers
    note: str = ""   # what the reader should know before that call (Markdown)


TOY_SETUP = '''import numpy as np

from toycalc.model.gpt import *            # the pieces the code below calls: linear, softmax, ...
from toycalc.model.inference import generate, room
from toycalc.model.tokenizer import tokenize
from toycalc.model.weights import load_toy
from toycalc.book.example import Example, random_row
from toycalc.book.render import fixed, short, weights_vector

model = load_toy()                          # the toy's weights, as the package ships them
ex = Example(model)                         # the book's sentence, with the weights' own heads
params, cfg, ids = model.params, model.cfg, np.array(ex.ids)


def print_rows(name, M, written=False):
    """Print M one row per token, as the page prints it: computed numbers
    with three places (fixed), sums of weights typed by hand as written."""
    print(name)
    for row in np.atleast_2d(M):
        print("   ", weights_vector(row) if written else "  ".join(fixed(v) for v in row))'''

# The toy's checks, by (file, region); TOY_PAGE_CHECKS, by page, where a
# page prints other numbers of the same code.
GPT = "toycalc/model/gpt.py"
TOY_CHECKS = {
    (GPT, "Config"): Check("", 'print("V =", cfg.vocab_size, " d =", cfg.d, " blocks =", cfg.n_blocks)'),
    ("toycalc/model/tokenizer.py", "tokenize"): Check(
        "from toycalc.model.tokenizer import TokenizerError, show, shorten, vocabulary",
        "print(tokenize(ex.text, model.vocab))"),
    ("toycalc/book/example.py", "random_row"): Check(
        "from toycalc.book.example import INIT_STD\nfrom toycalc.book.toy.embedding import INIT_SEED",
        'print_rows("a row of E drawn as GPT-2 draws it", random_row(cfg.d, INIT_SEED))'),
    (GPT, "embedding"): Check("trace = {}", 'print_rows("E[ids]", trace["E_ids"], written=True)'),
    (GPT, "positions"): Check('trace, start, T = {"E_ids": params["E"][ids]}, 0, len(ids)',
                              'print_rows("X", x, written=True)'),
    (GPT, "layernorm"): Check("", 'u, cache = layernorm(ex.trace["X"])\n'
                                  'print_rows("u", u)\n'
                                  'print_rows("the last row: mu, sigma", [cache["mu"][-1], cache["sigma"][-1]])'),
    (GPT, "attention"): Check("", 'out = attention(ex.block["u"], block_params(params, 0), ex.n_heads)\n'
                                  'for h in range(ex.n_heads):\n'
                                  '    print_rows(f"head {h + 1}: the last row\'s weights", out["weights"][h, -1])\n'
                                  'verb = [j for j, t in enumerate(ex.tokens) if t in (" climb", "ed")]\n'
                                  'print("head 1, on the two pieces of the verb:", '
                                  'fixed(out["weights"][0, -1, verb].sum()))'),
    (GPT, "softmax"): Check("", 'print_rows("each head, the last row\'s weights a = softmax(s)", '
                                'softmax(ex.block["scores"][:, -1]))'),
    ("toycalc/book/toy/attention.py", "ablated_p"): Check(
        "from toycalc.model import gpt\nfrom toycalc.book.example_checks import check_head",
        'for head in [None] + list(range(1, ex.n_heads + 1)):\n'
        '    p = ablated_p(ex, head)\n'
        '    print("off:", head, " p of the prediction:", fixed(p.max()), '
        '" p of the target:", fixed(p[ex.target_id]))'),
    (GPT, "projection"): Check('blk, p, x = dict(ex.block), block_params(params, 0), ex.trace["X"]',
                               'print_rows("h = x + a W_O", blk["h"])'),
    (GPT, "mlp"): Check("", 'print_rows("m, the last row", mlp(ex.block["u2"], block_params(params, 0), cfg)["m"][-1])'),
    (GPT, "second_sum"): Check("blk, p = dict(ex.block), block_params(params, 0)",
                               'print_rows("m", blk["m"])\nprint_rows("y = h + m", blk["y"])'),
    (GPT, "gelu_tanh_form"): Check("from toycalc.book.toy.mlp import GELU_POINTS",
                                   'print_rows("GELU at the table\'s points", [gelu(x) for x in GELU_POINTS])'),
    (GPT, "output"): Check('x, post, temperature, trace = ex.block["y"], False, 1.0, {}',
                           'print_rows("p, the last row", trace["p"][-1])'),
    (GPT, "cross_entropy"): Check("", 'print("L =", fixed(cross_entropy(ex.trace["p"], ex.targets)))'),
    ("toycalc/book/example.py", "step"): Check(
        "from functools import cached_property\nfrom toycalc.model import gpt", 'for i in ex.sentence_rows:\n'
            '    print_rows(f"row {i} of E after the step", ex.stepped_E[i])'),
    ("toycalc/model/inference.py", "generate"): Check(
        "from toycalc.model.inference import checked_forward", 'out, probs = generate(params, cfg, ex.ids, 2, ex.n_heads)\n'
            'print([model.vocab[i] for i in out])\n'
            'print("p of each chosen token:", [fixed(p.max()) for p in probs])'),
    ("toycalc/book/toy/generation.py", "_generate"): Check(
        "from toycalc.model import inference\n"
        "from toycalc.book.toy.generation import EOT, Rule, Step, keep, token_code",
        'for T in (0.5, 1.0, 2.0):\n'
        '    out, steps, why = _generate(ex, Rule("sample", T), "")\n'
        '    print(f"T = {short(T)}:", "".join(model.vocab[i] for i in out))'),
    ("toycalc/book/toy/generation.py", "keep"): Check(
        "from toycalc.book.toy.generation import TOP_K, TOP_P",
        'print_rows("top-k", keep(ex.p_last, k=TOP_K))\nprint_rows("top-p", keep(ex.p_last, top_p=TOP_P))'),
}
TOY_PAGE_CHECKS = {
    ("toy/output.md", GPT, "softmax"): Check("", 'print_rows("p = softmax(z), the last row", softmax(ex.trace["z"][-1]))'),
}
TOY_PAGES = ("toy/", "end-to-end.md")

NANO_SETUP = '''import numpy as np

from toycalc.model.gpt import *            # the pieces the code below calls: linear, softmax, ...
from toycalc.model import nanogpt
from toycalc.book.nano_example import Run
from toycalc.book.nano_gpt.shared import ROWS
from toycalc.book.render import fixed

run = Run(nanogpt.load())                   # the trained weights the package ships, on the book's letters
params, cfg, ids = run.params, run.cfg, np.array(run.ids)
best_block, best_head = run.best_head       # the head Self Attention follows (counted from 0)


def print_rows(name, M):
    """Print M one row per token, three places, as the page prints it."""
    print(name)
    for row in np.atleast_2d(M):
        print("   ", "  ".join(fixed(v) for v in row))'''

# nano-gpt's checks: the pages follow the row t = 4 or t = 6 (index 3 or 5)
# and show a row's first ROWS channels
NANO_CHECKS = {
    ("toycalc/model/configs.py", "nano_gpt"): Check(
        "", 'print("V =", NANO_GPT.vocab_size, " d =", NANO_GPT.d, " blocks =", NANO_GPT.n_blocks)'),
    ("toycalc/model/sizes.py", "param_shapes"): Check(
        "from toycalc.model.sizes import block_shapes, kv_width",
        'shapes = param_shapes(cfg)\n'
        'total, W_U = sum(int(np.prod(s)) for s in shapes.values()), int(np.prod(shapes["W_U"]))\n'
        'print(f"{total:,} parameters; W_U has {W_U:,}; without it (as minGPT counts) {total - W_U:,}")'),
    (GPT, "embedding"): Check("trace = {}", 'print_rows("E[ids], the row t = 4", trace["E_ids"][3, :ROWS])'),
    (GPT, "positions"): Check('trace, start, T = {"E_ids": params["E"][ids]}, 0, len(ids)',
                              'print_rows("x, the row t = 4", x[3, :ROWS])'),
    (GPT, "layernorm"): Check("", 'u, cache = layernorm(run.trace["X"], params["blocks.0.gamma_1"], '
                                  'params["blocks.0.beta_1"])\n'
                                  'print_rows("u, the row t = 4", u[3, :ROWS])\n'
                                  'print("mu =", fixed(cache["mu"][3]), " sigma =", fixed(cache["sigma"][3]))'),
    (GPT, "split_heads"): Check("", 'q = split_heads(run.block(best_block)["Q"], cfg.n_heads)\n'
                                    'print("q of the head followed, t = 6, its first channel:", '
                                    'fixed(q[best_head, 5, 0]))'),
    (GPT, "attention"): Check("", 'out = attention(run.block(best_block)["u"], block_params(params, best_block), '
                                  'cfg.n_heads)\n'
                                  'print_rows("the weights of the head followed, row t = 6", '
                                  'out["weights"][best_head, 5, :6])'),
    (GPT, "projection"): Check('blk, p, x = dict(run.block(0)), block_params(params, 0), run.block(0)["X"]',
                               'print_rows("h = x + a W_O + b_O, the row t = 6", blk["h"][5, :ROWS])'),
    (GPT, "gelu_tanh_form"): Check("", 'x = run.block(0)["mlp_pre"][5, 0]\n'
                                       'print("GELU(" + fixed(x) + ") =", fixed(gelu(x)))'),
    (GPT, "mlp"): Check("", 'out = mlp(run.block(0)["u2"], block_params(params, 0), cfg)\n'
                            'print_rows("m, the row t = 6", out["m"][5, :ROWS])'),
    (GPT, "loss_and_grads"): Check(
        "from toycalc.book.nano_gpt.train import GRADIENT_PLACES, gradient_sizes\n"
        "letters, targets = nanogpt.examples(np.array([run.ids]))   # the six letters, then the sorted ones",
        'L, grads = loss_and_grads(params, cfg, letters[0], targets[0])\n'
        'print("L =", fixed(L, GRADIENT_PLACES))\n'
        'for part, size in gradient_sizes(grads, cfg):\n'
        '    print(f"the size of the gradient of {part}:", fixed(size, GRADIENT_PLACES))'),
    (GPT, "blocks"): Check('x, post, past, mask, heads, kv, angles = run.trace["X"], False, None, True, '
                           'cfg.n_heads, cfg.n_heads, None\ntrace = {"blocks": []}',
                           'length = lambda v: fixed(np.linalg.norm(v))     # as the page measures a row\n'
                           'for b, blk in enumerate(trace["blocks"]):\n'
                           '    print(f"block {b + 1}, the row t = 6: |x| =", length(blk["X"][5]), '
                           '" |a W_O + b_O| =", length(blk["attn"][5]), " |m| =", length(blk["m"][5]), '
                           '" |y| =", length(blk["y"][5]))'),
    (GPT, "softmax"): Check("", 'print_rows("p = softmax(z), the row t = 6", softmax(run.trace["z"][5]))'),
    (GPT, "output"): Check('x, post, temperature, trace = run.block(cfg.n_blocks - 1)["y"], False, 1.0, {}',
                           'print_rows("p, the row t = 6", trace["p"][5])'),
}

WRITER_SETUP = '''import html
import re
import urllib.request

import numpy as np

from toycalc.model.gpt import *            # the pieces the code below calls: linear, softmax, ...
from toycalc.model import writer
from toycalc.book.writer.shared import WriterRun, SAMPLE_LENGTH, SAMPLE_SEED, TEMPERATURES
from toycalc.book.render import fixed

run = WriterRun(writer.load())              # the weights the package ships, on the chapter's held-out line
SITE = "SITE_URL"                           # the book's site: its pages, the weights the browser reads


def same_as_page(temperature, written):
    """Whether `written` is the sample the Introduction shows at this temperature (read from the site)."""
    page = urllib.request.urlopen(SITE + "writer/").read().decode("utf-8")
    shown = dict(re.findall(r'data-temperature="([^"]+)".*?<span class="writer-written">(.*?)</span>', page, re.S))
    same = html.unescape(shown[str(temperature)]) == written
    print("  the same characters as the Introduction's" if same else "  NOT the Introduction's characters (see above)")'''

# What the writer's notebooks can and cannot repeat of the page: said
# where they write a sample (the chapter's samples are writer_pass.js's, in Node)
SAMPLED_IN_NODE = (
    "The chapter's samples, on its Introduction, were written when the site was built by writer_pass.js, the "
    "code your browser runs on \"Type, it writes\" (in Node, in float32), not by this numpy. The cell "
    "below draws with numpy's `write` above, the reference the book's tests hold writer_pass.js to: on the "
    "machine that built the book both draw the same characters. On another processor numpy may add its "
    "float32 numbers in another order; where a draw falls within a rounding of the edge between two "
    "characters, another one is drawn, and the text parts from the Introduction's there. After each "
    "sample, a line says whether it is the Introduction's.")

# The writer's checks: Inside the writer's next character; the
# Introduction's held-out loss and samples; Type, it writes, its sample
# with the page's settings, from the weights the page fetches
WRITER_CHECKS = {
    (GPT, "softmax"): Check("", 'p = softmax(run.trace["z"][-1])\n'
                                'top = np.argsort(-p)[:10]\n'
                                'print("the ten likeliest next characters:", [writer.vocab()[i] for i in top])\n'
                                'print("their p:", "  ".join(fixed(p[i]) for i in top))'),
    ("toycalc/model/writer.py", "held_out_loss"): Check(
        "from toycalc.model import gpt\nfrom toycalc.model.writer import CONFIG, held_out_ids, windows",
        '# every window of the held-out text, in float32 as the browser computes (a few seconds)\n'
        'loss = held_out_loss({name: w.astype(np.float32) for name, w in run.params.items()})\n'
        'for name, nats in (("the writer, on the held-out text", loss), ("unigram", run.unigram_loss),\n'
        '                   (f"a uniform guess among {len(run.vocab)}", np.log(len(run.vocab)))):\n'
        '    print(f"{name}: {fixed(nats, 2)} nats per character, {fixed(nats / np.log(2), 2)} bits, "\n'
        '          f"perplexity {fixed(np.exp(nats), 1)}")'),
    ("toycalc/book/writer/shared.py", "write"): Check(
        "from toycalc.model import gpt, writer as model\nfrom toycalc.book.writer.shared import mulberry32, sample, top_k",
        'prompt = writer.encode(run.prompt)        # the held-out line and its line break\n'
        'for temperature in TEMPERATURES:\n'
        '    ids, _ = write(run.params, prompt, SAMPLE_LENGTH, temperature, 0, SAMPLE_SEED)\n'
        '    print(f"temperature {temperature}, seed {SAMPLE_SEED}, {SAMPLE_LENGTH} characters:")\n'
        '    print(run.prompt + writer.decode(ids))\n'
        '    same_as_page(temperature, writer.decode(ids))', note=SAMPLED_IN_NODE),
}
WRITER_PAGE_CHECKS = {
    ("writer/write.md", "toycalc/book/writer/shared.py", "write"): Check(
        "import urllib.request\nfrom pathlib import Path\n"
        "from toycalc.model import gpt, safetensors_file, sizes, writer as model\n"
        "from toycalc.book.writer.shared import LIVE_TEMPERATURE, LIVE_TOP_K, mulberry32, sample, top_k\n\n"
        "# the weights the page fetches when you start it, read as the package reads its own\n"
        'file = Path("writer.safetensors")\n'
        f'file.write_bytes(urllib.request.urlopen(SITE + "{WRITER_WEIGHTS}").read())\n'
        'fetched = safetensors_file.read(file, sizes.param_shapes(run.cfg), model.WriterError, "writer\'s",\n'
        '                                "the site publishes them")\n'
        'same = all(np.array_equal(fetched[name], run.params[name]) for name in run.params)\n'
        'print(f"{sum(w.size for w in fetched.values()):,} numbers, {(file.stat().st_size + 1023) // 1024:,} KiB:",\n'
        '      "the package\'s own weights" if same else "NOT the package\'s weights")',
        'ids, _ = write(fetched, writer.encode(run.prompt), SAMPLE_LENGTH, LIVE_TEMPERATURE, LIVE_TOP_K, SAMPLE_SEED)\n'
        'print(f"temperature {LIVE_TEMPERATURE}, top-k {LIVE_TOP_K}, seed {SAMPLE_SEED}:")\n'
        'print(run.prompt + writer.decode(ids))\n'
        'same_as_page(LIVE_TEMPERATURE, writer.decode(ids))      # the Introduction\'s sample at this temperature',
        note=SAMPLED_IN_NODE),
}

# by the folder of a page: its set-up cell, what it says, its checks, a page's own
CHAPTERS = {
    "toy": (TOY_SETUP, "The toy's weights and the book's example, as every page of the chapter computes them:",
            TOY_CHECKS, TOY_PAGE_CHECKS),
    "nano-gpt": (NANO_SETUP, "nano-gpt's trained weights and the book's letters, as every page of the "
                             "chapter computes them:", NANO_CHECKS, {}),
    "writer": (WRITER_SETUP, "The writer's weights and the chapter's held-out line, as every page of "
                             "the chapter computes them:", WRITER_CHECKS, WRITER_PAGE_CHECKS),
}


def chapter_of(page: str) -> str | None:
    if page.startswith(TOY_PAGES):
        return "toy"
    return next((name for name in ("nano-gpt", "writer") if page.startswith(name + "/")), None)


def check_of(page: str, region: Region) -> Check | None:
    """The call that prints a region's numbers on this page, or None when
    the book has none for it (then the page has no notebook)."""
    chapter = chapter_of(page)
    if chapter is None:
        return None
    _, _, checks, page_checks = CHAPTERS[chapter]
    return page_checks.get((page, region.path, region.name)) or checks.get((region.path, region.name))


def _cell(kind: str, text: str, metadata: dict | None = None) -> dict:
    cell = {"cell_type": kind, "metadata": metadata or {}, "source": text}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def notebook(page: str, title: str, page_url: str, site_url: str, steps: list[tuple[Region, Check]]) -> str:
    """The notebook of a page (its JSON text, nbformat 4.5): title, the
    installation from site_url, its chapter's set-up, then each region and
    its call."""
    setup, says, _, _ = CHAPTERS[chapter_of(page)]
    cells = [
        _cell("markdown", f"# {title}\n\n"
                          f"The code of the page [{title}]({page_url}), as the build ran it, and the calls "
                          "that print the page's numbers. The first cell installs the book's package, "
                          f"`toycalc`, from the site ({WHEEL}), and what it needs that the Python running "
                          f"this notebook lacks (of {', '.join(REQUIRES)}; Colab has them all)."),
        _cell("code", f"%pip install --quiet {site_url}{WHEEL}"),
        _cell("markdown", says),
        _cell("code", setup.replace("SITE_URL", site_url)),
    ]
    for region, check in steps:
        cells.append(_cell("markdown", f"The code: `{region.path}`, line {region.first}"))
        if check.before:
            cells.append(_cell("code", check.before))
        # the metadata names the region: tests/site/test_notebooks.py holds the cell to its file
        cells.append(_cell("code", region.code, {"toycalc": {"path": region.path, "region": region.name,
                                                             "first": region.first}}))
        if check.note:
            cells.append(_cell("markdown", check.note))
        cells.append(_cell("code", check.after))
    for k, cell in enumerate(cells):
        cell["id"] = f"cell-{k}"          # nbformat 4.5 names each cell
    return json.dumps({"cells": cells, "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5},
        ensure_ascii=False, indent=1) + "\n"
