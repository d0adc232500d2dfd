"""`mkdocs serve` rebuilds in one process and would keep the old code in
sys.modules: macros.define_env asks `stale()` and, after an edit of
toycalc, forgets every toycalc module (`forget_toycalc`) and imports
itself anew, which reads every file again."""
from __future__ import annotations

import sys
from pathlib import Path


def newest_source() -> float:
    """The last change to toycalc's code."""
    return max(p.stat().st_mtime for p in Path(__file__).parent.parent.rglob("*.py"))


LOADED_AT = newest_source()


def stale() -> bool:
    """Whether toycalc's code changed since this module was imported."""
    return newest_source() > LOADED_AT


def forget_toycalc() -> None:
    """Drop every toycalc module from sys.modules, so that the next import
    of any of them (this one's included) reads its file again."""
    for name in [n for n in sys.modules if n == "toycalc" or n.startswith("toycalc.")]:
        del sys.modules[name]
