"""The chapter's samples written at build by the code the browser runs:
docs/javascripts/writer_pass.js (its forward pass in float32 on
kernels.wasm, its draws; the page's writer.js calls them) in Node, through
writer_sampler.mjs, so that the chapter's
sample and the page's are the same characters on any machine (numpy's
sums may round otherwise on another CPU). Node gets the weights as the
page holds them, each a float16 value (sent as float32 bytes), from the
loaded model, not from the weights file. One Node a call, in a session
of its own: past SECONDS, or on any failure, its process group is ended
and the build stops with one line. toycalc.book.writer.shared.write, the
numpy sampler, stays the reference the parity tests hold writer_pass.js to."""
from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path

import numpy as np

from ..model import sizes
from ..model.gpt import GELU_C, LN_EPS
from . import node
from .errors import BookError

SCRIPT = Path(__file__).with_name("writer_sampler.mjs")
# the browser's code: docs/javascripts of the project this toycalc is part of
JS = Path(__file__).resolve().parent.parent.parent / "docs" / "javascripts"
SECONDS = 120          # the chapter's three samples take about 2 s


def browser_array(value) -> dict:
    """An array as the page holds it once read from the published file: its
    float16 value (exact in float32), sent as float32 bytes, little-endian."""
    with np.errstate(over="ignore"):
        half = np.asarray(value).astype("<f2")
    return {"shape": list(half.shape), "f32": base64.b64encode(half.astype("<f4").tobytes()).decode("ascii")}


def browser_model(params: dict, cfg, vocab) -> dict:
    """The writer as the page reads it: its sizes (the setup gpt.js's
    fromArrays takes) and its arrays by their names in the weights file."""
    setup = {"vocab": list(vocab), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx, "width": cfg.mlp_width,
             "ln_eps": LN_EPS, "gelu_c": GELU_C}
    return {"setup": setup, "arrays": {name: browser_array(value) for name, value in params.items()}}


def node_write(params: dict, cfg, vocab, ids: list[int], runs: list[tuple]) -> list[list[int]]:
    """Each run (n, temperature, k, seed): the n ids writer_pass.js's write()
    draws after ids, in Node. A failure is one BookError line."""
    what = "the writer's samples (writer_pass.js in Node, toycalc/site/writer_sampler.py)"
    if node.node_or_none() is None:
        raise BookError(f"{what}: Node.js is needed: {node.INSTALL}")
    if not (JS / "writer_pass.js").is_file():
        raise BookError(f"{what}: no writer_pass.js in {JS}")
    job = json.dumps({"model": browser_model(params, cfg, vocab),
                      "runs": [{"ids": list(map(int, ids)), "n": n, "temperature": t, "k": k, "seed": seed}
                               for n, t, k, seed in runs]})
    process = node.start(SCRIPT, JS, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = process.communicate(job, timeout=SECONDS)
    except subprocess.TimeoutExpired:
        raise BookError(f"{what}: no answer in {SECONDS} s; the build stopped it") from None
    finally:
        node.end(process)      # and anything it left behind
    if process.returncode != 0:
        lines = [line.strip() for line in err.splitlines() if line.strip()]
        said = next((line for line in lines if re.match(r"[A-Za-z]*Error\b", line)), lines[0] if lines else "no message")
        raise BookError(f"{what}: Node stopped, exit code {process.returncode}: {said[:200]}")
    try:
        written = json.loads(out)
        ok = (isinstance(written, list) and len(written) == len(runs)
              and all(isinstance(w, list) and len(w) == r[0] and all(isinstance(i, int) and 0 <= i < len(vocab) for i in w)
                      for w, r in zip(written, runs)))
    except ValueError:
        ok = False
    if not ok:
        raise BookError(f"{what}: Node answered {out.strip()[:80]!r}, not the ids of {len(runs)} samples")
    return written
