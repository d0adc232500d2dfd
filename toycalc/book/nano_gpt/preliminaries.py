"""The nano-gpt chapter's page Preliminaries (docs/nano-gpt/preliminaries.md):
the parameters by piece (and as minGPT counts them), how the shipped
weights were trained, read from their record (by `python -m toycalc train`
or in a reader's browser: `made`), and the loss curve."""
from __future__ import annotations

import html
from pathlib import Path

from ...model import gpt, nanogpt, sizes
from ..draw import figure, line_chart_svg, nice_ticks
from ..nano_example import Run
from ..render import count, fixed, html_table, inline_math as im, plain
from .shared import mingpt_count, nano_gpt, tick


@nano_gpt.table("params")
def params_table(run: Run) -> str:
    """The parameters by piece, and what minGPT's count leaves out."""
    c, cfg = sizes.count_params(run.cfg), run.cfg
    d, w, V, n, B = cfg.d, cfg.mlp_width, cfg.vocab_size, cfg.n_ctx, cfg.n_blocks
    rows = [
        [f"token embedding {im('E')}", f"{V} × {d}", count(c["E"])],
        [f"position embedding {im('P')}", f"{n} × {d}", count(c["P"])],
        [f"{im('W_Q')}, {im('W_K')}, {im('W_V')}", f"{B} blocks × 3 × {d} × {d}", count(c["W_QKV"])],
        [f"projection {im('W_O')}", f"{B} × {d} × {d}", count(c["W_O"])],
        [f"MLP {im('W_1')}, {im('W_2')}", f"{B} × ({d} × {w} + {w} × {d})", count(c["W_MLP"])],
        [f"biases {im('b_Q, b_K, b_V, b_O, b_1, b_2')}", f"{B} × (5 × {d} + {w})", count(c["biases"])],
        ["LayerNorm " + im("\\gamma, \\beta"), f"({2 * B} + 1) × 2 × {d}", count(c["layernorm"])],
        [f"output {im('W_U')} (no bias)", f"{d} × {V}", count(c["W_U"])],
        ["<strong>total</strong>", "", f"<strong>{count(c['total'])}</strong>"],
        ["what minGPT counts (all but the output layer)", "", count(mingpt_count(run))],
    ]
    return html_table("nano-params", ["piece", "shape", "parameters"], rows)


@nano_gpt.table("training", live=True)
def training_table(run: Run) -> str:
    """How the shipped weights were trained, read from their record."""
    rec = run.model.record
    if not rec:
        return "<p><em>No training record beside the weights file.</em></p>"
    opt = rec.get("optimizer", {})
    rows = [["seed", str(rec.get("seed"))], ["batch", str(rec.get("batch"))],
            ["optimiser", plain(f"{opt.get('name')}, learning rate {opt.get('lr')}, "
                                      f"betas {tuple(opt.get('betas', ()))}, weight decay "
                                      f"{opt.get('weight_decay')}")],
            ["steps", count(rec.get("steps", 0))],
            ["final training loss", plain(f"{fixed(rec['final_loss'], 4)} "
                                                f"({rec.get('final_loss_means', '')})")],
            ["loss on all 729 inputs", fixed(rec["loss_on_729"], 4)],
            ["inputs sorted by greedy decoding", f"{rec['accuracy_on_729']} of 729"]]
    if "stored_as" in rec:
        rows[3:3] = [["computed in", plain(str(rec.get("dtype")))],
                     ["weights stored as", plain(str(rec["stored_as"]))]]
    return html_table("nano-training", ["", "this model"], rows)


@nano_gpt.figure("loss", live=True)
def loss_figure(run: Run) -> str:
    """The training loss of each step, from the record beside the weights."""
    rec = run.model.record
    curve = rec.get("loss_curve")
    if not curve:   # weights made elsewhere, or before the record kept the curve: say so, as training_table does
        return ("<p><em>No loss curve in the training record beside the weights file; "
                "<code>python -m toycalc train</code> writes one.</em></p>")
    steps = len(curve)
    points = [(k + 1, float(v)) for k, v in enumerate(curve)]
    titles = [f"step {s}: loss {fixed(v)}" for s, v in points]
    xs, ys = nice_ticks(0, steps, 4), nice_ticks(0, max(curve), 4)
    drawing = line_chart_svg(
        [("loss", points, titles)],
        f"A line: the training loss of each of the {count(steps)} steps, from {fixed(curve[0])} "
        f"at the first to {fixed(curve[-1])} at the last",
        [(v, tick(v)) for v in xs], [(v, tick(v)) for v in ys],
        x_label="training step", y_label="loss on the step's batch", width=336, height=220)
    return figure("nano-loss", drawing,
                  f"The loss on each step's batch of {rec.get('batch', '?')} inputs"
                  '<span class="screen-only">; point at or tap a dot for its value</span>')


@nano_gpt.number("mingpt_printed")
def mingpt_printed_number(run: Run) -> str:
    """The count as minGPT prints it when it builds the model: millions, two places ("0.09M")."""
    return f"{mingpt_count(run) / 1e6:.2f}M"


@nano_gpt.number("record", live=True)
def record_number(run: Run, key: str = "steps") -> str:
    """One entry of the training record (steps, seconds, accuracy on all inputs, ...)."""
    rec = run.model.record
    keys = ("seed", "batch", "steps", "final_loss", "loss_on_729", "accuracy_on_729", "seconds", "dtype", "stored_as")
    if key not in keys:
        raise ValueError(f"key = {key!r}: expected one of {', '.join(keys)}")
    if key not in rec:
        raise ValueError(f"key = {key!r} is not in the training record {nanogpt.record_path(run.model.path)}")
    value = rec[key]
    return fixed(value, 4) if key in ("final_loss", "loss_on_729") else plain(f"{value:,}"
                                                                                   if isinstance(value, int) else str(value))


@nano_gpt.number("targets")
def targets_number(run: Run, scored: bool = True) -> str:
    """The positions (from 1) whose prediction training scores (scored=false: ignores), from the task's targets."""
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])
    ts = [t + 1 for t in range(targets.shape[1]) if (targets[0, t] >= 0) == scored]
    return f"{ts[0]} to {ts[-1]}" if ts == list(range(ts[0], ts[-1] + 1)) else ", ".join(map(str, ts))


def made_by(record: dict) -> str:
    """Who trained the weights, from their record: "numpy" (python -m
    toycalc train writes made_with.numpy), "browser" (the page Train it
    yourself writes made_with.browser), or "unknown" (no record, or another's)."""
    made = record.get("made_with") if isinstance(record.get("made_with"), dict) else {}
    return "browser" if "browser" in made else "numpy" if "numpy" in made else "unknown"


MADE = {
    "numpy": {
        "who": "`python -m toycalc train` trains the model in plain numpy, with the same "
               "forward and backward code that runs the toy model of the first chapter.",
        "seed": "The run starts from GPT-2's random initialisation with a fixed seed, "
                "so it gives the same weights every time on the same machine."},
    "browser": {
        "who": "These weights were trained in a reader's browser, on the page "
               "[Train it yourself](train.md), by the book's JavaScript twin of "
               "`python -m toycalc train`, which trains the book's own in plain numpy: "
               "the same forward and backward pass, the same recipe.",
        "seed": "The run starts from GPT-2's random initialisation with the reader's seed, "
                "drawn from the browser's own generator rather than numpy's, so the same seed "
                "gives the same weights in any browser, but not the weights numpy would make."},
    "unknown": {
        "who": "These weights come without a record of how they were made; the book's own "
               "are trained by `python -m toycalc train`, in plain numpy, as follows.",
        "seed": "That run starts from GPT-2's random initialisation with a fixed seed, "
                "so it gives the same weights every time on the same machine."},
}


@nano_gpt.number("made")
def made_number(run: Run, part: str = "who") -> str:
    """How the weights were made, from their record (made_with): part="who"
    (by python -m toycalc train or in a reader's browser), "seed" (what
    their seed fixes), "record" (the record's file name)."""
    if part == "record":
        path = nanogpt.record_path(run.model.path)
        shipped = path.parent == Path(nanogpt.DEFAULT_WEIGHTS).parent
        return f"<code>{html.escape(f'toycalc/weights/{path.name}' if shipped else path.name)}</code>"
    if part not in MADE["numpy"]:
        raise ValueError(f"part = {part!r}: expected one of {', '.join([*MADE['numpy'], 'record'])}")
    return MADE[made_by(run.model.record)][part]
