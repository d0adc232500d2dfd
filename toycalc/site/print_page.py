"""The print page (mkdocs-print-site-plugin 2.9, pinned) in linear time.

The plugin makes each page's heading ids unique on the combined page with
`urls.update_anchor_ids`, whose pattern `<([^\\s]+).*?id="…".*?>` tries
every `<` of a line against the rest of that line. The book's figures and
tables are single lines of up to 50,000 characters and 1,800 tags, so that
one function took 8 s for one page and about 40 of the build's seconds.
`update_anchor_ids` below prefixes the same ids (those of h1–h6, sup and
li elements) with one pass over the page; tests/site/test_print_page.py
holds it to the plugin's own function.
"""
from __future__ import annotations

import re

from mkdocs_print_site_plugin import urls

# the id of an h1-h6, sup or li tag (the elements the plugin renames), in that tag
OWN_ID = re.compile(r'<(h[1-6]|sup|li)(\s[^>]*?\bid=")([^"]*)"')


def update_anchor_ids(page_html: str, page_key: str) -> str:
    return OWN_ID.sub(lambda m: f'<{m[1]}{m[2]}{page_key}-{m[3]}"', page_html)


def install() -> None:
    """Use it in place of the plugin's (which `urls.fix_internal_links` calls)."""
    urls.update_anchor_ids = update_anchor_ids
