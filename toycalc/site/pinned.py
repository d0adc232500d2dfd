"""Every entry point toycalc uses that a pinned dependency does not
document: private attributes, functions replaced in place, a logger's name.
Each is written against the version named beside it (WRITTEN_AGAINST);
tests/site/test_pinned.py fails when an installed version differs, and a
version bump means re-reading each function below against the new code.

Nothing else in toycalc reaches inside mkdocs, mkdocs-macros or
mkdocs-print-site-plugin: the rest uses their documented hooks.
"""
from __future__ import annotations

import logging

import jinja2

# package (as pip names it) -> the version this module was written against
WRITTEN_AGAINST = {
    "mkdocs": "1.6.1",
    "mkdocs-macros-plugin": "1.5.0",
    "mkdocs-print-site-plugin": "2.9",
    "Jinja2": "3.1.6",
}


# ---------------------------------------------------------------- mkdocs 1.6.1

def rebuild_on(server, folder: str, wanted) -> None:
    """`mkdocs serve`: watch folder (not its subfolders) and rebuild on the
    watchdog events for which wanted(event) is true. mkdocs 1.6.1's
    LiveReloadServer.watch() rebuilds on any event under a path; its
    `observer`, `_rebuild_cond` and `_want_rebuild` are what watch() uses."""
    import watchdog.events

    class Handler(watchdog.events.FileSystemEventHandler):
        def on_any_event(self, event):
            if wanted(event):
                with server._rebuild_cond:
                    server._want_rebuild = True
                    server._rebuild_cond.notify_all()
    server.observer.schedule(Handler(), folder, recursive=False)


def answer_after_failed_rebuilds(server, on_error) -> None:
    """`mkdocs serve`: a rebuild that raises leaves mkdocs 1.6.1's
    LiveReloadServer "stuck": its _build_loop skips setting _visible_epoch,
    and every request waits for that epoch. So the server's `builder`
    attribute (what _build_loop calls) is wrapped: an exception goes to
    on_error(error), and the rebuild counts as done, so the server answers."""
    build = server.builder

    def builder():
        try:
            build()
        except Exception as error:   # whatever a rebuild raises, the server must answer
            on_error(error)
    server.builder = builder


def strict_will_fail() -> bool:
    """Whether `mkdocs build --strict` will fail this build for its
    warnings: mkdocs 1.6.1 counts them in a CountHandler (mkdocs.utils) on
    the "mkdocs" logger and checks the count only after on_post_build."""
    from mkdocs.utils import CountHandler
    return any(isinstance(h, CountHandler) and h.get_counts() for h in logging.getLogger("mkdocs").handlers)


def keep_theme_envs_compiled(theme, cache: jinja2.BytecodeCache) -> None:
    """Give every Jinja environment the theme makes from now on the cache
    of compiled templates. The pages' environment comes to the on_env hook
    (speedups.py); mkdocs-print-site-plugin 2.9 makes one more for the
    print page in its on_post_build (`config["theme"].get_env()`), which no
    event shows: so this theme's get_env (mkdocs 1.6.1's Theme.get_env,
    one new environment a call) is wrapped on this theme object."""
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
    both after the on_config hooks that run before its own."""
    macros = macros_plugin(config)
    if macros is not None:
        macros.config["on_error_fail"] = False


def macros_jinja_env(config) -> jinja2.Environment | None:
    """The Jinja environment in which 1.5.0 renders each page's Markdown:
    `MacrosPlugin.env` (its `_env`), made in its on_config; None before."""
    macros = macros_plugin(config)
    return getattr(macros, "_env", None) if macros is not None else None


def on_macro_error(error_type):
    """Decorator: handler(error, markdown, page) -> the text that stands for
    a page whose macros raised error_type. 1.5.0 calls
    `mkdocs_macros.errors.format_error` (a functools.singledispatch) in
    MacrosPlugin.render, logs its result at warning level, then exits the
    build (on_error_fail) or puts the result in place of the page."""
    from mkdocs_macros.errors import format_error

    def register(handler):
        format_error.register(error_type)(handler)
        return handler
    return register


# The logger through which 1.5.0's `util.trace` logs a failing page's text.
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
    its module's name for each page of the print page."""
    from mkdocs_print_site_plugin import urls
    urls.update_anchor_ids = function


def wrap_print_href_links(wrapper) -> None:
    """Put wrapper(fix_href_links, page_html, page_key, page_url,
    directory_urls) in place of 2.9's `urls.fix_href_links`, which
    `urls.fix_internal_links` calls by its module's name for each page of
    the print page (the original is kept once: `mkdocs serve` imports the
    hooks again on a rebuild)."""
    from mkdocs_print_site_plugin import urls
    original = getattr(urls.fix_href_links, "original", urls.fix_href_links)

    def fix_href_links(page_html, page_key, page_url, directory_urls=False):
        return wrapper(original, page_html, page_key, page_url, directory_urls)
    fix_href_links.original = original
    urls.fix_href_links = fix_href_links


# ---------------------------------------------------------------- Jinja2 3.1.6

def replace_compile(jinja_env: jinja2.Environment, compiled) -> None:
    """Put compiled(source, name, filename, raw, defer_init) in place of
    this one environment's `compile` (3.1.6's signature), which
    `from_string` calls with the source alone."""
    jinja_env.compile = compiled
