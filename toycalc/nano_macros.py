"""The nano-gpt chapter's macros: registration only.

    {{ nano_matrix("attention", head=1) }}   coloured cells (nano_tables.MATRICES)
    {{ nano_table("softmax", t=5) }}         an HTML table (nano_tables.TABLES)
    {{ nano_formula("layernorm", t=3) }}     display TeX with the numbers in (nano_tables.FORMULAS)
    {{ nano_number("p", letter="A") }}       one value for the prose (nano_tables.NUMBERS)

Every number comes from the trained weights (nanogpt.DEFAULT_NPZ, or the
file named by TOYCALC_NANOGPT), run by toycalc's one GPT; the build never
trains. A mistake stops the build with one line naming the page and what
exists, as in toycalc/macros.py (whose BookError this module shares).
"""
from __future__ import annotations

import inspect

from mkdocs.exceptions import PluginError

from . import nano_tables
from .macros import BookError
from .nano_example import Run
from .nanogpt import NanoWeightsError, load

KINDS = {"nano_matrix": nano_tables.MATRICES, "nano_table": nano_tables.TABLES,
         "nano_formula": nano_tables.FORMULAS, "nano_number": nano_tables.NUMBERS}


def define_env(env):
    try:
        model = load()
    except NanoWeightsError as e:
        raise PluginError(str(e)) from None
    run = Run(model)

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
                return function(run, **options)
            except (ValueError, TypeError, IndexError, KeyError) as e:
                raise BookError(f"{what}: {e}") from None
        call.__name__ = kind
        call.registry = registry  # read by the contributor page's macro reference
        call.__doc__ = f"{kind}(name, ...): one of {', '.join(registry)}"
        return call

    for kind, registry in KINDS.items():
        env.macro(caller(kind, registry), kind)
