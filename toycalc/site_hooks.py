"""MkDocs hooks: publish MathJax with the site, so no page loads a CDN.

MathJax 3.2.2 comes from the pinned `django-static-mathjax` package (it
carries the npm release's files; Apache-2.0). `es5/tex-svg-full.js` is the
one build that typesets every formula without fetching anything else.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

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
    return files
