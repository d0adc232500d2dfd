"""MathJax is published with the site; a build without it fails."""
import importlib.util

import pytest
from mkdocs.exceptions import PluginError

from toycalc.site import hooks


def test_mathjax_files_exist():
    for name in hooks.MATHJAX_FILES:
        assert (hooks.mathjax_dir() / name).is_file(), name


def test_a_build_without_mathjax_fails(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mathjax" else real(name, *a))
    with pytest.raises(PluginError, match="MathJax is missing"):
        hooks.on_files([], config=None)


def test_the_site_serves_its_own_mathjax(site):
    assert (site / "javascripts" / "mathjax" / "tex-svg-full.js").stat().st_size > 2_000_000
    html = (site / "end-to-end" / "index.html").read_text(encoding="utf-8")
    assert "cdn" not in html.lower() and "https://" not in html.replace(
        'href="https://example.github.io', "")
