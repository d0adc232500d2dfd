"""MkDocs hooks: publish MathJax with the site, so no page loads a CDN,
and the toy model's weights as JSON for the simulator (toycalc/export.py);
keep the last good site and keep `mkdocs serve` alive through mistakes.

MathJax 3.2.2 comes from the pinned `django-static-mathjax` package (it
carries the npm release's files; Apache-2.0). The site loads one script,
`javascripts/mathjax/mathjax.js`: MathJax's own component files joined,
what `tex-chtml.js` holds (TeX in, HTML and CSS out, hidden MathML for
screen readers) less its right-click menu, 40% of that file (the menu's
speech and explorer options would fetch files the site does not publish).
`startup.js` goes first: it starts MathJax once the script has run, when
the components after it have registered. The CommonHTML output's CSS
fetches the woff fonts it needs from beside the script
(`output/chtml/fonts/woff-v2`): they are published at those paths.
"""
from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import re
import shutil
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils import CountHandler
from mkdocs.utils import get_relative_url

from toycalc.model.nanogpt import NanoWeightsError, load as load_nano
from toycalc.site.export import NANO_URI, WEIGHTS_URI, nano_weights_json, weights_json, weights_path
from toycalc.model.weights import WeightsError, load_toy
from toycalc.site import speedups

speedups.install()     # the print page in linear time, templates compiled once (see speedups.py)

MATHJAX_URI = "javascripts/mathjax/mathjax.js"
MATHJAX_PARTS = ["es5/startup.js", "es5/core.js", "es5/input/tex.js", "es5/output/chtml.js",
                 "es5/output/chtml/fonts/tex.js", "es5/a11y/assistive-mml.js"]
FONTS = "output/chtml/fonts/woff-v2"
# file in the package -> where the site serves it, beside mathjax.js
MATHJAX_FILES = {"LICENSE": "javascripts/mathjax/LICENSE"}


def mathjax_dir() -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise PluginError("MathJax is missing: install the pinned dependencies "
                          "(make install) to get django-static-mathjax")
    return Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"


def mathjax_script(source: Path) -> str:
    """MathJax's components, joined into the one script the pages load."""
    missing = [name for name in MATHJAX_PARTS if not (source / name).is_file()]
    if missing:
        raise PluginError(f"MathJax files {', '.join(missing)} are missing from {source}: "
                          "reinstall django-static-mathjax==3.2.2.1")
    return ";\n".join((source / name).read_text(encoding="utf-8") for name in MATHJAX_PARTS)


def mathjax_files(source: Path) -> dict[str, str]:
    """The other files the site publishes as they are: the license and the fonts."""
    fonts = sorted((source / "es5" / FONTS).glob("*.woff"))
    if not fonts:
        raise PluginError(f"MathJax's fonts are missing from {source / 'es5' / FONTS}: "
                          "reinstall django-static-mathjax==3.2.2.1")
    return MATHJAX_FILES | {f"es5/{FONTS}/{f.name}": f"javascripts/mathjax/{FONTS}/{f.name}" for f in fonts}


def on_files(files, config):
    source = mathjax_dir()
    files.append(File.generated(config, MATHJAX_URI, content=mathjax_script(source)))
    for name, uri in mathjax_files(source).items():
        path = source / name
        if not path.is_file():
            raise PluginError(f"MathJax file {path} is missing: reinstall django-static-mathjax==3.2.2.1")
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    toy_weights(files, config)
    nano_weights(files, config)
    return files


def toy_weights(files, config) -> None:
    """Publish the weights the macros use, for docs/javascripts/toygpt.js."""
    path = weights_path(config)
    if path is None:
        raise PluginError("mkdocs.yml: extra.toycalc.weights is not set: "
                          "expected the path of the toy weights file")
    try:
        model = load_toy(path)
    except WeightsError as e:
        if SERVING:       # the macros show the error on every page; the simulator waits
            return
        raise PluginError(str(e)) from None
    files.append(File.generated(config, WEIGHTS_URI, content=weights_json(model)))


def nano_weights(files, config) -> None:
    """Publish nano-gpt's weights for the nano-gpt pages' browser runs."""
    try:
        nano = load_nano()
    except NanoWeightsError as e:
        raise PluginError(str(e)) from None
    files.append(File.generated(config, NANO_URI, content=nano_weights_json(nano)))


# ---------------------------------------------------------------- build and serve
#
# `mkdocs build` empties site_dir before it starts, so a failing or
# interrupted build would leave no site at all. Here it builds into a
# hidden folder beside site_dir and moves that into place only when the
# whole build succeeded (strict warnings included); otherwise the folder
# goes and the previous site stays as it was.
#
# `mkdocs serve` builds into a temporary folder of its own: that is left
# alone. There a mistake in a page or in the weights must not end the
# server: the macros plugin's on_error_fail is turned off, so the page
# shows the error (macros.py) and the next good edit brings it back.

SERVING = False      # set once per process: the hooks module outlives serve's rebuilds
DIRTY = False
STAGING: dict = {}   # staging folder -> the site_dir it stands for


def on_startup(command, dirty):
    global SERVING, DIRTY
    SERVING, DIRTY = command == "serve", dirty


@event_priority(100)   # before the plugins, so that every one of them writes to the staging folder
def on_config(config):
    macros = config.plugins.get("macros")
    if SERVING and macros is not None:
        macros.config["on_error_fail"] = False
    if not SERVING and not DIRTY:
        final = Path(config.site_dir)
        staging = final.parent / f".{final.name}.building-{os.getpid()}"
        remove(staging)
        STAGING[str(staging)] = final
        config.site_dir = str(staging)
    return config


def on_pre_build(config):
    macros = config.plugins.get("macros")
    if macros is not None and getattr(macros, "_env", None) is not None:   # made in its on_config
        speedups.keep_compiled_pages(macros.env)    # the pages' templates, once per text


@event_priority(-100)  # after every other plugin has written its files
def on_post_build(config):
    staging = config.site_dir
    if staging not in STAGING:
        return
    if any(isinstance(h, CountHandler) and h.get_counts() for h in logging.getLogger("mkdocs").handlers):
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


def on_serve(server, config, builder):
    """Watch a weights file kept outside the watched folders (TOYCALC_WEIGHTS):
    the file itself, not its folder, which may hold anything (a log written
    there would rebuild forever). Its folder is watched without descending,
    and only events on the file count, so that an editor's save by rename
    is seen too."""
    path = weights_path(config)
    if path is None:
        return server
    path = path.resolve()
    watched = [Path(config.docs_dir).resolve()] + [Path(w).resolve() for w in config.watch]
    if any(path.is_relative_to(w) for w in watched):
        return server
    import watchdog.events

    class WeightsFile(watchdog.events.FileSystemEventHandler):
        def on_any_event(self, event):
            touched = {os.fsdecode(event.src_path), os.fsdecode(getattr(event, "dest_path", "") or "")}
            if str(path) in touched:
                with server._rebuild_cond:      # as mkdocs's own watch() does (mkdocs 1.6)
                    server._want_rebuild = True
                    server._rebuild_cond.notify_all()
    server.observer.schedule(WeightsFile(), str(path.parent), recursive=False)
    return server

# The pages with a live part of nano-gpt (the "Letters to sort" field, a
# matrix that opens in full, numbers that can follow the reader's letters)
# and only those load the browser GPT, inside
# the page's content, so that instant navigation runs them too.
NANO_LIVE = re.compile(r"<(?:div|table|span|figure)\b[^>]*\sdata-nano-(?:sort|full|live)\b")   # a tag, not words about it
NANO_ASSETS = ('<link rel="stylesheet" href="{0}stylesheets/nanogpt.css">\n'
               '<script src="{0}javascripts/render.js"></script>\n'
               '<script src="{0}javascripts/gpt.js"></script>\n'
               '<script src="{0}javascripts/draw.js"></script>\n'
               '<script src="{0}javascripts/nano_gpt.js"></script>\n'
               '<script src="{0}javascripts/dom.js"></script>\n'
               '<script src="{0}javascripts/letters.js"></script>\n')


def on_page_content(html, page, config, files):
    if not NANO_LIVE.search(html):
        return html
    root = get_relative_url(".", page.url)
    root = "" if root == "." else root + "/"
    return html + "\n" + NANO_ASSETS.format(root, root, root)
