"""Benchmark (not a test): what computing the numbers costs the build.

Prints the seconds of a full `mkdocs build` with the macros and of the
same pages with every macro call replaced by its output, their ratio (the
goal), and the seconds of one in-process rebuild after an edit of the
weights, as `mkdocs serve` does it (config reloaded, site rebuilt, warm
imports; nano-gpt's run and the compiled templates kept, since their files
did not change: see site/runs.py and site/speedups.py).

The macros hand Markdown a one-line placeholder for each table and figure
and put the HTML back after it (site/blocks.py), which spares Markdown
most of its parse; a page with the HTML pasted in pays it. So a third
build, the pasted pages with the placeholders kept, gives the cost of
computing alone. A full build, on every side, starts with nothing kept,
as `mkdocs build` does in its own process; the sides take turns going
first, so a change of load on the machine hits them all. Goals beside: the
macros <= 1.2 x the pasted pages, the rebuild <= 1.5 s (on a quiet machine).

    .venv/bin/python benchmarks/build_speed.py [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs_macros.plugin import MacrosPlugin

ROOT = Path(__file__).resolve().parent.parent
RATIO_GOAL, REBUILD_GOAL = 1.2, 1.5
sys.path.insert(0, str(ROOT))   # this checkout's toycalc, which the hooks and macros import
from toycalc.site.blocks import put_back  # noqa: E402


def timed_build(config_file: Path, site: Path, cold: bool = True) -> float:
    if cold:   # nothing kept from the builds before, on either side
        from toycalc.site import runs, speedups
        runs.RUNS.clear()
        speedups.COMPILED.compiled.clear()
        speedups.PAGE_CODE.clear()
    start = time.perf_counter()
    build(load_config(str(config_file), site_dir=str(site)))
    return time.perf_counter() - start


def rendered_pages(site: Path) -> dict[str, tuple[str, list[str]]]:
    """Every page's Markdown after the macros ran, with the blocks the
    macros kept out of Markdown (site/blocks.py), from one real build."""
    pages, original = {}, MacrosPlugin.on_page_markdown

    def capture(self, markdown, page, config, **kwargs):
        out = original(self, markdown, page=page, config=config, **kwargs)
        pages[page.file.src_path] = (out, list(page.__dict__.get("toycalc_blocks", [])))
        return out
    MacrosPlugin.on_page_markdown = capture
    try:
        build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site)))
    finally:
        MacrosPlugin.on_page_markdown = original
    return pages


# For the pasted pages that keep the placeholders: each page gets its
# blocks back as the macros would have left them, for site/blocks.py.
STASH_HOOK = """import json
BLOCKS = json.load(open({path!r}, encoding="utf-8"))
def on_page_markdown(markdown, page, **kwargs):
    page.__dict__["toycalc_blocks"] = list(BLOCKS.get(page.file.src_path, []))
    return markdown
"""


def flattened_project(work: Path, pages: dict[str, tuple[str, list[str]]], placeholders: bool) -> Path:
    """A copy of the project whose pages hold the macros' output and whose
    config has no macros plugin: the tables and figures pasted into the
    Markdown, or (placeholders) handed to Markdown as the macros hand them."""
    shutil.copytree(ROOT / "docs", work / "docs")
    shutil.copytree(ROOT / "overrides", work / "overrides")
    # the package itself, not a copy: a folder named toycalc here would hide it
    (work / "toycalc").symlink_to(ROOT / "toycalc", target_is_directory=True)
    for name, (text, blocks) in pages.items():
        page = SimpleNamespace(toycalc_blocks=list(blocks))
        (work / "docs" / name).write_text(text if placeholders else put_back(page, text), encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    start = config.index("  - macros:")
    end = config.index("\n", config.index("on_undefined"))
    config = config[:start] + config[end + 1:]
    if placeholders:
        (work / "blocks.json").write_text(json.dumps({n: b for n, (_, b) in pages.items()}), encoding="utf-8")
        (work / "stash_hook.py").write_text(STASH_HOOK.format(path=str(work / "blocks.json")), encoding="utf-8")
        config = config.replace("hooks:\n", "hooks:\n  - stash_hook.py\n")
    (work / "mkdocs.yml").write_text(config, encoding="utf-8")
    os.environ.setdefault("TOYCALC_WEIGHTS", str(ROOT / "toycalc" / "weights" / "toy.yaml"))
    return work / "mkdocs.yml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import logging
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pages = rendered_pages(tmp / "warm")
        sides = {"macros": ROOT / "mkdocs.yml",
                 "pasted": flattened_project(tmp / "flat", pages, placeholders=False),
                 "placeholders": flattened_project(tmp / "held", pages, placeholders=True)}
        seconds = {side: [] for side in sides}
        for run in range(args.runs):
            order = list(sides)[run % len(sides):] + list(sides)[:run % len(sides)]   # who goes first turns
            for side in order:
                seconds[side].append(timed_build(sides[side], tmp / side))
        # every side built the same book: no placeholder left, every figure there
        figures = {}
        for side in sides:
            built = [path.read_text(encoding="utf-8") for path in (tmp / side).rglob("*.html")]
            assert not any("data-toycalc-block" in text for text in built), side
            figures[side] = sum(text.count('<figure class="toy-figure') for text in built)
        assert len(set(figures.values())) == 1, figures
        # an edit of the weights, then the rebuild mkdocs serve would do
        weights = tmp / "toy.yaml"
        data = yaml.safe_load((ROOT / "toycalc" / "weights" / "toy.yaml").read_text(encoding="utf-8"))
        rebuilds = []
        for run in range(args.runs):
            data["E"][2][0] = 0.75 + 0.01 * run
            weights.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
            os.environ["TOYCALC_WEIGHTS"] = str(weights)
            rebuilds.append(timed_build(ROOT / "mkdocs.yml", tmp / "c", cold=False))
    a, b, c = (statistics.median(seconds[side]) for side in sides)
    rebuild = statistics.median(rebuilds)
    print(f"{len(pages)} pages, median of {args.runs} builds each, warm imports, load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  full build with the macros:            {a:6.2f} s")
    print(f"  same pages, macro output pasted in:    {b:6.2f} s")
    print(f"  macros / pasted (ratio):               {a / b:6.2f} x    goal <= {RATIO_GOAL} x")
    print(f"  pasted, blocks kept out of Markdown:   {c:6.2f} s   (as the macros hand them)")
    print(f"  cost of computing alone (macros / it): {a / c:6.2f} x")
    print(f"  rebuild after a weights edit:          {rebuild:6.2f} s    goal <= {REBUILD_GOAL} s")

if __name__ == "__main__":
    main()
