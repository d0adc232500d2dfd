// train.js: the twin of toycalc/model/train.py (AdamW, decays, eval_loss), of
// nanogpt.examples and nanogpt.accuracy, and of sizes.init_params.
//
// What the page "Train it yourself" (docs/nano-gpt/train.md) runs in a Web
// Worker (train_worker.js) to train nano-gpt from scratch: minGPT's sort
// demo with the book's recipe, on batched.js's loss and gradients.
// One difference from toycalc, on purpose: the random numbers (the
// initial weights, the batches) come from the browser's own seeded
// generator (gpt.rng, mulberry32), not numpy's, so a seed gives another
// run here than `python -m toycalc train --seed` does; everything after
// the draws is the same arithmetic, held to numpy by
// tests/book/test_training_parity.py (one step: loss, every gradient and
// AdamW's update, to 1e-5 in float32). The step computes in float32, as
// numpy's run does (batched.js), and AdamW rounds every weight it writes
// to float32; the download rounds them to float16, as `python -m toycalc
// train` ships them, and the checks on all 729 inputs read those
// rounded weights, as toycalc's do (evaluate here, on gpt.js's forward
// pass in float64, as the build; batched.evaluate, in float32, between).

import * as gpt from "./gpt.js";
import * as safetensors from "./safetensors.js";

const f32 = Math.fround;

/** train.decays: weight decay on the 2-D weight matrices only, not on
 *  E and P, the biases or LayerNorm's gamma and beta. */
function decays(name) {
  return name.split(".").pop().startsWith("W_");
}

// every number of a parameter (rows, or one vector), with its index
function eachRow(a, f) {
  if (ArrayBuffer.isView(a)) f(a, 0);
  else a.forEach(f);
}

/** train.AdamW: Adam with decoupled weight decay, as torch.optim.AdamW;
 *  params and grads by gpt.py's names (gpt.parameters, backward.lossAndGrads).
 *  Every number it writes is rounded to float32, as numpy's float32 run. */
class AdamW {
  constructor(params, recipe) {
    this.lr = recipe.lr; this.betas = recipe.betas; this.eps = recipe.eps; this.wd = recipe.weight_decay;
    const zeros = (a) => (ArrayBuffer.isView(a) ? new Float64Array(a.length) : a.map((r) => new Float64Array(r.length)));
    this.m = {}; this.v = {};
    for (const [n, a] of Object.entries(params)) { this.m[n] = zeros(a); this.v[n] = zeros(a); }
    this.t = 0;
  }

  /** Update params in place. */
  step(params, grads) {
    this.t += 1;
    const [b1, b2] = this.betas, c1 = 1 - b1 ** this.t, c2 = 1 - b2 ** this.t;
    const lr = this.lr, step = f32(lr / c1), keep = f32(1 - lr * this.wd);
    for (const [name, p] of Object.entries(params)) {
      const decay = this.wd && decays(name), M = this.m[name], V = this.v[name], G = grads[name];
      const rowsOf = (a) => (ArrayBuffer.isView(a) ? [a] : a);
      const ms = rowsOf(M), vs = rowsOf(V), gs = rowsOf(G);
      rowsOf(p).forEach((row, r) => {
        const m = ms[r], v = vs[r], g = gs[r];
        for (let i = 0; i < row.length; i++) {
          if (decay) row[i] = f32(row[i] * keep);
          const gi = f32(g[i]);
          m[i] = f32(f32(m[i] * b1) + f32((1 - b1) * gi));
          v[i] = f32(f32(v[i] * b2) + f32((1 - b2) * f32(gi * gi)));
          row[i] = f32(row[i] - f32(f32(step * m[i]) / f32(Math.sqrt(f32(v[i] / c2)) + this.eps)));
        }
      });
    }
  }
}

/** nanogpt.examples: inputs (rows of letters) -> ids and targets, the
 *  letters then the letters sorted, the model reading all but the last;
 *  only the predictions of the sorted letters count (the others -1). */
function examples(inputs) {
  const ids = [], targets = [];
  for (const row of inputs) {
    const full = row.concat(row.slice().sort((a, b) => a - b));
    ids.push(full.slice(0, -1));
    targets.push(full.slice(1).map((id, t) => (t < row.length - 1 ? -1 : id)));
  }
  return { ids, targets };
}

/** How many of the targets count (those >= 0: the sorted letters), what a batch's mean loss divides by. */
const kept = (targets) => targets.reduce((n, row) => n + row.filter((k) => k >= 0).length, 0);

/** All V^length inputs in nanogpt.all_inputs' order (AAAAAA, AAAAAB, ...). */
function allInputs(vocabSize, length) {
  const out = [];
  for (let k = 0; k < vocabSize ** length; k++) {
    const row = [];
    for (let i = length - 1, n = k; i >= 0; i--, n = Math.floor(n / vocabSize)) row[i] = n % vocabSize;
    out.push(row);
  }
  return out;
}

/** A batch of `size` random inputs, as train.batches draws them (from
 *  the generator `next`, uniforms in [0, 1)). */
function batch(next, size, vocabSize, length) {
  const inputs = [];
  for (let b = 0; b < size; b++) inputs.push(Array.from({ length }, () => Math.floor(next() * vocabSize)));
  return examples(inputs);
}

/** A normal draw from uniforms (Box-Muller). */
function normal(next) {
  const u = 1 - next(), v = next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** sizes.init_params, GPT-2's initialisation, as a gpt.js model: N(0,
 *  0.02^2) matrices, the ones that write into the residual stream (W_O,
 *  W_2) scaled by 1/sqrt(2 blocks), zero biases and betas, unit gammas;
 *  every number a float32. spec: vocab, heads, d, n_ctx, width, blocks,
 *  ln_eps, gelu_c (the build's recipe). */
function initModel(spec, next, std) {
  std = std || 0.02;
  const draw = (rows, cols, s) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => f32(s * normal(next))));
  const fill = (n, v) => new Array(n).fill(v);
  const d = spec.d, w = spec.width, V = spec.vocab.length, resid = std / Math.sqrt(2 * spec.blocks);
  const data = { vocab: spec.vocab, heads: spec.heads, d, n_ctx: spec.n_ctx, width: w,
                 ln_eps: spec.ln_eps, gelu_c: spec.gelu_c };
  // in sizes.param_shapes' order, so that a seed draws the same numbers into the same places
  data.E = draw(V, d, std);
  data.P = draw(spec.n_ctx, d, std);
  data.blocks = Array.from({ length: spec.blocks }, () => ({
    W_Q: draw(d, d, std), W_K: draw(d, d, std), W_V: draw(d, d, std), W_O: draw(d, d, resid),
    W_1: draw(d, w, std), W_2: draw(w, d, resid),
    b_Q: fill(d, 0), b_K: fill(d, 0), b_V: fill(d, 0), b_O: fill(d, 0), b_1: fill(w, 0), b_2: fill(d, 0),
    gamma_1: fill(d, 1), beta_1: fill(d, 0), gamma_2: fill(d, 1), beta_2: fill(d, 0),
  }));
  data.gamma_f = fill(d, 1); data.beta_f = fill(d, 0);
  data.W_U = draw(d, V, std);
  return gpt.load(data);
}

/** The model on every input at once, the sorted letters given
 *  (teacher forcing): how many inputs it sorts and its loss on them
 *  (train.eval_loss). Greedy decoding writes a sorted answer exactly
 *  when each of its six predictions here is the right letter (it reads
 *  the same ids until the first wrong one), so the count is
 *  nanogpt.accuracy's, from one pass instead of six. */
function evaluate(model, length, part, parts) {
  const { ids, targets } = examples(allInputs(model.vocabSize, length));
  let sorted = 0, loss = 0, n = 0;
  ids.forEach((row, i) => {
    if (parts && i % parts !== part) return;       // one share of the inputs (two threads)
    const p = gpt.forward(model, row).p;
    let right = true;
    targets[i].forEach((k, t) => {
      if (k < 0) return;
      loss -= Math.log(p[t][k]); n++;
      if (gpt.argmax(p[t]) !== k) right = false;
    });
    if (right) sorted++;
  });
  return { sorted, loss: loss / n, lossSum: loss, n };
}

/** Every parameter's numbers in one array, in gpt.parameters' order (to
 *  send to another thread), and back. */
function flatten(params) {
  const all = [];
  for (const a of Object.values(params)) eachRow(a, (row) => all.push(row));
  const out = new Float64Array(all.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const row of all) { out.set(row, at); at += row.length; }
  return out;
}
function unflatten(params, flat) {
  let at = 0;
  for (const a of Object.values(params)) eachRow(a, (row) => { row.set(flat.subarray(at, at + row.length)); at += row.length; });
  return params;
}

/** nanogpt.accuracy: how many of the inputs greedy decoding sorts. */
const accuracy = (model, length) => evaluate(model, length).sorted;
/** train.eval_loss: the loss on every input. */
const evalLoss = (model, length) => evaluate(model, length).loss;

// ------------------------------------------------------------ the download (nanogpt.save)

/** The float16 nearest to x (ties to even), as numpy's astype(float16)
 *  rounds: the precision the book ships nano-gpt's weights in (train.STORED). */
function half(x) {
  const a = Math.abs(x);
  if (!(a > 0) || a === Infinity) return x;
  if (a >= 65520) return Math.sign(x) * Infinity;
  let e = Math.max(-14, Math.floor(Math.log2(a)));
  if (e > -14 && a < 2 ** e) e--;                    // log2's last bit, near a power of two
  if (a >= 2 ** (e + 1)) e++;
  const ulp = 2 ** (e - 10), q = a / ulp, low = Math.floor(q);
  const r = q - low > 0.5 || (q - low === 0.5 && low % 2 === 1) ? low + 1 : low;
  return Math.sign(x) * r * ulp;
}

/** The bits of a float16 value (one that half returned). */
function halfBits(h) {
  const sign = h < 0 || Object.is(h, -0) ? 0x8000 : 0, a = Math.abs(h);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | (a / 2 ** -24);   // subnormal (and zero)
  const e = Math.floor(Math.log2(a)) + (a < 2 ** Math.floor(Math.log2(a)) ? -1 : 0);
  return sign | ((e + 15) << 10) | (a / 2 ** e * 1024 - 1024);
}

/** The model's parameters as nanogpt.save writes them: a safetensors
 *  file (safetensors.js) of one float16 array per parameter under gpt.py's
 *  names, each number rounded as train.stored rounds the shipped ones. */
function weightsFile(model) {
  return safetensors.write(Object.entries(gpt.parameters(model)).map(([name, a]) => {
    const rows = ArrayBuffer.isView(a) ? [a] : a;
    const shape = ArrayBuffer.isView(a) ? [a.length] : [a.length, a[0].length];
    return [name, shape, Uint16Array.from(rows.flatMap((r) => Array.from(r)), (v) => halfBits(half(v)))];
  }));
}

export { half, halfBits, flatten, unflatten, weightsFile, decays, AdamW, examples, kept, allInputs, batch, normal, initModel, evaluate, accuracy, evalLoss };
