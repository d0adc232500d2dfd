"""Benchmark (not a test): the End-to-End page in headless chromium.

Two figures, each with its goal beside it, for the page opened at
#step-6 and at the top:

- the bytes of the page and of everything it loads, as a static host
  serves them (each file gzipped; woff fonts barely shrink), counted once
  the page is idle after opening; goal <= 400 KiB (issues 23, 24);
- when the formulas on the first screen are typeset (every formula in the
  viewport holds MathJax's output, the page has loaded and its fonts too),
  against when the same page has loaded with MathJax left out (its files
  answered empty); goal <= 2 x. Since the formulas come drawn in the page
  (toycalc/site/typeset.py), MathJax's part is the formulas' stylesheet. The two sides alternate, a cold browser
  context each, and the ratio is of the medians.

    .venv/bin/python benchmarks/page_load.py [--runs 7]
"""
from __future__ import annotations

import argparse
import gzip
import statistics
from pathlib import Path
from urllib.parse import unquote, urlparse

from served_site import served_site

KIB_GOAL, RATIO_GOAL = 400, 2.0
OPENINGS = ["#step-6", ""]

# In the page from its first byte: on each frame, is every formula in the
# viewport typeset (a mjx-container that is not a lazy placeholder), the
# document complete and every font that layout asked for loaded? The first
# frame where all hold is the time, in ms since navigation started.
FIRST_SCREEN = """
window.__firstScreen = null;
(function poll() {
  const ready = () => {
    if (document.readyState !== 'complete') return false;
    const math = window.__withoutMathJax ? [] : [...document.querySelectorAll('.arithmatex')];
    const onScreen = math.filter(el => {
      const r = el.getBoundingClientRect();       // forces layout, so fonts get asked for
      return el.checkVisibility() && r.bottom > 0 && r.top < innerHeight;
    });
    const typeset = onScreen.every(el => el.querySelector('mjx-container')
                                         && !el.querySelector('mjx-lazy'));
    return typeset && document.fonts.status === 'loaded';
  };
  if (ready()) { window.__firstScreen = performance.now(); return; }
  requestAnimationFrame(poll);
})();
"""


def gzipped(site: Path, urls: set[str], base: str) -> tuple[int, int]:
    """(raw, gzipped) bytes of the site's files behind these URLs."""
    raw = packed = 0
    for url in urls:
        path = unquote(urlparse(url).path).lstrip("/")
        file = site / path
        if file.is_dir() or path == "":
            file = file / "index.html"
        data = file.read_bytes()
        raw += len(data)
        packed += len(gzip.compress(data, 6))
    return raw, packed


def open_page(browser, url: str, without_mathjax: bool):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requested: set[str] = set()
    base = url.split("/end-to-end/")[0]

    def route(r):
        if not r.request.url.startswith(base):
            r.abort()                       # nothing may leave the machine
        elif without_mathjax and "/javascripts/mathjax/" in r.request.url:
            r.fulfill(status=200, body="", content_type="text/javascript")
        else:
            requested.add(r.request.url.split("#")[0])
            r.continue_()
    context.route("**/*", route)
    if without_mathjax:
        context.add_init_script("window.__withoutMathJax = true;")
    context.add_init_script(FIRST_SCREEN)
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("window.__firstScreen !== null", timeout=60000)
    return context, page, requested


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    results = {}
    with served_site() as (base, site, browser):
        for opening in OPENINGS:
            url = f"{base}/end-to-end/{opening}"
            times = {True: [], False: []}
            loaded = set()
            for run in range(args.runs):
                # alternate which side goes first, so a change of load hits both
                for without in ((False, True) if run % 2 == 0 else (True, False)):
                    context, page, requested = open_page(browser, url, without)
                    times[without].append(page.evaluate("window.__firstScreen"))
                    if not without and run == 0:
                        page.wait_for_load_state("networkidle")
                        loaded = set(requested)
                    context.close()
            results[opening] = (gzipped(site, loaded, base), len(loaded), times)
    print(f"End-to-End page, headless chromium 1280x900, {args.runs} cold loads per side")
    for opening, ((raw, packed), count, times) in results.items():
        with_mj, without = statistics.median(times[False]), statistics.median(times[True])
        print(f"opened at {opening or 'the top'}:")
        print(f"  page and all it loads:        {packed / 1024:7.1f} KiB gzip "
              f"({raw / 1024:.0f} KiB raw, {count} files)   goal <= {KIB_GOAL} KiB")
        print(f"  first-screen formulas typeset: {with_mj:6.0f} ms (median)")
        print(f"  same page without MathJax:     {without:6.0f} ms (median)")
        print(f"  ratio:                         {with_mj / without:6.2f} x"
              f"                          goal <= {RATIO_GOAL:.0f} x")


if __name__ == "__main__":
    main()
