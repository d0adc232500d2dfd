"""Benchmark (not a test): the weight of a nano-gpt page with the model.

Loads the chapter's Output page in headless chromium, sorts six letters
(which fetches nano-gpt's weights) and opens a matrix in full, then sums
the gzip size (level 9, as a server would send it) of everything the page
asked for: the HTML, the stylesheets, the scripts and the weights. MathJax
is counted apart: it comes for the formulas of the reader's letters (the
book's own come drawn in the page). The issue's goal
is 300 KiB for the page with the model. The weights go out as float16
(training stores them so: see toycalc/model/train.py); beside them, what
they would weigh as float32, and what a byte shuffle would
make of them (each number's bytes split into planes, which gzip packs
better), measured, not guessed.

    .venv/bin/python benchmarks/nano_page_weight.py [--page nano-gpt/output/]
"""
from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from served_site import served_site

GOAL_KIB = 300


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def in_goal(name: str) -> bool:
    """What the goal counts: the HTML, the scripts and the weights (not
    the stylesheets, nor Material's search index and worker)."""
    file = name.split()[0]
    return name.startswith("the page") or (file.endswith((".js", ".json", ".safetensors")) and "search" not in file)


def shuffle_bytes(raw: bytes, width: int) -> bytes:
    """Byte k of every number together, for k = 0 .. width - 1."""
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, width).T.tobytes()


def numbers_of(weights: bytes) -> tuple[bytes, bytes, int]:
    """A safetensors file's header (with its length) and its numbers' bytes, and the width of one number."""
    n = int.from_bytes(weights[:8], "little")
    widths = {e["dtype"] for k, e in json.loads(weights[8:8 + n]).items() if k != "__metadata__"}
    return weights[:8 + n], weights[8 + n:], 2 if widths == {"F16"} else 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", default="nano-gpt/output/")
    args = parser.parse_args()
    with served_site() as (base, site, browser):
        page = browser.new_page()
        page.goto(f"{base}/{args.page}")
        page.wait_for_selector("body[data-mathjax=done]", timeout=60000)
        at_load = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        if page.locator("[data-nano-sort] input").count():
            page.locator("[data-nano-sort] input").fill("cbabbc")
            page.locator("[data-nano-sort] input").press("Enter")
            page.wait_for_selector(".nano-answer-letters")
        if page.locator(".nano-full button").count():
            page.locator(".nano-full button").first.click()
            page.wait_for_selector(".nano-full button[aria-expanded=true]")
        urls = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        page.close()

        def local(url: str) -> Path:
            path = urlparse(url).path.lstrip("/")
            return site / (path + "index.html" if path.endswith("/") or not path else path)

        rows, mathjax, lazy = [("the page's HTML", gz(local(f"{base}/{args.page}").read_bytes()))], 0, 0
        for url in dict.fromkeys(urls):
            file = local(url)
            if not file.is_file():
                continue
            size = gz(file.read_bytes())
            if "/mathjax/" in url:
                mathjax += size
                continue
            rows.append((file.relative_to(site).as_posix() + ("" if url in at_load else "  (on first use)"), size))
            if url not in at_load:
                lazy += size
        weights = (site / "javascripts" / "nanogpt.safetensors").read_bytes()
    total = sum(s for _, s in rows)
    counted = sum(s for name, s in rows if in_goal(name))
    print(f"{args.page} with nano-gpt loaded, gzip -9 of each file (KiB):")
    for name, size in rows:
        print(f"  {size / 1024:8.1f}  {name}")
    verdict = lambda kib: (f"under by {GOAL_KIB - kib:.1f}" if kib <= GOAL_KIB  # noqa: E731
                           else f"OVER by {kib - GOAL_KIB:.1f}")
    print(f"  {counted / 1024:8.1f}  the HTML, the scripts and the weights: goal {GOAL_KIB}, "
          f"{verdict(counted / 1024)}")
    print(f"  {total / 1024:8.1f}  everything the page asked for: {verdict(total / 1024)}")
    print(f"  {(total - lazy) / 1024:8.1f}  of it before the reader asks for the model")
    print(f"  {mathjax / 1024:8.1f}  MathJax, apart (for the formulas of the reader's letters)")
    header, raw, width = numbers_of(weights)
    now, then = gz(weights), gz(header + shuffle_bytes(raw, width))
    as_f32 = np.frombuffer(raw, dtype="<f2" if width == 2 else "<f4").astype("<f4").tobytes()
    print(f"The weights ({len(raw) // width:,} numbers, published as {'float16' if width == 2 else 'float32'}): "
          f"{now / 1024:.1f} KiB gzipped as published (safetensors);")
    for what, size in [("the same, byte-shuffled", then),
                       ("as float32 bytes", gz(as_f32)),
                       ("as float32, byte-shuffled", gz(shuffle_bytes(as_f32, 4)))]:
        print(f"  {size / 1024:8.1f}  {what}: the HTML, scripts and weights would be "
              f"{(counted - now + size) / 1024:.1f} KiB ({verdict((counted - now + size) / 1024)})")


if __name__ == "__main__":
    main()
