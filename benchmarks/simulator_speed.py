"""Benchmark (not a test): one full recomputation of the simulator in
headless chromium, on its own page and in the End-to-End page's path.

A recomputation is what a keystroke in the sentence field sets off: cut the
text into tokens, run the toy model with every intermediate, and rebuild
every table of the path, and let the browser lay them out. The script times
it in the page (performance.now) over many runs, for a short and a
full-length sentence and each heads choice, and prints the median; beside
it, the mean time of the forward pass alone (toygpt.run), which is below
the browser clock's 0.1 ms step. On End to End the tables go into the
path's panels (step 6 open), and the page's heads chooser picks the heads.

    .venv/bin/python benchmarks/simulator_speed.py [--runs 300]
"""
from __future__ import annotations

import argparse

from served_site import served_site

SENTENCES = ["the dog climbed the", "the cat climbed the roof. the"]

TIMING = """([text, heads, runs, tablesIn]) => {
  const field = document.getElementById('sim-text');
  const choice = document.querySelector(`input[name=sim-heads][value="${heads}"]`)
      || document.querySelector(`.heads-chooser input[value="${heads}"]`);
  choice.checked = true;
  choice.dispatchEvent(new Event('change', {bubbles: true}));
  field.value = text;
  const model = toygpt.load(window.__weights);
  const full = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    field.dispatchEvent(new Event('input'));      // the handler runs at once
    void document.body.offsetHeight;              // and the browser lays the tables out
    full.push(performance.now() - t0);
  }
  // the forward pass alone is below the clock's 0.1 ms step: time a batch
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) toygpt.run(model, text, heads, 1);
  const forward = (performance.now() - t0) / runs;
  const median = (a) => { a.sort((x, y) => x - y); return a[a.length >> 1]; };
  return {full: median(full), forward, tables: document.querySelectorAll(tablesIn).length};
}"""
PAGES = [("Simulator", "simulator/", "#live-simulator table"),
         ("End to End", "end-to-end/#step-6", ".path-live table")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    rows = []
    with served_site() as (base, site, browser):
        sizes = {name: (site / "javascripts" / name).stat().st_size
                 for name in ("toygpt.js", "toy-weights.json")}
        for name, path, tables_in in PAGES:
            page = browser.new_page()
            page.goto(f"{base}/{path}")
            page.wait_for_selector("#sim-next:not(:empty)")
            page.evaluate("fetch('../javascripts/toy-weights.json').then(r => r.json())"
                          ".then(w => { window.__weights = w; })")
            page.wait_for_function("window.__weights !== undefined")
            for text in SENTENCES:
                for heads in (1, 2, 4):
                    page.evaluate(TIMING, [text, heads, 20, tables_in])  # warm up the JIT
                    rows.append((name, text, heads, page.evaluate(TIMING, [text, heads, args.runs, tables_in])))
            page.close()
    print(f"The simulator, headless chromium, median of {args.runs} runs each")
    print(f"  toygpt.js {sizes['toygpt.js'] / 1024:.1f} KiB, "
          f"toy-weights.json {sizes['toy-weights.json'] / 1024:.1f} KiB (uncompressed)")
    print(f"  {'page':11} {'sentence':32} {'heads':>5} {'tables':>6} {'full recompute':>15} {'forward (mean)':>15}")
    for name, text, heads, r in rows:
        print(f"  {name:11} {text:32} {heads:5d} {r['tables']:6d} {r['full']:12.3f} ms {r['forward']:10.4f} ms")


if __name__ == "__main__":
    main()
