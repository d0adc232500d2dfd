"""The README is a newcomer's page: short, and every file, link and
command it names is there. The figures and their history live in
benchmarks/README.md, which names every benchmark script; the weights
files' rules in full in toycalc/weights/README.md."""
from __future__ import annotations

import re
from collections import Counter

from conftest import ROOT

README = ROOT / "README.md"
BENCHMARKS = ROOT / "benchmarks" / "README.md"
WEIGHTS = ROOT / "toycalc" / "weights" / "README.md"
MAX_LINES = 200
MAX_IMAGE_BYTES = 150_000


def relative_targets(markdown_file):
    """The targets of the file's Markdown links and images that are paths
    in the repository (not addresses), without their #anchors."""
    text = markdown_file.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines, more than {MAX_LINES}"


def test_every_file_the_readmes_link_to_is_there():
    assert "screenshot.png" in relative_targets(README)
    for markdown_file in (README, BENCHMARKS, WEIGHTS):
        targets = relative_targets(markdown_file)
        missing = [t for t in targets if not (markdown_file.parent / t).is_file()]
        assert missing == [], f"{markdown_file.relative_to(ROOT)} links to missing files: {missing}"


def test_the_readme_shows_one_small_screenshot():
    images = re.findall(r"!\[[^\]]+\]\(([^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert len(images) == 1
    image = README.parent / images[0]
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.stat().st_size <= MAX_IMAGE_BYTES


def test_every_make_command_the_readme_names_exists():
    targets = set(re.findall(r"^([a-z]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
    # as code: `make serve`, or a line of a shell block
    named = set(re.findall(r"(?:`|^)make ([a-z]+)\b", README.read_text(encoding="utf-8"), re.M))
    assert {"serve", "test", "check", "bench"} <= named
    assert named - targets == set()


def test_the_benchmarks_readme_names_every_benchmark():
    text = BENCHMARKS.read_text(encoding="utf-8")
    scripts = {p.name for p in (ROOT / "benchmarks").glob("*.py")} - {"served_site.py"}
    assert scripts
    assert [name for name in sorted(scripts) if f"`{name}" not in text] == []


def test_the_benchmarks_readme_is_short_and_names_only_what_the_repository_holds():
    """Its goals, today's figures and their method in at most 150 lines; every
    script or command it tells a reader to run is in the repository (a
    script of benchmarks/, a make target, or a tool the project pins)."""
    text = BENCHMARKS.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    # every file it names, by its path from the repository's root or benchmarks/
    named = set(re.findall(r"`([\w./-]+\.(?:py|md|json|js))`", text))
    assert [n for n in sorted(named) if not (ROOT / n).exists() and not (ROOT / "benchmarks" / n).exists()
            and not list(ROOT.glob(f"tests/**/{n}")) and not (ROOT / "docs/javascripts" / n).exists()] == []
    # the host's own timing tools (farm-*) are not the repository's: a reader has none
    assert "farm-" not in text


def test_the_readmes_state_the_limits_the_loader_enforces():
    """weights.py's limits are stated in words in README.md and in full in
    toycalc/weights/README.md: a limit changed in the code must be changed
    there too."""
    from toycalc.model import nanogpt, weights, yamlfile
    limits = [weights.MAX_BYTES, weights.MAX_V, weights.MAX_TOKEN, weights.MAX_D,
              weights.MAX_POSITIONS, weights.MAX_WIDTH, int(weights.MAX_WEIGHT)]
    full = limits + [nanogpt.MAX_RECORD_BYTES, yamlfile.MAX_DEPTH]
    for markdown_file, stated in ((README, limits), (WEIGHTS, full)):
        # two limits may share a value (256 tokens, an MLP width of 256): each is stated
        written = Counter(re.findall(r"\d+(?:,\d{3})*", markdown_file.read_text(encoding="utf-8")))
        missing = Counter(f"{n:,}" for n in stated) - written
        assert not missing, f"{markdown_file.relative_to(ROOT)} does not state {sorted(missing.elements())}"
