"""The macro `code(path, region)`: the code beside a formula, read at
build from the file of the toycalc that runs the build (book/source.py
finds the region and writes the block), linked to the file in the
repository where mkdocs.yml's repo_url is set (on the branch of the edit
links, TOYCALC_EDIT_BRANCH). A path or region that does not exist stops
the build with one line naming the page, the file and the region."""
from __future__ import annotations

import re
from pathlib import Path

from ..book.source import RegionError, code_block, file_link, find_region
from .environment import setting
from .errors import BookError, located

PACKAGE = Path(__file__).resolve().parents[1]      # toycalc/, the package that runs
# a file of the package, named from the repository's root
PATH = re.compile(r"toycalc(?:/[A-Za-z_][\w]*)+\.py")


def source_of(path: str) -> str:
    """The text of a file of toycalc named as the repository names it
    ("toycalc/model/gpt.py"); ValueError if there is none."""
    if not PATH.fullmatch(path):
        raise ValueError(f"{path!r}: expected a Python file of toycalc, such as 'toycalc/model/gpt.py'")
    file = PACKAGE.parent / path
    if not file.is_file():
        raise ValueError(f"{path}: no such file")
    return file.read_text(encoding="utf-8")


def code_macro(env):
    def code(path: str, region: str, open: bool = False) -> str:
        """The numpy that computed a formula or a table: a region of a file
        under toycalc/ (between the markers of pymdownx.snippets' sections,
        or a top-level function by its name), closed (unless open=true), with
        its file and line; the page "Writing for the book" says more."""
        if not isinstance(open, bool):
            raise BookError(f"{located(env)}: code({path!r}, {region!r}, open={open!r}): expected true or false")
        where = f"{located(env)}: code({path!r}, {region!r})"
        try:
            found = find_region(path, source_of(path), region)
        except (ValueError, RegionError) as e:
            raise BookError(f"{where}: {e}") from None
        link = file_link(env.conf["repo_url"], setting("TOYCALC_EDIT_BRANCH") or "main", path, found.first)
        return code_block(found, link, open)
    return code
