"""MkDocs hooks: publish MathJax with the site, so no page loads a CDN,
and the toy model's weights as JSON for the simulator (toycalc/export.py).

MathJax 3.2.2 comes from the pinned `django-static-mathjax` package (it
carries the npm release's files; Apache-2.0). `es5/tex-svg-full.js` is the
one build that typesets every formula without fetching anything else.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from toycalc.model.nanogpt import NanoWeightsError, load as load_nano
from toycalc.site.export import NANO_URI, WEIGHTS_URI, nano_weights_json, weights_json, weights_path
from toycalc.model.weights import WeightsError, load_toy

MATHJAX_FILES = {"es5/tex-svg-full.js": "javascripts/mathjax/tex-svg-full.js",
                 "LICENSE": "javascripts/mathjax/LICENSE"}


def mathjax_dir() -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise PluginError("MathJax is missing: install the pinned dependencies "
                          "(make install) to get django-static-mathjax")
    return Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"


def on_files(files, config):
    source = mathjax_dir()
    for name, uri in MATHJAX_FILES.items():
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
        raise PluginError(str(e)) from None
    files.append(File.generated(config, WEIGHTS_URI, content=weights_json(model)))


def nano_weights(files, config) -> None:
    """Publish nano-gpt's weights for the nano-gpt pages' browser runs."""
    try:
        nano = load_nano()
    except NanoWeightsError as e:
        raise PluginError(str(e)) from None
    files.append(File.generated(config, NANO_URI, content=nano_weights_json(nano)))


# The pages with a live part of nano-gpt (the "Letters to sort" field, a
# matrix that opens in full) and only those load the browser GPT, inside
# the page's content, so that instant navigation runs them too.
NANO_LIVE = re.compile(r"<(?:div|table)\b[^>]*\sdata-nano-(?:sort|full)\b")   # a tag, not words about it
NANO_ASSETS = ('<link rel="stylesheet" href="{}stylesheets/nanogpt.css">\n'
               '<script src="{}javascripts/toygpt.js"></script>\n'
               '<script src="{}javascripts/nanogpt.js"></script>\n')


def on_page_content(html, page, config, files):
    if not NANO_LIVE.search(html):
        return html
    root = get_relative_url(".", page.url)
    root = "" if root == "." else root + "/"
    return html + "\n" + NANO_ASSETS.format(root, root, root)
