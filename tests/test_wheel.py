"""The package installs as a package: a wheel built from a clean clone
holds every tracked file of toycalc/, installs without -e in a fresh venv
and works there (every module imports, `python -m toycalc check` runs on
the weights it ships); building it leaves nothing git would list.
Offline: the build uses this venv's setuptools (pinned in the test extras
as in [build-system]) and the fresh venv reads the dependencies from this
one's site-packages."""
from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy
import pytest

from conftest import ROOT

pytestmark = pytest.mark.build

# The folder this venv's dependencies are installed in (numpy's, as every other's).
DEPENDENCIES = Path(numpy.__file__).resolve().parents[1]


def run(command: list, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """command, without PYTHONPATH (which points the tests at the work tree):
    a failure shows its output."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, command))}\n{result.stdout}\n{result.stderr}"
    return result


def tracked() -> list[str]:
    """The files git tracks, as paths from the repository's root."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in out.split("\0") if name]


def clean_clone(into: Path) -> Path:
    """The tracked files as the work tree holds them, in a folder of their
    own: what a clone of this tree would hold."""
    for name in tracked():
        source = ROOT / name
        if source.is_file():            # a tracked file deleted in the work tree is not in the clone
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


def build_wheel(source: Path, out: Path) -> Path:
    """The wheel pip builds from source with this venv's setuptools (no
    download): the one [build-system] pins, which the test extras install."""
    pinned = re.search(r'requires = \["setuptools==([^"]+)"\]', (source / "pyproject.toml").read_text(encoding="utf-8"))
    assert pinned, "pyproject.toml's [build-system] pins no setuptools"
    have = importlib.metadata.version("setuptools")
    assert have == pinned[1], (f"this venv has setuptools {have}; the build needs {pinned[1]}, "
                               "which the test extras pin: make install")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", out, source], cwd=source)
    (wheel,) = out.glob("toycalc-*.whl")
    return wheel


def missing_from(wheel: Path) -> list[str]:
    """The tracked files of toycalc/ (code and data) the wheel lacks."""
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    return sorted(name for name in tracked() if name.startswith("toycalc/") and name not in shipped)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    return build_wheel(clean_clone(root / "clone"), root / "dist")


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> SimpleNamespace:
    """The wheel installed (no -e, no dependencies) in a fresh venv that
    reads the dependencies from this venv's folder: a plain path in a .pth,
    so that the .pth files in that folder (this venv's editable toycalc)
    are not run. .python, .package (the installed toycalc folder), .cwd (an
    empty folder to run from)."""
    root = tmp_path_factory.mktemp("venv")
    venv = root / "fresh"
    run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=root)
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel], cwd=root)
    site_packages = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             cwd=root).stdout.strip())
    (site_packages / "toycalc-dependencies.pth").write_text(f"{DEPENDENCIES}\n", encoding="utf-8")
    (root / "cwd").mkdir()
    return SimpleNamespace(python=python, package=site_packages / "toycalc", cwd=root / "cwd")


def test_the_wheel_holds_every_tracked_file_of_the_package(wheel):
    assert missing_from(wheel) == []


def test_a_package_left_out_of_the_build_is_found(tmp_path):
    """The list of packages this project had: the wheel lacked the chapters."""
    source = clean_clone(tmp_path / "clone")
    config = source / "pyproject.toml"
    text, found = re.subn(r'\[tool\.setuptools\.packages\.find\]\ninclude = \["toycalc\*"\]',
                          '[tool.setuptools]\npackages = ["toycalc", "toycalc.model", "toycalc.book", "toycalc.site"]',
                          config.read_text(encoding="utf-8"))
    assert found == 1, "pyproject.toml no longer finds the packages as this test expects"
    config.write_text(text, encoding="utf-8")
    missing = missing_from(build_wheel(source, tmp_path / "dist"))
    assert "toycalc/book/toy/mlp.py" in missing and "toycalc/book/nano_gpt/index.py" in missing
    assert all(name.startswith(("toycalc/book/toy/", "toycalc/book/nano_gpt/", "toycalc/book/writer/", "toycalc/data/"))
               for name in missing), missing


def test_pip_wheel_leaves_nothing_untracked(tmp_path):
    """`pip wheel .` as a reader types it (the wheel into the folder it is
    run from): whatever it leaves in the clone, setuptools' build/ among
    it, is ignored by .gitignore, so git lists nothing new."""
    source = clean_clone(tmp_path / "clone")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "."], cwd=source)
    left = sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file())
    new = sorted(set(left) - set(tracked()))
    assert "build/lib/toycalc/__init__.py" in new and any(name.endswith(".whl") for name in new)
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(new),
                             capture_output=True, text=True).stdout.split("\n")
    assert sorted(set(new) - set(ignored)) == []


def test_every_module_imports_from_the_fresh_venv(installed):
    names = sorted(".".join(("toycalc", *path.relative_to(installed.package).with_suffix("").parts))
                   .removesuffix(".__init__") for path in installed.package.rglob("*.py"))
    assert "toycalc.book.toy.mlp" in names and "toycalc.site.macros" in names
    script = ("import importlib, sys, toycalc\n"
              "for name in sys.argv[1:]:\n"
              "    importlib.import_module(name)\n"
              "print(toycalc.__file__)")
    out = run([installed.python, "-c", script, *names], cwd=installed.cwd).stdout
    assert Path(out.strip()) == installed.package / "__init__.py"


def test_the_installed_command_checks_the_shipped_weights(installed):
    weights = installed.package / "weights" / "toy.yaml"
    out = run([installed.python, "-m", "toycalc", "check", weights], cwd=installed.cwd).stdout
    assert out.startswith(f"{weights}: V = ")
    assert '"the cat climbed the" with' in out


def test_the_installed_package_loads_the_shipped_nano_gpt(installed):
    script = "from toycalc.model import nanogpt; m = nanogpt.load(); print(m.path, len(m.params))"
    out = run([installed.python, "-c", script], cwd=installed.cwd).stdout.split()
    assert Path(out[0]) == installed.package / "weights" / "nanogpt.safetensors" and int(out[1]) > 0
