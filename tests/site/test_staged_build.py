"""Publishing never loses the site (staged_build.py), in process: the hook's
events called as a build calls them, on folders in tmp_path. The real
builds (an interrupted one, two at once) are in test_build_failures.py."""
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from toycalc.site import staged_build


def build(site: Path, pages: dict, ends=("post_build", "shutdown")) -> SimpleNamespace:
    """What a build does with the hook: on_config, the files written, then
    the events that end it (a successful build's by default)."""
    staged_build.on_startup("build", dirty=False)
    config = SimpleNamespace(site_dir=str(site))
    staged_build.on_config(config)
    Path(config.site_dir).mkdir()                  # as mkdocs does before it writes
    for name, text in pages.items():
        (Path(config.site_dir) / name).write_text(text, encoding="utf-8")
    for event in ends:
        if event == "post_build":
            staged_build.on_post_build(config)
        elif event == "build_error":
            staged_build.on_build_error(Exception("Aborted with 1 warnings in strict mode!"))
        else:
            staged_build.on_shutdown()
    return config


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_site_that_is_a_link_keeps_its_link_and_its_target_is_updated(tmp_path):
    web = tmp_path / "www" / "html"
    web.mkdir(parents=True)
    (web / "index.html").write_text("old", encoding="utf-8")
    site = tmp_path / "project" / "site"
    site.parent.mkdir()
    site.symlink_to(web, target_is_directory=True)
    config = build(site, {"index.html": "new"})
    assert site.is_symlink() and site.resolve() == web.resolve()
    assert (web / "index.html").read_text(encoding="utf-8") == "new"
    assert config.site_dir == str(site)
    assert sorted(p.name for p in web.parent.iterdir()) == ["html"]       # nothing left beside it
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]


def test_the_new_site_takes_the_old_ones_place_in_one_step(tmp_path, monkeypatch):
    """On Linux the two folders swap (renameat2): no rename happens, so no
    moment without a site, even if the build is killed right then."""
    site = tmp_path / "site"
    build(site, {"index.html": "old"})

    def no_rename(self, target):
        raise AssertionError(f"{self} renamed: for a moment there would be no site")
    monkeypatch.setattr(Path, "rename", no_rename)
    build(site, {"index.html": "new"})
    assert (site / "index.html").read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_leftovers_of_killed_builds_go_and_a_running_build_keeps_its_folder(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    dead, running = dead_pid(), os.getppid()
    for name in (f".site.building-{dead}", f".site.old-{dead}", f".site.building-{running}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("x", encoding="utf-8")
    (tmp_path / ".site.notes").write_text("mine", encoding="utf-8")        # not a build's
    build(site, {"index.html": "new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".site.building-{running}", ".site.notes", "site"]


@pytest.mark.parametrize("can_swap", [True, False])
def test_a_first_build_and_a_system_that_cannot_swap(tmp_path, monkeypatch, can_swap):
    if not can_swap:
        monkeypatch.setattr(staged_build, "swap", lambda a, b: False)
    site = tmp_path / "site"
    build(site, {"index.html": "first"})
    build(site, {"index.html": "second"})
    assert (site / "index.html").read_text(encoding="utf-8") == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize("ends", [
    ("post_build", "build_error", "shutdown"),   # --strict fails it for its warnings, after on_post_build
    ("shutdown",),                               # a macro's exit or Ctrl-C, before on_post_build
], ids=["strict warnings", "stopped"])
def test_a_build_that_fails_at_its_end_leaves_the_previous_site(tmp_path, ends):
    site = tmp_path / "site"
    build(site, {"index.html": "old"})
    config = build(site, {"index.html": "new"}, ends)
    assert (site / "index.html").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert staged_build.STAGING == {}
    assert config.site_dir != str(site)        # nothing pushes the failed one (gh-deploy reads site_dir)


def test_the_site_moves_only_when_the_command_ends(tmp_path):
    """After on_post_build --strict may still fail the build: until
    on_shutdown the previous site is the one in place."""
    site = tmp_path / "site"
    build(site, {"index.html": "old"})
    config = build(site, {"index.html": "new"}, ends=("post_build",))
    assert (site / "index.html").read_text(encoding="utf-8") == "old"
    staged_build.on_shutdown()
    assert (site / "index.html").read_text(encoding="utf-8") == "new"
    assert config.site_dir == str(site)
