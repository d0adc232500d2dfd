"""One order, one way to count (issue 39). Each chapter counts one way in
prose, tables and figures: the toy from 1, nano-gpt from 0 as its code
does, and each chapter's first page says so. No page uses a number before
it is computed without saying where it comes from: End to End's step 2
takes a training step on the p that step 9 computes. nano-gpt names its
blocks and heads as minGPT indexes them (transformer.h[0], head 0): block
0 to n_blocks - 1, head 0 to n_heads - 1, in prose, tables and figures."""
from __future__ import annotations

import re

import pytest

from conftest import page
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
    """Each "block N" or "head N" whose N is no index of the model's blocks
    (0 to n_blocks - 1) or heads (0 to n_heads - 1)."""
    sizes = {"block": n_blocks, "head": n_heads}
    return [f"{kind} {n}" for kind, ns in named(text).items() for n in ns if not 0 <= n < sizes[kind]]


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


def test_the_toy_counts_from_1_and_nano_gpt_from_0(site):
    """Positions in every figure and table: the toy's five tokens are 1 to 5
    on each of its pages, nano-gpt's six letters 0 to 5 (its map said
    "position 6" for the last, t = 5 everywhere else)."""
    for chapter, first in (("toy", 1), ("nano-gpt", 0)):
        pages = chapter_pages(site, chapter)
        assert len(pages) >= 10, pages
        seen = set()
        for name in pages:
            found = positions(page(site, name))
            seen |= found
            assert not found or min(found) >= first, (name, sorted(found))
        length = {"toy": 5, "nano-gpt": 6}[chapter]
        assert min(seen) == first and max(seen) == first + length - 1, (chapter, sorted(seen))


def test_each_chapters_first_page_says_how_it_counts(site):
    for chapter, rule in (("toy", r"counts from 1\b.*\bid counts from 0"), ("nano-gpt", r"counts .*from 0")):
        sentences = [s for p in page(site, chapter).select("article p")
                     for s in re.split(r"(?<=\.) ", text(p)) if re.search(r"\bcount", s)]
        assert len(sentences) == 1 and re.search(rule, sentences[0]), (chapter, sentences)


def test_train_it_yourself_numbers_nano_gpts_way():
    """Its heads' maps are drawn in the page (train_page.js) by the toy's
    heat-map, which numbers from 1 unless told; the page tells it 0."""
    from conftest import ROOT
    source = (ROOT / "docs/javascripts/train_page.js").read_text(encoding="utf-8")
    calls = re.findall(r"draw\.attentionSvg\(([^()]*)\)", source)
    assert calls and all(call.replace(" ", "").endswith(",0") for call in calls), calls


def test_end_to_end_says_where_step_2s_p_comes_from(site):
    """Step 2 takes a training step with L = −ln p before step 9 computes
    p: it says so and links to step 9 (the last), which shows the same p."""
    soup = page(site, "end-to-end")
    step2 = soup.find(id=re.compile(r"^step-2-"))
    step9 = soup.find(id=re.compile(r"^step-9-"))
    assert step2 is not None and step9 is not None
    before_loss = []
    for el in step2.find_all_next():
        if el is step9:
            break
        if el.name == "p":
            before_loss.append(el)
        if "arithmatex" in el.get("class", []) and "L = -\\ln" in el.get_text():
            p = re.search(r"-\\ln ([\d.]+)", el.get_text()).group(1)
            break
    else:
        raise AssertionError("no loss formula in step 2")
    told = [el for el in before_loss if el.find("a", href=f"#{step9['id']}")]
    assert told, "step 2 uses p without saying that step 9 computes it"
    after = " ".join(text(el) for el in step9.find_all_next("p")[:6])
    assert f"−ln {p}" in after or f"-ln {p}" in after, (p, after[:300])


@pytest.mark.parametrize("words, flagged", [
    ("head 1 of block 0 does it; Block 2's weight matrix", []),
    ("the 3 blocks, each with 3 heads", []),
    ("head 0 of block 3", ["block 3"]),
    ("Head 4 of block 1; heads 3 to 5", ["head 4", "head 3"]),
])
def test_what_counts_as_a_misnumbered_block_or_head(words, flagged):
    assert misnumbered(words, 3, 3) == flagged


def test_nano_gpt_names_its_blocks_and_heads_from_0(site):
    """Every block and head a nano-gpt page names, in its prose, tables and
    figures, is an index of the model (blocks 0 to n_blocks - 1, heads 0 to
    n_heads - 1, from nanogpt.CONFIG); the tables and figures that number
    them start at 0 and reach the last."""
    n_blocks, n_heads = nanogpt.CONFIG.n_blocks, nanogpt.CONFIG.n_heads
    seen = {"block": set(), "head": set()}
    for name in chapter_pages(site, "nano-gpt"):
        soup = page(site, name)
        wrong = [(words, misnumbered(words, n_blocks, n_heads)) for words in pieces(soup.select_one("article"))]
        assert [w for w in wrong if w[1]] == [], name
        for kind, ns in labels(soup).items():
            seen[kind] |= set(ns)
    assert seen["block"] == set(range(n_blocks)), sorted(seen["block"])
    assert seen["head"] == set(range(n_heads)), sorted(seen["head"])
