"""MkDocs hook: keep `mkdocs serve` alive through mistakes, and rebuild
when a weights file kept outside the watched folders changes.

Under serve a mistake in a page or in the weights must not end the
server: the macros plugin's on_error_fail is turned off, so the page
shows the error (errors.py) and the next good edit brings it back.
"""
from __future__ import annotations

import os
from pathlib import Path

from mkdocs.plugins import event_priority

from toycalc.site import pinned
from toycalc.site.weights_files import weights_files

SERVING = False      # set once per process: a hook module outlives serve's rebuilds


def on_startup(command, dirty):
    global SERVING
    SERVING = command == "serve"


@event_priority(100)   # before the macros plugin's on_config, which runs define_env
def on_config(config):
    if SERVING:
        pinned.keep_serving_on_macro_errors(config)
    return config


def on_serve(server, config, builder):
    """Watch a weights file kept outside the watched folders (TOYCALC_WEIGHTS):
    the file itself, not its folder, which may hold anything (a log written
    there would rebuild forever). Its folder is watched without descending,
    and only events on the file count, so that an editor's save by rename
    is seen too."""
    path = weights_files(config).toy.resolve()
    watched = [Path(config.docs_dir).resolve()] + [Path(w).resolve() for w in config.watch]
    if any(path.is_relative_to(w) for w in watched):
        return server

    def on_the_file(event) -> bool:
        touched = {os.fsdecode(event.src_path), os.fsdecode(getattr(event, "dest_path", "") or "")}
        return str(path) in touched
    pinned.rebuild_on(server, str(path.parent), on_the_file)
    return server
