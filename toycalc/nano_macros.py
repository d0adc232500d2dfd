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

from mkdocs.exceptions import PluginError

from . import nano_tables
from .macros import registry_macro
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
    for kind, registry in KINDS.items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(run, **options)), kind)
