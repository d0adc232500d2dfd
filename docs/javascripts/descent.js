// descent.js: the twin of toycalc/model/descent.py: plain gradient descent
// on one sentence, the toy chapter's training step repeated.
//
// Each step runs gpt.js's forward pass, takes its backward pass's
// gradients (named as gpt.py names them) and moves the weights that learn
// by −η times their gradient: E alone (the book's step) or every matrix.
// Pure: the model given is not changed; each step's weights are new
// arrays (withParams makes a model of them). tests/model/test_descent.py
// holds it to the numpy steps in Node. The same ES module in Node
// and in a page.

import * as gpt from "./gpt.js";
import * as backward from "./backward.js";

const LEARNS = ["E", "all"];   // E alone (the book's step), or every matrix
const MAX_STEPS = 200;         // descent.py's MAX_STEPS: the page's limit
const MAX_WEIGHT = 1e6;        // weights.py's MAX_WEIGHT: the weights file refuses a weight beyond it

/** descent.targets_of: the target at the last position, none (−1) before it. */
function targetsOf(ids, target) {
  return ids.map((_, t) => (t === ids.length - 1 ? target : -1));
}

/** The model with other weights (named as gpt.parameters names them):
 *  a new object, the blocks copied, the toy's aliases (model.W_Q, ...) kept. */
function withParams(model, params) {
  const out = Object.assign({}, model, { blocks: model.blocks.map((b) => Object.assign({}, b)) });
  for (const [name, value] of Object.entries(params)) {
    const m = /^blocks\.(\d+)\.(.+)$/.exec(name);
    if (m) out.blocks[Number(m[1])][m[2]] = value;
    else out[name] = value;
  }
  for (const name of ["W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"]) if (model[name]) out[name] = out.blocks[0][name];
  return out;
}

/** w − η g, entry by entry, for a vector or a matrix (rows of Float64Array). */
function stepped(w, g, eta) {
  if (ArrayBuffer.isView(w)) return w.map((v, i) => v - eta * g[i]);
  return w.map((row, r) => Float64Array.from(row, (v, c) => v - eta * g[r][c]));
}

/** descent.descend: `steps` steps of W ← W − η ∂L/∂W on the sentence ids
 *  and its next token `target`, for E alone (learns "E") or every matrix
 *  ("all"). One record per step: loss and p (before), lossAfter and
 *  pAfter, the gradients (of every matrix) and params, the weights after
 *  it by name (those that do not learn are the model's own arrays). */
function descend(model, ids, target, eta, learns, steps, heads, temperature) {
  learns = learns === undefined ? "E" : learns;
  steps = steps === undefined ? 1 : steps;
  if (!LEARNS.includes(learns)) throw new RangeError(`learns = ${learns}: expected one of ${LEARNS.join(", ")}`);
  if (!(typeof eta === "number" && Number.isFinite(eta) && eta > 0)) {
    throw new RangeError(`eta = ${eta}: the learning rate must be a number above 0`);
  }
  if (!(Number.isInteger(steps) && steps >= 1 && steps <= MAX_STEPS)) {
    throw new RangeError(`steps = ${steps}: expected a whole number from 1 to ${MAX_STEPS}`);
  }
  const targets = targetsOf(ids, target), T = ids.length;
  let params = gpt.parameters(model), current = model;
  const learning = learns === "E" ? ["E"] : Object.keys(params);
  let tr = gpt.forward(current, ids, heads, temperature);
  const records = [];
  for (let k = 0; k < steps; k++) {
    const loss = backward.crossEntropy(tr.p, targets), p = tr.p[T - 1][target];
    const grads = backward.backward(current, tr, targets);
    params = Object.assign({}, params);
    for (const name of learning) params[name] = stepped(params[name], grads[name], eta);
    current = withParams(model, params);
    tr = gpt.forward(current, ids, heads, temperature);
    records.push({ loss, p, grads, params, lossAfter: backward.crossEntropy(tr.p, targets), pAfter: tr.p[T - 1][target] });
  }
  return records;
}

/** descent.beyond_bounds: the first weight the weights file would refuse
 *  (not finite, or beyond ±MAX_WEIGHT) as {name, index, value}, in the
 *  order of `params`, each one's entries in row order; null when all hold. */
function beyondBounds(params) {
  const bad = (v) => !(Math.abs(v) <= MAX_WEIGHT);   // NaN and ±Infinity too
  for (const [name, w] of Object.entries(params)) {
    if (ArrayBuffer.isView(w) || typeof w[0] === "number") {   // a vector
      const i = w.findIndex(bad);
      if (i >= 0) return { name, index: [i], value: w[i] };
      continue;
    }
    for (let r = 0; r < w.length; r++) {
      const c = w[r].findIndex(bad);
      if (c >= 0) return { name, index: [r, c], value: w[r][c] };
    }
  }
  return null;
}

export { LEARNS, MAX_STEPS, MAX_WEIGHT, targetsOf, withParams, descend, beyondBounds };
