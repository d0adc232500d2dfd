"""A failing build says why in one line at error level (seen with
`mkdocs build -q`), names the file, prints no traceback, and leaves the
previous site as it was, byte for byte. What the macros say of a bad
weights file is checked in process (conftest.macros); real builds prove
the one line and the staging."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT, build_with_page, interruptible, mkdocs_env
from toycalc.model.weights import DEFAULT_TOY

TOY = DEFAULT_TOY.read_text(encoding="utf-8")


def quiet_build(site_dir: Path, weights: Path | None = None, wait=True):
    env = mkdocs_env()
    for name in ("TOYCALC_WEIGHTS", "TOYCALC_NANOGPT"):
        env.pop(name, None)
    if weights is not None:
        env["TOYCALC_WEIGHTS"] = str(weights)
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-d", str(site_dir)]
    if not wait:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=interruptible)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def only_error_line(result, count: int = 1) -> str | list[str]:
    """The one thing -q prints: a single line at error level (or count
    such lines, one for each mistake, as a list)."""
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == count and all(line.startswith("ERROR   -  ") for line in lines), result.stderr
    assert all(len(line) < 500 for line in lines)
    lines = [line[len("ERROR   -  "):] for line in lines]
    return lines[0] if count == 1 else lines


def toy(tmp_path, text, name="toy.yaml") -> Path:
    path = tmp_path / name
    (path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text, encoding="utf-8"))
    return path


SENTENCE = "the book's example (extra.toycalc.example in mkdocs.yml): "
HEADS_LINE = next(i for i, line in enumerate(TOY.splitlines(), 1) if line.startswith("heads:"))
P_ROWS = TOY[TOY.index("P:"):TOY.index("# W_Q")]
# What a bad file says is tested on the loaders (tests/model/test_weights*.py,
# test_nanogpt_chapter.py); here, what only the build's example finds, and
# one loader's error, which the macros pass on (and the real build prints).
WEIGHTS = [
    ("duplicate key", TOY + "heads: 1\n",
     f"key 'heads' appears twice (lines {HEADS_LINE} and {len(TOY.splitlines()) + 1})"),
    ("P shorter than the sentence", TOY.replace(P_ROWS, "P:\n" + "  - [0, 0, 0, 0]\n" * 3 + "\n"),
     SENTENCE + "5 tokens, but the model has 3 positions (the rows of P)"),
    ("vocabulary cannot cut the sentence", TOY.replace('"␣climb"', '"␣clamb"'),
     SENTENCE + 'cannot cut "␣climbed" (character 8 of "the cat climbed the")'),
    ("target not in the vocabulary", TOY.replace('"␣roof"', '"␣roofs"'),
     SENTENCE + 'the target "␣roof" is not a token of the vocabulary'),
]


def load_error(make_macros, **files) -> str:
    """What the build says when the macros load these weights files: one line."""
    with pytest.raises(PluginError) as error:
        make_macros(**files)
    line = str(error.value)
    assert "\n" not in line and len(line) < 500
    return line


@pytest.mark.parametrize("what, text, message", WEIGHTS, ids=[w[0] for w in WEIGHTS])
def test_a_bad_weights_file_is_named_with_what_is_wrong(macros, tmp_path, what, text, message):
    path = toy(tmp_path, text)
    line = load_error(macros, weights=path)
    assert line.startswith(f"{path}: ") and message in line


def previous_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "old").mkdir(parents=True)
    (site / "old" / "index.html").write_text("the previous site", encoding="utf-8")
    return site


def failed_build(tmp_path: Path, weights: str, lines: int = 1) -> tuple[str | list[str], Path]:
    """A build on these weights over a previous site: the one line it
    prints (or its `lines` lines), and the weights file's path. The previous
    site is kept byte for byte, and nothing is left beside it."""
    site = previous_site(tmp_path)
    before = snapshot(site)
    path = toy(tmp_path, weights)
    line = only_error_line(quiet_build(site, weights=path), lines)
    assert snapshot(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "toy.yaml"]
    return line, path


@pytest.mark.build
def test_a_bad_weights_file_fails_the_build_in_one_line_and_keeps_the_site(tmp_path):
    line, path = failed_build(tmp_path, WEIGHTS[0][1])
    assert line.startswith(f"{path}: ") and WEIGHTS[0][2] in line


@pytest.mark.build
def test_a_false_claim_fails_the_build_in_one_line_and_keeps_the_site(tmp_path):
    """A mistake found late, while the pages are rendered: every false
    sentence is named, one line each (issue 53)."""
    lines, path = failed_build(tmp_path, TOY.replace(
        "W_O:   # d x d: the identity, the joined heads pass unchanged\n  - [1, 0, 0, 0]", "W_O:   # d x d\n  - [2, 0, 0, 0]"),
        lines=2)
    calls = {page: next(n for n, text in enumerate((ROOT / "docs" / page).read_text(encoding="utf-8").splitlines(), 1)
                        if 'claim("identity", name="W_O")' in text) for page in ("end-to-end.md", "toy/attention.md")}
    assert (f"end-to-end.md, line {calls['end-to-end.md']}: the text (“The heads' results are set side by side, "
            "and \\(W_O = I\\) passes them on unchanged”) claims identity(name='W_O'), but W_O is "
            f"not the identity matrix: rewrite the sentence or the weights ({path})") in lines
    assert any(line.startswith(f"toy/attention.md, line {calls['toy/attention.md']}: the text (“")
               and line.endswith(f"claims identity(name='W_O'), but W_O is not the identity matrix: "
                                 f"rewrite the sentence or the weights ({path})") for line in lines), lines


def test_a_build_strict_fails_for_a_warning_keeps_the_site(project):
    """--strict fails a build for its warnings only after every plugin ran
    (staged_build.py): a link to a page that does not exist."""
    site = previous_site(project)
    before = snapshot(site)
    result = build_with_page(project, "# Bad\n\nSee [a page](nowhere.md).\n")
    assert result.returncode != 0
    assert "nowhere.md" in result.stderr and "in strict mode" in result.stdout
    assert snapshot(site) == before
    assert not [p.name for p in project.iterdir() if p.name.startswith(".site.")]


@pytest.mark.build
def test_an_interrupted_build_leaves_the_previous_site(tmp_path):
    site = previous_site(tmp_path)
    before = snapshot(site)
    build = quiet_build(site, wait=False)
    staging = tmp_path / f".site.building-{build.pid}"
    end = time.monotonic() + 120
    while not (staging / "assets").exists() and time.monotonic() < end and build.poll() is None:
        time.sleep(0.05)
    assert build.poll() is None, "the build ended before it could be interrupted"
    build.send_signal(signal.SIGINT)
    build.wait(timeout=60)
    assert build.returncode != 0
    assert snapshot(site) == before
    assert not staging.exists()


@pytest.mark.build
def test_a_good_build_replaces_the_site(tmp_path):
    site = tmp_path / "site"
    (site / "stale").mkdir(parents=True)
    (site / "stale" / "index.html").write_text("stale", encoding="utf-8")
    assert quiet_build(site).returncode == 0
    assert not (site / "stale").exists() and (site / "end-to-end" / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.build
def test_two_builds_at_once_into_one_folder(tmp_path):
    site = tmp_path / "site"
    builds = [quiet_build(site, wait=False) for _ in range(2)]
    for build in builds:
        _, err = build.communicate(timeout=300)
        assert build.returncode == 0, err
    assert (site / "end-to-end" / "index.html").is_file() and (site / "search" / "search_index.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
