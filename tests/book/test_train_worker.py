"""nano-gpt's trainer, train_worker.js (the page "Train it yourself"), run
in Node as the page's Web Worker: its record's "seconds" is the run's
running time, without the time it spent paused (#65, item 5). The worker's
clock, performance.now, is the test's: it moves a second at each step the
worker reports and a million seconds while the run is paused, so the
record says exactly what it counted."""
from __future__ import annotations

from nodejs import run_json
from toycalc.book.nano_example import Run
from toycalc.book.nano_gpt.train import recipe
from toycalc.model import nanogpt

# The worker's world, as a module Web Worker has it: self, postMessage,
# its messages, fetch (for kernels.wasm, read from the file), the clock.
RUNNER = r"""
const clock = { now: 0 };
performance.now = () => clock.now;
const listeners = [], told = [], waiting = [];
Object.assign(globalThis, {
  self: globalThis,
  location: { search: "" },
  addEventListener: (type, listener) => listeners.push(listener),
  postMessage: (message) => {
    if (message.type === "step") clock.now += 1000;            // each step: a second of running
    told.push(message);
    for (const w of waiting.splice(0)) w();
  },
  fetch: async (url) => ({ ok: true, arrayBuffer: async () => fs.readFileSync(url) }),
});
if (!globalThis.navigator) globalThis.navigator = { hardwareConcurrency: 1, userAgent: "Node" };
const send = (data) => listeners.forEach((listener) => listener({ data }));
const until = async (type) => {
  for (;;) {
    const found = told.find((m) => m.type === type || m.type === "done" || m.type === "error");
    if (found) { told.splice(told.indexOf(found), 1); return found; }
    await new Promise((resolve) => waiting.push(resolve));
  }
};
await js("train_worker");
send({ type: "start", recipe: job.recipe, seed: job.recipe.seed, limit: job.limit, threads: 1 });
await until("started");
send({ type: "pause" });
const paused = await until("paused");
clock.now += 1e9;                                                  // paused: a million seconds
send({ type: "resume" });
const done = await until("done");
process.stdout.write(JSON.stringify({ paused: paused.type === "paused" ? paused.step : null,
                                      seconds: done.record && done.record.seconds, steps: done.record && done.record.steps }));
"""


def test_a_pause_does_not_count_in_the_record_s_seconds():
    limit = 4
    out = run_json(RUNNER, {"recipe": recipe(Run(nanogpt.load())), "limit": limit})
    assert out["paused"] is not None and 1 <= out["paused"] < limit, out      # paused mid-run, then resumed
    assert out["steps"] == limit
    # a second for each of its steps; the million seconds paused are not counted
    assert out["seconds"] == limit, out
