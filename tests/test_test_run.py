"""How the test run spends its time (tests/conftest.py, the Makefile): the
long files go first in a list that names files that are there, the
Makefile keeps that order, and a folder built once for the whole run is
made once, by whichever worker asks first, and made again after a failure;
a built page is parsed once a worker, shared read only, and parsed again
once rebuilt."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import LONG, LONG_FIRST, ROOT, built_once, fresh_page, page


def test_the_long_files_first_are_test_files_named_once():
    assert len(set(LONG_FIRST)) == len(LONG_FIRST)
    for name in LONG_FIRST:
        assert (ROOT / "tests" / name).is_file(), name


def test_the_makefile_keeps_that_order():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--dist loadfile --no-loadscope-reorder" in makefile


def test_the_long_tests_are_tests_that_are_there_and_only_make_check_leaves_them_out():
    """A test renamed in its file would drop out of LONG without a word, and
    make check would take its time again."""
    for path, names in LONG.items():
        text = (ROOT / "tests" / path).read_text(encoding="utf-8")
        assert [n for n in names if f"def {n}(" not in text] == [], path
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    check = makefile.split("\ncheck:", 1)[1].split("\n\n", 1)[0]
    test = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "not long" in check and "-m" not in test


@pytest.mark.parametrize("worker", ["", "gw1"])
def test_a_folder_built_once_is_made_once_and_again_after_a_failure(tmp_path, monkeypatch, worker):
    base = tmp_path / "run" / (worker or "base")
    base.mkdir(parents=True)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    factory = SimpleNamespace(getbasetemp=lambda: base)
    made = []

    def fail(out):
        (out / "half").write_text("a half-made folder")
        raise AssertionError("the build failed")

    def make(out):
        made.append(out)
        (out / "index.html").write_text("built")

    with pytest.raises(AssertionError, match="the build failed"):
        built_once(factory, "site", fail)
    first = built_once(factory, "site", make)
    assert built_once(factory, "site", make) == first and made == [first]
    assert sorted(p.name for p in first.iterdir()) == ["index.html"]
    assert first.parent == (base.parent if worker else base)


def test_a_shared_page_is_parsed_once_refuses_changes_and_follows_a_rebuild(tmp_path):
    html = tmp_path / "site" / "a-page" / "index.html"
    html.parent.mkdir(parents=True)
    html.write_text('<html><head><meta charset="utf-8"></head><body><p id="x">one</p></body></html>')
    shared = page(tmp_path / "site", "a-page")
    assert page(tmp_path / "site", "a-page") is shared
    for change in (lambda p: p.decompose(), lambda p: p.__setitem__("class", "y"), lambda p: p.append("two")):
        with pytest.raises(TypeError, match="shared by the tests .* fresh_page"):
            change(shared.find(id="x"))
    assert str(shared.find(id="x")) == '<p id="x">one</p>'
    own = fresh_page(tmp_path / "site", "a-page")
    own.find(id="x").decompose()
    assert own.find(id="x") is None and shared.find(id="x") is not None
    html.write_text('<html><body><p id="x">a rebuilt page</p></body></html>')
    assert page(tmp_path / "site", "a-page").find(id="x").get_text() == "a rebuilt page"
