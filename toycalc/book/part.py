"""A part of the book: what its pages may call, registered beside each function.

Each part has one `Part`, whose methods are decorators:

    toy = Part("toy_")

    @toy.table("gelu")                  # the page writes {{ toy_table("gelu") }}
    def gelu_table(ex: Example) -> str:
        ...

so that a contributor who reads a macro call in a page finds its function
with one search for its name. The macro of a kind is the part's prefix and
the kind (toy_ + table); site/macros.py registers `macros()` for the pages.
A decorator returns the function itself: the registry may hold it wrapped
(see `wrap`), a test or another module calls it plain. A number that is a
setting of the code, the same for every run (a seed, top-k's k), is
registered in one line, which names it as well:

    toy.constant("seed", str(SAMPLE_SEED), "The seed of every sampled run.")
"""
from __future__ import annotations

import sys
from typing import Callable

KINDS = ("table", "formula", "number", "figure")


class Part:
    """The registries of one part of the book, one per kind, name -> function.

    wrap(kind, name, function, live) returns what the registry holds for a
    function (nano-gpt marks its matrices and its live outputs); `live`
    records, by kind, the names registered with live=True: the outputs the
    browser draws again for the reader's own input (nano-gpt's letters)."""

    def __init__(self, prefix: str, kinds: tuple[str, ...] = KINDS, wrap: Callable | None = None):
        self.prefix = prefix
        self.registries: dict[str, dict[str, Callable]] = {kind: {} for kind in kinds}
        self.live: dict[str, list[str]] = {kind: [] for kind in kinds}
        self._wrap = wrap

    def macros(self) -> dict[str, dict[str, Callable]]:
        """Macro name -> registry, e.g. {"toy_table": {...}, "toy_formula": {...}, ...}."""
        return {self.prefix + kind: registry for kind, registry in self.registries.items()}

    def register(self, kind: str, name: str, live: bool = False) -> Callable:
        """The decorator that registers a function as `name` of `kind`."""
        if kind not in self.registries:
            raise ValueError(f"{self.prefix}{kind}: no such kind in this part; its kinds are "
                             f"{', '.join(self.registries)}")
        registry = self.registries[kind]

        def register(function: Callable) -> Callable:
            if name in registry:
                raise ValueError(f"{self.prefix}{kind}({name!r}) is registered twice: by "
                                 f"{registry[name].__module__}.{registry[name].__name__} and by "
                                 f"{function.__module__}.{function.__name__}")
            if live:
                self.live[kind].append(name)
            registry[name] = self._wrap(kind, name, function, live) if self._wrap else function
            return function
        return register

    def table(self, name: str, live: bool = False) -> Callable:
        return self.register("table", name, live)

    def formula(self, name: str, live: bool = False) -> Callable:
        return self.register("formula", name, live)

    def number(self, name: str, live: bool = False) -> Callable:
        return self.register("number", name, live)

    def figure(self, name: str, live: bool = False) -> Callable:
        return self.register("figure", name, live)

    def matrix(self, name: str, live: bool = False) -> Callable:
        return self.register("matrix", name, live)

    def constant(self, name: str, text: str, doc: str) -> None:
        """Register the number `name`: `text` whatever the run. Its function
        belongs to the module that calls this (as collections.namedtuple's
        classes do), where the page's code is."""
        def number(run) -> str:
            return text
        number.__name__ = number.__qualname__ = f"{name}_constant"
        number.__doc__, number.__module__ = doc, sys._getframe(1).f_globals["__name__"]
        number.constant = True      # (its name is on the line of this call, not above a def)
        self.register("number", name)(number)
