"""The mkdocs-macros module: it only registers what the pages may call,
for every part of the book (mkdocs.yml: `modules: [toycalc.site.macros]`).

    {{ table("softmax") }}            the worked example's steps (book/end_to_end.py): table,
    {{ formula("mlp", heads=4) }}       formula, number; the End-to-End page, the toy chapter
    {{ number("p", token="␣roof") }}    and the Simulator all call them
    {{ claim("identity", name="W_O") }}  nothing on the page; a false claim stops the build (book/claims.py)
    {{ path_diagram() }}              the numbered path at the top of End to End (book/path.py)
    {{ heads_chooser("top") }}        the 1 / 2 / 4 heads buttons (named, one group each)
    {{ chapter_table("order") }}      the toy chapter's own (book/toy_chapter.py): chapter_table,
                                        chapter_formula, chapter_number
    {{ nano_matrix("E") }}            the nano-gpt chapter (book/nanogpt_chapter.py): nano_matrix,
                                        nano_table, nano_formula, nano_number, nano_figure
    {{ modern_table("models") }}      What changed since 2017 (book/since_2017.py): modern_table,
                                        modern_formula, modern_number, modern_figure

Every toy call (but the modern_ ones, which run the weights file's default
heads) may choose `heads` and `temperature`. Without `heads`, a call
renders every heads choice (see render.by_heads) for the chooser. The toy
weights file is `extra.toycalc.weights` in mkdocs.yml, or the
TOYCALC_WEIGHTS variable; nano-gpt's is model/nanogpt.DEFAULT_NPZ, or
TOYCALC_NANOGPT. A mistake stops `mkdocs build` with one line at error
level naming the page (or the weights file) and what exists; under
`mkdocs serve` (hooks.py turns on_error_fail off) the page shows that line
instead, and the server waits for the next edit.
"""
from __future__ import annotations

import html
import importlib
import inspect
import logging
import os
import re
import sys
from pathlib import Path

from jinja2.exceptions import TemplateSyntaxError, UndefinedError
from mkdocs.exceptions import PluginError
from mkdocs_macros.errors import format_error
from threadpoolctl import threadpool_limits

from ..book import claims
from ..book.end_to_end import steps
from ..book.example import Example
from ..book.minimap import minimap
from ..book.nano_example import Run
from ..book.nano_gpt import nano_gpt
from ..book.path import heads_chooser, path_diagram
from ..book.render import by_heads, prose_math
from ..book.toy import toy
from ..book.what_changed import what_changed
from ..model.nanogpt import NanoWeightsError, chosen_path as nano_path, load as load_nano
from ..model.weights import WeightsError, load_toy
from .blocks import kept
from .export import weights_path
from .reference import macro_reference


class BookError(Exception):
    """A mistake in a page's macro call."""


# TOYCALC_CLAIMS=warn: a false claim is printed and marked on its page
# instead of stopping the build. Its own logger, outside mkdocs', so that
# `mkdocs build --strict` does not count it as a failure.
CLAIMS_ENV = "TOYCALC_CLAIMS"
claims_log = logging.getLogger("toycalc.claims")
if not claims_log.handlers:
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("WARNING -  %(message)s"))
    claims_log.addHandler(_handler)
    claims_log.propagate = False


def claims_mode() -> str:
    mode = os.environ.get(CLAIMS_ENV, "strict")
    if mode not in ("strict", "warn"):
        raise PluginError(f"{CLAIMS_ENV}={mode[:20]!r}: expected strict (the default: a false claim "
                          "stops the build) or warn (it is printed and marked on its page)")
    return mode


log = logging.getLogger("mkdocs.toycalc")
LOGGED: set = set()    # the lines logged in this build, each once


def toy_weights_path(env) -> Path:
    """export.weights_path, which the hooks read too; a build must name one."""
    path = weights_path(env.conf)
    if path is None:
        raise PluginError("mkdocs.yml: extra.toycalc.weights is not set: "
                          "expected the path of the toy weights file")
    return path


def newest_source() -> float:
    """The last change to toycalc's code."""
    return max(p.stat().st_mtime for p in Path(__file__).parent.parent.rglob("*.py"))


LOADED_AT = newest_source()


def fresh_toycalc():
    """mkdocs serve rebuilds in one process and would keep the old code:
    forget every toycalc module, so this import and the plugin's next ones
    read the files again."""
    for name in [n for n in sys.modules if n == "toycalc" or n.startswith("toycalc.")]:
        del sys.modules[name]
    return importlib.import_module("toycalc.site.macros")


def toy_examples(env):
    """Load the toy weights (a bad file stops the build) and return
    example(heads, temperature): the worked example, run once per choice.
    The book's own example (extra.toycalc.example) is run here, so that a
    vocabulary that cannot cut its sentence, a P too short for it, a
    missing target or an overflow stops the build with the file's name."""
    path = toy_weights_path(env)
    try:
        model = load_toy(path)
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
    try:
        for heads in example().heads_choices:
            example(heads).target_id
    except ValueError as e:
        raise PluginError(f"{path}: the book's example (extra.toycalc.example in mkdocs.yml): {e}") from None
    return example


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


def registry_macro(env, kind: str, registry: dict, apply, choices=(), noun: str = "name"):
    """The macro `kind(name, **options)`: checks the name and the options,
    then returns apply(registry[name], options, **chosen), where chosen are
    the options in `choices` that the macro takes for itself. Every mistake
    becomes one BookError naming the page and listing what exists."""
    def call(*args, **options):
        page = env.page.file.src_path if env.page else "?"
        if len(args) != 1:
            raise BookError(f"{page}: {kind}{args}: expected one name; the {noun}s are: "
                            f"{', '.join(registry)}")
        name = args[0]
        what = f"{page}: {kind}({name!r})"
        if name not in registry:
            raise BookError(f"{what}: no such {noun}; the {noun}s are: {', '.join(registry)}")
        function = registry[name]
        chosen = {k: options.pop(k) for k in choices if k in options}
        accepted = list(inspect.signature(function).parameters)[1:]
        unknown = [k for k in options if k not in accepted]
        if unknown:
            takes = ", ".join(accepted + list(choices)) or "no arguments"
            raise BookError(f"{what}: unknown argument '{unknown[0]}'; it takes {takes}")
        try:
            out = apply(function, options, **chosen)
            return prose_math(out) if kind.endswith("number") else kept(env.page, out)
        except (ValueError, TypeError, IndexError, KeyError) as e:
            raise BookError(f"{what}: {e}") from None
    call.__name__ = kind
    call.registry = registry  # read by the contributor page's macro reference
    call.__doc__ = f"{kind}(name, {''.join(c + '=..., ' for c in choices)}...): one of {', '.join(registry)}"
    return call


# The registries of each part, by macro name (a part's prefix and the kind:
# toy_ + table). The toy's run every heads choice (see every_heads_choice);
# What changed and nano-gpt run one example.
TOY_KINDS = steps.macros() | toy.macros()
WHAT_CHANGED_KINDS = what_changed.macros()
NANO_GPT_KINDS = nano_gpt.macros()


MACRO_NAMES = [*TOY_KINDS, *WHAT_CHANGED_KINDS, *NANO_GPT_KINDS, "path_diagram", "heads_chooser",
               "macro_reference", "claim"]


# mkdocs serve rebuilds in one process: nano-gpt's run (its weights and
# all that is computed from them, such as the best head over the 729
# inputs) is kept while its file is unchanged, so that an edit of the toy's
# weights or of a page does not compute it again.
NANO_RUNS: dict = {}


def load_nano_run() -> Run:
    path = nano_path()
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = None                       # load_nano says what is wrong with the path
    if key is not None and key in NANO_RUNS:
        return NANO_RUNS[key]
    try:
        run = Run(load_nano(path))
    except ValueError as e:   # NanoWeightsError names the file; a failing run needs it too
        message = str(e)
        raise PluginError(message if isinstance(e, NanoWeightsError) else
                          f"nano-gpt's example: {message}") from None
    NANO_RUNS.clear()
    if key is not None:
        NANO_RUNS[key] = run
    return run


def failing(message: str):
    def macro(*args, **options):
        raise BookError(message)
    return macro


def define_env(env):
    if newest_source() > LOADED_AT:
        return fresh_toycalc().define_env(env)
    LOGGED.clear()
    # The book's products are tiny (d = 4, 48): BLAS threads only cost time
    # (they spin on a busy machine), and one thread makes the printed
    # numbers independent of the machine's number of cores.
    threadpool_limits(limits=1, user_api="blas")
    try:
        example = toy_examples(env)
        nano = load_nano_run()
    except PluginError as e:
        if env.config["on_error_fail"]:
            raise
        report(str(e))                   # mkdocs serve: every page shows it until it is fixed
        for name in MACRO_NAMES:
            env.macro(failing(str(e)), name)
        return
    model = example().model
    for kind, registry in TOY_KINDS.items():
        # the End-to-End page's own macros name their kind as their noun ("no such table")
        noun = kind if kind in steps.registries else "name"
        env.macro(registry_macro(env, kind, registry, every_heads_choice(example, kind.endswith("number")),
                                 choices=("heads", "temperature"), noun=noun), kind)
    default_run = example()  # What changed runs the weights file's heads, T = 1
    for kind, registry in WHAT_CHANGED_KINDS.items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(default_run, **options)), kind)
    for kind, registry in NANO_GPT_KINDS.items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(nano, **options)), kind)

    def path_diagram_macro():
        """The numbered path of End to End, every heads choice included."""
        return kept(env.page, path_diagram({h: example(h) for h in example().heads_choices}, model.heads))

    def heads_chooser_macro(name):
        """The heads radio buttons; name tells one group from another on a page."""
        return heads_chooser(example().heads_choices, model.heads, name)

    mode = claims_mode()

    def claim(what, heads=None, **options):
        """Nothing on the page; stops the build when the prose's claim is false.
        Without `heads` it must hold for every heads choice, since the reader
        may pick any of them."""
        page = env.page.file.src_path if env.page else "?"
        if what not in claims.CLAIMS:
            raise BookError(f"{page}: claim({what!r}): no such claim; the claims are: "
                            f"{', '.join(claims.CLAIMS)}")
        choices = [heads] if heads is not None else example().heads_choices
        try:
            false = next(filter(None, (claims.CLAIMS[what](example(h), **options) for h in choices)), None)
        except (ValueError, TypeError) as e:
            raise BookError(f"{page}: claim({what!r}): {e}") from None
        if false:
            args = ", ".join(f"{k}={v!r}" for k, v in options.items())
            message = (f"{page}: the text claims {what}({args}), but {false}: "
                       f"rewrite the sentence or the weights ({model.path})")
            if mode == "strict":
                raise BookError(message)
            claims_log.warning(message)
            return ('<span class="claim-broken" role="note">This sentence was written for the book\'s '
                    f"weights and does not hold for these: {html.escape(false)}.</span>")
        return ""
    claim.registry = claims.CLAIMS

    def macro_reference_macro():
        """This list: every macro the pages may call."""
        return macro_reference(env.macros)

    env.macro(path_diagram_macro, "path_diagram")
    env.macro(heads_chooser_macro, "heads_chooser")
    env.macro(macro_reference_macro, "macro_reference")
    env.macro(claim, "claim")


# A display block (formula, table, figure, one div per heads choice) is
# raw HTML, and Markdown keeps raw HTML only as a block of its own: set
# inside a sentence, it ends up in a <p>, where arithmatex no longer sees
# its \\[ and the reader gets raw TeX. So a block must start its line
# and follow a blank line (or another HTML line).
BLOCK = re.compile(r"<(div|table|figure)\b")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")


def display_in_paragraph(markdown: str) -> list[str]:
    """The lines of rendered Markdown where a display block sits inside a
    paragraph, with the text in front of it; code fences are skipped."""
    found, previous, fenced = [], "", False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        line = INLINE_CODE.sub(lambda m: " " * len(m.group()), line)  # `<figure>` in prose is code
        block = None if fenced else BLOCK.search(line)
        if block:
            before = line[:block.start()].strip()
            if before and not before.endswith(">"):  # after HTML, it is inside a block already
                found.append(before[-60:])
            elif previous.strip() and not previous.lstrip().startswith("<"):
                found.append(previous.strip()[-60:])
        previous = line
    return found


def on_post_page_macros(env):
    """Refuse display math (or any display block) inside a paragraph; then
    open every chapter page with its "you are here" map, under the title."""
    bad = display_in_paragraph(env.markdown)
    if bad:
        raise PluginError(f"{env.page.file.src_path}: a formula, table or figure sits inside a "
                          f"paragraph, after '{bad[0]}': put its macro on a line of its own, "
                          "with a blank line before it")
    page = env.page.file.src_path if env.page else ""
    drawn = minimap(page)
    if drawn:
        lines = env.markdown.split("\n")
        title = next((k for k, line in enumerate(lines) if line.startswith("# ")), -1)
        lines.insert(title + 1, "\n" + drawn)
        env.markdown = "\n".join(lines)


# How a failing macro call is reported: one line at error level, once per
# build, and (under mkdocs serve, where the build goes on) the same line in
# place of the page. The plugin's own warning of the page's text is dropped.

PAGE_ERROR = "This page could not be built"


def report(message: str) -> str:
    message = message.replace("\r", " ").replace("\n", " ")   # one line, whatever the error held
    if message not in LOGGED:
        LOGGED.add(message)
        log.error(message)
    shown = html.escape(message)
    for c in "*_`[":                      # plain text, not Markdown
        shown = shown.replace(c, f"&#{ord(c)};")
    return f'!!! failure "{PAGE_ERROR}"\n\n    {shown}\n'


class _Repeated(logging.Filter):
    toycalc = True

    def filter(self, record):
        return not (record.levelno == logging.WARNING and PAGE_ERROR in record.getMessage())


_plugin_log = logging.getLogger("mkdocs.plugins.mkdocs_macros.util")
for _f in [f for f in _plugin_log.filters if getattr(f, "toycalc", False)]:
    _plugin_log.removeFilter(_f)
_plugin_log.addFilter(_Repeated())


@format_error.register
def _book_error(error: BookError, markdown, page) -> str:
    return report(str(error))


@format_error.register
def _undefined(error: UndefinedError, markdown, page) -> str:
    return report(f"{page.file.src_path}: {error.message}; every macro is listed on the page "
                  "'Writing for the book' (docs/contributing.md)")


@format_error.register
def _template(error: TemplateSyntaxError, markdown, page) -> str:
    return report(f"{page.file.src_path}: line {error.lineno}: {str(error.message)[:200]}")


@format_error.register
def _any(error: Exception, markdown, page) -> str:
    text = str(error).splitlines()[0][:200] if str(error) else ""
    return report(f"{page.file.src_path}: a macro failed: {type(error).__name__}: {text}")
