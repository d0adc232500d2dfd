"""One order, one way to count (issue 39). Each chapter counts one way in
prose, tables and figures: the toy from 1, nano-gpt from 0 as its code
does, and each chapter's first page says so. No page uses a number before
it is computed without saying where it comes from: End to End's step 2
takes a training step on the p that step 9 computes."""
from __future__ import annotations

import re

from conftest import page
from tests.browser.probes import every_page

# what a figure's marks or a table's cells call a position of the sentence
POSITION = re.compile(r"\((?:position|query|key) (\d+)\)|\b[tj] = (\d+)\b")


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
