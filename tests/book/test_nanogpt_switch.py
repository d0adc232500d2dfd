"""The chapter switched to the reader's letters: docs/javascripts/nano_gpt.js's
`chapter` in Node against book/nano_gpt/. Every output the build marks
as depending on the input (data-nano-live), with the options a page gives
it and with its defaults, drawn by the browser's code for several inputs
is the string the build writes for a Run on those inputs (without the
data attributes, which the browser keeps from the page's element)."""
from __future__ import annotations

import ast
import dataclasses
import html
import inspect
import json
import re

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT
from nodejs import published, run_json
from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.nano_gpt.shared import WEIGHTS_ONLY
from toycalc.book.nano_example import Run
from toycalc.model import train

KINDS = nano_gpt.registries
CALL = re.compile(r'\{\{\s*nano_gpt_(matrix|table|formula|number|figure)\(("[^"]+")((?:,\s*\w+=[^,)]+)*)\)\s*\}\}')
# the book's example, then others: mixed, one letter, sorted, reversed
INPUTS = ["C B A B B C", "A A B C C A", "C C C C C C", "A B B C C C", "C C B A A A", "B A C A B C"]

# the twins RUNNER runs (tests/test_mirrors.py): the chapter renders every
# entry of nano_gpt.js's LIVE, and live_calls below asks for each of the
# Python LIVE's
JS_CASES = ["nano_gpt.js:chapter", "nano_gpt.js:LIVE", "nano_gpt.js:exampleIds"]

RUNNER = r"""
const n = (await js("nano_gpt"));
const model = await publishedModel(job.weights);
process.stdout.write(JSON.stringify(job.inputs.map((text) => {
  const ch = n.chapter(model, n.exampleIds(model, text));
  return job.calls.map(([kind, name, args]) => ch.render(kind, name, args));
})));
"""


def page_calls() -> list[tuple[str, str, dict]]:
    """Every nano macro call of the chapter's pages, with its options."""
    calls = []
    for md in sorted((ROOT / "docs" / "nano-gpt").glob("*.md")):
        for kind, name, options in CALL.findall(md.read_text(encoding="utf-8")):
            opts = {k: ast.literal_eval({"true": "True", "false": "False"}.get(v.strip(), v.strip()))
                    for k, v in re.findall(r"(\w+)=([^,]+)", options)}
            calls.append((kind, ast.literal_eval(name), opts))
    return calls


def live_calls(run) -> list[tuple[str, str, dict, dict]]:
    """(kind, name, options, data-nano-args) of each marked output: the
    pages' calls and every live entry with its defaults."""
    calls = page_calls() + [(kind, name, {}) for kind, names in nano_gpt.live.items() for name in names]
    out, seen = [], set()
    for kind, name, options in calls:
        markup = KINDS[kind][name](run, **options)
        found = re.match(r'<\w+ data-nano-live="([^"]+)" data-nano-args="([^"]*)"', markup) or \
            re.match(r'<span class="nano-live" data-nano-live="([^"]+)" data-nano-args="([^"]*)"', markup)
        if not found:
            continue
        assert found.group(1) == f"{kind}:{name}"
        args = json.loads(html.unescape(found.group(2)))
        key = (kind, name, json.dumps(args, sort_keys=True))
        if key not in seen:
            seen.add(key)
            out.append((kind, name, options, args))
    return out


@pytest.fixture(scope="module")
def drawn(run):
    calls = live_calls(run)
    job = {"weights": published(run.model), "inputs": INPUTS,
           "calls": [[kind, name, args] for kind, name, _, args in calls]}
    return calls, run_json(RUNNER, job, timeout=300)


def test_the_pages_mark_what_depends_on_the_input(run):
    calls = page_calls()
    assert len(calls) > 80
    marked = {(kind, name) for kind, name, _, _ in live_calls(run)}
    for kind, name, options in calls:
        out = KINDS[kind][name](run, **options)
        if name in nano_gpt.live[kind]:
            assert (kind, name) in marked
            assert "data-nano-live" in out.split(">", 1)[0], (kind, name, options)
        else:  # sizes, the training record, the facts over all 729 inputs: drawn by the build only
            assert "data-nano-live" not in out, (kind, name, options)
    # every kind is on some page, with the head the page follows named
    assert {kind for kind, _ in marked} == set(KINDS)
    qkv = [args for kind, name, _, args in live_calls(run) if name == "qkv"]
    assert qkv and all(isinstance(a["head"], int) for a in qkv)


def test_the_browser_draws_each_live_output_as_the_build_does(run, drawn):
    calls, out = drawn
    assert len(calls) > 50
    for text, strings in zip(INPUTS, out):
        other = Run(run.model, text)
        for (kind, name, options, _), js in zip(calls, strings):
            assert js == inspect.unwrap(KINDS[kind][name])(other, **options), (text, kind, name, options)


def test_the_inputs_give_different_numbers(run, drawn):
    """The comparison above is not of one example six times."""
    calls, out = drawn
    # the weight matrices are live for the reader's trained weights (letters.js), not for letters
    inputs = [k for k, (kind, name, _, _) in enumerate(calls) if (kind, name) not in WEIGHTS_ONLY]
    assert len(inputs) < len(calls)
    assert all(out[0][k] == out[1][k] for k in range(len(calls)) if k not in inputs)
    differ = sum(out[0][k] != out[1][k] for k in inputs)
    assert differ > len(inputs) * 0.8
    softmax = [k for k, (kind, name, _, _) in enumerate(calls) if (kind, name) == ("table", "softmax")][0]
    cells = [[td.get_text() for td in BeautifulSoup(strings[softmax], "html.parser").select("tbody td")]
             for strings in out]
    assert len({tuple(c) for c in cells}) == len(INPUTS)


def test_the_browser_knows_what_depends_on_the_weights_alone():
    """nano_gpt.js's WEIGHTS_ONLY (the live outputs a page of letters does
    not follow) is the chapter's, and each is live."""
    got = run_json('process.stdout.write(JSON.stringify((await js("nano_gpt")).WEIGHTS_ONLY));', None)
    assert {tuple(k.split(":")) for k in got} == WEIGHTS_ONLY
    assert all(name in nano_gpt.live[kind] for kind, name in WEIGHTS_ONLY)


WORDS = [("number", "finds_smallest", {"t": 6, "head": 1, "block": 1}), ("number", "blend", {"t": 6}),
         ("number", "lean", {"t": 6, "block": 1})]


def test_the_words_about_heads_are_the_builds_on_other_weights(nano):
    """The sentences that say in words where heads look (no property of a
    sorter): on weights fresh from initialisation (seed 3), queries and keys
    20 times longer, every branch of their words is taken, and the
    browser's words are the build's. (The book's weights take one branch each.)"""
    params = train.as64(train.start(seed=3)[0])
    for b in range(nano.cfg.n_blocks):
        params[f"blocks.{b}.W_Q"] *= 20
        params[f"blocks.{b}.W_K"] *= 20
    other = dataclasses.replace(nano, params=params)
    job = {"weights": published(other), "inputs": INPUTS,
           "calls": [list(call) for call in WORDS]}
    out = run_json(RUNNER, job, timeout=300)
    said = set()
    for text, strings in zip(INPUTS, out):
        run = Run(other, text)
        for (kind, name, args), js in zip(WORDS, strings):
            assert js == inspect.unwrap(KINDS[kind][name])(run, **args), (text, name)
            said.add(re.sub(r"\d+ of the|[ABC]\b.*", "", js))
    assert said == {"a copy of the smallest letter so far", "not the smallest letter so far, ",
                    "so every head hands on mostly one position's value",
                    "so  9 heads hand on mostly one position's value and the others a blend of several",
                    "all lean towards the ", "lean towards the "}, said
