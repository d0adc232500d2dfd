"""MathJax is published with the site; a build without it fails."""
import importlib.util
import re

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
    # the fonts the script asks for, from beside itself, and the faces the
    # config loads early, each one of formulas.css's
    fonts = {f.name for f in (mathjax / publish_mathjax.FONTS).glob("*.woff")}
    assert {"MathJax_Main-Regular.woff", "MathJax_Math-Italic.woff", "MathJax_Size1-Regular.woff"} <= fonts
    config = (site / "javascripts" / "mathjax-config.js").read_text(encoding="utf-8")
    early = re.findall(r'"([\w-]+)"', re.search(r'for \(const family of \[(.*?)\]\)', config).group(1))
    faces = dict(re.findall(r'font-family: ([\w-]+);\s*src: url\("[^"]*/([\w-]+\.woff)"\)',
                            (mathjax / "formulas.css").read_text(encoding="utf-8")))
    assert early == ["MJXZERO", "MJXTEX", "MJXTEX-I"] and all(faces[family] in fonts for family in early)
    html = (site / "end-to-end" / "index.html").read_text(encoding="utf-8")
    assert "cdn" not in html.lower() and "https://" not in html.replace(
        'href="https://example.github.io', "")


def test_the_fonts_faces_are_said_from_the_start_on_every_page(site):
    """MathJax's @font-face rules are in formulas.css (MathJax writing them
    at its first formula in a browser had chromium lay the whole page out
    again), each naming a font the site publishes; every page links it
    (instant navigation keeps the head of the page the reader came in on)."""
    mathjax = site / "javascripts" / "mathjax"
    css = (mathjax / "formulas.css").read_text(encoding="utf-8")
    faces = re.findall(r'@font-face /\* \d+ \*/ \{\s*font-family: ([\w-]+);\s*src: url\("([^"]+)"\) format\("woff"\);\s*\}', css)
    assert len(faces) == css.count("@font-face") == 22
    assert {"MJXZERO", "MJXTEX", "MJXTEX-I", "MJXTEX-S4"} <= {family for family, _ in faces}
    assert all((mathjax / url).is_file() for _, url in faces)
    for name, up in (("nano-gpt/self-attention/index.html", "../../"), ("index.html", "")):
        link = f'<link rel="stylesheet" href="{up}javascripts/mathjax/formulas.css">'
        assert link in (site / name).read_text(encoding="utf-8"), name
    assert not (mathjax / "fonts.css").exists()
