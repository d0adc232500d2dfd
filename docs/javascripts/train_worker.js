// train_worker.js: a page helper: the Web Worker of the page "Train it
// yourself" (docs/nano-gpt/train.md, wired by train_page.js), so that the
// page stays responsive while nano-gpt trains. It runs train.js on gpt.js:
// one training step per task (so that "pause" and "stop" get through between
// steps), and tells the page after each step (its loss), every few steps
// (the last block's attention on the chapter's example) and at each check
// (how many of the 729 inputs greedy decoding sorts). At the end it sends
// the weights as an .npz and the record that toycalc's build reads beside it.
/* global importScripts */
"use strict";
importScripts("gpt.js", "train.js");
const { gpt, train } = self.toycalc;

let run = null;

/** A fresh run from the recipe (the build's, with the reader's seed and step limit). */
function start(recipe, seed, limit) {
  const next = gpt.rng(seed);
  const model = train.initModel(recipe, next);
  const params = gpt.parameters(model);
  return { recipe, seed, limit, next, model, params, opt: new train.AdamW(params, recipe.optimizer),
           losses: [], sorted: 0, lossOn729: null, started: performance.now(), busy: 0, paused: false };
}

/** The last block's attention weights on the example, head by head. */
function attention(r) {
  const tr = gpt.forward(r.model, r.recipe.example);
  return tr.blocks[tr.blocks.length - 1].weights.map((head) => head.map((row) => Array.from(row)));
}

function check(r) {
  const t0 = performance.now(), out = train.evaluate(r.model, r.recipe.length);
  r.sorted = out.sorted; r.lossOn729 = out.loss;
  r.busy += performance.now() - t0;
  postMessage({ type: "check", step: r.losses.length, sorted: out.sorted, loss: out.loss });
}

function step(r) {
  if (run !== r || r.paused) return;
  const t0 = performance.now();
  const { ids, targets } = train.batch(r.next, r.recipe.batch, r.model.vocabSize, r.recipe.length);
  const { loss, grads } = gpt.lossAndGrads(r.model, ids, targets);
  r.opt.step(r.params, grads);
  r.losses.push(loss);
  r.busy += performance.now() - t0;
  const n = r.losses.length;
  postMessage({ type: "step", step: n, loss, ms: performance.now() - t0,
                attention: n % r.recipe.draw_every === 0 ? attention(r) : null });
  if (n % r.recipe.every === 0 || n === r.limit) check(r);
  if (r.sorted === 729 || n >= r.limit) return finish(r);
  setTimeout(() => step(r), 0);
}

/** The record, as train.train writes it (nanogpt.json), for the browser's run. */
function record(r) {
  const n = r.losses.length, every = Math.min(r.recipe.every, n), rec = r.recipe;
  const last = r.losses.slice(-every), round = (v) => Math.round(v * 1e8) / 1e8;
  return {
    what: "nano-gpt, the letter sorter, trained in the browser (the page Train it yourself)",
    config: rec.config, parameters: rec.parameters, seed: r.seed, batch: rec.batch,
    optimizer: { name: "AdamW", ...rec.optimizer }, dtype: "float32", stored_as: "float32",
    random_numbers: "the browser's seeded generator (mulberry32), not numpy's: another run than python -m toycalc train --seed",
    steps: n, final_loss: round(last.reduce((a, b) => a + b, 0) / last.length),
    final_loss_means: `mean training loss of the last ${every} steps`,
    loss_on_729: round(r.lossOn729), loss_curve: r.losses.map(round), accuracy_on_729: r.sorted,
    seconds: Math.round((performance.now() - r.started) / 100) / 10,
    made_with: { browser: self.navigator.userAgent, ms_per_step: Math.round(10 * r.busy / n) / 10 },
  };
}

function finish(r) {
  if (r.losses.length % r.recipe.every !== 0) check(r);      // the count at the very end
  const npz = train.npz(r.model);
  postMessage({ type: "done", record: record(r), npz, attention: attention(r) }, [npz.buffer]);
}

self.onmessage = (event) => {
  const m = event.data;
  if (m.type === "start") {
    run = start(m.recipe, m.seed, m.limit);
    postMessage({ type: "started", attention: attention(run) });
    setTimeout(() => step(run), 0);
  } else if (m.type === "pause" && run) {
    run.paused = true;
  } else if (m.type === "resume" && run && run.paused) {
    run.paused = false;
    setTimeout(() => step(run), 0);
  }
};
