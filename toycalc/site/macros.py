"""The mkdocs-macros module: it only registers what the pages may call,
for every part of the book (mkdocs.yml: `modules: [toycalc.site.macros]`).

    {{ table("softmax") }}            the worked example's steps (book/end_to_end.py): table,
    {{ formula("mlp", heads=4) }}       formula, number; the End-to-End page, the toy chapter
    {{ number("p", token="␣roof") }}    and Home all call them
    {{ claim("identity", name="W_O") }}  nothing on the page; a false claim stops the build: the
                                        toy's (book/claims.py) and every chapter's (book/chapters.py)
    {{ path_diagram() }}              the numbered path at the top of End to End (book/path.py)
    {{ heads_chooser("top") }}        the 1 / 2 / 4 heads buttons (named, one group each)
    {{ toy_table("order") }}          the toy chapter (book/toy/, a module per page): toy_table,
                                        toy_formula, toy_number, toy_figure
    {{ what_changed_table("models") }}  What changed since 2017 (book/what_changed.py):
                                        what_changed_table, _formula, _number, _figure
    {{ nano_gpt_matrix("E") }}        a registered model's chapter (book/chapters.py), one loop
    {{ writer_table("characters") }}    for all: its part's prefix and kinds (nano-gpt's, from
                                        book/nano_gpt/: nano_gpt_matrix, _table, _formula,
                                        _number, _figure; the writer's, from book/writer/:
                                        writer_table, _number, _figure)
    {{ code("toycalc/model/gpt.py", "attention") }}  the numpy beside a formula: a region of a
                                        file under toycalc/ (site/source_code.py, book/source.py)

Each function is registered by a decorator on the line above it, on its
part (book/part.py): `@toy.table("order")` registers what
`{{ toy_table("order") }}` calls. Every toy call (but the what_changed_
ones, which run the weights file's default
heads) may choose `heads` and `temperature`. Without `heads`, a call
renders every heads choice (see render.by_heads) for the chooser. A
chapter's macros and claims run its chapter's run (chapter_runs): read
when the build starts if the chapter says `eager` (nano-gpt), else on
the first of its macros a build calls (the writer: slow). The runs come
from runs.py, on the weights files weights_files.py chooses. A
mistake stops `mkdocs build` with one line at error level naming the page
(or the weights file) and what exists (errors.py); under `mkdocs serve`
(serve.py turns on_error_fail off) the page shows that line instead, and
the server waits for the next edit. After the macros ran, page_checks.py
checks the page and adds its minimap; an edit of toycalc under serve
reloads every module (fresh.py).
"""
from __future__ import annotations

import functools
import importlib
from pathlib import Path

from mkdocs.exceptions import PluginError
from threadpoolctl import threadpool_limits

from ..book.chapters import CHAPTERS
from ..book.end_to_end import steps
from ..book.path import heads_chooser, path_diagram
from ..book.render import by_heads, prose_math
from ..book.toy import toy
from ..book.what_changed import what_changed
from .blocks import kept
from .arguments import check_arguments
from .claim_macros import claim_macro
from .errors import LOGGED, BookError, failing, located, report
from .fresh import forget_toycalc, stale
from .page_checks import on_post_page_macros  # noqa: F401 (the plugin calls it from this module)
from .reference import macro_reference, site_files, site_files_table
from .runs import model_run, toy_examples
from .source_code import code_macro


def on_post_build(env):
    """A build (not serve) with false claims fails once every page has named
    its own: --strict fails it for the lines logged; without it, here."""
    false = getattr(env, "toycalc_false_count", 0)
    if false and env.config["on_error_fail"] and not env.conf.get("strict"):
        raise PluginError(f"{false} false claim{'s' * (false > 1)}, each named above: the build stops")


def every_heads_choice(example, inline: bool):
    """How a toy macro runs its function: on the chosen heads, or, with no
    choice made, on every one, for the chooser (see render.by_heads)."""
    def apply(function, options, heads=None, temperature=1.0):
        if heads is not None:
            return function(example(heads, temperature), **options)
        default = example()
        outputs = {h: function(example(h, temperature), **options) for h in default.heads_choices}
        return by_heads(outputs, default.n_heads, inline)
    return apply


def check_choices(chosen: dict) -> None:
    """heads and temperature, which a toy macro takes for itself: their types
    (the run says which heads the model has)."""
    heads, temperature = chosen.get("heads"), chosen.get("temperature")
    if heads is not None and (isinstance(heads, bool) or not isinstance(heads, int)):
        raise ValueError(f"heads = {heads!r}: expected a whole number, such as heads=2")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
                                    or not 0 < temperature <= 100):
        raise ValueError(f"temperature = {temperature!r}: expected a number above 0, at most 100")


def registry_macro(env, kind: str, registry: dict, apply, choices=(), noun: str = "name"):
    """The macro `kind(name, **options)`: checks the name and the options,
    then returns apply(registry[name], options, **chosen), where chosen are
    the options in `choices` that the macro takes for itself. Every mistake
    becomes one BookError naming the page and listing what exists."""
    def call(*args, **options):
        page = located(env)
        if len(args) != 1:
            raise BookError(f"{page}: {kind}{args}: expected one name; the {noun}s are: "
                            f"{', '.join(registry)}")
        name = args[0]
        what = f"{page}: {kind}({name!r})"
        if name not in registry:
            raise BookError(f"{what}: no such {noun}; the {noun}s are: {', '.join(registry)}")
        function = registry[name]
        chosen = {k: options.pop(k) for k in choices if k in options}
        try:
            check_arguments(function, options, choices)
            check_choices(chosen)
        except ValueError as e:
            raise BookError(f"{what}: {e}") from None
        try:
            out = apply(function, options, **chosen)
            return prose_math(out) if kind.endswith("number") else kept(env.page, out)
        except (ValueError, TypeError, IndexError, KeyError) as e:
            raise BookError(f"{what}: {e}") from None
    call.__name__ = kind
    call.registry = registry  # read by the contributor page's macro reference
    call.__doc__ = f"{kind}(name, {''.join(c + '=..., ' for c in choices)}...): one of {', '.join(registry)}"
    return call


# The registries of the parts that are no registered model's, by macro
# name (a part's prefix and the kind: toy_ + table). The toy's run every
# heads choice (see every_heads_choice); What changed runs one example.
# A chapter's macros (book/chapters.py) run on its chapter's run.
TOY_KINDS = steps.macros() | toy.macros()
WHAT_CHANGED_KINDS = what_changed.macros()


def macro_names() -> list[str]:
    """Every macro the pages may call (each chapter's included)."""
    return [*TOY_KINDS, *WHAT_CHANGED_KINDS, *(kind for c in CHAPTERS.values() for kind in c.part.macros()),
            "path_diagram", "heads_chooser", "macro_reference", "site_files", "claim", "code"]


def define_env(env):
    if stale():
        forget_toycalc()    # then this module anew, and through it every other
        return importlib.import_module(__name__).define_env(env)
    LOGGED.clear()
    env.toycalc_runs = None
    # The book's products are tiny (d = 4, 48): BLAS threads only cost time
    # (they spin on a busy machine), and one thread makes the printed
    # numbers independent of the machine's number of cores.
    threadpool_limits(limits=1, user_api="blas")
    try:
        example = toy_examples(env.conf)
        runs = chapter_runs(env.conf)
    except (PluginError, BookError) as e:
        if env.config["on_error_fail"]:
            raise PluginError(str(e)) from None
        report(str(e))                   # mkdocs serve: every page shows it until it is fixed
        for name in macro_names():
            env.macro(failing(str(e)), name)
        return
    env.toycalc_false_claims = {}        # page -> its false claims, under strict (page_checks.py)
    env.toycalc_false_count = 0
    env.toycalc_runs = (example, runs)   # the "you are here" maps' (page_checks.py)
    register_parts(env, example, runs)
    for name, macro in book_macros(env, example).items():
        env.macro(macro, name)
    env.macro(claim_macro(env, example, runs, check_choices), "claim")
    env.macro(code_macro(env), "code")


def chapter_runs(config) -> dict:
    """Each chapter's run(), by its model's name (runs.model_run): an eager
    chapter's read now (a file that does not load stops the build here), a
    lazy one's on the first of its macros a build calls; then the same run
    for the rest of the build."""
    runs = {}
    for name, chapter in CHAPTERS.items():
        if chapter.eager:
            runs[name] = lambda run=model_run(config, name): run
        else:
            runs[name] = functools.cache(lambda name=name: model_run(config, name))
    return runs


def register_parts(env, example, runs: dict) -> None:
    """The toy's, What changed's and every chapter's macros, from their parts' registries."""
    for kind, registry in TOY_KINDS.items():
        # the End-to-End page's own macros name their kind as their noun ("no such table")
        noun = kind if kind in steps.registries else "name"
        env.macro(registry_macro(env, kind, registry, every_heads_choice(example, kind.endswith("number")),
                                 choices=("heads", "temperature"), noun=noun), kind)
    default_run = example()  # What changed runs the weights file's heads, T = 1
    for kind, registry in WHAT_CHANGED_KINDS.items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(default_run, **options)), kind)
    for name, chapter in CHAPTERS.items():
        for kind, registry in chapter.part.macros().items():
            env.macro(registry_macro(env, kind, registry,
                                     lambda function, options, run=runs[name]: function(run(), **options)), kind)


def book_macros(env, example) -> dict:
    """The macros of no part: End to End's path and the heads chooser, and
    the contributor page's lists of macros and of the site's files."""
    model = example().model

    def path_diagram_macro():
        """The numbered path of End to End, every heads choice included."""
        return kept(env.page, path_diagram({h: example(h) for h in example().heads_choices}, model.heads))

    def heads_chooser_macro(name):
        """The heads radio buttons; name tells one group from another on a page."""
        return heads_chooser(example().heads_choices, model.heads, name)

    def macro_reference_macro():
        """This list: every macro the pages may call."""
        return macro_reference(env.macros)

    def site_files_macro():
        """Each file of toycalc/site/ and overrides/: its kind to the platform and its lines."""
        custom = env.conf["theme"].custom_dir
        rows = site_files(Path(__file__).parent, Path(custom) if custom else None)
        return kept(env.page, site_files_table(rows))
    return {"path_diagram": path_diagram_macro, "heads_chooser": heads_chooser_macro,
            "macro_reference": macro_reference_macro, "site_files": site_files_macro}
