"""The macros of "What changed since 2017": registration only.

    {{ modern_table("models") }}           an HTML table (modern.TABLES)
    {{ modern_formula("rmsnorm") }}        display TeX with the numbers in (modern.FORMULAS)
    {{ modern_number("count", model="Llama 2 7B") }}  one value for the prose (modern.NUMBERS)

Every number comes from the toy weights of toycalc/macros.py (the weights
file of mkdocs.yml, or TOYCALC_WEIGHTS) run by gpt.forward with the
page's switches, at the weights file's default heads. A mistake stops the
build with one line naming the page and what exists (BookError, shared
with toycalc/macros.py).
"""
from __future__ import annotations

import inspect

from mkdocs.exceptions import PluginError

from . import modern
from .example import Example
from .macros import BookError, weights_path
from .weights import WeightsError, load_toy

KINDS = {"modern_table": modern.TABLES, "modern_formula": modern.FORMULAS,
         "modern_number": modern.NUMBERS}


def define_env(env):
    try:
        model = load_toy(weights_path(env))
    except WeightsError as e:
        raise PluginError(str(e)) from None
    settings = dict(env.conf["extra"].get("toycalc", {}).get("example", {}))
    example = Example(model, **settings)

    def caller(kind: str, registry: dict):
        def call(*args, **options):
            page = env.page.file.src_path if env.page else "?"
            if len(args) != 1:
                raise BookError(f"{page}: {kind}{args}: expected one name; the names are: "
                                f"{', '.join(registry)}")
            name = args[0]
            what = f"{page}: {kind}({name!r})"
            if name not in registry:
                raise BookError(f"{what}: no such name; the names are: {', '.join(registry)}")
            function = registry[name]
            accepted = list(inspect.signature(function).parameters)[1:]
            unknown = [k for k in options if k not in accepted]
            if unknown:
                takes = ", ".join(accepted) if accepted else "no arguments"
                raise BookError(f"{what}: unknown argument '{unknown[0]}'; it takes {takes}")
            try:
                return function(example, **options)
            except (ValueError, TypeError, IndexError, KeyError) as e:
                raise BookError(f"{what}: {e}") from None
        call.__name__ = kind
        call.registry = registry  # read by the contributor page's macro reference
        call.__doc__ = f"{kind}(name, ...): one of {', '.join(registry)}"
        return call

    for kind, registry in KINDS.items():
        env.macro(caller(kind, registry), kind)
