"""MkDocs hook: keep `mkdocs serve` alive through mistakes, and rebuild
when a weights file (or nano-gpt's record) kept outside the watched
folders changes.

Under serve a mistake in a page or in the weights must not end the
server: the macros plugin's on_error_fail is turned off, so the page
shows the error (errors.py) and the next good edit brings it back. Any
other error that stops a rebuild (a hook's, a plugin's) is shown the same
way, on every page, and printed once; the server keeps answering.
"""
from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import BuildError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import get_files

from toycalc.book.render import plain
from toycalc.site import pinned
from toycalc.site.errors import LOGGED, PAGE_ERROR, log
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


ERROR_PAGE = """<!doctype html>
<html lang="en"><meta charset="utf-8"><title>{title}</title>
<body style="font: 16px/1.5 sans-serif; max-width: 40em; margin: 2em auto; padding: 0 1em">
<div class="admonition failure"><p class="admonition-title"><strong>{title}</strong></p>
<p>{message}</p><p>Save a fix: the page comes back by itself.</p></div>
</body></html>
"""


FAILED: dict = {}    # the error that stopped this rebuild, as on_build_error saw it


def on_build_error(error):
    FAILED["error"] = error


def show_failed_rebuild(config, error: Exception) -> None:
    """Print the error once, and put it in place of every page of the served
    site (whatever the failed build left of it), until the next good build.
    A BuildError reaches the server as mkdocs' Abort("Aborted with a
    BuildError!"), once mkdocs has printed it: the page shows the error
    itself (on_build_error), the terminal only says what happens next."""
    cause = FAILED.pop("error", None) or error
    message = " ".join(str(cause).split()) or type(cause).__name__
    if isinstance(cause, BuildError):
        log.error("the rebuild failed (above): every page shows why until the next good save")
    elif message not in LOGGED:
        LOGGED.add(message)
        log.error(f"the rebuild failed: {message}")
    shown = ERROR_PAGE.format(title=PAGE_ERROR, message=plain(message))
    for file in get_files(config):
        if file.is_documentation_page():
            path = Path(config.site_dir) / file.dest_uri
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(shown, encoding="utf-8")


def on_serve(server, config, builder):
    pinned.answer_after_failed_rebuilds(server, lambda error: show_failed_rebuild(config, error))
    watch_the_weights(server, config)
    return server


def watch_the_weights(server, config) -> None:
    """Watch every file the build reads that is kept outside the watched
    folders (TOYCALC_WEIGHTS, and every registered model's weights, record
    and data, weights_files.read):
    the file itself, not its folder, which may hold anything (a log written
    there would rebuild the site each time). MkDocs watches a file as it
    watches mkdocs.yml (server.watch, the on_serve event's documented use),
    an editor's save by rename included. A file that does not exist yet
    cannot be watched: then its folder is, and anything saved there
    rebuilds the site."""
    watched = [Path(config.docs_dir).resolve()] + [Path(w).resolve() for w in config.watch]
    for path in weights_files(config).read:
        path = path.resolve()
        if any(path.is_relative_to(w) for w in watched):
            continue
        if path.is_file():
            server.watch(str(path))
        elif path.parent.is_dir():
            server.watch(str(path.parent), recursive=False)
