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

from . import modern
from .macros import registry_macro, toy_examples

KINDS = {"modern_table": modern.TABLES, "modern_formula": modern.FORMULAS,
         "modern_number": modern.NUMBERS}


def define_env(env):
    example = toy_examples(env)()  # the default run: the weights file's heads, T = 1
    for kind, registry in KINDS.items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(example, **options)), kind)
