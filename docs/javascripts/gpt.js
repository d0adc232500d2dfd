// gpt.js: the twin of toycalc/model/gpt.py (forward) and toycalc/model/tokenizer.py.
//
// The book's GPT written again in plain JavaScript, so that a reader can
// run it on a sentence of their own: the toy (one block, no biases, no
// LayerNorm weights) and nano-gpt (three blocks, biases, LayerNorm
// weights), on the weights the build publishes (the toy's as JSON, toycalc/site/export.py:
// javascripts/toy-weights.json; nano-gpt's as javascripts/nanogpt.safetensors). Every
// intermediate is kept under the name toycalc gives it; the Node parity
// tests (tests/book/test_simulator_parity.py, test_nanogpt_parity.py)
// hold the two to 1e-9. The backward pass is backward.js, which only the
// pages that train load. Pure functions, no page: the same ES module
// in Node and in a page or a Web Worker.

const SPACE_SIGN = "\u2423"; // ␣

// ------------------------------------------------------------ the tokenizer (tokenizer.py)

class TokenizerError extends Error {}

/** A token as the book prints it: its leading space as ␣. */
function show(token) {
  return token.split(" ").join(SPACE_SIGN);
}

/** At most `limit` characters of a text a person typed, for a message. */
function shorten(text, limit) {
  limit = limit || 40;
  const chars = Array.from(text);
  return chars.length <= limit ? text : chars.slice(0, limit).join("") + "\u2026";
}

/** The vocabulary as a message gives it: whole if short, else its ends. */
function vocabulary(vocab, limit) {
  limit = limit || 30;
  if (vocab.length > limit) {
    return `The vocabulary has ${vocab.length} tokens, from ${show(vocab[0])} to ${show(vocab[vocab.length - 1])}.`;
  }
  return `The vocabulary is: ${vocab.map(show).join(", ")}.`;
}

/** Greedy longest match, as tokenizer.py: from the left, the
 *  longest token that fits. Positions count characters (code points). */
function tokenize(text, vocab) {
  const chars = Array.from(text);
  const pieces = vocab.map((t) => Array.from(t));
  const byLength = vocab.map((_, i) => i).sort((a, b) => pieces[b].length - pieces[a].length);
  const startsAt = (piece, at) => {
    if (at + piece.length > chars.length) return false;
    for (let k = 0; k < piece.length; k++) if (chars[at + k] !== piece[k]) return false;
    return true;
  };
  const ids = [];
  let at = 0;
  while (at < chars.length) {
    const match = byLength.find((i) => pieces[i].length && startsAt(pieces[i], at));
    if (match === undefined) {
      let end = chars.indexOf(" ", at + 1);
      const piece = chars.slice(at, end < 0 ? chars.length : end).join("");
      throw new TokenizerError(
        `cannot cut "${show(shorten(piece))}" (character ${at + 1} of "${shorten(text)}"): ` +
        `no token of the vocabulary starts it. ${vocabulary(vocab)}`);
    }
    ids.push(match);
    at += pieces[match].length;
  }
  return ids;
}

// ------------------------------------------------------------ the weights (toycalc/site/export.py, safetensors.js)

const BLOCK_MATRICES = ["W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"];
const BLOCK_VECTORS = ["b_Q", "b_K", "b_V", "b_O", "b_1", "b_2", "gamma_1", "beta_1", "gamma_2", "beta_2"];

/** A model from the build's export: the toy's (one block, its matrices
 *  at the top) or one with `blocks` (biases and LayerNorm weights where
 *  the config has them, as nano-gpt). */
function load(data) {
  const model = {
    vocab: data.vocab.slice(), heads: data.heads, d: data.d, nCtx: data.n_ctx,
    width: data.width, lnEps: data.ln_eps, geluC: data.gelu_c,
    E: rows(data.E), P: rows(data.P), W_U: rows(data.W_U),
  };
  const blocks = data.blocks || [data];
  model.blocks = blocks.map((b) => {
    const block = {};
    for (const name of BLOCK_MATRICES) block[name] = rows(b[name]);
    for (const name of BLOCK_VECTORS) if (b[name]) block[name] = Float64Array.from(b[name]);
    return block;
  });
  for (const name of ["gamma_f", "beta_f"]) if (data[name]) model[name] = Float64Array.from(data[name]);
  // the toy's matrices by their page names too (the simulator edits them)
  for (const name of BLOCK_MATRICES) model[name] = model.blocks[0][name];
  model.vocabSize = model.vocab.length;
  model.comments = data.comments || null;
  return model;
}

/** A float16 (its 16 bits) as the number it is, read bit by bit: exact,
 *  as every float16 is a float32 (the book's one decoder, with which
 *  safetensors.js reads every weights file). */
function half(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** load's layout from a weights file's arrays (safetensors.js's read:
 *  name -> {shape, values}, under gpt.py's names, the blocks' as
 *  "blocks.N.name") and the model's sizes (`setup`: vocab, heads, d,
 *  n_ctx, width, ln_eps, gelu_c). */
function fromArrays(setup, arrays) {
  const array = ({ shape, values }) => (shape.length === 1 ? Array.from(values)
    : Array.from({ length: shape[0] }, (_, r) => Array.from(values.subarray(r * shape[1], (r + 1) * shape[1]))));
  const data = { vocab: setup.vocab, heads: setup.heads, d: setup.d, n_ctx: setup.n_ctx, width: setup.width,
                 ln_eps: setup.ln_eps, gelu_c: setup.gelu_c, blocks: [] };
  for (const [name, a] of arrays) {
    const [, b, inner] = name.match(/^blocks\.(\d+)\.(.+)$/) || [];
    if (inner === undefined) data[name] = array(a);
    else (data.blocks[Number(b)] ||= {})[inner] = array(a);
  }
  return data;
}

/** The heads counts the model can run with: the divisors of d. */

/** The heads counts the model can run with: the divisors of d (gpt.check_heads). */
function headsChoices(model) {
  const out = [];
  for (let h = 1; h <= model.d; h++) if (model.d % h === 0) out.push(h);
  return out;
}

// ------------------------------------------------------------ the forward pass (gpt.py)

// A matrix is an array of rows (Float64Array). The model's and the
// gradients' rows are views, one after the other, of one buffer (rows,
// zeros), so that the loops below read a matrix as one flat array (flat):
// several times faster than row by row, for the same sums.

/** A matrix (rows of numbers) as rows that are views of one buffer. */
function rows(M) {
  const m = M.length ? M[0].length : 0, all = new Float64Array(M.length * m);
  return M.map((row, i) => { const r = all.subarray(i * m, (i + 1) * m); r.set(row); return r; });
}

/** Zeros as rows (n x m) of one buffer. */
function zeros(n, m) {
  const all = new Float64Array(n * m);
  return Array.from({ length: n }, (_, i) => all.subarray(i * m, (i + 1) * m));
}

/** W's numbers row after row: a view of its buffer when its rows are
 *  consecutive views of one (rows, zeros), else a copy (edited rows). */
function flat(W) {
  const n = W.length, m = W[0].length, first = W[0];
  let shared = first instanceof Float64Array;
  for (let i = 1; shared && i < n; i++) {
    shared = W[i].buffer === first.buffer && W[i].byteOffset === first.byteOffset + 8 * m * i && W[i].length === m;
  }
  if (shared) return new Float64Array(first.buffer, first.byteOffset, n * m);
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) out.set(W[i], i * m);
  return out;
}

// X W (+ b, a bias, may be absent); each sum in the order of i, four
// terms at a time in a register: the same numbers as one at a time
function matmul(X, W, b) {
  const K = W.length, m = W[0].length, w = flat(W), out = new Array(X.length);
  for (let t = 0; t < X.length; t++) {
    const x = X[t], o = new Float64Array(m);
    if (b) o.set(b);
    let i = 0;
    for (; i + 3 < K; i += 4) {
      const x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3], a = i * m, a1 = a + m, a2 = a1 + m, a3 = a2 + m;
      for (let j = 0; j < m; j++) {
        let s = o[j];
        s += x0 * w[a + j]; s += x1 * w[a1 + j]; s += x2 * w[a2 + j]; s += x3 * w[a3 + j];
        o[j] = s;
      }
    }
    for (; i < K; i++) {
      const xi = x[i], a = i * m;
      for (let j = 0; j < m; j++) o[j] += xi * w[a + j];
    }
    out[t] = o;
  }
  return out;
}

function add(A, B) {
  return A.map((a, t) => {
    const b = B[t], out = new Float64Array(a.length);
    for (let c = 0; c < a.length; c++) out[c] = a[c] + b[c];
    return out;
  });
}

/** Each row to mean 0 and variance 1 (population variance), as toycalc;
 *  then times gamma plus beta where the model has them. */
function layernorm(X, eps, gamma, beta) {
  const mu = [], sigma = [];
  const out = X.map((x) => {
    let sum = 0;
    for (const v of x) sum += v;
    const m = sum / x.length;
    let sq = 0;
    for (const v of x) sq += (v - m) * (v - m);
    const s = Math.sqrt(sq / x.length + eps);
    mu.push(m);
    sigma.push(s);
    const o = new Float64Array(x.length);
    if (gamma) for (let c = 0; c < x.length; c++) o[c] = ((x[c] - m) / s) * gamma[c] + beta[c];
    else for (let c = 0; c < x.length; c++) o[c] = (x[c] - m) / s;
    return o;
  });
  return { out, mu, sigma };
}

function gelu(x, c) {
  return 0.5 * x * (1 + Math.tanh(c * (x + 0.044715 * x * x * x)));
}

function softmax(row) {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  const e = row.map((v) => Math.exp(v - max));
  let sum = 0;
  for (const v of e) sum += v;
  return e.map((v) => v / sum);
}

/** One pre-norm block on x (T rows): attention, then the MLP, each
 *  added to what came in. Every intermediate under toycalc's names. */
function block(model, p, x, heads) {
  const T = x.length, blk = { X: x };
  const ln1 = layernorm(x, model.lnEps, p.gamma_1, p.beta_1);
  blk.u = ln1.out; blk.mu = ln1.mu; blk.sigma = ln1.sigma;
  blk.Q = matmul(blk.u, p.W_Q, p.b_Q);
  blk.K = matmul(blk.u, p.W_K, p.b_K);
  blk.V = matmul(blk.u, p.W_V, p.b_V);
  const dh = model.d / heads, scale = Math.sqrt(dh);
  blk.dots = []; blk.scores = []; blk.weights = []; blk.outputs = [];
  for (let h = 0; h < heads; h++) {
    const c0 = h * dh;
    const dots = [], scores = [], weights = [], outputs = [];
    for (let t = 0; t < T; t++) {
      const d = new Float64Array(T), s = new Float64Array(T), q = blk.Q[t];
      for (let j = 0; j < T; j++) {
        const k = blk.K[j];
        let dot = 0;
        for (let c = c0; c < c0 + dh; c++) dot += q[c] * k[c];
        d[j] = dot;
        s[j] = j > t ? -Infinity : dot / scale;     // the causal mask
      }
      const a = softmax(s);
      const o = new Float64Array(dh);
      for (let j = 0; j <= t; j++) {                // a is 0 past t
        const v = blk.V[j], aj = a[j];
        for (let c = 0; c < dh; c++) o[c] += aj * v[c0 + c];
      }
      dots.push(d); scores.push(s); weights.push(a); outputs.push(o);
    }
    blk.dots.push(dots); blk.scores.push(scores); blk.weights.push(weights); blk.outputs.push(outputs);
  }
  // the heads side by side
  blk.A = [];
  for (let t = 0; t < T; t++) {
    const row = new Float64Array(model.d);
    for (let h = 0; h < heads; h++) row.set(blk.outputs[h][t], h * dh);
    blk.A.push(row);
  }
  blk.attn = matmul(blk.A, p.W_O, p.b_O);
  blk.h = add(x, blk.attn);
  const ln2 = layernorm(blk.h, model.lnEps, p.gamma_2, p.beta_2);
  blk.u2 = ln2.out; blk.mu2 = ln2.mu; blk.sigma2 = ln2.sigma;
  blk.mlp_pre = matmul(blk.u2, p.W_1, p.b_1);
  blk.mlp_post = blk.mlp_pre.map((row) => {
    const out = new Float64Array(row.length);
    for (let k = 0; k < row.length; k++) out[k] = gelu(row[k], model.geluC);
    return out;
  });
  blk.m = matmul(blk.mlp_post, p.W_2, p.b_2);
  blk.y = add(blk.h, blk.m);
  return blk;
}

/** The model on ids: every intermediate under toycalc's names. */
function forward(model, ids, heads, temperature) {
  heads = heads === undefined ? model.heads : heads;
  temperature = temperature === undefined ? 1 : temperature;
  if (!Number.isInteger(heads) || heads < 1 || model.d % heads) {
    throw new RangeError(`heads = ${heads} does not divide d = ${model.d}; ` +
                         `expected one of ${headsChoices(model).join(", ")}`);
  }
  if (!(temperature > 0)) throw new RangeError(`temperature must be > 0, got ${temperature}`);
  const T = ids.length;
  if (!(T >= 1 && T <= model.nCtx)) {
    throw new RangeError(`${T} tokens, but the model has ${model.nCtx} positions`);
  }
  const tr = { ids: ids.slice(), heads, temperature };
  tr.E_ids = ids.map((i) => model.E[i]);
  tr.P_t = model.P.slice(0, T);
  tr.X = add(tr.E_ids, tr.P_t);
  tr.blocks = [];
  let x = tr.X;
  for (const p of model.blocks) {
    const blk = block(model, p, x, heads);
    tr.blocks.push(blk);
    x = blk.y;
  }
  // the first block's values under the page's names (the toy has one block;
  // with several, y is the last one's, the input of the final LayerNorm)
  Object.assign(tr, tr.blocks[0]);
  tr.X = tr.blocks[0].X;
  tr.y = x;
  const lnf = layernorm(tr.y, model.lnEps, model.gamma_f, model.beta_f);
  tr.f = lnf.out; tr.mu_f = lnf.mu; tr.sigma_f = lnf.sigma;
  tr.logits = matmul(tr.f, model.W_U);
  tr.z = tr.logits.map((row) => row.map((v) => v / temperature));
  tr.p = tr.z.map(softmax);
  return tr;
}

// ------------------------------------------------------------ the parameters (backward.js learns them)

/** Every parameter under gpt.py's name (sizes.param_shapes' order): the
 *  model's own arrays, so that an optimiser updates the model in place. */
function parameters(model) {
  const out = { E: model.E, P: model.P };
  model.blocks.forEach((p, b) => {
    for (const name of [...BLOCK_MATRICES, ...BLOCK_VECTORS]) if (p[name]) out[`blocks.${b}.${name}`] = p[name];
  });
  for (const name of ["gamma_f", "beta_f"]) if (model[name]) out[name] = model[name];
  out.W_U = model.W_U;
  return out;
}

/** Zeros shaped as each parameter, under the same names. */
function zerosLike(model) {
  const out = {};
  for (const [name, a] of Object.entries(parameters(model))) {
    out[name] = ArrayBuffer.isView(a) ? new Float64Array(a.length) : zeros(a.length, a[0].length);
  }
  return out;
}

/** Greedy decoding, as toycalc's nanogpt.generate: append the most
 *  probable id `steps` times. Returns every id and, for each new one,
 *  the probabilities it was chosen from. */
function greedy(model, ids, steps) {
  ids = ids.slice();
  const probabilities = [];
  for (let k = 0; k < steps; k++) {
    const tr = forward(model, ids);
    const p = tr.p[ids.length - 1];
    probabilities.push(Array.from(p));
    ids.push(argmax(p));
  }
  return { ids, probabilities };
}

/** The first most probable token, as numpy's argmax. */
function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** mulberry32: a tiny seeded generator of uniforms in [0, 1). */
function rng(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The token whose share of [0, 1) holds r: the first i with r < p_0 + ... + p_i. */
function sample(p, r) {
  let cum = 0, last = 0;
  for (let i = 0; i < p.length; i++) {
    if (p[i] > 0) last = i;
    cum += p[i];
    if (r < cum) return i;
  }
  return last;
}

/** Draw number `draw` (0, 1, ...) of the generator started with `seed`. */
function uniform(seed, draw) {
  const next = rng(seed);
  let r = next();
  for (let k = 0; k < draw; k++) r = next();
  return r;
}

/** Text to trace in one call: the simulator's whole computation. */
function run(model, text, heads, temperature) {
  const ids = tokenize(text, model.vocab);
  if (ids.length === 0) throw new RangeError(`0 tokens, but the model has ${model.nCtx} positions`);
  return forward(model, ids, heads, temperature);
}

export {
  TokenizerError, SPACE_SIGN, show, shorten, vocabulary, tokenize, load, half, fromArrays, headsChoices,
  layernorm, gelu, softmax, forward, greedy, argmax, rng, uniform, sample, run,
  parameters, zerosLike, flat, zeros,
};
