"""Benchmark (not a test): what computing the numbers costs the build.

Prints the seconds of a full `mkdocs build` with the macros; of the same
pages with every macro call replaced by its output (so the difference is
the cost of computing); and of one in-process rebuild after an edit of the
weights, as `mkdocs serve` does it (config reloaded, site rebuilt, warm
imports; nano-gpt's run and the compiled templates kept, since their
files did not change: see site/macros.py and site/speedups.py). A full
build, on either side, starts with nothing kept, as `mkdocs build` does in
its own process. The builds with and without the macros
alternate, so a change of load on the machine hits both. Goals beside: the macros cost <= 1.2 x, the
rebuild <= 1.5 s (on a quiet machine).

    .venv/bin/python benchmarks/build_speed.py [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs_macros.plugin import MacrosPlugin

ROOT = Path(__file__).resolve().parent.parent
RATIO_GOAL, REBUILD_GOAL = 1.2, 1.5
sys.path.insert(0, str(ROOT))   # this checkout's toycalc, which the hooks and macros import
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def timed_build(config_file: Path, site: Path, cold: bool = True) -> float:
    if cold:   # nothing kept from the builds before, on either side
        from toycalc.site import macros, speedups
        macros.NANO_RUNS.clear()
        speedups.COMPILED.compiled.clear()
        speedups.PAGE_CODE.clear()
    start = time.perf_counter()
    build(load_config(str(config_file), site_dir=str(site)))
    return time.perf_counter() - start


def rendered_pages(site: Path) -> dict[str, str]:
    """Every page's Markdown after the macros ran, from one real build."""
    pages, original = {}, MacrosPlugin.on_page_markdown

    def capture(self, markdown, page, config, **kwargs):
        pages[page.file.src_path] = out = original(self, markdown, page=page, config=config, **kwargs)
        return out
    MacrosPlugin.on_page_markdown = capture
    try:
        build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site)))
    finally:
        MacrosPlugin.on_page_markdown = original
    return pages


def flattened_project(work: Path, pages: dict[str, str]) -> Path:
    """A copy of the project whose pages hold the macros' output and whose
    config has no macros plugin."""
    shutil.copytree(ROOT / "docs", work / "docs")
    shutil.copytree(ROOT / "overrides", work / "overrides")
    # the package itself, not a copy: a folder named toycalc here would hide it
    (work / "toycalc").symlink_to(ROOT / "toycalc", target_is_directory=True)
    for name, text in pages.items():
        (work / "docs" / name).write_text(text, encoding="utf-8")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    start = config.index("  - macros:")
    end = config.index("\n", config.index("on_undefined"))
    (work / "mkdocs.yml").write_text(config[:start] + config[end + 1:], encoding="utf-8")
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
        flat_config = flattened_project(tmp / "flat", pages)
        with_macros, without = [], []
        for run in range(args.runs):
            for side in ((True, False) if run % 2 == 0 else (False, True)):
                if side:
                    with_macros.append(timed_build(ROOT / "mkdocs.yml", tmp / "a"))
                else:
                    without.append(timed_build(flat_config, tmp / "b"))
        # an edit of the weights, then the rebuild mkdocs serve would do
        weights = tmp / "toy.yaml"
        data = yaml.safe_load((ROOT / "toycalc" / "weights" / "toy.yaml").read_text(encoding="utf-8"))
        rebuilds = []
        for run in range(args.runs):
            data["E"][2][0] = 0.75 + 0.01 * run
            weights.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
            os.environ["TOYCALC_WEIGHTS"] = str(weights)
            rebuilds.append(timed_build(ROOT / "mkdocs.yml", tmp / "c", cold=False))
    a, b, rebuild = statistics.median(with_macros), statistics.median(without), statistics.median(rebuilds)
    print(f"{len(pages)} pages, median of {args.runs} builds each, warm imports, load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  full build with the macros:         {a:6.2f} s")
    print(f"  same pages, macro output pasted in: {b:6.2f} s")
    print(f"  cost of computing (ratio):          {a / b:6.2f} x    goal <= {RATIO_GOAL} x")
    print(f"  rebuild after a weights edit:       {rebuild:6.2f} s    goal <= {REBUILD_GOAL} s")


if __name__ == "__main__":
    main()
