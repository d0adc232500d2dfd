"""How a mistake is reported: one line at error level, once per build, and
(under `mkdocs serve`, where the build goes on) the same line in place of
the page; never a traceback, never the plugin's own warning of the page's
text. A false claim (book/claims.py) is one of these mistakes, or, with
TOYCALC_CLAIMS=warn, a warning and a note on its page."""
from __future__ import annotations

import logging
import os

from jinja2.exceptions import TemplateSyntaxError, UndefinedError
from mkdocs.exceptions import PluginError

from ..book.render import plain
from . import pinned


class BookError(Exception):
    """A mistake in a page's macro call."""


log = logging.getLogger("mkdocs.toycalc")
LOGGED: set = set()    # the lines logged in this build, each once (define_env empties it)

PAGE_ERROR = "This page could not be built"


def report(message: str) -> str:
    """Log message once, and return what stands for the page under serve."""
    message = message.replace("\r", " ").replace("\n", " ")   # one line, whatever the error held
    if message not in LOGGED:
        LOGGED.add(message)
        log.error(message)
    return f'!!! failure "{PAGE_ERROR}"\n\n    {plain(message)}\n'


def failing(message: str):
    """A macro that raises message: what every macro is while the weights do not load (serve)."""
    def macro(*args, **options):
        raise BookError(message)
    return macro


class RepeatedPageError(logging.Filter):
    """Drops the macros plugin's warning that repeats report's page text."""

    def filter(self, record):
        return not (record.levelno == logging.WARNING and PAGE_ERROR in record.getMessage())


pinned.filter_macros_log(RepeatedPageError())


@pinned.on_macro_error(BookError)
def _book_error(error, markdown, page) -> str:
    return report(str(error))


@pinned.on_macro_error(UndefinedError)
def _undefined(error, markdown, page) -> str:
    return report(f"{page.file.src_path}: {error.message}; every macro is listed on the page "
                  "'Writing for the book' (docs/contributing.md)")


@pinned.on_macro_error(TemplateSyntaxError)
def _template(error, markdown, page) -> str:
    return report(f"{page.file.src_path}: line {error.lineno}: {str(error.message)[:200]}")


@pinned.on_macro_error(Exception)
def _any(error, markdown, page) -> str:
    text = str(error).splitlines()[0][:200] if str(error) else ""
    return report(f"{page.file.src_path}: a macro failed: {type(error).__name__}: {text}")


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

