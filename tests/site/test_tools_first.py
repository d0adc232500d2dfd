"""A reader's page speaks to readers (issue 38): how a page is computed
(a `TOYCALC_` variable, a path under `javascripts/`, a `make` command) is
for the contributor page, or a closed "How this page is computed" at a
page's end. Read in every page of the built site, the closed <details>
left out. The tools' controls within the first screen:
tests/browser/test_tools_first_browser.py."""
from __future__ import annotations

import re

from bs4 import Comment

from conftest import ROOT

CONTRIBUTOR = "contributing/index.html"
# a make command: `make` and one of the Makefile's targets
TARGETS = re.search(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1).split()
MAINTAINERS = re.compile(r"TOYCALC_|javascripts/|\bmake\s+(?:" + "|".join(TARGETS) + r")\b")


def shown_text(soup) -> str:
    """The page's text a reader can read: no script, style or template, and
    nothing inside a closed <details> (a reader opens it to read on)."""
    def hidden(node):
        return isinstance(node, Comment) or node.find_parent(
            lambda tag: tag.name in ("script", "style", "template", "head")
            or (tag.name == "details" and not tag.has_attr("open"))) is not None
    return " ".join(s for s in soup.find_all(string=True) if not hidden(s))


def maintainers_text(soup) -> list[str]:
    text = re.sub(r"\s+", " ", shown_text(soup))
    return [text[max(0, m.start() - 50):m.end() + 30] for m in MAINTAINERS.finditer(text)]


def test_the_pattern_finds_what_it_looks_for():
    """The check reads what the Simulator's first paragraphs once showed,
    and lets English pass ("make up", "make it")."""
    assert {"serve", "build", "test"} <= set(TARGETS)
    for shown in ["(the model in javascripts/gpt.js)", "TOYCALC_WEIGHTS=toy.yaml make serve",
                  "builds the book: make build"]:
        assert MAINTAINERS.search(shown), shown
    for prose in ["the rows make up X", "should move to make it less wrong", "make their own"]:
        assert not MAINTAINERS.search(prose), prose


def test_no_reader_page_shows_how_it_is_built(site, soups):
    found = {}
    for path, soup in soups.items():
        name = path.relative_to(site).as_posix()
        if name != CONTRIBUTOR and (hits := maintainers_text(soup)):
            found[name] = hits
    assert found == {}, found
    # the contributor page is where it went, and the check reads it
    assert maintainers_text(soups[site / CONTRIBUTOR])
