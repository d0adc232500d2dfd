"""The mark of a function the browser computes too.

`@mirrored("draw.js")` says that docs/javascripts/draw.js holds this
function's twin, under its name in camelCase (`attention_svg` ->
`attentionSvg`) unless another is given. The mark changes nothing in the
function; tests/test_mirrors.py lists every marked one and fails when its
twin is missing from the JavaScript file, or when no Node parity test runs
the twin against it. nano-gpt's live chapter needs no mark: its LIVE
registry is the list of what the browser draws again.
"""
from __future__ import annotations

from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

# How many decimal places the browser's forward pass agrees with numpy's on
# every intermediate: the tolerance of tests/book/test_simulator_parity.py,
# and what End to End says of it.
PARITY_PLACES = 9

# "module.function" -> (JavaScript file in docs/javascripts, the twin's name)
MIRRORED: dict[str, tuple[str, str]] = {}


def camel(name: str) -> str:
    """A Python name as JavaScript spells it: html_table -> htmlTable."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def mirrored(js_file: str, js_name: str | None = None) -> Callable[[F], F]:
    """Mark a function as having a twin in docs/javascripts/`js_file`."""
    def mark(function: F) -> F:
        MIRRORED[f"{function.__module__}.{function.__qualname__}"] = (js_file, js_name or camel(function.__name__))
        return function
    return mark
