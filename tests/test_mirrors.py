"""The browser side mirrors the Python side, file for file.

Every function marked @mirrored (toycalc/model/mirror.py) has its twin in
the JavaScript file the mark names, and some Node parity test runs that
twin (the parity test modules list what their runners run in JS_CASES, see
tests/nodejs.py); nano-gpt's live chapter draws again exactly what its
LIVE registry marks. Every file of docs/javascripts says on its first line
what it is (the twin of which Python, or a page script or helper), names
no file that is not there, and stays small: at most 700 lines, no function
over 80.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import toycalc.book
import toycalc.model
from conftest import ROOT
from nodejs import JS, run_json
from toycalc.book.nano_gpt import nano_gpt
from toycalc.model.mirror import MIRRORED, camel

# nano-gpt's outputs the browser draws again (registered with live=True), by kind
LIVE = {kind: names for kind, names in nano_gpt.live.items() if names}
MAX_LINES = 700
MAX_FUNCTION = 80
# what a file is: a twin (pure, Node imports it too), a helper of the
# page's code (Node may import it), a page's code (book.js imports it for a
# part that names it, data-module), one of every page's, or the worker
FIRST_LINE = re.compile(r"^// ([\w.-]+\.js): (the twin of toycalc/|a page helper|a page's code|on every page|a Web Worker)")
NODE_IMPORTS = ("the twin of toycalc/", "a page helper")


def js_files() -> list[Path]:
    return sorted(p for p in JS.glob("*.js"))


def all_marked() -> dict[str, tuple[str, str]]:
    """Every @mirrored function of toycalc's model and book (the site is
    glue, it computes nothing), once each module is imported."""
    for package in (toycalc.model, toycalc.book):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    return dict(MIRRORED)


@functools.cache
def parity_cases() -> dict[str, list[str]]:
    """"file.js:name" -> the test modules whose JS_CASES list it. A case
    must name a twin the module's runners call: the name is in the module
    other than as a listed case."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        if not re.search(r"^JS_CASES\b", source, re.M):
            continue
        spec = importlib.util.spec_from_file_location(f"js_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in module.JS_CASES:
            name = case.split(":", 1)[1]
            assert re.search(rf"(?<!\.js:)\b{name}\b", source), \
                f"{path.relative_to(ROOT)}: JS_CASES lists {case}, but its runners never call {name}"
            found.setdefault(case, []).append(path.name)
    return found


# ---------------------------------------------------------------- the twins

EXPORTS = r"""
const modules = await Promise.all(job.map((file) => js(file.replace(/\.js$/, ""))));
process.stdout.write(JSON.stringify(Object.fromEntries(job.map((file, k) => {
  const m = modules[k];
  return [file, Object.keys(m).filter((k) => typeof m[k] === "function")];
}))));
"""

LIVE_KEYS = r"""
const live = (await js("nano_gpt")).LIVE;
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(live).map(([k, v]) => [k, Object.keys(v)]))));
"""


@pytest.fixture(scope="module")
def exports() -> dict[str, set[str]]:
    """The functions each twin and page helper of docs/javascripts
    exports, imported in Node (the others need a page or a worker)."""
    files = [p.name for p in js_files() if FIRST_LINE.match(p.read_text(encoding="utf-8")).group(2) in NODE_IMPORTS]
    return {file: set(names) for file, names in run_json(EXPORTS, files).items()}


def test_every_mirrored_function_has_its_twin_and_a_parity_case(exports):
    marked = all_marked()
    assert len(marked) > 30
    cases = parity_cases()
    for function, (file, name) in sorted(marked.items()):
        assert file in exports, f"{function} is @mirrored, but there is no docs/javascripts/{file}"
        assert name in exports[file], f"{function} is @mirrored, but docs/javascripts/{file} exports no {name}"
        assert f"{file}:{name}" in cases, \
            f"{function}: no parity test runs its twin {file}:{name} (add it to a Node runner and its JS_CASES)"


def test_the_parity_cases_name_twins_that_are_there(exports):
    for case, modules in parity_cases().items():
        file, name = case.split(":", 1)
        if name != "LIVE":   # an object, below
            assert name in exports.get(file, ()), \
                f"{', '.join(modules)}: JS_CASES lists {case}, which docs/javascripts/{file} does not export"


def test_the_browser_draws_again_what_the_chapter_marks_live():
    """nano_gpt.js's LIVE registry is the chapter's, name for name: a name
    missing is an output the browser leaves stale, one too many a twin no
    page uses."""
    got = run_json(LIVE_KEYS, None)
    assert set(got) == set(LIVE)
    for kind, names in LIVE.items():
        missing, extra = set(names) - set(got[kind]), set(got[kind]) - set(names)
        assert not missing, f"nano_gpt.js's LIVE.{kind} does not draw {', '.join(sorted(missing))} again"
        assert not extra, f"nano_gpt.js's LIVE.{kind} has {', '.join(sorted(extra))}, which the chapter does not mark"
    assert "nano_gpt.js:LIVE" in parity_cases()


def test_camel_case():
    assert camel("attention_lines_svg") == "attentionLinesSvg" and camel("fixed") == "fixed"


# ---------------------------------------------------------------- the files

def strip(source: str) -> str:
    """The code alone: comments, strings, template texts and regular
    expressions blanked (a crude lexer, enough to match braces), lines kept."""
    out, i, n = [], 0, len(source)
    code_before = ""   # the last code character, to tell a regular expression from a division
    templates = []     # brace depth at each ${ of an open template literal
    depth = 0
    while i < n:
        c = source[i]
        two = source[i:i + 2]
        if two == "//":
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        if two == "/*":
            j = source.index("*/", i) + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
            continue
        if c in "\"'`" or (c == "}" and templates and templates[-1] == depth):
            # a string, or a template's text up to its end or its next ${
            if c == "}":
                templates.pop()
                depth -= 1
            quote = "`" if c in "`}" else c
            j = i + 1
            while j < n and source[j] != quote and not (quote == "`" and source.startswith("${", j)):
                j += 2 if source[j] == "\\" else 1
            blank = re.sub(r"[^\n]", " ", source[i:j])
            if j < n and source[j] != quote:     # ${: code again, until its }
                depth += 1
                templates.append(depth)
                out.append(("}" if c == "}" else " ") + blank[1:] + " {")
                i = j + 2
            else:
                out.append(("}" if c == "}" else " ") + blank[1:] + " ")
                i = j + 1
            code_before = "x"
            continue
        if c == "/" and (not code_before or code_before in "(,=:[!&|?{};+-*%<>~^"):
            j, in_class = i + 1, False
            while j < n and (source[j] != "/" or in_class):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            out.append(" " * (j + 1 - i))
            i = j + 1
            code_before = "x"
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        out.append(c)
        if not c.isspace():
            code_before = c
        i += 1
    return "".join(out)


FUNCTION_HEAD = re.compile(r"(?:\bfunction\b[^{]*|=>\s*|\b(?!(?:if|for|while|switch|catch)\b)\w+\s*\([^()]*\)\s*)$")


def long_functions(source: str) -> list[tuple[int, int]]:
    """(first line, lines) of each function over MAX_FUNCTION lines, by
    matching braces."""
    code = strip(source)
    found, stack, line = [], [], 1
    for k, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            start = code.rfind("\n", 0, k) + 1
            is_function = bool(FUNCTION_HEAD.search(code[start:k].rstrip()))
            stack.append((line, is_function))
        elif c == "}":
            first, is_function = stack.pop()
            if is_function and line - first + 1 > MAX_FUNCTION:
                found.append((first, line - first + 1))
    assert not stack, "unbalanced braces"
    return found


def test_every_script_is_small_and_says_what_it_is():
    assert len(js_files()) >= 10
    for path in js_files():
        source = path.read_text(encoding="utf-8")
        lines = source.count("\n")
        assert lines <= MAX_LINES, f"{path.name}: {lines} lines, more than {MAX_LINES}"
        assert long_functions(source) == [], f"{path.name}: functions over {MAX_FUNCTION} lines (line, length)"
        first = FIRST_LINE.match(source)
        assert first and first.group(1) == path.name, \
            f"{path.name}: the first line says '// {path.name}: ' and what it is (FIRST_LINE)"


def test_the_scripts_name_only_files_that_are_there():
    for path in js_files():
        comments = "\n".join(re.findall(r"//.*|/\*[\s\S]*?\*/", path.read_text(encoding="utf-8")))
        for named in re.findall(r"\b(?:toycalc|tests|docs|benchmarks)/[\w/.-]*\w/?", comments):
            assert (ROOT / named).exists(), f"{path.name} names {named}, which is not there"
        for named in re.findall(r"\b([\w-]+\.js)\b", comments):
            assert (JS / named).exists(), f"{path.name} names {named}, which is not in docs/javascripts"


def test_the_brace_counter_finds_a_long_function():
    """So the check above can fail."""
    line = "  const v = `${k}` + '}' + /}/.source;   // a } in a comment"
    body = "\n".join([line] * 90)
    source = f"function long() {{\n{body}\n}}\nconst short = () => {{ return 1; }};\n"
    assert long_functions(source) == [(1, 92)]
