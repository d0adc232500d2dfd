// draw.js: the twin of toycalc/book/draw.py (figures: cells, bars, lines, charts).
//
// The same SVG markup for the same numbers, function for function (each
// named as its Python twin in camelCase, listed by tests/test_mirrors.py):
// the primitives, the End-to-End figures and the path's drawings, and the
// charts nano-gpt's live chapter draws again for the reader's letters.
// tests/book/test_figures_parity.py and test_nanogpt_switch.py compare
// the strings. Every text written into the markup is escaped here. Pure
// functions, no page: a CommonJS module in Node, toycalc.draw in a page.
(function (root, name, needs, factory) {   // the wrapper of every module: see gpt.js
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...needs.map((n) => require(`./${n}.js`)));
    return;
  }
  const t = (root.toycalc = root.toycalc || { waiting: [] }), ready = (w) => w.needs.every((n) => t[n]);
  t.waiting.push({ name, needs, factory, script: document.currentScript });
  for (let w; (w = t.waiting.find(ready));) {
    t.waiting.splice(t.waiting.indexOf(w), 1);
    if (!t[w.name] || t[w.name].start) t[w.name] = w.factory(...w.needs.map((n) => t[n]));
    if (t[w.name].start) t[w.name].start(w.script);
  }
})(typeof self !== "undefined" ? self : this, "draw", ["render"], function (render) {
  "use strict";

  const { fixed } = render;
  const esc = (text) => render.escape(text);

  // ------------------------------------------------------------ primitives

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

  /** A text's width in px at the book's label size: one em a character. */
  const textWidth = (text, px) => Array.from(text).length * (px || 7);
  const widest = (tokens) => Math.max(...tokens.map((t) => textWidth(t)));

  // ------------------------------------------------------------ figures

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

  // ------------------------------------------------------------ the path's drawings

  // What each step of End to End's path draws: (trace name, symbol in a cell's title)
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

  // ------------------------------------------------------------ charts: axes, lines, stacked bars

  const SERIES = 5;   // series classes s1 .. s5 (figures.css), told apart by more than colour
  const sum = (values) => values.reduce((s, v) => s + v, 0);

  /** A coordinate with one decimal at most: 12, 12.5. */
  function at(v) {
    const tenths = Math.floor(v * 10 + 0.5);
    return tenths % 10 === 0 ? String(Math.floor(tenths / 10)) : (tenths / 10).toFixed(1);
  }

  /** Round tick values (1, 2 or 5 times a power of ten apart) over lo .. hi. */
  function niceTicks(lo, hi, n) {
    if (hi === lo) hi = lo + 1;
    const raw = (hi - lo) / n, power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw * (1 - 1e-9));
    const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
    const out = [];
    for (let k = first; k <= last; k++) out.push(k * step);
    return out;
  }

  /** A key to the series, in a row: a swatch (or a short line) and a name each. */
  function seriesKey(names, x, y, mark) {
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

  /** Lines with axes: series is a list of [name, points, titles]. */
  function lineChartSvg(series, aria, xTicks, yTicks, xLabel, yLabel, width, height) {
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

  /** One horizontal bar per label, cut into a segment per series. */
  function stackedBarsSvg(labels, names, rows, titles, aria, after, span) {
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

  return { esc, strength, sign, largest, cell, maskedCells, grid, label, svg, textWidth, attentionSvg,
           attentionLinesSvg, barsSvg, figure, stripsSvg, pathSvg, at, niceTicks, seriesKey, lineChartSvg,
           stackedBarsSvg };
});
