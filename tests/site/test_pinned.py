"""toycalc/site/pinned.py holds every entry point toycalc uses that a pinned
dependency does not document: the installed versions and requirements.lock's
pins must be the ones it was written against, each of its sections names
one of them, the entry points must be there, and no other module of
toycalc may reach inside those packages."""
from __future__ import annotations

import inspect
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from conftest import ROOT
from toycalc.site import pinned

PINNED_PY = Path(pinned.__file__)


@pytest.mark.parametrize("package", sorted(pinned.WRITTEN_AGAINST))
def test_the_installed_version_is_the_one_pinned_py_was_written_against(package):
    installed, written = version(package), pinned.WRITTEN_AGAINST[package]
    assert installed == written, (
        f"{package} {installed} is installed, but toycalc/site/pinned.py was written against {written}: "
        f"re-read each of its functions for {package} against the new code, then update WRITTEN_AGAINST")


def locked() -> dict[str, str]:
    """name -> version of each entry of requirements.lock (`name==version \\`,
    its hashes on the lines after it)."""
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", text, re.M))


@pytest.mark.parametrize("package", sorted(pinned.WRITTEN_AGAINST))
def test_requirements_lock_pins_the_version_pinned_py_was_written_against(package):
    """A bump in the lock fails here at once, before anyone reinstalls."""
    assert locked().get(package) == pinned.WRITTEN_AGAINST[package], (
        f"requirements.lock pins {package}=={locked().get(package)}, but toycalc/site/pinned.py was written "
        f"against {pinned.WRITTEN_AGAINST[package]}: re-read its section for {package}, then update WRITTEN_AGAINST")


SECTION = re.compile(r"^# -{8,} (\S+) (\S+)$", re.M)


def sections() -> list[tuple[str, str, str]]:
    """(package, version, text) for each section of pinned.py, in order."""
    text = PINNED_PY.read_text(encoding="utf-8")
    heads = list(SECTION.finditer(text))
    return [(m[1], m[2], text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)])
            for k, m in enumerate(heads)]


def test_every_section_of_pinned_py_names_a_package_at_the_version_it_was_written_against():
    found = {(package, written) for package, written, _ in sections()}
    assert found == set(pinned.WRITTEN_AGAINST.items())


def test_every_entry_of_pinned_py_sits_in_a_package_s_section():
    """So that a new reach cannot escape the version checks above."""
    text = PINNED_PY.read_text(encoding="utf-8")
    before_first = text[:SECTION.search(text).start()]
    names = {name for name, value in vars(pinned).items()     # its functions and constants, not its imports
             if not name.startswith("__") and not inspect.ismodule(value) and name != "annotations"}
    outside = [n for n in names if re.search(rf"^(?:def |class )?{n}\b", before_first, re.M)]
    assert outside == ["WRITTEN_AGAINST"]
    inside = {n for _, _, body in sections() for n in re.findall(r"^(?:def |class )?([A-Za-z_]\w*)\b", body, re.M)}
    assert names - {"WRITTEN_AGAINST"} <= inside


def test_the_entry_points_are_there():
    from jinja2 import debug, environment
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.theme import Theme
    from mkdocs_macros import plugin, util
    from mkdocs_macros.errors import format_error
    from mkdocs_print_site_plugin import urls
    assert "self.builder()" in inspect.getsource(LiveReloadServer._build_loop)
    assert callable(Theme.get_env)
    assert isinstance(plugin.MacrosPlugin.env, property)
    assert "format_error(" in inspect.getsource(plugin.MacrosPlugin.render)
    assert "self.config['on_error_fail']" in inspect.getsource(plugin.MacrosPlugin.render)
    assert callable(format_error.register)
    assert util.LOG.name == pinned.MACROS_LOG
    from mkdocs.commands import build
    assert build.log.name == pinned.BUILD_LOG
    assert ('message = f"Error building page \'{page.file.src_uri}\':"' in inspect.getsource(build._build_page)
            and "if not isinstance(e, BuildError):" in inspect.getsource(build._build_page))
    assert "update_anchor_ids(" in inspect.getsource(urls.fix_internal_links)
    assert "fix_href_links(" in inspect.getsource(urls.fix_internal_links)
    assert 'namespace["__jinja_template__"] = t' in inspect.getsource(environment.Template._from_namespace)
    assert f'filename = "{pinned.STRING_TEMPLATE}"' in inspect.getsource(environment.Environment.compile)
    assert "__jinja_template__" in inspect.getsource(debug.rewrite_traceback_stack)


def test_every_copied_partial_is_listed_and_material_still_has_it():
    import material
    theme = Path(material.__file__).parent / "templates"
    copies = sorted(p.relative_to(ROOT / "overrides").as_posix() for p in (ROOT / "overrides" / "partials").rglob("*")
                    if p.is_file())
    assert copies == sorted(pinned.THEME_COPIES)
    assert [c for c in copies if not (theme / c).is_file()] == []
    # each copy says in its first lines that it is Material's, and what it changes
    assert [c for c in copies if "Material's" not in (ROOT / "overrides" / c).read_text(encoding="utf-8")[:200]] == []


# what only pinned.py may name: private attributes, replaced functions, internal names
PRIVATE = re.compile(r"\._rebuild_cond|\._want_rebuild|\._env\b|format_error|update_anchor_ids\s*=|"
                     r"fix_href_links\s*=|\.get_env\s*=|\.builder\s*=|CountHandler|mkdocs_macros\.util|"
                     r"\.compile\s*=|__jinja_template__|<template>|(?:from|import) mkdocs_print_site_plugin")


def test_no_other_module_reaches_inside_a_dependency():
    found = [f"{p.relative_to(ROOT)}: {m[0]}" for p in sorted((ROOT / "toycalc").rglob("*.py"))
             if p.name != "pinned.py" for m in PRIVATE.finditer(p.read_text(encoding="utf-8"))]
    assert found == []
