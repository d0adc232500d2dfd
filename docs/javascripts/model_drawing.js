// model_drawing.js: the twin of toycalc/book/model_drawing.py (the whole model in one drawing).
//
// The same bands of SVG for the same trace, function for function (each
// named as its Python twin in camelCase): a row per token across every
// part, the residual stream along the top, the block's frame, a cell per
// number with the number in its <title>. The simulator draws it again for
// the reader's sentence, heads and weights; tests/book/test_model_drawing.py
// compares the strings. Pure functions, no page: the same ES module
// in Node and in a page.

import * as render from "./render.js";
import * as draw from "./draw.js";
import * as gpt from "./gpt.js";

const { fixed } = render, { esc, largest, sign, strength, textWidth } = draw;
const ATTENTION = ["ln1", "Q", "K", "V", "heads", "W_O"];
const MLP = ["ln2", "mlp"];
const IN_BLOCK = ATTENTION.concat(MLP, ["add1", "add2"]);   // what the block's frame holds
const GROUPS = [["tokens", "E", "P", "X"], ["ln1", "Q", "K", "V", "heads", "W_O", "add1"],
                ["ln2", "mlp", "add2"], ["lnf", "W_U", "softmax", "next"]];
const CELL = 12, PITCH = 14, HEAD_CELL = 11, GAP = 10, BAND = 336;
const STREAM_Y = 20, BOX_Y = 28, LABEL_Y = 42, TOP = 48;
const STEPS = [[1, "Tokens and ids", ["tokens"]], [2, "The table E", ["E"]], [3, "P and X", ["P", "X"]],
               [4, "LayerNorm", ["ln1"]], [5, "Q, K, V", ["Q", "K", "V"]], [6, "The heads", ["heads"]],
               [7, "Mix and W_O", ["W_O"]], [8, "Sum, LayerNorm, MLP", ["add1", "ln2", "mlp", "add2"]],
               [9, "Output and softmax", ["lnf", "W_U", "softmax", "next"]]];
const STEP_OF = {}, STEP_H = 18;
const SHORT = { 1: "ids", 2: "E", 3: "P, X", 4: "Norm", 5: "Q K V", 6: "Heads", 7: "Mix", 8: "Sum", 9: "Output" };
STEPS.forEach(([n, , names]) => names.forEach((name) => { STEP_OF[name] = n; }));
const rows = (M) => Array.from(M, (r) => Array.from(r));

function sub(symbol) {
  const at = symbol.indexOf("_");
  // the drawing's font draws ′ as a slanted tick, like ´: a serif's prime
  if (at < 0) return esc(symbol).replace(/′/g, '<tspan class="prime">′</tspan>');
  return `${esc(symbol.slice(0, at))}<tspan class="sub" dy="3">${esc(symbol.slice(at + 1))}</tspan>`;
}

const spoken = (label) => label.replace(/_/g, " ");   // for a screen reader: W_O as W O

function part(name, label, width, drawAt, stream) {
  return { name, label, drawAt, stream: !!stream, width: Math.max(width, textWidth(label.replace(/_/g, ""), 8)) };
}

function cellMark(x, y, w, value, scale, kind, title, chosen) {
  const cls = (kind === "signed" ? `v-${sign(value)}` : "v-prob") + (chosen ? " chosen" : "");
  return `<rect x="${x}" y="${y}" width="${w - 1}" height="${CELL}" class="${cls}" ` +
         `fill-opacity="${strength(value / scale)}"><title>${esc(title)}: ${fixed(value)}</title></rect>`;
}

/** chosen: [t, j], the model's answer, outlined as the one chosen. */
function strip(M, x, rowName, kind, columns, chosen) {
  const scale = kind === "signed" ? largest(M) : 1;
  let out = "";
  M.forEach((row, t) => row.forEach((v, j) => {
    const column = columns ? columns[j] : `column ${j + 1}`;
    out += cellMark(x + j * CELL, TOP + t * PITCH, CELL, v, scale, kind, `${rowName(t)}, ${column}`,
                    !!chosen && chosen[0] === t && chosen[1] === j);
  }));
  return out;
}

function headMap(weights, x, h, tokens) {
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    for (let j = 0; j <= i; j++) {
      out += cellMark(x + j * HEAD_CELL, TOP + i * PITCH, HEAD_CELL, weights[i][j], 1, "prob",
                      `head ${h + 1}, ${tokens[i]} (query ${i + 1}) reads ${tokens[j]} (key ${j + 1})`);
    }
  }
  return out;
}

const answer = (word, p) => `${word}, p = ${fixed(p)}`;   // the model's answer: ␣roof, p = 0.395

function nextTokens(words, p, x, tokens) {
  return words.map((word, t) => {
    const last = t === words.length - 1, y = TOP + t * PITCH;
    const box = last ? `<rect class="chosen-box" x="${x - 1}" y="${y - 1}" ` +
                       `width="${textWidth(answer(word, p[t])) + 6}" height="${CELL + 2}" rx="2"/>` : "";
    return box + `<text x="${x + 2}" y="${y + 10}" class="${last ? "lbl answer" : "lbl"}">` +
           `${esc(last ? answer(word, p[t]) : word)}` +
           `<title>after ${esc(tokens[t])} (position ${t + 1}): ${esc(word)}, p = ${fixed(p[t])}</title></text>`;
  }).join("");
}

/** Every part of the model for this trace (a single block), ready to draw. */
function modelParts(tr, tokens, vocab) {
  const blk = tr.blocks[0], T = tokens.length, parts = [part("tokens", "tokens", 0, () => "")];
  const vectors = (name, label, M, row, stream, kind, columns, chosen) => {
    const R = rows(M);
    // one pass, as Python's str.format: a token may hold "{t}" or "$&"
    const rowName = (t) => row.replace(/\{(token|t)\}/g, (_, key) => (key === "t" ? String(t + 1) : tokens[t]));
    parts.push(part(name, label, R[0].length * CELL, (x) => strip(R, x, rowName, kind || "signed", columns, chosen), stream));
  };
  vectors("E", "E", tr.E_ids, "E, the row of {token}");
  vectors("P", "+ P", tr.P_t, "P, row {t} (the position of {token})");
  vectors("X", "x", tr.X, "x of {token} (position {t})", true);
  vectors("ln1", "u", blk.u, "u, x after LayerNorm, of {token} (position {t})");
  [["Q", "query"], ["K", "key"], ["V", "value"]].forEach(([n, role]) =>
    vectors(n, n.toLowerCase(), blk[n], `${n.toLowerCase()}, the ${role} of {token} (position {t})`));
  blk.weights.forEach((w, h) => {
    const W = rows(w);
    parts.push(part("heads", `head ${h + 1}`, T * HEAD_CELL, (x) => headMap(W, x, h, tokens)));
  });
  vectors("W_O", "a W_O", blk.attn, "attention's output for {token} (position {t})");
  vectors("add1", "h", blk.h, "h, x plus attention's output, of {token} (position {t})", true);
  vectors("ln2", "u′", blk.u2, "u′, h after LayerNorm, of {token} (position {t})");
  vectors("mlp", "MLP", blk.m, "m, the MLP's output for {token} (position {t})");
  vectors("add2", "y", blk.y, "y, h plus the MLP's output, of {token} (position {t})", true);
  vectors("lnf", "f", tr.f, "f, y after LayerNorm, of {token} (position {t})", true);
  const shown = vocab.map(gpt.show);
  vectors("W_U", "z", tr.z, "z, the logits after {token} (position {t})", false, "signed", shown);
  const P = rows(tr.p), best = P.map((row) => row.indexOf(Math.max(...row)));
  vectors("softmax", "p", tr.p, "p after {token} (position {t})", false, "prob", shown.map((v) => `p(${v})`),
          [T - 1, best[T - 1]]);
  const words = best.map((i) => shown[i]), p = best.map((i, t) => P[t][i]);
  const width = Math.max(...words.slice(0, -1).map((w) => textWidth(w)),
                         textWidth(answer(words[T - 1], p[T - 1]))) + 8;
  parts.push(part("next", "next", width, (x) => nextTokens(words, p, x, tokens)));
  return parts;
}

/** The parts cut into bands no wider than BAND, a group kept whole when it fits. */
function bands(parts, labelWidth) {
  const groupOf = {};
  GROUPS.forEach((names, k) => names.forEach((n) => { groupOf[n] = k; }));
  const out = [[]];
  let used = labelWidth;
  parts.forEach((p, k) => {
    if (p.name === "tokens") return;
    const startsGroup = k > 0 && groupOf[p.name] !== groupOf[parts[k - 1].name];
    const rest = parts.slice(k).filter((q) => groupOf[q.name] === groupOf[p.name]).reduce((s, q) => s + q.width + GAP, 0);
    if (out[out.length - 1].length && (used + p.width + GAP > BAND || (startsGroup && used + rest > BAND))) {
      out.push([]);
      used = labelWidth;
    }
    out[out.length - 1].push(p);
    used += p.width + GAP;
  });
  return out;
}

function tokenNames(tokens, labelWidth, links, steps) {
  let names = tokens.map((tok, t) =>
    `<text x="${labelWidth - 6}" y="${TOP + t * PITCH + 10}" class="lbl" text-anchor="end">${esc(tok)}` +
    `<title>token ${t + 1}: ${esc(tok)}</title></text>`).join("");
  if (links.tokens) names = `<a data-page="${esc(links.tokens)}">${names}</a>`;   // the labels of their rows
  return `<g data-part="tokens"${stepAttr("tokens", steps)}>${names}</g>`;
}

/** The block's frame and the branches' boxes, drawn under the parts. */
function frames(placed, centre, bottom, nBlocks, firstBlock, steps) {
  let out = "";
  const framed = placed.filter(([p]) => IN_BLOCK.includes(p.name));
  if (framed.length) {
    const last = framed[framed.length - 1], x0 = framed[0][1] - 6, x1 = last[1] + last[0].width + 6;
    out += `<rect class="block" x="${x0}" y="${STREAM_Y - 14}" width="${x1 - x0}" ` +
           `height="${bottom - STREAM_Y + 18}" rx="6"/>`;
    if (firstBlock) {
      const name = nBlocks === 1 ? "the block" : `a block, × ${nBlocks}`;
      const below = bottom + 18 + (steps ? STEP_H + 6 : 0);
      out += `<text x="${x0 + 4}" y="${below}" class="lbl">${esc(name)}</text>`;
    }
  }
  [[ATTENTION, "add1", "attention"], [MLP, "add2", "mlp"]].forEach(([branch, add, cls]) => {
    const inside = placed.filter(([p]) => branch.includes(p.name));
    if (!inside.length) return;
    const last = inside[inside.length - 1], x0 = inside[0][1] - 3, x1 = last[1] + last[0].width + 3;
    out += `<rect class="branch ${cls}" x="${x0}" y="${BOX_Y}" width="${x1 - x0}" height="${bottom - BOX_Y + 3}" rx="3"/>`;
    if (inside[0][0].name === branch[0]) out += `<path class="tap" d="M${x0 + 6} ${STREAM_Y}V${BOX_Y}"/>`;
    if (add in centre) out += `<path class="tap" d="M${x1} ${BOX_Y + 6}H${centre[add]}V${STREAM_Y + 5}"/>`;
  });
  return out;
}

function partGroup(p, px, centre, bottom, links, here, steps) {
  let inner = "";
  if (p.stream) {
    const mid = centre[p.name];
    inner += `<path class="tap" d="M${mid} ${STREAM_Y}V${TOP - 2}"/>`;
    if (p.name === "add1" || p.name === "add2") {
      inner += addMark(mid, STREAM_Y, 5);
    }
  }
  const labelY = p.stream ? STREAM_Y - 8 : LABEL_Y;
  let label = `<text x="${px}" y="${labelY}" class="hdr">${sub(p.label)}</text>`;
  if (links[p.name]) {     // the label is the link; a tap on a cell shows its number
    label = `<a data-page="${esc(links[p.name])}"><rect class="hit" x="${px - 2}" y="${labelY - 12}" ` +
            `width="${textWidth(p.label.replace(/_/g, ""), 8) + 4}" height="16"/>${label}</a>`;
  }
  inner += label + p.drawAt(px);
  return `<g data-part="${p.name}"${here.includes(p.name) ? ' class="here"' : ""}${stepAttr(p.name, steps)}>${inner}</g>`;
}

/** ⊕, where a branch adds back into the stream: a circle and its cross, one path. */
function addMark(x, y, r) {
  const c = r - 2;
  return `<path class="add" d="M${x - r} ${y}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0` +
         `M${x - c} ${y}h${2 * c}M${x} ${y - c}v${2 * c}"/>`;
}

function stepAttr(name, steps) {
  return steps ? ` data-step="${STEP_OF[name]}"` : "";
}

/** End to End's steps in this band: a numbered bar under each step's
 *  parts, its area behind them; a step's first bar is its button.
 *  steps: the steps already drawn (a Set, this adds the band's). */
function stepBars(placed, labelWidth, bottom, steps) {
  const spans = new Map();
  if (!steps.has(1)) spans.set(1, [2, labelWidth - 4]);
  for (const [p, px] of placed) {
    const [x0, x1] = spans.get(STEP_OF[p.name]) || [px - 2, px + p.width + 2];
    spans.set(STEP_OF[p.name], [Math.min(x0, px - 2), Math.max(x1, px + p.width + 2)]);
  }
  let out = "";
  for (const [n, [x0, x1]] of spans) {
    const label = STEPS[n - 1][1];
    const words = textWidth(label) + 24 < x1 - x0 ? `${n}  ${label}`
      : textWidth(SHORT[n]) + 18 < x1 - x0 ? `${n} ${SHORT[n]}` : String(n);
    const shown = words === String(n) || words === `${n}  ${label}` ? "" : `, ${SHORT[n]}`;
    const attrs = steps.has(n) ? ' aria-hidden="true"'
      : ` id="path-step-${n}" role="button" tabindex="0" aria-controls="step-${n}" aria-expanded="false" ` +
        `aria-label="Step ${n}${esc(shown)}: ${esc(spoken(label))}"`;
    steps.add(n);
    out += `<rect class="step-area" data-step="${n}" x="${x0}" y="2" width="${x1 - x0}" ` +
           `height="${bottom + STEP_H + 4}" rx="4"/><g class="path-step" data-step="${n}"${attrs}>` +
           `<rect class="step-bar" x="${x0}" y="${bottom + 8}" width="${x1 - x0}" height="${STEP_H}" rx="3"/>` +
           `<text class="step-n" x="${x0 + 5}" y="${bottom + 21}">${sub(words)}</text></g>`;
  }
  return out;
}

function bandSvg(band, tokens, labelWidth, links, here, nBlocks, firstBlock, steps) {
  const bottom = TOP + tokens.length * PITCH, placed = [], centre = {};
  let x = labelWidth;
  for (const p of band) {
    placed.push([p, x]);
    centre[p.name] = x + Math.floor(p.width / 2);
    x += p.width + GAP;
  }
  const framed = placed.some(([p]) => IN_BLOCK.includes(p.name));
  const body = (steps ? stepBars(placed, labelWidth, bottom, steps) : "") +
    tokenNames(tokens, labelWidth, links, steps) + frames(placed, centre, bottom, nBlocks, firstBlock, steps) +
    `<path class="stream" d="M${labelWidth - 4} ${STREAM_Y}H${BAND - 8}"/>` +
    `<path class="stream-end" d="M${BAND - 8} ${STREAM_Y - 4}l7 4l-7 4z"/>` +
    placed.map(([p, px]) => partGroup(p, px, centre, bottom, links, here, steps)).join("");
  const height = bottom + (framed ? 24 : 8) + (steps ? STEP_H + 6 : 0), labels = [...new Set(band.map((p) => spoken(p.label)))];
  return `<svg class="fig model-band" viewBox="0 0 ${BAND} ${height}" width="${BAND}" height="${height}" ` +
         `role="${steps ? "group" : "img"}" aria-label="${esc("The model's drawing, parts " + labels.join(", then "))}">${body}</svg>`;
}

/** The whole model on this trace, as bands of SVG (model_drawing.py's model_svg). */
function modelSvg(tr, tokens, vocab, links, here, nBlocks, steps) {
  links = links || {}; here = here || []; nBlocks = nBlocks || 1;
  const parts = modelParts(tr, tokens, vocab);
  const labelWidth = Math.max(...tokens.map((t) => textWidth(t))) + 10;
  const cut = bands(parts, labelWidth);
  const framed = cut.findIndex((band) => band.some((p) => IN_BLOCK.includes(p.name)));
  const done = steps ? new Set() : null;
  return `<div class="model-bands">${cut.map((band, k) =>
    bandSvg(band, tokens, labelWidth, links, here, nBlocks, k === framed, done)).join("")}</div>`;
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
  return '<p class="fig-legend model-key">Each row is a token of the sentence, followed from its ' +
    'row of E (top left) to the token the model guesses after it (bottom right). ' +
    '<span class="swatch v-neg"></span> negative ' +
    '<span class="swatch v-zero"></span> zero ' +
    '<span class="swatch v-pos"></span> positive (each strip: full colour for its largest ' +
    'size); <span class="swatch v-prob"></span> a weight or probability, from 0 to 1; ' +
    '<span class="swatch chosen"></span> the one chosen: the token the model picks, and its p; ' +
    '<span class="key-line"></span> the residual stream, ⊕ adds a branch back into it; ' +
    `the dashed frame is the block. ${how}</p>`;
}

export { modelSvg, modelFigure, modelKey };
