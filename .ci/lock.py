"""Writes requirements.lock (`make lock`): every package `make install`
puts in .venv, toycalc's dependencies and its test extras, at the version
pip resolves from pyproject.toml's pins, each with the sha256 of its file,
so that `pip install --require-hashes -r requirements.lock` installs those
files or nothing. Run it after a pin in pyproject.toml changed; it asks the
package index (as configured for pip) which files it would install, in a
throwaway venv, and installs nothing. The versions the locks hold stay
unless a pin needs another (`--fresh`: every version pip would pick
today). requirements-bench.lock likewise holds what the bench extras add
(PyTorch, for train_speed.py)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BASE = """\
# Every package toycalc and its tests need, each pinned with the sha256 of
# its file: `make install` installs them with pip's --require-hashes, then
# toycalc itself with --no-deps. Written by .ci/lock.py (`make lock`) after
# a pin in pyproject.toml changed; not edited by hand.
"""
BENCH = """\
# What the bench extras (PyTorch, for benchmarks/train_speed.py) add to
# requirements.lock, each pinned with the sha256 of its file: after `make
# install`, .venv/bin/pip install --require-hashes -r requirements-bench.lock
# (torch is the CPU build, as the package index this project uses has it).
# Written by .ci/lock.py (`make lock`); not edited by hand.
"""


def locked() -> str:
    """The versions the locks hold now, as pip constraints (no hashes)."""
    pins = []
    for name in ("requirements.lock", "requirements-bench.lock"):
        if (ROOT / name).is_file():
            pins += re.findall(r"^([A-Za-z0-9_.-]+==[^\s\\]+)", (ROOT / name).read_text(encoding="utf-8"), re.M)
    return "".join(f"{pin}\n" for pin in pins)


def resolve(extras: str, workdir: Path, fresh: bool) -> dict[str, tuple[str, str]]:
    """name -> (version, sha256) of every package pip would install for
    toycalc[extras] in a fresh venv (toycalc itself left out)."""
    workdir.mkdir()
    venv = workdir / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    report, constraints = workdir / "report.json", workdir / "constraints.txt"
    constraints.write_text("" if fresh else locked(), encoding="utf-8")
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--dry-run", "--ignore-installed",
                    "--report", report, "-c", constraints, f"{ROOT}[{extras}]"], check=True)
    out = {}
    for item in json.loads(report.read_text(encoding="utf-8"))["install"]:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if name == "toycalc":
            continue
        archive = item["download_info"].get("archive_info", {})
        hashes = archive.get("hashes") or (dict([archive["hash"].split("=", 1)]) if "hash" in archive else {})
        if "sha256" not in hashes:
            sys.exit(f"error: pip reports no sha256 for {name}=={version} ({item['download_info']['url']})")
        out[name] = (version, hashes["sha256"])
    return out


def write(path: Path, header: str, packages: dict[str, tuple[str, str]]) -> None:
    lines = [header]
    for name in sorted(packages, key=str.lower):
        version, sha256 = packages[name]
        lines.append(f"{name}=={version} \\\n    --hash=sha256:{sha256}\n")
    path.write_text("".join(lines), encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(packages)} packages")


def main() -> None:
    fresh = sys.argv[1:] == ["--fresh"]
    if sys.argv[1:] not in ([], ["--fresh"]):
        sys.exit("usage: python .ci/lock.py [--fresh]")
    with tempfile.TemporaryDirectory() as tmp:
        base = resolve("test", Path(tmp) / "test", fresh)
        both = resolve("test,bench", Path(tmp) / "bench", fresh)
    write(ROOT / "requirements.lock", BASE, base)
    write(ROOT / "requirements-bench.lock", BENCH, {name: pin for name, pin in both.items() if base.get(name) != pin})


if __name__ == "__main__":
    main()
