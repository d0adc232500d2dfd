"""What a reader of a Material site expects, read in the built HTML: the
glossary and its tooltips, a description per page, the canonical address
and the edit links only where the site knows them, the book's nav (the toy
before nano-gpt, the contributors' page out of it but linked), and the
whole book on one page to print. In a browser: tests/browser/
test_reader_conventions_browser.py."""
from __future__ import annotations

import html
import re
import urllib.request
from urllib.parse import urljoin
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from conftest import FORK, ROOT, build_with_page, page, parsed, tree
from toycalc.site import glossary as terms_file, pages as reader

GLOSSARY = ROOT / terms_file.GLOSSARY

# The book's terms (issue 18's list, and the steps' names): each is used in
# the chapters, so each must have its line in the glossary.
BOOK_TERMS = ["token", "vocabulary", "embedding", "attention", "head", "query", "key", "value vectors",
              "mask", "LayerNorm", "residual stream", "MLP", "GELU", "logit", "softmax", "temperature",
              "top-k", "top-p", "KV cache", "RoPE", "RMSNorm", "SwiGLU",
              "character-level", "nats", "perplexity"]   # the writer's chapter (issue 51)


def nav_sources() -> list[str]:
    """The Markdown files of the reader's nav, in its order."""
    text = re.sub(r"!(ENV \[[^\]]*\]|relative \S+)", "''", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from walk(value) if isinstance(value, list) else [value]
    return list(walk(yaml.safe_load(text)["nav"]))


def url_of(source: str) -> str:
    name = source.removesuffix(".md")
    return "" if name == "index" else name.removesuffix("index") if name.endswith("index") else name + "/"


def built(site: Path, source: str) -> BeautifulSoup:
    return page(site, url_of(source) or ".")


def chapters_text(site: Path) -> str:
    return " ".join(" ".join(built(site, s).select_one("article").get_text(" ").split())
                    for s in nav_sources() if s != "glossary.md")


def undefined_terms(text: str, glossary: dict[str, str]) -> list[str]:
    """The book's terms the text uses that the glossary does not define."""
    defined = {t.lower() for t in glossary}
    return [t for t in BOOK_TERMS
            if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", text) and t.lower() not in defined]


# ---------------------------------------------------------------- the glossary

def write(tmp_path, text):
    path = tmp_path / "abbreviations.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_glossary_file_is_read_term_by_term(tmp_path):
    path = write(tmp_path, "*[head]: One attention.\n*[heads]: One attention.\n\n*[Softmax]: Scores.\n*[softmax]: Scores.\n")
    assert terms_file.read_glossary(path) == {"head": "One attention.", "heads": "One attention.",
                                          "Softmax": "Scores.", "softmax": "Scores."}


@pytest.mark.parametrize("text, message", [
    ("*[head]: One.\n*[mask]: Two.\n*[head]: Three.\n",
     "line 3: the term 'head' is defined twice (first as 'head' on line 1)"),
    ("*[Softmax]: Scores.\n*[softmax]: Other scores.\n",
     "line 2: the term 'softmax' is defined twice (first as 'Softmax' on line 1)"),
    ("*[head]:\n", "line 1: the term 'head' has no definition"),
    ("head: One attention.\n", "line 1: expected '*[term]: definition'"),
])
def test_a_bad_glossary_line_is_named(tmp_path, text, message):
    with pytest.raises(PluginError, match=re.escape(message)):
        terms_file.read_glossary(write(tmp_path, text))


def test_a_term_defined_twice_stops_the_build(project):
    path = project / terms_file.GLOSSARY
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines + ["*[softmax]: Another line for the same term."]) + "\n", encoding="utf-8")
    result = build_with_page(project, "# A page\n\nText.\n")
    assert result.returncode != 0
    assert f"line {len(lines) + 1}: the term 'softmax' is defined twice" in result.stderr
    assert "Traceback" not in result.stderr


def test_every_term_the_book_uses_is_defined(site):
    glossary = terms_file.read_glossary(GLOSSARY)
    text = chapters_text(site)
    unused = [t for t in BOOK_TERMS if not re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", text)]
    assert unused == [], "terms of the list no chapter uses"
    assert undefined_terms(text, glossary) == []
    # the check fails when a used term loses its line
    assert undefined_terms(text, {t: d for t, d in glossary.items() if t.lower() != "rope"}) == ["RoPE"]


def test_every_use_shows_its_definition(site):
    """Each term becomes an <abbr> whose title is its glossary line (the
    tooltip), the first use on a page takes the focus, no heading holds one."""
    glossary = terms_file.read_glossary(GLOSSARY)
    seen = set()
    for source in nav_sources():
        if source == "glossary.md":
            continue
        article = built(site, source).select_one("article")
        abbrs = article.select("abbr")
        for a in abbrs:
            assert a["title"] == glossary[a.get_text()], (source, a.get_text())
            seen.add(a.get_text())
        assert article.select("h1 abbr, h2 abbr, h3 abbr, h4 abbr, a abbr") == [], source
        focusable = [a["title"] for a in abbrs if a.get("tabindex") == "0"]
        assert len(focusable) == len(set(focusable)) == len({a["title"] for a in abbrs}), source
    assert {t for t in BOOK_TERMS} <= seen


def sections(article: BeautifulSoup) -> list[list]:
    """The article's terms (their definitions), section by section: a
    heading opens a section."""
    out: list[list] = [[]]
    for el in article.find_all(["h1", "h2", "h3", "h4", "h5", "h6", "abbr"]):
        if el.name == "abbr":
            out[-1].append(el["title"])
        else:
            out.append([])
    return out


def test_a_term_is_underlined_once_a_section_and_never_in_a_heading(site):
    """Issue #25: a term's dotted underline at its first use in each section
    only (not five times in one paragraph), never in a heading or the title
    (the print page's H1 "token"), never in a sentence shown under one heads
    choice only; on every page (the print page: the next test)."""
    for name in nav_sources():
        if name != "glossary.md":
            assert_underlined_once(built(site, name).select_one("article"), name)
    # each section still names its terms once: Tokens' first section has "token" underlined
    tokens = sections(built(site, "toy/tokens.md").select_one("article"))
    assert any(terms_file.read_glossary(GLOSSARY)["token"] in terms for terms in tokens)


def test_on_the_print_page_a_term_is_underlined_once_a_section_and_never_in_a_heading(site):
    """The same on the print page (its H1 "token" too); marked long (conftest.py)."""
    assert_underlined_once(page(site, "print_page").select_one("article"), "print_page")


def assert_underlined_once(article, name: str) -> None:
    assert article.select(":is(h1, h2, h3, h4, h5, h6) abbr") == [], name
    assert article.select(".heads-variant abbr") == [], name
    for terms in sections(article):
        assert len(terms) == len(set(terms)), (name, [t for t in set(terms) if terms.count(t) > 1][:3])


def test_first_use_per_section_keeps_one_of_each(tmp_path):
    html_in = ('<h2>A</h2><p><abbr title="t">token</abbr> and <abbr title="t">tokens</abbr>, '
               '<span class="heads-variant" data-heads="1"><abbr title="h">head</abbr></span> '
               '<abbr title="h">head</abbr></p><h2>B</h2><p><abbr title="t">token</abbr></p>')
    assert terms_file.first_use_per_section(html_in) == (
        '<h2>A</h2><p><abbr title="t">token</abbr> and tokens, '
        '<span class="heads-variant" data-heads="1">head</span> '
        '<abbr title="h">head</abbr></p><h2>B</h2><p><abbr title="t">token</abbr></p>')


def test_the_glossary_page_lists_each_definition_once(site):
    glossary = terms_file.read_glossary(GLOSSARY)
    soup = page(site, "glossary")
    entries = {dd.get_text(" ", strip=True): dt.get_text(" ", strip=True)
               for dt, dd in zip(soup.select("article dt"), soup.select("article dd"))}
    assert len(entries) == len(soup.select("article dd")) == len(set(glossary.values()))
    for term, definition in glossary.items():
        assert term in entries[definition].split(", ")
    assert soup.select("article abbr") == []
    terms = [dt.get_text().split(",")[0].lower() for dt in soup.select("article dt")]
    assert terms == sorted(terms)


# ---------------------------------------------------------------- descriptions, addresses

def meta(soup, **attrs):
    tag = soup.find("meta", attrs=attrs)
    return tag["content"] if tag else None


def test_each_page_describes_itself(site):
    """A description per page (search engines, link previews): the first
    paragraph as the reader sees it, plain text, cut at a word."""
    seen = {}
    for source in nav_sources() + ["contributing.md"]:
        soup = built(site, source)
        description = meta(soup, name="description")
        assert description and meta(soup, property="og:description") == description, source
        assert len(description) <= reader.DESCRIPTION_CHARS, source
        assert not re.search(r"\\\(|\{\{|<|\\mathrm", description), (source, description)
        first = " ".join(soup.select_one("article p:not(figure p)").get_text().split())   # a key is no paragraph of prose
        words = description.removesuffix("…").split()
        assert " ".join(first.replace("\\(", "").replace("\\)", "").split()).startswith(
            " ".join(words[:5])), (source, description, first)
        assert description not in seen, (source, seen.get(description))
        seen[description] = source


def test_a_local_build_names_no_address(site):
    """No site_url or repo_url given: no canonical link, no preview address
    and no edit link to a placeholder."""
    for source in nav_sources():
        html = site / url_of(source) / "index.html"
        text, soup = html.read_text(encoding="utf-8"), parsed(html)
        assert soup.find("link", rel="canonical") is None, source
        assert meta(soup, property="og:url") is None, source
        assert soup.select(".md-content__button, .md-source") == [], source
        assert "example.github.io" not in text and "/edit/" not in text, source
    assert "<loc>" not in (site / "sitemap.xml").read_text(encoding="utf-8")


def fetch(server, path):
    with urllib.request.urlopen(server + path) as r:
        return BeautifulSoup(r.read().decode("utf-8"), "html.parser")


def test_a_fork_links_to_itself(server):
    """Built as a fork's Pages workflow builds it (conftest: FORK, branch
    trunk): every page links to its own Markdown there, to edit it and to
    view it, and names its own address as canonical."""
    for source in nav_sources() + ["contributing.md"]:
        soup = fetch(server, "/" + url_of(source))
        edit, view = soup.select("article a.md-content__button")
        assert edit["href"] == f"{FORK}/edit/trunk/docs/{source}", source
        assert view["href"] == f"{FORK}/raw/trunk/docs/{source}", source
        assert soup.find("link", rel="canonical")["href"] == f"{server}/{url_of(source)}"
        assert meta(soup, property="og:url") == f"{server}/{url_of(source)}"
    # the repository link, without Material's component that asks GitHub's
    # API for stars and forks (an outside request)
    source = soup.select_one("a.md-source")
    assert source["href"] == FORK and not soup.select("[data-md-component=source]")


# ---------------------------------------------------------------- the book's nav, in print

def test_each_nav_section_is_named_and_no_label_names_itself(site):
    """With navigation.indexes a section's toggle shows only an icon: words
    for a screen reader alone name it, and through it the section's nav
    (overrides/partials/nav-item.html). A label has no role that takes
    aria-label (axe: aria-prohibited-attr; Lighthouse's axe reads it, the
    tests' older axe does not)."""
    self_named = [str(p.relative_to(site)) for p in sorted(site.rglob("*.html"))
                  if re.search(r"<label\b[^>]*\saria-label(ledby)?=", p.read_text(encoding="utf-8"))]
    assert self_named == []
    soup = page(site, "end-to-end")
    names = [" ".join(soup.find(id=nav["aria-labelledby"]).get_text().split())
             for nav in soup.select(".md-nav--primary nav[aria-labelledby]")]
    assert {"The toy model", "nano-gpt"} <= set(names)
    assert "" not in names and len(names) == len(set(names)), names


def test_the_nav_puts_the_toy_first_and_the_contributors_aside(site):
    soup = page(site, "end-to-end")
    top = ".md-nav--primary > .md-nav__list > li >"
    sections = [" ".join(a.get_text().split()) for a in
                soup.select(f"{top} :is(a, label), {top} div.md-nav__container > a")]
    assert [s for s in sections if s in ("The toy model", "nano-gpt")] == ["The toy model", "nano-gpt"]
    nav_links = {a["href"] for a in soup.select(".md-nav--primary a[href]")}
    assert "../contributing/" not in nav_links and "../glossary/" in nav_links
    # each chapter opens on its introduction (navigation.indexes); the toy's
    # no longer lists the chapter's pages (Home tells the path, the nav lists
    # it: issue 50) but leads on to the first
    assert soup.select_one(".md-nav--primary a[href='../nano-gpt/']") is not None
    assert soup.select_one(".md-nav--primary a[href='../toy/']") is not None
    assert [a["href"] for a in page(site, "toy").select("article ol a")] == []
    assert page(site, "toy").select_one("article a.md-button[href='tokens/']") is not None
    for source in nav_sources():
        footer = {a.get_text(strip=True): urljoin("http://book/" + url_of(source), a["href"])
                  for a in built(site, source).select(".book-footer-links a")}
        assert footer == {"The whole book, to print": "http://book/print_page/",
                          "Writing for the book": "http://book/contributing/"}, source
    assert page(site, "contributing").find("h1").get_text(strip=True).startswith("Writing for the book")


def test_the_print_page_holds_the_whole_book_in_order(site):
    printed = tree(site, "print_page")
    titles = [" ".join(h.text().replace("¶", "").split()) for h in printed.css("#print-site-page h1")]
    expected = [" ".join(tree(site, url_of(s) or ".").css_first("h1").text().replace("¶", "").split())
                for s in nav_sources()]
    assert [t for t in titles if t in expected] == expected
    assert "Writing for the book" not in titles
    assert len(printed.css(".path-panel")) == len(tree(site, "end-to-end").css(".path-panel")) > 0


def test_the_readme_gives_the_print_link():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "print_page/" in readme


def test_page_descriptions_are_escaped():
    text = reader.first_paragraph_text('<h1>x</h1><p>A "quoted" \\(d = 4\\) &amp; <abbr title="t">token</abbr>.</p>')
    assert text == 'A "quoted" d = 4 & token.'
    long = reader.first_paragraph_text("<p>" + "word " * 60 + "</p>")
    assert long.endswith("word…") and len(long) <= reader.DESCRIPTION_CHARS
    assert html.unescape(html.escape(text, quote=True)) == text


def test_a_formula_and_the_punctuation_touching_it_stay_together():
    math = '<span class="arithmatex">\\(c\\)</span>'
    assert (reader.math_with_its_punctuation(f"and channels {math}. Blocks ({math}), or {math} alone")
            == f'and channels <span class="math-nowrap">{math}.</span> Blocks '
               f'<span class="math-nowrap">({math}),</span> or {math} alone')


def test_the_contributor_page_says_what_every_colour_means(site):
    """The visual language's table (docs/contributing.md) names every colour
    variable the book defines (book.css, and figures.css's categorical
    palette), each with what it means."""
    import re
    from conftest import ROOT, page
    css = "".join((ROOT / "docs" / "stylesheets" / name).read_text(encoding="utf-8")
                  for name in ("book.css", "figures.css"))
    defined = set(re.findall(r"(--toy-[a-z0-9-]+)\s*:", css))
    assert {f"--toy-cat-{k}" for k in range(1, 6)} <= defined
    tables = [t for t in page(site, "contributing").select("table") if t.th and t.th.get_text() == "colour or mark"]
    assert len(tables) == 1
    named = set(re.findall(r"--toy-[a-z0-9-]+", tables[0].get_text()))
    assert defined - named == set()
    assert len(tables[0].select("tbody tr")) >= 10


def test_no_heading_writes_notation_as_plain_text(site, soups):
    """A heading is plain text in the page's table of contents and the
    search index, where no formula is typeset: a subscript or a power
    written there shows as "W_U" (Output's two headings did). Headings
    name the thing in words instead."""
    found = []
    for html_file, soup in soups.items():
        if html_file.name != "index.html":
            continue
        for h in soup.select("article h1, article h2, article h3, article h4, nav.md-nav--secondary a"):
            # a name from the code (the contributor page's macros) is left out
            text = " ".join(s.strip() for s in h.find_all(string=True)
                            if s.strip() and not s.find_parent("code"))
            if re.search(r"[A-Za-z]_\w|\^\{?\w", text):
                found.append(f"{html_file.parent.relative_to(site)}: {text}")
    assert found == []
