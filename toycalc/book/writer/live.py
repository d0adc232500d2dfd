"""The page where the reader types and the writer writes (docs/writer/write.md):
what the browser needs besides the weights (docs/javascripts/writer.js
reads it from the tool's data-writer attribute), and the weights' bytes,
which the build publishes as WEIGHTS_URI and the page fetches only when
the reader starts the tool."""
from __future__ import annotations

import html
import json

import numpy as np

from ...model import sizes, writer as model
from ...model.gpt import GELU_C, LN_EPS
from ..draw import prob_key
from .shared import published_kib, FOLLOWED_HEAD, LIVE_TEMPERATURE, LIVE_TOP_K, SAMPLE_LENGTH, SAMPLE_SEED, WriterRun, part

WEIGHTS_URI = "javascripts/writer-weights.bin"
MAX_WRITE = 500          # characters one Write may ask for


def weights_bytes(params: dict, cfg=model.CONFIG) -> bytes:
    """Every parameter in float16, little-endian, one after another in
    sizes.param_shapes' order: the stored numbers, exactly, at 2 bytes each."""
    return b"".join(np.ascontiguousarray(params[name], dtype="<f2").tobytes()
                    for name in sizes.param_shapes(cfg))


def setup(run: WriterRun) -> dict:
    cfg = run.cfg
    return {"vocab": run.vocab, "d": cfg.d, "n_ctx": cfg.n_ctx, "heads": cfg.n_heads, "width": cfg.mlp_width,
            "blocks": cfg.n_blocks, "ln_eps": LN_EPS, "gelu_c": GELU_C, "followed": list(FOLLOWED_HEAD),
            "shapes": [[name, list(shape)] for name, shape in sizes.param_shapes(cfg).items()],
            "bytes": 2 * sizes.count_params(cfg)["total"],
            "prompt": run.prompt, "temperature": LIVE_TEMPERATURE, "top_k": LIVE_TOP_K,
            "seed": SAMPLE_SEED, "length": SAMPLE_LENGTH, "max_length": MAX_WRITE}


@part.figure("live")
def live_figure(run: WriterRun) -> str:
    """The tool: its settings for the browser, and what a reader without
    JavaScript reads; after it, the key of the bars under its text (what
    a head read), which writer.js moves under its chooser and shows."""
    data = html.escape(json.dumps(setup(run), ensure_ascii=False))
    kib = published_kib(run.cfg)
    return (f'<div class="writer-live" data-module="writer" data-writer="{data}">'
            f"<p><em>The writer runs in your browser and needs JavaScript; it fetches its weights "
            f"({kib} KiB) when you start it. Without JavaScript, the chapter's samples show what it "
            "writes.</em></p></div>"
            f'<div class="writer-look-key" data-writer-key hidden>'
            f'{prob_key("the bar under a character: its attention weight")}</div>')
