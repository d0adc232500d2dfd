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

import inspect

from mkdocs.exceptions import PluginError

from . import chapter
from .example import Example
from .macros import BookError, weights_path
from .render import by_heads
from .weights import WeightsError, load_toy

KINDS = {"chapter_table": chapter.TABLES, "chapter_formula": chapter.FORMULAS,
         "chapter_number": chapter.NUMBERS}


def define_env(env):
    try:
        model = load_toy(weights_path(env))
    except WeightsError as e:
        raise PluginError(str(e)) from None
    settings = dict(env.conf["extra"].get("toycalc", {}).get("example", {}))
    examples: dict = {}

    def example(heads=None, temperature=1.0) -> Example:
        heads = model.heads if heads is None else heads
        key = (heads, float(temperature))
        if key not in examples:
            examples[key] = Example(model, heads=heads, temperature=float(temperature), **settings)
            examples[key].trace  # fail here, on the call that chose it
        return examples[key]

    def caller(kind: str, registry: dict):
        def call(*args, heads=None, temperature=1.0, **options):
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
                raise BookError(f"{what}: unknown argument '{unknown[0]}'; it takes "
                                f"{', '.join(accepted + ['heads', 'temperature'])}")
            try:
                if heads is not None:
                    return function(example(heads, temperature), **options)
                default = example()
                outputs = {h: function(example(h, temperature), **options) for h in default.heads_choices}
                return by_heads(outputs, default.n_heads, inline=(kind == "chapter_number"))
            except (ValueError, TypeError, IndexError) as e:
                raise BookError(f"{what}: {e}") from None
        call.__name__ = kind
        call.registry = registry  # for the contributor page's list (toycalc/reference.py)
        call.__doc__ = f"{kind}(name, heads=None, temperature=1, ...): one of {', '.join(registry)}"
        return call

    for kind, registry in KINDS.items():
        env.macro(caller(kind, registry), kind)
