"""What the macros plugin does with a page once its macros ran
(`on_post_page_macros`, which macros.py passes on): refuse a display block
inside a paragraph, then open a chapter page with its minimap."""
from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

from ..book.minimap import minimap
from .blocks import kept
from .errors import report

# A display block (formula, table, figure, one div per heads choice) is
# raw HTML, and Markdown keeps raw HTML only as a block of its own: set
# inside a sentence, it ends up in a <p>, where arithmatex no longer sees
# its \\[ and the reader gets raw TeX. So a block must start its line
# and follow a blank line (or another HTML line).
BLOCK = re.compile(r"<(div|table|figure)\b")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")


def display_in_paragraph(markdown: str) -> list[tuple[str, int]]:
    """Where a display block sits inside a paragraph of rendered Markdown:
    the text in front of it, and 0 when that text is on the block's line,
    1 when it is the line above; code fences are skipped."""
    found, previous, fenced = [], "", False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        line = INLINE_CODE.sub(lambda m: " " * len(m.group()), line)  # `<figure>` in prose is code
        block = None if fenced else BLOCK.search(line)
        if block:
            before = line[:block.start()].strip()
            if before and not before.endswith(">"):  # after HTML, it is inside a block already
                found.append((before[-60:], 0))
            elif previous.strip() and not previous.lstrip().startswith("<"):
                found.append((previous.strip()[-60:], 1))
        previous = line
    return found


def source_line(page, text: str) -> int | None:
    """The line of the page's file (front matter counted) that holds text,
    read after the macros ran, so found only when no macro wrote into it."""
    try:
        source = page.file.content_string
    except (AttributeError, OSError):
        return None
    lines = [k for k, line in enumerate(source.splitlines(), 1) if text in line]
    return lines[0] if len(lines) == 1 else None


def on_post_page_macros(env):
    """Refuse display math (or any display block) inside a paragraph; then
    open every chapter page with its "you are here" map, under the title.
    A page with false claims (strict) shows them all in place of its text."""
    false = getattr(env, "toycalc_false_claims", {}).pop(env.page.file.src_path if env.page else "", None)
    if false:
        env.markdown = "".join(report(message) for message in false)
        return
    bad = display_in_paragraph(env.markdown)
    if bad:
        text, below = bad[0]
        line = source_line(env.page, text)
        where = env.page.file.src_path + ("" if line is None else f", line {line + below}")
        raise PluginError(f"{where}: a formula, table or figure sits inside a "
                          f"paragraph, after '{text}': put its macro on a line of its own, "
                          "with a blank line before it")
    page = env.page.file.src_path if env.page else ""
    runs = getattr(env, "toycalc_runs", None)     # define_env's (none when the weights failed to load)
    drawn = runs and minimap(page, *runs)    # the toy's example, each chapter's run()
    if drawn:
        drawn = kept(env.page, drawn) + "\n"
        lines = env.markdown.split("\n")
        title = next((k for k, line in enumerate(lines) if line.startswith("# ")), -1)
        lines.insert(title + 1, "\n" + drawn)
        env.markdown = "\n".join(lines)
