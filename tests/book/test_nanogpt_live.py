"""nano-gpt live on the chapter's pages: docs/javascripts/nano_gpt.js in
Node against toycalc. Every matrix that stops at "N more rows", opened in
full, is the markup nano_gpt/cells.py's `heat` writes for the whole
matrix, string for string (so its corner is the page's, cell for cell);
the reader's letters are read as the field promises; the built pages
carry the field hidden, and the scripts only where they are needed."""
from __future__ import annotations

import inspect
import json
import re

import pytest

from conftest import page
from nodejs import published, run_json
from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.nano_example import Run
from toycalc.model import nanogpt

# the twins the runners run (tests/test_mirrors.py)
JS_CASES = ["nano_gpt.js:exampleIds", "nano_gpt.js:parseLetters", "nano_gpt.js:fullMarkup", "nano_gpt.js:sortLetters"]

RUNNER = r"""
const n = (await js("nano_gpt")), g = (await js("gpt"));
const model = await publishedModel(job.weights);
const tr = g.forward(model, n.exampleIds(model, job.example));
const parsed = job.letters.map((text) => {
  try { return n.parseLetters(text, model.vocab, 6); } catch (e) { return { error: e.message, input: e instanceof n.InputError }; }
});
process.stdout.write(JSON.stringify({ full: job.specs.map((s) => n.fullMarkup(model, tr, s)), parsed }));
"""


def every_matrix(cfg) -> list[dict]:
    """Each openable matrix the chapter can show, by the options a page may give."""
    blocks, heads = range(1, cfg.n_blocks + 1), range(1, cfg.n_heads + 1)   # counted from 1, as a page names them
    specs = [{"nanoFull": "E"}, {"nanoFull": "P"}, {"nanoFull": "X"}, {"nanoFull": "W", "name": "W_U"}]
    specs += [{"nanoFull": "u", "block": b} for b in blocks] + [{"nanoFull": "A", "block": b} for b in blocks]
    specs += [{"nanoFull": "qkv", "which": w, "head": h, "block": b} for w in "QKV" for h in heads for b in blocks]
    specs += [{"nanoFull": "mlp", "which": w, "block": b}
              for w in ("mlp_pre", "mlp_post", "m", "y", "h") for b in blocks]
    specs += [{"nanoFull": "W", "name": w, "block": b}
              for w in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2") for b in blocks]
    return specs


def python_full(run: Run, spec: dict) -> str:
    """The table the build would print with every row and column, from
    its head on (the caption says how much is shown; the browser keeps
    the page's)."""
    function = nano_gpt.registries["matrix"][spec["nanoFull"]]
    options = {k: (int(v) if k in ("block", "head") else v) for k, v in spec.items() if k != "nanoFull"}
    shown = function(run, **options)
    shape = {k: int(re.search(f'data-{k}="(\\d+)"', shown).group(1)) for k in ("rows", "cols")}
    accepted = inspect.signature(function).parameters
    whole = {k: v for k, v in shape.items() if k in accepted}
    if spec["nanoFull"] == "A":   # the stacked heads: every channel of each head
        whole["per_head"] = run.cfg.d // run.cfg.n_heads
    table = function(run, **options, **whole).split("\n")
    assert table[1].startswith("<caption>") and table[-1] == "</tbody></table>"
    assert "nano-more" not in "".join(table), spec    # all of it: data-rows and data-cols are the whole
    return "\n".join(table[2:-1] + ["</tbody>"])


@pytest.fixture(scope="module")
def node(run):
    letters = ["cbabbc", "C B A B B C", " a a a c c c ", "abd", "ab", "abcabcab", "", "ABCABÇ"]
    job = {"weights": published(run.model), "example": run.text,
           "specs": every_matrix(run.cfg), "letters": letters}
    return job, run_json(RUNNER, job, timeout=300)


def test_every_matrix_opened_in_full_is_the_builds_markup(run, node):
    job, out = node
    assert len(out["full"]) == len(job["specs"]) > 60
    for spec, js in zip(job["specs"], out["full"]):
        assert js == python_full(run, spec), spec


def test_the_page_names_what_the_browser_computes(run):
    """The data attributes of each openable table say which matrix it is
    and its whole shape; a table shown whole has none."""
    from bs4 import BeautifulSoup
    for spec in every_matrix(run.cfg):
        function = nano_gpt.registries["matrix"][spec["nanoFull"]]
        options = {k: v for k, v in spec.items() if k != "nanoFull"}
        table = BeautifulSoup(function(run, **options), "html.parser").table
        assert table["data-nano-full"] == spec["nanoFull"] and table["data-example"] == run.text
        for k, v in options.items():
            assert table[f"data-{k}"] == str(v)
        # the whole table's rows counted in its markup, its columns in its
        # head's row (parsing MLP's 48 x 192 cells took seconds)
        full = python_full(run, spec)
        head = BeautifulSoup(full.split("</tr>", 1)[0], "html.parser")
        assert table["data-rows"] == str(len(re.findall(r"<tr[ >]", full)) - 1)
        assert table["data-cols"] == str(len(head.find_all("th")))
    whole = nano_gpt.registries["matrix"]["attention"](run)
    assert "data-nano-full" not in whole and "nano-more" not in whole


def test_the_readers_letters(run, node):
    job, out = node
    parsed = dict(zip(job["letters"], out["parsed"]))
    assert parsed["cbabbc"] == parsed["C B A B B C"] == nanogpt.encode("C B A B B C")
    assert parsed[" a a a c c c "] == [0, 0, 0, 2, 2, 2]
    assert parsed["abd"] == {"error": '"d" is not a letter nano-gpt knows: type 6 letters, each A, B or C.',
                             "input": True}
    assert parsed["ab"]["error"] == "2 letters: nano-gpt sorts exactly 6, each A, B or C."
    assert parsed["abcabcab"]["error"].startswith("8 letters: ")
    assert parsed[""]["error"].startswith("0 letters: ")
    assert parsed["ABCABÇ"]["error"].startswith('"Ç" is not a letter')


def test_the_sort_is_toycalcs(run):
    """sortLetters' steps, in Node, against toycalc's generation loop."""
    script = r"""
    const n = (await js("nano_gpt")), m = await publishedModel(job.weights);
    process.stdout.write(JSON.stringify(job.inputs.map((ids) => n.sortLetters(m, ids, 6))));
    """
    inputs = [nanogpt.encode(t) for t in ("C B A B B C", "A A A A A A", "C C B B A A", "B C A C B A")]
    job = {"weights": published(run.model), "inputs": inputs}
    for ids, steps in zip(inputs, run_json(script, job)):
        want = Run(run.model, nanogpt.letters(ids)).steps
        assert [s["ids"] for s in steps] == [w["ids"] for w in want]
        assert [s["next"] for s in steps] == [w["next"] for w in want]
        for s, w in zip(steps, want):
            assert max(abs(a - b) for a, b in zip(s["p"], w["p"])) < 1e-9


def test_the_field_is_hidden_without_javascript_and_the_code_only_where_needed(site):
    for name in ("nano-gpt", "nano-gpt/output"):
        soup = page(site, name)
        field = soup.select("[data-nano-sort]")
        assert len(field) == 1 and field[0].has_attr("hidden") and not field[0].get_text(strip=True)
        assert field[0]["data-example"] == "C B A B B C" and field[0]["data-length"] == "6"
    # Preliminaries: for its record's numbers, marked as the book's while the reader's weights are followed
    for name in ("nano-gpt", "nano-gpt/preliminaries", "nano-gpt/embedding", "nano-gpt/mlp", "nano-gpt/softmax",
                 "nano-gpt/output"):
        soup = page(site, name)
        assert not soup.select("article script"), name   # the page's code comes through book.js
        live = soup.select("[data-nano-live], [data-nano-sort], table[data-nano-full], [data-nano-book-weights]")
        assert live and all("letters" in part["data-module"].split() for part in live), name
    for name in ("end-to-end", "toy/attention", "contributing"):
        assert not page(site, name).select('[data-module~="letters"]'), name
    # the weights are fetched by the script when a reader asks, never linked from a page
    assert not [p for p in site.rglob("*.html") if "javascripts/nanogpt.safetensors" in p.read_text(encoding="utf-8")]
