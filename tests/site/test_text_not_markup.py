"""A token, a record string, any value a macro puts into prose is text: on
every page, rendered as a build renders it (the macros, then Markdown with
mkdocs.yml's extensions, then the kept blocks put back), a weights file
whose token is a Markdown link, emphasis or math makes no element."""
import json

import markdown
import yaml
from bs4 import BeautifulSoup

from conftest import ROOT, altered_nano, render_page
from toycalc.model.weights import DEFAULT_TOY

# Two tokens that Markdown would read as a link, bold, italic, inline
# math, a code span and an attribute list, and characters HTML escapes
# (a token holds 32 characters).
TOKEN = "␣[x](javascript:alert(1))**b**"
TOKEN2 = "␣'`c`{#id}_i_$zz$&amp;"
RECORD = "[y](javascript:alert(4)) **b**"


def hostile_weights(tmp_path, nano):
    data = yaml.safe_load(DEFAULT_TOY.read_text(encoding="utf-8"))
    vocab = data["vocab"]                 # tokens the example never uses
    vocab[vocab.index("␣sofa")], vocab[vocab.index("␣floor")] = TOKEN, TOKEN2
    toy = tmp_path / "toy.yaml"
    toy.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    path = altered_nano(nano, tmp_path / "nano.safetensors")
    record = path.with_suffix(".json")
    rec = json.loads(record.read_text(encoding="utf-8"))
    rec["optimizer"]["name"] = RECORD     # free text (dtype and stored_as are read as float names)
    record.write_text(json.dumps(rec), encoding="utf-8")
    return toy, path


def test_no_value_from_a_weights_file_becomes_markup(macros, mkdocs_config, tmp_path, nano):
    toy, nano_path = hostile_weights(tmp_path, nano)
    env = macros(toy, nano_path)
    converter = markdown.Markdown(extensions=mkdocs_config["markdown_extensions"],
                                  extension_configs=mkdocs_config["mdx_configs"])
    shown_on = []
    for source in sorted((ROOT / "docs").rglob("*.md")):
        name = source.relative_to(ROOT / "docs").as_posix()
        if name.startswith("includes/"):
            continue
        html = converter.reset().convert(render_page(env, source.read_text(encoding="utf-8"), name))
        soup = BeautifulSoup(html, "html.parser")
        links = [a["href"] for a in soup.find_all("a", href=True) if "javascript" in a["href"].lower()]
        assert links == [], name
        marked = [el.get_text() for el in soup.find_all(["strong", "em", "code"]) if el.get_text() in ("b", "i", "c")]
        assert marked == [], name
        assert soup.find(id="id") is None, name
        assert "\\(zz\\)" not in html, name
        shown_on += [(name, payload) for payload in (TOKEN[1:], TOKEN2[1:], RECORD) if payload in soup.get_text()]
    # each payload was printed, as typed, where the book prints tokens and the record
    assert {("toy/tokens.md", TOKEN[1:]), ("toy/tokens.md", TOKEN2[1:]),
            ("nano-gpt/preliminaries.md", RECORD)} <= set(shown_on), shown_on


def test_clicking_a_hostile_token_goes_nowhere(macros, mkdocs_config, tmp_path, nano, chromium):
    """The Tokens page, rendered on those weights, in chromium: clicking
    each place that shows the link-shaped token opens no script and no page."""
    toy, nano_path = hostile_weights(tmp_path, nano)
    converter = markdown.Markdown(extensions=mkdocs_config["markdown_extensions"],
                                  extension_configs=mkdocs_config["mdx_configs"])
    source = (ROOT / "docs" / "toy" / "tokens.md").read_text(encoding="utf-8")
    body = converter.convert(render_page(macros(toy, nano_path), source, "toy/tokens.md"))
    page = chromium.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.set_content(f"<!doctype html><meta charset=utf-8><body>{body}</body>")
    shown = [el for el in page.get_by_text("javascript:alert").all() if el.is_visible()]
    assert shown
    for el in shown:
        el.click()
    page.wait_for_timeout(200)
    assert page.url == "about:blank" and dialogs == []
    page.close()
