"""The page where the reader types and the writer writes (docs/writer/write.md):
what the browser needs besides the weights (docs/javascripts/writer.js
reads it from the tool's data-writer attribute); the weights file
(WriterRun.published), which the build publishes as WEIGHTS_URI and the
page fetches only when the reader starts the tool."""
from __future__ import annotations

import html
import json

from ...model import models, sizes
from ...model.gpt import GELU_C, LN_EPS
from ..draw import prob_key
from .shared import published_kib, FOLLOWED_HEAD, LIVE_TEMPERATURE, LIVE_TOP_K, SAMPLE_LENGTH, SAMPLE_SEED, WriterRun, part

WEIGHTS_URI = models.WRITER.published     # where the build publishes them (site/publish_weights.py)
MAX_WRITE = 500          # characters one Write may ask for


def setup(run: WriterRun) -> dict:
    cfg = run.cfg
    return {"vocab": run.vocab, "d": cfg.d, "n_ctx": cfg.n_ctx, "heads": cfg.n_heads, "width": cfg.mlp_width,
            "blocks": cfg.n_blocks, "ln_eps": LN_EPS, "gelu_c": GELU_C, "followed": list(FOLLOWED_HEAD),
            "shapes": [[name, list(shape)] for name, shape in sizes.param_shapes(cfg).items()],
            "bytes": len(run.published),
            "prompt": run.prompt, "temperature": LIVE_TEMPERATURE, "top_k": LIVE_TOP_K,
            "seed": SAMPLE_SEED, "length": SAMPLE_LENGTH, "max_length": MAX_WRITE}


@part.figure("live")
def live_figure(run: WriterRun) -> str:
    """The tool: its settings for the browser, and what a reader without
    JavaScript reads; after it, the key of the bars under its text (what
    a head read), which writer.js moves under its chooser and shows."""
    data = html.escape(json.dumps(setup(run), ensure_ascii=False))
    kib = published_kib(run)
    return (f'<div class="writer-live" data-module="writer" data-writer="{data}">'
            f"<p><em>The writer runs in your browser and needs JavaScript; it fetches its weights "
            f"({kib} KiB) when you start it. Without JavaScript, the chapter's samples show what it "
            "writes.</em></p></div>"
            f'<div class="writer-look-key" data-writer-key hidden>'
            f'{prob_key("the bar under a character: its attention weight")}</div>')
