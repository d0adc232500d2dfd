// batched.js: the twin of toycalc/model/gpt.py's loss_and_grads (and of
// train.eval_loss with nanogpt.accuracy) for nano-gpt's training in the
// browser, in float32, the whole batch at once.
//
// backward.js walks one text at a time in float64, each layer a loop over
// rows; numpy runs the batch's rows (batch x tokens) through each layer
// as one matrix product in float32. This file does as numpy does: every
// activation and gradient of the batch lives in one block of
// WebAssembly memory as float32 matrices (rows one after the other), each
// layer's products are kernels.wasm's gemm (SIMD, four numbers at a
// time), and the rest (LayerNorm, attention, GELU, the loss) are short
// loops here over those same arrays, in float64 arithmetic stored as
// float32. Only the page "Train it yourself" loads it, in its Web Worker
// (train_worker.js); the toy and every page's forward pass stay gpt.js's
// float64. A model with nano-gpt's parts only: biases and LayerNorm
// weights in every block, the model's own heads, temperature 1. Held to
// numpy by tests/book/test_training_parity.py (loss and every gradient,
// to 1e-5 in float32; the sorted count) and tests/book/test_kernels.py
// (the products).

import * as gpt from "./gpt.js";
import * as train from "./train.js";
import { loader } from "./kernels.js";

let kernels = null;     // kernels.wasm's exports: memory, gemm, gelu, gelu_backward
let F = null;           // its memory as float32s
let plan = null;        // where each matrix lives in it (one plan at a time)

/** kernels.wasm made ready (the worker before its first step, letters.js
 *  before it checks a reader's weights; in Node, read when this file loads). */
const ready = loader((exports) => {
  kernels = exports;
  plan = null;
});

// ------------------------------------------------------------ the layout in memory

/** Each parameter by gpt.py's name: [offset, floats from one row to the
 *  next]. W_Q, W_K and W_V side by side, one d x 3d matrix (and their
 *  biases one vector), so that Q, K and V are one product. */
function parameterLayout(model, take) {
  const d = model.d, w = model.width, at = {};
  const matrix = (name, rows, cols) => { at[name] = [take(rows * cols), cols]; };
  matrix("E", model.vocabSize, d);
  matrix("P", model.nCtx, d);
  model.blocks.forEach((p, b) => {
    const pre = `blocks.${b}.`, qkv = take(3 * d * d), bias = take(3 * d);
    ["Q", "K", "V"].forEach((n, k) => { at[pre + "W_" + n] = [qkv + k * d, 3 * d]; at[pre + "b_" + n] = [bias + k * d, 0]; });
    matrix(pre + "W_O", d, d); matrix(pre + "W_1", d, w); matrix(pre + "W_2", w, d);
    for (const n of ["b_O", "b_2", "gamma_1", "beta_1", "gamma_2", "beta_2"]) at[pre + n] = [take(d), 0];
    at[pre + "b_1"] = [take(w), 0];
  });
  at.gamma_f = [take(d), 0]; at.beta_f = [take(d), 0];
  matrix("W_U", d, padded(model.vocabSize));           // zero columns after the last letter
  return at;
}

// a row of logits padded to whole groups of four (for gemm), zeros past V
const padded = (n) => (n + 3) & ~3;

/** Room for `rows` rows (texts x tokens): the weights, their gradients,
 *  the transposed weights, every activation the backward pass reads. */
function makePlan(model, rows) {
  const d = model.d, w = model.width, H = model.heads, T = model.nCtx, L = model.blocks.length;
  let top = 0;
  const take = (n) => { const at = top; top += padded(n); return at; };   // 16-byte aligned
  const p = { rows, d, w, H, V: model.vocabSize, Vp: padded(model.vocabSize), L, key: key(model) };
  p.weights = parameterLayout(model, take);
  p.gradsFrom = top;
  p.grads = parameterLayout(model, take);
  p.gradsTo = top;
  p.T = model.blocks.map(() => ({ qkv: take(3 * d * d), O: take(d * d), W1: take(w * d), W2: take(d * w) }));
  p.WUT = take(p.Vp * d);
  p.x = [take(rows * d)];                          // the residual stream into each block, and out of the last
  p.blocks = model.blocks.map(() => {
    const blk = { u: take(rows * d), mu1: take(rows), s1: take(rows), qkv: take(rows * 3 * d), att: take(rows * H * T),
                  A: take(rows * d), h: take(rows * d), u2: take(rows * d), mu2: take(rows), s2: take(rows),
                  pre: take(rows * w), th: take(rows * w), post: take(rows * w) };
    p.x.push(take(rows * d));
    return blk;
  });
  Object.assign(p, { f: take(rows * d), muf: take(rows), sf: take(rows), prob: take(rows * p.Vp), dz: take(rows * p.Vp),
                     dx: take(rows * d), du: take(rows * d), dh: take(rows * d), dA: take(rows * d),
                     dqkv: take(rows * 3 * d), dpost: take(rows * w), ones: take(rows) });
  const need = 4 * top - kernels.memory.buffer.byteLength;
  if (need > 0) kernels.memory.grow(Math.ceil(need / 65536));
  F = new Float32Array(kernels.memory.buffer);
  F.fill(0, 0, top);                                   // the padding stays zero
  F.fill(1, p.ones, p.ones + rows);
  p.sums = new Float64Array(2 * d);                    // LayerNorm's gradients, summed in float64
  return p;
}

const key = (m) => [m.d, m.width, m.heads, m.nCtx, m.vocabSize, m.blocks.length].join();

/** The plan for this model and at least `rows` rows (the last one if it fits). */
function planFor(model, rows) {
  if (!kernels) throw new Error("batched.js: kernels.wasm is not loaded (await ready())");
  const parts = model.blocks.every((b) => b.b_Q && b.gamma_1) && model.gamma_f;
  if (!parts || model.d % 4 || model.width % 4) {
    throw new Error(`batched.js trains nano-gpt's kind of model: biases and LayerNorm weights in every block, ` +
                    `d and the MLP's width multiples of 4 (d = ${model.d}, width = ${model.width})`);
  }
  if (!plan || plan.key !== key(model) || plan.rows < rows) plan = makePlan(model, Math.max(rows, plan ? plan.rows : 0));
  return plan;
}

/** The model's weights into the plan (rounded to float32), and the
 *  transposes the backward products read. */
function loadWeights(p, model) {
  p.loaded = null;                                 // next() keeps only its own model's
  for (const [name, a] of Object.entries(gpt.parameters(model))) {
    const [at, stride] = p.weights[name];
    if (ArrayBuffer.isView(a)) F.set(a, at);
    else a.forEach((row, r) => F.set(row, at + r * stride));
  }
  p.blocks.forEach((_, b) => {
    const W = (n) => p.weights[`blocks.${b}.${n}`][0], t = p.T[b];
    transpose(W("W_Q"), t.qkv, p.d, 3 * p.d);
    transpose(W("W_O"), t.O, p.d, p.d);
    transpose(W("W_1"), t.W1, p.d, p.w);
    transpose(W("W_2"), t.W2, p.w, p.d);
  });
  transpose(p.weights.W_U[0], p.WUT, p.d, p.Vp);
}

function transpose(from, to, rows, cols) {
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) F[to + c * rows + r] = F[from + r * cols + c];
}

/** The gradients out of the plan, as gpt.zerosLike lays them out. */
function readGrads(p, model) {
  const grads = gpt.zerosLike(model);
  for (const [name, a] of Object.entries(grads)) {
    const [at, stride] = p.grads[name];
    if (ArrayBuffer.isView(a)) a.set(F.subarray(at, at + a.length));
    else a.forEach((row, r) => row.set(F.subarray(at + r * stride, at + r * stride + row.length)));
  }
  return grads;
}

// ------------------------------------------------------------ the pieces

/** C (M x N) = [C +] A B, A (M x K) or, transposed, A^T with A (K x M):
 *  kernels.wasm's gemm (N a multiple of 4). Offsets in floats. */
function product(a, b, c, M, N, K, transposed, acc) {
  kernels.gemm(4 * a, 4 * b, 4 * c, M, N, K, transposed ? 1 : K, transposed ? M : 1, N, N, acc ? 1 : 0);
}

/** Every row of `rows` x n at `to` set to the vector at `v` (a bias), or to
 *  the row of `add` plus it (the residual stream plus a bias). */
function fillRows(to, v, rows, n, add) {
  for (let r = 0; r < rows; r++) {
    const o = to + r * n, x = add === undefined ? -1 : add + r * n;
    if (x < 0) F.copyWithin(o, v, v + n);
    else for (let c = 0; c < n; c++) F[o + c] = F[x + c] + F[v + c];
  }
}

/** The vector at `g` += the sum of the rows (rows x n) at `from` (a
 *  bias's gradient): a row of ones times them. */
function addColumns(p, g, from, rows, n) {
  product(p.ones, from, g, 1, n, rows, false, true);
}

/** gpt.layernorm on rows x n at x, times gamma plus beta, into out; keeps mu and sigma. */
function layernorm(x, out, mu, sigma, gamma, beta, rows, n, eps) {
  const F32 = F;                                   // a local: quicker in the loops
  for (let r = 0; r < rows; r++) {
    const o = x + r * n;
    let sum = 0, sq = 0;
    for (let c = 0; c < n; c++) sum += F32[o + c];
    const m = sum / n;
    for (let c = 0; c < n; c++) sq += (F32[o + c] - m) * (F32[o + c] - m);
    const s = Math.sqrt(sq / n + eps);
    F32[mu + r] = m; F32[sigma + r] = s;
    for (let c = 0; c < n; c++) F32[out + r * n + c] = ((F32[o + c] - m) / s) * F32[gamma + c] + F32[beta + c];
  }
}

/** gpt.layernorm_backward: into `out`, the row of `add` plus dL/dx, from
 *  dL/dout at `dout`; adds gamma's and beta's gradients at gGamma, gBeta. */
function layernormBackward(gradSums, dout, x, mu, sigma, gamma, gGamma, gBeta, out, add, rows, n) {
  const F32 = F;                                   // a local: quicker in the loops
  gradSums.fill(0, 0, 2 * n);
  for (let r = 0; r < rows; r++) {
    const m = F32[mu + r], s = F32[sigma + r], o = r * n;
    let mean = 0, dot = 0;
    for (let c = 0; c < n; c++) {
      const xhat = (F32[x + o + c] - m) / s, g = F32[dout + o + c];
      gradSums[c] += g * xhat; gradSums[n + c] += g;
      const dg = g * F32[gamma + c];
      mean += dg; dot += dg * xhat;
    }
    mean /= n; dot /= n;
    for (let c = 0; c < n; c++) {
      const xhat = (F32[x + o + c] - m) / s;
      F32[out + o + c] = F32[add + o + c] + (F32[dout + o + c] * F32[gamma + c] - mean - xhat * dot) / s;
    }
  }
  for (let c = 0; c < n; c++) { F32[gGamma + c] += gradSums[c]; F32[gBeta + c] += gradSums[n + c]; }
}

/** Causal attention of each text (T rows) and head on Q, K, V side by
 *  side at qkv (rows x 3d): the weights at att, the heads' outputs side by
 *  side at A; of the queries from row `from` on (the writer's last block: the last). */
function attention(p, blk, texts, T, from = 0) {
  const F32 = F;                                   // a local: quicker in the loops
  const d = p.d, H = p.H, dh = d / H, scale = Math.sqrt(dh), e = new Float64Array(T), three = 3 * d;
  for (let s = 0; s < texts; s++) {
    for (let h = 0; h < H; h++) {
      for (let t = from; t < T; t++) {
        const q = blk.qkv + (s * T + t) * three + h * dh, a = blk.att + ((s * T + t) * H + h) * T;
        let max = -Infinity, sum = 0;
        for (let j = 0; j <= t; j++) {
          const k = blk.qkv + (s * T + j) * three + d + h * dh;
          let dot = 0;
          for (let c = 0; c < dh; c++) dot += F32[q + c] * F32[k + c];
          e[j] = dot / scale;
          if (e[j] > max) max = e[j];
        }
        for (let j = 0; j <= t; j++) { e[j] = Math.exp(e[j] - max); sum += e[j]; }
        const o = blk.A + (s * T + t) * d + h * dh;
        for (let c = 0; c < dh; c++) F32[o + c] = 0;
        for (let j = 0; j < T; j++) {
          const aj = j <= t ? e[j] / sum : 0, v = blk.qkv + (s * T + j) * three + 2 * d + h * dh;
          F32[a + j] = aj;
          if (aj) for (let c = 0; c < dh; c++) F32[o + c] += aj * F32[v + c];
        }
      }
    }
  }
}

/** gpt.attention_backward's inner part: dL/dQ, dL/dK, dL/dV side by side
 *  at dqkv from dL/dA at dA. */
function attentionBackward(p, blk, texts, T) {
  const F32 = F;                                   // a local: quicker in the loops
  const d = p.d, H = p.H, dh = d / H, scale = Math.sqrt(dh), three = 3 * d, da = new Float64Array(T);
  F32.fill(0, p.dqkv, p.dqkv + texts * T * three);
  for (let s = 0; s < texts; s++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const a = blk.att + ((s * T + t) * H + h) * T, g = p.dA + (s * T + t) * d + h * dh;
        let sum = 0;
        for (let j = 0; j <= t; j++) {           // o = a v
          const v = blk.qkv + (s * T + j) * three + 2 * d + h * dh, dv = p.dqkv + (s * T + j) * three + 2 * d + h * dh;
          const aj = F32[a + j];
          let dot = 0;
          for (let c = 0; c < dh; c++) { dot += F32[g + c] * F32[v + c]; F32[dv + c] += aj * F32[g + c]; }
          da[j] = dot; sum += dot * aj;
        }
        const q = blk.qkv + (s * T + t) * three + h * dh, dq = p.dqkv + (s * T + t) * three + h * dh;
        for (let j = 0; j <= t; j++) {           // a = softmax(q . k / sqrt(d_head))
          const ds = (F32[a + j] * (da[j] - sum)) / scale;
          if (ds === 0) continue;
          const k = blk.qkv + (s * T + j) * three + d + h * dh, dk = p.dqkv + (s * T + j) * three + d + h * dh;
          for (let c = 0; c < dh; c++) { F32[dq + c] += ds * F32[k + c]; F32[dk + c] += ds * F32[q + c]; }
        }
      }
    }
  }
}

// ------------------------------------------------------------ the passes

/** The batch's forward pass (ids: texts of T tokens), every activation
 *  into the plan; the probabilities at p.prob (rows x V), at `temperature`.
 *  lastOnly (one text: the writer's next character): the last block's keys
 *  and values for every row, all else after them for the last row alone. */
function forward(p, model, ids, T, temperature = 1, lastOnly = false) {
  const d = p.d, w = p.w, rows = ids.length * T, W = p.weights;
  if (T > model.nCtx || ids.some((text) => text.length !== T) || (lastOnly && ids.length !== 1)) {
    throw new RangeError(`texts of ${ids.map((text) => text.length).join(", ")} tokens: ` +
                         `expected all of one length, at most the model's ${model.nCtx} positions` +
                         (lastOnly ? ", and one text" : ""));
  }
  ids.forEach((text, s) => text.forEach((id, t) => {          // X = E[ids] + P[:T]
    const o = p.x[0] + (s * T + t) * d, e = W.E[0] + id * d, pos = W.P[0] + t * d;
    for (let k = 0; k < d; k++) F[o + k] = F[e + k] + F[pos + k];
  }));
  const last = rows - 1;
  p.blocks.forEach((blk, b) => {
    const at = (n) => W[`blocks.${b}.${n}`][0], x = p.x[b], y = p.x[b + 1];
    const r0 = lastOnly && b === p.L - 1 ? last : 0, n = rows - r0;   // the rows past attention
    layernorm(x, blk.u, blk.mu1, blk.s1, at("gamma_1"), at("beta_1"), rows, d, model.lnEps);
    fillRows(blk.qkv, at("b_Q"), rows, 3 * d);
    product(blk.u, at("W_Q"), blk.qkv, rows, 3 * d, d, false, true);
    attention(p, blk, ids.length, T, r0 ? T - 1 : 0);
    fillRows(blk.h + r0 * d, at("b_O"), n, d, x + r0 * d);    // h = X + b_O + A W_O
    product(blk.A + r0 * d, at("W_O"), blk.h + r0 * d, n, d, d, false, true);
    layernorm(blk.h + r0 * d, blk.u2 + r0 * d, blk.mu2 + r0, blk.s2 + r0, at("gamma_2"), at("beta_2"), n, d, model.lnEps);
    fillRows(blk.pre + r0 * w, at("b_1"), n, w);
    product(blk.u2 + r0 * d, at("W_1"), blk.pre + r0 * w, n, w, d, false, true);
    kernels.gelu(4 * (blk.pre + r0 * w), 4 * (blk.th + r0 * w), 4 * (blk.post + r0 * w), n * w, model.geluC);   // tanh kept for the backward pass
    fillRows(y + r0 * d, at("b_2"), n, d, blk.h + r0 * d);    // y = h + b_2 + GELU(pre) W_2
    product(blk.post + r0 * w, at("W_2"), y + r0 * d, n, d, w, false, true);
  });
  const r0 = lastOnly ? last : 0, n = rows - r0;
  layernorm(p.x[p.L] + r0 * d, p.f + r0 * d, p.muf + r0, p.sf + r0, W.gamma_f[0], W.beta_f[0], n, d, model.lnEps);
  product(p.f + r0 * d, W.W_U[0], p.prob + r0 * p.Vp, n, p.Vp, d, false, false);   // the logits, then z = logits / temperature, softmax(z) in place
  for (let r = r0; r < rows; r++) {
    const o = p.prob + r * p.Vp;
    let max = -Infinity, sum = 0;
    for (let v = 0; v < p.V; v++) max = Math.max(max, F[o + v]);
    for (let v = 0; v < p.V; v++) sum += Math.exp((F[o + v] - max) / temperature);
    for (let v = 0; v < p.V; v++) F[o + v] = Math.exp((F[o + v] - max) / temperature) / sum;
  }
}

/** The next token's probabilities after `ids` (at most the model's n_ctx)
 *  at `temperature`, in float32 (a list of V numbers): the writer's page
 *  (writer.js), one text through forward's lastOnly. The weights are loaded
 *  once per model (the writer's never change; training's reload each step). */
function next(model, ids, temperature = 1) {
  const p = planFor(model, model.nCtx);
  if (p.loaded !== model) {
    loadWeights(p, model);
    p.loaded = model;
  }
  forward(p, model, [ids], ids.length, temperature, true);
  const o = p.prob + (ids.length - 1) * p.Vp;
  return Array.from(F.subarray(o, o + p.V));
}

/** One block backwards: dL/dy at p.dx in, dL/dX at p.dx out; the block's gradients into the plan. */
function blockBackward(p, model, b, texts, T) {
  const rows = texts * T, d = p.d, w = p.w, blk = p.blocks[b], t = p.T[b], pre = `blocks.${b}.`;
  const at = (n) => p.weights[pre + n][0], g = (n) => p.grads[pre + n][0];
  product(p.dx, t.W2, p.dpost, rows, w, d, false, false);       // y = h + GELU(pre) W_2 + b_2
  product(blk.post, p.dx, g("W_2"), w, d, rows, true, false);
  addColumns(p, g("b_2"), p.dx, rows, d);
  kernels.gelu_backward(4 * blk.pre, 4 * blk.th, 4 * p.dpost, rows * w, model.geluC);
  product(blk.u2, p.dpost, g("W_1"), d, w, rows, true, false);
  addColumns(p, g("b_1"), p.dpost, rows, w);
  product(p.dpost, t.W1, p.du, rows, d, w, false, false);
  layernormBackward(p.sums, p.du, blk.h, blk.mu2, blk.s2, at("gamma_2"), g("gamma_2"), g("beta_2"), p.dh, p.dx, rows, d);
  product(blk.A, p.dh, g("W_O"), d, d, rows, true, false);     // h = X + A W_O + b_O
  addColumns(p, g("b_O"), p.dh, rows, d);
  product(p.dh, t.O, p.dA, rows, d, d, false, false);
  attentionBackward(p, blk, texts, T);
  product(blk.u, p.dqkv, g("W_Q"), d, 3 * d, rows, true, false);
  addColumns(p, g("b_Q"), p.dqkv, rows, 3 * d);
  product(p.dqkv, t.qkv, p.du, rows, d, 3 * d, false, false);
  layernormBackward(p.sums, p.du, p.x[b], blk.mu1, blk.s1, at("gamma_1"), g("gamma_1"), g("beta_1"), p.dx, p.dh, rows, d);
}

/** gpt.loss_and_grads on a batch of texts (ids and targets: one array per
 *  text, all the same length), as backward.lossAndGrads: the mean loss
 *  over every kept target and its gradients, named as gpt.py names them;
 *  count: what the mean divides by (default: this batch's kept targets),
 *  when this is one part of a larger batch. */
function lossAndGrads(model, ids, targets, count) {
  const T = ids[0].length, rows = ids.length * T, p = planFor(model, rows), d = p.d, V = p.V, Vp = p.Vp;
  count = count || train.kept(targets);
  loadWeights(p, model);
  forward(p, model, ids, T);
  F.fill(0, p.gradsFrom, p.gradsTo);
  let loss = 0;
  targets.forEach((row, s) => row.forEach((k, t) => {          // dL/dz = (p - onehot) / N at kept positions
    const o = (s * T + t) * Vp;
    for (let v = 0; v < V; v++) F[p.dz + o + v] = k < 0 ? 0 : (F[p.prob + o + v] - (v === k ? 1 : 0)) / count;
    if (k >= 0) loss -= Math.log(F[p.prob + o + k]) / count;
  }));
  const G = p.grads, W = p.weights;
  product(p.f, p.dz, G.W_U[0], d, Vp, rows, true, false);
  product(p.dz, p.WUT, p.du, rows, d, Vp, false, false);        // dL/df = dz W_U^T
  F.fill(0, p.dh, p.dh + rows * d);
  layernormBackward(p.sums, p.du, p.x[p.L], p.muf, p.sf, W.gamma_f[0], G.gamma_f[0], G.beta_f[0], p.dx, p.dh, rows, d);
  for (let b = p.L - 1; b >= 0; b--) blockBackward(p, model, b, ids.length, T);
  ids.forEach((text, s) => text.forEach((id, t) => {           // X = E[ids] + P[:T]
    for (let k = 0; k < d; k++) {
      const g = F[p.dx + (s * T + t) * d + k];
      F[G.E[0] + id * d + k] += g; F[G.P[0] + t * d + k] += g;
    }
  }));
  return { loss, grads: readGrads(p, model) };
}

/** train.evaluate in float32 (same arguments, same answer): the model on
 *  every input at once (or on the share `part` of `parts`), the sorted
 *  letters given, a batch of texts at a time. The worker's quick check
 *  between two steps; its count is confirmed in float64 before a run stops. */
function evaluate(model, length, part, parts) {
  const all = train.examples(train.allInputs(model.vocabSize, length));
  const keep = (_, i) => !parts || i % parts === part;
  const ids = all.ids.filter(keep), targets = all.targets.filter(keep), T = ids[0].length;
  const p = planFor(model, 64 * T), per = Math.floor(p.rows / T);
  loadWeights(p, model);
  let sorted = 0, lossSum = 0, n = 0;
  for (let from = 0; from < ids.length; from += per) {
    forward(p, model, ids.slice(from, from + per), T);
    targets.slice(from, from + per).forEach((row, s) => {
      let right = true;
      row.forEach((k, t) => {
        if (k < 0) return;
        const o = p.prob + (s * T + t) * p.Vp;
        lossSum -= Math.log(F[o + k]); n++;
        if (gpt.argmax(F.subarray(o, o + p.V)) !== k) right = false;
      });
      if (right) sorted++;
    });
  }
  return { sorted, loss: lossSum / n, lossSum, n };
}

export { ready, lossAndGrads, evaluate, next };
