"""What the build says once so that the browser need not find it out at
every style recalculation (toycalc/site/page_speed.py, issue 40): the
article's classes in place of `:has()`, the article's tables in their
boxes, the head's links absolute; Material's files as shipped
(test_material_assets.py)."""
from __future__ import annotations

import re


from conftest import ROOT, parsed
from toycalc.site import page_speed

ARTICLE = page_speed.ARTICLE


def article(soup):
    return soup.select_one("article.md-content__inner")


def test_the_articles_say_what_they_hold_and_the_stylesheets_ask_no_has(site):
    assert article(parsed(site / "end-to-end" / "index.html"))["class"][-1] == "with-path"
    assert "with-nano-input" in article(parsed(site / "nano-gpt" / "embedding" / "index.html"))["class"]
    assert "with-nano-input" not in article(parsed(site / "nano-gpt" / "preliminaries" / "index.html"))["class"]
    assert "with-path" not in article(parsed(site / "toy" / "attention" / "index.html"))["class"]
    has = [f"{css.name}: {m[0]}" for css in sorted((ROOT / "docs" / "stylesheets").glob("*.css"))
           for m in re.finditer(r"[^\n]*:has\([^\n]*", re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S))]
    assert has == []


def test_our_stylesheets_are_served_without_their_comments_and_with_every_rule(site):
    for source in sorted((ROOT / "docs" / "stylesheets").glob("*.css")):
        served = (site / "stylesheets" / source.name).read_text(encoding="utf-8")
        text = source.read_text(encoding="utf-8")
        assert "/*" not in served and "*/" not in served, source.name
        # every rule kept: the braces outside the comments, each closed
        assert served.count("{") == served.count("}") == text.count("{") - comment_braces(text), source.name
        assert len(served) < len(text), source.name


def comment_braces(css: str) -> int:
    return sum(c.count("{") for c in page_speed.CSS_COMMENT.findall(css))


def test_every_table_of_an_article_is_the_book_s_and_comes_in_material_s_boxes(site):
    """Material's script boxes a table without a class at every load,
    restyling the article for each: the build gives every table of an
    article (render.py's, a Markdown table) the class book-table, which
    book.css styles, and puts each in Material's two boxes; a nano-gpt
    matrix is its own box."""
    for page in ("toy/attention", "end-to-end", "nano-gpt/self-attention", "nano-gpt/preliminaries", "contributing"):
        html = (site / page / "index.html").read_text(encoding="utf-8")
        art = html[html.index("<article"):html.index("</article>")]
        tables = re.findall(r"<table\b[^>]*>", art)
        assert tables and all(re.search(r'\sclass="[^"]+"', t) for t in tables), page
        book = [m.start() for m in re.finditer(r'<table\b[^>]*\sclass="book-table"[^>]*>', art)]
        boxes = re.compile(r'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">$')
        assert book and all(boxes.search(art[:at]) for at in book), page
        assert art.count('<div class="md-typeset__table">') == len(book)
    assert '<table class="book-table">' in (site / "contributing" / "index.html").read_text(encoding="utf-8")  # Markdown's


def test_tables_are_boxed_in_the_article_alone_and_nested_ones_once_each():
    page = ('<table><tr><td>out</td></tr></table><article class="md-content__inner md-typeset">'
            '<table id="t"><tr><td><table class="inner"><tr><td>x</td></tr></table></td></tr></table>'
            '<p>a</p><table class="book-table"><tr><td>y</td></tr></table></article><table></table>')
    boxed = page_speed.with_tables_wrapped(page)
    opened, closed = page_speed.TABLE_BOXES
    assert boxed == page.replace('<table id="t">', opened + '<table id="t" class="book-table">').replace(
        "</table><p>", "</table>" + closed + "<p>").replace(
        '<p>a</p><table class="book-table">', '<p>a</p>' + opened + '<table class="book-table">').replace(
        "y</td></tr></table></article>", "y</td></tr></table>" + closed + "</article>")
    assert page_speed.with_tables_wrapped("<p>no article</p>") == "<p>no article</p>"


def test_the_head_s_links_are_absolute_where_the_site_knows_its_address():
    head = ('<html><head><link rel="icon" href="../assets/images/favicon.png">\n'
            '  <link rel="stylesheet" href="../stylesheets/book.css?v=1&amp;x=2">'
            '<link rel="preconnect" href="https://example.org/">\n<link rel="canonical" href="//cdn.example/x">'
            '</head><body><a href="../toy/">toy</a><link rel="stylesheet" href="later.css"></body></html>')
    page_url = "https://reader.github.io/book/end-to-end/"
    assert page_speed.with_head_links_absolute(head, page_url) == head.replace(
        'href="../assets/images/favicon.png"', 'href="https://reader.github.io/book/assets/images/favicon.png"').replace(
        'href="../stylesheets/book.css?v=1&amp;x=2"', 'href="https://reader.github.io/book/stylesheets/book.css?v=1&amp;x=2"')
    assert page_speed.with_head_links_absolute(head, None) == head      # a local build: no address


def test_the_box_to_follow_letters_and_the_matrices_lines_have_their_places_in_the_build(site):
    """letters.js fills them (an element inserted among the article's
    children later has chromium restyle all of it): the box's after the
    first paragraph of a page whose numbers follow the letters, unless the
    sorter comes right after it; a line after each matrix cut short."""
    art = article(parsed(site / "nano-gpt" / "self-attention" / "index.html"))
    first = art.find("p", recursive=False)
    place = first.find_next_sibling()
    assert place.name == "div" and place["class"] == ["nano-follow-place"] and place.has_attr("hidden")
    assert len(art.select(".nano-follow-place")) == 1
    tables = art.select("table[data-nano-full]")
    assert tables and all(t.find_next_sibling().name == "p" and t.find_next_sibling()["class"] == ["nano-full"]
                          and t.find_next_sibling().has_attr("hidden") for t in tables)
    for page in ("nano-gpt/index.html", "nano-gpt/preliminaries/index.html", "toy/attention/index.html"):
        assert article(parsed(site / page)).select(".nano-follow-place") == [], page
    # the sorter right after the first paragraph holds the field: no place
    sorter = (ARTICLE + '<h1>T</h1><p>a</p><div data-nano-sort=""></div><p data-nano-input>b</p></article>')
    assert page_speed.with_follow_place(sorter) == sorter
    # the article as the parser writes it (data-nano-input="") with the place after the first paragraph,
    # the rest of the page as it was; a paragraph in a child is not the article's first
    plain = ARTICLE + '<h1>T</h1><div><p>in</p></div><p>a</p><p data-nano-input>b</p></article>'
    assert page_speed.with_follow_place("<body>" + plain + "<footer></footer>") == (
        "<body>" + ARTICLE + '<h1>T</h1><div><p>in</p></div><p>a</p>' + page_speed.FOLLOW_PLACE
        + '\n<p data-nano-input="">b</p></article><footer></footer>')
    last = ARTICLE + '<h1>T</h1><p data-nano-input>a</p></article>'
    assert page_speed.with_follow_place(last) == (
        ARTICLE + '<h1>T</h1><p data-nano-input="">a</p>' + page_speed.FOLLOW_PLACE + "\n</article>")
