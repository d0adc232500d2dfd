// model_drawing.js: the twin of toycalc/book/model_drawing.py (the whole model in one drawing).
//
// The same <svg> for the same trace, function for function (each named as
// its Python twin in camelCase): three rows of parts (the embedding, the
// block in one frame, the output), a row per token across every part, the
// residual stream one line through them, every part named in words, a
// cell per number with the number in its <title>. The simulator draws it
// again for the reader's sentence, heads and weights;
// tests/book/test_model_drawing.py compares the strings. Pure functions,
// no page: the same ES module in Node and in a page.

import * as render from "./render.js";
import * as draw from "./draw.js";
import * as gpt from "./gpt.js";

const { fixed } = render, { esc, largest, sign, strength, textWidth } = draw;
const ATTENTION = ["ln1", "Q", "K", "V", "heads", "W_O"];
const MLP = ["ln2", "mlp"];
const IN_BLOCK_ORDER = ATTENTION.concat(["add1"], MLP, ["add2"]);
const NAMES = {
  tokens: ["Tokens", ""], E: ["Embedding", "E"], P: ["Positions", "P"], X: ["Sum", "x"],
  ln1: ["LayerNorm", "u"], Q: ["Queries", "q"], K: ["Keys", "k"], V: ["Values", "v"],
  heads: ["Heads", ""], W_O: ["Mix", "W_O"], add1: ["Add", "h"], ln2: ["LayerNorm", "u′"],
  mlp: ["MLP", "m"], add2: ["Add", "y"], lnf: ["LayerNorm", "f"], W_U: ["Logits", "z"],
  softmax: ["Probabilities", "p"], next: ["Next token", ""],
};
const ATTENTION_NAME = "Attention";
const STEPS = [[1, "Tokens", ["tokens"]], [2, "Embedding", ["E"]], [3, "Positions", ["P", "X"]],
               [4, "LayerNorm", ["ln1"]], [5, "Queries, keys, values", ["Q", "K", "V"]], [6, "Heads", ["heads"]],
               [7, "Mix", ["W_O"]], [8, "Add, LayerNorm, MLP", ["add1", "ln2", "mlp", "add2"]],
               [9, "Output", ["lnf", "W_U", "softmax", "next"]]];
const STEP_OF = {}, STEP_H = 18;
STEPS.forEach(([n, , names]) => names.forEach((name) => { STEP_OF[name] = n; }));
const ROWS = [["E", "P", "X"], IN_BLOCK_ORDER, ["lnf", "W_U", "softmax", "next"]];
const STREAM = ["X", "add1", "add2"];
const CELL = 12, PITCH = 14, HEAD_CELL = 11, GAP = 10, NAME_PX = 8;
const WIDE = 16, STRIP_CELL = 2, LEVELS = 8;   // a matrix of more columns: heat strips
const FRAME_Y = 2, TITLE_Y = 15, STREAM_Y = 26, BOX_Y = 32, BOX_TITLE_Y = 45, LABEL_Y = 59, TOP = 64, RETURN = 12;
const rows = (M) => Array.from(M, (r) => Array.from(r));
const half = (w) => Math.floor(w / 2);

function sub(symbol) {
  const at = symbol.indexOf("_");
  // the drawing's font draws ′ as a slanted tick, like ´: a serif's prime
  if (at < 0) return esc(symbol).replace(/′/g, '<tspan class="prime">′</tspan>');
  return `${esc(symbol.slice(0, at))}<tspan class="sub" dy="3">${esc(symbol.slice(at + 1))}</tspan>`;
}

const spoken = (label) => label.replace(/_/g, " ");   // for a screen reader: W_O as W O
const blockTitle = (nBlocks) => `Transformer block × ${nBlocks}`;

/** A part's name as the drawing writes it: words, then its letter. */
function nameText(name, label) {
  const [words, letter] = NAMES[name];
  if (name === "heads") return label;
  if (STREAM.includes(name)) return letter;
  return name === "P" ? `+ ${words} ${letter}` : `${words} ${letter}`.trim();
}

function nameSvg(name, label) {
  const letter = NAMES[name][1];
  if (name === "heads" || STREAM.includes(name) || !letter) return sub(nameText(name, label));
  const text = nameText(name, label);
  return `${esc(text.slice(0, text.length - letter.length))}<tspan class="sym">${sub(letter)}</tspan>`;
}

function part(name, label, width, drawAt) {
  return { name, label, drawAt, width: Math.max(width, textWidth(nameText(name, label).replace(/_/g, ""), NAME_PX)) };
}

function cellMark(x, y, w, value, scale, kind, title, chosen) {
  const cls = (kind === "signed" ? `v-${sign(value)}` : "v-prob") + (chosen ? " chosen" : "");
  return `<rect x="${x}" y="${y}" width="${w - 1}" height="${CELL}" class="${cls}" ` +
         `fill-opacity="${strength(value / scale)}"><title>${esc(title)}: ${fixed(value)}</title></rect>`;
}

/** chosen: [t, j], the model's answer, outlined as the one chosen. */
function strip(M, x, y, rowName, kind, columns, chosen) {
  const scale = kind === "signed" ? largest(M) : 1;
  if (M[0].length > WIDE) return heatStrips(M, x, y, rowName, scale, kind);
  let out = "";
  M.forEach((row, t) => row.forEach((v, j) => {
    const column = columns ? columns[j] : `column ${j + 1}`;
    out += cellMark(x + j * CELL, y + TOP + t * PITCH, CELL, v, scale, kind, `${rowName(t)}, ${column}`,
                    !!chosen && chosen[0] === t && chosen[1] === j);
  }));
  return out;
}

/** A wide matrix, a row per token as one strip: a path per colour and step, the row's numbers in its title. */
function heatStrips(M, x, y, rowName, scale, kind) {
  let out = "";
  M.forEach((row, t) => {
    const top = y + TOP + t * PITCH, paths = new Map();
    row.forEach((v, j) => {
      const cls = kind === "signed" ? `v-${sign(v)}` : "v-prob";
      const step = Math.ceil(Math.min(1, Math.abs(v) / scale) * LEVELS) / LEVELS;
      const key = `${cls} ${v ? strength(step) : "0"}`;
      if (!paths.has(key)) paths.set(key, []);
      paths.get(key).push(j);
    });
    paths.forEach((columns, key) => {
      const [cls, opacity] = key.split(" ");
      const d = columns.map((j) => `M${x + j * STRIP_CELL} ${top}h${STRIP_CELL}v${CELL}h-${STRIP_CELL}z`).join("");
      out += `<path class="${cls}" fill-opacity="${opacity}" d="${d}"/>`;
    });
    out += `<rect class="strip-hit" x="${x}" y="${top}" width="${row.length * STRIP_CELL}" height="${CELL}">` +
           `<title>${esc(rowName(t))}, its ${row.length} columns: ${row.map((v) => fixed(v)).join(", ")}</title></rect>`;
  });
  return out;
}

function headMap(weights, x, y, h, tokens) {
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    for (let j = 0; j <= i; j++) {
      out += cellMark(x + j * HEAD_CELL, y + TOP + i * PITCH, HEAD_CELL, weights[i][j], 1, "prob",
                      `head ${h + 1}, ${tokens[i]} (query ${i + 1}) reads ${tokens[j]} (key ${j + 1})`);
    }
  }
  return out;
}

const answer = (word, p) => `${word}, p = ${fixed(p)}`;   // the model's answer: ␣roof, p = 0.395

function nextTokens(words, p, x, y0, tokens) {
  return words.map((word, t) => {
    const last = t === words.length - 1, y = y0 + TOP + t * PITCH;
    const box = last ? `<rect class="chosen-box" x="${x - 1}" y="${y - 1}" ` +
                       `width="${textWidth(answer(word, p[t])) + 6}" height="${CELL + 2}" rx="2"/>` : "";
    return box + `<text x="${x + 2}" y="${y + 10}" class="${last ? "lbl answer" : "lbl"}">` +
           `${esc(last ? answer(word, p[t]) : word)}` +
           `<title>after ${esc(tokens[t])} (position ${t + 1}): ${esc(word)}, p = ${fixed(p[t])}</title></text>`;
  }).join("");
}

/** Every part of the model for this trace (a single block), ready to draw. */
function modelParts(tr, tokens, vocab) {
  const blk = tr.blocks[0], T = tokens.length, parts = [];
  const vectors = (name, M, row, kind, columns, chosen) => {
    const R = rows(M);
    // one pass, as Python's str.format: a token may hold "{t}" or "$&"
    const rowName = (t) => row.replace(/\{(token|t)\}/g, (_, key) => (key === "t" ? String(t + 1) : tokens[t]));
    parts.push(part(name, "", R[0].length * (R[0].length > WIDE ? STRIP_CELL : CELL), (x, y) => strip(R, x, y, rowName, kind || "signed", columns, chosen)));
  };
  vectors("E", tr.E_ids, "E, the row of {token}");
  vectors("P", tr.P_t, "P, row {t} (the position of {token})");
  vectors("X", tr.X, "x of {token} (position {t})");
  vectors("ln1", blk.u, "u, x after LayerNorm, of {token} (position {t})");
  [["Q", "query"], ["K", "key"], ["V", "value"]].forEach(([n, role]) =>
    vectors(n, blk[n], `${n.toLowerCase()}, the ${role} of {token} (position {t})`));
  blk.weights.forEach((w, h) => {
    const W = rows(w);
    parts.push(part("heads", `head ${h + 1}`, T * HEAD_CELL, (x, y) => headMap(W, x, y, h, tokens)));
  });
  vectors("W_O", blk.attn, "attention's output for {token} (position {t})");
  vectors("add1", blk.h, "h, x plus attention's output, of {token} (position {t})");
  vectors("ln2", blk.u2, "u′, h after LayerNorm, of {token} (position {t})");
  vectors("mlp", blk.m, "m, the MLP's output for {token} (position {t})");
  vectors("add2", blk.y, "y, h plus the MLP's output, of {token} (position {t})");
  vectors("lnf", tr.f, "f, y after LayerNorm, of {token} (position {t})");
  const shown = vocab.map(gpt.show);
  vectors("W_U", tr.z, "z, the logits after {token} (position {t})", "signed", shown);
  const P = rows(tr.p), best = P.map((row) => row.indexOf(Math.max(...row)));
  vectors("softmax", tr.p, "p after {token} (position {t})", "prob", shown.map((v) => `p(${v})`),
          [T - 1, best[T - 1]]);
  const words = best.map((i) => shown[i]), p = best.map((i, t) => P[t][i]);
  const width = Math.max(...words.slice(0, -1).map((w) => textWidth(w)),
                         textWidth(answer(words[T - 1], p[T - 1]))) + 8;
  parts.push(part("next", "", width, (x, y) => nextTokens(words, p, x, y, tokens)));
  return parts;
}

const stepTextWidth = (n, label) => textWidth(`${n}  ${label}`) + 12;

/** End to End: a step's bar names it in full, so the step's last part widens until its bar holds the words. */
function widenSteps(parts) {
  STEPS.slice(1).forEach(([n, label, names]) => {
    const mine = parts.filter((p) => names.includes(p.name));
    const room = mine.reduce((s, p) => s + p.width, 0) + GAP * (mine.length - 1) + 4;
    const need = stepTextWidth(n, label);
    if (room < need) mine[mine.length - 1].width += need - room;
  });
}

/** Each row of parts with every part's x, a little after the tokens' names. */
function placedRows(parts, labelWidth) {
  return ROWS.map((names, k) => {
    let x = labelWidth + (k === 1 ? 8 : 6);
    return parts.filter((p) => names.includes(p.name)).map((p) => {
      const at = [p, x];
      x += p.width + GAP;
      return at;
    });
  });
}

/** The tokens' names, a row's labels; the first row's are step 1, under the word "Tokens". */
function tokensSvg(tokens, labelWidth, y, links, steps, first) {
  let names = tokens.map((tok, t) =>
    `<text x="${labelWidth - 6}" y="${y + TOP + t * PITCH + 10}" class="lbl" text-anchor="end">` +
    `${esc(tok)}<title>token ${t + 1}: ${esc(tok)}</title></text>`).join("");
  if (first) names = `<text x="${labelWidth - 6}" y="${y + LABEL_Y}" class="hdr" text-anchor="end">${NAMES.tokens[0]}</text>` + names;
  if (links.tokens) names = `<a data-page="${esc(links.tokens)}">${names}</a>`;   // the labels of their rows
  return `<g data-part="tokens"${steps && first ? ` data-step="${STEP_OF.tokens}"` : ""}>${names}</g>`;
}

function partSvg(p, px, y, centre, links, here, steps) {
  let inner = "";
  const stream = STREAM.includes(p.name);
  if (stream) {
    const mid = centre[p.name];
    inner += `<path class="tap" d="M${mid} ${y + STREAM_Y}V${y + TOP - 2}"/>`;
    if (p.name !== "X") inner += addMark(mid, y + STREAM_Y, 5);
  }
  const labelY = y + (stream ? STREAM_Y - 8 : LABEL_Y), labelX = stream ? centre[p.name] - 4 : px;
  let label = `<text x="${labelX}" y="${labelY}" class="hdr">${nameSvg(p.name, p.label)}</text>`;
  if (links[p.name]) {     // the label is the link; a tap on a cell shows its number
    label = `<a data-page="${esc(links[p.name])}"><rect class="hit" x="${labelX - 2}" y="${labelY - 12}" ` +
            `width="${textWidth(nameText(p.name, p.label).replace(/_/g, ""), NAME_PX) + 4}" height="16"/>${label}</a>`;
  }
  inner += label + p.drawAt(px, y);
  return `<g data-part="${p.name}"${here.includes(p.name) ? ' class="here"' : ""}` +
         `${steps ? ` data-step="${STEP_OF[p.name]}"` : ""}>${inner}</g>`;
}

/** ⊕, where a branch adds back into the stream: a circle and its cross, one path. */
function addMark(x, y, r) {
  const c = r - 2;
  return `<path class="add" d="M${x - r} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0` +
         `M${x - c} ${y}h${2 * c}M${x} ${y - c}v${2 * c}"/>`;
}

/** Row k of parts from y: the tokens' names, the block's frame, the branches' boxes, the parts, the steps' bars. */
function rowSvg(k, placed, y, tokens, labelWidth, links, here, nBlocks, steps) {
  const bottom = y + TOP + tokens.length * PITCH, under = bottom + (steps ? 6 + STEP_H : 0), centre = {};
  placed.forEach(([p, px]) => { centre[p.name] = px + half(p.width); });
  let out = tokensSvg(tokens, labelWidth, y, links, steps, k === 0);
  if (k === 1) {
    const [last, lastX] = placed[placed.length - 1], x0 = placed[0][1] - 8, x1 = lastX + last.width + 8;
    out += `<rect class="block" x="${x0}" y="${y + FRAME_Y}" width="${x1 - x0}" height="${under + 4 - y - FRAME_Y}" rx="6"/>` +
           `<text x="${x0 + 8}" y="${y + TITLE_Y}" class="frame-title">${esc(blockTitle(nBlocks))}</text>`;
  }
  [[ATTENTION, "add1", "attention"], [MLP, "add2", "mlp"]].forEach(([branch, add, cls]) => {
    const inside = placed.filter(([p]) => branch.includes(p.name));
    if (!inside.length) return;
    const [last, lastX] = inside[inside.length - 1], x0 = inside[0][1] - 4, x1 = lastX + last.width + 2;
    out += `<rect class="branch ${cls}" x="${x0}" y="${y + BOX_Y}" width="${x1 - x0}" ` +
           `height="${bottom - y - BOX_Y + 4}" rx="3"/>` +
           `<path class="tap" d="M${x0 + 6} ${y + STREAM_Y}V${y + BOX_Y}"/>` +
           `<path class="tap" d="M${x1} ${y + BOX_Y + 6}H${centre[add]}V${y + STREAM_Y + 5}"/>`;
    if (cls === "attention") {
      const qx = inside.find(([p]) => p.name === "Q")[1];
      out += `<text x="${qx}" y="${y + BOX_TITLE_Y}" class="box-title">${ATTENTION_NAME}</text>`;
    }
  });
  out += placed.map(([p, px]) => partSvg(p, px, y, centre, links, here, steps)).join("");
  return `<g class="parts-row">${steps ? stepBars(placed, k === 0 ? labelWidth : null, y, bottom) : ""}${out}</g>`;
}

/** The residual stream, one line: from x, along each row past its last
 *  part, back under it to the next row's start, down into f. */
function streamPath(placed, tops, heights, labelWidth) {
  const [xPart, xAt] = placed[0].find(([p]) => p.name === "X");
  const fX = placed[2].find(([p]) => p.name === "lnf")[1] - 5, left = labelWidth - 10;
  let d = `M${xAt + half(xPart.width)} ${tops[0] + STREAM_Y}`;
  [0, 1].forEach((k) => {
    const back = tops[k] + heights[k] - RETURN / 2, [last, px] = placed[k][placed[k].length - 1];
    d += `H${px + last.width + 10}V${back}H${left}V${tops[k + 1] + STREAM_Y}`;
  });
  const end = tops[2] + TOP - 4;
  d += `H${fX}V${end - 6}`;
  return `<path class="stream" d="${d}"/><path class="stream-end" d="M${fX - 4} ${end - 7}l4 7l4 -7z"/>`;
}

/** End to End's steps in a row of parts: a numbered bar naming each step
 *  under its parts, its area behind them; the bar is the step's button. */
function stepBars(placed, labelWidth, y, bottom) {
  const spans = new Map();
  if (labelWidth !== null) spans.set(1, [2, labelWidth - 4]);
  for (const [p, px] of placed) {
    const [x0, x1] = spans.get(STEP_OF[p.name]) || [px - 2, px + p.width + 2];
    spans.set(STEP_OF[p.name], [Math.min(x0, px - 2), Math.max(x1, px + p.width + 2)]);
  }
  let out = "";
  for (const [n, [x0, x1]] of spans) {
    const label = STEPS[n - 1][1];
    out += `<rect class="step-area" data-step="${n}" x="${x0}" y="${y + 2}" width="${x1 - x0}" ` +
           `height="${bottom - y + STEP_H + 4}" rx="4"/><g class="path-step" data-step="${n}" ` +
           `id="path-step-${n}" role="button" tabindex="0" aria-controls="step-${n}" aria-expanded="false" ` +
           `aria-label="Step ${n}: ${esc(label)}">` +
           `<rect class="step-bar" x="${x0}" y="${bottom + 6}" width="${x1 - x0}" height="${STEP_H}" rx="3"/>` +
           `<text class="step-n" x="${x0 + 5}" y="${bottom + 19}">${n}  ${esc(label)}</text></g>`;
  }
  return out;
}

/** The whole model on this trace, one <svg> of three rows of parts (model_drawing.py's model_svg). */
function modelSvg(tr, tokens, vocab, links, here, nBlocks, steps) {
  links = links || {}; here = here || []; nBlocks = nBlocks || 1;
  const parts = modelParts(tr, tokens, vocab);
  if (steps) widenSteps(parts);
  const labelWidth = Math.max(...tokens.map((t) => textWidth(t)), stepTextWidth(1, STEPS[0][1])) + 10;
  const placed = placedRows(parts, labelWidth);
  const bottom = TOP + tokens.length * PITCH + (steps ? 6 + STEP_H : 0);
  const heights = [0, 1, 2].map(() => bottom + 4 + RETURN), tops = [0, heights[0], heights[0] + heights[1]];
  const width = Math.max(...placed.flat().map(([p, px]) => px + p.width)) + 20;
  const body = streamPath(placed, tops, heights, labelWidth) +
    placed.map((row, k) => rowSvg(k, row, tops[k], tokens, labelWidth, links, here, nBlocks, steps)).join("");
  const height = tops[2] + bottom + 8;
  const words = [...new Set(placed.flat().map(([p]) => (p.name === "heads" ? "the heads" : spoken(nameText(p.name, p.label)))))];
  return `<div class="model-bands" tabindex="0" role="region" aria-label="The whole model's drawing">` +
         `<svg class="fig model-band" viewBox="0 0 ${width} ${height}" width="${width}" ` +
         `height="${height}" role="${steps ? "group" : "img"}" ` +
         `aria-label="${esc("The whole model: the tokens, then " + words.join(", then "))}">${body}</svg></div>`;
}

/** The drawing in its <figure>, its key as the caption. */
function modelFigure(tr, tokens, vocab, links) {
  return `<figure class="toy-figure model-figure" data-figure="model">${modelSvg(tr, tokens, vocab, links)}` +
         `<figcaption>${modelKey(false, Object.keys(links || {}).length > 0)}</figcaption></figure>`;
}

/** What the drawing's marks mean; steps: End to End's way in; linked:
 *  the parts' names are links. */
function modelKey(steps, linked) {
  // screen-only: the print page has no pointer and prints every step
  const how = '<span class="screen-only">' + (steps ? "Click or tap a numbered step, or press Enter on it, and its " +
    "numbers open under the drawing." : "Point at or tap a cell to read its number" +
    (linked ? "; a part's name opens its page." : ".")) + "</span>";
  return '<p class="fig-legend model-key">A row per token, read left to right and top to bottom. ' +
    '<span class="swatch v-neg"></span> negative ' +
    '<span class="swatch v-zero"></span> zero ' +
    '<span class="swatch v-pos"></span> positive; ' +
    '<span class="swatch v-prob"></span> a weight or probability, 0 to 1; ' +
    '<span class="swatch chosen"></span> the token the model picks; ' +
    '<span class="key-line"></span> the residual stream, ⊕ adds a branch back into it. ' +
    `${how}</p>`;
}

export { modelSvg, modelFigure, modelKey };
