"""The toy model's weights as JSON, for the simulator in the browser.

The build publishes this file as `javascripts/toy-weights.json` (see
publish_weights.py), what the weights editor needs besides as
`javascripts/toy-editor.json`, read from the same weights file the macros use
(weights_files.py), so a change to toy.yaml changes the simulator too;
and nano-gpt's setup and record as `javascripts/nanogpt.json`, its
weights as `javascripts/nanogpt.safetensors`. Nothing here knows
MkDocs.
"""
from __future__ import annotations

import json

from ..model.gpt import GELU_C, LN_EPS
from ..model import models
from ..model.safetensors_file import published
from ..model.sizes import param_shapes
from ..model.nanogpt import VOCAB, Nano
from ..model.nanogpt_record import INPUTS, MAX_BATCH, MAX_SEED, MAX_STEPS
from ..model.weights import MATRICES, MAX_WEIGHT, Model
from ..model.yamlfile import MAX_DIGITS, MINUS, NUMBER_RULES

WEIGHTS_URI = "javascripts/toy-weights.json"
EDITOR_URI = "javascripts/toy-editor.json"
NANO_URI = "javascripts/nanogpt.json"
NANO_WEIGHTS_URI = models.NANO_GPT.published


def weights_data(model: Model) -> dict:
    """Everything the browser needs to run the model: sizes, tokens (with
    real leading spaces), every matrix as a list of rows of floats."""
    cfg = model.cfg
    data = {"vocab": list(model.vocab), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx,
            "width": cfg.mlp_width, "ln_eps": LN_EPS, "gelu_c": GELU_C}
    for name in MATRICES:
        key = name if name in ("E", "P", "W_U") else f"blocks.0.{name}"
        data[name] = model.params[key].tolist()
    return data


def editor_data(model: Model) -> dict:
    """What End to End's weights editor needs besides the weights, in a
    file of its own (EDITOR_URI) that End to End, which has no editor, does
    not load: the weights file's comments, for the download, and the
    loader's rules for a typed number, which the editor follows."""
    return {"comments": file_comments(model.text),
            "numbers": {"rules": NUMBER_RULES, "minus": MINUS, "max_digits": MAX_DIGITS,
                        "max_weight": MAX_WEIGHT}}


def editor_json(model: Model) -> str:
    return json.dumps(editor_data(model), ensure_ascii=False, separators=(",", ":"))


def file_comments(text: str) -> dict:
    """The comments of a weights file, for the simulator's download: the
    file's opening lines ("header"), and per top-level key the comment
    lines just above it ("above"), the one on its own line ("inline"),
    the indented comment lines inside it ("inside") and each row's own
    ("rows", "" for a row without one)."""
    lines = text.splitlines()
    out: dict = {"header": [], "keys": {}}
    k = 0
    while k < len(lines) and lines[k].startswith("#"):
        out["header"].append(lines[k])
        k += 1
    block: list[str] = []
    current = None
    for line in lines[k:]:
        if line.startswith("#"):
            block.append(line)
            continue
        key = line.split(":", 1)[0]
        if line and not line[0].isspace() and ":" in line and key.isidentifier():
            inline = line.split("#", 1)[1].strip() if "#" in line.split(":", 1)[1] else ""
            current = out["keys"][key] = {"above": block, "inline": inline, "inside": [], "rows": []}
        elif current is not None and line[:1].isspace() and line.strip():
            if line.strip().startswith("#"):
                current["inside"].append(line)
            elif line.strip().startswith("-"):
                current["rows"].append(line.split("#", 1)[1].strip() if "#" in line else "")
        if not line.startswith("#"):
            block = [] if line.strip() == "" or not line[0].isspace() else block
    return out


def weights_json(model: Model) -> str:
    # floats go out as Python's repr, which reads back as the same double
    return json.dumps(weights_data(model), ensure_ascii=False, separators=(",", ":"))


def nano_setup(nano: Nano) -> dict:
    """nano-gpt for the browser besides its weights (NANO_WEIGHTS_URI, the
    weights file as published): its sizes, its letters and the record of
    its training (the chapter's live training table and loss curve, for
    weights a reader trained in the page as for the book's)."""
    cfg = nano.cfg
    return {"vocab": list(VOCAB), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx,
            "width": cfg.mlp_width, "ln_eps": LN_EPS, "gelu_c": GELU_C, "record": nano.record,
            "wholes": record_wholes()}


def record_wholes() -> dict:
    """The record's whole-number fields and their ranges, the build's
    (nanogpt_record.py): the browser checks a reader's stored record by them."""
    return {"seed": [0, MAX_SEED], "batch": [1, MAX_BATCH], "steps": [1, MAX_STEPS],
            "accuracy_on_729": [0, INPUTS]}


def nano_setup_json(nano: Nano) -> str:
    return json.dumps(nano_setup(nano), separators=(",", ":"))


def nano_weights_bytes(nano: Nano) -> bytes:
    return published(nano.params, param_shapes(nano.cfg))
