"""How a mistake is reported: one line at error level, once per build, and
(under `mkdocs serve`, where the build goes on) the same line in place of
the page; never a traceback, never the plugin's own warning of the page's
text. A false claim (book/claims.py) is one of these mistakes, or, with
TOYCALC_CLAIMS=warn, a warning and a note on its page."""
from __future__ import annotations

import logging
import re

from jinja2.exceptions import TemplateSyntaxError, UndefinedError
from mkdocs.exceptions import PluginError

from ..book.render import plain
from . import pinned
from .environment import setting


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


def located(env) -> str:
    """Where the running macro call is: "page.md, line N" (the line as the
    file numbers it), or the page alone when no page template is running."""
    page = env.page.file.src_path if env.page else "?"
    line = template_line()
    return page if line is None else f"{page}, line {line + front_matter_lines(env.page)}"


def template_line() -> int | None:
    """The line of the page's Markdown whose macro call is running (Jinja
    maps the running code back to the page's line: pinned.py)."""
    return pinned.running_template_line()


def front_matter_lines(page) -> int:
    """The lines of the page's file above the Markdown the macros render
    (its YAML front matter), which mkdocs takes off before they run."""
    try:
        source, markdown = page.file.content_string, page.markdown
    except (AttributeError, OSError):
        return 0
    if not markdown or not source.endswith(markdown):
        return 0
    return source[:-len(markdown)].count("\n")


def sentence_at(markdown: str, line: int | None) -> str:
    """The sentence a claim on this line of the page's Markdown follows: its
    paragraph up to the call, the last sentence of it, macro calls as "…",
    HTML tags left out, at most 100 characters."""
    lines = markdown.splitlines()
    if line is None or not 0 < line <= len(lines):
        return ""
    paragraph = [lines[line - 1].split("{{ claim", 1)[0]]
    k = line - 1
    while k > 0 and lines[k - 1].strip() and not lines[k - 1].lstrip().startswith(("#", "<", "{{")):
        k -= 1
        paragraph.insert(0, lines[k])
    text = re.sub(r"\{\{.*?\}\}", "…", " ".join(part.strip() for part in paragraph))
    text = re.sub(r"<[^>]*>", "", text).strip()       # a span the browser marks: its words only
    sentence = re.split(r"(?<=[.!?])\s+", text)[-1]
    return sentence if len(sentence) <= 100 else "…" + sentence[-99:]


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
pinned.name_the_page_once()     # a hook's error that names its page: one line, not two


@pinned.on_macro_error(BookError)
def _book_error(error, markdown, page) -> str:
    return report(str(error))


def failed_at(error, page) -> str:
    """"page.md, line N" for an error raised while the page rendered: Jinja
    rewrites the traceback so that the page's own frames carry its lines
    (pinned.py)."""
    line = pinned.failed_template_line(error)
    where = page.file.src_path
    return where if line is None else f"{where}, line {line + front_matter_lines(page)}"


@pinned.on_macro_error(UndefinedError)
def _undefined(error, markdown, page) -> str:
    return report(f"{failed_at(error, page)}: {error.message}; every macro is listed on the page "
                  "'Writing for the book' (docs/contributing.md)")


@pinned.on_macro_error(TemplateSyntaxError)
def _template(error, markdown, page) -> str:
    return report(f"{page.file.src_path}: line {error.lineno}: {str(error.message)[:200]}")


@pinned.on_macro_error(Exception)
def _any(error, markdown, page) -> str:
    text = str(error).splitlines()[0][:200] if str(error) else ""
    return report(f"{failed_at(error, page)}: a macro failed: {type(error).__name__}: {text}")


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
    mode = setting(CLAIMS_ENV) or "strict"
    if mode not in ("strict", "warn"):
        raise PluginError(f"{CLAIMS_ENV}={mode[:20]!r}: expected strict (the default: a false claim "
                          "stops the build) or warn (it is printed and marked on its page)")
    return mode

