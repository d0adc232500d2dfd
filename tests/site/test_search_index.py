"""What the search finds: the book's words, not its figures' and tables'
digits (toycalc/site/search_marks.py marks those data-search-exclude)."""
from __future__ import annotations

import json
import re

from conftest import page
from toycalc.site.search_marks import out_of_search


def index(site) -> list[dict]:
    return json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


def test_figures_hidden_variants_and_tables_of_numbers_are_left_out():
    html = ('<figure class="toy-figure" data-figure="x"><svg><title>0.5</title></svg></figure>'
            '<button><svg class="drawing"><title>0.7</title></svg></button>'
            '<div class="heads-variant" data-heads="4" hidden>a</div><div class="heads-variant" data-heads="2">b</div>'
            '<span class="heads-variant" data-heads="1" hidden>0.1</span>'
            '<table id="t"><tr><th>x</th><td>0.5</td><td>−1.25</td><td></td><td>word</td></tr></table>'
            '<table><tr><td>GPT-2</td><td>12</td></tr><tr><td>Llama</td><td>32</td></tr></table>')
    out = out_of_search(html)
    assert out.count("data-search-exclude") == 6      # the figure, its svg, the drawing, 2 variants, a table
    assert '<div class="heads-variant" data-heads="2">b' in out
    assert "<table><tr><td>GPT-2" in out
    assert out_of_search(out) == out


def test_the_index_holds_the_words_and_not_the_digits(site):
    docs = index(site)
    text = " ".join(d["text"] for d in docs)
    # four 3-decimal numbers run together: what a table row or a figure's marks leave
    assert not re.search(r"(?:\d\.\d{3}){4}", text)
    assert "query 2, key 4" not in text                  # a mark's title in the attention figure
    attention = " ".join(d["text"] for d in docs if d["location"].startswith("toy/attention/"))
    assert "softmax" in attention
    titles = {d["title"] for d in docs}
    headings = [h.get_text().replace("¶", "").strip() for h in page(site, "toy/attention").select("article h2")]
    assert headings and all(h in titles for h in headings)


def test_the_shown_heads_choice_is_still_found(site):
    soup = page(site, "toy/output")
    numbers = [s for s in soup.select("span.heads-variant") if re.fullmatch(r"\d\.\d+", s.get_text(strip=True))]
    shown = [s.get_text(strip=True) for s in numbers if not s.has_attr("hidden")]
    assert shown and all(s.has_attr("data-search-exclude") for s in numbers if s.has_attr("hidden"))
    text = " ".join(d["text"] for d in index(site) if d["location"].startswith("toy/output/"))
    assert all(number in text for number in shown)


def test_the_contributor_page_is_not_searched(site):
    """Its list of every macro would be a quarter of the index that every
    reader's browser downloads; contributors reach it from the footer."""
    docs = index(site)
    assert docs and not [d["location"] for d in docs if d["location"].startswith("contributing/")]
    assert any(d["location"].startswith("end-to-end/") for d in docs)
