"""A page's speed on a phone (issue 40): what the page's stylesheets would
otherwise ask the browser to find out again at every style recalculation,
said once at build time (steps of html_pass.py; on_files, the hook, serves
our stylesheets without their comments).

- The article names what it holds in its classes (`article_classes`):
  `with-path` (End to End's drawing and steps: the prose keeps a measure),
  `with-nano-input` (nano-gpt's numbers that follow the reader's letters:
  the room for the "Follow" box is kept). The rules read these classes in place of
  `:has()`, which made every style recalculation of a page of 5,000
  elements slower.
- The stylesheets of docs/stylesheets/ are served without their comments
  (`without_comments`), half their bytes.
- Material's files are served as shipped (tests/site/test_material_assets.py);
  what its script would do at every load is not asked of it:
  - the scheme toggle is ours (overrides/partials/palette.html, scheme.js):
    Material's palette component marked the body `data-md-color-switching`
    and unmarked it at every load, and wrote its <meta name="color-scheme">,
    each a recalculation of every element's style;
  - every table of the article is the book's (class book-table, styled
    by book.css) and comes in Material's two boxes (`with_tables_wrapped`),
    which its script would put each table without a class in at every
    load, restyling the whole article for each;
  - the head's <link>s are written absolute when the site knows its
    address (`with_head_links_absolute`): instant navigation makes each
    relative href absolute at the load, and a stylesheet given a new href
    is parsed again, every element restyled.
- Material's tooltips (`content.tooltips`) are off: they made a dozen
  listeners for each element with a title at every load (a tenth of
  Material's start on End to End). docs/javascripts/tips.js shows a
  glossary term's line, and a mark's number, from the document's
  listeners.
"""
from __future__ import annotations

import re
from urllib.parse import urljoin

from mkdocs.structure.files import File
from selectolax.lexbor import LexborHTMLParser


ARTICLE = '<article class="md-content__inner md-typeset">'
# what an article's class says -> a pattern found in the page's content when it holds it
HOLDS = {
    "with-path": re.compile(r'<div class="path[" ]'),
    "with-nano-input": re.compile(r"\sdata-nano-input[\s>=]"),
}


def article_classes(content: str) -> list[str]:
    """The classes an article holding `content` (its HTML) carries."""
    return [name for name, pattern in HOLDS.items() if pattern.search(content)]


def article_span(output: str) -> tuple[int, int] | None:
    """Where the theme's one <article> is in a page's `output`: the offsets
    of its start tag and its end tag; None for a page without it (404.html)."""
    start = output.find(ARTICLE)
    return None if start < 0 else (start, output.find("</article>", start))


def with_article_classes(output: str) -> str:
    """The page `output` with its article's classes (the theme's one
    <article>; a page without it, such as 404.html, is left as it is)."""
    span = article_span(output)
    if span is None:
        return output
    start = span[0]
    classes = article_classes(output[start:])
    if not classes:
        return output
    marked = ARTICLE[:-2] + " " + " ".join(classes) + '">'
    return output[:start] + marked + output[start + len(ARTICLE):]


# a table's start or end tag in the article, as Markdown and render.py write them
# (a table inside another is counted, though the book writes none)
TABLE_TAG = re.compile(r"<table\b([^>]*)>|</table>")
BOOK_TABLE = "book-table"
TABLE_BOXES = ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table">', "</div></div>")


def with_tables_wrapped(output: str) -> str:
    """The page `output` with each table of its article in Material's two
    boxes, as its script puts a table without a class (its `Un`): a
    table render.py wrote (class book-table), and a Markdown table, which
    gets that class (book.css styles the book's tables; Material's script
    leaves a table with a class alone)."""
    span = article_span(output)
    if span is None:
        return output
    start, end = span
    pieces, done, wrapped = [output[:start]], start, []   # wrapped: each open table's
    for tag in TABLE_TAG.finditer(output, start, end):
        if tag.group(0) == "</table>":
            pieces += [output[done:tag.end()], TABLE_BOXES[1] if wrapped and wrapped.pop() else ""]
        else:
            classes = re.search(r'\sclass="([^"]*)"', tag.group(1))
            boxed = classes is None or BOOK_TABLE in classes[1].split()
            wrapped.append(boxed)
            start_tag = tag.group(0) if classes else f'<table{tag.group(1)} class="{BOOK_TABLE}">'
            pieces += [output[done:tag.start()], TABLE_BOXES[0] if boxed else "", start_tag]
        done = tag.end()
    return "".join(pieces + [output[done:]])


# On a page whose numbers follow the reader's letters (with-nano-input), the
# place of letters.js's box to follow them: after the article's first
# paragraph, unless the sorter comes right after it (the sorter then holds
# the field). Written here and filled by letters.js: an element inserted
# among the article's has chromium restyle all of it once MathJax's
# hidden MathML is in the page (its stylesheet's `~ :nth-child` rules).
FOLLOW_PLACE = '<div class="nano-follow-place" hidden=""></div>'


def with_follow_place(output: str) -> str:
    """The page `output` with the follow box's place in its article: the
    article's children are the parser's (selectolax), and the article is
    written again as the parser serializes it (the same tree)."""
    span = article_span(output)
    if span is None:
        return output
    start, end = span
    if "with-nano-input" not in article_classes(output[start:end]):
        return output
    end += len("</article>")
    article = LexborHTMLParser(output[start:end]).css_first("article")
    children = [node for node in article.iter() if node.is_element_node]
    first = next((k for k, node in enumerate(children) if node.tag == "p"), None)
    if first is None:
        return output
    after = children[first + 1] if first + 1 < len(children) else None
    if after is not None and "data-nano-sort" in after.attributes:
        return output   # the sorter right after the paragraph holds the field
    place = LexborHTMLParser(FOLLOW_PLACE).css_first("div")
    # on a line of its own, as Markdown writes a block (the print page's plugin reads lines)
    if after is None:
        article.insert_child(place)
        article.insert_child("\n")
    else:
        after.insert_before(place)
        after.insert_before("\n")
    return output[:start] + article.html + output[end:]


# a URL with a scheme or a host of its own, which no page's address changes
ABSOLUTE = re.compile(r"(?:[a-z][a-z0-9+.-]*:)?//", re.I)


def with_head_links_absolute(output: str, page_url: str | None) -> str:
    """The page `output` with each relative href of its head's <link>s
    made absolute against `page_url` (the page's address, when the site
    knows where it is published). Material's instant navigation makes every
    relative href of the page absolute at its load, so that the head's
    links compare equal from page to page; a stylesheet's <link> given a
    new href is parsed again and every element restyled (108 ms of a
    nano-gpt page's load in a phone's trace). Written absolute, none changes.
    The head is read by the parser (selectolax, the page up to its head's
    end) and written again as it serializes it; the theme writes the head's
    tags in one form, <head> and </head>."""
    start, end = output.find("<head>"), output.find("</head>")
    if not page_url or start < 0 or end < start:
        return output
    end += len("</head>")
    head = LexborHTMLParser(output[:end]).head
    links = [link for link in head.css("link[href]") if not ABSOLUTE.match(link.attributes["href"] or "")]
    if not links:
        return output
    for link in links:
        link.attrs["href"] = urljoin(page_url, link.attributes["href"])
    return output[:start] + head.html + output[end:]


# A comment of a stylesheet (none of ours holds "/*" in a string).
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def without_comments(css: str) -> str:
    """A stylesheet of ours as the site serves it: its comments, written for
    whoever edits it, are half its bytes; a phone downloads the rules."""
    return re.sub(r"\n\s*\n+", "\n", CSS_COMMENT.sub("", css)).strip() + "\n"


def on_files(files, config):
    for file in list(files):
        if file.src_uri.startswith("stylesheets/") and file.src_uri.endswith(".css"):
            files.remove(file)
            files.append(File.generated(config, file.src_uri, content=without_comments(file.content_string)))
    return files
