"""MkDocs hook: publish the weights the macros read, for the browser's
runs: the toy's as JSON (export.py) for the simulator and the weights
editor; every registered model's (model/models.py) weights file where its
declaration says (`published`), as the build read it: nano-gpt's for its
pages' live parts, beside its setup and record (export.NANO_URI), the
writer's for "Type, it writes". (The pages' code is not this hook's: each
part names its module, data-module, and docs/javascripts/book.js imports it.)"""
from __future__ import annotations

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from toycalc.book.chapters import CHAPTERS
from toycalc.model.weights import WeightsError, load_toy
from toycalc.model import models, safetensors_file, sizes
from toycalc.site.errors import BookError
from toycalc.site.export import EDITOR_URI, NANO_URI, WEIGHTS_URI, editor_json, nano_setup_json, weights_json
from toycalc.site.runs import model_run, read_by_this_build
from toycalc.site.weights_files import model_file, weights_files

SERVING = False      # set once per process: a hook module outlives serve's rebuilds


def on_startup(command, dirty):
    global SERVING
    SERVING = command == "serve"


def on_files(files, config):
    model = toy_model(config)
    if model is not None:
        files.append(File.generated(config, WEIGHTS_URI, content=weights_json(model)))
        files.append(File.generated(config, EDITOR_URI, content=editor_json(model)))   # the Simulator's editor
    files.append(File.generated(config, NANO_URI, content=nano_setup_json(model_read(config, models.NANO_GPT))))
    for uri, content in published_weights(config):
        files.append(File.generated(config, uri, content=content))
    return files


def published_weights(config) -> list[tuple[str, bytes]]:
    """Every registered model's weights file for the browser: (where, its bytes)."""
    out = []
    for declaration in models.REGISTRY.values():
        if declaration.published:
            loaded = model_read(config, declaration)
            out.append((declaration.published,
                        safetensors_file.published(loaded.params, sizes.param_shapes(declaration.config))))
    return out


def model_read(config, declaration):
    """A registered model's weights as the macros read them this build (its
    chapter's run: runs.py), else read now; a file that does not load stops
    the build."""
    try:
        read = read_by_this_build(config, declaration.name)
        if read is None and declaration.name in CHAPTERS:
            model_run(config, declaration.name)     # read now, for this build's pages too
            read = read_by_this_build(config, declaration.name)
        return read or models.load(declaration, model_file(declaration))
    except (ValueError, BookError) as e:
        raise PluginError(str(e)) from None


def toy_model(config):
    """The toy model the macros computed the pages from (runs.py), else read
    now; None under serve while the file does not load (the pages say why)."""
    try:
        return read_by_this_build(config, "toy") or load_toy(weights_files(config).toy)
    except WeightsError as e:
        if SERVING:       # the macros show the error on every page; the simulator waits
            return None
        raise PluginError(str(e)) from None

