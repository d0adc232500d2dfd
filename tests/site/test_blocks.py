"""toycalc/site/blocks.py: the macros' tables and figures reach Markdown as
one-line placeholders and come back whole, where each was called."""
from __future__ import annotations

import types

from bs4 import BeautifulSoup

from conftest import build_with_page
from toycalc.book import end_to_end
from toycalc.book.example import Example
from toycalc.model.weights import DEFAULT_TOY, load_toy
from toycalc.site.blocks import kept, put_back
from toycalc.site.search_marks import out_of_search


def test_each_placeholder_gets_its_own_block_back():
    page = types.SimpleNamespace()
    table, figure = "<table><tr><td>1</td></tr></table>", '<figure class="toy-figure">2</figure>'
    a, b = kept(page, table), kept(page, figure)
    assert "\n" not in a and a != b
    html = f"<p>x</p>\n{b}\n<div class=\"admonition\">{a}</div>"
    assert put_back(page, html) == f"<p>x</p>\n{figure}\n<div class=\"admonition\">{table}</div>"
    assert kept(None, table) == table            # no page (a macro called outside one): the block itself


def test_a_blocks_ids_are_anchors_mkdocs_checks_links_against():
    """mkdocs checks a link such as [this step's table](#step-4) against the
    ids it saw in the Markdown, which held only the placeholder."""
    page = types.SimpleNamespace(present_anchor_ids={"a-heading"})
    html = kept(page, '<section class="path-panel" id="step-4"><table id="table-u"></table></section>')
    put_back(page, html)
    assert page.present_anchor_ids == {"a-heading", "step-4", "table-u"}


def test_a_block_lands_verbatim_where_the_macro_was_called(project):
    text = ('# Blocks\n\n{{ table("ids", heads=1) }}\n\n'
            '!!! note "In a box"\n\n    {{ table("ids", heads=1) }}\n\n'
            '<div class="inside" markdown>\n\nSome *Markdown*.\n\n{{ table("ids", heads=1) }}\n\n</div>\n')
    result = build_with_page(project, text)
    assert result.returncode == 0, result.stderr
    html = (project / "site" / "bad" / "index.html").read_text(encoding="utf-8")
    # as the renderer wrote it, marked for search as every table of numbers is (site/search_marks.py)
    expected = out_of_search(end_to_end.steps.registries["table"]["ids"](Example(load_toy(DEFAULT_TOY), heads=1)))
    assert html.count(expected) == 3 and "data-toycalc-block" not in html
    soup = BeautifulSoup(html, "html.parser")
    tables = soup.select("article table")
    assert len(tables) == 3
    assert tables[1].find_parent(class_="admonition") is not None
    assert tables[2].find_parent(class_="inside") is not None
    assert soup.select_one(".inside em").text == "Markdown"


def test_no_placeholder_is_left_and_the_print_page_has_every_figure(site):
    pages = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    assert not [p for p, text in pages.items() if "data-toycalc-block" in text]
    figures = sum(text.count('<figure class="toy-figure') for p, text in pages.items()
                  if p.parent.name != "print_page")
    assert figures > 0
    assert pages[site / "print_page" / "index.html"].count('<figure class="toy-figure') == figures


def test_on_the_print_page_a_drawings_parts_link_to_their_sections(site):
    """The print plugin points a link to another page at that page's
    section of the print page, but reads only href: a drawing's links
    (xlink:href) kept their address relative to their own page, which the
    print page's address made wrong (Home's drawing: /print_page/toy/tokens/)."""
    text = (site / "print_page" / "index.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "html.parser")
    links = [a["xlink:href"] for a in soup.select("svg a")]
    assert len(links) > 100 and "data-svg-link" not in text
    ids = {el["id"] for el in soup.select("[id]")}
    assert [link for link in links if not link.startswith("#") or link[1:] not in ids] == []
    home = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert home.select_one('svg a[xlink\\:href="toy/tokens/"]'), "Home's own links stay relative to Home"


def test_on_the_print_page_every_link_within_it_reaches_an_element(site):
    """The print plugin prefixes a link within a page with the page's name,
    but only a heading's id: End to End's links to the steps of its path
    (#step-4) keep the panel's own id."""
    soup = BeautifulSoup((site / "print_page" / "index.html").read_text(encoding="utf-8"), "html.parser")
    ids = {el["id"] for el in soup.select("[id]")}
    inside = [a["href"] for a in soup.select('a[href^="#"]')]
    assert "#step-4" in inside and "end-to-end-step-4-layernorm" in ids
    assert [href for href in inside if href[1:] not in ids] == []


def test_home_names_the_book_s_heads_and_the_reader_s_apart(site):
    """Under any heads choice, Home never calls the reader's count the book's
    (it said "with the book's 4 heads"): the book's two heads are said once,
    and the chosen count is the chooser's."""
    text = BeautifulSoup((site / "index.html").read_text(encoding="utf-8"), "html.parser").get_text(" ")
    text = " ".join(text.split())
    assert "The book's weights were typed for two heads" in text
    assert "chosen here" in text
    for n in (1, 2, 4):
        assert f"book's {n} head" not in text
