"""The writer in the browser: docs/javascripts/writer_pass.js (its forward pass
on the bytes the build publishes) against toycalc, in Node: the same
next-character probabilities on three held-out lines (to 1e-5), the same
top-k, the same 200 characters for a seed as the chapter's sample; and
its KV cache against no cache: the same characters, the same
probabilities, within the context and once the window slides; and two
threads (the helper's first half of each full window) against one, to the bit."""
from __future__ import annotations

import numpy as np
from safetensors.numpy import load
import pytest

from nodejs import run_json
from toycalc.book.writer import WriterRun
from toycalc.book.writer.live import setup
from toycalc.book.writer.shared import SAMPLE_SEED, top_k, write
from toycalc.model import gpt, writer

RUNNER = r"""
const w = await js("writer_pass"), page = await js("writer");
const bytes = Buffer.from(job.bytes, "base64");
const model = w.modelFromBytes(job.setup, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
const out = {
  next: job.lines.map((ids) => w.next(model, ids, 1)),
  hot: job.lines.map((ids) => w.next(model, ids, 0.5)),
  topk: job.topk.map(([p, k]) => w.topK(p, k)),
  outside: job.texts.map((t) => page.outside(t, job.setup.vocab)),
  written: (await w.write(model, job.prompt, job.n, job.temperature, job.k, job.seed)).ids,
  written_k: (await w.write(model, job.prompt, 50, 1.0, 5, 7)).ids,
  cached: await w.write(model, job.prompt, job.n, job.temperature, job.k, job.seed),
  uncached: await w.write(model, job.prompt, job.n, job.temperature, job.k, job.seed, null, null),
};
// two threads in one: the helper's side (writer_worker.js's) runs here a
// turn after each message (a copy of it), on a model of its own (its own rows of
// kernels.wasm's memory, as a Worker's would be)
const theirs = w.kvCache(w.modelFromBytes(job.setup, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
let halves = 0;
const helper = w.helper(model, (message) => {      // a copy, as postMessage sends
  const sent = structuredClone(message);
  setImmediate(() => side(sent));
});
const side = w.helperSide(theirs, (message) => { halves++; helper.receive(message); });
const steps = (helped, prompt = job.prompt, stop = job.n) => {
  const weights = [];
  return w.write(model, prompt, job.n, job.temperature, job.k, job.seed,
                    (s, id, q, wt) => { weights.push(Array.from(wt)); return s + 1 < stop; }, undefined, helped)
    .then((r) => ({ ...r, weights }));
};
out.one = await steps(null);
out.two = await steps(helper);
out.asked = halves;
// the same helper again: stopped after 40 characters, then a text longer than the context
out.stopped = await steps(helper, job.prompt, 40);
const long = job.lines.flat();
out.long = { one: await steps(null, long), two: await steps(helper, long) };
// one cache, read by a line, then by the next with the first one's start: only the new rows computed
const kv = w.kvCache(model), [a, b] = job.lines, shared = a.slice(0, 10).concat(b.slice(10));
w.nextWithWeights(model, a, 1, kv);
const again = w.nextWithWeights(model, shared, 1, kv);
out.shared = { cached: again.p, whole: w.next(model, shared, 1), held: kv.ids };
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def run():
    return WriterRun(writer.load())


@pytest.fixture(scope="module")
def node(run):
    import base64
    lines = [writer.encode(line) for line in run.lines[:3]]
    rng = np.random.default_rng(0)
    p = rng.random(65)
    p[3] = p[9]                                    # a tie
    p /= p.sum()
    job = {"bytes": base64.b64encode(run.published).decode(), "setup": setup(run),
           "lines": lines, "topk": [[p.tolist(), 5], [p.tolist(), 0], [p.tolist(), 64]],
           "texts": ["To be", "To be\u2014or", "caf\u00e9 au lait", ""],
           "prompt": writer.encode(run.prompt), "n": 200, "temperature": 0.8, "k": 0, "seed": SAMPLE_SEED,
}
    return lines, p, run_json(RUNNER, job, timeout=600)


def test_the_published_bytes_are_the_stored_weights(run):
    data = run.published
    assert 2 * 818_176 < len(data) == setup(run)["bytes"] < 2 * 818_176 + 10_000 < 2_000_000
    arrays = load(data)                 # the safetensors package reads what the browser reads
    assert {a.dtype for a in arrays.values()} == {np.dtype(np.float16)}
    for name, a in arrays.items():
        np.testing.assert_array_equal(a.astype(np.float64), run.params[name])


def test_the_next_character_is_toycalcs_on_three_held_out_lines(run, node):
    lines, _, out = node
    assert len(lines) == 3 and len(set(map(tuple, lines))) == 3
    for ids, js, js_hot in zip(lines, out["next"], out["hot"]):
        want = gpt.forward(run.params, run.cfg, np.array(ids))["p"][-1]
        hot = gpt.forward(run.params, run.cfg, np.array(ids), temperature=0.5)["p"][-1]
        np.testing.assert_allclose(js, want, rtol=0, atol=1e-5)
        np.testing.assert_allclose(np.float32(js), np.float32(want), rtol=0, atol=1e-5)
        np.testing.assert_allclose(js_hot, hot, rtol=0, atol=1e-5)


def test_top_k_is_toycalcs_to_the_bit(node):
    _, p, out = node
    for (k, js) in zip([5, 0, 64], out["topk"]):
        assert js == top_k(p, k)
    assert sum(v > 0 for v in out["topk"][0]) == 5


def test_a_character_outside_the_vocabulary_is_named_with_its_place(node):
    *_, out = node
    assert out["outside"] == [None, {"at": 6, "ch": "\u2014"}, {"at": 4, "ch": "\u00e9"}, None]


def test_a_seed_writes_the_chapters_sample_in_the_browser(run, node):
    *_, out = node
    assert writer.decode(out["written"]) == run.sample_text(0.8)
    new, _ = write(run.params, writer.encode(run.prompt), 50, 1.0, 5, 7)
    assert out["written_k"] == new


def test_the_kv_cache_writes_what_the_whole_window_writes(run, node):
    """write() with its cache against write() computing every window
    whole: the same 200 characters and each character's distribution the
    same to 1e-5 (the prompt and 200 characters pass the 64 of the
    context: the window slides, and the cache is made again)."""
    *_, out = node
    cached, whole = out["cached"], out["uncached"]
    assert len(writer.encode(run.prompt)) + len(cached["ids"]) > run.cfg.n_ctx
    assert cached["ids"] == whole["ids"] == out["written"]
    np.testing.assert_allclose(cached["dists"], whole["dists"], rtol=0, atol=1e-5)
    # a text that shares its start with the one the cache holds: its rows
    # from there on computed, the same p as the whole window's
    np.testing.assert_allclose(out["shared"]["cached"], out["shared"]["whole"], rtol=0, atol=1e-5)
    lines = [writer.encode(line) for line in run.lines[:2]]
    shared = lines[0][:10] + lines[1][10:]
    assert out["shared"]["held"] == shared
    want = gpt.forward(run.params, run.cfg, np.array(shared))["p"][-1]
    np.testing.assert_allclose(out["shared"]["cached"], want, rtol=0, atol=1e-5)


def test_two_threads_write_what_one_writes(run, node):
    """write() with a helper (writer_worker.js's side, helperSide, run here)
    against write() alone: once the window is full, each window's first
    half computed ahead by the helper and its later half here, and the
    same numbers to the bit: every character, its distribution and the
    attention weights the page shows for it."""
    lines, _, out = node
    one, two = out["one"], out["two"]
    full = len(writer.encode(run.prompt)) + 200 - run.cfg.n_ctx     # the steps whose window is full
    assert out["asked"] == full > 100
    assert one["ids"] == two["ids"] == out["written"]
    assert one["dists"] == two["dists"]
    assert one["weights"] == two["weights"] and len(two["weights"]) == 200
    # the helper again, after a writing stopped early, from a text longer than the context
    assert out["stopped"]["ids"] == one["ids"][:40]
    long_one, long_two = out["long"]["one"], out["long"]["two"]
    assert sum(map(len, lines)) > run.cfg.n_ctx
    assert long_one["ids"] == long_two["ids"] and long_one["dists"] == long_two["dists"]
    assert long_one["weights"] == long_two["weights"]
