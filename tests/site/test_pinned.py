"""toycalc/site/pinned.py holds every entry point toycalc uses that a pinned
dependency does not document: the installed versions must be the ones it
was written against, the entry points must be there, and no other module
of toycalc may reach inside those packages."""
from __future__ import annotations

import inspect
import re
from importlib.metadata import version

import pytest

from conftest import ROOT
from toycalc.site import pinned


@pytest.mark.parametrize("package", sorted(pinned.WRITTEN_AGAINST))
def test_the_installed_version_is_the_one_pinned_py_was_written_against(package):
    installed, written = version(package), pinned.WRITTEN_AGAINST[package]
    assert installed == written, (
        f"{package} {installed} is installed, but toycalc/site/pinned.py was written against {written}: "
        f"re-read each of its functions for {package} against the new code, then update WRITTEN_AGAINST")


def test_the_entry_points_are_there():
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.theme import Theme
    from mkdocs.utils import CountHandler
    from mkdocs_macros import plugin, util
    from mkdocs_macros.errors import format_error
    from mkdocs_print_site_plugin import urls
    server = inspect.getsource(LiveReloadServer)
    assert "self._rebuild_cond" in server and "self._want_rebuild" in server and "self.observer" in server
    assert callable(CountHandler.get_counts) and callable(Theme.get_env)
    assert "self._env = " in inspect.getsource(plugin.MacrosPlugin)
    assert "format_error(" in inspect.getsource(plugin.MacrosPlugin.render)
    assert callable(format_error.register)
    assert util.LOG.name == pinned.MACROS_LOG
    assert "update_anchor_ids(" in inspect.getsource(urls.fix_internal_links)


# what only pinned.py may name: private attributes and replaced functions
PRIVATE = re.compile(r"\._rebuild_cond|\._want_rebuild|\._env\b|format_error|update_anchor_ids\s*=|"
                     r"\.get_env\s*=|CountHandler|mkdocs_macros\.util|\.compile\s*=")


def test_no_other_module_reaches_inside_a_dependency():
    found = [f"{p.relative_to(ROOT)}: {m[0]}" for p in sorted((ROOT / "toycalc").rglob("*.py"))
             if p.name != "pinned.py" for m in PRIVATE.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
