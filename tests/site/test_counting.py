"""One order, one way to count (issues 39 and 50). The whole book counts
positions, blocks and heads from 1, in prose, tables, figures and the
marks' titles: the toy and nano-gpt alike (nano-gpt counted from 0, as its
code does, until issue 50), under every heads choice (the built page holds
every heads variant). The toy's first page says the rule once; nano-gpt's
explains no second one. No page uses a number before it is computed
without saying where it comes from: End to End's step 2 takes a training
step on the p that step 9 computes."""
from __future__ import annotations

import re

import pytest

from conftest import fresh_page, page
from tests.browser.probes import every_page
from toycalc.model import nanogpt

# what a figure's marks or a table's cells call a position of the sentence
POSITION = re.compile(r"\((?:position|query|key) (\d+)\)|\b[tj] = (\d+)\b")


# a block or a head named by its numeral: "block 0", "head 2's", "Heads 0 to 2"
NAMED = re.compile(r"\b(block|head)s? (\d+)\b", re.I)


def named(text: str) -> dict[str, list[int]]:
    """The numerals that name a block or a head in `text`, by kind."""
    found = {"block": [], "head": []}
    for kind, n in NAMED.findall(text):
        found[kind.lower()].append(int(n))
    return found


def misnumbered(text: str, n_blocks: int, n_heads: int) -> list[str]:
    """Each "block N" or "head N" whose N is not one of the model's blocks
    (1 to n_blocks) or heads (1 to n_heads)."""
    sizes = {"block": n_blocks, "head": n_heads}
    return [f"{kind} {n}" for kind, ns in named(text).items() for n in ns if not 1 <= n <= sizes[kind]]


# the elements whose words are read one by one (a table's cells are not a sentence)
PIECES = ["p", "li", "td", "th", "caption", "figcaption", "title", "text", "summary", "h1", "h2", "h3", "h4"]


def pieces(article) -> list[str]:
    """The words of a page, one paragraph, cell, caption or label at a time."""
    return [text(el) for el in article.find_all(PIECES)]


def labels(soup) -> dict[str, list[int]]:
    """The blocks and heads a page's figures (their marks' titles and
    labels) and tables (captions, heads, row names) name, and each table
    whose head says "block": the numbers of its rows."""
    article = soup.select_one("article")
    found = {"block": [], "head": []}
    for el in article.select("svg title, svg text, table caption, table th, table td"):
        for kind, ns in named(text(el)).items():
            found[kind] += ns
    for table in article.find_all("table"):
        head = [text(th) for th in table.select("thead th, thead td")]
        if head and head[0] == "block":
            found["block"] += [int(cells[0]) for tr in table.select("tbody tr")
                               if (cells := [text(c) for c in tr.find_all(["th", "td"])]) and cells[0].isdigit()]
    return found


def text(el) -> str:
    return " ".join(el.get_text(" ").split())


def positions(soup) -> set[int]:
    """Every position the page's figures name (their marks' titles) and its
    tables' position columns hold (a head t or j)."""
    article = soup.select_one("article")
    found = {int(a or b) for t in article.select("title") for a, b in POSITION.findall(t.get_text())}
    for table in article.find_all("table"):
        head = [text(th) for th in table.select("thead th")]
        for k, h in enumerate(head):
            if h in ("\\(t\\)", "\\(j\\)", "t", "j"):
                found |= {int(v) for tr in table.select("tbody tr")
                          if len(cells := tr.find_all(["td", "th"])) > k and (v := text(cells[k])).isdigit()}
    return found


def chapter_pages(site, chapter: str) -> list[str]:
    return [p.strip("/") for p in every_page(site) if p.startswith(f"/{chapter}/")]


def test_both_chapters_count_positions_from_1(site):
    """Positions in every figure and table: the toy's five tokens are 1 to 5
    on each of its pages, nano-gpt's six letters 1 to 6 (they were 0 to 5,
    while its map said "position 6" for the last)."""
    for chapter, first in (("toy", 1), ("nano-gpt", 1)):
        pages = chapter_pages(site, chapter)
        assert len(pages) >= 10, pages
        seen = set()
        for name in pages:
            found = positions(page(site, name))
            seen |= found
            assert not found or min(found) >= first, (name, sorted(found))
        length = {"toy": 5, "nano-gpt": 6}[chapter]
        assert min(seen) == first and max(seen) == first + length - 1, (chapter, sorted(seen))


def test_only_the_toys_first_page_says_how_the_book_counts(site):
    """The toy's first page gives the one rule; nano-gpt's first page, which
    explained a second one, says nothing of counting."""
    for chapter, rule in (("toy", r"counts from 1\b.*\bid counts from 0"), ("nano-gpt", None)):
        sentences = [s for p in page(site, chapter).select("article p")
                     for s in re.split(r"(?<=\.) ", text(p)) if re.search(r"\bcount(s|ed|ing)? (as|from)\b", s)]
        if rule is None:
            assert sentences == [], (chapter, sentences)
        else:
            assert len(sentences) == 1 and re.search(rule, sentences[0]), (chapter, sentences)


# what the book would call a position, block or head numbered 0
# (t and j lower case: T = 0 is a temperature)
NUMBERED_0 = re.compile(r"\b(?i:position|block|head|query|key)s? 0\b|\b[tj] = 0\b|\bx_0\b")


def test_no_page_numbers_a_position_block_or_head_0(site):
    """Every page (and the print page, with every chapter), its words,
    its marks' titles and labels, every heads variant included (the
    built page holds them all): nothing numbered 0 but a token's id."""
    pages = every_page(site) + ["/print_page/"]
    for name in pages:
        article = fresh_page(site, name.strip("/")).select_one("article")
        for code in article.select("pre, code"):
            code.decompose()             # code counts from 0, and says so where it shows
        words = [text(article)] + [v for el in article.select("[title], [aria-label]")
                                   for v in (el.get("title"), el.get("aria-label")) if v]
        words += [t.get_text(" ") for t in article.select("svg title, svg text")]
        found = [m.group(0) for w in words for m in NUMBERED_0.finditer(w)]
        assert found == [], (name, found[:5])


def test_train_it_yourself_numbers_its_heads_and_positions_from_1():
    """Its heads' maps are drawn in the page (train_page.js) by the toy's
    heat-map, which numbers positions from 1; the heads are named from 1."""
    from conftest import ROOT
    source = (ROOT / "docs/javascripts/train_page.js").read_text(encoding="utf-8")
    calls = re.findall(r"draw\.attentionSvg\(([^()]*)\)", source)
    assert calls and all(call.replace(" ", "").endswith(",h+1") for call in calls), calls
    assert "head ${h + 1}" in source and "head ${h}<" not in source


def test_end_to_end_says_where_its_loss_is_lowered(site):
    """Step 9 ends on the loss −ln p of the target, the same p as its
    prediction, and says which page lowers it: toy Training, which takes
    the training step End to End once took itself (step 2 links there)."""
    soup = fresh_page(site, "end-to-end")
    for hidden in soup.select("[hidden]"):        # the default heads alone, as a reader sees the page
        hidden.decompose()
    step9 = soup.find(id=re.compile(r"^step-9-"))
    said = next(el for el in step9.find_all_next("p") if "−ln" in text(el))
    assert said.find("a", href="../toy/training/"), text(said)
    p = re.search(r"−ln ([\d.]+)", text(said)).group(1)
    assert f"p = {p}" in " ".join(text(el) for el in step9.find_all_next("p")[:6])


@pytest.mark.parametrize("words, flagged", [
    ("head 1 of block 3 does it; Block 2's weight matrix", []),
    ("the 3 blocks, each with 3 heads", []),
    ("head 0 of block 3", ["head 0"]),
    ("Head 4 of block 1; heads 3 to 5", ["head 4"]),
    ("block 0, head 2", ["block 0"]),
])
def test_what_counts_as_a_misnumbered_block_or_head(words, flagged):
    assert misnumbered(words, 3, 3) == flagged


def test_nano_gpt_names_its_blocks_and_heads_from_1(site):
    """Every block and head a nano-gpt page names, in its prose, tables and
    figures, is one of the model's (blocks 1 to n_blocks, heads 1 to
    n_heads, from nanogpt.CONFIG); the tables and figures that number
    them start at 1 and reach the last."""
    n_blocks, n_heads = nanogpt.CONFIG.n_blocks, nanogpt.CONFIG.n_heads
    seen = {"block": set(), "head": set()}
    for name in chapter_pages(site, "nano-gpt"):
        soup = page(site, name)
        wrong = [(words, misnumbered(words, n_blocks, n_heads)) for words in pieces(soup.select_one("article"))]
        assert [w for w in wrong if w[1]] == [], name
        for kind, ns in labels(soup).items():
            seen[kind] |= set(ns)
    assert seen["block"] == set(range(1, n_blocks + 1)), sorted(seen["block"])
    assert seen["head"] == set(range(1, n_heads + 1)), sorted(seen["head"])


# a table head that names a position of the sequence: "t = 3", "position 3"
POSITION_HEAD = re.compile(r"^(?:t = \d+|position \d+)\b")


def test_a_sequence_has_one_row_per_token(site):
    """Every table of every page, the print page included, draws a
    sequence with one row per token (the book's x @ W): no column of a
    table is headed by a position (nano-gpt's drew a column per time step
    until issue 50). An attention matrix's columns are its keys (j)."""
    for name in every_page(site) + ["/print_page/"]:
        article = page(site, name.strip("/")).select_one("article")
        heads = [text(th) for th in article.select("table thead th")]
        assert [h for h in heads if POSITION_HEAD.match(h)] == [], name
