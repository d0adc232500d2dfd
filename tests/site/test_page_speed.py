"""What the build says once so that the browser need not find it out at
every style recalculation (toycalc/site/page_speed.py, issue 40): the
article's classes in place of `:has()`, and Material's palette
stylesheet without its switching rule."""
from __future__ import annotations

import re

import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT, parsed
from toycalc.site import page_speed, pinned

ARTICLE = page_speed.ARTICLE


def article(soup):
    return soup.select_one("article.md-content__inner")


def test_the_articles_say_what_they_hold_and_the_stylesheets_ask_no_has(site):
    assert article(parsed(site / "end-to-end" / "index.html"))["class"][-1] == "with-path"
    assert "with-nano-input" in article(parsed(site / "nano-gpt" / "embedding" / "index.html"))["class"]
    assert "with-nano-input" not in article(parsed(site / "nano-gpt" / "preliminaries" / "index.html"))["class"]
    assert "with-path" not in article(parsed(site / "toy" / "attention" / "index.html"))["class"]
    has = [f"{css.name}: {m[0]}" for css in sorted((ROOT / "docs" / "stylesheets").glob("*.css"))
           for m in re.finditer(r"[^\n]*:has\([^\n]*", re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S))]
    assert has == []


def test_material_s_palette_stylesheet_is_published_without_its_switching_rule(site):
    [palette] = (site / "assets" / "stylesheets").glob("palette.*.min.css")
    css = palette.read_text(encoding="utf-8")
    assert "data-md-color-switching" not in css and "[data-md-color-scheme=slate]" in css
    assert css.count("{") == css.count("}")


def test_material_s_main_stylesheet_is_published_without_its_rule_for_a_table_s_next_sibling(site):
    """The rule matches nothing in a built page: every table of an article
    that has no class is alone in Material's boxes."""
    [main] = (site / "assets" / "stylesheets").glob("main.*.min.css")
    css = main.read_text(encoding="utf-8")
    assert pinned.TABLE_SIBLING_RULE not in css and ".md-typeset table:not([class]){" in css
    assert css.count("{") == css.count("}")
    for page in ("end-to-end/index.html", "nano-gpt/self-attention/index.html", "toy/attention/index.html"):
        for table in article(parsed(site / page)).select("table:not([class])"):
            assert table.parent.get("class") == ["md-typeset__table"] and len(table.parent.find_all(recursive=False)) == 1
    with pytest.raises(PluginError, match=r"main\.css: Material's rule for a table's next sibling .*TABLE_SIBLING_RULE"):
        pinned.main_without_table_sibling_rule("body{color:red}", "main.css")
    assert pinned.is_main_stylesheet("assets/stylesheets/main.57a0d79d.min.css")
    assert not pinned.is_main_stylesheet("assets/stylesheets/palette.fb2fffe2.min.css")


def test_a_palette_stylesheet_without_the_rule_fails_the_build_naming_it():
    with pytest.raises(PluginError, match=r"palette\.css: Material's rule for data-md-color-switching"):
        pinned.palette_without_switching_rule("body{color:red}", "palette.css")
    assert pinned.is_palette_stylesheet("assets/stylesheets/palette.fb2fffe2.min.css")
    assert not pinned.is_palette_stylesheet("assets/stylesheets/main.57a0d79d.min.css")


def test_our_stylesheets_are_served_without_their_comments_and_with_every_rule(site):
    for source in sorted((ROOT / "docs" / "stylesheets").glob("*.css")):
        served = (site / "stylesheets" / source.name).read_text(encoding="utf-8")
        text = source.read_text(encoding="utf-8")
        assert "/*" not in served and "*/" not in served, source.name
        # every rule kept: the braces outside the comments, each closed
        assert served.count("{") == served.count("}") == text.count("{") - comment_braces(text), source.name
        assert len(served) < len(text), source.name


def comment_braces(css: str) -> int:
    return sum(c.count("{") for c in page_speed.CSS_COMMENT.findall(css))


def test_material_s_script_keeps_the_color_scheme_meta_of_the_head(site):
    [bundle] = (site / "assets" / "javascripts").glob("bundle.*.min.js")
    script = bundle.read_text(encoding="utf-8")
    for old, new in pinned.COLOR_SCHEME_CHANGES:
        assert old not in script and script.count(new) == 1
    head = (site / "toy" / "index.html").read_text(encoding="utf-8").split("</head>")[0]
    assert 'colorScheme.name = "color-scheme"' in head


def test_material_s_script_is_known_by_its_name():
    assert pinned.is_bundle_script("assets/javascripts/bundle.a5f9d56c.min.js")
    assert not pinned.is_bundle_script("assets/javascripts/lunr/min/lunr.fr.min.js")


def test_the_article_s_tables_without_a_class_come_in_material_s_boxes(site):
    """As Material's script would box them at each load (page_speed.py); its
    script then leaves them (pinned.TABLE_WRAP_CHANGE)."""
    for page in ("toy/attention", "end-to-end", "nano-gpt/self-attention"):
        html = (site / page / "index.html").read_text(encoding="utf-8")
        art = html[html.index("<article"):html.index("</article>")]
        bare = [m.start() for m in re.finditer(r"<table\b(?![^>]*\sclass=)[^>]*>", art)]
        assert bare, page
        boxes = re.compile(r'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">$')
        for at in bare:
            assert boxes.search(art[:at]), (page, art[at - 80:at + 40])
        assert art.count('<div class="md-typeset__table">') == len(bare)
    [bundle] = (site / "assets" / "javascripts").glob("bundle.*.min.js")
    script = bundle.read_text(encoding="utf-8")
    old, new = pinned.TABLE_WRAP_CHANGE
    assert old not in script and script.count(new) == 1


def test_tables_are_boxed_in_the_article_alone_and_nested_ones_once_each():
    page = ('<table><tr><td>out</td></tr></table><article class="md-content__inner md-typeset">'
            '<table id="t"><tr><td><table class="inner"><tr><td>x</td></tr></table></td></tr></table>'
            '<p>a</p><table><tr><td>y</td></tr></table></article><table></table>')
    boxed = page_speed.with_tables_wrapped(page)
    opened, closed = page_speed.TABLE_BOXES
    assert boxed == page.replace('<table id="t">', opened + '<table id="t">').replace(
        "</table><p>", "</table>" + closed + "<p>").replace(
        "<p>a</p><table>", "<p>a</p>" + opened + "<table>").replace(
        "y</td></tr></table></article>", "y</td></tr></table>" + closed + "</article>")
    assert page_speed.with_tables_wrapped("<p>no article</p>") == "<p>no article</p>"



def test_material_s_script_keeps_the_page_s_links_and_waits_to_fetch_the_search_index(site):
    """pinned.LINK_RESOLVE_CHANGES, SEARCH_INDEX_CHANGE and ELLIPSIS_CHANGE
    are made in the script the site serves (their effects in a browser:
    test_modules_browser.py, test_nanogpt_browser.py,
    test_reader_conventions_browser.py)."""
    [bundle] = (site / "assets" / "javascripts").glob("bundle.*.min.js")
    script = bundle.read_text(encoding="utf-8")
    for old, new in [*pinned.LINK_RESOLVE_CHANGES, pinned.SEARCH_INDEX_CHANGE, pinned.ELLIPSIS_CHANGE]:
        assert old not in script and script.count(new) == 1


@pytest.mark.parametrize("changes, what, name", pinned.BUNDLE_CHANGES, ids=[c[2] for c in pinned.BUNDLE_CHANGES])
def test_a_script_without_one_of_material_s_changed_codes_fails_the_build_naming_it(changes, what, name):
    """Each group of changes (pinned.BUNDLE_CHANGES) against a script that
    has the code of every other but not its own: the build fails naming
    the file, what the change needs and the constant that holds it."""
    missing = changes[0][0]
    script = ";".join(old for group, _, _ in pinned.BUNDLE_CHANGES for old, _ in group if old != missing)
    expected = rf"bundle\.js: Material's {re.escape(what)} is not there .* \(toycalc/site/pinned\.py, {name}\)"
    with pytest.raises(PluginError, match=expected):
        pinned.bundle_as_served(script, "bundle.js")


def test_the_box_to_follow_letters_and_the_matrices_lines_have_their_places_in_the_build(site):
    """letters.js fills them (an element inserted among the article's
    children later has chromium restyle all of it): the box's after the
    first paragraph of a page whose numbers follow the letters, unless the
    sorter comes right after it; a line after each matrix cut short."""
    art = article(parsed(site / "nano-gpt" / "self-attention" / "index.html"))
    first = art.find("p", recursive=False)
    place = first.find_next_sibling()
    assert place.name == "div" and place["class"] == ["nano-follow-place"] and place.has_attr("hidden")
    assert len(art.select(".nano-follow-place")) == 1
    tables = art.select("table[data-nano-full]")
    assert tables and all(t.find_next_sibling().name == "p" and t.find_next_sibling()["class"] == ["nano-full"]
                          and t.find_next_sibling().has_attr("hidden") for t in tables)
    for page in ("nano-gpt/index.html", "nano-gpt/preliminaries/index.html", "toy/attention/index.html"):
        assert article(parsed(site / page)).select(".nano-follow-place") == [], page
    # the sorter right after the first paragraph holds the field: no place
    sorter = (ARTICLE + '<h1>T</h1><p>a</p><div data-nano-sort=""></div><p data-nano-input>b</p></article>')
    assert page_speed.with_follow_place(sorter) == sorter
    plain = ARTICLE + '<h1>T</h1><p>a</p><p data-nano-input>b</p></article>'
    assert page_speed.with_follow_place(plain) == plain.replace("<p>a</p>", "<p>a</p>" + page_speed.FOLLOW_PLACE)
