"""Shared fixtures: the toy model, and builds of the site into temporary folders."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from toycalc.weights import DEFAULT_TOY, load_toy

ROOT = Path(__file__).resolve().parent.parent


def build_site(site_dir: Path, weights: Path | None = None) -> subprocess.CompletedProcess:
    """mkdocs build --strict into site_dir, optionally with another weights file."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env.pop("TOYCALC_WEIGHTS", None)
    if weights is not None:
        env["TOYCALC_WEIGHTS"] = str(weights)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def page(site_dir: Path, name: str) -> BeautifulSoup:
    return BeautifulSoup((site_dir / name / "index.html").read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="session")
def toy():
    return load_toy(DEFAULT_TOY)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site built once from the shipped weights."""
    out = tmp_path_factory.mktemp("site")
    result = build_site(out)
    assert result.returncode == 0, result.stderr
    return out
