"""MkDocs hooks that install speedups.py: the print page's anchor ids in
one pass, the theme's templates compiled once per process (on_env), the
pages' templates compiled once per text (on_pre_build, once the macros
plugin has made its environment)."""
from __future__ import annotations

from toycalc.site import pinned, speedups

pinned.replace_print_anchor_ids(speedups.update_anchor_ids)


def on_env(env, config, files):
    speedups.keep_theme_compiled(env, config.theme)
    return env


def on_pre_build(config):
    jinja_env = pinned.macros_jinja_env(config)
    if jinja_env is not None:
        speedups.keep_compiled_pages(jinja_env)
