"""A page's code is found by its name: every function a page may call is
registered by a decorator that names it, on the line above its definition,
in the module of its part; every page that calls a macro has the module
named as the page (docs/toy/mlp.md: toycalc/book/toy/mlp.py), but those
the contributor page's table lists; and every registered name is called by
a page."""
from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from toycalc.book import claims, path, source
from toycalc.book.end_to_end import steps
from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.part import Part
from toycalc.book.toy import toy
from toycalc.book.what_changed import what_changed
from toycalc.book.writer import WRITER_CLAIMS, writer
from toycalc.site import reference
from toycalc.site.macros import macro_names

PARTS = {"end_to_end": steps, "toy": toy, "what_changed": what_changed, "nano_gpt": nano_gpt, "writer": writer}
# where each part's functions live: its module, or its package (a module per page);
# the Embedding page's steps are in its own module (End to End shows them again)
HOMES = {"end_to_end": ("toycalc.book.end_to_end", "toycalc.book.toy.embedding"), "toy": "toycalc.book.toy.",
         "what_changed": "toycalc.book.what_changed", "nano_gpt": "toycalc.book.nano_gpt.",
         "writer": "toycalc.book.writer."}


def registered():
    for part_name, part in PARTS.items():
        for macro, registry in part.macros().items():
            for name, function in registry.items():
                yield part_name, macro, name, inspect.unwrap(function)
    for name, function in {**claims.CLAIMS, **claims.NANO_CLAIMS, **WRITER_CLAIMS}.items():
        yield "claims", "claim", name, function


def test_each_name_is_on_the_line_above_its_definition():
    """Or, for a constant (Part.constant), on the line that registers it."""
    for part_name, macro, name, function in registered():
        if getattr(function, "constant", False):
            lines = inspect.getsource(sys.modules[function.__module__]).splitlines()
            assert any(f'.constant("{name}", ' in line for line in lines), (macro, name, function.__module__)
        else:
            lines, _ = inspect.getsourcelines(function)
            decorator = next(k for k, line in enumerate(lines) if line.startswith("def "))
            assert f'("{name}"' in lines[decorator - 1], (macro, name, function.__qualname__)
        if part_name != "claims":
            assert function.__module__.startswith(HOMES[part_name]), (macro, name, function.__module__)


def test_each_page_module_is_named_as_its_page():
    for chapter, package in (("toy", "toy"), ("nano-gpt", "nano_gpt")):
        modules = {p.stem for p in (ROOT / "toycalc" / "book" / package).glob("*.py")}
        pages = {p.stem.replace("-", "_") for p in (ROOT / "docs" / chapter).glob("*.md")}
        called = {f.__module__.rpartition(".")[2] for _, _, _, f in registered()
                  if f.__module__.startswith(f"toycalc.book.{package}.")}
        # a module that registers is a page's (or, for the toy, the home page's)
        assert called <= pages | {"home"}, called - pages
        assert modules - pages <= {"__init__", "shared", "cells", "home"}, modules - pages


# Every macro, as a page calls it: a part's kind (its function found by the
# name the page gives), a claim, or one of the three with no name.
BY_NAME = {macro: registry for part in PARTS.values() for macro, registry in part.macros().items()} | {
    "claim": claims.CLAIMS | claims.NANO_CLAIMS | WRITER_CLAIMS}
WITHOUT_NAME = {"path_diagram": path.path_diagram, "heads_chooser": path.heads_chooser,
                "macro_reference": reference.macro_reference, "site_files": reference.site_files_table,
                "code": source.code_block}
# What any page may call beside its own: the claims' checks, the heads chooser and the code beside a formula.
SHARED = {"claim", "heads_chooser", "code"}
CALL = re.compile(r'\{\{-?\s*(\w+)\((?:\s*"([^"]*)")?')


def pages() -> list[Path]:
    """The book's pages: the top level's and the two chapters'."""
    docs = ROOT / "docs"
    return sorted([*docs.glob("*.md"), *(docs / "toy").glob("*.md"), *(docs / "nano-gpt").glob("*.md")])


def code_of(page: Path) -> set[str]:
    """The modules that hold the functions the page's macros call (the
    shared ones left out)."""
    found = set()
    for macro, name in CALL.findall(page.read_text(encoding="utf-8")):
        if macro in BY_NAME and macro not in SHARED:
            assert name in BY_NAME[macro], f"{page.relative_to(ROOT)}: {macro}({name!r}) is registered nowhere"
            found.add(inspect.unwrap(BY_NAME[macro][name]).__module__)
        elif macro in WITHOUT_NAME and macro not in SHARED:
            found.add(WITHOUT_NAME[macro].__module__)
    return found


def calls_a_macro(page: Path) -> bool:
    return any(macro in macro_names() for macro, _ in CALL.findall(page.read_text(encoding="utf-8")))


def module_named_as(page: Path) -> Path:
    """docs/toy/mlp.md -> toycalc/book/toy/mlp.py, docs/end-to-end.md -> toycalc/book/end_to_end.py."""
    parts = [part.replace("-", "_") for part in page.relative_to(ROOT / "docs").with_suffix("").parts]
    return ROOT.joinpath("toycalc", "book", *parts).with_suffix(".py")


def dotted(module: Path) -> str:
    return ".".join(module.relative_to(ROOT).with_suffix("").parts)


def elsewhere() -> dict[Path, set[str]]:
    """The contributor page's table: each page whose code is not in the
    module named as it, and the modules (from toycalc/) its code is in."""
    text = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w/.-]+\.md)`[^|]*\| (.+) \|$", text, re.MULTILINE)
    assert rows, "docs/contributing.md has no table of the pages whose code is elsewhere"
    return {ROOT / "docs" / page: {"toycalc." + m.removesuffix(".py").replace("/", ".")
                                   for m in re.findall(r"`([\w/]+\.py)`", where)} for page, where in rows}


def test_the_tests_know_every_macro():
    assert set(BY_NAME) | set(WITHOUT_NAME) == set(macro_names())


def test_each_page_that_calls_a_macro_has_the_module_named_as_it():
    table = elsewhere()
    calling = [page for page in pages() if calls_a_macro(page)]
    assert ROOT / "docs" / "toy" / "embedding.md" in calling and ROOT / "docs" / "nano-gpt" / "mlp.md" in calling
    for page in calling:
        if page in table:
            continue
        module, shown = module_named_as(page), page.relative_to(ROOT)
        assert module.is_file(), (f"{shown} calls macros: its code belongs in {module.relative_to(ROOT)} "
                                  "(or in a row of the table on docs/contributing.md)")
        assert dotted(module) in code_of(page), f"{shown}: no macro it calls is in {module.relative_to(ROOT)}"


def test_the_contributor_page_says_where_the_other_pages_code_is():
    """Its table, page by page: the page calls macros, has no module named
    as it, and its code is in the modules the row names, all of them."""
    for page, modules in elsewhere().items():
        shown = page.relative_to(ROOT)
        assert page.is_file() and calls_a_macro(page), f"{shown}: no such page, or it calls no macro"
        assert not module_named_as(page).is_file(), f"{shown} has its module: take its row out of the table"
        assert code_of(page) == modules, shown


def test_every_registered_name_is_called_by_a_page():
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    called = set(re.findall(r'\{\{-?\s*(\w+)\("([^"]+)"', text))
    # a false claim for the tests (tests/site/test_macros.py) stays, though no page makes it
    kept = {("claim", "top_token")}
    unused = [(macro, name) for _, macro, name, _ in registered()
              if (macro, name) not in called and (macro, name) not in kept]
    assert unused == []


def test_a_name_registered_twice_or_of_a_kind_the_part_lacks_is_refused():
    part = Part("p_")
    part.table("a")(lambda ex: "")
    with pytest.raises(ValueError, match=r"p_table\('a'\) is registered twice"):
        part.table("a")(lambda ex: "")
    with pytest.raises(ValueError, match="p_matrix: no such kind in this part; its kinds are table, formula"):
        part.matrix("m")
    assert list(part.macros()) == ["p_table", "p_formula", "p_number", "p_figure"]


def test_a_constant_is_a_number_of_the_module_that_registers_it():
    part = Part("p_")
    part.constant("seed", "1337", "The seed of every sampled run.")
    function = part.registries["number"]["seed"]
    assert function(None) == "1337" and inspect.getdoc(function) == "The seed of every sampled run."
    assert function.__module__ == __name__
    with pytest.raises(ValueError, match=r"p_number\('seed'\) is registered twice"):
        part.constant("seed", "1", "Again.")
