// draw.js: the twin of toycalc/book/draw.py (figures: cells, bars, lines, charts).
//
// The same SVG markup for the same numbers, function for function (each
// named as its Python twin in camelCase, listed by tests/test_mirrors.py):
// the primitives, the End-to-End figures and the path's drawings, and the
// charts nano-gpt's live chapter draws again for the reader's letters.
// tests/book/test_figures_parity.py and test_nanogpt_switch.py compare
// the strings. Every text written into the markup is escaped here. Pure
// functions, no page: the same ES module in Node and in a page.

import * as render from "./render.js";

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

function cell(x, y, w, h, value, scale, title, kind) {
  const cls = kind === "prob" ? "v-prob" : `v-${sign(value)}`;
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" class="${cls}" ` +
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

function grid(M, titles, size, x0, y0, scale, kind) {
  x0 = x0 || 0; y0 = y0 || 0;
  scale = scale === undefined || scale === null ? largest(M) : scale;
  let out = "";
  const masked = [];
  M.forEach((row, i) => row.forEach((v, j) => {
    const x = x0 + j * size, y = y0 + i * size;
    if (v === null) masked.push([x, y, size, size]);
    else out += cell(x, y, size, size, v, scale, titles[i][j], kind);
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

/** draw.py's attention_svg: token by token, so a token more is appended;
 *  positions numbered from 1, as everywhere in the book. */
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
                   `head ${head}, ${tokens[i]} (query ${i + 1}) reads ${tokens[j]} (key ${j + 1})`, "prob");
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
    body += label(left - 6, y + 13, name, "end", k === top ? "lbl top" : "lbl");
    body += `<rect x="${left}" y="${y + 3}" width="${width}" height="${row - 6}" class="${cls}">` +
            `<title>${what}(${esc(name)}) = ${fixed(v)}</title></rect>`;
    body += label(left + width + 4, y + 13, fixed(v) + (k === top ? " largest" : ""), "start",
                  k === top ? "val top" : "val");
  });
  return svg(left + span + 48 + (top !== undefined && top !== null ? 56 : 0), labels.length * row, aria, body);
}

/** draw.py's prob_key: the key of a drawing of weights in [0, 1], beside it. */
function probKey(what, masked, lines) {
  what = what || "weight";
  let steps = "";
  for (let q = 0; q < 5; q++) steps += `<span class="swatch v-prob q${q}"></span>`;
  return `<p class="fig-legend fig-key">${esc(what)}: 0 ${steps} 1` +
         (masked ? '; <span class="swatch v-masked"></span> masked: a later key' : "") +
         (lines ? "; the thicker the line, the larger the weight" : "") + "</p>";
}

function figure(kind, body, caption, data) {
  const attrs = Object.entries(data || {}).map(([k, v]) => ` data-${k}="${esc(String(v))}"`).join("");
  const cap = caption ? `<figcaption>${caption}</figcaption>` : "";
  return `<figure class="toy-figure" data-figure="${kind}"${attrs}>${body}${cap}</figure>`;
}

export { esc, strength, sign, largest, cell, maskedCells, grid, label, svg, textWidth, attentionSvg,
         attentionLinesSvg, barsSvg, probKey, figure };
