"""The environment variables a build reads, all named TOYCALC_*, and the
one rule they share: unset or empty, a variable means its default
(`TOYCALC_CLAIMS= make build` builds as `make build` does; a CI step that
sets a variable to nothing means nothing by it).

    TOYCALC_WEIGHTS      the toy's weights file (weights_files.py)
    TOYCALC_NANOGPT      nano-gpt's weights file (weights_files.py)
    TOYCALC_WRITER       the writer's weights file (weights_files.py)
    TOYCALC_CLAIMS       strict or warn: what a false claim does (errors.py)
    TOYCALC_EDIT_BRANCH  the branch the edit links point to (pages.py)
    TOYCALC_SITE_URL     the site's address, and
    TOYCALC_REPO_URL     its repository's: read by mkdocs.yml (!ENV), where
                         an empty value is YAML's empty scalar, null, the
                         default too
"""
from __future__ import annotations

import os

VARIABLES = ("TOYCALC_WEIGHTS", "TOYCALC_NANOGPT", "TOYCALC_WRITER", "TOYCALC_CLAIMS",
             "TOYCALC_EDIT_BRANCH", "TOYCALC_SITE_URL", "TOYCALC_REPO_URL")


def setting(name: str) -> str | None:
    """The value of the environment variable `name`, or None when it is
    unset or empty (its default then applies)."""
    return os.environ.get(name) or None
