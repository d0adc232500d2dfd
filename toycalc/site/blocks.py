"""The macros' tables and figures, kept out of Markdown's way.

Markdown reads every raw HTML block tag by tag (md_in_html looks inside
for `markdown` attributes), and a page's tables and figures are thousands
of tags with nothing in them for Markdown: that parse was half of a
rebuild. So a macro gives Markdown a one-line placeholder, the same kind
of block, and keeps its HTML on the page; html_pass.py puts it back
before any other plugin reads the page. The stash lives on the page
object, which mkdocs serve's reloaded toycalc modules share with this
module as a hook (mkdocs.yml). It also turns a drawing's links to pages
(`data-page`) into addresses.
"""
from __future__ import annotations

import html as html_text
import re

from mkdocs.exceptions import PluginError

from toycalc.site import pinned

PLACEHOLDER = '<div data-toycalc-block="{}"></div>'
_PLACEHOLDER = re.compile(r'<div data-toycalc-block="(\d+)"></div>')
# an id in a macro's HTML (render.py and draw.py write every attribute in double quotes)
_ID = re.compile(r'<[a-zA-Z][^>]*?\sid="([^"]+)"')


def kept(page, block: str) -> str:
    """A placeholder for block, an HTML element (or elements, one a line)
    that stands as a block of its own; block itself without a page."""
    if page is None:
        return block
    stash = page.__dict__.setdefault("toycalc_blocks", [])
    stash.append(block)
    return PLACEHOLDER.format(len(stash) - 1)


def put_back(page, html: str) -> str:
    """The page's HTML with every placeholder replaced by its block."""
    stash = page.__dict__.pop("toycalc_blocks", [])
    # the ids Markdown did not see: mkdocs checks a link to #step-4 against
    # the anchors it found in the Markdown (Page.present_anchor_ids)
    anchors = getattr(page, "present_anchor_ids", None)

    def block(m):
        if int(m[1]) >= len(stash):    # typed into the page, or copied from a built one
            raise PluginError(f"{page.file.src_path}: {m[0]} stands for a table or a figure that no "
                              "macro of this page made; remove it")
        if anchors is not None:
            anchors.update(html_text.unescape(i) for i in _ID.findall(stash[int(m[1])]))
        return stash[int(m[1])]
    return _PLACEHOLDER.sub(block, html)


# A drawing's part links to the page that explains it by the page's path
# in docs/ (book/model_drawing.py), as a Markdown link would: the book knows
# no URL. Here it becomes the page's address relative to this one.
_PAGE_LINK = re.compile(r'<a data-page="([^"]*)"')   # the link's other attributes stay


def page_links(page, html: str, files) -> str:
    def href(m):
        path = html_text.unescape(m[1])
        target = files.get_file_from_path(path)
        if target is None or not target.is_documentation_page():
            raise PluginError(f"{page.file.src_path}: a drawing links to {path!r}, which is not "
                              "a page of the book (docs/)")
        # xlink:href, not href: Material's instant navigation rewrites every
        # [href] as el.href = el.href, which an SVG link refuses (read-only)
        return f'<a xlink:href="{html_text.escape(target.url_relative_to(page.file))}"'
    return _PAGE_LINK.sub(href, html)


# On the print page every page is a section of one page, and the plugin
# points each link to another page at that page's section; it reads only
# href, so a drawing's links go through it as href and come back as
# xlink:href (else they kept their address relative to their own page).
_SVG_LINK = re.compile(r'<a xlink:href="([^"]*)"')
_PASSED = re.compile(r'<a href="([^"]*)" data-svg-link=""')


# The plugin also points a link within the page (#step-4) at the page's
# prefixed id, but it prefixes only the ids of headings (and of sup and li):
# a link to any other element (End to End's worked example links to the
# path's steps) keeps its own id.
_KEPT_ID = re.compile(r'<(?!(?:h[1-6]|sup|li)\b)[a-z][\w-]*\b[^>]*?\sid="([^"]+)"')


def print_page_links(fix_href_links, page_html: str, page_key: str, *page) -> str:
    kept = set(_KEPT_ID.findall(page_html))
    passed = fix_href_links(_SVG_LINK.sub(r'<a href="\1" data-svg-link=""', page_html), page_key, *page)
    passed = re.sub(rf'href="#{re.escape(page_key)}-([^"]+)"',
                    lambda m: f'href="#{m[1]}"' if m[1] in kept else m[0], passed)
    return _PASSED.sub(r'<a xlink:href="\1"', passed)


pinned.wrap_print_href_links(print_page_links)
