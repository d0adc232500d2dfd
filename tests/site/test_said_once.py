"""Each page says each thing once (issue 39): no page shows the same table
or the same figure twice. Output showed its twelve tokens' table three
times and drew the same bars four times; a page that needs a value again
now refers back to it.

A page's heads choices are alternatives, one shown at a time: each is
compared within itself, with what every choice shares."""
from __future__ import annotations

import re

from conftest import page
from tests.browser.probes import every_page
from toycalc.book.model_drawing import STEPS


def text(el) -> str:
    return " ".join(el.get_text(" ").split())


def shown_apart(soup) -> dict[str, list]:
    """Each heads choice of the page (or "" for a page without): the tables
    and figures a reader sees with it, as (what it is, its content). A
    table's content: the table itself; a figure's: each mark
    that carries a number, its class and its title (a bar greyed is not the
    same bar)."""
    article = soup.select_one("article")

    def choice(el):
        v = el.find_parent(class_="heads-variant")
        return v["data-heads"] if v else None

    tables = article.find_all("table")
    figures = [f for f in article.find_all("figure") if "minimap" not in f.get("class", [])]
    choices = sorted({choice(el) for el in tables + figures} - {None}) or [""]
    out = {}
    for heads in choices:
        seen = []
        for t in tables:
            if choice(t) in (None, heads or None):
                seen.append((f"table #{t.get('id')}", t))
        for f in figures:
            marks = tuple(sorted((" ".join(m.get("class", [])), text(m.title))
                                 for m in f.find_all(lambda el: el.find("title", recursive=False))))
            if marks and choice(f) in (None, heads or None):
                seen.append((f"figure {f.get('data-figure')} {dict(f.attrs).get('data-temperature', '')}", marks))
        out[heads] = seen
    return out


NUMBER = re.compile(r"[−-]?\d+(\.\d+)?")


def columns(table) -> list[tuple]:
    """A table's columns of numbers, each as what the table is about (its
    caption and the head of its rows' names: two heads' tables may well
    hold the same numbers), its head and its cells by row name, when it has
    three values or more (a column of masked scores, all −∞ but one, may
    well recur)."""
    rows = [[text(c) for c in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]
    if len(rows) < 2:
        return []
    head, body = rows[0], rows[1:]
    about = (text(table.caption) if table.caption else "", head[0])
    out = []
    for j in range(1, len(head)):
        cells = tuple((r[0], r[j]) for r in body if len(r) == len(head))
        values = [v for _, v in cells]
        if len(cells) == len(body) and all(NUMBER.fullmatch(v) for v in values) and len(set(values)) >= 3:
            out.append((about, head[j], cells))
    return out


def repeats(soup) -> list[str]:
    """What a page shows twice within one heads choice: a table, a figure,
    or a column of numbers under the same head (Output's z and p were in
    three tables, with a column or two of their own each)."""
    found = []
    for heads, seen in shown_apart(soup).items():
        first = {}
        for name, content in seen:
            table = name.startswith("table")
            keys = [text(content)] + [("column",) + c for c in columns(content)] if table else [content]
            for key in keys:
                if key in first:
                    what = f"{first[key]} and {name}" + (f" (column {key[2]})" if key[0] == "column" else "")
                    found.append(f"{heads} heads: {what}" if heads else what)
                first.setdefault(key, name)
    return found


def test_no_page_shows_a_table_or_a_figure_twice(site):
    pages = every_page(site)
    assert "/toy/output/" in pages and "/end-to-end/" in pages and "/nano-gpt/" in pages
    found = {}
    for path in pages:
        soup = page(site, path.strip("/") or ".")
        found |= {path: r for r in [repeats(soup)] if r}
    assert found == {}


def test_a_repeat_is_found(site):
    """The check finds a table shown twice and the same bars drawn twice,
    a figure shown twice within one heads choice, and not two choices
    that differ."""
    from bs4 import BeautifulSoup
    output = page(site, "toy/output")
    table = output.select_one("table[id^=table-softmax]")
    bars = output.select_one('.heads-variant:not([hidden]) figure[data-figure="temperatures"]')
    twice = BeautifulSoup(f"<article>{table}{table}{bars}</article>", "html.parser")
    name = f"table #{table['id']}"
    assert [r for r in repeats(twice) if "(column" not in r] == [f"{name} and {name}"]
    twice = BeautifulSoup(f"<article>{table}{bars}{bars}</article>", "html.parser")
    assert len(repeats(twice)) == 1
    # Output's table of the constant: its own columns, and z and p again
    shifted = BeautifulSoup(str(table), "html.parser")
    for tr in shifted.find_all("tr"):
        tr.find_all(["td", "th"])[2].string = "its own"
    twice = BeautifulSoup(f"<article>{table}{shifted}</article>", "html.parser")
    assert [r.split("(column ")[1] for r in repeats(twice)] == ["\\(z\\))", "\\(p\\))"]
    variants = BeautifulSoup(f'<article><div class="heads-variant" data-heads="1">{bars}</div>'
                             f'<div class="heads-variant" data-heads="2" hidden>{bars}</div></article>',
                             "html.parser")
    assert repeats(variants) == []


def test_the_path_repeats_the_worked_example(site):
    """End to End's path panels (the drawing's steps, one open at a time)
    held the same tables as the worked example below them; the worked
    example now links to a step of the path (#step-6) instead, and a link
    opens the step."""
    soup = page(site, "end-to-end")
    assert repeats(soup) == []
    worked = soup.find(id="a-worked-example-step-by-step")
    links = {a["href"] for a in worked.find_all_next("a", href=True) if re.fullmatch(r"#step-\d+", a["href"])}
    panels = {f"#{p['id']}" for p in soup.select("#path .path-panel")}
    assert len(panels) == len(STEPS) and links <= panels and len(links) == len(panels)


def test_the_path_is_told_once_and_tokens_opens_on_tokens(site):
    """Home tells the path; the toy's Introduction, which listed its nine
    pages and the counting rule before Tokens said both again (issue 50),
    says what the chapter adds and the rule once, without a list of the
    pages; Tokens opens on tokens."""
    intro = page(site, "toy").select_one("article")
    links = {a["href"] for a in intro.select("li a[href]")}
    assert not any(re.match(r"^\.\./(embedding|positions|layernorm|attention|mlp|output)/", h) for h in links), links
    assert "picked by hand" in text(intro) and "counts from 1" in text(intro)
    tokens = page(site, "toy/tokens").select_one("article")
    first = text(tokens.select_one("h1 ~ p"))
    assert "token" in first and "count" not in first, first
    assert not re.search(r"\bcount(s|ing)? from\b", text(tokens)), "Tokens repeats the counting rule"


# a matrix's name with its subscript written as an underscore: "W_O", "W_Q"
RAW_SUBSCRIPT = re.compile(r"\b[WEP]_[A-Za-z0-9]+\b")


def test_every_matrix_name_is_written_with_its_subscript(site):
    """In the prose, headings, tables and captions of every page (its code
    and its formulas aside), a matrix is W with O below, never "W_O"
    (issue 50: Home's prose, the Simulator's headings, the writer's steps)."""
    for name in every_page(site):
        if name == "/contributing/":     # the page for writers names the code's keys, as the code does
            continue
        article = page(site, name.strip("/")).select_one("article")     # shared: read, not changed
        aside = {id(el) for el in article.select("code, pre, .arithmatex, script, style, svg, [data-tex]")}
        words = " ".join(s for s in article.find_all(string=True)
                         if not any(id(parent) in aside for parent in s.parents))
        found = RAW_SUBSCRIPT.findall(" ".join(words.split()))
        assert found == [], (name, found[:5])
