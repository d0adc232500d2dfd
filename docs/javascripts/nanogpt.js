// nanogpt.js: nano-gpt live on the chapter's pages.
//
// All on toygpt.js's one JavaScript GPT (its `load`, `forward`
// and `greedy`; nothing of the model is written again here) and on the
// weights the build exports (javascripts/nanogpt-weights.json, fetched the
// first time a reader asks for something, never before):
//  - the field "Letters to sort" ([data-nano-sort]): six letters of the
//    reader's, sorted by the model, with p(A), p(B), p(C) at each step;
//  - every matrix that stops at "N more rows" ([data-nano-full], added by
//    toycalc/book/nanogpt_chapter.py's `openable`) gets a button that
//    shows it whole, computed on the letters the page follows, in the markup of
//    nanogpt_chapter.heat (tests/book/test_nanogpt_live.py compares the
//    strings with Python's, for every matrix, all rows and columns);
//  - "Follow my letters" under the title of a page with per-input numbers
//    ([data-nano-live], marked by nanogpt_chapter.live): every such number,
//    matrix, table, formula and figure drawn again for the reader's letters
//    by `chapter`, in nanogpt_chapter.py's markup
//    (tests/book/test_nanogpt_switch.py), kept page to page in
//    sessionStorage until "Back to the book's example";
//  - a matrix is one Tab stop, its cells reached by the arrow keys.
// The build puts this script on the pages that need it (hooks.py).
// Text typed by the reader is only ever written with textContent.
(function (root, factory) {
  "use strict";
  const node = typeof module === "object" && module.exports;
  const api = factory(() => (node ? require("./toygpt.js") : root.toygpt));
  if (node) module.exports = api;
  else api.start(document.currentScript);
})(typeof self !== "undefined" ? self : this, function (toygpt) {
  "use strict";

  class InputError extends Error {}

  // ------------------------------------------------------------ the reader's letters

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

  /** The generation loop of the Output page: `length` greedy steps, each
   *  with the ids read, p of every letter, and the id appended. */
  function sortLetters(model, ids, length) {
    const run = toygpt().greedy(model, ids, length);
    return run.probabilities.map((p, k) => ({ ids: run.ids.slice(0, ids.length + k), p, next: run.ids[ids.length + k] }));
  }

  // ------------------------------------------------------------ a matrix in full

  const MLP_NAMES = { mlp_pre: "MLP hidden layer before GELU", mlp_post: "MLP hidden layer after GELU",
                      m: "MLP output", y: "Block output", h: "After attention" };
  const QKV_NAMES = { Q: "Queries", K: "Keys", V: "Values" };

  const transpose = (M) => Array.from(M[0], (_, c) => Array.from(M, (row) => row[c]));
  const range = (n) => Array.from({ length: n }, (_, i) => i);

  /** What `spec` (a table's data attributes) names, computed on the trace
   *  tr of the chapter's example: the matrix as displayed (rows x columns),
   *  its kind, the names of its rows and columns and label(r, c), the
   *  words of a cell, as nanogpt_chapter.py's matrix functions give them. */
  function matrixOf(model, tr, spec) {
    const vocab = model.vocab, b = Number(spec.block || 1), head = Number(spec.head || 1);
    const letters = tr.ids.map((i) => vocab[i]);
    const blk = tr.blocks[b - 1];
    const channels = (M) => M.map((_, c) => `c = ${c}`);
    // nanogpt_chapter.activations: one column per time step, one row per channel
    const act = (A, what) => {
      const M = transpose(A);
      return { M, kind: "act", rowNames: channels(M), colNames: letters.map((l, t) => `t = ${t}<br>${l}`),
               label: (r, c) => `${what}, channel ${r}, t = ${c} (${letters[c]})` };
    };
    // nanogpt_chapter.weights
    const weights = (W, what, colNames) => ({
      M: W.map((row) => Array.from(row)), kind: "weight", rowNames: W.map((_, i) => String(i)),
      colNames: colNames || Array.from(W[0], (_, j) => String(j)),
      label: (i, j) => `${what}, row ${i}, column ${j}`,
    });
    switch (spec.nanoFull) {
      case "E": {
        const M = transpose(model.E);
        return { M, kind: "weight", rowNames: channels(M), colNames: vocab.map((l, i) => `${l} (${i})`),
                 label: (c, i) => `token embedding of ${vocab[i]}, channel ${c}` };
      }
      case "P": {
        const M = transpose(model.P);
        return { M, kind: "weight", rowNames: channels(M), colNames: M[0].map((_, t) => `t = ${t}`),
                 label: (c, t) => `position embedding of t = ${t}, channel ${c}` };
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
        m.rowNames = m.M.map((_, c) => `head ${Math.floor(c / A) + 1}, c = ${c}`);
        return m;
      }
      case "W":
        if (spec.name === "W_U") return weights(model.W_U, "Output matrix", vocab.map((l, i) => `${l} (${i})`));
        return weights(model.blocks[b - 1][spec.name], `Block ${b}'s weight matrix`);
      default:
        throw new RangeError(`data-nano-full="${spec.nanoFull}": no such matrix`);
    }
  }

  /** The head and body of the whole matrix, in nanogpt_chapter.heat's
   *  markup: the same cells (value, title, aria-label, shade) for every
   *  row and column. */
  function fullMarkup(model, tr, spec) {
    const g = toygpt(), esc = g.draw.esc;
    const { M, kind, rowNames, colNames, label } = matrixOf(model, tr, spec);
    let scale = 0;
    for (const row of M) for (const v of row) scale = Math.max(scale, Math.abs(v));
    const cell = (v, r, c) => {
      const text = g.fixed(v), alpha = scale > 0 ? 0.08 + 0.55 * Math.min(Math.abs(v) / scale, 1) : 0.08;
      const said = esc(`${label(r, c)}: ${text}`);
      return `<td class="nano-cell nano-${kind}" tabindex="-1" title="${said}" aria-label="${said}" ` +
             `style="--shade:${g.fixed(alpha, 2)}">${text}</td>`;
    };
    const lines = [`<thead><tr><td></td>${colNames.map((n) => `<th scope="col">${n}</th>`).join("")}</tr></thead>`,
                   "<tbody>"];
    M.forEach((row, r) => {
      lines.push(`<tr><th scope="row">${rowNames[r]}</th>${row.map((v, c) => cell(v, r, c)).join("")}</tr>`);
    });
    lines.push("</tbody>");
    return oneTabStop(lines.join("\n"));
  }

  /** nanogpt_chapter.one_tab_stop: the first cell is the matrix's one Tab stop. */
  const oneTabStop = (markup) => markup.replace('tabindex="-1"', 'tabindex="0"');

  /** The ids of the chapter's example, as a table's data-example names them. */
  function exampleIds(model, text) {
    return parseLetters(text, model.vocab, Array.from(text).filter((ch) => !/\s/.test(ch)).length);
  }

  // ------------------------------------------------------------ the chapter on the reader's letters
  // toycalc/book/nanogpt_chapter.py's per-input outputs (its LIVE registry),
  // line for line: the same markup for the same input
  // (tests/book/test_nanogpt_switch.py compares the strings for several
  // inputs). `args` are the data-nano-args the build wrote: every option
  // of the Python function, defaults filled in.

  const MINUS_SIGN = "\u2212";
  const escText = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const tex = (s) => s.replace(new RegExp(MINUS_SIGN, "g"), "-");
  const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const im = (body) => `<span class="arithmatex">\\(${escText(body)}\\)</span>`;
  const mathBlock = (body) => `<div class="arithmatex">\\[${escText(body)}\\]</div>`;
  const alignedRows = (rows) => mathBlock("\\begin{aligned} " + rows.join(" \\\\ ") + " \\end{aligned}");
  const aligned = (lines) => alignedRows(lines.map(([l, r]) => `${l} &= ${r}`.trimStart()));
  const norm = (x) => Math.sqrt(Array.from(x).reduce((s, v) => s + v * v, 0));
  const sum = (x) => Array.from(x).reduce((s, v) => s + v, 0);
  const maxOf = (x) => Math.max(...Array.from(x));
  const mean = (x) => sum(x) / x.length;
  const variance = (x) => { const m = mean(x); return mean(Array.from(x, (v) => (v - m) * (v - m))); };
  const argmax = (x) => toygpt().argmax(Array.from(x));

  function htmlTable(id, header, rows, caption) {
    const lines = [`<table id="${toygpt().draw.esc(id)}">`];
    if (caption) lines.push(`<caption>${caption}</caption>`);
    lines.push("<thead><tr>" + header.map((h) => `<th>${h}</th>`).join("") + "</tr></thead>", "<tbody>");
    for (const row of rows) lines.push("<tr>" + row.map((c) => `<td>${c}</td>`).join("") + "</tr>");
    lines.push("</tbody></table>");
    return lines.join("\n");
  }

  /** nanogpt_chapter.cell */
  function cellMarkup(value, kind, label, scale) {
    const g = toygpt(), text = g.fixed(value);
    const alpha = scale > 0 ? 0.08 + 0.55 * Math.min(Math.abs(value) / scale, 1) : 0.08;
    const said = g.draw.esc(`${label}: ${text}`);
    return `<td class="nano-cell nano-${kind}" tabindex="-1" title="${said}" aria-label="${said}" ` +
           `style="--shade:${g.fixed(alpha, 2)}">${text}</td>`;
  }

  /** nanogpt_chapter.heat; M indexed [row][col] as displayed. */
  function heat(id, M, kind, rows, rowNames, cols, colNames, label, caption, blank, moreRows, moreCols) {
    blank = blank || (() => false);
    let scale = 0;
    for (const row of M) for (const v of row) scale = Math.max(scale, Math.abs(v));
    let head = colNames.map((n) => `<th scope="col">${n}</th>`).join("");
    if (moreCols) head += `<th scope="col">… ${moreCols} more</th>`;
    const lines = [`<table id="${toygpt().draw.esc(id)}" class="nano-matrix nano-matrix--${kind}">`,
                   `<caption>${caption}</caption>`, `<thead><tr><td></td>${head}</tr></thead>`, "<tbody>"];
    rows.forEach((r, k) => {
      let cells = cols.map((c) => (blank(r, c) ? '<td class="nano-cell nano-masked"></td>'
                                               : cellMarkup(M[r][c], kind, label(r, c), scale))).join("");
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

  /** The figures' charts of toycalc/book/draw.py that toygpt.draw leaves out. */
  const charts = (function () {
    const SERIES = 5;
    const textWidth = (text, px) => Array.from(text).length * (px || 7);
    function at(v) {
      const tenths = Math.floor(v * 10 + 0.5);
      return tenths % 10 === 0 ? String(Math.floor(tenths / 10)) : (tenths / 10).toFixed(1);
    }
    function niceTicks(lo, hi, n) {
      if (hi === lo) hi = lo + 1;
      const raw = (hi - lo) / n, power = 10 ** Math.floor(Math.log10(raw));
      const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw * (1 - 1e-9));
      const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
      const out = [];
      for (let k = first; k <= last; k++) out.push(k * step);
      return out;
    }
    function seriesKey(names, x, y, mark) {
      const { label } = toygpt().draw;
      let out = "";
      names.forEach((name, k) => {
        const cls = `s${(k % SERIES) + 1}`;
        out += mark === "line" ? `<path class="series ${cls}" d="M${x} ${y - 4}h18"/>`
                               : `<rect class="key ${cls}" x="${x}" y="${y - 9}" width="10" height="10"/>`;
        out += label(x + (mark === "line" ? 22 : 14), y, name, "start", "val");
        x += (mark === "line" ? 22 : 14) + textWidth(name) + 12;
      });
      return out;
    }
    function lineChartSvg(series, aria, xTicks, yTicks, xLabel, yLabel, width, height) {
      const { label, svg, esc } = toygpt().draw;
      const left = Math.max(...yTicks.map(([, t]) => textWidth(t, 6))) + 10;
      const top = (series.length > 1 ? 26 : 10) + (yLabel ? 14 : 0), bottom = 34;
      const right = Math.max(14, Math.floor(textWidth(xTicks[xTicks.length - 1][1], 6) / 2) + 4);
      const x0 = xTicks[0][0], x1 = xTicks[xTicks.length - 1][0], y0 = yTicks[0][0], y1 = yTicks[yTicks.length - 1][0];
      const X = (v) => left + (v - x0) * (width - left - right) / ((x1 - x0) || 1);
      const Y = (v) => height - bottom - (v - y0) * (height - top - bottom) / ((y1 - y0) || 1);
      let body = `<path class="axis" d="M${left} ${top}V${height - bottom}H${width - right}"/>`;
      for (const [v, text] of xTicks) {
        body += `<path class="tick" d="M${at(X(v))} ${height - bottom}v4"/>`;
        body += label(Math.floor(X(v) + 0.5), height - bottom + 16, text, "middle", "val");
      }
      for (const [v, text] of yTicks) {
        body += `<path class="grid" d="M${left} ${at(Y(v))}H${width - right}"/>`;
        body += label(left - 4, Math.floor(Y(v) + 4.5), text, "end", "val");
      }
      if (xLabel) body += label(width - right, height - 2, xLabel, "end", "hdr");
      if (yLabel) body += label(0, top - 10, yLabel, "start", "hdr");
      if (series.length > 1) body += seriesKey(series.map(([name]) => name), left, 12, "line");
      series.forEach(([, points, titles], k) => {
        const cls = `s${(k % SERIES) + 1}`;
        body += `<polyline class="series ${cls}" points="${points.map(([x, y]) => `${at(X(x))},${at(Y(y))}`).join(" ")}"/>`;
        const r = points.length <= 50 ? 2 : 1;
        points.forEach(([x, y], i) => {
          body += `<circle class="dot ${cls}" cx="${at(X(x))}" cy="${at(Y(y))}" r="${r}"><title>${esc(titles[i])}</title></circle>`;
        });
      });
      return svg(width, height, aria, body);
    }
    function stackedBarsSvg(labels, names, rows, titles, aria, after, span) {
      const { label, svg, esc } = toygpt().draw;
      span = span || 240;
      const row = 22, top = 24, left = Math.max(...labels.map((t) => textWidth(t))) + 8;
      const tail = after ? Math.max(...after.map((t) => textWidth(t))) + 8 : 0;
      const key = sum(names.map((n) => textWidth(n) + 26)), bars = left + span + tail;
      let body = seriesKey(names, left + key <= bars ? left : 0, 12);
      labels.forEach((name, r) => {
        const values = rows[r], y = top + r * row, total = sum(values);
        body += label(left - 6, y + 14, name, "end");
        const ends = [0];
        let running = 0;
        for (const v of values) {
          running += v;
          ends.push(Math.floor(running * span * 10 / (total || 1) + 0.5));
        }
        values.forEach((v, k) => {
          const x = left * 10 + ends[k], w = ends[k + 1] - ends[k], cls = `s${(k % SERIES) + 1}`;
          body += `<rect class="seg ${cls}" x="${at(x / 10)}" y="${y + 2}" width="${at(w / 10)}" ` +
                  `height="${row - 4}"><title>${esc(titles[r][k])}</title></rect>`;
          if (w / 10 >= textWidth(names[k], 6) + 6) {
            body += label(Math.floor((x + w / 2) / 10 + 0.5), y + 15, names[k], "middle", `on-${cls}`);
          }
        });
        if (after) body += label(left + span + 6, y + 15, after[r], "start", "val");
      });
      return svg(Math.max(bars, key), top + labels.length * row, aria, body);
    }
    return { at, niceTicks, lineChartSvg, stackedBarsSvg };
  })();

  /** The chapter's numbers for the input `ids`: run(kind, name, args)
   *  gives what nanogpt_chapter.py's function gives for a Run on them. */
  function chapter(model, ids) {
    const g = toygpt(), fixed = g.fixed, V = model.vocab, draw = g.draw;
    const tr = g.forward(model, ids), T = ids.length, d = model.d, H = tr.heads, Ah = d / H;
    const letters = ids.map((i) => V[i]), text = letters.join(" ");
    const steps = sortLetters(model, ids, T);
    const blk = (a) => tr.blocks[Number(a.block) - 1];
    const params = (a) => model.blocks[Number(a.block) - 1];
    const range = (n) => Array.from({ length: n }, (_, i) => i);
    const corner = (n) => range(n);
    const valuesRange = (M) => {
      let lo = Infinity, hi = -Infinity;
      for (const row of M) for (const v of row) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      return `from ${fixed(lo)} to ${fixed(hi)}`;
    };
    const ACT = "green: numbers being processed";
    const look = (row, t) => {
      const j = argmax(Array.from(row).slice(0, t + 1));
      return `${V[ids[j]]} at j = ${j} (${fixed(row[j])})`;
    };
    const tick = (v) => (v ? (v.toFixed(2).replace(/0+$/, "").replace(/\.$/, "").replace(/-/g, MINUS_SIGN)) : "0");

    /** nanogpt_chapter.activations: M is T x n. */
    function activations(id, M, what, symbol, rows, rowNames, rowPicks, moreRows) {
      const n = M[0].length, picks = rowPicks || corner(Math.min(rows, n));
      const names = rowNames || picks.map((c) => `c = ${c}`);
      const shown = picks.length === n ? `all ${n} rows` : `${picks.length} of its ${n} rows`;
      const caption = `${what} ${im(symbol)}: ${T} × ${n}, drawn with one column per time step; ` +
                      `${shown}, its ${thousands(T * n)} values run ${valuesRange(M)} (${ACT})`;
      const more = moreRows === undefined ? (rowPicks ? 0 : n - picks.length) : moreRows;
      const MT = Array.from(M[0], (_, c) => Array.from(M, (row) => row[c]));
      return heat(id, MT, "act", picks, names, range(T), letters.map((l, t) => `t = ${t}<br>${l}`),
                  (r, c) => `${what}, channel ${r}, t = ${c} (${letters[c]})`, caption, null, more);
    }

    const matrix = {
      X: (a) => activations("nano-X", tr.X, "Input embedding", "x", a.rows),
      u: (a) => activations(`nano-u-${a.block}`, blk(a).u, `Normalised input of block ${a.block}`,
                            "u = \\mathrm{LN}(x)", a.rows),
      qkv: (a) => activations(`nano-${a.which}-${a.block}-${a.head}`,
                              blk(a)[a.which].map((row) => Array.from(row).slice((a.head - 1) * Ah, a.head * Ah)),
                              `${QKV_NAMES[a.which]} of head ${a.head}, block ${a.block},`, a.which.toLowerCase(), a.rows),
      attention: (a) => {
        const w = blk(a).weights[a.head - 1];
        const caption = `Attention weights of head ${a.head}, block ${a.block}: row t is the query at time t, ` +
                        "column j the key it reads; the blank cells are the future, masked " + `(${ACT})`;
        return heat(`nano-attention-${a.block}-${a.head}`, w, "act", range(T), letters.map((l, t) => `t = ${t} ${l}`),
                    range(T), letters.map((l, j) => `j = ${j}<br>${l}`), (t, j) => `weight of t = ${t} on j = ${j}`,
                    caption, (t, j) => j > t);
      },
      A: (a) => {
        const picks = [];
        for (let h = 0; h < H; h++) for (let i = 0; i < Math.min(a.per_head, Ah); i++) picks.push(h * Ah + i);
        return activations(`nano-A-${a.block}`, blk(a).A, `Heads stacked, block ${a.block}`, "a", 0,
                           picks.map((c) => `head ${Math.floor(c / Ah) + 1}, c = ${c}`), picks, d - picks.length);
      },
      mlp: (a) => {
        const symbols = { mlp_pre: "u' W_1 + b_1", mlp_post: "\\mathrm{GELU}(u' W_1 + b_1)", m: "m", y: "y", h: "h" };
        return activations(`nano-${a.which}-${a.block}`, blk(a)[a.which], `${MLP_NAMES[a.which]}, block ${a.block}`,
                           symbols[a.which], a.rows);
      },
      p: () => activations("nano-p", tr.p, "Output probabilities", "p", V.length, V.map((l) => `p(${l})`), [0, 1, 2]),
    };

    const dots = (n) => Array(n).fill("⋮");
    const table = {
      legend: () => {
        const w = Array.from(model.E[0]).slice(0, 3), x = Array.from(tr.X[0]).slice(0, 3);
        const s = Math.max(...w.map(Math.abs), ...x.map(Math.abs));
        const rowA = x.map((v, i) => cellMarkup(v, "act", `an activation, value ${i + 1}`, s)).join("");
        const rowW = w.map((v, i) => cellMarkup(v, "weight", `a weight, value ${i + 1}`, s)).join("");
        return oneTabStop(['<table id="nano-legend" class="nano-matrix">',
          "<caption>How the chapter draws numbers</caption>", "<tbody>",
          `<tr><th scope="row">being processed (green)</th>${rowA}</tr>`,
          `<tr><th scope="row">weights (blue)</th>${rowW}</tr>`, "</tbody></table>"].join("\n"));
      },
      embed: (a) => {
        const t = a.t, i = ids[t];
        const body = corner(a.rows).map((c) => [String(c), fixed(tr.E_ids[t][c]), fixed(tr.P_t[t][c]), fixed(tr.X[t][c])]);
        body.push(dots(4));
        return htmlTable(`nano-embed-${t}`, ["channel", `token ${V[i]}: ${im(`E[${i}]`)}`, `position: ${im(`P[${t}]`)}`,
                                             im(`x_${t}`)], body, `The column of t = ${t}, first ${a.rows} of ${d} channels`);
      },
      layernorm: (a) => {
        const t = a.t, b = blk(a), p = params(a), x = b.X[t], mu = b.mu[t], sigma = b.sigma[t];
        const body = corner(a.rows).map((c) => [String(c), fixed(x[c]), fixed(x[c] - mu), fixed((x[c] - mu) / sigma),
                                               fixed(p.gamma_1[c]), fixed(p.beta_1[c]), fixed(b.u[t][c])]);
        body.push(dots(7));
        return htmlTable(`nano-layernorm-${a.block}-${t}`,
          ["channel", im(`x_${t}`), im("x - \\mu"), im("\\hat x"), im("\\gamma"), im("\\beta"), im("u")], body,
          `LayerNorm of the column t = ${t} in block ${a.block}, first ${a.rows} of ${d} channels: ` +
          im("\\hat x = (x - \\mu)/\\sigma") + ", " + im("u = \\gamma \\hat x + \\beta"));
      },
      attention_row: (a) => {
        const t = a.t, b = blk(a), h = a.head - 1;
        const dt = b.dots[h][t], s = b.scores[h][t], w = b.weights[h][t];
        const m = maxOf(Array.from(s).slice(0, t + 1)), e = Array.from(s).slice(0, t + 1).map((v) => Math.exp(v - m));
        const body = range(t + 1).map((j) => [String(j), V[ids[j]], fixed(dt[j]), fixed(s[j]), fixed(s[j] - m),
                                              fixed(e[j]), fixed(w[j])]);
        body.push(["<strong>sum</strong>", "", "", "", "", `<strong>${fixed(sum(e))}</strong>`,
                   `<strong>${fixed(sum(Array.from(w).slice(0, t + 1)))}</strong>`]);
        return htmlTable(`nano-attention-row-${a.block}-${a.head}-${t}`,
          [im("j"), "letter", im(`q_${t} \\cdot k_j`), im("s"), im("s - \\max s"), im("e^{s - \\max s}"), im(`a_{${t},j}`)],
          body, `Head ${a.head} of block ${a.block}, the query of t = ${t} against every key up to it, ` +
                im(`s = q_${t} \\cdot k_j / \\sqrt{${Ah}}`) + `: max of the scores ${fixed(m)}, ` +
                `sum of the exponentials ${fixed(sum(e))}`);
      },
      residual: (a) => {
        const t = a.t, b = blk(a);
        const body = corner(a.rows).map((c) => [String(c), fixed(b.A[t][c]), fixed(b.attn[t][c]), fixed(b.X[t][c]), fixed(b.h[t][c])]);
        body.push(dots(5));
        return htmlTable(`nano-residual-${a.block}-${t}`,
          ["channel", im(`a_${t}`) + " (heads stacked)", im(`a_${t} W_O + b_O`), im(`x_${t}`) + " (block input)",
           im(`h_${t} = x_${t} + a_${t} W_O + b_O`)], body,
          `Projection and residual at t = ${t}, block ${a.block}, first ${a.rows} of ${d} channels`);
      },
      mlp_hidden: (a) => {
        const t = a.t, b = blk(a);
        const body = corner(a.rows).map((c) => [String(c), fixed(b.mlp_pre[t][c]), fixed(b.mlp_post[t][c])]);
        body.push(dots(3));
        return htmlTable(`nano-mlp-hidden-${a.block}-${t}`, ["channel", im(`u'_${t} W_1 + b_1`), im("\\mathrm{GELU}(\\cdot)")],
          body, `The MLP's hidden layer at t = ${t}, block ${a.block}, first ${a.rows} of ${b.mlp_pre[t].length} channels`);
      },
      mlp_out: (a) => {
        const t = a.t, b = blk(a);
        const body = corner(a.rows).map((c) => [String(c), fixed(b.h[t][c]), fixed(b.u2[t][c]), fixed(b.m[t][c]), fixed(b.y[t][c])]);
        body.push(dots(5));
        return htmlTable(`nano-mlp-out-${a.block}-${t}`,
          ["channel", im(`h_${t}`), im(`u'_${t} = \\mathrm{LN}(h_${t})`), im(`m_${t}`), im(`y_${t} = h_${t} + m_${t}`)], body,
          `In and out of the MLP at t = ${t}, block ${a.block}, first ${a.rows} of ${d} channels`);
      },
      blocks: (a) => {
        const t = a.t;
        const body = tr.blocks.map((b, k) => [String(k + 1), fixed(norm(b.X[t])), fixed(norm(b.attn[t])), fixed(norm(b.m[t])),
                                              fixed(norm(b.y[t]))]);
        return htmlTable(`nano-blocks-${t}`, ["block", im(`\\lVert x_${t} \\rVert`) + " in", im("\\lVert a W_O + b_O \\rVert"),
                                              im("\\lVert m \\rVert"), im(`\\lVert y_${t} \\rVert`) + " out"], body,
          `The column t = ${t} through the blocks (${im("\\lVert\\cdot\\rVert")}: its length)`);
      },
      looks: (a) => {
        const t = a.t;
        const body = tr.blocks.map((b, k) => [String(k + 1)].concat(range(H).map((h) => look(b.weights[h][t], t))));
        return htmlTable(`nano-looks-${t}`, ["block"].concat(range(H).map((h) => `head ${h + 1}`)), body,
          `Where each head looks most from t = ${t}: the letter, its time step and its weight`);
      },
      softmax: (a) => {
        const t = a.t, z = Array.from(tr.z[t]), p = Array.from(tr.p[t]), m = maxOf(z), e = z.map((v) => Math.exp(v - m));
        const body = V.map((l, i) => [l, fixed(z[i]), fixed(z[i] - m), fixed(e[i]), fixed(p[i])]);
        body.push(["<strong>sum</strong>", "", "", `<strong>${fixed(sum(e))}</strong>`, `<strong>${fixed(sum(p))}</strong>`]);
        return htmlTable(`nano-softmax-${t}`, ["letter", im("z"), im(`z - ${tex(fixed(m))}`), im("e^{z - \\max z}"), im("p")],
          body, `The softmax of the column t = ${t}: max ${fixed(m)}, sum ${fixed(sum(e))}`);
      },
      generate: () => htmlTable("nano-generate", ["step", "the model reads", "p(A)", "p(B)", "p(C)", "appends"],
        steps.map((s, k) => [String(k + 1), s.ids.map((i) => V[i]).join(" ")].concat(s.p.map((v) => fixed(v)),
                                                                                     [`<strong>${V[s.next]}</strong>`])),
        "Greedy decoding: the probabilities of the last column, and the letter appended"),
    };

    const formula = {
      layernorm: (a) => {
        const t = a.t, b = blk(a);
        return aligned([
          ["\\mu", `\\frac{1}{${d}}\\sum_{c=0}^{${d - 1}} x_{${t},c} = ${tex(fixed(b.mu[t], 5))}`],
          ["\\sigma", `\\sqrt{\\mathrm{Var}[x_${t}] + \\varepsilon} = \\sqrt{${tex(fixed(variance(b.X[t]), 6))} + 10^{-5}}` +
                      ` = ${tex(fixed(b.sigma[t], 5))}`]]);
      },
      q_cell: (a) => {
        const t = a.t, c = a.c, b = blk(a), p = params(a), u = b.u[t];
        const parts = range(a.terms).map((i) => `(${tex(fixed(u[i]))})(${tex(fixed(p.W_Q[i][c]))})`).join(" + ");
        return aligned([[`Q_{${t},${c}}`, `\\sum_{i=0}^{${d - 1}} u_{${t},i} (W_Q)_{i,${c}} + (b_Q)_{${c}}`],
                        ["", `${parts} + \\dots + (${tex(fixed(p.b_Q[c]))})`], ["", tex(fixed(b.Q[t][c]))]]);
      },
      head_output: (a) => {
        const t = a.t, b = blk(a), w = b.weights[a.head - 1][t], o = Array.from(b.outputs[a.head - 1][t]);
        const terms = range(t + 1).map((j) => `${tex(fixed(w[j]))}\\, v_${j}`);
        const lines = [`o_${t} &= ` + terms.slice(0, 3).join(" + ")];
        for (let k = 3; k < terms.length; k += 3) lines.push("&\\quad + " + terms.slice(k, k + 3).join(" + "));
        lines.push(`&= [${o.slice(0, a.channels).map((x) => tex(fixed(x))).join(", ")}, \\dots]` +
                   `\\quad (${o.length} \\text{ values})`);
        return alignedRows(lines);
      },
      gelu: (a) => {
        const b = blk(a);
        return aligned([["\\mathrm{GELU}(x)", "\\tfrac12 x\\left(1 + \\tanh\\left(\\sqrt{2/\\pi}\\,(x + 0.044715\\, x^3)\\right)\\right)"],
                        [`\\mathrm{GELU}(${tex(fixed(b.mlp_pre[a.t][a.c]))})`, tex(fixed(b.mlp_post[a.t][a.c]))]]);
      },
      logit: (a) => {
        const t = a.t, i = V.indexOf(a.letter), f = tr.f[t];
        const parts = range(a.terms).map((k) => `(${tex(fixed(f[k]))})(${tex(fixed(model.W_U[k][i]))})`).join(" + ");
        return aligned([[`z_{${t},\\mathrm{${a.letter}}}`, `f_${t} \\cdot W_U^{(${a.letter})}`], ["", `${parts} + \\dots`],
                        ["", tex(fixed(tr.z[t][i]))]]);
      },
      softmax: (a) => {
        const z = Array.from(tr.z[a.t]), m = maxOf(z), e = z.map((v) => Math.exp(v - m));
        return mathBlock(`p_i = \\frac{e^{z_i - ${tex(fixed(m))}}}{${tex(fixed(sum(e)))}},\\quad p = ` +
                         tex(g.vector(tr.p[a.t])));
      },
    };

    const TOP = ["X", "f", "z", "p"];
    const letterAt = (a) => (a.letter === "top" ? argmax(tr.p[a.t]) : V.indexOf(a.letter));
    const chosen = (s) => s.p[s.next];
    const number = {
      text: () => draw.esc(text),
      ids: () => ids.join(" "),
      answer: () => steps.map((s) => V[s.next]).join(" "),
      sorted: () => ids.slice().sort((x, y) => x - y).map((i) => V[i]).join(" "),
      letter: (a) => V[ids[a.t]],
      id: (a) => String(ids[a.t]),
      mu: (a) => fixed(blk(a).mu[a.t], a.places),
      sigma: (a) => fixed(blk(a).sigma[a.t], a.places),
      value: (a) => fixed((TOP.includes(a.name) ? tr : blk(a))[a.name][a.t][a.c], a.places),
      variance: (a) => fixed(variance(blk(a).X[a.t]), a.places),
      weight: (a) => fixed(blk(a).weights[a.head - 1][a.t][a.j], a.places),
      look: (a) => look(blk(a).weights[a.head - 1][a.t], a.t),
      strongest_look: (a) => fixed(Math.max(...tr.blocks.map((b) => Math.max(...b.weights.map((w) => maxOf(w[a.t]))))), a.places),
      p: (a) => fixed(tr.p[a.t][letterAt(a)], a.places),
      percent: (a) => `${fixed(100 * tr.p[a.t][letterAt(a)], 1)} %`,
      top: (a) => V[argmax(tr.p[a.t])],
      step_p: (a) => fixed(chosen(steps[a.step - 1]), a.places),
      min_step_p: (a) => fixed(Math.min(...steps.map(chosen)), a.places),
      untrained_top: (a) => fixed(Math.min(...a.ignored.map((t) => maxOf(tr.p[t])))),
    };

    const figure = {
      attention: () => {
        const B = tr.blocks.length, size = 14, gap = 14, left = 70, top = 32;
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
              `block ${b + 1}, head ${h + 1}: t = ${t} (${letters[t]}) reads j = ${j} (${letters[j]})`));
            body += draw.grid(M, titles, size, left + h * (T * size + gap), y, 1);
          }
        }
        const width = left + H * T * size + (H - 1) * gap + 2, height = top + B * T * size + (B - 1) * gap + 2;
        const drawing = draw.svg(width, height, `The attention weights of the ${H} heads (columns) of the ${B} blocks (rows): ` +
          "in each small map a row per time step t reading a column per earlier step j, the darker the larger; the future is hatched", body);
        return draw.figure("nano-attention", drawing, `The ${B * H} attention matrices on ${draw.esc(text)}: rows are the queries ` +
          `t = 0 to ${T - 1}, columns the keys j, both labelled with their letters`);
      },
      residual: (a) => {
        const t = a.t, NORM = "\u2016", points = [norm(tr.blocks[0].X[t])];
        const names = [[`t = ${t}, entering block 1: ${NORM}x${NORM}`, "x"]];
        tr.blocks.forEach((b, k) => {
          for (const [name, where] of [["h", "attention"], ["y", "MLP"]]) {
            points.push(norm(b[name][t]));
            names.push([`t = ${t}, after block ${k + 1}'s ${where}: ${NORM}${name}${NORM}`, `${name}${k + 1}`]);
          }
        });
        const titles = names.map(([n], k) => `${n} = ${fixed(points[k])}`);
        const ys = charts.niceTicks(0, maxOf(points), 4);
        const drawing = charts.lineChartSvg([["length", points.map((v, k) => [k, v]), titles]],
          `A line: the length of the column t = ${t} on entering the first block (${fixed(points[0])}), ` +
          `after each block's attention and after each MLP, to ${fixed(points[points.length - 1])} on leaving the last`,
          names.map(([, s], k) => [k, s]), ys.map((v) => [v, tick(v)]),
          "x: the input; h, y: after attention, after the MLP of block 1, 2, 3", `length of the column t = ${t}`, 420, 220);
        return draw.figure("nano-residual", drawing,
          `The length of the column t = ${t} after each part of each block; point at a dot for its value`);
      },
      generate: () => {
        const labels = steps.map((_, k) => `step ${k + 1}`), rows = steps.map((s) => s.p.slice());
        const titles = rows.map((row, k) => row.map((v, i) => `step ${k + 1}, p(${V[i]}) = ${fixed(v)}`));
        const drawing = charts.stackedBarsSvg(labels, V, rows, titles,
          `Stacked bars, one per step of the generation loop: the probabilities of ${V.join(", ")} cut one bar, ` +
          "and the letter appended after it", steps.map((s) => `→ ${V[s.next]}`));
        return draw.figure("nano-generate", drawing,
          "Each bar is one step's probabilities, adding up to 1; the arrow gives the letter appended");
      },
    };

    const kinds = { matrix, table, formula, number, figure };
    return {
      text, ids, tr, steps,
      render(kind, name, args) {
        const f = kinds[kind] && kinds[kind][name];
        if (!f) throw new RangeError(`data-nano-live="${kind}:${name}": not drawn in the browser`);
        return f(args || {});
      },
    };
  }

  // ------------------------------------------------------------ on the page

  let weightsUrl = null;

  /** The model, fetched once per page visit and shared by every part of
   *  the page; a failed fetch may be tried again. */
  function model() {
    const cache = (self.nanogptModels = self.nanogptModels || {});
    if (!cache[weightsUrl]) {
      cache[weightsUrl] = fetch(weightsUrl).then((r) => {
        if (!r.ok) throw new Error(`${new URL(weightsUrl).pathname}: HTTP ${r.status}`);
        return r.json();
      }).then((data) => toygpt().load(data)).catch((e) => {
        delete cache[weightsUrl];
        throw e;
      });
    }
    return cache[weightsUrl];
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  let count = 0;

  function setUpSorter(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    const n = ++count, length = Number(root.dataset.length), id = `nano-letters-${n}`;
    const input = el("input", { type: "text", id, autocomplete: "off", spellcheck: "false",
                                placeholder: root.dataset.example || "", "aria-describedby": `${id}-hint ${id}-message` });
    const message = el("p", { id: `${id}-message`, class: "nano-message", role: "alert" });
    const intro = el("p", { text: "Try letters of your own: the same model runs in your browser, " +
                                  "on the weights every number of this chapter comes from." });
    const form = el("form", { class: "nano-sorter-form" }, [
      el("label", { for: id, text: "Letters to sort" }), " ", input, " ",
      el("button", { type: "submit", class: "nano-button nano-button--primary", text: "Sort" }),
      el("p", { id: `${id}-hint`, class: "nano-hint",
                text: `${length} letters, each A, B or C (any case; spaces are ignored).` }),
      message]);
    // only the answer's sentence is announced, not the table under it
    const answer = el("p", { class: "nano-answer", "aria-live": "polite" });
    const results = el("div", { class: "nano-sorted" }, [answer, el("div")]);
    root.replaceChildren(intro, form, results);
    let asked = 0;
    root.hidden = false;

    const fail = (text) => {
      message.textContent = text;
      input.setAttribute("aria-invalid", "true");
      answer.replaceChildren();
      results.lastChild.replaceChildren();
    };
    input.addEventListener("focus", () => model().catch(() => {}), { once: true });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value, ask = ++asked;
      answer.textContent = "Loading nano-gpt…";
      model().then((m) => {
        if (ask !== asked) return;  // sorted again meanwhile: the last one answers
        let ids;
        try {
          ids = parseLetters(text, m.vocab, length);
        } catch (e) {
          if (e instanceof InputError) return fail(e.message);
          throw e;
        }
        message.textContent = "";
        input.removeAttribute("aria-invalid");
        showSorted(answer, results.lastChild, m, ids, sortLetters(m, ids, length), `${id}-steps`);
      }).catch((e) => ask === asked && fail(`nano-gpt could not run (${e.message}); the chapter's numbers still hold.`));
    });
  }

  /** The answer, a table of the steps (as the Output page's generation
   *  table) and each step's probabilities as bars (toygpt.draw, the
   *  figures' SVG conventions). */
  function showSorted(answerLine, results, model, ids, steps, tableId) {
    const g = toygpt(), vocab = model.vocab;
    const answer = steps.map((s) => vocab[s.next]).join(" ");
    const table = el("table", { id: tableId }, [
      el("caption", { text: "Greedy decoding of your letters: the probabilities of the last column, and the letter appended" }),
      el("thead", {}, [el("tr", {}, ["step", "the model reads"].concat(vocab.map((l) => `p(${l})`), ["appends"])
        .map((h) => el("th", { scope: "col", text: h })))]),
      el("tbody", {}, steps.map((s, k) => el("tr", {}, [
        el("td", { text: String(k + 1) }), el("td", { text: s.ids.map((i) => vocab[i]).join(" ") }),
        ...s.p.map((v) => el("td", { text: g.fixed(v) })),
        el("td", {}, [el("strong", { text: vocab[s.next] })])]))),
    ]);
    const bars = el("div", { class: "fig-row nano-bars" });
    // markup from toygpt.draw, which escapes every text; the letters are the model's own
    bars.innerHTML = steps.map((s, k) => g.draw.figure("probabilities",
      g.draw.barsSvg(vocab, s.p, `Step ${k + 1}: the probability of each letter, ${vocab[s.next]} the largest`, s.next),
      `Step ${k + 1}: appends ${g.draw.esc(vocab[s.next])}`, { step: k + 1 })).join("");
    answerLine.replaceChildren("nano-gpt writes ", el("strong", { class: "nano-answer-letters", text: answer }),
                               ` for ${ids.map((i) => vocab[i]).join(" ")}.`);
    results.replaceChildren(
      el("div", { class: "nano-scroll", tabindex: "0", role: "region", "aria-label": "The steps of the sort" }, [table]),
      bars);
  }

  function setUpMatrix(table) {
    if (table.dataset.ready) return;
    table.dataset.ready = "1";
    const rows = Number(table.dataset.rows), cols = Number(table.dataset.cols);
    const shownCols = table.querySelectorAll("thead th").length;
    const all = `Show all ${rows} rows` + (shownCols < cols ? ` and ${cols} columns` : "");
    const button = el("button", { type: "button", class: "nano-button", "aria-controls": table.id,
                                  "aria-expanded": "false", text: all });
    const status = el("span", { class: "nano-full-status", role: "status" });
    table.after(el("p", { class: "nano-full" }, [button, " ", status]));
    const corner = [table.tHead, table.tBodies[0]];
    let whole = null;
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-expanded") === "true";
      if (open) {
        whole = [table.tHead, table.tBodies[0]];
        whole.forEach((part) => part.remove());
        table.append(...corner);
        button.setAttribute("aria-expanded", "false");
        button.textContent = all;
        status.textContent = "";
        return;
      }
      button.disabled = true;
      status.textContent = "Computing…";
      model().then((m) => {
        if (!whole) {
          const tr = toygpt().forward(m, exampleIds(m, table.dataset.example));
          const holder = document.createElement("table");
          holder.innerHTML = fullMarkup(m, tr, table.dataset);   // our own markup: every text escaped
          whole = [holder.tHead, holder.tBodies[0]];
        }
        corner.forEach((part) => part.remove());
        table.append(...whole);
        button.setAttribute("aria-expanded", "true");
        button.textContent = "Show the first rows only";
        status.textContent = `All ${rows} × ${cols} values, computed in your browser for ${table.dataset.example}.`;
      }).catch((e) => {
        status.textContent = `The whole matrix could not be computed (${e.message}).`;
      }).finally(() => { button.disabled = false; });
    });
  }

  // ------------------------------------------------------------ following the reader's letters

  const FOLLOWED = "nanogpt-followed";   // sessionStorage: the letters the chapter follows, page to page

  function stored(action, value) {
    try {
      if (action === "get") return sessionStorage.getItem(FOLLOWED);
      if (action === "set") sessionStorage.setItem(FOLLOWED, value);
      else sessionStorage.removeItem(FOLLOWED);
    } catch (e) { /* storage refused (private mode): the choice lasts for the page */ }
    return null;
  }

  /** MathJax typesets what it has not seen: the new formulas and captions. */
  function typeset(elements) {
    const mj = self.MathJax;
    if (!elements.length || !(mj && mj.typesetPromise)) return;   // not started yet: it will see them
    document.body.dataset.mathjax = "busy";
    mj.startup.promise = mj.startup.promise.then(() => mj.typesetPromise(elements))
      .then(() => { document.body.dataset.mathjax = "done"; });
  }

  /** Every output of the page marked data-nano-live drawn again for `ch`
   *  (chapter(...)), in place; the sentences written for the book's
   *  example marked while other letters are followed. */
  function redraw(ch, book) {
    const fresh = [];
    document.querySelectorAll("[data-nano-live]").forEach((old) => {
      const [kind, name] = old.dataset.nanoLive.split(":");
      const markup = ch.render(kind, name, JSON.parse(old.dataset.nanoArgs));   // our own markup: every text escaped
      if (kind === "number") {
        old.innerHTML = markup;
        return;
      }
      const holder = document.createElement("template");
      holder.innerHTML = markup;
      const now = holder.content.firstElementChild;
      for (const a of Array.from(old.attributes)) {
        if (a.name.startsWith("data-") && a.name !== "data-ready") now.setAttribute(a.name, a.value);
      }
      if (now.hasAttribute("data-example")) now.setAttribute("data-example", ch.text);
      const after = old.nextElementSibling;
      if (after && after.classList.contains("nano-full")) after.remove();   // its button is made again
      if (self.MathJax && MathJax.typesetClear) MathJax.typesetClear([old]);
      old.replaceWith(now);
      if (now.matches("table[data-nano-full]")) setUpMatrix(now);
      fresh.push(now);
    });
    typeset(fresh);
    const sorted = ch.steps.map((s) => s.next).join() === ch.ids.slice().sort((a, b) => a - b).join();
    document.querySelectorAll(".nano-for-example").forEach((span) => {
      const note = span.previousElementSibling;
      if (note && note.classList.contains("nano-example-note")) note.remove();
      const holds = span.dataset.nanoHolds === "sorted" && sorted;
      span.classList.toggle("nano-for-example--marked", !book && !holds);
      if (!book && !holds) {
        span.before(el("span", { class: "nano-example-note",
                                 text: `written for the book's example, ${exampleText()}, not for yours:` }), " ");
      }
    });
  }

  const exampleText = () => document.querySelector("[data-nano-example]").dataset.nanoExample;

  /** Under the title of a page with per-input numbers: which letters the
   *  page follows, a field to follow the reader's, and the way back. */
  function setUpFollow() {
    const first = document.querySelector("[data-nano-live]");
    const title = document.querySelector("article h1");
    // the whole book on one page, to print, prints the book's example
    if (!first || !title || document.querySelector(".nano-follow") || /\/print_page\/$/.test(location.pathname)) return;
    const book = exampleText(), id = "nano-follow-letters", length = book.split(" ").length;
    const now = el("p", { class: "nano-follow-now", "aria-live": "polite" });
    const input = el("input", { type: "text", id, autocomplete: "off", spellcheck: "false", placeholder: book,
                                "aria-describedby": `${id}-hint ${id}-message` });
    const back = el("button", { type: "button", class: "nano-button nano-follow-back", text: "Back to the book's example" });
    const message = el("p", { id: `${id}-message`, class: "nano-message", role: "alert" });
    const form = el("form", { class: "nano-follow-form" }, [
      el("label", { for: id, text: "Follow my letters" }), " ", input, " ",
      el("button", { type: "submit", class: "nano-button nano-button--primary", text: "Follow" }), " ", back,
      el("p", { id: `${id}-hint`, class: "nano-hint",
                text: `${length} letters, each A, B or C. Every number that depends on the input is computed ` +
                      "again in your browser, here and on the chapter's next pages; sizes and weights stay." }),
      message]);
    const box = el("div", { class: "nano-follow" }, [now, form]);
    title.after(box);
    document.querySelectorAll("[data-nano-about]").forEach((p) => { p.hidden = false; });   // says how, where it works
    let asked = 0;

    const says = (ids, m) => {
      const yours = ids && ids.map((i) => m.vocab[i]).join(" ");
      back.hidden = !yours;
      now.replaceChildren(...(yours
        ? ["Following ", el("strong", { class: "nano-followed", text: yours }),
           ", your letters, computed in your browser; the book follows ", book, "."]
        : ["Following ", el("strong", { class: "nano-followed", text: book }), ", the book's example."]));
    };
    const fail = (text) => {
      message.textContent = text;
      input.setAttribute("aria-invalid", "true");
    };
    const go = (text, remember) => {
      const ask = ++asked;
      now.textContent = "Loading nano-gpt…";
      return model().then((m) => {
        if (ask !== asked) return;
        let ids = null;
        if (text !== null) {
          try {
            ids = parseLetters(text, m.vocab, length);
          } catch (e) {
            if (!(e instanceof InputError)) throw e;
            says(followed, m);   // the page keeps what it shows
            return fail(e.message);
          }
        }
        message.textContent = "";
        input.removeAttribute("aria-invalid");
        const isBook = !ids || ids.join() === parseLetters(book, m.vocab, length).join();
        redraw(chapter(m, isBook ? parseLetters(book, m.vocab, length) : ids), isBook);
        followed = isBook ? null : ids;
        if (remember) stored(isBook ? "remove" : "set", isBook ? "" : ids.map((i) => m.vocab[i]).join(" "));
        says(followed, m);
      }).catch((e) => ask === asked && fail(`nano-gpt could not run (${e.message}); the page shows the book's example.`));
    };
    let followed = null;
    says(null, { vocab: [] });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      go(input.value, true);
    });
    back.addEventListener("click", () => {
      input.value = "";
      go(null, true).then(() => input.focus());
    });
    input.addEventListener("focus", () => model().catch(() => {}), { once: true });
    const saved = stored("get");
    if (saved) {
      input.value = saved;
      go(saved, false);
    }
  }

  // ------------------------------------------------------------ a matrix is one Tab stop

  const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const CELL = "td.nano-cell[tabindex]";

  /** The arrow keys move within a matrix (Home, End: to the ends of the
   *  row); the cell reached becomes the matrix's one Tab stop. */
  function onMatrixKey(event) {
    const cell = event.target.closest && event.target.closest(CELL);
    if (!cell || event.altKey || event.ctrlKey || event.metaKey) return;
    const table = cell.closest("table"), row = cell.parentElement;
    let target = null;
    if (MOVES[event.key]) {
      const [dr, dc] = MOVES[event.key];
      let r = row.rowIndex + dr, c = cell.cellIndex + dc;
      while (r >= 0 && r < table.rows.length && c >= 0 && c < table.rows[r].cells.length) {
        const next = table.rows[r].cells[c];
        if (next.matches(CELL)) { target = next; break; }
        r += dr; c += dc;
      }
    } else if (event.key === "Home" || event.key === "End") {
      const cells = row.querySelectorAll(CELL);
      target = cells[event.key === "Home" ? 0 : cells.length - 1];
    }
    if (!target) return;
    event.preventDefault();
    target.focus();
  }

  function onMatrixFocus(event) {
    const cell = event.target.closest && event.target.closest(CELL);
    if (!cell) return;
    cell.closest("table").querySelectorAll(`${CELL}[tabindex="0"]`).forEach((c) => c.setAttribute("tabindex", "-1"));
    cell.setAttribute("tabindex", "0");
  }


  function setUp() {
    document.querySelectorAll("[data-nano-sort]").forEach(setUpSorter);
    document.querySelectorAll("table[data-nano-full]").forEach(setUpMatrix);
    setUpFollow();
    if (!self.nanogptKeys) {   // once: instant navigation runs this script again on each page
      self.nanogptKeys = true;
      document.addEventListener("keydown", onMatrixKey);
      document.addEventListener("focusin", onMatrixFocus);
    }
  }

  /** In a page: the weights sit beside this script. Material's instant
   *  navigation runs the page's scripts again, maybe toygpt.js after this
   *  one: wait for it. */
  function start(script) {
    weightsUrl = new URL("nanogpt-weights.json", script ? script.src : document.baseURI).href;
    const go = () => {
      if (toygpt()) return setUp();
      const other = document.querySelector('script[src*="toygpt.js"]');
      if (other) other.addEventListener("load", setUp, { once: true });
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go);
    else go();
  }

  return { InputError, parseLetters, sortLetters, matrixOf, fullMarkup, exampleIds, chapter, charts, start };
});
