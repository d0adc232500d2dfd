"""Three things that keep the build fast, installed by speedup_hooks.py
through pinned.py (each reaches inside a dependency).

1. The print page (mkdocs-print-site-plugin 2.9, pinned) in linear time.
The plugin makes each page's heading ids unique on the combined page with
`urls.update_anchor_ids`, whose pattern `<([^\\s]+).*?id="…".*?>` tries
every `<` of a line against the rest of that line. The book's figures and
tables are single lines of up to 50,000 characters and 1,800 tags, so that
one function took 8 s for one page and about 40 of the build's seconds.
`update_anchor_ids` below prefixes the same ids (those of h1–h6, sup and
li elements) with one pass over the page; tests/site/test_speedups.py
holds it to the plugin's own function.
"""
from __future__ import annotations

import re

import jinja2

from . import pinned

# the id of an h1-h6, sup or li tag (the elements the plugin renames), in that tag
OWN_ID = re.compile(r'<(h[1-6]|sup|li)(\s[^>]*?\bid=")([^"]*)"')


def update_anchor_ids(page_html: str, page_key: str) -> str:
    return OWN_ID.sub(lambda m: f'<{m[1]}{m[2]}{page_key}-{m[3]}"', page_html)


# 2. The theme's templates, compiled once per process. MkDocs makes a new
# Jinja environment for every build (and the print page one more), and
# `mkdocs serve` rebuilds in one process: compiling Material's templates
# again took a tenth of a rebuild. Every theme environment gets this one
# cache (keep_theme_compiled). Jinja keys each template by its name and its
# source's checksum, so an edited override is compiled anew.

class CompiledTemplates(jinja2.BytecodeCache):
    def __init__(self):
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket):
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED = CompiledTemplates()


def keep_theme_compiled(env: jinja2.Environment, theme) -> None:
    """The pages' environment (env, from the on_env hook) and those the
    theme makes after it (the print page's) share COMPILED."""
    env.bytecode_cache = COMPILED
    pinned.keep_theme_envs_compiled(theme, COMPILED)


# 3. The pages' templates, compiled once per text. mkdocs-macros compiles
# each page's Markdown as a Jinja template in a new environment on every
# build; under `mkdocs serve` most pages are the same text as last time (an
# edit of the weights changes no page). Compiled code does not depend on
# the environment, only on its syntax settings, which are part of the key.

PAGE_CODE: dict = {}
PAGES_KEPT = 500        # texts; a long serve session edits pages many times


def keep_compiled_pages(jinja_env: jinja2.Environment) -> None:
    """The macros plugin's environment compiles each page's text once."""
    compile_source = jinja_env.compile
    syntax = (jinja_env.block_start_string, jinja_env.block_end_string, jinja_env.variable_start_string,
              jinja_env.variable_end_string, jinja_env.comment_start_string, jinja_env.comment_end_string,
              jinja_env.line_statement_prefix, jinja_env.line_comment_prefix, jinja_env.trim_blocks,
              jinja_env.lstrip_blocks, jinja_env.newline_sequence, jinja_env.keep_trailing_newline,
              tuple(sorted(jinja_env.extensions)), jinja_env.optimized, jinja_env.autoescape)

    def compiled(source, name=None, filename=None, raw=False, defer_init=False):
        if name is not None or filename is not None or raw or defer_init or not isinstance(source, str):
            return compile_source(source, name, filename, raw, defer_init)
        key = (syntax, source)
        if key not in PAGE_CODE:
            if len(PAGE_CODE) >= PAGES_KEPT:
                PAGE_CODE.clear()
            PAGE_CODE[key] = compile_source(source)
        return PAGE_CODE[key]
    pinned.replace_compile(jinja_env, compiled)
