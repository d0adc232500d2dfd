"""toycalc/site/speedups.py: the print page's anchor ids, renamed in one
pass in place of mkdocs-print-site-plugin's quadratic function (the same
result, on the book's own pages and on the cases the plugin handles); and
the theme's templates compiled once per process, as `mkdocs serve`
rebuilds, yet anew when one is edited."""
from __future__ import annotations

import re
import subprocess
import sys

from mkdocs_print_site_plugin import urls

from conftest import page
from toycalc.site import speedups


def plugins_update_anchor_ids():
    """The plugin's own function, read from its source file, whatever is installed."""
    namespace = {"re": re}
    source = open(urls.__file__, encoding="utf-8").read()
    start = source.index("def update_anchor_ids(")
    end = source.index("\ndef ", start + 1)
    exec(source[start:end], namespace)
    return namespace["update_anchor_ids"]


CASES = ['<h2 id="two-models">Two models</h2>',
         '<h3 class="x" id="step-6">Step 6</h3><p id="not-me">p</p>',
         '<li id="fn:1"><p>note</p></li>\n<sup id="fnref:1"><a href="#fn:1">1</a></sup>',
         '<div id="path"><h1 id="title">T</h1></div>',
         '<h1>no id</h1>\n<li>plain</li>\n<table id="t"></table>',
         '<H2 id="upper">Upper</H2>']


def test_the_same_ids_as_the_plugins_on_its_cases():
    theirs = plugins_update_anchor_ids()
    for case in CASES:
        assert speedups.update_anchor_ids(case, "toy-attention") == theirs(case, "toy-attention"), case


def test_the_same_ids_as_the_plugins_on_the_books_pages(site):
    """Every line of every page short enough for the plugin's function to
    finish at once (the long lines are the figures and tables it is slow on)."""
    theirs = plugins_update_anchor_ids()
    compared = 0
    for html in sorted(site.rglob("index.html")):
        if "print_page" in html.parts:
            continue
        # a line without an id is one both leave as it is
        lines = [line for line in html.read_text(encoding="utf-8").split("\n") if len(line) < 2000 and 'id="' in line]
        text = "\n".join(lines)
        assert speedups.update_anchor_ids(text, "k") == theirs(text, "k"), html
        compared += len(re.findall(r'<h[1-6]\s[^>]*id="', text))
    assert compared > 100


def test_the_built_print_page_prefixes_each_heading_with_its_page(site):
    soup = page(site, "print_page")
    ids = [h["id"] for h in soup.select("#print-site-page h2[id]")]
    assert "index-three-models" in ids
    assert any(i.startswith("toy-attention-") for i in ids) and any(i.startswith("nano-gpt-mlp-") for i in ids)
    assert len(ids) == len(set(ids))


TWO_BUILDS = """
import collections, logging, os, sys
import jinja2
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.getLogger("mkdocs").setLevel(logging.WARNING)
compiled = collections.Counter()
compile = jinja2.Environment.compile
def counted(self, source, name=None, *args, **kwargs):
    compiled[name] += 1
    return compile(self, source, name, *args, **kwargs)
jinja2.Environment.compile = counted
for site in sys.argv[1:3]:
    build(load_config("mkdocs.yml", site_dir=site))
    print(compiled["base.html"], compiled["main.html"], compiled[None])
    main = open("overrides/main.html").read().replace("{% block extrahead %}", "{% block extrahead %}<!-- edited between the builds -->", 1)
    open("overrides/main.html", "w").write(main)
    open("docs/index.md", "a").write("\\n\\nA sentence added between the builds.\\n")
"""


def test_two_builds_in_one_process_compile_each_template_once_and_an_edited_one_again(project, tmp_path):
    out = subprocess.run([sys.executable, "-c", TWO_BUILDS, str(tmp_path / "a"), str(tmp_path / "b")],
                         cwd=project, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = [tuple(map(int, line.split())) for line in out.stdout.split("\n") if line.strip()][-2:]
    # base.html once for the pages and once for the print page's environment, then never again;
    # main.html, edited after the first build, compiled again
    assert first[0] >= 1 and second[0] == first[0]
    assert second[1] > first[1]
    # the pages' Markdown, compiled as templates: only the edited page again
    assert first[2] >= 20 and second[2] - first[2] == 1
    home = (tmp_path / "b" / "index.html").read_text(encoding="utf-8")
    assert "edited between the builds" in home and "A sentence added between the builds." in home
