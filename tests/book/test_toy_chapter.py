"""The toy model's chapter (docs/toy/) and the home page: each page builds
strict, its numbers are toycalc's, no digit is typed by hand in the prose,
and the numbers follow the weights file."""
from __future__ import annotations

import dataclasses
import re
from collections import Counter

import numpy as np
import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import ROOT, fresh_page, page, page_error
from tests.browser.probes import MATHJAX_ERRORS
from toycalc.book import end_to_end
from toycalc.book.toy import attention, generation, home as toy_home, output, positions, tokens, toy
from toycalc.model import gpt, sizes, writer
from toycalc.book.example import Example
from toycalc.model.weights import load_toy

M = "\u2212"
CHAPTER = ["tokens", "embedding", "positions", "layernorm", "attention", "mlp", "output", "generation", "training"]
DOCS = ROOT / "docs"


def view(soup):
    """What a reader without JavaScript sees: hidden heads variants removed
    (from the soup given: a parse of the caller's own, fresh_page)."""
    for hidden in soup.select("[hidden]"):
        hidden.decompose()
    return soup


def cells(table):
    return [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]


def rows(soup, table_id):
    """A table by its id, or by the id of its default heads variant."""
    table = soup.find("table", id=table_id) or soup.find("table", id=f"{table_id}-h2")
    assert table is not None, f"no table #{table_id}"
    return cells(table)


def fragment_tables(html):
    soup = BeautifulSoup(html, "html.parser")
    return {t["id"]: cells(t) for t in soup.find_all("table")}


def text_of(soup):
    return " ".join(soup.get_text(" ").split())


@pytest.fixture(scope="module")
def ex(toy):
    return Example(toy)


def page_of(name: str) -> str:
    return "." if name == "home" else f"toy/{name}"


@pytest.fixture(scope="module")
def pages(site):
    """The chapter's pages and Home, shared (conftest.parsed): read only."""
    return {name: page(site, page_of(name)) for name in CHAPTER + ["home"]}


@pytest.fixture(scope="module")
def views(site):
    """The same pages as a reader without JavaScript sees them (view)."""
    return {name: view(fresh_page(site, page_of(name))) for name in CHAPTER + ["home"]}


# ---------------------------------------------------------------- build and nav

def test_every_page_is_built_in_nav_order(site, pages):
    nav = yaml.safe_load(re.sub(r"!(ENV \[[^\]]*\]|relative \S+)", "''", (ROOT / "mkdocs.yml").read_text(encoding="utf-8")))["nav"]
    titles = [next(iter(item)) for item in nav]
    # the toy first, then End to End, which closes the toy's path (issue #25)
    assert titles[:6] == ["Home", "The toy model", "End to End", "nano-gpt", "A model that writes",
                          "What changed since 2017"]
    toy = next(item["The toy model"] for item in nav if "The toy model" in item)
    assert [next(iter(p.values())) for p in toy] == ["toy/index.md"] + [f"toy/{n}.md" for n in CHAPTER]
    for name in CHAPTER:
        soup = pages[name]
        assert soup.find("h1").get_text(strip=True).startswith("The toy model: "), name
        assert len(soup.select("details.question")) in (2, 3), name
        assert "{{" not in str(soup) and "Macro Rendering Error" not in str(soup), name


def test_footer_reads_in_nav_order(pages, site):
    def footer(soup):
        return [a["aria-label"] for a in soup.select(".md-footer__inner a")]
    assert footer(pages["tokens"]) == ["Previous: Introduction", "Next: Embedding"]
    assert footer(page(site, "toy")) == ["Previous: Home", "Next: Tokens"]
    assert footer(pages["mlp"]) == ["Previous: Attention", "Next: Output"]
    assert footer(pages["generation"]) == ["Previous: Output", "Next: Training"]
    assert footer(pages["training"]) == ["Previous: Generation", "Next: End to End"]
    assert footer(page(site, "end-to-end")) == ["Previous: The toy model · Training", "Next: nano-gpt · Introduction"]
    assert footer(page(site, "nano-gpt"))[0] == "Previous: End to End"
    assert footer(page(site, "nano-gpt/output"))[1] == "Next: Train it yourself"
    assert footer(page(site, "nano-gpt/train")) == ["Previous: Output", "Next: A model that writes · Introduction"]
    assert footer(page(site, "writer/write"))[1] == "Next: What changed since 2017"
    assert footer(pages["home"]) == ["Next: The toy model · Introduction"]



def test_the_introduction_names_the_chapters_last_pages(site):
    """The Introduction says what the chapter's last pages do: the model
    writes on its own (Generation), then takes a step of training by hand
    (Training). It said "the last page lets the model write", which stopped
    being true when Training came after Generation (issue #25); Tokens,
    which said it again, now opens on tokens (issue 50)."""
    opening = next(t for t in (" ".join(p.get_text(" ").split()) for p in page(site, "toy").select("article p"))
                   if "last two pages" in t)
    assert CHAPTER[-2:] == ["generation", "training"]
    assert "last two pages let the model write on its own, then take one step of its training" in opening, opening


def _nav_pages(items):
    """The nav's pages, in order, as their Markdown paths."""
    for item in items:
        value = next(iter(item.values()))
        if isinstance(value, list):
            yield from _nav_pages(value)
        else:
            yield value


def test_home_lists_the_chapters_in_the_nav_order(pages):
    """Home's list of chapters links the nav's pages in the nav's order
    (issue #25): each page of the nav that Home links, linked first in the
    order the nav gives, and every top-level section of the nav named."""
    nav = yaml.safe_load(re.sub(r"!(ENV \[[^\]]*\]|relative \S+)", "''",
                                (ROOT / "mkdocs.yml").read_text(encoding="utf-8")))["nav"]
    order = [p.removesuffix(".md").removesuffix("index").rstrip("/") for p in _nav_pages(nav)][1:]
    heading = next(h for h in pages["home"].find_all("h2") if h.get_text(strip=True).startswith("The chapters"))
    linked = []
    for el in heading.find_next_siblings():
        if el.name == "h2":
            break
        for a in el.select("a[href]"):
            href = a["href"].split("#")[0].strip("./").removesuffix("index.html").rstrip("/")
            if href not in linked:
                linked.append(href)
    toy_pages = [p for p in order if p.startswith("toy/") and p != "toy"]
    # every top-level chapter and every page of the toy is linked, and in the nav's order
    expected = [p for p in order if p in linked]
    assert linked == expected, (linked, order)
    writer_pages = [p for p in order if p.startswith("writer")]
    assert writer_pages == ["writer", "writer/inside", "writer/write"]
    for must in toy_pages + ["end-to-end", "nano-gpt"] + writer_pages + ["what-changed", "glossary"]:
        assert must in linked, must


def test_heads_choosers_where_numbers_follow_the_heads(pages):
    """A page whose numbers change with the heads has a chooser, and every
    variant group offers the same choices as the chooser. The map under the
    title has a variant per choice on every page (path.js applies the
    stored choice to it where there is no chooser)."""
    for name, soup in pages.items():
        variants = [v for v in soup.select(".heads-variant") if not v.find_parent(class_="minimap")]
        if variants:
            chooser = soup.select_one(".heads-chooser")
            assert chooser is not None, f"{name}: heads variants but no chooser"
            offered = {i["value"] for i in chooser.select("input")}
            assert {v["data-heads"] for v in variants} <= offered
    assert pages["attention"].select_one(".heads-chooser") is not None


def test_home_page(ex, views):
    home = views["home"]
    assert rows(home, "table-models") == cells(BeautifulSoup(toy_home.models_table(ex), "html.parser"))
    text = text_of(home)
    assert f"The toy has {sizes.count_params(ex.model.cfg)['total']} weights" in text
    for name in CHAPTER:
        assert home.find("a", href=f"toy/{name}/") is not None, name
    assert "three decimal places" in text and "␣ is a space" in text and "MIT license" in text


def test_home_names_the_three_models_the_writer_included(views):
    """Home's models section, table and chapter list name the writer too
    (issue #61: it read as an appendix), its sizes counted from its config."""
    home = views["home"]
    table = rows(home, "table-models")
    assert table[0] == ["", "the toy", "nano-gpt", "the writer", "GPT-2 small"]
    column = {row[0]: row[table[0].index("the writer")] for row in table[1:]}
    assert column["parameters"] == f"{sizes.count_params(writer.CONFIG)['total']:,}" == "818,176"
    assert (column["blocks"], column["width of a row"], column["positions"]) == ("4", "128", "64")
    heading = home.find("h2", id="three-models")
    assert heading is not None
    section = []
    for el in heading.find_next_siblings():
        if el.name == "h2" and el.get("id") != "the-chapters":
            break
        section.append(el)
    said = " ".join(" ".join(el.get_text(" ") for el in section).split())
    assert said.startswith("Three models carry the book.")
    assert ("The writer has 818,176 parameters in 4 blocks of width d = 128; "
            "it reads the last 64 characters") in said
    links = {a.get_text(" ", strip=True): a["href"] for el in section for a in el.select("a[href]")}
    assert links["A model that writes"] == "writer/" and links["The writer"] == "writer/"
    assert links["Inside the writer"] == "writer/inside/" and links["Type, it writes"] == "writer/write/"


# ---------------------------------------------------------------- numbers against toycalc

# (page, registry, name, arguments): every table of the chapter, checked
# cell by cell against toycalc, for every heads choice the page carries
TABLES = [
    ("tokens", toy.registries["table"], "vocab", {}), ("tokens", toy.registries["table"], "tokenize", {}),
    ("tokens", end_to_end.steps.registries["table"], "ids", {}),
    ("embedding", end_to_end.steps.registries["table"], "E", {}),
    ("embedding", end_to_end.steps.registries["table"], "E_ids", {}),
    ("positions", end_to_end.steps.registries["table"], "X", {}), ("positions", toy.registries["table"], "order", {"heads_shown": (2,)}),
    ("layernorm", toy.registries["table"], "ln_rows", {}), ("layernorm", end_to_end.steps.registries["table"], "u", {}),
    ("attention", end_to_end.steps.registries["table"], "QKV", {}), ("attention", toy.registries["table"], "scores", {}),
    ("attention", end_to_end.steps.registries["table"], "weights", {}), ("attention", end_to_end.steps.registries["table"], "attention", {}),
    ("attention", end_to_end.steps.registries["table"], "heads", {}), ("attention", toy.registries["table"], "ablation", {}),
    ("output", toy.registries["table"], "W_U", {}), ("output", toy.registries["table"], "contrast", {}),
    ("mlp", toy.registries["table"], "first_sum", {}), ("mlp", toy.registries["table"], "second_sum", {}),
    ("mlp", toy.registries["table"], "gelu", {}), ("output", end_to_end.steps.registries["table"], "softmax", {}),
    ("generation", toy.registries["table"], "generation_steps", {}), ("generation", toy.registries["table"], "generation", {}),
    ("generation", toy.registries["table"], "filter", {}), ("generation", toy.registries["table"], "generation", {"text": "the"}),
    ("training", end_to_end.steps.registries["table"], "grad_E", {}), ("training", toy.registries["table"], "step", {}),
]


def check_tables(built: dict, model, entries=TABLES):
    for name, registry, table, kwargs in entries:
        soup = built[name]
        kwargs = dict(kwargs)   # heads_shown: a page that shows only these (before heads are met)
        for heads in kwargs.pop("heads_shown", Example(model).heads_choices):
            want = fragment_tables(registry[table](Example(model, heads=heads), **kwargs))
            for table_id, body in want.items():
                found = soup.find("table", id=f"{table_id}-h{heads}") or soup.find("table", id=table_id)
                assert found is not None, f"{name}: no table #{table_id} for {heads} heads"
                assert cells(found) == body, f"{name}: #{table_id}, {heads} heads"


def test_every_table_is_toycalcs(pages, toy):
    check_tables(pages, toy)


def test_known_values_in_the_default_view(views):
    """A few values as the shipped weights give them, read as a reader sees them."""
    tokens = text_of(views["tokens"])
    assert "So the word becomes ␣climb + ed." in tokens
    assert 'cannot cut "␣moon" (character 20 of "the cat climbed the moon")' in tokens
    positions = views["positions"]
    order = rows(positions, "table-order")
    assert order[1][2:] == ["with \\(P\\)", "␣roof", "0.395", "0.395"]
    assert order[2][3:] == order[4][3:] and order[2][2] == order[4][2] == "without \\(P\\)"  # same p
    assert "the largest difference between their probabilities is 0.000" in text_of(positions)
    layernorm = text_of(views["layernorm"])
    assert "every row has mean 0.000 and standard deviation 1.000" in layernorm
    assert "\\(10^{-5}\\)" in layernorm
    attention = text_of(views["attention"])
    assert "here 1.414" in attention and "\\(Q = [u_4, u_2, u_4, u_1]\\)" in attention
    assert rows(views["attention"], "table-scores-1")[1][2] == M + "∞"
    mlp = views["mlp"]
    assert rows(mlp, "table-gelu")[3] == [M + "1.000", M + "0.159", "0.000"]
    assert mlp.select_one("figure[id^=figure-gelu] svg polyline") is not None
    output = views["output"]
    assert rows(output, "table-softmax")[1] == ["␣roof", "2.491", "12.069", "0.395"]
    text = text_of(output)
    assert "in the same order" in text
    assert "␣roof (0.761) , ␣roof (0.395) and ␣roof (0.208)" in text
    gen = views["generation"]
    text = text_of(gen)
    # 8 positions, 5 taken: one token per free position and one predicted at the last
    assert "So the toy writes “the cat climbed the roof climbeded ”" in text
    assert "can add at most 4 tokens" in text
    assert "the seed 7" in text
    steps = rows(gen, "table-generation-steps")[1:]
    assert [r[-1] for r in steps] == ["␣roof", "␣climb", "ed", "ed"]
    filt = rows(gen, "table-filter")[1:]
    assert [r[3] != "" for r in filt].count(True) == 3
    assert [r[4] != "" for r in filt].count(True) == 8


# ---------------------------------------------------------------- the pure functions

def test_top_k_and_top_p(ex):
    p = ex.p_last
    q = generation.keep(p, k=3)
    assert (q > 0).sum() == 3 and np.isclose(q.sum(), 1)
    kept = np.argsort(-p)[:3]
    assert np.allclose(q[kept], p[kept] / p[kept].sum())
    q = generation.keep(p, top_p=0.9)
    n = int((q > 0).sum())
    ordered = np.sort(p)[::-1]
    assert ordered[:n].sum() >= 0.9 > ordered[:n - 1].sum()
    assert np.array_equal(generation.keep(p, k=1) > 0, p == p.max())


def test_generate_stops_at_eot_or_the_last_position(ex):
    n_ctx = ex.model.cfg.n_ctx
    for rule in generation.RULES():
        for text in ("", "the"):
            ids, steps, why = generation.generate(ex, rule, text)
            # every step reads at most n_ctx tokens; the last one predicted is never read
            assert all(len(step.ids) <= n_ctx for step in steps) and len(ids) <= n_ctx + 1
            ended = ex.model.vocab[ids[-1]] == generation.EOT
            assert ended or len(ids) == n_ctx + 1
            assert generation.EOT not in [ex.model.vocab[i] for i in ids[:-1]]
            assert ("&lt;eot&gt;" in why) == ended
            for step, nxt in zip(steps, steps[1:]):
                assert nxt.ids == step.ids + (step.chosen,)
    # sampling is seeded: a fresh example (nothing kept from the runs above) draws the same
    sampled = generation.generate(ex, generation.Rule("sample", 2.0))[0]
    assert generation.generate(dataclasses.replace(ex), generation.Rule("sample", 2.0))[0] == sampled


def test_greedy_is_the_argmax_and_sampling_the_formula(ex):
    ids, steps, _ = generation.generate(ex)
    assert steps[0].chosen == ex.top_id
    for step in steps:
        trace = gpt.forward(ex.model.params, ex.model.cfg, list(step.ids), ex.n_heads)
        assert step.chosen == int(np.argmax(trace["p"][-1]))
    first = generation.generate(ex, generation.Rule("sample", 1.0))[1][0].chosen
    formula = generation.sample_formula(ex)
    assert formula.endswith(f"\\text{{{ex.model.show(first)}}}\\]</div>")


def test_order_without_positions(ex):
    assert positions.order_number(ex, with_p=False) == "0.000"
    assert positions.order_number(ex, with_p=True) != "0.000"


def test_temperature_keeps_the_order_and_a_shift_changes_nothing(ex):
    assert output.same_order(ex) == "the same"
    z = ex.trace["z"][-1]
    assert np.allclose(gpt.softmax(z + output.SHIFT), ex.p_last)


# ---------------------------------------------------------------- no digit typed by hand

# The rule. In the Markdown of docs/, a number may only come from a macro.
# What is not prose is taken out first: macro calls ({{ }}, {% %}, {# #}),
# TeX (\( \), \[ \], $$ $$: a formula's constants, such as the 2 of x^2,
# belong to the formula), code (fenced and inline), HTML comments and tags,
# link targets, attribute lists, the step number of a heading ("### Step 3.")
# or of a bold step label ("**2–3. Embedding**") and list markers ("1. ").
# Then a digit is allowed only
#   - inside a name that starts with a letter (GPT-2, Apache-2.0, W_1, h2) or
#     a size glued to its capital unit (7B, 70B, 1.5B: part of a model's name;
#     "4d" is a number and is flagged),
#   - in a year (four digits, 1900 to 2099): a date, not a quantity, and
#   - as a bare 0 or 1: the constants of the definitions (mean 0, sum to 1,
#     a one-hot row), which no weights file can change. A computed value is
#     never bare: it prints with its places (0.000, 1.000).
# Anything else, "head 2", "12 tokens", "0.395", fails.
HIDDEN = [r"\{\{.*?\}\}", r"\{%.*?%\}", r"\{#.*?#\}", r"\\\(.*?\\\)", r"\\\[.*?\\\]", r"\$\$.*?\$\$",
          r"^```.*?^```", r"^~~~.*?^~~~", r"`[^`\n]*`", r"<!--.*?-->", r"<[^>\n]*>", r"\]\([^)\s]*\)",
          r"^\[[^\]]+\]:\s*\S+", r"\{:?\s*[#.][^}]*\}", r"^#{1,6}\s+Step\s+\d+", r"^\s*\d+[.)]\s",
          r"^\*\*\d+(?:[–-]\d+)?\.\s",
          r"^---\n.*?\n---\n"]
NAME = re.compile(r"[A-Za-z_][\w.\-]*\d[\w\-]*(?:\.\d+)*|\b\d+(?:\.\d+)?[KMBT]\b")
YEAR = re.compile(r"(?:19|20)\d\d")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def typed_numbers(markdown: str) -> list[str]:
    """The numbers typed by hand in a page's prose, each with its line."""
    text = markdown
    for pattern in HIDDEN:
        text = re.sub(pattern, lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S | re.M)
    found = []
    for line in text.splitlines():
        line = NAME.sub(" ", line)
        found += [f"{n}: {line.strip()[:70]}" for n in NUMBER.findall(line)
                  if n not in ("0", "1") and not YEAR.fullmatch(n)]
    return found


# What the rule flags in pages this chapter does not own, as found when it
# was written (and reported to their owners, not edited): a page may lose
# these, never gain one. what-changed.md was being written at the same time.
KNOWN = {
    "what-changed.md": Counter({"what-changed.md: 2": 5, "what-changed.md: 32": 3, "what-changed.md: 8": 2}),
    "end-to-end.md": Counter({"end-to-end.md: 2": 1}),
}


@pytest.mark.parametrize("markdown, flagged", [
    ("p = {{ number('p') }} and \\(x^2\\)", []),
    ("the 12 tokens", ["12"]),
    ("### Step 3. Positions\n\n1. first\n2. second\n\n**2–3. Embedding**", []),
    ("GPT-2 and W_1, mean 0, sum to 1, since 2017, a 7B model", []),
    ("head 2 gives 0.88", ["2", "0.88"]),
    ("```\nx = 42\n```\n`n = 7` [a](b/3.md)", []),
])
def test_the_digit_rule(markdown, flagged):
    assert [f.split(":")[0] for f in typed_numbers(markdown)] == flagged


def test_no_digit_typed_by_hand():
    problems = []
    for md in sorted(DOCS.rglob("*.md")):
        rel = md.relative_to(DOCS).as_posix()
        found = typed_numbers(md.read_text(encoding="utf-8"))
        owner = next((k for k in KNOWN if rel == k or rel.startswith(k + "/")), None)
        if owner is None:
            problems += [f"{rel}: {f}" for f in found]
        else:
            extra = Counter(f"{rel}: {f.split(':')[0]}" for f in found) - KNOWN[owner]
            problems += sorted(extra.elements())
    assert problems == [], "\n".join(problems)


# ---------------------------------------------------------------- the weights drive the chapter

def test_chapter_follows_the_weights(altered, views):
    """Built on other weights (conftest.altered_toy)."""
    built = {name: page(altered.site, f"toy/{name}") for name in CHAPTER}
    check_tables(built, load_toy(altered.toy))
    changed = [("positions", "table-X"), ("positions", "table-order"), ("layernorm", "table-u"),
               ("output", "table-softmax"), ("mlp", "table-first-sum"), ("generation", "table-filter")]
    altered_views = {name: view(fresh_page(altered.site, f"toy/{name}")) for name, _ in changed}
    for name, table_id in changed:
        assert rows(altered_views[name], table_id) != rows(views[name], table_id), f"{name} #{table_id}"


# ---------------------------------------------------------------- mistakes and the browser

def test_a_bad_chapter_macro_stops_the_build(macros):
    env = macros()
    for call, message in [
            ('{{ toy_table("nope") }}', "bad.md, line 3: toy_table('nope'): no such name; the names are: models, vocab,"),
            ('{{ toy_number("written", txt="the") }}',
             "bad.md, line 3: toy_number('written'): unknown argument 'txt'; it takes text, rule, heads, temperature"),
            ('{{ toy_table("scores", head=3, heads=2) }}',
             "bad.md, line 3: toy_table('scores'): head = 3: this run has heads 1 to 2"),
            ('{{ toy_number("model_size", model="llama", name="d") }}',
             "bad.md, line 3: toy_number('model_size'): model = 'llama': expected one of toy, nano, writer, gpt2"),
            ('{{ toy_number("model_size", model="writer", name="depth") }}',
             "bad.md, line 3: toy_number('model_size'): name = 'depth': expected one of V, d, n_ctx, width, "
             "blocks, heads"),
            ('{{ toy_number("model_count", modle="writer") }}',
             "bad.md, line 3: toy_number('model_count'): unknown argument 'modle'; it takes model")]:
        assert message in page_error(env, f"# Bad\n\n{call}\n")


def test_one_heads_choice_holds_across_the_chapter(visit, toy):
    """Choose 4 heads on Attention; Output, reached by a link, shows the
    4-heads numbers, and every formula is typeset."""
    v = visit()
    p = v.open("/toy/attention/")
    p.locator('.heads-chooser[data-ready] input[value="4"]').first.check()
    p.goto(v.base + "/toy/output/")
    p.wait_for_selector("body[data-mathjax=done]", timeout=60000)
    ex = Example(toy, heads=4)
    shown = p.locator('table[id^="table-softmax"]:visible').first
    first_row = [c.strip() for c in shown.locator("tbody tr").first.locator("td").all_inner_texts()]
    want = fragment_tables(end_to_end.softmax_table(ex))["table-softmax"][1]
    assert first_row == want
    v.typeset_shown()
    assert p.evaluate(MATHJAX_ERRORS) == []


def test_longest_names_every_longest_piece(ex):
    vocab = ex.model.vocab
    n = max(map(len, vocab))
    longest = [t.replace(" ", "␣") for t in vocab if len(t) == n]
    assert len(longest) == 2  # ␣climb and ␣floor: the sentence must not say "the longest"
    assert tokens.longest_number(ex) == f"{longest[0]} and {longest[1]} ({n} characters each)"


def test_no_piece_is_the_start_of_another(ex):
    from types import SimpleNamespace
    from toycalc.book import claims
    assert claims.no_prefix_claim(ex) is None
    bigger = SimpleNamespace(model=SimpleNamespace(vocab=list(ex.model.vocab) + [" climbed"]))
    assert claims.no_prefix_claim(bigger) == "␣climb is the start of ␣climbed"


def test_repeated_rows_of_P_are_named(ex, pages):
    """Positions' check-yourself says which rows of P repeat earlier ones
    (1-based), computed; with the shipped P, period 4 from row 2 on."""
    P = ex.model.params["P"]
    repeats = [(t + 1, s + 1) for t in range(len(P)) for s in range(t)
               if np.array_equal(P[s], P[t]) and not any(np.array_equal(P[r], P[t]) for r in range(s))]
    assert repeats == [(6, 2), (7, 3), (8, 4)]
    assert positions.P_repeats_number(ex) == "rows 6 to 8 repeat rows 2 to 4"
    assert "In the toy that is sometimes nothing: rows 6 to 8 repeat rows 2 to 4" in text_of(pages["positions"])


def test_layernorm_shows_a_row_already_taught(toy, pages):
    """LayerNorm comes before Attention in the nav: it demonstrated on h₅,
    "the row after attention", before attention was taught. It draws x₅,
    the first LayerNorm's input, under the formula of that row; rows of E
    and P sum to zero, so X is centred already and the page says so. The
    centring of a row whose mean is not zero is drawn on the MLP page, on
    h₅, after the table of the sum that makes h."""
    assert np.allclose(toy.params["E"].sum(axis=1), 0) and np.allclose(toy.params["P"].sum(axis=1), 0)
    article = pages["layernorm"].select_one("article")
    text = text_of(article)
    h_used = re.search(r"\bh_|\bh[₀-₉]|\\\(h\\\)", text)   # h_5, h₅, \(h\): the row after attention
    assert h_used is None, text[h_used.start() - 80:h_used.end() + 40]
    assert "In the toy the rows of \\(X\\) already have mean zero" in text
    order = article.find_all(["figure", "div"])
    formula = next(i for i, el in enumerate(order) if "arithmatex" in el.get("class", []) and "u_5" in el.get_text())
    drawn = next(i for i, el in enumerate(order) if el.name == "figure" and el.get("data-figure") == "layernorm")
    assert formula < drawn and order[drawn]["data-row"] == "x"
    ex = Example(toy, heads=2)
    assert abs(ex.block["h"][-1].mean()) > 0.05      # worth drawing: the second LayerNorm centres h
    mlp = pages["mlp"].select_one("article")
    order = mlp.find_all(["table", "figure"])
    first_sum = next(i for i, el in enumerate(order) if (el.get("id") or "").startswith("table-first-sum"))
    drawn = next(i for i, el in enumerate(order) if el.name == "figure" and el.get("data-figure") == "layernorm")
    assert first_sum < drawn and order[drawn]["data-row"] == "h"


def test_the_mlp_page_computes_before_it_shows(pages, ex):
    """MLP: the residual table put m and y (the MLP's output and the second
    sum) before the page had computed m, a 4-vector in each cell. Each sum
    now has its table where the page has made what it adds, a column per
    entry, c₁ … c₄ under the vector's name."""
    article = pages["mlp"].select_one("article")
    order = article.find_all(["table", "div", "h2"])
    where = {key: next(i for i, el in enumerate(order) if test(el)) for key, test in {
        "first": lambda el: (el.get("id") or "").startswith("table-first-sum"),
        "mlp": lambda el: "arithmatex" in el.get("class", []) and "m_5 &=" in el.get_text(),
        "second": lambda el: (el.get("id") or "").startswith("table-second-sum")}.items()}
    assert where["first"] < where["mlp"] < where["second"], where
    d = ex.model.cfg.d
    for table_id, names in (("table-first-sum", ["x_t", "a_t W_O", "h_t = x_t + a_t W_O"]),
                            ("table-second-sum", ["m_t", "y_t = h_t + m_t"])):
        table = article.find("table", id=lambda i: i and i.startswith(table_id))
        groups, entries = table.select("thead tr")
        assert [th.get_text() for th in groups.select("th")[1:]] == [f"\\({n}\\)" for n in names]
        assert [th.get_text() for th in entries.select("th")] == [f"\\(c_{{{c + 1}}}\\)" for c in range(d)] * len(names)
        for tr in table.select("tbody tr"):
            assert len(tr.select("td")) == 1 + d * len(names)
            assert all("[" not in td.get_text() and "," not in td.get_text() for td in tr.select("td"))


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_head_ablation_equals_a_block_rerun_by_hand(toy, heads):
    """Switching a head off = its columns of A set to zero before W_O; the
    rest of the block redone here from the trace, step by step."""
    ex = Example(toy, heads=heads)
    b, p = ex.block, gpt.block_params(toy.params, 0)
    w = toy.cfg.d // heads
    for head in range(1, heads + 1):
        A = b["A"].copy()
        A[:, (head - 1) * w:head * w] = 0
        h = b["X"] + A @ p["W_O"]
        u2 = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
        y = h + gpt.gelu(u2 @ p["W_1"]) @ p["W_2"]
        f = (y - y.mean(-1, keepdims=True)) / np.sqrt(y.var(-1, keepdims=True) + 1e-5)
        z = f[-1] @ toy.params["W_U"]
        want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        np.testing.assert_allclose(attention.ablated_p(ex, head), want, rtol=1e-12)


def test_head_ablation_on_the_page(site, toy):
    """With 2 heads: head 1 off gives ␣cat 0.466, head 2 off leaves ␣roof at 0.350."""
    soup = page(site, "toy/attention")   # every heads variant (the shared pages lose the hidden ones)
    table = soup.find("table", id="table-ablation-h2")
    assert cells(table)[1:] == [["none", "␣roof", "0.395", "0.395"], ["head 1", "␣cat", "0.466", "0.139"],
                                ["head 2", "␣roof", "0.350", "0.350"]]
    assert ("without head 1 it predicts ␣cat (0.466) and without head 2 it still predicts ␣roof (0.350)"
            in text_of(soup))
    assert ("Head 1 carries the prediction: without it the model predicts ␣cat instead of ␣roof. Head 2 "
            "looks hardest at ␣cat, yet without it ␣roof still wins, at 0.350 instead of 0.395.") in text_of(soup)
    for heads in (1, 4):
        rows = cells(soup.find("table", id=f"table-ablation-h{heads}"))[1:]
        ex = Example(toy, heads=heads)
        assert [r[2] for r in rows[1:]] == [f"{attention.ablated_p(ex, h).max():.3f}" for h in range(1, heads + 1)]


def test_W_U_is_printed_by_its_columns(pages, toy):
    rows = cells(pages["output"].find("table", id="table-W-U"))[1:]
    W = toy.params["W_U"]
    short = lambda v: f"{v:g}".replace("-", M)
    assert rows == [[str(i), t.replace(" ", "␣")] + [short(v) for v in W[:, i]] for i, t in enumerate(toy.vocab)]


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_why_roof_against_cat(site, toy, heads):
    """The contrast's terms are f_c (W_U[c, ␣roof] − W_U[c, ␣cat]) and add up
    to z(␣roof) − z(␣cat); only entry 2 differs, and f_2's sign decides."""
    ex = Example(toy, heads=heads)
    roof, cat = toy.vocab.index(" roof"), toy.vocab.index(" cat")
    f, W, z = ex.trace["f"][-1], toy.params["W_U"], ex.trace["z"][-1]
    terms = f * (W[:, roof] - W[:, cat])
    assert np.isclose(terms.sum(), z[roof] - z[cat])
    output = page(site, "toy/output")   # every heads variant
    rows = cells(output.find("table", id=f"table-contrast-h{heads}"))[1:]
    assert [r[-1] for r in rows] == [f"{v + 0.0:.3f}".replace("-", M).replace(M + "0.000", "0.000")
                                     for v in list(terms) + [terms.sum()]]
    text = text_of(output)
    winner = "␣roof" if terms.sum() > 0 else "␣cat"
    assert winner == ("␣roof" if heads == 2 else "␣cat")
    assert (f"Here \\(f_2\\) = {f[1]:.3f}".replace("-", M) + f", so {winner} wins this contest") in text


def test_the_gradients_can_be_checked(toy, views):
    """Training shows dL/dz = p − onehot (␣roof: 0.395 − 1 = −0.605), dL/df,
    the last link to a row of E, and a central difference beside the
    backward pass, all recomputed here (with 2 heads, the default view)."""
    ex = Example(toy, heads=2)
    soup = views["training"]
    math = " ".join(m.get_text() for m in soup.select(".arithmatex"))
    assert "\\frac{\\partial L}{\\partial z_{\\text{␣roof}}} &= 0.395 - 1 = -0.605" in math
    p = ex.p_last
    dz = p.copy()
    dz[ex.target_id] -= 1
    df = dz @ toy.params["W_U"].T
    assert "\\frac{\\partial L}{\\partial f_5} &= \\sum_i" in math
    assert "[" + ", ".join(f"{v:.3f}" for v in df) + "]" in math
    row = ex.grads["E"][1]
    assert "\\frac{\\partial L}{\\partial E[1]} &= \\frac{\\partial L}{\\partial x_5}" in math
    assert "[" + ", ".join(f"{v + 0:.3f}" for v in row) + "]" in math
    c = int(np.argmax(np.abs(row)))
    losses = []
    for step in (1e-4, -1e-4):
        E = toy.params["E"].astype(float).copy()
        E[1, c] += step
        q = gpt.forward(dict(toy.params, E=E), toy.cfg, ex.ids, 2)["p"][-1]
        losses.append(-np.log(q[ex.target_id]))
    numeric = (losses[0] - losses[1]) / 2e-4
    assert abs(numeric - row[c]) < 1e-6
    assert f"= {numeric:.6f} \\\\ \\frac{{\\partial L}}{{\\partial E_{{1,{c + 1}}}}}" in math
    assert f"\\text{{(backward pass)}} &= {row[c]:.6f}" in math



def test_the_heads_chooser_first_appears_where_heads_are_met(site):
    """Embedding and Positions come before the reader meets a head: no
    chooser there, a link to Attention instead; Attention offers it. (Fresh
    pages: `view` removes the chooser, hidden until path.js shows it, from
    the module's shared ones.)"""
    for name in ("embedding", "positions"):
        soup = page(site, f"toy/{name}")
        assert soup.select_one(".heads-chooser") is None, name
        # (the map's heads link there: an SVG link, xlink:href)
        assert soup.select_one("article a[href$='attention/'], article a[xlink\\:href$='attention/']"), name
    assert page(site, "toy/attention").select_one(".heads-chooser") is not None


def test_training_has_its_own_page_after_generation(pages, toy, views):
    """The backward pass waits until the chapter has shown the whole model:
    Embedding has no derivative (no ∂, in its Markdown or its page) and
    points to Training, the page after Generation, which takes the book's
    step (p of the target before and after, the loss before and after)."""
    source = (DOCS / "toy" / "embedding.md").read_text(encoding="utf-8")
    built = str(pages["embedding"].select_one("article"))
    for text in (source, built):
        assert "∂" not in text and "\\partial" not in text and "derivative" not in text
    assert pages["embedding"].select_one("article a[href$='training/']") is not None
    assert CHAPTER[-2:] == ["generation", "training"]
    ex = Example(toy, heads=2)
    before, after = ex.p_last[ex.target_id], ex.stepped_trace["p"][-1, ex.target_id]
    assert after > before
    text = text_of(views["training"])
    assert (f"goes from {before:.3f} to {after:.3f} , the loss from {ex.loss:.3f} to {ex.stepped_loss:.3f}"
            in text), text[text.find("goes from"):][:120]
    step = rows(views["training"], "table-step")[1:]
    assert [r[0] for r in step] == [str(i) for i in ex.sentence_rows]
    assert step[-1][3] == "[" + ", ".join(f"{v:.3f}".replace("-", M) for v in ex.stepped_E[ex.sentence_rows[-1]]) + "]"


def test_the_glossary_says_the_toys_layernorm_learns_nothing(pages, ex):
    """The LayerNorm page says the toy has no γ and β; the tooltip of the
    word LayerNorm on that page said "then scale and shift by learned
    weights", as if the toy's did. It says which models do."""
    titles = {a["title"] for a in pages["layernorm"].select("article abbr") if a.get_text() in ("LayerNorm", "layer norm")}
    assert titles, "no LayerNorm term underlined on the LayerNorm page"
    assert not ex.model.cfg.ln_weights
    for title in titles:
        assert "not the toy" in title, title


