"""A mistake in a page's macro call stops the build with one line naming the
page and what exists, never a traceback, never a published error page."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from toycalc.weights import DEFAULT_TOY


@pytest.fixture
def project(tmp_path):
    """A copy of the book's sources, to add a page to."""
    for folder in ("docs", "overrides"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "toycalc").mkdir()
    shutil.copy(ROOT / "toycalc" / "site_hooks.py", tmp_path / "toycalc")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    return tmp_path


def build_with_page(project, text):
    (project / "docs" / "bad.md").write_text(text, encoding="utf-8")
    env = dict(os.environ, TOYCALC_WEIGHTS=str(DEFAULT_TOY), NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(project / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("call, message", [
    ('{{ table("nope") }}', "bad.md: table('nope'): no such table; the tables are: pieces, ids, E,"),
    ('{{ number("p", tokn="␣roof") }}', "bad.md: number('p'): unknown argument 'tokn'; it takes token, places, heads, temperature"),
    ('{{ number("p", token="␣moon") }}', "bad.md: number('p'): token = '␣moon' is not in the vocabulary"),
    ('{{ table("attention", head=3, heads=2) }}', "bad.md: table('attention'): head = 3: this run has heads 1 to 2"),
    ('{{ formula("mlp", heads=3) }}', "bad.md: formula('mlp'): heads = 3 does not divide d = 4; expected one of 1, 2, 4"),
    ('{{ nosuch() }}', "bad.md: 'nosuch' is undefined; every macro is listed on the page 'Writing for the book'"),
])
def test_bad_macro_call(project, call, message):
    result = build_with_page(project, f"# Bad\n\nA page with a mistake: {call}\n")
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (project / "site" / "bad" / "index.html").exists()


def test_a_good_page_builds(project):
    result = build_with_page(project, '# Good\n\np = {{ number("p", heads=1) }}\n')
    assert result.returncode == 0, result.stderr
    assert "p = 0.426" in (project / "site" / "bad" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("link", ["[gone](nowhere.md)", "[gone](end-to-end.md#no-such-step)",
                                  "[gone](#not-here)"])
def test_a_broken_link_fails_the_build(project, link):
    result = build_with_page(project, f"# Links\n\nSee {link}.\n")
    assert result.returncode != 0
    assert "bad.md" in result.stderr


def test_a_false_claim_fails_the_build(tmp_path):
    """End to End says W_O = I; weights that break it stop the build."""
    import yaml
    from conftest import build_site
    data = yaml.safe_load(DEFAULT_TOY.read_text(encoding="utf-8"))
    data["W_O"][0][1] = 0.5
    weights = tmp_path / "w.yaml"
    weights.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    result = build_site(tmp_path / "site", weights)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert ("end-to-end.md: the text claims identity(name='W_O'), but W_O is not the identity matrix"
            in result.stderr)


def test_claims_about_the_prediction(project):
    assert build_with_page(project, '# C\n\n{{ claim("top_token", token="␣roof") }}\n').returncode == 0
    result = build_with_page(project, '# C\n\n{{ claim("top_token", token="␣roof", heads=1) }}\n')
    assert result.returncode != 0
    assert "the text claims top_token(token='␣roof'), but the most probable token with 1 heads is ␣cat" in result.stderr
