// writer_pass.js: a page helper: the writer's forward pass, in float32 on
// kernels.wasm (the products, the GELU, the softmax and LayerNorm), equal
// to numpy's within 1e-5, with its KV cache (a character within the
// context costs one row, not the whole window), and its draws, which
// repeat toycalc/book/writer/shared.py's (mulberry32, top-k, a window of
// the last n_ctx characters). Its users: writer.js (the page Type, it
// writes), writer_worker.js (its helper thread, which computes the first
// half of each full window's rows ahead) and the build's samples, in Node
// (toycalc/site/writer_sampler.mjs).
import * as gpt from "./gpt.js";
import * as safetensors from "./safetensors.js";
import { loader } from "./kernels.js";

/** gpt.js's model from the published weights file (safetensors.js reads
 *  it): the arrays setup.shapes names (sizes.param_shapes), no other,
 *  each of its shape, every number finite. */
function modelFromBytes(setup, buffer) {
  const { arrays } = safetensors.read(buffer, new Map(setup.shapes), "the writer");
  for (const [name, a] of arrays) {
    // a NaN or an infinity would make every p NaN and the writer write line breaks
    const i = a.values.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) throw new RangeError(`the weights file holds ${a.values[i]} in ${name} (number ${i + 1}): not a finite number`);
  }
  return gpt.load(gpt.fromArrays({ ...setup, vocab: Array.from(setup.vocab) }, arrays));
}

// kernels.wasm's exports and its memory as float32s: the writer's own
// instance (kernels.js), apart from batched.js's (training's)
let kernels = null, F = null, top = 0;
let layouts = new WeakMap();    // model -> where its weights and its scratch rows are

/** kernels.wasm, fetched on the page's Start (in Node, read when this file loads). */
const ready = loader((exports) => {
  kernels = exports;
  F = new Float32Array(kernels.memory.buffer);
  top = 0;
  layouts = new WeakMap();
});

/** Room for n floats in kernels.wasm's memory, 16-byte aligned (zeros). */
function take(n) {
  const at = top;
  top += (n + 3) & ~3;
  const need = 4 * top - kernels.memory.buffer.byteLength;
  if (need > 0) {
    kernels.memory.grow(Math.ceil(need / 65536));
    F = new Float32Array(kernels.memory.buffer);     // growing detaches the old view
  }
  return at;
}

/** The model's weights in float32 (W_Q apart from W_K and W_V side by
 *  side, so that the last block's rows but the last need only keys and
 *  values), and rows for a whole window of each activation. */
function layout(model) {
  let m = layouts.get(model);
  if (m) return m;
  if (!kernels) throw new Error("writer.js: kernels.wasm is not loaded (await ready())");
  const d = model.d, w = model.width, T = model.nCtx, H = model.heads, V = model.vocabSize, Vp = (V + 3) & ~3;
  if (d % (4 * H) || w % 4 || T % 4) throw new RangeError(`the writer's forward pass needs d / heads, the MLP's width and n_ctx in fours`);
  const put = (rows, cols, value) => {             // a matrix (rows of numbers) or a vector, at cols floats a row
    const at = take(rows * cols);
    if (value) (value.length && value[0].length !== undefined ? value : [value])
      .forEach((row, r) => F.set(row, at + r * cols));
    return at;
  };
  const join = (...parts) => parts[0].map((_, r) => parts.flatMap((M) => Array.from(M[r])));
  m = { d, w, T, H, dh: d / H, V, Vp, L: model.blocks.length, eps: model.lnEps, c: model.geluC,
        E: put(V, d, model.E), P: put(T, d, model.P), gamma_f: put(1, d, model.gamma_f), beta_f: put(1, d, model.beta_f),
        W_U: put(d, Vp, model.W_U.map((row) => [...row, ...new Array(Vp - V).fill(0)])) };
  m.blocks = model.blocks.map((b) => ({
    W_Q: put(d, d, b.W_Q), b_Q: put(1, d, b.b_Q), W_KV: put(d, 2 * d, join(b.W_K, b.W_V)),
    b_KV: put(1, 2 * d, [...b.b_K, ...b.b_V]), W_O: put(d, d, b.W_O), b_O: put(1, d, b.b_O),
    W_1: put(d, w, b.W_1), b_1: put(1, w, b.b_1), W_2: put(w, d, b.W_2), b_2: put(1, d, b.b_2),
    gamma_1: put(1, d, b.gamma_1), beta_1: put(1, d, b.beta_1), gamma_2: put(1, d, b.gamma_2), beta_2: put(1, d, b.beta_2),
  }));
  // the rows of one pass (a window at most): x the stream, u its LayerNorm
  Object.assign(m, { x: take(T * d), u: take(T * d), q: take(T * d), kv: take(T * 2 * d), s: take(T * T),
                     o: take(T * d), h: take(T * d), pre: take(T * w), th: take(T * w), post: take(T * w),
                     logits: take(Vp) });
  m.first = firstBlockRows(m);
  layouts.set(model, m);
  return m;
}

/** The first block's query, key and value of every (position, character)
 *  pair: there a row depends on its character and its position alone
 *  (x = E[id] + P[position]), and once the window slides a pass would
 *  compute them again for every row. Row position * V + id of q (d floats)
 *  and of kv (2d); the same numbers as a pass's own (a product's sums run
 *  in one order however many rows it has, and x's sum is E's plus P's). */
function firstBlockRows(m) {
  const { d, T, V, eps } = m, b = m.blocks[0];
  const first = { q: take(T * V * d), kv: take(T * V * 2 * d) };
  for (let t = 0; t < T; t++) {
    for (let c0 = 0; c0 < V; c0 += T) {            // at most T rows at a time: the pass's scratch rows
      const n = Math.min(T, V - c0), row = t * V + c0;
      fillRows(m.x, m.P + t * d, n, d, m.E + c0 * d);
      layernorm(m.x, m.u, b.gamma_1, b.beta_1, n, d, eps);
      fillRows(first.kv + row * 2 * d, b.b_KV, n, 2 * d);
      product(m.u, b.W_KV, first.kv + row * 2 * d, n, 2 * d, d, d, true);
      fillRows(first.q + row * d, b.b_Q, n, d);
      product(m.u, b.W_Q, first.q + row * d, n, d, d, d, true);
    }
  }
  return first;
}

/** A KV cache: each block's keys (per head, transposed: d_head x n_ctx,
 *  one column a position) and values (per head, n_ctx x d_head), and the
 *  ids whose rows they hold. Each user keeps its own (the page: the
 *  table's and Write's), as a pass rewrites the one it is given. */
function kvCache(model) {
  const m = layout(model);
  return { model, ids: [], blocks: m.blocks.map(() => ({ K: take(m.d * m.T), V: take(m.T * m.d) })) };
}

/** C (M x N) [+]= A B: A's rows rs floats apart, B's bs, C's cs (a part
 *  of a wider matrix); offsets in floats (kernels.wat's gemm). */
function product(a, b, c, M, N, K, rs, acc, bs = N, cs = N) {
  kernels.gemm(4 * a, 4 * b, 4 * c, M, N, K, rs, 1, bs, cs, acc ? 1 : 0);
}

/** Each of n rows of cols floats at `to` set to the vector at v, plus the row at `add` if given. */
function fillRows(to, v, n, cols, add = -1) {
  if (add < 0) for (let r = 0; r < n; r++) F.copyWithin(to + r * cols, v, v + cols);
  else kernels.add_rows(4 * to, 4 * add, 4 * v, n, cols);
}

/** gpt.layernorm on n rows of d at x, times gamma plus beta, into out (kernels.wat's, in float32). */
function layernorm(x, out, gamma, beta, n, d, eps) {
  kernels.layernorm(4 * x, 4 * out, 4 * gamma, 4 * beta, n, d, eps);
}


/** The rows of positions `from` to ids.length - 1 through the model, the
 *  keys and values of positions before `from` read from kv (which then
 *  holds every position's): the next character's p after ids (at
 *  temperature, a list of V numbers) and the attention weights of the
 *  last row (block, head, key: L x H x ids.length). Each row's numbers
 *  are the same whichever pass computes it: a product's sums run in one
 *  order for any number of rows (kernels.wat), and a query reads its
 *  keys alone (a weight of 0 adds a 0 to the rest). A pass is its steps
 *  in turn (rowsIn, then each block's keys and the rest, then pOut), so
 *  that two threads can share a window's rows (firstRows, laterRows). */
function pass(kv, ids, from, temperature) {
  const s = rowsIn(kv, ids, from);
  for (let k = 0; k < s.m.L; k++) {
    blockKeys(s, k);
    blockRest(s, k);
  }
  return pOut(s, temperature);
}

/** A pass's rows in: x = E[id] + P[position] for positions from on. */
function rowsIn(kv, ids, from) {
  const m = layout(kv.model), n = ids.length - from, F32 = F, d = m.d;
  for (let r = 0; r < n; r++) {
    const o = m.x + r * d, em = m.E + ids[from + r] * d, pm = m.P + (from + r) * d;
    for (let c = 0; c < d; c++) F32[o + c] = F32[em + c] + F32[pm + c];
  }
  return { kv, m, ids, from, n, weights: new Float32Array(m.L * m.H * ids.length) };
}

/** The rows block k computes: all of them, but in the last block the last
 *  row alone (the others' keys and values are all a later row reads). */
const firstRow = (s, k) => (k === s.m.L - 1 ? s.n - 1 : 0);

/** Block k's queries of its rows (m.q) and the keys and values of every
 *  row, into the cache at their positions (K^T a column a position). */
function blockKeys(s, k) {
  const { m, kv, ids, from, n } = s, { d, T, H, dh, eps } = m, F32 = F;
  const b = m.blocks[k], { K, V } = kv.blocks[k], r0 = firstRow(s, k), rows = n - r0;
  const pair = (r) => (from + r) * m.V + ids[from + r];    // the first block's row of a (position, character)
  if (k > 0) {
    layernorm(m.x, m.u, b.gamma_1, b.beta_1, n, d, eps);
    fillRows(m.kv, b.b_KV, n, 2 * d);
    product(m.u, b.W_KV, m.kv, n, 2 * d, d, d, true);
    fillRows(m.q, b.b_Q, rows, d);
    product(m.u + r0 * d, b.W_Q, m.q, rows, d, d, d, true);
  } else {
    for (let r = r0; r < n; r++) F32.copyWithin(m.q + (r - r0) * d, m.first.q + pair(r) * d, m.first.q + (pair(r) + 1) * d);
  }
  for (let r = 0; r < n; r++) {                   // into the cache, at the rows' positions
    const at = from + r, key = k > 0 ? m.kv + r * 2 * d : m.first.kv + pair(r) * 2 * d, value = key + d;
    for (let c = 0; c < d; c++) F32[K + c * T + at] = F32[key + c];        // a column of K^T (head h: rows h dh on)
    for (let h = 0; h < H; h++) F32.copyWithin(V + (h * T + at) * dh, value + h * dh, value + (h + 1) * dh);
  }
}

/** Block k's attention over the cache's keys, W_O and the MLP: its rows'
 *  x for the next block (the last block: the last row's). */
function blockRest(s, k) {
  const { m, kv, ids, from, n, weights } = s, { d, w, T, H, dh } = m, F32 = F;
  const b = m.blocks[k], { K, V } = kv.blocks[k], r0 = firstRow(s, k), rows = n - r0, scale = Math.sqrt(dh);
  // a head's q . k and a v four rows at a time, each four over the keys up
  // to its last row's position: a later key's weight is 0, and a sum
  // that stops before adding those zeros is the same number
  for (let h = 0; h < H; h++) {
    for (let r = 0; r < rows; r += 4) {
      const keys = from + r0 + Math.min(r + 4, rows);
      product(m.q + r * d + h * dh, K + h * dh * T, m.s + r * T, Math.min(4, rows - r), (keys + 3) & ~3, dh, d, false, T, T);
    }
    kernels.softmax(4 * m.s, rows, T, from + r0, scale);   // each row over the keys up to its own position
    for (let r = 0; r < rows; r += 4) {             // o: the heads' a v side by side, a row d floats
      const keys = from + r0 + Math.min(r + 4, rows);
      product(m.s + r * T, V + h * T * dh, m.o + r * d + h * dh, Math.min(4, rows - r), dh, keys, T, false, dh, d);
    }
    const lastRow = m.s + (rows - 1) * T;
    weights.set(F32.subarray(lastRow, lastRow + ids.length), (k * H + h) * ids.length);
  }
  fillRows(m.h, b.b_O, rows, d, m.x + r0 * d);   // h = x + b_O + o W_O: the heads' sums in turn, as one at a time
  product(m.o, b.W_O, m.h, rows, d, d, d, true);
  layernorm(m.h, m.u, b.gamma_2, b.beta_2, rows, d, m.eps);
  fillRows(m.pre, b.b_1, rows, w);
  product(m.u, b.W_1, m.pre, rows, w, d, d, true);
  kernels.gelu(4 * m.pre, 4 * m.th, 4 * m.post, rows * w, m.c);
  fillRows(m.x + r0 * d, b.b_2, rows, d, m.h);    // y = h + b_2 + GELU(pre) W_2: the next block's x
  product(m.post, b.W_2, m.x + r0 * d, rows, d, w, w, true);
}

/** The last row's p at temperature: LayerNorm, W_U, softmax(z / temperature). */
function pOut(s, temperature) {
  const { m, kv, ids, n, weights } = s, F32 = F, y = m.x + (n - 1) * m.d;
  layernorm(y, m.u, m.gamma_f, m.beta_f, 1, m.d, m.eps);
  product(m.u, m.W_U, m.logits, 1, m.Vp, m.d, m.d, false);
  let max = -Infinity, sum = 0;
  for (let v = 0; v < m.V; v++) max = Math.max(max, F32[m.logits + v]);
  for (let v = 0; v < m.V; v++) sum += Math.exp((F32[m.logits + v] - max) / temperature);
  for (let v = 0; v < m.V; v++) F32[m.logits + v] = Math.exp((F32[m.logits + v] - max) / temperature) / sum;
  kv.ids = ids.slice();
  return { p: Array.from(F32.subarray(m.logits, m.logits + m.V)), weights };
}

/** The next character's distribution after ids (the last n_ctx of
 *  them), at temperature, and the last row's attention weights (pass);
 *  with kv, the rows it holds of the same window are not computed again:
 *  within the context a character is one row; once the window slides,
 *  every position holds another character, and all are computed anew. */
function nextWithWeights(model, ids, temperature, kv = null) {
  if (!(temperature > 0)) throw new RangeError(`temperature must be > 0, got ${temperature}`);
  const window = ids.slice(-model.nCtx);
  if (!window.length) throw new RangeError("no character to read");
  if (kv && kv.model !== model) throw new RangeError("a KV cache serves the model it was made for");
  let from = 0;
  if (kv) while (from < kv.ids.length && from < window.length - 1 && kv.ids[from] === window[from]) from++;
  else kv = layout(model).whole || (layout(model).whole = kvCache(model));   // room for a pass without a cache
  return pass(kv, window, from, temperature);
}

/** The next character's distribution after ids (the last n_ctx of them),
 *  at temperature, from the whole window (no cache). */
function next(model, ids, temperature) {
  return nextWithWeights(model, ids, temperature).p;
}

/** p kept on its k largest (the earlier first on a tie) and shared out
 *  again, the sum in index order; k = 0 (or >= V) keeps p (shared.top_k). */
function topK(p, k) {
  if (!(k > 0 && k < p.length)) return p.slice();
  const order = p.map((v, i) => i).sort((a, b) => (p[b] - p[a]) || (a - b));
  const keep = order.slice(0, k).sort((a, b) => a - b);
  let total = 0;
  for (const i of keep) total += p[i];
  const kept = new Set(keep);
  return p.map((v, i) => (kept.has(i) ? v / total : 0));
}

/** n characters after ids, drawn as shared.write draws them: returns the
 *  new ids and the distribution each was drawn from. onStep(k, id, q,
 *  weights) is called after each (the page draws it; weights: the
 *  attention of the row that drew it, as nextWithWeights gives them);
 *  when it answers false, the writing stops there (the page's Stop). kv:
 *  the KV cache to write with (by default one of the model's own; null:
 *  none, every window computed whole). helper (startHelper's, or none):
 *  computes the first half of each full window's rows ahead, on its own
 *  thread; the same numbers, so the same characters. */
async function write(model, ids, n, temperature, k, seed, onStep, kv, helper = null) {
  if (kv === undefined) kv = layout(model).writing || (layout(model).writing = kvCache(model));
  const draw = gpt.rng(seed);
  ids = ids.slice();
  if (kv) kv.ids = [];                     // its rows may be another text's
  const out = [], dists = [];
  const helped = !!(helper && helper.ok && ids.length + n > model.nCtx);    // some window will be full
  if (helped) helper.begin(ids, ids.length + n - 1);
  try {
    for (let s = 0; s < n; s++) {
      let got = null;
      if (helped && helper.ok && ids.length >= model.nCtx) {
        got = await helper.next(ids, temperature).catch(() => null);   // a failed helper: this thread alone
      }
      const { p, weights } = got || nextWithWeights(model, ids, temperature, kv);
      const q = topK(p, k);
      const id = gpt.sample(q, draw());
      ids.push(id);
      if (helped) helper.add(id);
      out.push(id);
      dists.push(q);
      if (onStep && (await onStep(s, id, q, weights)) === false) break;
    }
  } finally {
    if (helped) helper.end();
  }
  return { ids: out, dists };
}

// ------------------------------------------------------------ two threads

// Once the window slides, each character is a whole window's pass. A row
// reads only the keys at or before its own position, so a window's first
// half of rows never waits on its later half, and its characters were
// written long before the window's last one: a helper (a Worker,
// writer_worker.js) computes the first half of each window ahead, as soon
// as its characters are there (firstRows), and this thread the later
// half, given the first half's keys and values (laterRows). Each row's
// numbers are the ones a whole pass gives it (pass).

/** The keys and values of block k at positions 0 to n - 1, from the cache,
 *  into out from `at` on (2 d n floats): K^T's columns, then each head's rows of V. */
function keysOf(kv, k, n, out, at) {
  const { d, T, H, dh } = layout(kv.model), { K, V } = kv.blocks[k];
  for (let c = 0; c < d; c++) out.set(F.subarray(K + c * T, K + c * T + n), at + c * n);
  for (let h = 0; h < H; h++) out.set(F.subarray(V + h * T * dh, V + (h * T + n) * dh), at + (d + h * dh) * n);
}

/** keysOf's numbers into the cache, at positions 0 to n - 1. */
function keysIn(kv, k, n, keys) {
  const { d, T, H, dh } = layout(kv.model), { K, V } = kv.blocks[k];
  for (let c = 0; c < d; c++) F.set(keys.subarray(c * n, (c + 1) * n), K + c * T);
  for (let h = 0; h < H; h++) F.set(keys.subarray((d + h * dh) * n, (d + (h + 1) * dh) * n), V + h * T * dh);
}

/** The first rows of a window (ids, at positions 0 on) through every
 *  block (the last: their keys and values alone): every block's keysOf,
 *  one after the other in one array. */
function firstRows(kv, ids) {
  const s = rowsIn(kv, ids, 0), { L, d } = s.m, n = ids.length, keys = new Float32Array(L * 2 * d * n);
  for (let k = 0; k < L; k++) {
    blockKeys(s, k);
    keysOf(kv, k, n, keys, k * 2 * d * n);
    if (k < L - 1) blockRest(s, k);               // the last block: the later rows alone read on
  }
  return keys;
}

/** The next character's p and attention weights after a full window, as
 *  nextWithWeights gives them, from its rows from `half` on and keys,
 *  firstRows's of the rows before. */
function laterRows(kv, window, half, temperature, keys) {
  const s = rowsIn(kv, window, half), { L, d } = s.m, size = 2 * d * half;
  for (let k = 0; k < L; k++) {
    blockKeys(s, k);
    keysIn(kv, k, half, keys.subarray(k * size, (k + 1) * size));
    blockRest(s, k);
  }
  return pOut(s, temperature);
}

/** A helper for write (a Worker with its own copy of the model), or null
 *  where there is no second core or no module Worker: resolves once it
 *  has laid the model out. The page keeps one (terminate the last). */
function startHelper(model, setup, bytes) {
  const cores = (globalThis.navigator && navigator.hardwareConcurrency) || 1;
  if (typeof Worker !== "function" || cores < 2) return Promise.resolve(null);
  return new Promise((resolve) => {
    let worker;
    try {
      worker = new Worker(new URL("writer_worker.js", import.meta.url), { type: "module" });
    } catch (e) {
      resolve(null);
      return;
    }
    const h = helper(model, (message, transfer) => worker.postMessage(message, transfer));
    const fail = () => {
      h.failed();
      resolve(null);
    };
    h.worker = worker;
    worker.onerror = fail;
    worker.onmessageerror = fail;
    worker.onmessage = ({ data }) => {
      if (data.type === "ready") resolve(h);
      else if (data.type === "failed") fail();
      else h.receive(data);
    };
    worker.postMessage({ type: "model", setup, bytes: bytes.slice(0) });
  });
}

// the longest write waits for a window the helper owes (it works up to
// n_ctx / 2 windows ahead, a few ms each)
const SILENT_MS = 2000;

/** write's side of a helper that post(message) reaches (startHelper's
 *  Worker; a test's function): begin a writing (the ids so far, the
 *  last length whose window it needs), add each new character, ask for
 *  the next p (next), end; receive the helper's messages. */
function helper(model, post) {
  // the helper's share: half the rows (40 or 44 of 64 were slower: it can work fewer windows ahead)
  const T = model.nCtx, half = T >> 1;
  const h = { ok: true, kv: kvCache(model), half, gen: 0, halves: new Map(), waiting: null };
  h.begin = (ids, last) => {
    h.gen += 1;
    h.halves.clear();
    post({ type: "begin", gen: h.gen, ids, last, T, half });
  };
  h.add = (id) => post({ type: "add", gen: h.gen, id });
  h.end = () => post({ type: "end", gen: h.gen });
  h.receive = (data) => {
    if (data.type !== "half" || data.gen !== h.gen) return;          // an earlier writing's
    h.halves.set(data.w, data.keys);
    if (h.waiting && h.waiting.w === data.w) h.waiting.resolve();
  };
  h.failed = () => {
    h.ok = false;
    if (h.worker) h.worker.terminate();
    if (h.waiting) h.waiting.reject(new Error("the writer's helper stopped"));
  };
  h.next = async (ids, temperature) => {
    const w = ids.length;                       // the window: ids[w - T] to ids[w - 1]
    if (!h.halves.has(w)) {
      let timer;
      await new Promise((resolve, reject) => {
        h.waiting = { w, resolve, reject };
        // a helper that goes silent is dropped: this thread writes on alone
        timer = setTimeout(() => h.failed(), SILENT_MS);
      }).finally(() => clearTimeout(timer));
    }
    h.waiting = null;
    const keys = h.halves.get(w);
    h.halves.delete(w);
    return laterRows(h.kv, ids.slice(w - T), half, temperature, keys);
  };
  return h;
}

/** The helper's side (writer_worker.js): a function of write's messages
 *  (begin, add, end) that computes each window's first half with kv's
 *  model as soon as its characters are there, up to the last, and
 *  post(message, transfer)s its keys and values. */
function helperSide(kv, post) {
  let job = null;      // the writing: gen, its ids so far, the next window w, the last, T, half
  const work = () => {
    while (job && job.w <= job.last && job.ids.length >= job.w - job.T + job.half) {
      const from = job.w - job.T, keys = firstRows(kv, job.ids.slice(from, from + job.half));
      post({ type: "half", gen: job.gen, w: job.w, keys }, [keys.buffer]);
      job.w += 1;
    }
  };
  return (data) => {
    if (data.type === "begin") {
      job = { gen: data.gen, ids: data.ids.slice(), w: Math.max(data.T, data.ids.length), last: data.last, T: data.T, half: data.half };
    } else if (!job || data.gen !== job.gen) {
      return;                                      // an earlier writing's
    } else if (data.type === "add") {
      job.ids.push(data.id);
    } else if (data.type === "end") {
      job = null;
    }
    work();
  };
}

export { modelFromBytes, ready, kvCache, next, nextWithWeights, topK, write, helper, helperSide, startHelper };
