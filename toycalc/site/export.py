"""The toy model's weights as JSON, for the simulator in the browser.

The build publishes this file as `javascripts/toy-weights.json` (see
hooks.py), read from the same weights file the macros use, so a
change to toy.yaml changes the simulator too. Nothing here knows
mkdocs-macros: `weights_path` reads the MkDocs config directly.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..model.gpt import GELU_C, LN_EPS
from ..model.weights import MATRICES, Model

WEIGHTS_URI = "javascripts/toy-weights.json"


def weights_path(config) -> Path | None:
    """TOYCALC_WEIGHTS, else extra.toycalc.weights (relative to mkdocs.yml);
    None when neither is set."""
    chosen = os.environ.get("TOYCALC_WEIGHTS") or (config["extra"] or {}).get("toycalc", {}).get("weights")
    if not chosen:
        return None
    path = Path(chosen)
    return path if path.is_absolute() else Path(config["config_file_path"]).parent / path


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


def weights_json(model: Model) -> str:
    # floats go out as Python's repr, which reads back as the same double
    return json.dumps(weights_data(model), ensure_ascii=False, separators=(",", ":"))
