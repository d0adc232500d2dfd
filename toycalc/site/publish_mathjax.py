"""MkDocs hook: publish MathJax with the site, so that no page loads a CDN.

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

The book's own formulas are typeset at build (typeset.py, on the same
MathJax's CommonJS modules, `js/`, as SVG, which needs no fonts); the
script and its fonts come to a page only for the formulas a page's script
makes (mathjax-config.js).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

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
    script = mathjax_script(source)
    files.append(File.generated(config, MATHJAX_URI, content=script))
    for name, uri in mathjax_files(source).items():
        path = source / name
        if not path.is_file():
            raise PluginError(f"MathJax file {path} is missing: reinstall django-static-mathjax==3.2.2.1")
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
