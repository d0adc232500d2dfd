"""MkDocs hooks for what a reader of a Material site expects of each page:
the glossary (glossary.py: the file checked, its list on docs/glossary.md,
a term's mark at its first use), what search leaves out (search_marks.py),
a description, a formula kept on one line with its punctuation, edit links
(the passes over a page's HTML run in html_pass.py).
A page's description (search engines, link previews) is its front
matter's `description`, or else its first paragraph. With a repo_url, each
page links to its Markdown there (edit_uri, set here from
TOYCALC_EDIT_BRANCH).
"""
from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from toycalc.site.environment import setting
from toycalc.site.glossary import GLOSSARY, GLOSSARY_PAGE, MARKER, glossary_markdown, read_glossary

DESCRIPTION_CHARS = 160

_terms: dict[str, str] = {}   # the glossary, read at on_config


def on_config(config):
    if config["repo_url"]:
        branch = setting("TOYCALC_EDIT_BRANCH") or "main"
        config["edit_uri"] = f"edit/{branch}/docs/"
    path = Path(config["config_file_path"]).parent / GLOSSARY
    if not path.is_file():
        raise PluginError(f"{path} is missing: it holds the glossary, one '*[term]: definition' a line")
    global _terms
    _terms = read_glossary(path)
    return config


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == GLOSSARY_PAGE:
        if MARKER not in markdown:
            raise PluginError(f"docs/{GLOSSARY_PAGE}: the line {MARKER} is missing: "
                              "the glossary's list is written in its place")
        markdown = markdown.replace(MARKER, glossary_markdown(_terms))
    return markdown


# a paragraph as Python-Markdown writes it (<p> without attributes; none holds another)
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)


def first_paragraph_text(html: str) -> str:
    """The text of the page's first paragraph, without tags or TeX
    delimiters, cut at a word to at most DESCRIPTION_CHARS characters."""
    m = _PARAGRAPH.search(html)
    if m is None:
        return ""
    text = htmllib.unescape(re.sub(r"<[^>]+>", "", m[1]))
    text = re.sub(r"\\[()\[\]]", "", text)                  # \( \) \[ \]
    text = re.sub(r"\\(?:mathrm|text|mathbf|operatorname)\{([^}]*)\}", r"\1", text)
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_CHARS:
        return text
    cut = text[:DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


# A formula in a sentence is a box after which the browser may break the
# line, leaving its full stop or comma alone at the start of the next one:
# a formula and the punctuation that touches it stay on one line.
_MATH_PUNCTUATED = re.compile(r'(\()?(<span class="arithmatex">\\\(.*?\\\)</span>)([.,;:!?)]+)?')


def math_with_its_punctuation(html: str) -> str:
    return _MATH_PUNCTUATED.sub(lambda m: f'<span class="math-nowrap">{m[0]}</span>'
                                if m[1] or m[3] else m[0], html)
