"""MkDocs hook: publish the weights the macros read, for the browser's
runs (export.py writes them as JSON): the toy's for the simulator and the
weights editor, nano-gpt's for its pages' live parts, whose scripts go
only on the pages that have such a part (NANO_ASSETS)."""
from __future__ import annotations

import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from toycalc.model.nanogpt import NanoWeightsError, load as load_nano
from toycalc.model.weights import WeightsError, load_toy
from toycalc.site.export import (EDITOR_URI, NANO_URI, WEIGHTS_URI, editor_json, nano_weights_json,
                                 weights_json)
from toycalc.site.runs import read_by_this_build
from toycalc.site.weights_files import weights_files

SERVING = False      # set once per process: a hook module outlives serve's rebuilds


def on_startup(command, dirty):
    global SERVING
    SERVING = command == "serve"


def on_files(files, config):
    model = toy_model(config)
    if model is not None:
        files.append(File.generated(config, WEIGHTS_URI, content=weights_json(model)))
        files.append(File.generated(config, EDITOR_URI, content=editor_json(model)))   # the Simulator's editor
    files.append(File.generated(config, NANO_URI, content=nano_weights(config)))
    return files


def toy_model(config):
    """The toy model the macros computed the pages from (runs.py), else read
    now; None under serve while the file does not load (the pages say why)."""
    try:
        return read_by_this_build(config, "toy") or load_toy(weights_files(config).toy)
    except WeightsError as e:
        if SERVING:       # the macros show the error on every page; the simulator waits
            return None
        raise PluginError(str(e)) from None


def nano_weights(config) -> str:
    """nano-gpt's weights, for the nano-gpt pages' browser runs (as the toy's, weights_json)."""
    try:
        nano = read_by_this_build(config, "nano") or load_nano(weights_files(config).nano)
    except NanoWeightsError as e:
        raise PluginError(str(e)) from None
    return nano_weights_json(nano)


# The pages with a live part of nano-gpt (the "Letters to sort" field, a
# matrix that opens in full, numbers that can follow the reader's letters,
# or what stays the book's while the reader's trained weights are followed)
# and only those load the browser GPT, inside
# the page's content, so that instant navigation runs them too.
NANO_LIVE = re.compile(r"<(?:div|table|span|figure|p)\b[^>]*\sdata-nano-(?:sort|full|live|book-weights)\b")   # a tag, not words about it
NANO_ASSETS = ('<link rel="stylesheet" href="{0}stylesheets/nanogpt.css">\n'
               '<script src="{0}javascripts/render.js"></script>\n'
               '<script src="{0}javascripts/gpt.js"></script>\n'
               '<script src="{0}javascripts/draw.js"></script>\n'
               '<script src="{0}javascripts/charts.js"></script>\n'
               '<script src="{0}javascripts/nano_gpt.js"></script>\n'
               '<script src="{0}javascripts/dom.js"></script>\n'
               '<script src="{0}javascripts/letters.js"></script>\n')


# The page "Train it yourself" adds its own script (the worker it starts,
# train_worker.js, loads gpt.js, train.js, batched.js and kernels.wasm by itself).
NANO_TRAIN = re.compile(r"<div\b[^>]*\sdata-nano-train\b")
TRAIN_ASSETS = '<script src="{0}javascripts/train_page.js"></script>\n'


def on_page_content(html, page, config, files):
    trainer = NANO_TRAIN.search(html)
    if not (trainer or NANO_LIVE.search(html)):
        return html
    root = get_relative_url(".", page.url)
    root = "" if root == "." else root + "/"
    return html + "\n" + NANO_ASSETS.format(root) + (TRAIN_ASSETS.format(root) if trainer else "")
