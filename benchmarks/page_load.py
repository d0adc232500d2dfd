"""Benchmark (not a test): the End-to-End page in headless chromium.

Prints the bytes transferred, the number of requests and the time until
MathJax has finished typesetting, over a few cold loads.

    .venv/bin/python benchmarks/page_load.py [--runs 5]
"""
from __future__ import annotations

import argparse
import statistics
import time

from served_site import served_site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times, sizes, counts = [], [], []
    with served_site() as (base, site, browser):
        html = (site / "end-to-end" / "index.html").stat().st_size
        for _ in range(args.runs):
            context = browser.new_context()  # cold: empty cache
            page = context.new_page()
            start = time.perf_counter()
            page.goto(f"{base}/end-to-end/")
            page.wait_for_selector("body[data-mathjax=done]", timeout=60000)
            times.append(time.perf_counter() - start)
            entries = page.evaluate(
                "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
                ".map(e => e.transferSize)")
            sizes.append(sum(entries))
            counts.append(len(entries))
            context.close()
    print(f"End-to-End page, {args.runs} cold loads in headless chromium")
    print(f"  HTML of the page:            {html / 1024:8.1f} KiB")
    print(f"  bytes transferred:           {statistics.median(sizes) / 1024:8.1f} KiB (median)")
    print(f"  requests:                    {statistics.median(counts):8.0f}")
    print(f"  until MathJax has typeset:   {statistics.median(times) * 1000:8.0f} ms (median; "
          f"min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})")


if __name__ == "__main__":
    main()
