"""The toy model's weights as JSON, for the simulator in the browser.

The build publishes this file as `javascripts/toy-weights.json` (see
publish_weights.py), what the weights editor needs besides as
`javascripts/toy-editor.json`, read from the same weights file the macros use
(weights_files.py), so a change to toy.yaml changes the simulator too;
and nano-gpt's as `javascripts/nanogpt-weights.json`. Nothing here knows
MkDocs.
"""
from __future__ import annotations

import json

import base64

import numpy as np

from ..model.gpt import GELU_C, LN_EPS
from ..model.sizes import block_shapes
from ..model.nanogpt import VOCAB, Nano
from ..model.weights import MATRICES, MAX_WEIGHT, Model
from ..model.yamlfile import MAX_DIGITS, MINUS, NUMBER_RULES

WEIGHTS_URI = "javascripts/toy-weights.json"
EDITOR_URI = "javascripts/toy-editor.json"
NANO_URI = "javascripts/nanogpt-weights.json"


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


def packed(values: np.ndarray) -> dict:
    """An array as its shape and its bytes (little-endian) in base64, exact
    either way: float16 when every number is one (the shipped nano-gpt's
    are: training stores them so), else float32. Half the bytes matter,
    since the reader downloads them and float bytes hardly compress."""
    with np.errstate(over="ignore"):         # a number beyond float16's range is just not one
        half = values.astype("<f2")
    if np.array_equal(half.astype(values.dtype), values):
        return {"shape": list(values.shape), "f16": base64.b64encode(half.tobytes()).decode("ascii")}
    return {"shape": list(values.shape), "f32": base64.b64encode(values.astype("<f4").tobytes()).decode("ascii")}


def nano_weights_data(nano: Nano) -> dict:
    """nano-gpt for the browser (docs/javascripts/gpt.js unpacks it): the
    sizes, the letters, every parameter packed, the blocks' by name, and
    the record of its training (the chapter's live training table and
    loss curve, for weights a reader trained in the page as for the book's)."""
    cfg, params = nano.cfg, nano.params
    return {"vocab": list(VOCAB), "heads": cfg.n_heads, "d": cfg.d, "n_ctx": cfg.n_ctx,
            "width": cfg.mlp_width, "ln_eps": LN_EPS, "gelu_c": GELU_C, "packed": True,
            "E": packed(params["E"]), "P": packed(params["P"]), "W_U": packed(params["W_U"]),
            "gamma_f": packed(params["gamma_f"]), "beta_f": packed(params["beta_f"]),
            "blocks": [{name: packed(params[f"blocks.{b}.{name}"]) for name in block_shapes(cfg)}
                       for b in range(cfg.n_blocks)],
            "record": nano.record}


def nano_weights_json(nano: Nano) -> str:
    return json.dumps(nano_weights_data(nano), separators=(",", ":"))
