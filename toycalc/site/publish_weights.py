"""MkDocs hook: publish the weights the macros read, for the browser's
runs (export.py: the toy's as JSON, nano-gpt's as its weights file): the toy's for the simulator and the
weights editor, nano-gpt's for its pages' live parts. (The pages' code
is not this hook's: each part names its module, data-module, and
docs/javascripts/book.js imports it.)"""
from __future__ import annotations

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from toycalc.model.nanogpt import NanoWeightsError, load as load_nano
from toycalc.model.weights import WeightsError, load_toy
from toycalc.site.export import (EDITOR_URI, NANO_URI, NANO_WEIGHTS_URI, WEIGHTS_URI, editor_json,
                                 nano_setup_json, nano_weights_bytes, weights_json)
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
    nano = nano_model(config)
    files.append(File.generated(config, NANO_URI, content=nano_setup_json(nano)))
    files.append(File.generated(config, NANO_WEIGHTS_URI, content=nano_weights_bytes(nano)))
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


def nano_model(config):
    """nano-gpt as the macros read it, for the nano-gpt pages' browser runs."""
    try:
        return read_by_this_build(config, "nano") or load_nano(weights_files(config).nano)
    except NanoWeightsError as e:
        raise PluginError(str(e)) from None
