"""`mkdocs serve` rebuilds in one process and would keep the old code in
sys.modules: macros.define_env asks `stale()` and, after an edit of
toycalc, imports every toycalc module anew (`fresh_macros`)."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path


def newest_source() -> float:
    """The last change to toycalc's code."""
    return max(p.stat().st_mtime for p in Path(__file__).parent.parent.rglob("*.py"))


LOADED_AT = newest_source()


def stale() -> bool:
    """Whether toycalc's code changed since this module was imported."""
    return newest_source() > LOADED_AT


def fresh_macros():
    """Forget every toycalc module, so that this import and the plugin's
    next ones read the files again; the macros module, imported anew."""
    for name in [n for n in sys.modules if n == "toycalc" or n.startswith("toycalc.")]:
        del sys.modules[name]
    return importlib.import_module("toycalc.site.macros")
