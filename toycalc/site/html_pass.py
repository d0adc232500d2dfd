"""MkDocs hooks: every pass the build makes over a page's HTML, in the
order each runs. Each step is a function from a page's HTML (and the page)
to its HTML, named in CONTENT or PAGE below; no other module changes a
page's HTML.

Two moments, each one event:
- CONTENT, the Markdown's HTML before the theme wraps it: before any plugin
  reads it (search indexes it, and the print page keeps each page's
  content as it is at this event), so it runs first of the event (its
  priority, 100, is the only number that orders these passes).
- PAGE, the whole page as the theme wrote it: after the plugins (-90), the
  formulas typeset last, as every other step writes markup MathJax never
  reads. The print page, which print-site writes after the pages, goes
  through the same steps once it is written (on_post_build).

What the steps read is markup the build wrote: the macros', Python-Markdown's
and arithmatex's HTML of the book's own pages, and the theme's head. A step
that reads the tree (the follow box's place among the article's children,
the head's links) parses it with selectolax (Lexbor, an HTML5 parser) and
writes that part again as the parser serializes it (the same tree; Lexbor
parses the whole print page in 0.2 s); the others match a tag the book
writes in one form, said beside each pattern.
"""
from __future__ import annotations

import html as htmllib
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

from mkdocs.plugins import event_priority

from toycalc.site import blocks, page_speed, pages, typeset
from toycalc.site.glossary import GLOSSARY_PAGE, marked_uses, without_marks
from toycalc.site.search_marks import out_of_search


# ---------------------------------------------------------------- the content

def blocks_put_back(html, page, config, files):
    """The macros' tables and figures where their placeholders stood (blocks.py)."""
    return blocks.put_back(page, html)


def drawings_linked(html, page, config, files):
    """A drawing's links to pages as their addresses (blocks.py)."""
    return blocks.page_links(page, html, files)


def search_marked(html, page, config, files):
    """What search leaves out, marked (search_marks.py)."""
    return out_of_search(html)


def formulas_with_their_punctuation(html, page, config, files):
    """A formula and the punctuation that touches it on one line (pages.py)."""
    return pages.math_with_its_punctuation(html)


def description_kept(html, page, config, files):
    """The page's description, from its first paragraph unless its front
    matter gives one (pages.py); the HTML as it is."""
    if not page.meta.get("description"):
        description = pages.first_paragraph_text(html)
        if description:
            page.meta["description"] = htmllib.escape(description, quote=True)   # the theme writes it unescaped
    return html


def glossary_marked(html, page, config, files):
    """A glossary term's mark at its first use; none on the glossary's own page."""
    return without_marks(html) if page.file.src_uri == GLOSSARY_PAGE else marked_uses(html)


CONTENT = (blocks_put_back, drawings_linked, search_marked, formulas_with_their_punctuation,
           description_kept, glossary_marked)


# ---------------------------------------------------------------- the page

def head_links_absolute(output, page, config):
    """The head's <link>s absolute where the site knows its address (page_speed.py)."""
    return page_speed.with_head_links_absolute(output, page.canonical_url if config.site_url else None)


def tables_boxed(output, page, config):
    """Every table of the article the book's, in Material's boxes (page_speed.py)."""
    return page_speed.with_tables_wrapped(output)


def follow_place_kept(output, page, config):
    """The place of nano-gpt's box to follow the reader's letters (page_speed.py)."""
    return page_speed.with_follow_place(output)


def article_classed(output, page, config):
    """The article's classes, said once for its stylesheets (page_speed.py)."""
    return page_speed.with_article_classes(output)


def formulas_typeset(output, page, config):
    """Every formula as MathJax draws it, and the glyphs it uses (typeset.py)."""
    try:
        source = page.file.content_string
    except (OSError, UnicodeDecodeError):
        source = ""
    return typeset.typeset(output, page.file.src_uri, source)


PAGE = (head_links_absolute, tables_boxed, follow_place_kept, article_classed, formulas_typeset)


@event_priority(100)    # before any plugin reads the page (search, the print page)
def on_page_content(html, page, config, files):
    for step in CONTENT:
        html = step(html, page, config, files)
    return html


def page_pass(output, page, config) -> str:
    """The page through PAGE's steps, in order."""
    for step in PAGE:
        output = step(output, page, config)
    return output


@event_priority(-90)    # after the plugins have written the page
def on_post_page(output, page, config):
    return page_pass(output, page, config)


def print_page(config) -> SimpleNamespace:
    """What PAGE's steps read of a page, for the print page: its address
    (where the site knows its own) and its name in a formula's error."""
    address = urljoin(config.site_url, "print_page/") if config.site_url else None
    return SimpleNamespace(canonical_url=address, file=SimpleNamespace(src_uri="the print page", content_string=""))


@event_priority(-90)    # after print-site has written the print page, before staged_build's
def on_post_build(config):
    for printed in Path(config.site_dir).glob("print_page/index.html"):
        printed.write_text(page_pass(printed.read_text(encoding="utf-8"), print_page(config), config), encoding="utf-8")
