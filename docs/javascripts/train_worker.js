// train_worker.js: a Web Worker (a module): nano-gpt's trainer on "Train it
// yourself" (docs/nano-gpt/train.md, wired by train_page.js), so that the
// page stays responsive while nano-gpt trains. It runs train.js's batches
// and AdamW on batched.js's loss and gradients (float32, the whole batch
// at once, its matrix products in kernels.wasm, which it fetches first):
// one training step at a time (a "pause" gets through between two),
// and tells the page after each step (its loss), every few steps (the last
// block's attention on the chapter's example) and at each check (how many
// of the 729 inputs greedy decoding sorts). At the end it sends the weights
// as a safetensors file (float16, as the book ships them) and the record that
// toycalc's build reads beside it.
// Two threads, as numpy's BLAS uses two, on a machine of more than two
// cores: the worker starts this same file again as its helper
// (train_worker.js?helper), which computes the gradients of half of each
// batch, and checks half of the inputs, while the worker does the other
// half; the halves add up to the whole batch's (batched.lossAndGrads with
// the batch's count). On two cores (or without nested workers) the worker
// does it all and leaves the other core to the page, whose frames then
// stay short (benchmarks/nano_training_speed.py: on this book's 2-core
// machine, one thread reached 729/729 as fast as two). The check every
// few steps runs batched.js's forward pass (float32, quick); a count of
// 729, and the last one, is confirmed by gpt.js's (float64, as the build
// counts), which the record keeps.
import * as gpt from "./gpt.js";
import * as train from "./train.js";
import * as batched from "./batched.js";

const loaded = batched.ready();

// ------------------------------------------------------------ the helper

let model = null;

function help(m) {
  if (m.type === "init") { model = train.initModel(m.recipe, gpt.rng(0)); return; }
  train.unflatten(gpt.parameters(model), m.weights);
  if (m.type === "grads") {
    const { loss, grads } = batched.lossAndGrads(model, m.ids, m.targets, m.count);
    const flat = train.flatten(grads);
    postMessage({ loss, grads: flat }, [flat.buffer]);
  } else if (m.type === "evaluate") {
    postMessage((m.exact ? train : batched).evaluate(model, m.length, 1, 2));
  }
}

// ------------------------------------------------------------ the worker

let run = null;

/** A fresh run from the recipe (the build's, with the reader's seed and
 *  step limit), on `threads` threads (1 or 2; by default 2 on a machine of
 *  more than two cores, else 1). */
function start(recipe, seed, limit, threads) {
  threads = threads || ((self.navigator.hardwareConcurrency || 1) > 2 ? 2 : 1);
  const next = gpt.rng(seed);
  const model = train.initModel(recipe, next);
  const params = gpt.parameters(model);
  const r = { recipe, seed, limit, next, model, params, opt: new train.AdamW(params, recipe.optimizer),
              losses: [], sorted: 0, lossOn729: null, ran: 0, since: null, busy: 0, paused: false,
              helper: null, answer: null, shipped: train.initModel(recipe, gpt.rng(0)) };
  if (typeof Worker === "function" && threads === 2) {
    r.helper = new Worker(new URL("train_worker.js?helper", import.meta.url), { type: "module" });
    r.helper.onmessage = (event) => r.answer(event.data);
    r.helper.postMessage({ type: "init", recipe });
  }
  return r;
}

/** Ask the helper (one question at a time), with the current weights (or `weights`). */
function ask(r, message, weights) {
  return new Promise((resolve) => {
    r.answer = resolve;
    r.helper.postMessage({ ...message, weights: weights || train.flatten(r.params) });
  });
}

/** The last block's attention weights on the example, head by head. */
function attention(r) {
  const tr = gpt.forward(r.model, r.recipe.example);
  return tr.blocks[tr.blocks.length - 1].weights.map((head) => head.map((row) => Array.from(row)));
}

/** How many inputs greedy decoding sorts, and the loss on all of them, with
 *  the weights rounded to float16 as the download ships them (train.train's
 *  check): quickly in float32 (batched.js), or `exact`ly as the build
 *  computes, in float64 (gpt.js), which a run's end and its record take. */
async function check(r, exact) {
  const t0 = performance.now(), length = r.recipe.length;
  const shipped = train.flatten(r.params).map(train.half);
  train.unflatten(gpt.parameters(r.shipped), shipped);
  const other = r.helper ? ask(r, { type: "evaluate", length, exact }, shipped) : null;
  const mine = (exact ? train : batched).evaluate(r.shipped, length, 0, r.helper ? 2 : 1);
  const theirs = other ? await other : { sorted: 0, lossSum: 0, n: 0 };
  r.sorted = mine.sorted + theirs.sorted; r.lossOn729 = (mine.lossSum + theirs.lossSum) / (mine.n + theirs.n);
  r.busy += performance.now() - t0;
  r.exactAt = exact ? r.losses.length : -1;
  postMessage({ type: "check", step: r.losses.length, sorted: r.sorted, loss: r.lossOn729 });
}

/** One training step: a batch, its loss and gradients (half of it on the helper), AdamW. */
async function trainStep(r) {
  const t0 = performance.now();
  const { ids, targets } = train.batch(r.next, r.recipe.batch, r.model.vocabSize, r.recipe.length);
  const count = train.kept(targets);
  const half = r.helper ? ids.length >> 1 : ids.length;
  const other = r.helper ? ask(r, { type: "grads", ids: ids.slice(half), targets: targets.slice(half), count }) : null;
  const mine = batched.lossAndGrads(r.model, ids.slice(0, half), targets.slice(0, half), count);
  let loss = mine.loss;
  if (other) {
    const theirs = await other, flat = train.flatten(mine.grads);
    for (let i = 0; i < flat.length; i++) flat[i] += theirs.grads[i];
    train.unflatten(mine.grads, flat);
    loss += theirs.loss;
  }
  r.opt.step(r.params, mine.grads);
  r.losses.push(loss);
  const ms = performance.now() - t0;
  r.busy += ms;
  return { loss, ms };
}

/** The run's running time so far, in ms: the clock runs while the loop
 *  does, and stops while the run is paused (the record's "seconds"). */
function running(r) {
  return r.ran + (r.since === null ? 0 : performance.now() - r.since);
}

/** Steps until 729/729, the step limit, a pause or a reset; one at a time
 *  (a Resume while a step is still under way does not start a second loop). */
async function loop(r) {
  r.looping = true;
  r.since = performance.now();
  while (run === r && !r.paused) {
    const { loss, ms } = await trainStep(r);
    const n = r.losses.length;
    postMessage({ type: "step", step: n, loss, ms, attention: n % r.recipe.draw_every === 0 ? attention(r) : null });
    if (n % r.recipe.every === 0 || n === r.limit) {
      await check(r, n >= r.limit);                                   // float32 until the last
      if (r.sorted === 729 && r.exactAt !== n) await check(r, true);   // confirmed as the build counts
    }
    if (r.sorted === 729 || n >= r.limit) {
      await finish(r);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));   // a "pause" gets through here
  }
  r.ran = running(r);
  r.since = null;
  r.looping = false;
  if (run === r && r.paused) postMessage({ type: "paused", step: r.losses.length });
}

/** The record, as train.train writes it (nanogpt.json), for the browser's run. */
function record(r) {
  const n = r.losses.length, every = Math.min(r.recipe.every, n), rec = r.recipe;
  const last = r.losses.slice(-every), round = (v) => Math.round(v * 1e8) / 1e8;
  return {
    what: "nano-gpt, the letter sorter, trained in the browser (the page Train it yourself)",
    config: rec.config, parameters: rec.parameters, seed: r.seed, batch: rec.batch,
    optimizer: { name: "AdamW", ...rec.optimizer }, dtype: "float32", stored_as: "float16",
    weights_between_steps: "float32",
    random_numbers: "the browser's seeded generator (mulberry32), not numpy's: another run than python -m toycalc train --seed",
    steps: n, final_loss: round(last.reduce((a, b) => a + b, 0) / last.length),
    final_loss_means: `mean training loss of the last ${every} steps`,
    loss_on_729: round(r.lossOn729), loss_curve: r.losses.map(round), accuracy_on_729: r.sorted,
    seconds: Math.round(running(r) / 100) / 10,                      // running time: a pause does not count
    made_with: { browser: self.navigator.userAgent, threads: r.helper ? 2 : 1, ms_per_step: Math.round(10 * r.busy / n) / 10 },
  };
}

async function finish(r) {
  if (r.exactAt !== r.losses.length) await check(r, true);         // the count at the very end, in float64
  const weights = train.weightsFile(r.shipped);
  postMessage({ type: "done", record: record(r), weights, attention: attention(r) }, [weights.buffer]);
}

function work(m) {
  if (m.type === "start") {
    run = start(m.recipe, m.seed, m.limit, m.threads);
    postMessage({ type: "started", attention: attention(run), threads: run.helper ? 2 : 1 });
    if (!m.stepwise) loop(run);
  } else if (m.type === "pause" && run) {
    run.paused = true;
  } else if (m.type === "resume" && run && run.paused) {
    run.paused = false;
    if (!run.looping) loop(run);
  } else if (m.type === "one" && run) {            // benchmarks/nano_training_speed.py: one step, timed
    trainStep(run).then(({ ms, loss }) => postMessage({ type: "one", ms, loss }));
  }
}

// every message once kernels.wasm is in, in the order they came; without it, a word to the page, once
addEventListener("message", (event) => loaded.then(() => (self.location.search.includes("helper") ? help : work)(event.data), () => {}));
loaded.catch((error) => postMessage({ type: "error", message: `The trainer could not start: ${error.message}` }));
