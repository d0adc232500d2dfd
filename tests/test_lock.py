"""requirements.lock: every package toycalc and its tests need, each with
the sha256 of its file, and the install requires them (pip's
--require-hashes); toycalc itself is installed after them with --no-deps,
so nothing unlocked comes in. requirements-bench.lock likewise for the
bench extras. Read without the network: the lock against this venv's
installed packages and pyproject.toml's pins."""
from __future__ import annotations

import re
import tomllib
from importlib.metadata import distribution

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

LOCKS = ("requirements.lock", "requirements-bench.lock")
ENTRY = re.compile(r"^([A-Za-z0-9_.-]+)==(\S+)((?: \\\n    --hash=sha256:[0-9a-f]{64})+)$")


def entries(name: str) -> dict[str, tuple[str, list[str]]]:
    """canonical name -> (version, sha256s) of each entry of a lock; an
    entry that is not `name==version` followed by its hashes fails."""
    text = (ROOT / name).read_text(encoding="utf-8")
    out = {}
    for block in re.split(r"\n(?=\S)", text.strip()):
        if block.startswith("#"):
            continue
        m = ENTRY.match(block)
        assert m, f"{name}: not name==version with its --hash=sha256 lines: {block!r}"
        key = canonicalize_name(m[1])
        assert key not in out, f"{name}: {m[1]} twice"
        out[key] = (m[2], re.findall(r"sha256:([0-9a-f]{64})", m[3]))
    return out


@pytest.mark.parametrize("name", LOCKS)
def test_every_entry_of_the_lock_has_its_hash(name):
    locked = entries(name)
    assert locked and all(hashes for _, hashes in locked.values())


def test_the_two_locks_share_no_package():
    assert set(entries(LOCKS[0])) & set(entries(LOCKS[1])) == set()


def needed(extras: set[str]) -> set[str]:
    """The canonical names of every package toycalc with `extras` pulls
    in, as the installed packages' metadata says (markers evaluated)."""
    out, todo = set(), [(text, extras) for text in distribution("toycalc").requires or []]
    while todo:
        text, wanted = todo.pop()
        req = Requirement(text)
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in wanted or {""}):
            continue
        key = canonicalize_name(req.name)
        if key in out:
            continue
        out.add(key)
        todo += [(r, set(req.extras)) for r in distribution(req.name).requires or []]
    return out


def test_the_lock_holds_exactly_what_toycalc_and_its_tests_install():
    locked = entries("requirements.lock")
    assert set(locked) == needed({"test"}), "requirements.lock is out of date: make lock"
    for key, (version, _) in locked.items():
        assert distribution(key).version == version, f"{key}: {distribution(key).version} installed, {version} locked"


def test_the_locks_hold_pyproject_tomls_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    both = entries(LOCKS[0]) | entries(LOCKS[1])
    pins = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    for pin in map(Requirement, pins):
        version = both[canonicalize_name(pin.name)][0]
        assert pin.specifier.contains(version, prereleases=True), f"{pin} in pyproject.toml, {version} locked"


def test_make_install_requires_the_hashes():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line.strip() for line in makefile.splitlines() if "pip install" in line and not line.startswith("#")]
    assert installs == ["$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock",
                        "$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e ."]
