"""The nano-gpt chapter's page Train it yourself (docs/nano-gpt/train.md):
the recipe the page's trainer follows (docs/javascripts/train_page.js,
in a Web Worker: train_worker.js), taken from toycalc's own trainer
(toycalc/model/train.py), with the book's loss curve to draw beside the
reader's."""
from __future__ import annotations

import html
import json

import numpy as np

from ...model import gpt, nanogpt, sizes, train
from ...model.gpt import GELU_C, LN_EPS
from ..nano_example import Run
from ..render import and_list, count, fixed, html_table
from .shared import nano_gpt

EVERY = 50          # steps between the checks on all 729 inputs (each costs about a dozen steps)
DRAW_EVERY = 5      # steps between two drawings of the attention maps
STEP_LIMIT = 1000   # the default limit; the reader may set up to train.MAX_STEPS


EVEN_MARGIN = 0.05  # a head reads "close to even" when no weight is this far above an even share


@nano_gpt.number("last_heads")
def last_heads_number(run: Run) -> str:
    """What the last block's heads do with the example, in words that hold
    for any weights: which stay close to even (on every row, no weight more
    than EVEN_MARGIN above an even share, 1/t) and which take a pattern of
    their own (the largest share above even, and where)."""
    weights = run.block(run.cfg.n_blocks - 1)["weights"]
    even, patterned = [], []
    for h, head in enumerate(weights):
        over = [(float(head[t, :t + 1].max()) - 1 / (t + 1), t) for t in range(run.T)]
        most, t = max(over)
        (even if most <= EVEN_MARGIN else patterned).append((h + 1, most, t))

    def heads(group):
        return ("head " if len(group) == 1 else "heads ") + and_list([str(h) for h, _, _ in group])
    said = []
    if even:
        said.append(f"{heads(even)} {'stays' if len(even) == 1 else 'stay'} close to even (no weight more than "
                    f"{fixed(EVEN_MARGIN)} above an even share)")
    if patterned:
        h, most, t = max(patterned, key=lambda g: g[1])
        said.append(f"{heads(patterned)} {'takes' if len(patterned) == 1 else 'each take'} a pattern of "
                    f"{'its' if len(patterned) == 1 else 'their'} own (head {h} puts "
                    f"{fixed(most + 1 / (t + 1))} on one key at t = {t + 1}, where an even share is "
                    f"{fixed(1 / (t + 1))})")
    return ", and ".join(said)


GRADIENT_PLACES = 4   # a trained model's gradient is small: three places would show zeros


def gradient_sizes(grads: dict, cfg) -> list[tuple[str, float]]:
    """The size of the gradient (the root of its entries' squares' sum) of
    each part of the model, in the order a letter goes through them."""
    def size(names):
        return float(np.sqrt(sum(float((grads[n].astype(np.float64) ** 2).sum()) for n in names)))
    blocks = [[n for n in grads if n.startswith(f"blocks.{b}.")] for b in range(cfg.n_blocks)]
    rest = [n for n in grads if not n.startswith("blocks.")]
    return ([("the embeddings E and P", size([n for n in rest if n in ("E", "P")]))]
            + [(f"block {b + 1}", size(names)) for b, names in enumerate(blocks)]
            + [("the final LayerNorm and the unembedding", size([n for n in rest if n not in ("E", "P")]))])


@nano_gpt.table("gradient")
def gradient_table(run: Run) -> str:
    """What gpt.loss_and_grads (the code on the page) gives on the book's
    weights and the book's example: the loss, and the gradient's size part
    by part, which is what one step of the trainer follows."""
    ids, targets = nanogpt.examples(np.array([run.ids]))
    loss, grads = gpt.loss_and_grads(run.params, run.cfg, ids[0], targets[0])
    rows = [["the loss <em>L</em>", fixed(loss, GRADIENT_PLACES)]]
    rows += [[html.escape(part), fixed(value, GRADIENT_PLACES)] for part, value in gradient_sizes(grads, run.cfg)]
    return html_table("nano-gradient", ["", "value"], rows, wrap={0},
                      caption=f"<code>loss_and_grads</code> on the letters {html.escape(run.text)}: the loss, "
                              "and the size of the gradient of each part (the square root of the sum of "
                              "its entries' squares)")


def recipe(run: Run) -> dict:
    cfg = run.cfg
    return {"vocab": list(nanogpt.VOCAB), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx,
            "width": cfg.mlp_width, "blocks": cfg.n_blocks, "ln_eps": LN_EPS, "gelu_c": GELU_C,
            "length": nanogpt.LENGTH, "batch": train.BATCH, "seed": train.SEED,
            "optimizer": {"lr": train.LR, "betas": list(train.BETAS), "eps": train.ADAM_EPS,
                          "weight_decay": train.WEIGHT_DECAY},
            "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
            "parameters": sizes.count_params(cfg)["total"],
            "every": EVERY, "draw_every": DRAW_EVERY, "step_limit": STEP_LIMIT, "max_steps": train.MAX_STEPS,
            "example": run.ids + sorted(run.ids)[:-1], "example_text": run.text,
            "book_curve": run.model.record.get("loss_curve", [])}


@nano_gpt.figure("trainer")
def trainer_figure(run: Run) -> str:
    """Where the page's trainer goes: the recipe for the browser, and what
    a reader without JavaScript reads instead."""
    data = html.escape(json.dumps(recipe(run)))
    # the page's code: the trainer's, and letters.js's for what the chapter follows
    return (f'<div class="nano-trainer" data-module="letters train_page" data-nano-train="{data}">'
            "<p><em>Training runs in your browser and needs JavaScript; without it, the page "
            "Preliminaries shows the book's own run.</em></p></div>")


@nano_gpt.number("train")
def train_number(run: Run, key: str = "every") -> str:
    """A number of the page's recipe: every (steps between checks), step_limit, max_steps, batch, seed, lr."""
    values = {"every": EVERY, "step_limit": STEP_LIMIT, "max_steps": train.MAX_STEPS, "batch": train.BATCH,
              "seed": train.SEED, "lr": train.LR, "inputs": len(nanogpt.VOCAB) ** nanogpt.LENGTH}
    if key not in values:
        raise ValueError(f"key = {key!r}: expected one of {', '.join(values)}")
    value = values[key]
    return count(value) if isinstance(value, int) and key != "seed" else html.escape(str(value))
