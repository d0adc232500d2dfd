"""Benchmark (not a test): nano-gpt's JavaScript training step in Node
against numpy's, one thread each, in CPU time.

The step of the page "Train it yourself" (train.js's batch and AdamW on
batched.js's lossAndGrads, float32 on kernels.wasm's products, batch 64;
with --js, an older folder without batched.js: backward.js's, float64,
text by text) runs in one Node process that Python drives one step at a
time; numpy's step (toycalc.model.train.train_step, float32, BLAS pinned
to one thread) runs in this process; the two take turns, which goes
first alternating. Each side's time is the CPU time its process spent on
the step (process.cpuUsage in Node, time.process_time here), not the
wall clock: on a machine shared with other work, a thread that waits for
a core is not counted, so the ratio says what the code costs. Goal
(issue 26): a browser step at most 3 × a numpy step; numpy's BLAS runs
on two threads, the page on two where the machine has more than two
cores (else one), so the ratio per thread is the one to hold to it.
benchmarks/nano_training_speed.py measures the page itself.

    .venv/bin/python benchmarks/train_step_node.py [--pairs 20]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toycalc.model import blas  # noqa: E402

blas.pin_kernel()

from threadpoolctl import threadpool_limits  # noqa: E402

from toycalc.book.nano_gpt.train import recipe  # noqa: E402
from toycalc.book.nano_example import Run  # noqa: E402
from toycalc.model import nanogpt, train  # noqa: E402

GOAL = 3.0
JS = Path(__file__).resolve().parent.parent / "docs" / "javascripts"

# one step per line read; answers the CPU milliseconds it took and its loss
STEPPER = r"""
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
// an ES module's exports, or another version's CommonJS module.exports (its default)
const js = async (n) => {
  const m = await import(pathToFileURL(path.join(process.argv[1], `${n}.js`)).href);
  return m.default || m;
};
const g = (await js("gpt")), tr = (await js("train"));
const b = await js(fs.existsSync(path.join(process.argv[1], "batched.js")) ? "batched" : "backward");
let recipe = null, next, model, params, opt;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!recipe) {
    recipe = JSON.parse(line);
    next = g.rng(recipe.seed); model = tr.initModel(recipe, next);
    params = g.parameters(model); opt = new tr.AdamW(params, recipe.optimizer);
    return console.log("{}");
  }
  const c0 = process.cpuUsage();
  const { ids, targets } = tr.batch(next, recipe.batch, model.vocabSize, recipe.length);
  const { loss, grads } = b.lossAndGrads(model, ids, targets);
  opt.step(params, grads);
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({ ms: (c.user + c.system) / 1000, loss }));
});
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=20, help="Node and numpy steps taken in turn")
    parser.add_argument("--js", type=Path, default=JS, help="the folder of gpt.js, batched.js (or backward.js), "
                        "train.js (another version's, to compare)")
    args = parser.parse_args()
    node = shutil.which("node") or "/usr/bin/node"
    proc = subprocess.Popen([node, "--input-type=module", "-e", STEPPER, str(args.js)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def js_step() -> float:
        proc.stdin.write("step\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())["ms"]

    proc.stdin.write(json.dumps(recipe(Run(nanogpt.load()))) + "\n")
    proc.stdin.flush()
    proc.stdout.readline()
    params, opt, data = train.start()

    def py_step() -> float:
        c0 = time.process_time()
        train.train_step(params, opt, data)
        return 1000 * (time.process_time() - c0)

    js_ms, py_ms, ratios = [], [], []
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(3):                       # warm up both (Node's compiler, numpy's buffers)
            js_step(); py_step()
        for k in range(args.pairs):
            if k % 2:
                n = py_step(); j = js_step()
            else:
                j = js_step(); n = py_step()
            js_ms.append(j); py_ms.append(n); ratios.append(j / n)
    proc.stdin.close()
    proc.wait()
    r = statistics.median(ratios)
    print(f"nano-gpt training step (batch {train.BATCH}), one thread each, CPU time, median of {args.pairs} "
          f"in turn ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}):")
    print(f"  JavaScript (Node {subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()}) "
          f"{statistics.median(js_ms):.0f} ms, numpy {statistics.median(py_ms):.1f} ms: "
          f"ratio {r:.1f} × (goal ≤ {GOAL:g} ×) {'ok' if r <= GOAL else 'over'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
