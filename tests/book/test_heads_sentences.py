"""Every sentence of a chooser page true under every heads choice (issue
#25): the pages read under 1, 2 and 4 heads, each sentence that changes
with the heads checked against the model it describes. A test per
sentence found."""
from __future__ import annotations

import re

import numpy as np
import pytest
from bs4 import BeautifulSoup

from conftest import fresh_page, page
from toycalc.book.example import Example
from toycalc.book.toy.attention import ablated_p
from toycalc.book.toy.generation import Rule, came_back, generate
from toycalc.model.tokenizer import show

HEADS = [1, 2, 4]


def under(soup: BeautifulSoup, heads: int) -> BeautifulSoup:
    """The page's article as a reader sees it with `heads` chosen."""
    art = BeautifulSoup(str(soup.select_one("article")), "html.parser")
    for v in art.select(".heads-variant"):
        if v["data-heads"] != str(heads):
            v.decompose()
    return art


def paragraph(art: BeautifulSoup, starts: str) -> str:
    found = [" ".join(p.get_text(" ").split()) for p in art.find_all("p")
             if " ".join(p.get_text(" ").split()).startswith(starts)]
    assert len(found) == 1, (starts, found)
    return found[0]


@pytest.mark.parametrize("heads", HEADS)
def test_generation_says_how_greedy_decoding_from_the_ends(site, toy, heads):
    """Generation, "What the toy writes from a shorter start": the sentence
    after the text says it ends on <eot>, writes a pair a second time, or
    fills every position with no pair twice,
    as greedy decoding from "the" does with these heads (with 1 head it
    used to say it loops right after writing <eot>)."""
    text = paragraph(under(page(site, "toy/generation"), heads), "Greedy decoding writes")
    ex = Example(toy, heads=heads)
    ids, steps, _ = generate(ex, Rule(), "the")
    ended = bool(steps) and toy.vocab[ids[-1]] == "<eot>"
    assert f"With {heads} head" in text
    assert ("writes <eot> , the token that ends a text" in text) == ended, text
    pair = came_back(ex, "the")
    # a pair written again is a repeat; the text says no more than that (it
    # used to say "the same rows come out of the block ... and loops", while
    # the rows differ and the next token, ed, was not the one after the
    # first ␣climb ed)
    assert "loop" not in text.replace("the loop stops", ""), text
    assert ("a second time" in text) == (not ended and pair is not None), text
    if pair and not ended:
        assert f"writes {show(toy.vocab[pair[0]])} {show(toy.vocab[pair[1]])} a second time" in text, text
        assert len(ids) == toy.cfg.n_ctx + 1, ids     # it goes on until every position is full
    assert ("fills every position" in text) == (not ended and pair is None), text


@pytest.mark.parametrize("heads", HEADS)
def test_attention_reads_the_ablation_it_prints(site, toy, heads):
    """Attention, "What each head does": a head "carries the prediction"
    only where switching it off changes the prediction, and the words
    "instead of" never stand under a table where no row changes it (with
    4 heads the 2-head paragraph used to)."""
    art = under(page(site, "toy/attention"), heads)
    text = paragraph(art, "With its only head" if heads == 1 else "Switched off one at a time")
    ex = Example(toy, heads=heads)
    base = int(np.argmax(ablated_p(ex, None)))
    changes = [h for h in range(1, heads + 1) if int(np.argmax(ablated_p(ex, h))) != base]
    assert ("instead of" in text) == bool(changes), text
    for h in changes[:1]:
        assert f"Head {h} carries the prediction" in text
    if not changes:
        assert f"predicts {show(toy.vocab[base])}" in text
    if heads == 1:
        assert "no work to divide" in text


@pytest.mark.parametrize("heads", HEADS)
def test_attention_says_what_each_head_reads(site, heads):
    """Attention, after the columns each head reads: "Each head …" only
    where there are several."""
    art = under(page(site, "toy/attention"), heads)
    text = paragraph(art, f"With {heads} head")
    assert ("Each head does everything below" in text) == (heads > 1), text
    assert ("The one head does everything below" in text) == (heads == 1), text


@pytest.mark.parametrize("heads", HEADS)
def test_end_to_end_names_its_heads_in_words(site, heads):
    """End to End's worked example: "with 1 head", never "1 heads"."""
    art = under(page(site, "end-to-end"), heads)
    text = paragraph(art, "Now the whole path by hand")
    assert f"with {heads} head{'s' if heads > 1 else ''} (the heads chosen" in text, text
    assert not re.search(r"\b1 heads\b", art.get_text(" ")), heads


@pytest.mark.parametrize("name", ["", "toy/attention", "toy/mlp", "toy/output", "toy/generation", "end-to-end"])
def test_computed_prose_numbers_have_three_places(site, name):
    """Home says computed values have three decimal places: the numbers
    that change with the heads, in the prose of every chooser page, do
    (End to End printed "head 1 gives 0.62")."""
    soup = fresh_page(site, name)     # its formulas and code removed below
    for span in soup.select("p span.heads-variant, li span.heads-variant"):
        for t in span.select(".arithmatex, code"):
            t.decompose()
        for m in re.finditer(r"(?<![\w.\[,] )(?<![\w.\[])[−-]?\d+\.(\d+)(?![\w.])", span.get_text(" ")):
            vector = re.search(r"\[[^\]]*$", span.get_text(" ")[:m.start()])
            assert vector or len(m.group(1)) == 3, (name, span.get_text(" "))


@pytest.mark.parametrize("heads", HEADS)
def test_home_counts_the_heads_chosen(site, heads):
    """Home's table of the models: under the chooser above it, the toy's
    heads are the heads chosen (with 4 chosen it said 2, the weights'
    own number, beside a drawing of 4 heads)."""
    art = under(page(site, ""), heads)
    table = art.select_one("table[id^=table-models]")
    row = next(tr for tr in table.find_all("tr") if tr.find("th") and tr.find("th").get_text() == "heads")
    assert row.find_all("td")[0].get_text() == str(heads), row


def test_a_blocks_other_heads_choices_wait_in_a_template_and_a_words_do_not():
    """render.by_heads: the default choice's block is in the page; another
    choice's block is its element, hidden, holding a <template> (no part of
    the page until the reader picks it); an inline variant (a number in a
    sentence) is in the page, hidden, as Markdown needs it in its paragraph;
    one output for every choice is printed once."""
    from bs4 import BeautifulSoup
    from toycalc.book.render import by_heads
    outputs = {1: '<table id="t"><tr><td>1</td></tr></table>', 2: '<table id="t"><tr><td>2</td></tr></table>'}
    soup = BeautifulSoup(by_heads(outputs, 2, inline=False), "html.parser")
    shown, waiting = soup.select_one('[data-heads="2"]'), soup.select_one('[data-heads="1"]')
    assert shown.get("hidden") is None and shown.select_one("table#t-h2") and not shown.find("template")
    assert waiting.has_attr("hidden") and [c.name for c in waiting.children] == ["template"]
    assert waiting.template["class"] == ["heads-later"] and "<td>1</td>" in waiting.template.decode_contents()
    inline = BeautifulSoup(by_heads({1: "0.5", 2: "0.7"}, 2, inline=True), "html.parser")
    assert inline.find("template") is None and inline.select_one('span[data-heads="1"][hidden]').get_text() == "0.5"
    assert by_heads({1: "same", 2: "same"}, 2, inline=False) == "same"
