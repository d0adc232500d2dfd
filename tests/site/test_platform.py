"""The platform's end of life, faced (docs/contributing.md, "When the
platform ends"): the contributor page's table of what each file of the
site's code is to the platform, read from the files; and Material's
end-of-life notice, which the tests' mkdocs commands turn off
(conftest.mkdocs_env), still turned off by what they set."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import QUIET_PLATFORM, ROOT, mkdocs_env, page
from toycalc.site.reference import KINDS, kind, site_files

SITE, OVERRIDES = ROOT / "toycalc" / "site", ROOT / "overrides"

# Material prints its notice only under the `mkdocs` command, when its templates' package is imported
AS_MKDOCS = "import sys; sys.argv[0] = 'mkdocs'; import material.templates"


def test_material_prints_its_end_of_life_and_the_tests_variable_silences_it():
    bare = {k: v for k, v in mkdocs_env().items() if k not in QUIET_PLATFORM}
    loud = subprocess.run([sys.executable, "-c", AS_MKDOCS], env=bare, capture_output=True, text=True, timeout=60)
    assert loud.returncode == 0 and "reaches end of life" in loud.stderr
    assert "NO_MKDOCS_2_WARNING" in loud.stderr          # the notice names the variable that silences it
    quiet = subprocess.run([sys.executable, "-c", AS_MKDOCS], env=mkdocs_env(), capture_output=True, text=True,
                           timeout=60)
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.parametrize("source, expected", [
    ("import json\n\ndef table(rows):\n    return json.dumps(rows)\n", "ours"),
    ("from mkdocs.exceptions import PluginError\n", "glue"),
    ("import re\n\ndef on_page_content(html, page, config, files):\n    return html\n", "glue"),
    ("def define_env(env):\n    pass\n", "glue"),
    ("from toycalc.site import pinned\n\npinned.wrap_print_href_links(print)\n", "patch"),
    ("from . import pinned\n", "patch"),
    ("from .pinned import MACROS_LOG\n", "patch"),
    ("from toycalc.site.blocks import kept\n", "ours"),
])
def test_a_file_s_kind_is_read_from_what_it_imports_and_defines(tmp_path, source, expected):
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    assert kind(path) == expected


def test_the_site_s_files_and_their_kinds():
    rows = {name: (k, lines) for name, k, lines in site_files(SITE, OVERRIDES)}
    every = [f"toycalc/site/{p.name}" for p in SITE.glob("*.py")]
    every += [f"overrides/{p.relative_to(OVERRIDES).as_posix()}" for p in OVERRIDES.rglob("*") if p.is_file()]
    assert sorted(rows) == sorted(every)
    for name, (_, lines) in rows.items():
        assert lines == (ROOT / name).read_bytes().count(b"\n")
    assert rows["toycalc/site/pinned.py"][0] == "patch"
    assert rows["overrides/partials/footer.html"][0] == "patch"      # a copy of Material's
    assert rows["overrides/main.html"][0] == "glue"                  # a block Material lets a site fill
    assert rows["toycalc/site/macros.py"][0] == "glue"
    assert rows["toycalc/site/export.py"][0] == "ours"
    # whatever calls pinned.py patches something
    calls = re.compile(r"\bpinned\.\w+\(")
    callers = [n for n in rows if n.endswith(".py") and calls.search((ROOT / n).read_text(encoding="utf-8"))]
    assert callers and all(rows[n][0] == "patch" for n in callers)


def test_the_contributor_page_shows_every_file_with_its_kind_and_lines(site):
    table = page(site, "contributing").select_one("table#table-site-files")
    shown = [tuple(cell.get_text() for cell in row.find_all("td")) for row in table.select("tbody tr")]
    assert shown == [(name, KINDS[k], str(lines)) for name, k, lines in site_files(SITE, OVERRIDES)]
    sums = {row.find_all("th")[1].get_text(): row.find_all("th")[2].get_text() for row in table.select("tfoot tr")}
    assert sums == {label: str(sum(int(lines) for _, shown_kind, lines in shown if shown_kind == label))
                    for label in KINDS.values()}
