"""One playground (issue 49): End to End is the only page of the built site
with a sentence field for the toy; the Simulator's old address sends the
reader there (a link and a meta refresh: GitHub Pages has no redirects),
and the nav names the playground once. Fixture `site`: conftest.py."""
from __future__ import annotations

from conftest import page, parsed


def test_only_end_to_end_holds_a_sentence_field_for_the_toy(site):
    holding = sorted(str(html.parent.relative_to(site)) for html in site.rglob("index.html")
                     if html.parent.name != "print_page" and parsed(html).select("input#sim-text"))
    assert holding == ["end-to-end"]
    soup = page(site, "end-to-end")
    field = soup.select_one("input#sim-text")
    assert soup.select_one(f'label[for="{field["id"]}"]').get_text(strip=True) == "Your sentence"


def test_the_simulators_old_address_sends_the_reader_to_end_to_end(site):
    soup = page(site, "simulator")
    refresh = soup.select_one('meta[http-equiv="refresh"]')
    assert refresh is not None and refresh["content"] == "0; url=../end-to-end/"
    assert soup.select_one('article a[href="../end-to-end/"]') is not None


def test_the_nav_names_one_playground(site):
    nav = page(site, "end-to-end").select(".md-nav--primary a.md-nav__link")
    names = [" ".join(a.get_text().split()) for a in nav]
    assert "End to End" in names and "Simulator" not in names
