"""MkDocs hook: build elsewhere, then move the new site into place.

`mkdocs build` empties site_dir before it starts, so a failing or
interrupted build would leave no site at all. Here it builds into a
hidden folder beside site_dir and moves that into place only when the
whole build succeeded (strict warnings included); otherwise the folder
goes and the previous site stays as it was. `mkdocs serve` (which builds
into a temporary folder of its own) and `--dirty` builds are left alone.
"""
from __future__ import annotations

import atexit
import os
import shutil
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from toycalc.site import pinned

STAGED = False       # set once per process: a hook module outlives serve's rebuilds
STAGING: dict = {}   # staging folder -> the site_dir it stands for


def on_startup(command, dirty):
    global STAGED
    STAGED = command != "serve" and not dirty


@event_priority(100)   # before the plugins, so that every one of them writes to the staging folder
def on_config(config):
    if STAGED:
        final = Path(config.site_dir)
        staging = final.parent / f".{final.name}.building-{os.getpid()}"
        remove(staging)
        STAGING[str(staging)] = final
        config.site_dir = str(staging)
    return config


@event_priority(-100)  # after every other plugin has written its files
def on_post_build(config):
    staging = config.site_dir
    if staging not in STAGING:
        return
    if pinned.strict_will_fail():
        return   # --strict will fail this build: on_build_error removes the folder
    final = STAGING.pop(staging)
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    for _ in range(10):      # another build may be moving its own site into place
        remove(old)
        try:
            if final.exists():
                final.rename(old)
            Path(staging).rename(final)
            break
        except OSError:
            time.sleep(0.2)
    else:
        remove(Path(staging))
        raise PluginError(f"{final}: could not move the new site into place; the previous one stays")
    remove(old)
    config.site_dir = str(final)


def on_build_error(error):
    for staging in list(STAGING):
        remove(Path(staging))
        del STAGING[staging]


@atexit.register     # an interrupted build (Ctrl-C) or a macro's exit: never run on_build_error
def _leftovers():
    on_build_error(None)


def remove(folder: Path) -> None:
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
