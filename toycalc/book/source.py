"""The code beside the formula: a named region of a file under toycalc/,
shown on a page exactly as the file has it, so the code a reader sees is
the code that computed the page's numbers.

A region is either marked in the file, as pymdownx.snippets marks its
sections,

    # --8<-- [start:embedding]
    x = E[ids] + P[:T]
    # --8<-- [end:embedding]

or, without markers, a top-level function or class, by its name (with
its decorators). Marker lines are not code: a region leaves out any
inside it. A region inside a function body is shown dedented, as a whole.
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

MARK = re.compile(r"^\s*# --8<-- \[(start|end):([\w-]+)\]\s*$")
NAME = re.compile(r"[A-Za-z_][\w-]*")


class RegionError(ValueError):
    """No such region in the file (or markers that do not pair)."""


@dataclass(frozen=True)
class Region:
    path: str    # in the repository: "toycalc/model/gpt.py"
    name: str
    first: int   # the file's number of the region's first line (from 1)
    code: str    # its lines, dedented, markers left out


def marked(lines: list[str], name: str) -> tuple[int, int] | None:
    """The lines (from, to: 0-based, to excluded) between the markers
    of `name`, or None when the file marks no such region."""
    starts = [k for k, line in enumerate(lines) if (m := MARK.match(line)) and m.groups() == ("start", name)]
    ends = [k for k, line in enumerate(lines) if (m := MARK.match(line)) and m.groups() == ("end", name)]
    if not starts and not ends:
        return None
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise RegionError(f"region {name!r} needs one start marker and one end marker after it")
    return starts[0] + 1, ends[0]


def defined(source: str, name: str) -> tuple[int, int] | None:
    """The lines (0-based, end excluded) of the top-level function or class
    `name`, its decorators included, or None."""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            top = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return top - 1, node.end_lineno
    return None


def region_names(source: str) -> list[str]:
    """Every region the file offers: its marked ones, then its top-level
    functions and classes."""
    marks = [m[2] for line in source.splitlines() if (m := MARK.match(line)) and m[1] == "start"]
    tops = [node.name for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return marks + tops


def find_region(path: str, source: str, name: str) -> Region:
    """The region `name` of the file at `path` whose text is `source`."""
    if not NAME.fullmatch(name):
        raise RegionError(f"{name!r} is not a region name: expected letters, digits, _ and -")
    lines = source.splitlines()
    span = marked(lines, name) or defined(source, name)
    if span is None:
        marks = [m[2] for line in lines if (m := MARK.match(line)) and m[1] == "start"]
        raise RegionError(f"{path} has no region {name!r}: expected a top-level function or class of "
                          f"that name, or one of its marked regions ({', '.join(marks) or 'none'})")
    start, end = span
    kept = [line for line in lines[start:end] if not MARK.match(line)]
    while kept and not kept[-1].strip():
        kept.pop()
    if not kept:
        raise RegionError(f"{path}: region {name!r} holds no code")
    first = start + 1 + next(k for k, line in enumerate(lines[start:end]) if not MARK.match(line))
    return Region(path, name, first, textwrap.dedent("\n".join(kept)))


def file_link(repo_url: str | None, branch: str, path: str, line: int) -> str | None:
    """The address of a line of the file in the repository, or None without one."""
    if not repo_url:
        return None
    return f"{repo_url.rstrip('/')}/blob/{branch}/{path}#L{line}"


def code_block(region: Region, link: str | None, open: bool = False) -> str:
    """The Markdown of a region on a page: a details block, closed on
    screen unless `open` (print.css opens it), titled "The code" with the
    file and the line it starts on, the file linked where the repository
    is known, and the code highlighted as Python. book.css styles
    `details.code`."""
    where = f"`{region.path}`, line {region.first}"   # in code: the glossary marks no word of a path
    # a fence longer than any run of backticks in the code
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", region.code)), default=0))
    # The file path and the region name are checked names (no quote, no
    # markup); the code sits in a fence, which Markdown escapes.
    lines = [f'???{"+" if open else ""} code "The code: {where}"', ""]
    if link:
        lines += [f"    In the repository: [{region.path}]({link})", ""]
    lines += [f"    {fence}python", *textwrap.indent(region.code, "    ").splitlines(), f"    {fence}", ""]
    return "\n".join(lines)
