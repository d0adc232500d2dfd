"""The code beside the formula (macro `code`, book/source.py): every chapter
page shows at least one block of code, and every block of code on every
chapter page is, character for character, the lines of a file under
toycalc/ that its title names, from the line it names (marker lines left
out, dedented as a whole); a region that does not exist stops the build
with one line naming the page, the file and the region."""
from __future__ import annotations

import re
import textwrap

import pytest

from conftest import ROOT, page, page_error
from toycalc.book.source import MARK, RegionError, code_block, file_link, find_region

CHAPTER_PAGES = sorted(
    [p.relative_to(ROOT / "docs").with_suffix("").as_posix() for folder in ("toy", "nano-gpt", "writer")
     for p in (ROOT / "docs" / folder).glob("*.md")] + ["end-to-end"])
TITLE = re.compile(r"The code: (toycalc/[\w/]+\.py), line (\d+)")


def page_name(name: str) -> str:
    """The site's folder of a page: docs/toy/index.md is toy/, docs/toy/tokens.md toy/tokens/."""
    return name[:-len("/index")] if name.endswith("/index") else name


def file_lines(path: str, first: int, count: int) -> str:
    """`count` lines of the file from line `first`, marker lines left out, dedented."""
    lines = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines()[first - 1:]
             if not MARK.match(line)]
    return textwrap.dedent("\n".join(lines[:count]))


def test_every_chapter_page_is_listed():
    assert len(CHAPTER_PAGES) == 25 and "toy/attention" in CHAPTER_PAGES and "writer/write" in CHAPTER_PAGES


@pytest.mark.parametrize("name", CHAPTER_PAGES)
def test_every_code_block_is_the_file_it_names(site, name):
    soup = page(site, page_name(name))
    shown = soup.select("details.code")
    assert shown, f"{name}: no code beside its formulas"
    # every block of code: what Markdown fences (Pygments' div.highlight) or
    # writes as <pre><code>; the writer's samples are text in a <pre>, not code
    blocks = soup.select("div.highlight pre, pre:has(> code)")
    assert len(blocks) >= len(shown)
    for pre in blocks:
        holder = pre.find_parent("details", class_="code")
        assert holder is not None, f"{name}: a code block that no 'The code' block holds: {pre.get_text()[:80]!r}"
        title = TITLE.fullmatch(" ".join(holder.summary.get_text().split()))
        assert title, f"{name}: the title {holder.summary.get_text()!r} names no file and line"
        code = pre.code.get_text().rstrip("\n")
        path, first = title[1], int(title[2])
        expected = file_lines(path, first, code.count("\n") + 1)
        assert code == expected, f"{name}: the block titled {title[0]!r} is not {path} from line {first}"
        assert code.strip(), f"{name}: an empty block {title[0]!r}"


def test_a_block_is_closed_and_highlighted_as_python(site):
    soup = page(site, "toy/attention")
    block = soup.select_one("details.code")
    assert block is not None and not block.has_attr("open")
    assert "toycalc/model/gpt.py" in block.summary.get_text()
    # Pygments marked the code up as Python: a keyword and a function's name
    assert block.select_one(".highlight .k") is not None and block.select_one(".highlight .nf")


# ---------------------------------------------------------------- the regions, without a build

SOURCE = '''import numpy as np


@decorated("x")
def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def forward(x):
    y = x
    # --8<-- [start:double]
    y = 2 * y          # the double
    # --8<-- [start:inner]
    y = y + 1
    # --8<-- [end:inner]
    # --8<-- [end:double]
    return y
'''


def test_a_function_by_its_name_with_its_decorators():
    region = find_region("toycalc/x.py", SOURCE, "softmax")
    assert region.first == 4
    assert region.code == '@decorated("x")\ndef softmax(z):\n    e = np.exp(z - z.max())\n    return e / e.sum()'


def test_a_marked_region_dedented_without_its_markers():
    region = find_region("toycalc/x.py", SOURCE, "double")
    assert region.first == 13 and region.code == "y = 2 * y          # the double\ny = y + 1"
    assert find_region("toycalc/x.py", SOURCE, "inner").code == "y = y + 1"


@pytest.mark.parametrize("name, message", [
    ("missing", "toycalc/x.py has no region 'missing': expected a top-level function or class of that name, "
                "or one of its marked regions (double, inner)"),
    ("bad name", "'bad name' is not a region name"),
])
def test_no_such_region(name, message):
    with pytest.raises(RegionError) as error:
        find_region("toycalc/x.py", SOURCE, name)
    assert str(error.value).startswith(message)


def test_markers_that_do_not_pair():
    with pytest.raises(RegionError, match="one start marker and one end marker"):
        find_region("toycalc/x.py", SOURCE.replace("# --8<-- [end:inner]", ""), "inner")


def test_the_block_names_the_file_and_links_it():
    region = find_region("toycalc/x.py", SOURCE, "softmax")
    link = file_link("https://github.com/o/r/", "main", region.path, region.first)
    assert link == "https://github.com/o/r/blob/main/toycalc/x.py#L4"
    block = code_block(region, link)
    assert block.startswith('??? code "The code: `toycalc/x.py`, line 4"\n')
    assert code_block(region, link, open=True).startswith('???+ code "The code: `toycalc/x.py`, line 4"\n')
    assert "[toycalc/x.py](https://github.com/o/r/blob/main/toycalc/x.py#L4)" in block
    assert "    ```python\n    @decorated(\"x\")\n" in block
    assert file_link(None, "main", "toycalc/x.py", 4) is None
    assert "In the repository" not in code_block(region, None)


def test_a_fence_longer_than_the_code_s_backticks():
    region = find_region("toycalc/x.py", 'def f():\n    return "```"\n', "f")
    assert "    ````python\n" in code_block(region, None)


# ---------------------------------------------------------------- a mistake on a page

@pytest.mark.parametrize("call, message", [
    ('code("toycalc/model/gpt.py", "attentoin")',
     "bad.md, line 3: code('toycalc/model/gpt.py', 'attentoin'): toycalc/model/gpt.py has no region "
     "'attentoin'"),
    ('code("toycalc/model/nothing.py", "f")',
     "bad.md, line 3: code('toycalc/model/nothing.py', 'f'): toycalc/model/nothing.py: no such file"),
    ('code("../etc/passwd", "f")',
     "bad.md, line 3: code('../etc/passwd', 'f'): '../etc/passwd': expected a Python file of toycalc"),
])
def test_a_region_that_does_not_exist_stops_the_build_in_one_line(macros, call, message):
    line = page_error(macros(), f"# Bad\n\n{{{{ {call} }}}}\n")
    assert line.startswith(message), line
