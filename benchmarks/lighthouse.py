"""Benchmark (not a test): Lighthouse on a phone, for six kinds of page.

Lighthouse 12.2.3 (pinned in benchmarks/lighthouse/, installed with
`npm ci --prefix benchmarks/lighthouse`), its default mobile form factor
and simulated throttling, on Debian's chromium, against the built site
served with gzip as GitHub Pages serves it. Each page is run several times
(Lighthouse varies from run to run, more so on a shared machine) and the
median of each figure is printed beside its goal (issue 40):

- performance score, goal >= 90; accessibility score, goal 100;
- total blocking time, largest contentful paint, cumulative layout shift
  (goal <= 0.05) and the number of DOM elements;
- the accessibility audits that failed in any run, by id (a * marks the
  ones Lighthouse weighs 0: they fail without lowering the score).

    .venv/bin/python benchmarks/lighthouse.py [--runs 3] [--page end-to-end/]
"""
from __future__ import annotations

import argparse
import gzip
import http.server
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from served_site import ROOT, Quiet, built_and_served

LIGHTHOUSE = ROOT / "benchmarks" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
PERFORMANCE_GOAL, ACCESSIBILITY_GOAL, CLS_GOAL = 90, 100, 0.05
PAGES = {
    "Home": "",
    "End to End": "end-to-end/",
    "toy Attention": "toy/attention/",
    "toy Training": "toy/training/",
    "nano-gpt Self Attention": "nano-gpt/self-attention/",
    "Train it yourself": "nano-gpt/train/",
    "The writer": "writer/",
    "Inside the writer": "writer/inside/",
    "Type, it writes": "writer/write/",
}
# Already compressed: a static host sends them as they are.
STORED = {".woff", ".woff2", ".png", ".jpg", ".gif", ".gz", ".zip"}


class Gzipped(Quiet):
    """Serves every file gzipped to a client that accepts it, as GitHub
    Pages does (http.server alone would make Lighthouse count the raw bytes)."""

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if (not path.is_file() or path.suffix in STORED
                or "gzip" not in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def lighthouse(url: str) -> dict:
    """One Lighthouse run's report (its JSON, parsed)."""
    done = subprocess.run(
        [str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
         "--only-categories=performance,accessibility",
         "--chrome-flags=--headless=new --no-sandbox"],
        env=dict(os.environ, CHROME_PATH=CHROMIUM), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"lighthouse failed on {url}:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    if report.get("runtimeError"):
        sys.exit(f"lighthouse could not measure {url}: {report['runtimeError']}")
    return report


def figures(report: dict) -> dict:
    audits, categories = report["audits"], report["categories"]
    # Lighthouse weighs some axe rules 0 (they do not lower the score): marked *
    failing = {ref["id"] + ("" if ref["weight"] else "*")
               for ref in categories["accessibility"]["auditRefs"]
               if audits[ref["id"]]["score"] is not None and audits[ref["id"]]["score"] < 1}
    return {
        "performance": round(100 * categories["performance"]["score"]),
        "accessibility": round(100 * categories["accessibility"]["score"]),
        "tbt": audits["total-blocking-time"]["numericValue"],
        "lcp": audits["largest-contentful-paint"]["numericValue"] / 1000,
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "dom": audits["dom-size"]["numericValue"],
        "failing": failing,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--page", action="append", choices=sorted(PAGES.values()),
                        help="a page's path (repeatable); all six by default")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit(f"Lighthouse is not installed: {LIGHTHOUSE.relative_to(ROOT)} is missing.\n"
                 "Install the pinned version with: npm ci --prefix benchmarks/lighthouse")
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    pages = {name: path for name, path in PAGES.items() if not args.page or path in args.page}
    results = {}
    with built_and_served(Gzipped) as (base, _site):
        for name, path in pages.items():
            runs = [figures(lighthouse(f"{base}/{path}")) for _ in range(args.runs)]
            results[name] = runs
            print(f"measured {name}", flush=True)
    print(f"\nLighthouse 12.2.3, mobile, simulated throttling, median of {args.runs} runs a page")
    print(f"goals: performance >= {PERFORMANCE_GOAL}, accessibility {ACCESSIBILITY_GOAL}, "
          f"CLS <= {CLS_GOAL}")
    print(f"{'page':<24} {'perf':>4} {'a11y':>4} {'TBT ms':>7} {'LCP s':>6} {'CLS':>6} {'DOM':>6}"
          "  failing accessibility audits")
    for name, runs in results.items():
        median = {key: statistics.median(run[key] for run in runs)
                  for key in ("performance", "accessibility", "tbt", "lcp", "cls", "dom")}
        failing = sorted(set().union(*(run["failing"] for run in runs)))
        print(f"{name:<24} {median['performance']:>4.0f} {median['accessibility']:>4.0f} "
              f"{median['tbt']:>7.0f} {median['lcp']:>6.1f} {median['cls']:>6.3f} "
              f"{median['dom']:>6.0f}  {', '.join(failing) or '-'}")


if __name__ == "__main__":
    main()
