"""Benchmark (not a test): the End-to-End page in headless chromium.

Prints the bytes transferred, the number of requests and the time until
MathJax has finished typesetting, over a few cold loads.

    .venv/bin/python benchmarks/page_load.py [--runs 5]
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as site:
        env = dict(os.environ, TOYCALC_SITE_URL=f"http://127.0.0.1:{port}/", NO_MKDOCS_2_WARNING="1")
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", site],
                       cwd=ROOT, env=env, check=True)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                                functools.partial(Quiet, directory=site))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        html = Path(site, "end-to-end", "index.html").stat().st_size
        times, sizes, counts = [], [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for _ in range(args.runs):
                context = browser.new_context()  # cold: empty cache
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"http://127.0.0.1:{port}/end-to-end/")
                page.wait_for_selector("body[data-mathjax=done]", timeout=60000)
                times.append(time.perf_counter() - start)
                entries = page.evaluate(
                    "performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
                    ".map(e => e.transferSize)")
                sizes.append(sum(entries))
                counts.append(len(entries))
                context.close()
            browser.close()
        httpd.shutdown()
    print(f"End-to-End page, {args.runs} cold loads in headless chromium")
    print(f"  HTML of the page:            {html / 1024:8.1f} KiB")
    print(f"  bytes transferred:           {statistics.median(sizes) / 1024:8.1f} KiB (median)")
    print(f"  requests:                    {statistics.median(counts):8.0f}")
    print(f"  until MathJax has typeset:   {statistics.median(times) * 1000:8.0f} ms (median; "
          f"min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})")


if __name__ == "__main__":
    main()
