"""Every pass the build makes over a page's HTML is a step of
toycalc/site/html_pass.py, in the order it names (#52, item 3): no other
hook changes a page's HTML, and the formulas are typeset last."""
from __future__ import annotations

import ast

from conftest import ROOT
from toycalc.site import html_pass

PAGE_EVENTS = {"on_page_content", "on_post_page"}


def test_no_other_module_changes_a_page_s_html():
    defined = {path.name: {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                           if isinstance(node, ast.FunctionDef) and node.name in PAGE_EVENTS}
               for path in sorted((ROOT / "toycalc").rglob("*.py"))}
    assert {name: events for name, events in defined.items() if events} == {"html_pass.py": PAGE_EVENTS}
    hooks = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nhooks:\n", 1)[1].split("\n\n", 1)[0]
    assert "toycalc/site/html_pass.py" in hooks and "blocks.py" not in hooks


def test_the_steps_run_in_the_order_they_are_named():
    assert [step.__name__ for step in html_pass.CONTENT] == [
        "blocks_put_back", "drawings_linked", "search_marked", "formulas_with_their_punctuation",
        "description_kept", "glossary_marked"]
    assert [step.__name__ for step in html_pass.PAGE] == [
        "head_links_absolute", "tables_boxed", "follow_place_kept", "article_classed", "formulas_typeset"]
    # each step is a plain function of the page's HTML (and the page): its docstring says what it does
    assert all(step.__doc__ for step in html_pass.CONTENT + html_pass.PAGE)


class FakePage:
    """What a content step reads of a page."""

    class file:
        src_uri = "toy/attention.md"
        src_path = "toy/attention.md"

    def __init__(self):
        self.meta = {}


def test_a_page_s_content_passes_through_every_step():
    page = FakePage()
    html = '<h1>T</h1>\n<p>The sum <span class="arithmatex">\\(x\\)</span>, then.</p>'
    out = html_pass.on_page_content(html, page, config=None, files=None)
    assert page.meta["description"] == "The sum x, then."
    assert out == html.replace('<span class="arithmatex">\\(x\\)</span>,',
                               '<span class="math-nowrap"><span class="arithmatex">\\(x\\)</span>,</span>')
