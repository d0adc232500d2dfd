"""The toy chapter's macros (docs/toy/): registration only.

    {{ chapter_table("order") }}                   an HTML table (chapter.TABLES)
    {{ chapter_formula("shift") }}                 display TeX with the numbers in (chapter.FORMULAS)
    {{ chapter_number("written", text="the") }}    one value for the prose (chapter.NUMBERS)

The same conventions as toycalc/macros.py, whose BookError (and error
formatting) this module shares: every call may choose `heads` and
`temperature`; without `heads` it renders every heads choice for the
chooser. The weights are the same file (macros.weights_path). A mistake
stops the build with one line naming the page and what exists.
"""
from __future__ import annotations

from . import chapter
from .macros import every_heads_choice, registry_macro, toy_examples

KINDS = {"chapter_table": chapter.TABLES, "chapter_formula": chapter.FORMULAS,
         "chapter_number": chapter.NUMBERS}


def define_env(env):
    example = toy_examples(env)
    for kind, registry in KINDS.items():
        env.macro(registry_macro(env, kind, registry, every_heads_choice(example, kind == "chapter_number"),
                                 choices=("heads", "temperature")), kind)
