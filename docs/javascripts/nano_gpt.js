// nano_gpt.js: the twin of toycalc/book/nano_gpt/ (nano-gpt's live chapter:
// its LIVE registry, `heat`, `openable`) and of toycalc/book/nano_example.py's Run.
//
// Every output the build marks as depending on the input (data-nano-live,
// the chapter's LIVE registry), drawn again for the reader's letters in the
// chapter's markup, string for string (tests/book/test_nanogpt_switch.py,
// for several inputs): MATRICES, TABLES, FORMULAS, NUMBERS and FIGURES
// below hold one function each, under the Python function's registered
// name, and tests/test_mirrors.py checks they are LIVE's names exactly. A
// matrix that stops at "N more rows" opens in full (fullMarkup: the markup
// of `heat` for every row and column, tests/book/test_nanogpt_live.py).
// All on gpt.js's model (nothing of it is written again here), render.js's
// numbers and draw.js's figures. `args` are the data-nano-args the build
// wrote: every option of the Python function, defaults filled in. Pure
// functions, no page: the same ES module in Node and in a page
// (letters.js wires it to the page).

import * as gpt from "./gpt.js";
import * as render from "./render.js";
import * as draw from "./draw.js";
import * as charts from "./charts.js";
import * as modelDrawing from "./model_drawing.js";

const { fixed, tex, count, htmlTable, inlineMath: im, mathBlock, aligned, alignedRows } = render;

// ------------------------------------------------------------ the reader's letters

class InputError extends Error {}

/** The reader's text as ids: any case, spaces allowed, exactly `length`
 *  letters of the vocabulary; else an InputError that says what to type. */
function parseLetters(text, vocab, length) {
  const letters = Array.from(text).filter((ch) => !/\s/.test(ch));
  const known = vocab.join(", ").replace(/, ([^,]*)$/, " or $1");
  const foreign = letters.find((ch) => !vocab.includes(ch.toUpperCase()));
  if (foreign !== undefined) {
    throw new InputError(`"${foreign}" is not a letter nano-gpt knows: type ${length} letters, each ${known}.`);
  }
  if (letters.length !== length) {
    throw new InputError(`${letters.length} letter${letters.length === 1 ? "" : "s"}: ` +
                         `nano-gpt sorts exactly ${length}, each ${known}.`);
  }
  return letters.map((ch) => vocab.indexOf(ch.toUpperCase()));
}

/** The ids of the chapter's example, as a table's data-example names them. */
function exampleIds(model, text) {
  return parseLetters(text, model.vocab, Array.from(text).filter((ch) => !/\s/.test(ch)).length);
}

/** Run.steps: the generation loop, `length` greedy steps, each with the
 *  ids read, p of every letter, and the id appended. */
function sortLetters(model, ids, length) {
  const run = gpt.greedy(model, ids, length);
  return run.probabilities.map((p, k) => ({ ids: run.ids.slice(0, ids.length + k), p, next: run.ids[ids.length + k] }));
}

/** Run: the chapter's input, its forward pass and its generation loop,
 *  with what every output below reads. */
function nanoRun(model, ids) {
  const tr = gpt.forward(model, ids), d = model.d, V = model.vocab;
  const letters = ids.map((i) => V[i]);
  return { model, ids, tr, T: ids.length, d, H: tr.heads, Ah: d / tr.heads, V, letters, text: letters.join(" "),
           steps: sortLetters(model, ids, ids.length) };
}

// ------------------------------------------------------------ helpers

const MINUS = render.MINUS;
// cells.kind_words: what a matrix's caption says of its cells
const ACT = "activations, computed from this input: blue negative, orange positive";
const WEIGHT = "learned weights, framed: the same for every input; blue negative, orange positive";
const PROB = "computed from this input, each from 0 to 1: the stronger the purple, the larger";
const MLP_NAMES = { mlp_pre: "MLP hidden layer before GELU", mlp_post: "MLP hidden layer after GELU",
                    m: "MLP output", y: "Block output", h: "After attention" };
const QKV_NAMES = { Q: "Queries", K: "Keys", V: "Values" };

const range = (n) => Array.from({ length: n }, (_, i) => i);
const norm = (x) => Math.sqrt(Array.from(x).reduce((s, v) => s + v * v, 0));
const sum = (x) => Array.from(x).reduce((s, v) => s + v, 0);
const maxOf = (x) => Math.max(...Array.from(x));
const mean = (x) => sum(x) / x.length;
const variance = (x) => { const m = mean(x); return mean(Array.from(x, (v) => (v - m) * (v - m))); };
const argmax = (x) => gpt.argmax(Array.from(x));
const dots = (n) => Array(n).fill("⋮");
// a.block, a.head, a.t and a.c count from 1, as the book does (the page's options); arrays from 0
const blk = (r, a) => r.tr.blocks[Number(a.block) - 1];
const params = (r, a) => r.model.blocks[Number(a.block) - 1];

function valuesRange(M) {
  let lo = Infinity, hi = -Infinity;
  for (const row of M) for (const v of row) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return `from ${fixed(lo)} to ${fixed(hi)}`;
}

/** Where a row of attention weights (the query at position t, from 1) looks most. */
function look(r, row, t) {
  const j = argmax(Array.from(row).slice(0, t));
  return `${r.V[r.ids[j]]} at j = ${j + 1} (${fixed(row[j])})`;
}

/** 'a', 'a and b', 'a, b and c' (render.and_list). */
const andList = (words) => (words.length === 1 ? words[0] : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`);

/** Whether a head's row t looks most at a copy of the smallest letter so far (self_attention.finds_smallest_number). */
function findsSmallest(r, row, t) {
  const smallest = Math.min(...r.ids.slice(0, t));
  return r.ids[argmax(Array.from(row).slice(0, t))] === smallest
    ? "a copy of the smallest letter so far" : `not the smallest letter so far, ${r.V[smallest]}`;
}

/** What the heads hand on from position t (transformer.blend_number). */
function blend(r, t) {
  const strongest = r.tr.blocks.flatMap((b) => b.weights.map((w) => maxOf(Array.from(w[t - 1]).slice(0, t))));
  const sharp = strongest.filter((w) => w >= 0.5).length;
  if (sharp === 0) return "so every head hands on a blend of several positions' values";
  if (sharp === strongest.length) return "so every head hands on mostly one position's value";
  return `so ${sharp} of the ${strongest.length} heads hand${sharp === 1 ? "s" : ""} on mostly one ` +
         "position's value and the others a blend of several";
}

/** Which letters a block's heads look at most from position t (transformer.lean_number). */
function lean(r, weights, t) {
  const letters = weights.map((w) => r.V[r.ids[argmax(Array.from(w[t - 1]).slice(0, t))]]);
  if (new Set(letters).size === 1) return `all lean towards the ${letters[0]}`;
  const heads = new Map();
  letters.forEach((x, h) => heads.set(x, (heads.get(x) || []).concat(String(h + 1))));
  return "lean towards " + andList(Array.from(heads, ([x, hs]) => `the ${x} (head${hs.length > 1 ? "s" : ""} ${andList(hs)})`));
}

/** An axis tick: the value in as few places as it needs. */
const tick = (v) => (v ? (v.toFixed(2).replace(/0+$/, "").replace(/\.$/, "").replace(/-/g, MINUS)) : "0");

/** The first cell is the matrix's one Tab stop (one_tab_stop). */
const oneTabStop = (markup) => markup.replace('tabindex="-1"', 'tabindex="0"');

/** cells.tone: purple for a share, else the sign of what the cell prints. */
function tone(value, text, kind) {
  if (kind === "prob") return "nano-prob";
  return text === fixed(0) ? "nano-zero" : value > 0 ? "nano-pos" : "nano-neg";
}

/** One coloured cell: its value printed, in its title and aria-label; a weight's framed. */
function cell(value, kind, label, scale) {
  const text = fixed(value);
  const alpha = scale > 0 ? 0.08 + 0.55 * Math.min(Math.abs(value) / scale, 1) : 0.08;
  const said = draw.esc(`${label}: ${text}`);
  const framed = kind === "weight" ? " nano-weight" : "";
  return `<td class="nano-cell ${tone(value, text, kind)}${framed}" tabindex="-1" title="${said}" ` +
         `aria-label="${said}" style="--shade:${fixed(alpha, 2)}">${text}</td>`;
}

/** The largest |value| of a matrix (rows of numbers); a share's scale is 1. */
function scaleOf(M, kind) {
  if (kind === "prob") return 1;
  let scale = 0;
  for (const row of M) for (const v of row) scale = Math.max(scale, Math.abs(v));
  return scale;
}

/** A matrix as coloured cells; M indexed [row][col] as displayed. */
function heat(id, M, kind, rows, rowNames, cols, colNames, label, caption, blank, moreRows, moreCols) {
  blank = blank || (() => false);
  const scale = scaleOf(M, kind);
  let head = colNames.map((n) => `<th scope="col">${n}</th>`).join("");
  if (moreCols) head += `<th scope="col">… ${moreCols} more</th>`;
  const lines = [`<table id="${draw.esc(id)}" class="nano-matrix nano-matrix--${kind}">`,
                 `<caption>${caption}</caption>`, `<thead><tr><td></td>${head}</tr></thead>`, "<tbody>"];
  rows.forEach((r, k) => {
    let cells = cols.map((c) => (blank(r, c) ? '<td class="nano-cell nano-masked"></td>'
                                             : cell(M[r][c], kind, label(r, c), scale))).join("");
    if (moreCols) cells += '<td class="nano-more">…</td>';
    lines.push(`<tr><th scope="row">${rowNames[k]}</th>${cells}</tr>`);
  });
  if (moreRows) {
    lines.push(`<tr><th scope="row">⋮</th><td class="nano-more" colspan="${cols.length + (moreCols ? 1 : 0)}">` +
               `${moreRows} more rows</td></tr>`);
  }
  lines.push("</tbody></table>");
  return oneTabStop(lines.join("\n"));
}

/** Activations drawn with one row per position, one column per channel (the
 *  first `cols`, or colPicks); M is T x n; kind "prob" for shares. */
function activations(r, id, M, what, symbol, cols, colNames, colPicks, moreCols, kind = "act") {
  const n = M[0].length, picks = colPicks || range(Math.min(cols, n)), T = r.T;
  const names = colNames || picks.map((c) => `c = ${c + 1}`);
  const shown = picks.length === n ? `all ${n} columns` : `${picks.length} of its ${n} columns`;
  const caption = `${what} ${im(symbol)}: ${T} × ${n}, one row per letter; ` +
                  `${shown}, its ${count(T * n)} values run ${valuesRange(M)} (${kind === "prob" ? PROB : ACT})`;
  const more = moreCols === undefined ? (colPicks ? 0 : n - picks.length) : moreCols;
  return heat(id, M, kind, range(T), r.letters.map((l, t) => `t = ${t + 1} ${l}`), picks, names,
              (t, c) => `${what}, t = ${t + 1} (${r.letters[t]}), channel ${c + 1}`, caption, null, 0, more);
}

// ------------------------------------------------------------ a matrix in full (openable)

/** What `spec` (a table's data attributes) names, computed on the trace
 *  tr of the chapter's example: the matrix as displayed (rows x columns),
 *  its kind, the names of its rows and columns and label(r, c), the
 *  words of a cell, as the chapter's matrix functions give them. */
function matrixOf(model, tr, spec) {
  // block and head count from 1 (the page's options)
  const vocab = model.vocab, b = Number(spec.block || 1), head = Number(spec.head || 1);
  const letters = tr.ids.map((i) => vocab[i]);
  const blk = tr.blocks[b - 1];
  const channels = (M) => Array.from(M[0], (_, c) => `c = ${c + 1}`);
  // activations: one row per position, one column per channel
  const act = (A, what) => {
    const M = A.map((row) => Array.from(row));
    return { M, kind: "act", rowNames: letters.map((l, t) => `t = ${t + 1} ${l}`), colNames: channels(M),
             label: (t, c) => `${what}, t = ${t + 1} (${letters[t]}), channel ${c + 1}` };
  };
  // weights: as stored, rows and columns from 1
  const weights = (W, what, colNames) => ({
    M: W.map((row) => Array.from(row)), kind: "weight", rowNames: W.map((_, i) => String(i + 1)),
    colNames: colNames || Array.from(W[0], (_, j) => String(j + 1)),
    label: (i, j) => `${what}, row ${i + 1}, column ${j + 1}`,
  });
  switch (spec.nanoFull) {
    case "E": {
      const M = model.E.map((row) => Array.from(row));
      return { M, kind: "weight", rowNames: vocab.map((l, i) => `${l} (${i})`), colNames: channels(M),
               label: (i, c) => `token embedding of ${vocab[i]}, channel ${c + 1}` };
    }
    case "P": {
      const M = model.P.map((row) => Array.from(row));
      return { M, kind: "weight", rowNames: M.map((_, t) => `t = ${t + 1}`), colNames: channels(M),
               label: (t, c) => `position embedding of t = ${t + 1}, channel ${c + 1}` };
    }
    case "X": return act(tr.X, "Input embedding");
    case "u": return act(blk.u, `Normalised input of block ${b}`);
    case "qkv": {
      const A = model.d / tr.heads, c0 = (head - 1) * A;
      return act(blk[spec.which].map((row) => row.slice(c0, c0 + A)),
                 `${QKV_NAMES[spec.which]} of head ${head}, block ${b},`);
    }
    case "mlp": return act(blk[spec.which], `${MLP_NAMES[spec.which]}, block ${b}`);
    case "A": {
      const m = act(blk.A, `Heads stacked, block ${b}`), A = model.d / tr.heads;
      m.colNames = m.M[0].map((_, c) => `head ${Math.floor(c / A) + 1}<br>c = ${c + 1}`);
      return m;
    }
    case "W":
      if (spec.name === "W_U") return weights(model.W_U, "Output matrix", vocab.map((l, i) => `${l} (${i})`));
      return weights(model.blocks[b - 1][spec.name], `Block ${b}'s weight matrix`);
    default:
      throw new RangeError(`data-nano-full="${spec.nanoFull}": no such matrix`);
  }
}

/** The head and body of the whole matrix, in `heat`'s markup: the same
 *  cells (value, title, aria-label, shade) for every row and column. */
function fullMarkup(model, tr, spec) {
  const { M, kind, rowNames, colNames, label } = matrixOf(model, tr, spec);
  const scale = scaleOf(M, kind);
  const lines = [`<thead><tr><td></td>${colNames.map((n) => `<th scope="col">${n}</th>`).join("")}</tr></thead>`,
                 "<tbody>"];
  M.forEach((row, r) => {
    lines.push(`<tr><th scope="row">${rowNames[r]}</th>${row.map((v, c) => cell(v, kind, label(r, c), scale)).join("")}</tr>`);
  });
  lines.push("</tbody>");
  return oneTabStop(lines.join("\n"));
}

// ------------------------------------------------------------ the live outputs, by the chapter's names

/** cells.weights: a weight matrix's top-left corner, with its shape and range. */
function weightCorner(id, W, what, symbol, rows, cols, colNames) {
  const n = W.length, m = W[0].length, r = Math.min(rows, n), c = Math.min(cols, m);
  const shown = r === n && c === m ? "all of it" : `rows 1 to ${r} and columns 1 to ${c}`;
  const caption = `${what} ${im(symbol)}: ${n} × ${m}, ${shown}; its ${count(n * m)} values run ` +
                  `${valuesRange(W)} (${WEIGHT})`;
  return heat(id, W, "weight", range(r), range(r).map((i) => String(i + 1)), range(c),
              colNames || range(c).map((j) => String(j + 1)),
              (i, j) => `${what}, row ${i + 1}, column ${j + 1}`, caption, null, n - r, m - c);
}

/** An embedding (E or P) with one row per letter or position, its first `cols` channels. */
function embedding(r, id, M, symbol, per, rowNames, label, cols) {
  return heat(id, M, "weight", range(rowNames.length), rowNames, range(cols), range(cols).map((c) => `c = ${c + 1}`),
              label, `${per[0]} ${im(symbol)}: one row of ${r.d} per ${per[1]}, ${cols} of its ${r.d} columns; ` +
              `its values run ${valuesRange(M)} (${WEIGHT})`, null, 0, r.d - cols);
}

const MATRICES = {
  // the weights: they change only when the reader follows weights trained in the page
  E: (r, a) => embedding(r, "nano-E", r.model.E, "E", ["Token embedding", "letter"], r.V.map((l, i) => `${l} (${i})`),
                         (i, c) => `token embedding of ${r.V[i]}, channel ${c + 1}`, a.cols),
  P: (r, a) => embedding(r, "nano-P", r.model.P, "P", ["Position embedding", "position"],
                         range(r.model.P.length).map((t) => `t = ${t + 1}`),
                         (t, c) => `position embedding of t = ${t + 1}, channel ${c + 1}`, a.cols),
  W(r, a) {
    if (a.name === "W_U") {
      return weightCorner("nano-W_U", r.model.W_U, "Output matrix", "W_U", a.rows, a.cols, r.V.map((l, i) => `${l} (${i})`));
    }
    return weightCorner(`nano-${a.name}-${a.block}`, params(r, a)[a.name], `Block ${a.block}'s weight matrix`, a.name,
                        a.rows, a.cols);
  },
  X: (r, a) => activations(r, "nano-X", r.tr.X, "Input embedding", "x", a.cols),
  u: (r, a) => activations(r, `nano-u-${a.block}`, blk(r, a).u, `Normalised input of block ${a.block}`,
                           "u = \\mathrm{LN}(x)", a.cols),
  qkv: (r, a) => activations(r, `nano-${a.which}-${a.block}-${a.head}`,
                             blk(r, a)[a.which].map((row) => Array.from(row).slice((a.head - 1) * r.Ah, a.head * r.Ah)),
                             `${QKV_NAMES[a.which]} of head ${a.head}, block ${a.block},`, a.which.toLowerCase(), a.cols),
  attention(r, a) {
    const w = blk(r, a).weights[a.head - 1], T = r.T;
    const caption = `Attention weights of head ${a.head}, block ${a.block}: row t is the query at position t, ` +
                    "column j the key it reads; the hatched cells are the future, masked " + `(${PROB})`;
    return heat(`nano-attention-${a.block}-${a.head}`, w, "prob", range(T), r.letters.map((l, t) => `t = ${t + 1} ${l}`),
                range(T), r.letters.map((l, j) => `j = ${j + 1}<br>${l}`), (t, j) => `weight of t = ${t + 1} on j = ${j + 1}`,
                caption, (t, j) => j > t);
  },
  A(r, a) {
    const picks = [];
    for (let h = 0; h < r.H; h++) for (let i = 0; i < Math.min(a.per_head, r.Ah); i++) picks.push(h * r.Ah + i);
    return activations(r, `nano-A-${a.block}`, blk(r, a).A, `Heads stacked, block ${a.block}`, "a", 0,
                       picks.map((c) => `head ${Math.floor(c / r.Ah) + 1}<br>c = ${c + 1}`), picks, r.d - picks.length);
  },
  mlp(r, a) {
    const symbols = { mlp_pre: "u' W_1 + b_1", mlp_post: "\\mathrm{GELU}(u' W_1 + b_1)", m: "m", y: "y", h: "h" };
    return activations(r, `nano-${a.which}-${a.block}`, blk(r, a)[a.which], `${MLP_NAMES[a.which]}, block ${a.block}`,
                       symbols[a.which], a.cols);
  },
  p: (r) => activations(r, "nano-p", r.tr.p, "Output probabilities", "p", r.V.length, r.V.map((l) => `p(${l})`), [0, 1, 2],
                       undefined, "prob"),
};

const TABLES = {
  training(r) {
    const rec = recordOf(r), opt = rec.optimizer || {};
    if (!Object.keys(rec).length) return "<p><em>No training record beside the weights file.</em></p>";
    const betas = (opt.betas || []).map(pyStr);
    const rows = [["seed", String(rec.seed)], ["batch", String(rec.batch)],
      ["optimiser", plain(`${opt.name}, learning rate ${pyStr(opt.lr)}, betas (${betas.join(", ")}${betas.length === 1 ? "," : ""}), ` +
                          `weight decay ${pyStr(opt.weight_decay)}`)],
      ["steps", count(rec.steps || 0)],
      ["final training loss", plain(`${fixed(rec.final_loss, 4)} (${rec.final_loss_means || ""})`)],
      ["loss on all 729 inputs", fixed(rec.loss_on_729, 4)],
      ["inputs sorted by greedy decoding", `${rec.accuracy_on_729} of 729`]];
    if ("stored_as" in rec) rows.splice(3, 0, ["computed in", plain(String(rec.dtype))], ["weights stored as", plain(String(rec.stored_as))]);
    return htmlTable("nano-training", ["", "this model"], rows);
  },
  legend({ model, tr, T, V }) {
    // index.legend_table: the smallest, a zero and the largest of x and of E, then p at the last t
    const signed = (M, kind, what, where) => {
      const s = scaleOf(M, kind);
      let lo = [0, 0], hi = [0, 0];
      M.forEach((row, i) => Array.from(row).forEach((v, c) => {
        if (v < M[lo[0]][lo[1]]) lo = [i, c];
        if (v > M[hi[0]][hi[1]]) hi = [i, c];
      }));
      return [cell(M[lo[0]][lo[1]], kind, `${what}, the smallest: ${where(...lo)}`, s), cell(0, kind, `${what}, zero`, s),
              cell(M[hi[0]][hi[1]], kind, `${what}, the largest: ${where(...hi)}`, s)].join("");
    };
    const rowX = signed(tr.X, "act", "an activation", (t, c) => `x at t = ${t + 1}, channel ${c + 1}`);
    const rowW = signed(model.E, "weight", "a weight", (i, c) => `E of ${V[i]}, channel ${c + 1}`);
    const rowP = V.map((l, i) => cell(tr.p[T - 1][i], "prob", `a share, p(${l}) at t = ${T}`, 1)).join("");
    return oneTabStop(['<table id="nano-legend" class="nano-matrix nano-legend">',
      "<caption>How the chapter draws numbers: blue negative, grey zero, orange positive, the shade " +
      "by the size against the largest of its matrix; a learned weight framed; a share from 0 to 1 " +
      "purple</caption>",
      '<thead><tr><td></td><th scope="col">negative</th><th scope="col">zero</th>' +
      '<th scope="col">positive</th></tr></thead>', "<tbody>",
      `<tr><th scope="row">an activation, computed from this input</th>${rowX}</tr>`,
      `<tr><th scope="row">a learned weight (framed), the same for every input</th>${rowW}</tr>`,
      `<tr><td></td>${V.map((l) => `<th scope="col">p(${l})</th>`).join("")}</tr>`,
      `<tr><th scope="row">a share from 0 to 1: an attention weight, a probability</th>${rowP}</tr>`,
      "</tbody></table>"].join("\n"));
  },
  embed({ ids, tr, V, d }, a) {
    const t = a.t, row = t - 1, i = ids[row];
    const body = range(a.rows).map((c) => [String(c + 1), fixed(tr.E_ids[row][c]), fixed(tr.P_t[row][c]), fixed(tr.X[row][c])]);
    body.push(dots(4));
    return htmlTable(`nano-embed-${t}`, ["channel", `token ${V[i]}: ${im(`E[${i}]`)}`, `position: ${im(`P_${t}`)}`,
                                         im(`x_${t}`)], body, `The row of t = ${t}, first ${a.rows} of ${d} channels`);
  },
  layernorm(r, a) {
    const t = a.t, i = t - 1, b = blk(r, a), p = params(r, a), x = b.X[i], mu = b.mu[i], sigma = b.sigma[i];
    const body = range(a.rows).map((c) => [String(c + 1), fixed(x[c]), fixed(x[c] - mu), fixed((x[c] - mu) / sigma),
                                           fixed(p.gamma_1[c]), fixed(p.beta_1[c]), fixed(b.u[i][c])]);
    body.push(dots(7));
    return htmlTable(`nano-layernorm-${a.block}-${t}`,
      ["channel", im(`x_${t}`), im("x - \\mu"), im("\\hat x"), im("\\gamma"), im("\\beta"), im("u")], body,
      `LayerNorm of the row t = ${t} in block ${a.block}, first ${a.rows} of ${r.d} channels: ` +
      im("\\hat x = (x - \\mu)/\\sigma") + ", " + im("u = \\gamma \\hat x + \\beta"));
  },
  attention_row(r, a) {
    const t = a.t, b = blk(r, a), h = a.head - 1;
    const dt = b.dots[h][t - 1], s = b.scores[h][t - 1], w = b.weights[h][t - 1];
    const m = maxOf(Array.from(s).slice(0, t)), e = Array.from(s).slice(0, t).map((v) => Math.exp(v - m));
    const body = range(t).map((j) => [String(j + 1), r.V[r.ids[j]], fixed(dt[j]), fixed(s[j]), fixed(s[j] - m),
                                      fixed(e[j]), fixed(w[j])]);
    body.push(["<strong>sum</strong>", "", "", "", "", `<strong>${fixed(sum(e))}</strong>`,
               `<strong>${fixed(sum(Array.from(w).slice(0, t)))}</strong>`]);
    return htmlTable(`nano-attention-row-${a.block}-${a.head}-${t}`,
      [im("j"), "letter", im(`q_${t} \\cdot k_j`), im("s"), im("s - \\max s"), im("e^{s - \\max s}"), im(`a_{${t},j}`)],
      body, `Head ${a.head} of block ${a.block}, the query of t = ${t} against every key up to it, ` +
            im(`s = q_${t} \\cdot k_j / \\sqrt{${r.Ah}}`) + `: max of the scores ${fixed(m)}, ` +
            `sum of the exponentials ${fixed(sum(e))}`);
  },
  residual(r, a) {
    const t = a.t, i = t - 1, b = blk(r, a);
    const body = range(a.rows).map((c) => [String(c + 1), fixed(b.A[i][c]), fixed(b.attn[i][c]), fixed(b.X[i][c]), fixed(b.h[i][c])]);
    body.push(dots(5));
    return htmlTable(`nano-residual-${a.block}-${t}`,
      ["channel", im(`a_${t}`) + " (heads stacked)", im(`a_${t} W_O + b_O`), im(`x_${t}`) + " (block input)",
       im(`h_${t} = x_${t} + a_${t} W_O + b_O`)], body,
      `Projection and residual at t = ${t}, block ${a.block}, first ${a.rows} of ${r.d} channels`);
  },
  mlp_hidden(r, a) {
    const t = a.t, i = t - 1, b = blk(r, a);
    const body = range(a.rows).map((c) => [String(c + 1), fixed(b.mlp_pre[i][c]), fixed(b.mlp_post[i][c])]);
    body.push(dots(3));
    return htmlTable(`nano-mlp-hidden-${a.block}-${t}`, ["channel", im(`u'_${t} W_1 + b_1`), im("\\mathrm{GELU}(\\cdot)")],
      body, `The MLP's hidden layer at t = ${t}, block ${a.block}, first ${a.rows} of ${b.mlp_pre[i].length} channels`);
  },
  mlp_out(r, a) {
    const t = a.t, i = t - 1, b = blk(r, a);
    const body = range(a.rows).map((c) => [String(c + 1), fixed(b.h[i][c]), fixed(b.u2[i][c]), fixed(b.m[i][c]), fixed(b.y[i][c])]);
    body.push(dots(5));
    return htmlTable(`nano-mlp-out-${a.block}-${t}`,
      ["channel", im(`h_${t}`), im(`u'_${t} = \\mathrm{LN}(h_${t})`), im(`m_${t}`), im(`y_${t} = h_${t} + m_${t}`)], body,
      `In and out of the MLP at t = ${t}, block ${a.block}, first ${a.rows} of ${r.d} channels`);
  },
  blocks({ tr }, a) {
    const t = a.t, i = t - 1;
    const body = tr.blocks.map((b, k) => [String(k + 1), fixed(norm(b.X[i])), fixed(norm(b.attn[i])), fixed(norm(b.m[i])),
                                          fixed(norm(b.y[i]))]);
    return htmlTable(`nano-blocks-${t}`, ["block", im(`\\lVert x_${t} \\rVert`) + " in", im("\\lVert a W_O + b_O \\rVert"),
                                          im("\\lVert m \\rVert"), im(`\\lVert y_${t} \\rVert`) + " out"], body,
      `The row t = ${t} through the blocks (${im("\\lVert\\cdot\\rVert")}: its length)`);
  },
  looks(r, a) {
    const t = a.t;
    const body = r.tr.blocks.map((b, k) => [String(k + 1)].concat(range(r.H).map((h) => look(r, b.weights[h][t - 1], t))));
    return htmlTable(`nano-looks-${t}`, ["block"].concat(range(r.H).map((h) => `head ${h + 1}`)), body,
      `Where each head looks most from t = ${t}: the letter, its position and its weight`);
  },
  softmax({ tr, V }, a) {
    const t = a.t, z = Array.from(tr.z[t - 1]), p = Array.from(tr.p[t - 1]), m = maxOf(z), e = z.map((v) => Math.exp(v - m));
    const body = V.map((l, i) => [l, fixed(z[i]), fixed(z[i] - m), fixed(e[i]), fixed(p[i])]);
    body.push(["<strong>sum</strong>", "", "", `<strong>${fixed(sum(e))}</strong>`, `<strong>${fixed(sum(p))}</strong>`]);
    return htmlTable(`nano-softmax-${t}`, ["letter", im("z"), im(`z - ${tex(fixed(m))}`), im("e^{z - \\max z}"), im("p")],
      body, `The softmax of the row t = ${t}: max ${fixed(m)}, sum ${fixed(sum(e))}`);
  },
  generate: ({ steps, V }) => htmlTable("nano-generate", ["step", "the model reads", "p(A)", "p(B)", "p(C)", "appends"],
    steps.map((s, k) => [String(k + 1), s.ids.map((i) => V[i]).join(" ")].concat(s.p.map((v) => fixed(v)),
                                                                                 [`<strong>${V[s.next]}</strong>`])),
    "Greedy decoding: the probabilities of the last column, and the letter appended"),
};

const FORMULAS = {
  layernorm(r, a) {
    const t = a.t, i = t - 1, b = blk(r, a), d = r.d;
    return aligned([
      ["\\mu", `\\frac{1}{${d}}\\sum_{c=1}^{${d}} x_{${t},c} = ${tex(fixed(b.mu[i], 5))}`],
      ["\\sigma", `\\sqrt{\\mathrm{Var}[x_${t}] + \\varepsilon} = \\sqrt{${tex(fixed(variance(b.X[i]), 6))} + 10^{-5}}` +
                  ` = ${tex(fixed(b.sigma[i], 5))}`]]);
  },
  q_cell(r, a) {
    // with a head, c counts that head's channels (as its table does); col is W_Q's column
    const t = a.t, c = a.c, col = a.head ? (a.head - 1) * r.Ah + c : c;
    const b = blk(r, a), p = params(r, a), u = b.u[t - 1];
    const parts = range(a.terms).map((k) => `(${tex(fixed(u[k]))})(${tex(fixed(p.W_Q[k][col - 1]))})`).join(" + ");
    return aligned([[`Q_{${t},${c}}`, `\\sum_{k=1}^{${r.d}} u_{${t},k} (W_Q)_{k,${col}} + (b_Q)_{${col}}`],
                    ["", `${parts} + \\dots + (${tex(fixed(p.b_Q[col - 1]))})`], ["", tex(fixed(b.Q[t - 1][col - 1]))]]);
  },
  head_output(r, a) {
    const t = a.t, b = blk(r, a), w = b.weights[a.head - 1][t - 1], o = Array.from(b.outputs[a.head - 1][t - 1]);
    const terms = range(t).map((j) => `${tex(fixed(w[j]))}\\, v_${j + 1}`);
    const lines = [`o_${t} &= ` + terms.slice(0, 3).join(" + ")];
    for (let k = 3; k < terms.length; k += 3) lines.push("&\\quad + " + terms.slice(k, k + 3).join(" + "));
    lines.push(`&= [${o.slice(0, a.channels).map((x) => tex(fixed(x))).join(", ")}, \\dots]` +
               `\\quad (${o.length} \\text{ values})`);
    return alignedRows(lines);
  },
  gelu(r, a) {
    const b = blk(r, a);
    return aligned([["\\mathrm{GELU}(x)", "\\tfrac12 x\\left(1 + \\tanh\\left(\\sqrt{2/\\pi}\\,(x + 0.044715\\, x^3)\\right)\\right)"],
                    [`\\mathrm{GELU}(${tex(fixed(b.mlp_pre[a.t - 1][a.c - 1]))})`, tex(fixed(b.mlp_post[a.t - 1][a.c - 1]))]]);
  },
  logit({ model, tr, V }, a) {
    const t = a.t, i = V.indexOf(a.letter), f = tr.f[t - 1];
    const parts = range(a.terms).map((k) => `(${tex(fixed(f[k]))})(${tex(fixed(model.W_U[k][i]))})`).join(" + ");
    return aligned([[`z_{${t},\\mathrm{${a.letter}}}`, `f_${t} \\cdot W_U^{(${a.letter})}`], ["", `${parts} + \\dots`],
                    ["", tex(fixed(tr.z[t - 1][i]))]]);
  },
  softmax({ tr }, a) {
    const z = Array.from(tr.z[a.t - 1]), m = maxOf(z), e = z.map((v) => Math.exp(v - m));
    return mathBlock(`p_i = \\frac{e^{z_i - ${tex(fixed(m))}}}{${tex(fixed(sum(e)))}},\\quad p = ` +
                     tex(render.vector(tr.p[a.t - 1])));
  },
};

/** The letter's id; "top": the most probable letter at position a.t (from 1). */
const letterAt = (r, a) => (a.letter === "top" ? argmax(r.tr.p[a.t - 1]) : r.V.indexOf(a.letter));
const chosen = (s) => s.p[s.next];

// ------------------------------------------------------------ the weights' training record (model.record)

/** render.plain: a string from a file, HTML-escaped (render.js's escape, the book's one table),
 *  Markdown's signs as character references. */
const plain = (value) => Array.from(String(value), (c) => ("&<>\"'".includes(c) ? render.escape(c)
  : "\\`*_{}[]()#!|$".includes(c) ? `&#${c.codePointAt(0)};` : c)).join("");
/** Python's str() of a number read from JSON: 1e-05 and 0.0005 as Python writes them. */
function pyStr(v) {
  if (typeof v !== "number" || v === 0 || !Number.isFinite(v)) return String(v);
  const e = Math.floor(Math.log10(Math.abs(v)));
  return e < -4 || e >= 16 ? v.toExponential().replace(/e([+-])(\d)$/, "e$10$2") : String(v);
}
const recordOf = (r) => r.model.record || {};

/** The live outputs that depend on the weights alone, not on the input
 *  (toycalc/book/nano_gpt/shared.py's WEIGHTS_ONLY). */
const WEIGHTS_ONLY = ["matrix:E", "matrix:P", "matrix:W", "number:largest", "number:record", "table:training",
                      "figure:loss"];

const NUMBERS = {
  largest(r, a) {
    const W = gpt.parameters(r.model)[a.name];
    let m = 0;
    for (const row of ArrayBuffer.isView(W) || !W[0].length ? [W] : W) for (const v of row) m = Math.max(m, Math.abs(v));
    return fixed(m);
  },
  record(r, a) {
    const v = recordOf(r)[a.key];
    if (a.key === "final_loss" || a.key === "loss_on_729") return fixed(v, 4);
    return plain(Number.isInteger(v) ? count(v) : pyStr(v));
  },
  text: (r) => draw.esc(r.text),
  ids: (r) => r.ids.join(" "),
  answer: (r) => r.steps.map((s) => r.V[s.next]).join(" "),
  sorted: (r) => r.ids.slice().sort((x, y) => x - y).map((i) => r.V[i]).join(" "),
  letter: (r, a) => r.V[r.ids[a.t - 1]],
  id: (r, a) => String(r.ids[a.t - 1]),
  mu: (r, a) => fixed(blk(r, a).mu[a.t - 1], a.places),
  sigma: (r, a) => fixed(blk(r, a).sigma[a.t - 1], a.places),
  variance: (r, a) => fixed(variance(blk(r, a).X[a.t - 1]), a.places),
  look: (r, a) => look(r, blk(r, a).weights[a.head - 1][a.t - 1], a.t),
  finds_smallest: (r, a) => findsSmallest(r, blk(r, a).weights[a.head - 1][a.t - 1], a.t),
  blend: (r, a) => blend(r, a.t),
  lean: (r, a) => lean(r, blk(r, a).weights, a.t),
  strongest_look: (r, a) => fixed(Math.max(...r.tr.blocks.map((b) => Math.max(...b.weights.map((w) => maxOf(w[a.t - 1]))))),
                                  a.places),
  p: (r, a) => fixed(r.tr.p[a.t - 1][letterAt(r, a)], a.places),
  percent: (r, a) => `${fixed(100 * r.tr.p[a.t - 1][letterAt(r, a)], 1)} %`,
  top: (r, a) => r.V[argmax(r.tr.p[a.t - 1])],
  min_step_p: (r, a) => fixed(Math.min(...r.steps.map(chosen)), a.places),
  untrained_top: (r, a) => fixed(Math.min(...a.ignored.map((t) => maxOf(r.tr.p[t])))),
};

const FIGURES = {
  loss(r) {
    const rec = recordOf(r), curve = rec.loss_curve;
    if (!curve || !curve.length) {
      return "<p><em>No loss curve in the training record beside the weights file; " +
             "<code>python -m toycalc train</code> writes one.</em></p>";
    }
    const steps = curve.length, points = curve.map((v, k) => [k + 1, v]);
    const titles = points.map(([s, v]) => `step ${s}: loss ${fixed(v)}`);
    const xs = charts.niceTicks(0, steps, 4), ys = charts.niceTicks(0, maxOf(curve), 4);
    const drawing = charts.lineChartSvg([["loss", points, titles]],
      `A line: the training loss of each of the ${count(steps)} steps, from ${fixed(curve[0])} ` +
      `at the first to ${fixed(curve[steps - 1])} at the last`, xs.map((v) => [v, tick(v)]), ys.map((v) => [v, tick(v)]),
      "training step", "loss on the step's batch", 336, 220);
    return draw.figure("nano-loss", drawing,
      `The loss on each step's batch of ${rec.batch === undefined ? "?" : rec.batch} inputs` +
      '<span class="screen-only">; point at or tap a dot for its value</span>');
  },
  attention(r) {
    const { T, H, letters, tr } = r, B = tr.blocks.length, size = 14, gap = 14, left = 70, top = 32;
    let body = "";
    for (let h = 0; h < H; h++) {
      const x = left + h * (T * size + gap);
      body += draw.label(x + Math.floor(T * size / 2), 11, `head ${h + 1}`, "middle", "hdr");
      body += letters.map((l, j) => draw.label(x + j * size + Math.floor(size / 2), top - 5, l, "middle", "val")).join("");
    }
    for (let b = 0; b < B; b++) {
      const y = top + b * (T * size + gap);
      body += draw.label(0, y + Math.floor(T * size / 2) + 4, `block ${b + 1}`, "start", "hdr");
      body += letters.map((l, i) => draw.label(left - 4, y + i * size + 11, l, "end", "val")).join("");
      for (let h = 0; h < H; h++) {
        const w = tr.blocks[b].weights[h];
        const M = range(T).map((t) => range(T).map((j) => (j <= t ? w[t][j] : null)));
        const titles = range(T).map((t) => range(T).map((j) =>
          `block ${b + 1}, head ${h + 1}: t = ${t + 1} (${letters[t]}) reads j = ${j + 1} (${letters[j]})`));
        body += draw.grid(M, titles, size, left + h * (T * size + gap), y, 1, "prob");
      }
    }
    const width = left + H * T * size + (H - 1) * gap + 2, height = top + B * T * size + (B - 1) * gap + 2;
    const drawing = draw.svg(width, height, `The attention weights of the ${H} heads (columns) of the ${B} blocks (rows): ` +
      "in each small map a row per position t reading a column per earlier position j, the stronger the purple, the larger; the future is hatched", body);
    return draw.figure("nano-attention", drawing + draw.probKey("weight", true), `The ${B * H} attention matrices on ${draw.esc(r.text)}: rows are the queries ` +
      `t = 1 to ${T}, columns the keys j, both labelled with their letters`);
  },
  residual({ tr }, a) {
    const t = a.t, i = t - 1, NORM = "\u2016", points = [norm(tr.blocks[0].X[i])];
    const names = [[`t = ${t}, entering block 1: ${NORM}x${NORM}`, "x"]];
    tr.blocks.forEach((b, k) => {
      for (const [name, where] of [["h", "attention"], ["y", "MLP"]]) {
        points.push(norm(b[name][i]));
        names.push([`t = ${t}, after block ${k + 1}'s ${where}: ${NORM}${name}${NORM}`, name + "₀₁₂₃₄₅₆₇₈₉"[k + 1]]);
      }
    });
    const titles = names.map(([n], k) => `${n} = ${fixed(points[k])}`);
    const ys = charts.niceTicks(0, maxOf(points), 4);
    const drawing = charts.lineChartSvg([["length", points.map((v, k) => [k, v]), titles]],
      `A line: the length of the row t = ${t} on entering the first block (${fixed(points[0])}), ` +
      `after each block's attention and after each MLP, to ${fixed(points[points.length - 1])} on leaving the last`,
      names.map(([, s], k) => [k, s]), ys.map((v) => [v, tick(v)]),
      "h, y: after attention, after the MLP", `length of the row t = ${t}`, 336, 220);
    return draw.figure("nano-residual", drawing,
      `The length of the row t = ${t} after each part of each block` +
      '<span class="screen-only">; point at or tap a dot for its value</span>');
  },
  model({ tr, letters, V, d, text }) {
    const B = tr.blocks.length;
    return '<figure class="toy-figure model-figure nano-model" data-figure="nano-model">' +
      modelDrawing.modelSvg(tr, letters, V, {}, [], B, false) +
      `<figcaption>nano-gpt on ${draw.esc(text)}, a row per letter. Its ${B} blocks have one ` +
      `shape, drawn once with the first block's numbers; each vector of ${d} channels is a strip, ` +
      "its numbers in the strip's title." +
      '<span class="screen-only"> It is wider than the page: scroll it sideways.</span> ' +
      `${modelDrawing.modelKey(false, false)}</figcaption></figure>`;
  },
  generate({ steps, V }) {
    const labels = steps.map((_, k) => `step ${k + 1}`), rows = steps.map((s) => s.p.slice());
    const titles = rows.map((row, k) => row.map((v, i) => `step ${k + 1}, p(${V[i]}) = ${fixed(v)}`));
    const drawing = charts.stackedBarsSvg(labels, V, rows, titles,
      `Stacked bars, one per step of the generation loop: the probabilities of ${V.join(", ")} cut one bar, ` +
      "and the letter appended after it", steps.map((s) => `→ ${V[s.next]}`));
    return draw.figure("nano-generate", drawing,
      "Each bar is one step's probabilities, adding up to 1; the arrow gives the letter appended");
  },
};

/** The chapter's LIVE registry: kind -> name -> function(run, args). */
const LIVE = { matrix: MATRICES, table: TABLES, formula: FORMULAS, number: NUMBERS, figure: FIGURES };

/** The chapter on the input `ids`: render(kind, name, args) gives what
 *  the chapter's function gives for a Run on them. */
function chapter(model, ids) {
  const r = nanoRun(model, ids);
  return {
    text: r.text, ids, tr: r.tr, steps: r.steps,
    render(kind, name, args) {
      const f = LIVE[kind] && Object.prototype.hasOwnProperty.call(LIVE[kind], name) && LIVE[kind][name];
      if (!f) throw new RangeError(`data-nano-live="${kind}:${name}": not drawn in the browser`);
      return f(r, args || {});
    },
  };
}

export { InputError, parseLetters, exampleIds, sortLetters, cell, heat, oneTabStop, matrixOf, fullMarkup, LIVE,
         WEIGHTS_ONLY, chapter };
