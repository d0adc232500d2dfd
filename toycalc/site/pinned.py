"""Every entry point toycalc uses that a pinned dependency does not
document: private attributes, functions replaced in place, a logger's name,
and the theme's templates copied to change them. Each is written against
the version named beside it (WRITTEN_AGAINST), and each section below names
its package at that version; tests/site/test_pinned.py fails when an
installed version or requirements.lock's pin differs, and a version bump
means re-reading each function of that section against the new code.

Nothing else in toycalc reaches inside mkdocs, mkdocs-macros,
mkdocs-print-site-plugin, Material or Jinja: the rest uses their documented
hooks. What stays here has no documented way to do it (each says why); a
move to another generator leaves all of it behind (docs/contributing.md,
"When the platform ends").
"""
from __future__ import annotations

import inspect
import logging
import re
import sys

import jinja2
from mkdocs import exceptions

# package (as pip names it) -> the version this module was written against
WRITTEN_AGAINST = {
    "mkdocs": "1.6.1",
    "mkdocs-macros-plugin": "1.5.0",
    "mkdocs-print-site-plugin": "2.9",
    "mkdocs-material": "9.8.1",
    "Jinja2": "3.1.6",
}


# ---------------------------------------------------------------- mkdocs 1.6.1

def answer_after_failed_rebuilds(server, on_error) -> None:
    """`mkdocs serve`: a rebuild that raises leaves mkdocs 1.6.1's
    LiveReloadServer "stuck": its _build_loop skips setting _visible_epoch,
    and every request waits for that epoch. So the server's `builder`
    attribute (what _build_loop calls) is wrapped: an exception goes to
    on_error(error), and the rebuild counts as done, so the server answers.
    No event comes after a failed rebuild but on_build_error, which cannot
    stop the exception."""
    build = server.builder

    def builder():
        try:
            build()
        except Exception as error:   # whatever a rebuild raises, the server must answer
            on_error(error)
    server.builder = builder


# The logger of mkdocs 1.6.1's commands/build.py, and the line its
# _build_page logs before a BuildError raised while it builds a page (the
# error's own message follows, from build(): log.error(str(e))).
BUILD_LOG = "mkdocs.commands.build"
PAGE_HEADER = re.compile(r"Error building page '(.*)':")


class PageNamedOnce(logging.Filter):
    """Drops that header when the error being handled (the filter runs in
    _build_page's `except`: sys.exc_info) is a BuildError whose message
    begins with the page's name: the message says it in its one line.
    Any other error keeps its header."""

    def filter(self, record):
        header = PAGE_HEADER.fullmatch(record.getMessage())
        error = sys.exc_info()[1]
        return not (header and isinstance(error, exceptions.BuildError) and str(error).startswith(header[1]))


def name_the_page_once() -> None:
    """Add PageNamedOnce to mkdocs' build logger, once (a reload of toycalc
    replaces the one an earlier import added)."""
    log = logging.getLogger(BUILD_LOG)
    for old in [f for f in log.filters if type(f).__name__ == PageNamedOnce.__name__]:
        log.removeFilter(old)
    log.addFilter(PageNamedOnce())


def keep_theme_envs_compiled(theme, cache: jinja2.BytecodeCache) -> None:
    """Give every Jinja environment the theme makes from now on the cache
    of compiled templates. The pages' environment comes to the on_env hook
    (speedups.py); mkdocs-print-site-plugin 2.9 makes one more for the
    print page in its on_post_build (`config["theme"].get_env()`), which no
    event shows: so this theme's get_env (mkdocs 1.6.1's Theme.get_env,
    one new environment a call) is wrapped on this theme object. Only
    speed depends on it (the print page's templates compiled once more)."""
    make_env = type(theme).get_env

    def get_env():
        env = make_env(theme)
        env.bytecode_cache = cache
        return env
    theme.get_env = get_env


# ---------------------------------------------------------------- mkdocs-macros-plugin 1.5.0

def macros_plugin(config):
    return config.plugins.get("macros")


def keep_serving_on_macro_errors(config) -> None:
    """Turn the macros plugin's on_error_fail off for this build: 1.5.0
    reads it at each page (MacrosPlugin.render) and in our define_env,
    both after the on_config hooks that run before its own. The option
    itself is documented; that a plugin may change it per command is not
    (mkdocs.yml cannot tell serve from build)."""
    macros = macros_plugin(config)
    if macros is not None:
        macros.config["on_error_fail"] = False


def macros_jinja_env(config) -> jinja2.Environment | None:
    """The Jinja environment in which 1.5.0 renders each page's Markdown:
    the property `MacrosPlugin.env` (not among the documented attributes of
    define_env's env), made in its on_config after define_env; None before."""
    macros = macros_plugin(config)
    try:
        return macros.env if macros is not None else None
    except AttributeError:           # 1.5.0: "Jinja2 environment is not defined yet!"
        return None


def on_macro_error(error_type):
    """Decorator: handler(error, markdown, page) -> the text that stands for
    a page whose macros raised error_type. 1.5.0 calls
    `mkdocs_macros.errors.format_error` (a functools.singledispatch) in
    MacrosPlugin.render, logs its result at warning level, then exits the
    build (on_error_fail) or puts the result in place of the page. Its
    default text holds a Python traceback, and a mistake in a page's Jinja
    (an unknown name, a syntax error) reaches no function of ours but this."""
    from mkdocs_macros.errors import format_error

    def register(handler):
        format_error.register(error_type)(handler)
        return handler
    return register


# The logger through which 1.5.0's `util.trace` logs a failing page's text
# (at warning level, the line errors.py already printed at error level).
MACROS_LOG = "mkdocs.plugins.mkdocs_macros.util"


def filter_macros_log(log_filter: logging.Filter) -> None:
    """Add log_filter to the macros plugin's logger, replacing the one a
    previous import of toycalc (mkdocs serve reloads it) added: it is
    recognised by its class's name."""
    log = logging.getLogger(MACROS_LOG)
    for old in [f for f in log.filters if type(f).__name__ == type(log_filter).__name__]:
        log.removeFilter(old)
    log.addFilter(log_filter)


# ---------------------------------------------------------------- mkdocs-print-site-plugin 2.9

def replace_print_anchor_ids(function) -> None:
    """Put function(page_html, page_key) -> page_html in place of 2.9's
    `urls.update_anchor_ids`, which `urls.fix_internal_links` calls by
    its module's name for each page of the print page. The plugin has no
    option for it; only speed depends on it (speedups.py)."""
    from mkdocs_print_site_plugin import urls
    urls.update_anchor_ids = function


def wrap_print_href_links(wrapper) -> None:
    """Put wrapper(fix_href_links, page_html, page_key, page_url,
    directory_urls) in place of 2.9's `urls.fix_href_links`, which
    `urls.fix_internal_links` calls by its module's name for each page of
    the print page (the original is kept once: `mkdocs serve` imports the
    hooks again on a rebuild). The plugin reads only `href`, and a drawing's
    links are `xlink:href` (blocks.py says why)."""
    from mkdocs_print_site_plugin import urls
    original = getattr(urls.fix_href_links, "original", urls.fix_href_links)

    def fix_href_links(page_html, page_key, page_url, directory_urls=False):
        return wrapper(original, page_html, page_key, page_url, directory_urls)
    fix_href_links.original = original
    urls.fix_href_links = fix_href_links


# ---------------------------------------------------------------- mkdocs-material 9.8.1

# Material's partials that overrides/partials/ holds as copies with a change
# (Material documents overriding a partial; the copy then follows no update
# of the original, so a new version means comparing each again). Each
# copy's first lines say what it changes.
THEME_COPIES = {
    "partials/footer.html": "the previous and next links name another section; links to print and contribute",
    "partials/nav-item.html": "a section's toggle is named after its section (two unnamed landmarks otherwise)",
    "partials/palette.html": "the scheme toggle without Material's palette component (scheme.js switches it)",
    "partials/source.html": "no request to api.github.com for the repository's stars",
}


# ---------------------------------------------------------------- Jinja2 3.1.6

def replace_compile(jinja_env: jinja2.Environment, compiled) -> None:
    """Put compiled(source, name, filename, raw, defer_init) in place of
    this one environment's `compile` (3.1.6's signature), which
    `from_string` calls with the source alone. mkdocs-macros renders each
    page through from_string, which no cache of Jinja's reaches (its
    bytecode cache serves templates read by a loader)."""
    jinja_env.compile = compiled


def running_template_line() -> int | None:
    """The line of the template being rendered whose code is running now
    (a macro's call), or None outside a template. 3.1.6 keeps a compiled
    template in its code's globals as `__jinja_template__`, whose public
    get_corresponding_lineno maps a Python line back to the template's;
    the plugin does not say which page's template runs, nor where."""
    frame = inspect.currentframe()
    while frame is not None and "__jinja_template__" not in frame.f_globals:
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_globals["__jinja_template__"].get_corresponding_lineno(frame.f_lineno)


# The file name 3.1.6 gives a template made from a string (mkdocs-macros'
# pages), in the frames of a traceback it rewrote to the template's lines.
STRING_TEMPLATE = "<template>"


def failed_template_line(error: BaseException) -> int | None:
    """The template's line where error was raised while a page rendered,
    from the traceback 3.1.6 rewrote (its frames carry the template's lines
    under STRING_TEMPLATE); None when no template frame is in it."""
    line, tb = None, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == STRING_TEMPLATE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
