"""The print page's anchor ids, renamed in one pass (toycalc/site/print_page.py)
in place of mkdocs-print-site-plugin's quadratic function: the same result,
on the book's own pages and on the cases the plugin handles."""
from __future__ import annotations

import re

from mkdocs_print_site_plugin import urls

from conftest import page
from toycalc.site import print_page


def plugins_update_anchor_ids():
    """The plugin's own function, read from its source file, whatever is installed."""
    namespace = {"re": re}
    source = open(urls.__file__, encoding="utf-8").read()
    start = source.index("def update_anchor_ids(")
    end = source.index("\ndef ", start + 1)
    exec(source[start:end], namespace)
    return namespace["update_anchor_ids"]


CASES = ['<h2 id="two-models">Two models</h2>',
         '<h3 class="x" id="step-6">Step 6</h3><p id="not-me">p</p>',
         '<li id="fn:1"><p>note</p></li>\n<sup id="fnref:1"><a href="#fn:1">1</a></sup>',
         '<div id="path"><h1 id="title">T</h1></div>',
         '<h1>no id</h1>\n<li>plain</li>\n<table id="t"></table>',
         '<H2 id="upper">Upper</H2>']


def test_the_same_ids_as_the_plugins_on_its_cases():
    theirs = plugins_update_anchor_ids()
    for case in CASES:
        assert print_page.update_anchor_ids(case, "toy-attention") == theirs(case, "toy-attention"), case


def test_the_same_ids_as_the_plugins_on_the_books_pages(site):
    """Every line of every page short enough for the plugin's function to
    finish at once (the long lines are the figures and tables it is slow on)."""
    theirs = plugins_update_anchor_ids()
    compared = 0
    for html in sorted(site.rglob("index.html")):
        if "print_page" in html.parts:
            continue
        lines = [line for line in html.read_text(encoding="utf-8").split("\n") if len(line) < 2000]
        text = "\n".join(lines)
        assert print_page.update_anchor_ids(text, "k") == theirs(text, "k"), html
        compared += len(re.findall(r'<h[1-6]\s[^>]*id="', text))
    assert compared > 100


def test_the_built_print_page_prefixes_each_heading_with_its_page(site):
    soup = page(site, "print_page")
    ids = [h["id"] for h in soup.select("#print-site-page h2[id]")]
    assert "index-two-models" in ids
    assert any(i.startswith("toy-attention-") for i in ids) and any(i.startswith("nano-gpt-mlp-") for i in ids)
    assert len(ids) == len(set(ids))
