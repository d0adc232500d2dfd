// toygpt.js: the book's toy GPT, live in the page.
//
// The same model as toycalc (toycalc/gpt.py, one block, no biases, no
// LayerNorm weights), written out again in plain JavaScript so that a
// reader can run it on a sentence of their own. It reads the weights the
// build exports from toy.yaml (javascripts/toy-weights.json) and computes
// every intermediate under the name toycalc gives it. tests/test_simulator_parity.py
// checks it against toycalc to 1e-9; keep the two in step.
//
// Two parts: the model (pure functions, also a CommonJS module for Node)
// and, in a browser, the simulator on the page that holds #live-simulator.
// Text typed by the reader is only ever written with textContent.
(function (root, factory) {
  "use strict";
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.toygpt = api;
  if (typeof document !== "undefined") api.ui.start();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  const SPACE_SIGN = "\u2423"; // ␣
  const MINUS = "\u2212";

  // ------------------------------------------------------------ the model

  class TokenizerError extends Error {}

  /** A token as the book prints it: its leading space as ␣. */
  function show(token) {
    return token.split(" ").join(SPACE_SIGN);
  }

  const BLOCK_MATRICES = ["W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"];
  const BLOCK_VECTORS = ["b_Q", "b_K", "b_V", "b_O", "b_1", "b_2", "gamma_1", "beta_1", "gamma_2", "beta_2"];

  /** A model from the build's export: the toy's (one block, its matrices
   *  at the top) or one with `blocks` (biases and LayerNorm weights where
   *  the config has them, as nano-gpt). */
  function load(data) {
    if (data.packed) data = unpack(data);
    const rows = (M) => M.map((row) => Float64Array.from(row));
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

  /** toycalc/site/export.py's packed arrays (float16 or float32 bytes,
   *  little-endian, in base64) as lists of rows, in the layout `load` reads. */
  function unpack(data) {
    const bytes = (b64) => (typeof atob === "function"
      ? Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
      : Uint8Array.from(Buffer.from(b64, "base64")));
    // a float16 read bit by bit: exact, as every float16 is a float32
    const half = (h) => {
      const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
      if (e === 0) return sign * m * 2 ** -24;
      if (e === 31) return m ? NaN : sign * Infinity;
      return sign * (1024 + m) * 2 ** (e - 25);
    };
    const floats = ({ f16, f32 }) => {
      if (f32 !== undefined) return new Float32Array(bytes(f32).buffer);
      const view = new DataView(bytes(f16).buffer);
      return Float32Array.from({ length: view.byteLength / 2 }, (_, i) => half(view.getUint16(2 * i, true)));
    };
    const isPacked = (v) => v && (v.f16 !== undefined || v.f32 !== undefined);
    const array = (v) => {
      const flat = floats(v), shape = v.shape;
      if (shape.length === 1) return Array.from(flat);
      const cols = shape[1];
      return Array.from({ length: shape[0] }, (_, r) => Array.from(flat.subarray(r * cols, (r + 1) * cols)));
    };
    const out = {};
    for (const [k, v] of Object.entries(data)) {
      if (k === "blocks") out.blocks = v.map((b) => Object.fromEntries(Object.entries(b).map(([n, a]) => [n, array(a)])));
      else out[k] = isPacked(v) ? array(v) : v;
    }
    delete out.packed;
    return out;
  }

  /** The heads counts the model can run with: the divisors of d. */
  function headsChoices(model) {
    const out = [];
    for (let h = 1; h <= model.d; h++) if (model.d % h === 0) out.push(h);
    return out;
  }

  /** At most `limit` characters of a text a person typed, for a message
   *  (toycalc's tokenizer.shorten). */
  function shorten(text, limit) {
    limit = limit || 40;
    const chars = Array.from(text);
    return chars.length <= limit ? text : chars.slice(0, limit).join("") + "\u2026";
  }

  function vocabulary(vocab, limit) {
    limit = limit || 30;
    if (vocab.length > limit) {
      return `The vocabulary has ${vocab.length} tokens, from ${show(vocab[0])} to ${show(vocab[vocab.length - 1])}.`;
    }
    return `The vocabulary is: ${vocab.map(show).join(", ")}`;
  }

  /** Greedy longest match, as toycalc/tokenizer.py: from the left, the
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

  // small matrices as arrays of rows (Float64Array); b, a bias, may be absent
  function matmul(X, W, b) {
    const m = W[0].length;
    return X.map((x) => {
      const out = b ? Float64Array.from(b) : new Float64Array(m);
      for (let i = 0; i < x.length; i++) {
        const xi = x[i], w = W[i];
        for (let j = 0; j < m; j++) out[j] += xi * w[j];
      }
      return out;
    });
  }

  function add(A, B) {
    return A.map((a, t) => a.map((v, c) => v + B[t][c]));
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
      return gamma ? x.map((v, c) => ((v - m) / s) * gamma[c] + beta[c]) : x.map((v) => (v - m) / s);
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
        const d = new Float64Array(T), s = new Float64Array(T);
        for (let j = 0; j < T; j++) {
          let dot = 0;
          for (let c = c0; c < c0 + dh; c++) dot += blk.Q[t][c] * blk.K[j][c];
          d[j] = dot;
          s[j] = j > t ? -Infinity : dot / scale;     // the causal mask
        }
        const a = softmax(s);
        const o = new Float64Array(dh);
        for (let j = 0; j < T; j++) for (let c = 0; c < dh; c++) o[c] += a[j] * blk.V[j][c0 + c];
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
    blk.mlp_post = blk.mlp_pre.map((row) => row.map((v) => gelu(v, model.geluC)));
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

  // ------------------------------------------------------------ numbers as the book prints them

  /** Python's f"{x:.{places}f}": exact ties go to the even digit. */
  function toFixedEven(x, places) {
    // toFixed rounds an exact tie away from zero, Python to the even digit.
    // A tie needs x times 10^places to end in .5 exactly: clear of that,
    // toFixed is right as it is (and the simulator prints thousands of them)
    const scaled = Math.abs(x) * 10 ** places;
    if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-7 * (1 + scaled)) return x.toFixed(places);
    // toFixed(100) spells out the double exactly, so a tie can be told
    const exact = Math.abs(x).toFixed(100), dot = exact.indexOf(".");
    if (/^50*$/.test(exact.slice(dot + 1 + places))) {
      const kept = exact.slice(0, dot + 1 + places).replace(/\.$/, "");
      if (Number(kept.slice(-1)) % 2 === 0) return (x < 0 ? "-" : "") + kept;
    }
    return x.toFixed(places);
  }

  /** A computed value: fixed places, true minus, never −0.000 (render.fixed). */
  function fixed(x, places) {
    places = places === undefined ? 3 : places;
    let text = toFixedEven(x, places);
    if (text.replace(/^-/, "").replace(/^[0.]+|[0.]+$/g, "") === "") text = text.replace(/^-/, "");
    return text.replace(/-/g, MINUS);
  }

  /** A typed weight or an exact sum of them (render.short). */
  function short(x, keepDecimal) {
    let text = toFixedEven(x, 3).replace(/0+$/, "");
    text = keepDecimal && text.endsWith(".") ? text + "0" : text.replace(/\.$/, "");
    if (text === "-0" || text === "-0.0") text = text.slice(1);
    return text.replace(/-/g, MINUS);
  }

  function vector(values, fmt) {
    fmt = fmt || ((v) => fixed(v));
    return "[" + Array.from(values, fmt).join(", ") + "]";
  }

  // ------------------------------------------------------------ figures
  // toycalc/book/draw.py, line for line: the same markup for the same
  // numbers (tests/book/test_simulator_parity.py compares the strings).

  const draw = (function () {
    const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
    const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ESC[c]);
    const rows = (M) => Array.from(M, (r) => Array.from(r));

    function strength(a) {
      let k = Math.floor(Math.min(1, Math.abs(a)) * 100 + 0.5);
      if (a !== 0) k = Math.max(k, 6);
      return k >= 100 ? "1" : "0." + String(k).padStart(2, "0");
    }
    const sign = (v) => (v > 0 ? "pos" : v < 0 ? "neg" : "zero");

    function largest(M) {
      let m = 0;
      for (const row of M) for (const v of row) if (v !== null && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
      return m || 1;
    }

    function cell(x, y, w, h, value, scale, title) {
      return `<rect x="${x}" y="${y}" width="${w}" height="${h}" class="v-${sign(value)}" ` +
             `fill-opacity="${strength(value / scale)}"><title>${esc(title)}: ${fixed(value)}</title></rect>`;
    }

    const MASKED = "masked: a query reads no key after its own position";

    /** A grid's masked cells as one mark (draw.py's masked_cells). */
    function maskedCells(boxes) {
      if (!boxes.length) return "";
      let outline = "", hatch = "";
      for (const [x, y, w, h] of boxes) {
        outline += `M${x} ${y}h${w}v${h}h${-w}z`;
        hatch += `M${x} ${y + h}L${x + w} ${y}`;
      }
      return `<g class="v-masked"><title>${MASKED}</title><path class="cells" d="${outline}"/><path d="${hatch}"/></g>`;
    }

    function grid(M, titles, size, x0, y0, scale) {
      x0 = x0 || 0; y0 = y0 || 0;
      scale = scale === undefined || scale === null ? largest(M) : scale;
      let out = "";
      const masked = [];
      M.forEach((row, i) => row.forEach((v, j) => {
        const x = x0 + j * size, y = y0 + i * size;
        if (v === null) masked.push([x, y, size, size]);
        else out += cell(x, y, size, size, v, scale, titles[i][j]);
      }));
      return maskedCells(masked) + out;   // masked first: a row more is appended
    }

    function label(x, y, text, anchor, cls) {
      anchor = anchor || "start"; cls = cls || "lbl";
      const a = anchor === "start" ? "" : ` text-anchor="${anchor}"`;
      return `<text x="${x}" y="${y}" class="${cls}"${a}>${esc(text)}</text>`;
    }

    function svg(width, height, aria, body, cls) {
      return `<svg class="${cls || "fig"}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
             `role="img" aria-label="${esc(aria)}">${body}</svg>`;
    }

    const textWidth = (text, px) => Array.from(text).length * (px || 7);
    const widest = (tokens) => Math.max(...tokens.map((t) => textWidth(t)));

    /** draw.py's attention_svg: token by token, so a token more is appended. */
    function attentionSvg(tokens, weights, head) {
      const T = tokens.length, size = 30, left = widest(tokens) + 8, top = 20;
      const masked = [];
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) masked.push([left + j * size, top + i * size, size, size]);
      let body = maskedCells(masked);
      for (let i = 0; i < T; i++) {
        body += label(left - 6, top + i * size + 19, tokens[i], "end");
        body += label(left + i * size + 15, top - 6, String(i + 1), "middle");
        for (let j = 0; j <= i; j++) {
          body += cell(left + j * size, top + i * size, size, size, weights[i][j], 1,
                       `head ${head}, ${tokens[i]} (query ${i + 1}) reads ${tokens[j]} (key ${j + 1})`);
        }
      }
      return svg(left + T * size + 2, top + T * size + 2,
        `Head ${head}: a heat-map of the attention weights, one row per query, one column per key ` +
        "(numbered by position); cells after the query are masked", body);
    }

    function attentionLinesSvg(tokens, weights, head) {
      const T = tokens.length, row = 22, w = widest(tokens) + 8, gap = 110, top = 18;
      let body = label(w - 6, 12, "keys", "end", "hdr") + label(w + gap + 6, 12, "queries", "start", "hdr");
      for (let i = 0; i < T; i++) {
        body += label(w - 6, top + 16 + i * row, tokens[i], "end");
        body += label(w + gap + 6, top + 16 + i * row, tokens[i]);
        for (let j = 0; j <= i; j++) {
          const a = weights[i][j], stroke = Math.floor(a * 60 + 0.5) / 10;
          body += `<line x1="${w}" y1="${top + 12 + j * row}" x2="${w + gap}" y2="${top + 12 + i * row}" ` +
                  `class="v-line" stroke-width="${stroke.toFixed(1)}">` +
                  `<title>head ${head}, ${esc(tokens[i])} (query ${i + 1}) reads ${esc(tokens[j])} ` +
                  `(key ${j + 1}): ${fixed(a)}</title></line>`;
        }
      }
      return svg(2 * w + gap + 50, top + T * row + 4,
        `Head ${head}: each query on the right joined to the keys on the left it reads, ` +
        "a thicker line for a larger weight", body);
    }

    function barsSvg(labels, values, aria, top, greyed, what) {
      greyed = greyed || []; what = what || "p";
      const row = 18, span = 200, left = widest(labels) + 8;
      let body = "";
      labels.forEach((name, k) => {
        const v = values[k], y = k * row;
        const cls = greyed.includes(k) ? "bar-cut" : k === top ? "bar-top" : "bar";
        const width = Math.floor(v * span + 0.5);
        body += label(left - 6, y + 13, name, "end");
        body += `<rect x="${left}" y="${y + 3}" width="${width}" height="${row - 6}" class="${cls}">` +
                `<title>${what}(${esc(name)}) = ${fixed(v)}</title></rect>`;
        body += label(left + width + 4, y + 13, fixed(v), "start", "val");
      });
      return svg(left + span + 48, labels.length * row, aria, body);
    }

    function figure(kind, body, caption, data) {
      const attrs = Object.entries(data || {}).map(([k, v]) => ` data-${k}="${esc(String(v))}"`).join("");
      const cap = caption ? `<figcaption>${caption}</figcaption>` : "";
      return `<figure class="toy-figure" data-figure="${kind}"${attrs}>${body}${cap}</figure>`;
    }

    const PATH_STRIPS = { 2: ["E_ids", "E[id]"], 3: ["X", "x"], 4: ["u", "u"], 7: ["h", "h"], 8: ["y", "y"] };
    const MINI = 12;

    function stripsSvg(M, tokens, symbol, x0, scale) {
      const titles = M.map((row, t) => row.map((_, c) => `${symbol}_${t + 1} (${tokens[t]}), column ${c + 1}`));
      return grid(M, titles, MINI, x0 || 0, 0, scale);
    }

    function pathSvg(step, tokens, run, vocab) {
      const T = tokens.length;
      if (step === 1) {
        const body = tokens.map((tok, t) => label(0, 10 + t * MINI + 2 * t, tok, "start", "tok")).join("");
        return svg(60, T * (MINI + 2) + 2, `The ${T} tokens of the sentence`, body, "fig mini");
      }
      if (PATH_STRIPS[step]) {
        const [name, symbol] = PATH_STRIPS[step], M = run[name];
        return svg(M[0].length * MINI, T * MINI, `${symbol}: one strip of ${M[0].length} cells per token`,
                   stripsSvg(M, tokens, symbol), "fig mini");
      }
      if (step === 5) {
        const d = run.Q[0].length, scale = largest(run.Q.concat(run.K, run.V));
        const body = ["Q", "K", "V"].map((n, k) => stripsSvg(run[n], tokens, n.toLowerCase(), k * (d * MINI + 6), scale)).join("");
        return svg(3 * d * MINI + 12, T * MINI, "q, k and v: one strip each per token", body, "fig mini");
      }
      if (step === 6) {
        const H = run.weights.length, size = Math.min(12, Math.max(3, Math.floor((Math.floor(96 / H) - 4) / T)));
        let body = "";
        for (let h = 0; h < H; h++) {
          const M = [], titles = [];
          for (let i = 0; i < T; i++) {
            M.push([]); titles.push([]);
            for (let j = 0; j < T; j++) {
              M[i].push(j <= i ? run.weights[h][i][j] : null);
              titles[i].push(`head ${h + 1}, query ${i + 1}, key ${j + 1}`);
            }
          }
          body += `<g transform="translate(${h * (T * size + 4)} 0)">${grid(M, titles, size, 0, 0, 1)}</g>`;
        }
        return svg(H * (T * size + 4) - 4, T * size, `The attention weights of the ${H} heads side by side`, body, "fig mini");
      }
      if (step === 9) {
        const p = run.p, order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b).slice(0, 4);
        let body = "";
        order.forEach((i, k) => {
          const width = Math.floor(p[i] * 60 + 0.5), cls = k === 0 ? "bar-top" : "bar";
          body += `<rect x="0" y="${k * 11}" width="${width}" height="8" class="${cls}">` +
                  `<title>p(${esc(vocab[i])}) = ${fixed(p[i])}</title></rect>`;
          body += label(width + 3, k * 11 + 8, vocab[i], "start", "tok");
        });
        return svg(110, 44, "The four most probable next tokens as bars", body, "fig mini");
      }
      throw new Error(`step = ${step}: the path has steps 1 to 9`);
    }

    /** The run's rows under the names path_svg reads (end_to_end.py's drawing). */
    function pathRun(tr) {
      const T = tr.ids.length;
      return { E_ids: rows(tr.E_ids), X: rows(tr.X), u: rows(tr.u), Q: rows(tr.Q), K: rows(tr.K), V: rows(tr.V),
               h: rows(tr.h), y: rows(tr.y), weights: tr.weights.map(rows), p: Array.from(tr.p[T - 1]) };
    }

    /** end_to_end.attention_figure and probabilities_figure. */
    function attentionFigure(tokens, tr) {
      let out = "";
      tr.weights.forEach((w, h) => {
        const W = rows(w);
        out += figure("attention", attentionSvg(tokens, W, h + 1) + attentionLinesSvg(tokens, W, h + 1),
                      `Head ${h + 1}`, { head: h + 1 });
      });
      return `<div class="fig-row">${out}</div>`;
    }

    function probabilitiesFigure(vocab, tr) {
      const T = tr.ids.length, p = tr.p[T - 1];
      const order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
      const last = vocab[tr.ids[T - 1]];
      return figure("probabilities", barsSvg(order.map((i) => vocab[i]), order.map((i) => p[i]),
        `The probability of each token of the vocabulary after position ${T}, most probable first`, 0),
        `p of each next token after ${esc(last)} (position ${T})`);
    }

    return { esc, strength, largest, cell, grid, label, svg, attentionSvg, attentionLinesSvg, barsSvg, figure,
             stripsSvg, pathSvg, pathRun, attentionFigure, probabilitiesFigure };
  })();

  // ------------------------------------------------------------ the simulator on the page

  const ui = (function () {
    const state = new WeakMap();

    function el(tag, attrs, children) {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) {
        if (k === "text") node.textContent = v;
        else if (k === "hidden") node.hidden = v;
        else node.setAttribute(k, v);
      }
      for (const c of children || []) node.append(c);
      return node;
    }

    /** A table with a header row; cells are strings (written as text).
     *  options.bold: the set of row indexes printed in bold. */
    function table(id, caption, header, rows, options) {
      options = options || {};
      const bold = options.bold || new Set();
      const t = el("table", { id });
      t.append(el("caption", { text: caption }));
      t.append(el("thead", {}, [el("tr", {}, header.map((h) => el("th", { scope: "col", text: h })))]));
      const body = el("tbody");
      rows.forEach((row, r) => {
        const tr = el("tr", bold.has(r) ? { class: "in-sentence" } : {});
        row.forEach((cell, c) => {
          const td = el(c === 0 && options.rowHeader ? "th" : "td", c === 0 && options.rowHeader ? { scope: "row" } : {});
          if (cell === null) {
            td.className = "sim-masked";
            td.setAttribute("aria-label", "masked");
          } else if (c > 0 && bold.has(r)) {
            td.append(el("strong", { text: cell }));
          } else {
            td.textContent = cell;
          }
          tr.append(td);
        });
        body.append(tr);
      });
      t.append(body);
      // a wide table scrolls on its own, and takes the focus to do it by keyboard
      return el("div", { class: "sim-scroll", tabindex: "0", role: "region", "aria-label": caption }, [t]);
    }

    /** A block of figures: markup from `draw`, which escapes every text. */
    function drawn(markup) {
      const node = el("div", { class: "sim-figures" });
      node.drawing = markup;  // written by showParts: into this node, or patched into the last one
      return node;
    }

    /** Markup into `node`, keeping the elements already there. The markup
     *  written last and the new one are compared as trees of tags: within
     *  each element, the children of the two are lined up (an element of the
     *  same tag in the same order is kept, rather one with the same
     *  attributes, rather one with nothing changed inside), and only the
     *  differences are written: the changed attributes and texts, the
     *  elements added, those gone. So a drawing one token larger keeps its
     *  cells and rows and adds the new ones, and one of the same shape is
     *  patched attribute by attribute (patchSameShape). (Chromium restyles
     *  every child of an svg when one is inserted among them, which is why
     *  draw writes its drawings token by token: a token more is appended.
     *  Lining up the children by index instead costs more.) The result is the markup,
     *  parsed (tests/browser/test_simulator_speed_browser.py).
     *  The markup is `draw`'s: its texts and attribute values escaped, no
     *  tag the parser would add or move. */
    function patchInto(node, markup) {
      if (node.markup === markup) return;
      const was = node.written;
      const now = node.written = { markup, list: pieces(markup) };
      node.markup = markup;
      if (!was || !node.firstChild) node.innerHTML = markup;  // nothing to keep: the parser is faster
      else if (!(was.list.shape === now.list.shape ? patchSameShape(node, was.list, now.list)
                 : patchChildren(node, was, -1, now, -1, new Map()))) node.innerHTML = markup;
    }

    /** The same tags in the same order (the same number of tokens and
     *  heads): each element and text in turn, written where it changed. */
    function patchSameShape(node, was, now) {
      const elements = node.getElementsByTagName("*"), open = [];
      let e = -1;
      for (let k = 0; k < now.length; k++) {
        const [kind, text, attrs, end] = now[k], before = was[k];
        if (kind === 0) {
          e += 1;
          if (end !== k) open.push(e);
          if (attrs !== before[2]) setAttributes(elements[e], before[2], attrs);
        } else if (kind === 1) open.pop();
        else if (text !== before[1]) {
          const parent = open.length ? elements[open[open.length - 1]] : node;
          if (!parent || parent.childNodes.length !== 1) return false;
          parent.firstChild.data = unescape(text);
        }
      }
      return true;
    }

    /** The tags and texts of markup, in order: [0, tag, attributes, index of
     *  its end, offset, length] for a start tag, [1, tag, "", index, offset,
     *  length] for an end and [2, text, "", index, offset, length] for a text. */
    const TOKEN = /<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>|([^<]+)/g;
    function pieces(markup) {
      const list = [], open = [];
      let shape = "";  // the tags alone, in order
      for (const m of markup.matchAll(TOKEN)) {
        const k = list.length;
        if (m[5] !== undefined) {
          list.push([2, m[5], "", k, m.index, m[0].length]);
          shape += "t";
        } else if (m[1]) {
          list[open.pop()][3] = k;
          list.push([1, m[2], "", k, m.index, m[0].length]);
          shape += "/";
        } else {
          if (!m[4]) open.push(k);
          list.push([0, m[2], m[3], k, m.index, m[0].length]);
          shape += m[2] + (m[4] ? "/" : "") + " ";
        }
      }
      list.shape = shape;
      return list;
    }

    /** The children of token `at` (-1: of the whole markup), as indexes. */
    function childrenOf(list, at) {
      const out = [];
      for (let k = at + 1, end = at < 0 ? list.length : list[at][3]; k < end; k = list[k][3] + 1) out.push(k);
      return out;
    }

    /** An id for the whole text of child k (its tags and all inside). */
    function subtree(w, k, ids) {
      const text = w.markup.slice(w.list[k][4], w.list[w.list[k][3]][4] + w.list[w.list[k][3]][5]);
      let id = ids.get(text);
      if (id === undefined) ids.set(text, id = ids.size);
      return id;
    }

    /** The children of element `dom` (written from token a of `was`) made
     *  those of token b of `now`; false if the page's nodes are not those
     *  written. */
    function patchChildren(dom, was, a, now, b, ids) {
      const olds = childrenOf(was.list, a), news = childrenOf(now.list, b), doms = dom.childNodes;
      if (doms.length !== olds.length) return false;
      const n = olds.length, m = news.length;
      const oldIds = olds.map((k) => subtree(was, k, ids)), newIds = news.map((k) => subtree(now, k, ids));
      const same = (i, j) => {
        const o = was.list[olds[i]], e = now.list[news[j]];
        return o[0] === e[0] && (o[0] === 2 || o[1] === e[1]);
      };
      // which old child each new one keeps (-1: none): in order when the
      // tags line up one for one, else the alignment of most worth
      let keep = news.map((_, j) => (j < n && same(j, j) ? j : -1));
      if (n !== m || keep.includes(-1)) {
        // the same children at both ends stay; the middle is lined up
        let first = 0, last = 0;
        while (first < n && first < m && oldIds[first] === newIds[first]) first++;
        while (last < n - first && last < m - first && oldIds[n - 1 - last] === newIds[m - 1 - last]) last++;
        const o = olds.slice(first, n - last), e = news.slice(first, m - last);
        const code = (w, k) => w.list[k][0] === 2 ? "#text" : w.list[k][1];
        const middle = align(o.map((k) => code(was, k)), e.map((k) => code(now, k)),
                             o.map((k) => was.list[k][2]), e.map((k) => now.list[k][2]),
                             oldIds.slice(first, n - last), newIds.slice(first, m - last));
        keep = news.map((_, j) => (j < first ? j : j >= m - last ? j - m + n
          : middle[j - first] < 0 ? -1 : middle[j - first] + first));
      }
      const kept = new Set(keep), nodes = Array.from(doms);
      nodes.forEach((child, i) => { if (!kept.has(i)) child.remove(); });
      let next = 0;  // the next old child kept, which the new ones go before
      while (next < n && !kept.has(next)) next++;
      for (let j = 0; j < m; j++) {
        const i = keep[j];
        if (i < 0) {
          dom.insertBefore(make(now, news[j], dom), next < n ? nodes[next] : null);
          continue;
        }
        next = i + 1;
        while (next < n && !kept.has(next)) next++;
        if (oldIds[i] === newIds[j]) continue;  // nothing changed inside
        const child = nodes[i], [kind, text, attrs] = now.list[news[j]];
        if (kind === 2) {
          if (child.nodeType !== 3) return false;
          child.data = unescape(text);
        } else {
          if (child.localName !== text) return false;
          const before = was.list[olds[i]][2];
          if (before !== attrs) setAttributes(child, before, attrs);
          if (!patchChildren(child, was, olds[i], now, news[j], ids)) return false;
        }
      }
      return true;
    }

    /** The old children (their tags, attributes and whole texts) lined up
     *  with the new: the pairs (i, j), i and j increasing, of the same tag
     *  that are worth most, a pair worth 1, 2 with the same attributes, 4
     *  with nothing changed inside. Returns, for each j, its i or -1. */
    function align(oldTags, newTags, oldAttrs, newAttrs, oldIds, newIds) {
      const n = oldTags.length, m = newTags.length, codes = new Map();
      const code = (x) => { let c = codes.get(x); if (c === undefined) codes.set(x, c = codes.size); return c; };
      const oT = Int32Array.from(oldTags, code), nT = Int32Array.from(newTags, code);
      const oA = Int32Array.from(oldAttrs, code), nA = Int32Array.from(newAttrs, code);
      const oI = Int32Array.from(oldIds), nI = Int32Array.from(newIds);
      const score = (i, j) => (oT[i] !== nT[j] ? 0 : oI[i] === nI[j] ? 4 : oA[i] === nA[j] ? 2 : 1);
      const W = new Int32Array((n + 1) * (m + 1)), row = m + 1;  // W[i, j]: the most from (i, j) on
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          const s = score(i, j), k = i * row + j;
          W[k] = Math.max(W[k + row], W[k + 1], s ? s + W[k + row + 1] : 0);
        }
      }
      const keep = new Array(m).fill(-1);
      for (let i = 0, j = 0; i < n && j < m;) {
        const s = score(i, j), k = i * row + j;
        if (s && W[k] === s + W[k + row + 1]) keep[j++] = i++;
        else if (W[k + row] >= W[k + 1]) i++;
        else j++;
      }
      return keep;
    }

    const SVG = "http://www.w3.org/2000/svg";

    /** Child k of `now` as a node for `parent`, as the parser makes it: an
     *  svg and all inside it in SVG's namespace (draw writes no foreignObject). */
    function make(now, k, parent) {
      const list = now.list, [kind, tag, attrs, end] = list[k];
      if (kind === 2) return document.createTextNode(unescape(tag));
      if (end - k > 200) {  // a large part: the parser is faster
        const range = document.createRange();
        range.selectNodeContents(parent);
        return range.createContextualFragment(now.markup.slice(list[k][4], list[end][4] + list[end][5]));
      }
      const e = document.createElementNS(tag === "svg" ? SVG : parent.namespaceURI, tag);
      setAttributes(e, "", attrs);
      for (let c = k + 1; c < end; c = list[c][3] + 1) e.append(make(now, c, e));
      return e;
    }

    const UNESCAPE = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };
    const unescape = (text) => text.replace(/&(amp|lt|gt|quot|#x27);/g, (e) => UNESCAPE[e]);

    const ATTRIBUTE = /([\w:-]+)="([^"]*)"/g;
    /** An element's attributes, written as `before` in markup, made those of `now`. */
    function setAttributes(e, before, now) {
      const old = new Map();
      for (const m of before.matchAll(ATTRIBUTE)) old.set(m[1], m[2]);
      for (const [, name, value] of now.matchAll(ATTRIBUTE)) {
        if (old.get(name) !== value) e.setAttribute(name, unescape(value));
        old.delete(name);
      }
      for (const name of old.keys()) e.removeAttribute(name);
    }

    /** Every table and figure of the path, from one trace: one entry per
     *  step of the path (toycalc/book/path.py's STEPS), each a title, its
     *  nodes and the drawing on its button. */
    function render(model, tr, choice) {
      const tokens = tr.ids.map((i) => show(model.vocab[i]));
      const T = tokens.length, H = tr.heads, last = T - 1;
      const vocabShown = model.vocab.map(show), run = draw.pathRun(tr);
      const weightsVec = (v) => vector(v, (x) => short(x, true));
      const dHeader = (s) => Array.from({ length: model.d }, (_, c) => `${s}${c + 1}`);
      const steps = [];
      // a step is its parts, each a function that builds one node: a part is
      // built when the reader can see it (showParts), not before
      const step = (title, ...parts) => steps.push({ n: steps.length + 1, title, parts });
      step("Tokens and ids", () =>
        table("sim-ids", "The sentence cut into tokens, and their ids", ["token"].concat(tokens),
              [["id"].concat(tr.ids.map(String))], { rowHeader: true }));
      step("The table E", () =>
        table("sim-E", "The embedding table E, the sentence's rows in bold", ["id", "token"].concat(dHeader("c")),
              model.vocab.map((t, i) => [String(i), show(t)].concat(Array.from(model.E[i], (v) => short(v)))),
              { bold: new Set(tr.ids) }));
      step("Position: X", () =>
        table("sim-X", "Each token's row of E plus its position's row of P",
              ["token", "E[id]", "P_t", "x_t = E[id] + P_t"],
              tokens.map((t, i) => [t, weightsVec(tr.E_ids[i]), weightsVec(tr.P_t[i]), weightsVec(tr.X[i])]),
              { rowHeader: true }));
      step("LayerNorm: u", () =>
        table("sim-u", "Each row of X shifted to mean 0 and scaled to standard deviation 1",
              ["token", "μ", "σ"].concat(dHeader("u")),
              tokens.map((t, i) => [t, fixed(tr.mu[i]), fixed(tr.sigma[i])].concat(Array.from(tr.u[i], (v) => fixed(v)))),
              { rowHeader: true }));
      step("Query, key and value", () =>
        table("sim-QKV", "Q = u W_Q, K = u W_K, V = u W_V",
              ["token", "Q", "K", "V"],
              tokens.map((t, i) => [t, vector(tr.Q[i]), vector(tr.K[i]), vector(tr.V[i])]),
              { rowHeader: true }));
      const headTables = [];
      for (let h = 0; h < H; h++) {
        const head = h + 1;
        headTables.push(() => table(`sim-scores-${head}`,
            `Head ${head}: scores s = q·k / √${model.d / H}, one row per position (−∞: hidden by the mask)`,
            [`head ${head}`].concat(tokens),
            tokens.map((t, i) => [t].concat(Array.from(tr.scores[h][i], (v) => (v === -Infinity ? "−∞" : fixed(v))))),
            { rowHeader: true }));
        headTables.push(() => table(`sim-weights-${head}`,
            `Head ${head}: the weights a = softmax(s) of each row (blank: masked)`,
            [`head ${head}`].concat(tokens),
            tokens.map((t, i) => [t].concat(Array.from(tr.weights[h][i], (v, j) => (j > i ? null : fixed(v))))),
            { rowHeader: true }));
      }
      step(`The heads (${H})`, () => drawn(draw.attentionFigure(tokens, tr)), ...headTables);
      const oHeader = Array.from({ length: H }, (_, h) => `o (head ${h + 1})`);
      step("Mix the values, join the heads", () =>
        table("sim-mix", "Each head's average of the values, the heads joined (A), A W_O, and h = x + A W_O",
              ["token"].concat(oHeader, ["A", "A W_O", "h"]),
              tokens.map((t, i) => [t].concat(tr.outputs.map((o) => vector(o[i])),
                                              [vector(tr.A[i]), vector(tr.attn[i]), vector(tr.h[i])])),
              { rowHeader: true }));
      step("LayerNorm again, and the MLP", () =>
        table("sim-mlp", "u' = LN(h), then GELU(u' W_1) W_2 = m, and y = h + m",
              ["token", "u'", "u' W_1", "GELU(u' W_1)", "m", "y"],
              tokens.map((t, i) => [t, vector(tr.u2[i]), vector(tr.mlp_pre[i]), vector(tr.mlp_post[i]),
                                    vector(tr.m[i]), vector(tr.y[i])]),
              { rowHeader: true }));
      const z = tr.z[last], p = tr.p[last], logits = tr.logits[last];
      const order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
      step("Logits and probabilities", () => drawn(draw.probabilitiesFigure(vocabShown, tr)),
        () => el("p", { id: "sim-f", text: `f_${T} = LN(y_${T}) = ${vector(tr.f[last])}; each logit is f_${T} times a column of W_U, then divided by T = ${short(tr.temperature)}.` }),
        () => table("sim-softmax", `The next token after position ${T}, most probable first`,
              ["token", "logit", "z = logit / T", "e^z", "p"],
              order.map((i) => [show(model.vocab[i]), fixed(logits[i]), fixed(z[i]), fixed(Math.exp(z[i])), fixed(p[i])]),
              { rowHeader: true, bold: new Set([order.indexOf(choice.id)]) }));
      // the drawing on each step's button, built when first read
      steps.forEach((st) => {
        let drawing = null;
        Object.defineProperty(st, "drawing", { get: () => drawing || (drawing = draw.pathSvg(st.n, tokens, run, vocabShown)) });
      });
      return steps;
    }

    // ---------------------------------------------------------------- what the reader sees first
    // A run redraws every table and figure, but the reader sees a screenful
    // of them. The parts on the screen are built in the same frame; the
    // others when they come within half a screen of it (so, scrolling, before
    // they are seen) or when the browser is idle, whichever is first. Until
    // then a deferred table or figure is an empty box of its last height (no
    // stale number is shown as current), and a deferred drawing on a path
    // button keeps its last drawing, dimmed (class sim-pending on both).

    const later = (function () {
      const fills = new Map();  // node -> what fills it
      let near = null, idle = 0;
      const whenIdle = typeof requestIdleCallback === "function"
        ? (f) => requestIdleCallback(f, { timeout: 250 })
        : (f) => setTimeout(() => f({ timeRemaining: () => 10 }), 20);

      function run(node) {
        const fill = fills.get(node);
        if (!fill) return;
        drop(node);
        if (node.isConnected) fill();
      }

      function drop(node) {
        if (fills.delete(node) && near) near.unobserve(node);
      }

      function schedule() {
        if (idle || !fills.size) return;
        idle = whenIdle((deadline) => {
          idle = 0;
          for (const node of [...fills.keys()]) {
            run(node);
            if (deadline.timeRemaining() < 4) break;
          }
          schedule();
        });
      }

      function defer(node, fill) {
        near = near || new IntersectionObserver((entries) => entries.forEach((e) => {
          if (e.isIntersecting) run(e.target);
        }), { rootMargin: "50% 0px" });
        fills.set(node, fill);
        near.observe(node);
        schedule();
      }

      /** Everything deferred, now (or only what is inside `within`). */
      function flush(within) {
        for (const node of [...fills.keys()]) if (!within || within.contains(node)) run(node);
      }

      return { defer, drop, flush, size: () => fills.size };
    })();

    /** Where the parts of each box are, read before the run writes anything
     *  (one layout, no read between writes). A box that now shows a message
     *  or is hidden keeps where its parts were when last seen. Sets box.near:
     *  for each part, whether it is on the screen. */
    function survey(boxes, singles) {
      const y = scrollY, h = innerHeight;
      const isNear = (top, height) => top < h && top + height > 0;
      for (const box of boxes) {
        if (!box.dataset.message) {
          const seen = [];
          for (const child of box.children) {
            const r = child.getBoundingClientRect();
            if (!r.width && !r.height) { seen.length = 0; break; }
            seen.push({ top: r.top + y, height: r.height });
          }
          if (seen.length) box.seen = seen;
        }
        box.near = (box.seen || []).map((s) => isNear(s.top - y, s.height));
      }
      for (const node of singles || []) {  // a drawing, placed by its button (it may be hidden)
        const r = node.parentNode.getBoundingClientRect();
        node.near = isNear(r.top, r.height);
      }
    }

    /** A run's parts into `box`: those on the screen (or of unknown place)
     *  built now, the others deferred (see `later`). Each part has a slot of
     *  its own in the box (div.sim-part), and a part is replaced within its
     *  slot: the box's own children then stay as they are, for a change
     *  among them would have the browser restyle every part after it (the
     *  figures too, thousands of elements, when a table after them is
     *  deferred). */
    function showParts(box, parts) {
      if (box.dataset.message) {
        delete box.dataset.message;
        box.replaceChildren();
      }
      for (const slot of box.children) later.drop(slot.firstChild);
      const near = box.near || [];
      const build = (make, was) => {
        const node = make();
        if (node.drawing === undefined) return node;
        // a drawing: into the one there if it is one (see patchInto)
        const into = was && was.drawing !== undefined ? was : node;
        patchInto(into, node.drawing);
        into.drawing = node.drawing;
        return into;
      };
      while (box.children.length > parts.length) box.lastChild.remove();
      while (box.children.length < parts.length) box.append(el("div", { class: "sim-part" }));
      parts.forEach((make, i) => {
        const slot = box.children[i], was = slot.firstChild;
        let node;
        if (near[i] !== false) node = build(make, was);
        else {
          node = el("div", { class: "sim-pending", "aria-busy": "true" });
          node.style.height = `${box.seen[i].height}px`;
          const hold = node;
          later.defer(hold, () => hold.replaceWith(build(make)));
        }
        // the nodes kept stay in place: moving them would rebuild them
        if (!was) slot.append(node);
        else if (node !== was) was.replaceWith(node);
      });
    }

    /** A drawing's markup into `node`, now if its button is on the screen,
     *  else when the button nears it (the drawing itself may be hidden, empty);
     *  the markup is written only if it changed. */
    function showDrawing(node, markup) {
      const button = node.parentNode;
      const write = () => {
        node.classList.remove("sim-pending");
        const text = typeof markup === "function" ? markup() : markup;
        patchInto(node, text);
      };
      later.drop(button);
      if (node.near === false && typeof markup === "function") {
        node.classList.add("sim-pending");
        later.defer(button, write);
      } else write();
    }

    /** The simulator's own page: one section per step. */
    function showSteps(results, steps) {
      if (results.children.length !== steps.length) {
        results.replaceChildren(...steps.map(() => el("section", { class: "sim-step" })));
      }
      steps.forEach(({ n, title, parts }, k) =>
        showParts(results.children[k], [() => el("h2", { text: `${n}. ${title}` }), ...parts]));
      results.hidden = false;
    }

    /** The End-to-End page: each step's tables go into that step's panel
     *  of the path, in place of the book's (for the heads shown); with
     *  steps = null the path shows the book's sentence again. */
    function showInPath(path, steps, heads, message) {
      path.classList.toggle("path--live", steps !== null || message !== undefined);
      // the drawing on each step's button follows the run too
      path.querySelectorAll(".path-step").forEach((button, k) => {
        showDrawing(drawingOf(button), steps ? () => steps[k].drawing : "");
      });
      path.querySelectorAll(".path-panel").forEach((panel, k) => {
        panel.querySelectorAll(".path-body").forEach((body) => {
          const live = liveOf(body);
          const variant = body.closest(".heads-variant");
          live.pending = null;
          if (variant && variant.dataset.heads !== String(heads)) clear(live);
          else if (message !== undefined) {
            clear(live);
            live.dataset.message = "1";
            live.append(el("p", { class: "sim-message", text: message }));
          } else if (steps && (panel.classList.contains("is-open") || !path.classList.contains("path--js"))) {
            showParts(live, steps[k].parts);
          } else {
            // a closed step is built when it opens (see fillWhenOpened): one step, not nine
            clear(live);
            live.pending = steps ? steps[k] : null;
          }
        });
        fillWhenOpened(panel);
      });
    }

    function clear(box) {
      for (const slot of box.children) later.drop(slot.firstChild);   // a part deferred in its slot
      if (box.firstChild) box.replaceChildren();  // even when empty, a change: the box and its kin restyled
    }

    function drawingOf(button) {
      let live = button.querySelector(":scope > .path-drawing-live");
      if (!live) {
        live = el("span", { class: "path-drawing path-drawing-live" });
        button.append(live);
      }
      return live;
    }

    function liveOf(body) {
      let live = body.querySelector(":scope > .path-live");
      if (!live) {
        live = el("div", { class: "path-live" });
        body.insertBefore(live, body.querySelector(":scope > .path-box"));
      }
      return live;
    }

    /** What a run may redraw, for survey: the boxes and the button drawings. */
    function inSight(root, path) {
      if (!path) return [[...root.querySelectorAll("#sim-results > .sim-step")], []];
      const lives = [...path.querySelectorAll(".path-panel.is-open .path-body")].map(liveOf);
      return [lives, [...path.querySelectorAll(".path-step")].map(drawingOf)];
    }

    // ---------------------------------------------------------------- the weights editor

    const EDITABLE = ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"];

    /** How the book labels row r and column c of a matrix. */
    function cellName(model, name, r, c) {
      const tok = (i) => show(model.vocab[i]);
      if (name === "E") return `E, ${tok(r)}, column ${c + 1}`;
      if (name === "P") return `P, position ${r + 1}, column ${c + 1}`;
      if (name === "W_U") return `W_U, row ${r + 1}, ${tok(c)}`;
      return `${name}, row ${r + 1}, column ${c + 1}`;
    }

    const copyOf = (model) => Object.fromEntries(EDITABLE.map((n) => [n, model[n].map((row) => Float64Array.from(row))]));

    /** A number as toycalc's loader reads it back to the same double:
     *  JavaScript's shortest form (1e-7 included: the loader reads numbers
     *  as people write them). */
    const yamlNumber = (v) => String(v);

    /** The weights as a toy.yaml in the repository's layout. The book's
     *  comments stay where what they describe is unchanged. */
    function toYaml(model, changed) {
      const c = model.comments || { header: [], keys: {} };
      const keys = c.keys || {};
      const named = (text) => new Set((text.match(/\bW_[A-Z0-9]+\b|\b[EP]\b/g) || []).concat());
      const out = [];
      const header = c.header.length ? c.header : ["# The toy model's weights."];
      out.push(...header, "# Saved from the Simulator page; the matrices changed there say so.", "");
      const inline = (key) => {
        const text = (keys[key] || {}).inline || "";
        if (!text) return "";
        return "   # " + (changed.has(key) ? text.split(":")[0] : text);
      };
      out.push(`heads: ${model.heads}${inline("heads")}`, "");
      out.push(`vocab: [${model.vocab.map((t) => JSON.stringify(show(t))).join(", ")}]${inline("vocab")}`, "");
      for (const name of EDITABLE) {
        const above = (keys[name] || {}).above || [];
        const mentioned = named(above.join(" "));
        mentioned.add(name);
        if (above.length && ![...mentioned].some((n) => changed.has(n))) out.push(...above);
        out.push(`${name}:${inline(name)}${changed.has(name) ? "   # changed in the Simulator" : ""}`);
        model[name].forEach((row, r) => {
          const label = name === "E" ? `   # ${r}  ${show(model.vocab[r])}` : name === "P" ? `   # position ${r + 1}` : "";
          out.push(`  - [${Array.from(row, yamlNumber).join(", ")}]${label}`);
        });
        out.push("");
      }
      return out.join("\n");
    }

    /** Every weight as an input: a change reruns the model at once. */
    function weightsEditor(model, onChange) {
      const original = copyOf(model);
      const changedCells = new Set();
      const changedMatrices = () => new Set([...changedCells].map((k) => k.split(":")[0]));
      const section = el("details", { class: "sim-editor", id: "sim-editor" });
      section.append(el("summary", { text: "Change the weights" }));
      section.append(el("p", { class: "sim-note", text:
        "Every weight of the toy, as the weights file holds it. Type a new number and every table and " +
        "figure of this page follows at once; a changed cell is marked. Download the weights to build " +
        "the whole book from them (TOYCALC_WEIGHTS)." }));
      const reset = el("button", { type: "button", id: "sim-weights-reset", class: "sim-action",
                                   text: "Reset to the book's weights" });
      const download = el("button", { type: "button", id: "sim-weights-download", class: "sim-action",
                                      text: "Download these weights" });
      const count = el("span", { id: "sim-weights-changed", "aria-live": "polite" });
      section.append(el("div", { class: "sim-buttons" }, [reset, download, count]));
      const inputs = [];
      for (const name of EDITABLE) {
        const M = model[name];
        const block = el("details", { class: "sim-matrix" }, [el("summary", { text: `${name} (${M.length} × ${M[0].length})` })]);
        const table = el("table", { class: "sim-weights", id: `sim-edit-${name}` });
        M.forEach((row, r) => {
          const tr = el("tr");
          row.forEach((v, c) => {
            const input = el("input", { type: "text", inputmode: "decimal", size: "5", spellcheck: "false",
                                        "aria-label": cellName(model, name, r, c), "data-matrix": name,
                                        "data-row": String(r), "data-col": String(c) });
            input.value = String(v);
            inputs.push(input);
            tr.append(el("td", {}, [input]));
          });
          table.append(tr);
        });
        block.append(el("div", { class: "sim-scroll", tabindex: "0", role: "region", "aria-label": name }, [table]));
        section.append(block);
      }
      const mark = (input, r, c, name) => {
        const key = `${name}:${r}:${c}`;
        const differs = model[name][r][c] !== original[name][r][c];
        input.classList.toggle("is-changed", differs);
        if (differs) changedCells.add(key); else changedCells.delete(key);
        const n = changedCells.size;
        count.textContent = n ? ` ${n} weight${n > 1 ? "s" : ""} changed` : "";
      };
      section.addEventListener("input", (event) => {
        const input = event.target;
        if (!input.dataset.matrix) return;
        const name = input.dataset.matrix, r = Number(input.dataset.row), c = Number(input.dataset.col);
        const text = input.value.trim().replace(/\u2212/g, "-");
        const v = Number(text);
        if (text === "" || !Number.isFinite(v)) {
          input.setAttribute("aria-invalid", "true");
          return;
        }
        input.removeAttribute("aria-invalid");
        model[name][r][c] = v;
        mark(input, r, c, name);
        onChange();
      });
      reset.addEventListener("click", () => {
        for (const input of inputs) {
          const name = input.dataset.matrix, r = Number(input.dataset.row), c = Number(input.dataset.col);
          model[name][r][c] = original[name][r][c];
          input.value = String(original[name][r][c]);
          input.removeAttribute("aria-invalid");
          mark(input, r, c, name);
        }
        onChange();
      });
      download.addEventListener("click", () => {
        const blob = new Blob([toYaml(model, changedMatrices())], { type: "text/yaml" });
        const a = el("a", { href: URL.createObjectURL(blob), download: "toy.yaml" });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      });
      return section;
    }

    const watched = new WeakSet();

    function fillPending(panel) {
      if (!panel.classList.contains("is-open")) return;
      panel.querySelectorAll(".path-live").forEach((live) => {
        if (live.pending) {
          const step = live.pending;
          live.pending = null;
          live.near = null;  // shown now: every part of it
          showParts(live, step.parts);
        }
      });
    }

    /** When path.js opens a step, its pending live tables are built: on the
     *  click (path.js has toggled the panel by the time it bubbles here), or
     *  when the panel opens otherwise (a #step-N link). */
    function fillWhenOpened(panel) {
      if (watched.has(panel)) return;
      watched.add(panel);
      new MutationObserver(() => fillPending(panel)).observe(panel, { attributes: true, attributeFilter: ["class"] });
      const button = document.querySelector(`[aria-controls="${panel.id}"]`);
      if (button) button.parentNode.addEventListener("click", (event) => {
        if (event.target.closest(".path-step") === button) fillPending(panel);
      });
    }

    function start() {
      const go = () => document.querySelectorAll("#live-simulator").forEach(setUp);
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go);
      else go();
    }

    function setUp(root) {
      if (root.dataset.ready) return;
      root.dataset.ready = "1";
      const url = new URL(root.dataset.weights, document.baseURI);
      fetch(url).then((r) => {
        if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
        return r.json();
      }).then((data) => build(root, load(data))).catch((e) => {
        const note = root.querySelector(".sim-loading");
        if (note) note.textContent = `The simulator could not start (${e.message}); the static path below still holds.`;
        root.hidden = false;
      });
    }

    function build(root, model) {
      const s = { model, draw: 0 };
      state.set(root, s);
      root.replaceChildren();
      // On the End-to-End page (data-into="path") the tables go into the
      // path, and the page's own heads chooser picks the heads.
      const path = root.dataset.into ? document.getElementById(root.dataset.into) : null;
      const bookText = root.dataset.text || "";
      const text = el("input", { type: "text", id: "sim-text", autocomplete: "off", spellcheck: "false",
                                 "aria-describedby": "sim-message" });
      text.value = bookText;
      const vocab = el("div", { class: "sim-vocab", role: "group", "aria-labelledby": "sim-vocab-label" });
      model.vocab.forEach((tok, i) => {
        const b = el("button", { type: "button", class: "sim-token", "data-id": String(i),
                                 "aria-label": `add ${show(tok)}`, text: show(tok) });
        vocab.append(b);
      });
      const back = el("button", { type: "button", id: "sim-back", class: "sim-action", text: "Remove the last token" });
      const reset = el("button", { type: "button", id: "sim-reset", class: "sim-action",
                                   text: "Back to the book's sentence" });
      let headsSet = null;
      if (!path) {
        headsSet = el("fieldset", { class: "sim-heads choices" }, [el("legend", { text: "Heads" })]);
        headsChoices(model).forEach((h) => {
          const input = el("input", { type: "radio", name: "sim-heads", value: String(h) });
          input.checked = h === model.heads;
          headsSet.append(el("label", {}, [input, ` ${h} head${h > 1 ? "s" : ""}`]));
        });
      }
      const temp = el("input", { type: "range", id: "sim-temperature", min: "0.1", max: "3", step: "0.1" });
      temp.value = "1";
      const tempShown = el("output", { id: "sim-temperature-value", for: "sim-temperature", text: "1.0" });
      const mode = el("fieldset", { class: "sim-mode choices" }, [el("legend", { text: "Next token" })]);
      [["greedy", "the most probable"], ["sample", "drawn at random"]].forEach(([v, label]) => {
        const input = el("input", { type: "radio", name: "sim-mode", value: v });
        input.checked = v === "greedy";
        mode.append(el("label", {}, [input, " " + label]));
      });
      const seed = el("input", { type: "number", id: "sim-seed", min: "0", max: "4294967295", step: "1", inputmode: "numeric" });
      seed.value = "1";
      const append = el("button", { type: "button", id: "sim-append", class: "sim-action md-button md-button--primary" });
      const message = el("p", { id: "sim-message", class: "sim-message", role: "alert" });
      const summary = el("p", { id: "sim-next", class: "sim-next", "aria-live": "polite" });
      const results = el("div", { id: "sim-results" });

      const sentenceRow = path ? [back, reset] : [back];
      root.append(
        el("div", { class: "sim-controls" }, [
          el("label", { for: "sim-text", class: "sim-label", text: "Sentence" }), text,
          el("p", { id: "sim-vocab-label", class: "sim-label",
                    text: `Or add tokens of the vocabulary (at most ${model.nCtx}):` }),
          vocab, el("div", { class: "sim-buttons" }, sentenceRow), ...(headsSet ? [headsSet] : []),
          el("div", { class: "sim-temperature" }, [
            el("label", { for: "sim-temperature", text: "Temperature T " }), temp, " ", tempShown]),
          mode,
          el("div", { class: "sim-seed" }, [el("label", { for: "sim-seed", text: "Seed " }), seed,
                                            el("span", { id: "sim-draw" })]),
        ]),
        message, summary, append, ...(path ? [] : [weightsEditor(model, () => update()), results]));

      const read = () => {
        const heads = path ? document.querySelector(".heads-chooser input:checked")
                           : root.querySelector("input[name=sim-heads]:checked");
        return {
          heads: heads ? Number(heads.value) : model.heads,
          temperature: Number(temp.value),
          sampled: root.querySelector("input[name=sim-mode]:checked").value === "sample",
          seed: Math.max(0, Math.floor(Number(seed.value) || 0)) >>> 0,
        };
      };

      function update() {
        survey(...inSight(root, path));  // before any write
        const o = read();
        tempShown.textContent = short(o.temperature, true);
        let tr;
        try {
          tr = run(model, text.value, o.heads, o.temperature);
        } catch (e) {
          // one message, above; the path and the button only point to it
          message.textContent = whatIsWrong(e);
          message.hidden = false;
          summary.textContent = "";
          results.hidden = true;
          if (path) showInPath(path, null, o.heads, "No tables: the sentence above cannot be run.");
          append.disabled = true;
          append.textContent = "Append the next token and run again";
          text.setAttribute("aria-invalid", "true");
          s.trace = null;
          enableTokens(tokenCount());
          return;
        }
        message.textContent = "";
        message.hidden = true;
        text.removeAttribute("aria-invalid");
        const p = tr.p[tr.ids.length - 1];
        let choice;
        if (o.sampled) {
          const r = uniform(o.seed, s.draw);
          choice = { id: sample(p, r), r };
          root.querySelector("#sim-draw").textContent = ` draw ${s.draw + 1} of seed ${o.seed}: r = ${fixed(r)}`;
        } else {
          choice = { id: argmax(p) };
          root.querySelector("#sim-draw").textContent = "";
        }
        s.trace = tr; s.choice = choice;
        const token = show(model.vocab[choice.id]);
        summary.textContent = o.sampled
          ? `Next token, drawn with r = ${fixed(choice.r)}: ${token} (p = ${fixed(p[choice.id])})`
          : `Next token: ${token} with p = ${fixed(p[choice.id])}`;
        const steps = render(model, tr, choice);
        if (!path) showSteps(results, steps);
        else {
          // the book's own run keeps the book's panels, with their sums
          const isBook = text.value === bookText && o.temperature === 1 && !o.sampled;
          showInPath(path, isBook ? null : steps, o.heads);
          reset.disabled = isBook;
        }
        const full = tr.ids.length >= model.nCtx;
        append.disabled = full;
        append.textContent = full ? `All ${model.nCtx} positions are used` : `Append ${token} and run again`;
        enableTokens(tr.ids.length);
      }

      function whatIsWrong(e) {
        if (text.value.trim() === "") return "The sentence is empty: type one, or add tokens of the vocabulary.";
        const lower = model.vocab.every((t) => t === t.toLowerCase());
        return e.message + (lower && text.value !== text.value.toLowerCase()
          ? " Every token of the vocabulary is in lower case: write the sentence in lower case." : "");
      }

      function tokenCount() {
        try { return tokenize(text.value, model.vocab).length; } catch (e) { return 0; }
      }

      function enableTokens(T) {
        vocab.querySelectorAll("button").forEach((b) => { b.disabled = T >= model.nCtx; });
      }

      s.update = update;
      text.addEventListener("input", update);
      if (headsSet) headsSet.addEventListener("change", update);
      // path.js switches the book's variants on the same change, first
      else document.querySelectorAll(".heads-chooser").forEach((c) => c.addEventListener("change", update));
      mode.addEventListener("change", update);
      temp.addEventListener("input", update);
      seed.addEventListener("input", () => { s.draw = 0; update(); });
      vocab.addEventListener("click", (event) => {
        const b = event.target.closest("button");
        if (!b) return;
        text.value += model.vocab[Number(b.dataset.id)];
        update();
      });
      back.addEventListener("click", () => {
        let ids;
        try { ids = tokenize(text.value, model.vocab); } catch (e) { return; }
        text.value = ids.slice(0, -1).map((i) => model.vocab[i]).join("");
        update();
      });
      reset.addEventListener("click", () => {
        text.value = bookText;
        temp.value = "1";
        root.querySelector("input[name=sim-mode][value=greedy]").checked = true;
        s.draw = 0;
        update();
      });
      append.addEventListener("click", () => {
        if (!s.trace) return;
        text.value += model.vocab[s.choice.id];
        if (read().sampled) s.draw += 1;
        update();
      });

      root.hidden = false;
      const fallback = document.getElementById("sim-static");
      if (fallback) fallback.hidden = true;
      update();
    }

    return { start, render, toYaml, cellName, update: (root) => state.get(root).update(),
             flush: () => later.flush(), pending: () => later.size() };
  })();

  return {
    TokenizerError, SPACE_SIGN, show, load, unpack, headsChoices, tokenize, forward, greedy, run, layernorm, gelu,
    softmax, argmax, rng, uniform, sample, fixed, short, vector, draw, ui,
  };
});
