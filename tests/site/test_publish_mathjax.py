"""MathJax is published with the site; a build without it fails."""
import importlib.util

import pytest
from mkdocs.exceptions import PluginError

from toycalc.site import publish_mathjax


def test_mathjax_files_exist():
    files = publish_mathjax.mathjax_files(publish_mathjax.mathjax_dir())
    assert any(name.endswith("MathJax_Main-Regular.woff") for name in files)
    for name in [*files, *publish_mathjax.MATHJAX_PARTS]:
        assert (publish_mathjax.mathjax_dir() / name).is_file(), name


def test_a_build_without_mathjax_fonts_or_parts_fails(tmp_path):
    (tmp_path / "es5").mkdir()
    (tmp_path / "es5" / "startup.js").write_text("")
    with pytest.raises(PluginError, match="MathJax's fonts are missing"):
        publish_mathjax.mathjax_files(tmp_path)
    with pytest.raises(PluginError, match="MathJax files es5/core.js, es5/input/tex.js, .* are missing"):
        publish_mathjax.mathjax_script(tmp_path)


def test_a_build_without_mathjax_fails(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mathjax" else real(name, *a))
    with pytest.raises(PluginError, match="MathJax is missing"):
        publish_mathjax.on_files([], config=None)


def test_the_site_serves_its_own_mathjax(site):
    mathjax = site / "javascripts" / "mathjax"
    script = (mathjax / "mathjax.js").read_text(encoding="utf-8")
    assert len(script) > 700_000 and script.startswith((publish_mathjax.mathjax_dir() / "es5/startup.js").read_text()[:200])
    # the fonts the script asks for, from beside itself
    fonts = {f.name for f in (mathjax / publish_mathjax.FONTS).glob("*.woff")}
    assert {"MathJax_Main-Regular.woff", "MathJax_Math-Italic.woff", "MathJax_Size1-Regular.woff"} <= fonts
    html = (site / "end-to-end" / "index.html").read_text(encoding="utf-8")
    assert "cdn" not in html.lower() and "https://" not in html.replace(
        'href="https://example.github.io', "")


def test_every_page_links_the_formulas_stylesheet(site):
    """formulas.css (toycalc/site/typeset.py) is every page's: instant
    navigation keeps the head of the page the reader came in on."""
    for name, up in (("nano-gpt/self-attention/index.html", "../../"), ("index.html", "")):
        link = f'<link rel="stylesheet" href="{up}javascripts/mathjax/formulas.css">'
        assert link in (site / name).read_text(encoding="utf-8"), name
    assert not (site / "javascripts" / "mathjax" / "fonts.css").exists()
