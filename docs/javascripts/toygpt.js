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

  function load(data) {
    const model = {
      vocab: data.vocab.slice(), heads: data.heads, d: data.d, nCtx: data.n_ctx,
      width: data.width, lnEps: data.ln_eps, geluC: data.gelu_c,
    };
    for (const name of ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"]) {
      model[name] = data[name].map((row) => Float64Array.from(row));
    }
    model.vocabSize = model.vocab.length;
    return model;
  }

  /** The heads counts the model can run with: the divisors of d. */
  function headsChoices(model) {
    const out = [];
    for (let h = 1; h <= model.d; h++) if (model.d % h === 0) out.push(h);
    return out;
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
          `cannot cut "${show(piece)}" (character ${at + 1} of "${text}"): ` +
          "no token of the vocabulary starts it. " +
          `The vocabulary is: ${vocab.map(show).join(", ")}`);
      }
      ids.push(match);
      at += pieces[match].length;
    }
    return ids;
  }

  // small matrices as arrays of rows (Float64Array)
  function matmul(X, W) {
    const m = W[0].length;
    return X.map((x) => {
      const out = new Float64Array(m);
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

  /** Each row to mean 0 and variance 1 (population variance), as toycalc. */
  function layernorm(X, eps) {
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
      return x.map((v) => (v - m) / s);
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
    const ln1 = layernorm(tr.X, model.lnEps);
    tr.u = ln1.out; tr.mu = ln1.mu; tr.sigma = ln1.sigma;
    tr.Q = matmul(tr.u, model.W_Q);
    tr.K = matmul(tr.u, model.W_K);
    tr.V = matmul(tr.u, model.W_V);
    const dh = model.d / heads, scale = Math.sqrt(dh);
    tr.dots = []; tr.scores = []; tr.weights = []; tr.outputs = [];
    for (let h = 0; h < heads; h++) {
      const c0 = h * dh;
      const dots = [], scores = [], weights = [], outputs = [];
      for (let t = 0; t < T; t++) {
        const d = new Float64Array(T), s = new Float64Array(T);
        for (let j = 0; j < T; j++) {
          let dot = 0;
          for (let c = c0; c < c0 + dh; c++) dot += tr.Q[t][c] * tr.K[j][c];
          d[j] = dot;
          s[j] = j > t ? -Infinity : dot / scale;     // the causal mask
        }
        const a = softmax(s);
        const o = new Float64Array(dh);
        for (let j = 0; j < T; j++) for (let c = 0; c < dh; c++) o[c] += a[j] * tr.V[j][c0 + c];
        dots.push(d); scores.push(s); weights.push(a); outputs.push(o);
      }
      tr.dots.push(dots); tr.scores.push(scores); tr.weights.push(weights); tr.outputs.push(outputs);
    }
    // the heads side by side
    tr.A = [];
    for (let t = 0; t < T; t++) {
      const row = new Float64Array(model.d);
      for (let h = 0; h < heads; h++) row.set(tr.outputs[h][t], h * dh);
      tr.A.push(row);
    }
    tr.attn = matmul(tr.A, model.W_O);
    tr.h = add(tr.X, tr.attn);
    const ln2 = layernorm(tr.h, model.lnEps);
    tr.u2 = ln2.out; tr.mu2 = ln2.mu; tr.sigma2 = ln2.sigma;
    tr.mlp_pre = matmul(tr.u2, model.W_1);
    tr.mlp_post = tr.mlp_pre.map((row) => row.map((v) => gelu(v, model.geluC)));
    tr.m = matmul(tr.mlp_post, model.W_2);
    tr.y = add(tr.h, tr.m);
    const lnf = layernorm(tr.y, model.lnEps);
    tr.f = lnf.out; tr.mu_f = lnf.mu; tr.sigma_f = lnf.sigma;
    tr.logits = matmul(tr.f, model.W_U);
    tr.z = tr.logits.map((row) => row.map((v) => v / temperature));
    tr.p = tr.z.map(softmax);
    return tr;
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
    // toFixed rounds an exact tie away from zero, Python to the even digit;
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

    /** Every table of the path, from one trace: one entry per step of the
     *  path (toycalc/path.py's STEPS), each a title and its nodes. */
    function render(model, tr, choice) {
      const tokens = tr.ids.map((i) => show(model.vocab[i]));
      const T = tokens.length, H = tr.heads, last = T - 1;
      const weightsVec = (v) => vector(v, (x) => short(x, true));
      const dHeader = (s) => Array.from({ length: model.d }, (_, c) => `${s}${c + 1}`);
      const steps = [];
      const step = (title, ...nodes) => steps.push({ n: steps.length + 1, title, nodes });
      step("Tokens and ids",
        table("sim-ids", "The sentence cut into tokens, and their ids", ["token"].concat(tokens),
              [["id"].concat(tr.ids.map(String))], { rowHeader: true }));
      step("The table E",
        table("sim-E", "The embedding table E, the sentence's rows in bold", ["id", "token"].concat(dHeader("c")),
              model.vocab.map((t, i) => [String(i), show(t)].concat(Array.from(model.E[i], (v) => short(v)))),
              { bold: new Set(tr.ids) }));
      step("Position: X",
        table("sim-X", "Each token's row of E plus its position's row of P",
              ["token", "E[id]", "P_t", "x_t = E[id] + P_t"],
              tokens.map((t, i) => [t, weightsVec(tr.E_ids[i]), weightsVec(tr.P_t[i]), weightsVec(tr.X[i])]),
              { rowHeader: true }));
      step("LayerNorm: u",
        table("sim-u", "Each row of X shifted to mean 0 and scaled to standard deviation 1",
              ["token", "μ", "σ"].concat(dHeader("u")),
              tokens.map((t, i) => [t, fixed(tr.mu[i]), fixed(tr.sigma[i])].concat(Array.from(tr.u[i], (v) => fixed(v)))),
              { rowHeader: true }));
      step("Query, key and value",
        table("sim-QKV", "Q = u W_Q, K = u W_K, V = u W_V",
              ["token", "Q", "K", "V"],
              tokens.map((t, i) => [t, vector(tr.Q[i]), vector(tr.K[i]), vector(tr.V[i])]),
              { rowHeader: true }));
      const heads = [];
      for (let h = 0; h < H; h++) {
        const head = h + 1;
        heads.push(table(`sim-scores-${head}`,
          `Head ${head}: scores s = q·k / √${model.d / H}, one row per position (−∞: hidden by the mask)`,
          [`head ${head}`].concat(tokens),
          tokens.map((t, i) => [t].concat(Array.from(tr.scores[h][i], (v) => (v === -Infinity ? "−∞" : fixed(v))))),
          { rowHeader: true }));
        heads.push(table(`sim-weights-${head}`,
          `Head ${head}: the weights a = softmax(s) of each row (blank: masked)`,
          [`head ${head}`].concat(tokens),
          tokens.map((t, i) => [t].concat(Array.from(tr.weights[h][i], (v, j) => (j > i ? null : fixed(v))))),
          { rowHeader: true }));
      }
      step(`The heads (${H})`, ...heads);
      const oHeader = Array.from({ length: H }, (_, h) => `o (head ${h + 1})`);
      step("Mix the values, join the heads",
        table("sim-mix", "Each head's average of the values, the heads joined (A), A W_O, and h = x + A W_O",
              ["token"].concat(oHeader, ["A", "A W_O", "h"]),
              tokens.map((t, i) => [t].concat(tr.outputs.map((o) => vector(o[i])),
                                              [vector(tr.A[i]), vector(tr.attn[i]), vector(tr.h[i])])),
              { rowHeader: true }));
      step("LayerNorm again, and the MLP",
        table("sim-mlp", "u' = LN(h), then GELU(u' W_1) W_2 = m, and y = h + m",
              ["token", "u'", "u' W_1", "GELU(u' W_1)", "m", "y"],
              tokens.map((t, i) => [t, vector(tr.u2[i]), vector(tr.mlp_pre[i]), vector(tr.mlp_post[i]),
                                    vector(tr.m[i]), vector(tr.y[i])]),
              { rowHeader: true }));
      const z = tr.z[last], p = tr.p[last], logits = tr.logits[last];
      const order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
      step("Logits and probabilities",
        el("p", { id: "sim-f", text: `f_${T} = LN(y_${T}) = ${vector(tr.f[last])}; each logit is f_${T} times a column of W_U, then divided by T = ${short(tr.temperature)}.` }),
        table("sim-softmax", `The next token after position ${T}, most probable first`,
              ["token", "logit", "z = logit / T", "e^z", "p"],
              order.map((i) => [show(model.vocab[i]), fixed(logits[i]), fixed(z[i]), fixed(Math.exp(z[i])), fixed(p[i])]),
              { rowHeader: true, bold: new Set([order.indexOf(choice.id)]) }));
      return steps;
    }

    /** The simulator's own page: one section per step. */
    function showSteps(results, steps) {
      results.replaceChildren(...steps.map(({ n, title, nodes }) =>
        el("section", { class: "sim-step" }, [el("h2", { text: `${n}. ${title}` }), ...nodes])));
      results.hidden = false;
    }

    /** The End-to-End page: each step's tables go into that step's panel
     *  of the path, in place of the book's (for the heads shown); with
     *  steps = null the path shows the book's sentence again. */
    function showInPath(path, steps, heads, message) {
      path.classList.toggle("path--live", steps !== null || message !== undefined);
      path.querySelectorAll(".path-panel").forEach((panel, k) => {
        panel.querySelectorAll(".path-body").forEach((body) => {
          let live = body.querySelector(":scope > .path-live");
          if (!live) {
            live = el("div", { class: "path-live" });
            body.insertBefore(live, body.querySelector(":scope > .path-box"));
          }
          const variant = body.closest(".heads-variant");
          if (variant && variant.dataset.heads !== String(heads)) live.replaceChildren();
          else if (message !== undefined) live.replaceChildren(el("p", { class: "sim-message", text: message }));
          else if (steps) live.replaceChildren(...steps[k].nodes);
          else live.replaceChildren();
        });
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
        message, summary, append, ...(path ? [] : [results]));

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

    return { start, render, update: (root) => state.get(root).update() };
  })();

  return {
    TokenizerError, SPACE_SIGN, show, load, headsChoices, tokenize, forward, run, layernorm, gelu,
    softmax, argmax, rng, uniform, sample, fixed, short, vector, ui,
  };
});
