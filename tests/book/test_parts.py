"""A page's code is found by its name: every function a page may call is
registered by a decorator that names it, on the line above its definition,
in the module of its part; and every registered name is called by a page."""
from __future__ import annotations

import inspect
import re

import pytest

from conftest import ROOT
from toycalc.book import claims
from toycalc.book.end_to_end import steps
from toycalc.book.nano_gpt import nano_gpt
from toycalc.book.part import Part
from toycalc.book.toy import toy
from toycalc.book.what_changed import what_changed

PARTS = {"end_to_end": steps, "toy": toy, "what_changed": what_changed, "nano_gpt": nano_gpt}
# where each part's functions live: its module, or its package (a module per page)
HOMES = {"end_to_end": "toycalc.book.end_to_end", "toy": "toycalc.book.toy.",
         "what_changed": "toycalc.book.what_changed", "nano_gpt": "toycalc.book.nano_gpt."}


def registered():
    for part_name, part in PARTS.items():
        for macro, registry in part.macros().items():
            for name, function in registry.items():
                yield part_name, macro, name, inspect.unwrap(function)
    for name, function in {**claims.CLAIMS, **claims.NANO_CLAIMS}.items():
        yield "claims", "claim", name, function


def test_each_name_is_on_the_line_above_its_definition():
    for part_name, macro, name, function in registered():
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
