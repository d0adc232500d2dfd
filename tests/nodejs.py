"""The Node harness of the parity tests: docs/javascripts' ES modules run in
Node on a job that Python writes.

A runner is an ES module's body that reads `job` (the JSON sent on
stdin), imports the modules it needs with `await js("draw")`
(docs/javascripts/draw.js, the very file a page imports) and writes its
answer to stdout. Each parity test module lists the twins its
runner calls in JS_CASES ("file.js:name"); tests/test_mirrors.py reads those
lists to tell that every function marked @mirrored has a parity case.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

JS = ROOT / "docs" / "javascripts"
NODE = shutil.which("node") or "/usr/bin/node"

PRELUDE = r"""
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const js = (name) => import(pathToFileURL(path.join(process.argv[1], `${name}.js`)).href);
const job = JSON.parse(fs.readFileSync(0, "utf8"));
// nano-gpt as a page loads it (letters.js): its setup and record, its weights file read by safetensors.js
const publishedModel = async (w) => {
  const g = await js("gpt"), bytes = Buffer.from(w.file, "base64");
  const { arrays } = (await js("safetensors")).read(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return Object.assign(g.load(g.fromArrays(w.setup, arrays)), { record: w.setup.record });
};
"""


def need_node() -> None:
    """Skip without Node, or fail on CI, where a skipped parity test would hide a drift."""
    if not shutil.which(NODE):
        message = "the parity tests need Node.js (sudo apt-get install nodejs)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def run_text(runner: str, job, timeout: int = 120) -> str:
    """What `runner` writes for `job`."""
    need_node()
    out = subprocess.run([NODE, "--input-type=module", "-e", PRELUDE + runner, str(JS)], input=json.dumps(job), capture_output=True,
                         text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


def run_json(runner: str, job, timeout: int = 120):
    """What `runner` writes for `job`, read as JSON."""
    return json.loads(run_text(runner, job, timeout))


def published(nano) -> dict:
    """nano-gpt as the build publishes it for the browser (export.py): for
    the prelude's publishedModel, which reads it as a page does."""
    import base64
    from toycalc.site.export import nano_setup, nano_weights_bytes
    return {"setup": nano_setup(nano), "file": base64.b64encode(nano_weights_bytes(nano)).decode("ascii")}


def js_data(cfg, params: dict, vocab) -> dict:
    """The layout gpt.js's `load` reads: the top-level arrays and one
    entry per block, by name."""
    from toycalc.model import sizes
    from toycalc.model.gpt import GELU_C, LN_EPS
    data = {"vocab": list(vocab), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx,
            "width": cfg.mlp_width, "ln_eps": LN_EPS, "gelu_c": GELU_C,
            "blocks": [{name: params[f"blocks.{b}.{name}"].tolist() for name in sizes.block_shapes(cfg)}
                       for b in range(cfg.n_blocks)]}
    for name in ("E", "P", "W_U", "gamma_f", "beta_f"):
        if name in params:
            data[name] = params[name].tolist()
    return data
