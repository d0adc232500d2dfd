// writer.js: a page's code (data-module="writer"): the page Type, it writes (docs/writer/write.md). The reader
// types; the table shows the next character's ten likeliest; Write draws a
// continuation. The model is gpt.js's, on the writer's weights, which the
// build publishes as float16 bytes (toycalc/book/writer/live.py) and this
// page fetches only when the reader presses Start; each next character's
// distribution is batched.js's forward pass in float32 on kernels.wasm
// (the last block's rest on the last row only), eight times quicker than
// gpt.js's float64 and equal to numpy's within 1e-5. The draws
// repeat toycalc/book/writer/shared.py's (mulberry32, top-k, a window of
// the last n_ctx characters), so a seed writes what the chapter printed.
import * as gpt from "./gpt.js";
import * as batched from "./batched.js";

const WEIGHTS = new URL("writer-weights.bin", import.meta.url).href;

/** A float16 (its 16 bits) as the number it is, exactly. */
function half(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** gpt.js's model from the published bytes: each parameter in turn, in
 *  setup.shapes' order (sizes.param_shapes), float16 little-endian. */
function modelFromBytes(setup, buffer) {
  if (buffer.byteLength !== setup.bytes) {
    throw new RangeError(`the writer's weights are ${buffer.byteLength} bytes, expected ${setup.bytes}`);
  }
  const view = new DataView(buffer);
  let at = 0;
  const arrays = {};
  for (const [name, shape] of setup.shapes) {
    const n = shape.reduce((a, b) => a * b, 1), flat = new Float64Array(n);
    for (let i = 0; i < n; i++) flat[i] = half(view.getUint16(at + 2 * i, true));
    at += 2 * n;
    arrays[name] = shape.length === 1 ? Array.from(flat)
      : Array.from({ length: shape[0] }, (_, r) => Array.from(flat.subarray(r * shape[1], (r + 1) * shape[1])));
  }
  const data = {
    vocab: Array.from(setup.vocab), heads: setup.heads, d: setup.d, n_ctx: setup.n_ctx, width: setup.width,
    ln_eps: setup.ln_eps, gelu_c: setup.gelu_c, E: arrays.E, P: arrays.P, W_U: arrays.W_U,
    gamma_f: arrays.gamma_f, beta_f: arrays.beta_f, blocks: [],
  };
  for (let b = 0; b < setup.blocks; b++) {
    const blk = {};
    for (const [name] of setup.shapes) if (name.startsWith(`blocks.${b}.`)) blk[name.split(".")[2]] = arrays[name];
    data.blocks.push(blk);
  }
  return gpt.load(data);
}

/** The first character of text outside the vocabulary: { at (from 1), ch }, or null. */
function outside(text, vocab) {
  const chars = new Set(Array.from(vocab));
  let at = 0;
  for (const ch of text) {
    at += 1;
    if (!chars.has(ch)) return { at, ch };
  }
  return null;
}

function encode(text, vocab) {
  const index = new Map(Array.from(vocab).map((ch, i) => [ch, i]));
  return Array.from(text, (ch) => index.get(ch));
}

/** The next character's distribution after ids (the last n_ctx of them),
 *  at temperature (kernels.wasm ready: batched.ready()). */
function next(model, ids, temperature) {
  if (!(temperature > 0)) throw new RangeError(`temperature must be > 0, got ${temperature}`);
  return batched.next(model, ids.slice(-model.nCtx), temperature);
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
 *  new ids and the distribution each was drawn from. onStep(k, id, q)
 *  is called after each (the page draws it). */
async function write(model, ids, n, temperature, k, seed, onStep) {
  const draw = gpt.rng(seed);
  ids = ids.slice();
  const out = [], dists = [];
  for (let s = 0; s < n; s++) {
    const q = topK(next(model, ids, temperature), k);
    const id = gpt.sample(q, draw());
    ids.push(id);
    out.push(id);
    dists.push(q);
    if (onStep) await onStep(s, id, q);
  }
  return { ids: out, dists };
}

// ------------------------------------------------------------ the page

const SHOWN = { " ": "␣", "\n": "↵" };
const shown = (ch) => SHOWN[ch] || ch;

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

function field(box, label, attrs) {
  const id = `writer-${attrs.name}`;
  const wrap = el("label", { for: id, class: "writer-setting" }, label + " ");
  const input = el("input", { id, ...attrs });
  wrap.append(input);
  box.append(wrap);
  return input;
}

function distTable(p, vocab, count, caption) {
  const order = p.map((v, i) => i).sort((a, b) => (p[b] - p[a]) || (a - b)).slice(0, count);
  const table = el("table", { class: "writer-top" });
  table.append(el("caption", {}, caption));
  const head = el("tr");
  head.append(el("th", { scope: "col" }, "character"), el("th", { scope: "col" }, "p"));
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const i of order) {
    const row = el("tr");
    row.append(el("td", {}, shown(vocab[i])), el("td", {}, p[i].toFixed(3)));
    body.append(row);
  }
  table.append(body);
  return table;
}

/** The tool's elements: Start, then (hidden until the weights are in)
 *  the text, its message, the top 10, the settings, Write and its output. */
function makeTool(root, setup) {
  const t = {};
  t.start = el("button", { type: "button", class: "md-button md-button--primary", "data-writer-start": "" },
    "Start the writer");
  t.note = el("p", { class: "writer-note" }, `Starting fetches the weights (${Math.ceil(setup.bytes / 1024).toLocaleString("en")} KiB) once.`);
  root.append(t.start, t.note);
  const textLabel = el("label", { for: "writer-text" }, "Your text");
  t.text = el("textarea", { id: "writer-text", rows: "3", spellcheck: "false", "data-writer-text": "" });
  t.text.value = setup.prompt;
  t.message = el("p", { class: "writer-message", role: "status", "aria-live": "polite", "data-writer-message": "" });
  t.top = el("div", { class: "writer-next", "aria-live": "polite", "data-writer-next": "" });
  const settings = el("div", { class: "writer-settings" });
  t.length = field(settings, "Characters", { name: "length", type: "number", min: "1", max: String(setup.max_length), value: String(setup.length) });
  t.temperature = field(settings, "Temperature", { name: "temperature", type: "number", min: "0.05", max: "5", step: "0.05", value: String(setup.temperature) });
  t.k = field(settings, "Top-k", { name: "top-k", type: "number", min: "0", max: String(setup.vocab.length), value: String(setup.top_k) });
  t.seed = field(settings, "Seed", { name: "seed", type: "number", min: "0", max: "4294967295", value: String(setup.seed) });
  t.write = el("button", { type: "button", class: "md-button", "data-writer-write": "" }, "Write");
  t.written = el("p", { class: "writer-written-out", "data-writer-out": "" });
  t.picked = el("div", { class: "writer-picked", "aria-live": "polite", "data-writer-picked": "" });
  t.tool = el("div", { class: "writer-tool", hidden: "" });
  t.tool.append(textLabel, t.text, t.message, t.top, settings, t.write, t.written, t.picked);
  root.append(t.tool);
  return t;
}

/** The reader's text as ids, or null with the message saying why (nothing else changes). */
function readIds(t, setup) {
  const bad = outside(t.text.value, setup.vocab);
  if (bad) {
    const code = bad.ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    t.message.textContent = `Character ${bad.at} (“${bad.ch}”, U+${code}) is not one of the writer's ${setup.vocab.length} characters.`;
    return null;
  }
  if (!t.text.value.length) {
    t.message.textContent = "Type at least one character.";
    return null;
  }
  t.message.textContent = "";
  return encode(t.text.value, setup.vocab);
}

/** A setting's number, or null with the message naming it and its range. */
function setting(t, input, lo, hi, whole) {
  const v = Number(input.value);
  if (input.value === "" || !(v >= lo && v <= hi) || (whole && !Number.isInteger(v))) {
    t.message.textContent = `${input.parentElement.firstChild.textContent.trim()}: expected ${whole ? "a whole number" : "a number"} from ${lo} to ${hi}.`;
    return null;
  }
  return v;
}

/** Write: draw the continuation, a character at a time, each a button that shows its distribution. */
async function writeOut(root, t, setup, model) {
  const x = readIds(t, setup);
  if (!x) return;
  const n = setting(t, t.length, 1, setup.max_length, true), temp = setting(t, t.temperature, 0.05, 5, false);
  const k = setting(t, t.k, 0, setup.vocab.length, true), seed = setting(t, t.seed, 0, 4294967295, true);
  if ([n, temp, k, seed].includes(null)) return;
  t.write.disabled = true;
  t.written.replaceChildren();
  t.picked.replaceChildren();
  root.dataset.writing = "";
  delete root.dataset.done;
  await write(model, x, n, temp, k, seed, async (step, id, q) => {
    const ch = setup.vocab[id];
    // a line break shows as ↵ and breaks the line after it
    const b = el("button", { type: "button", class: "writer-char", "data-step": String(step + 1), "data-char": ch,
      "aria-label": `character ${step + 1}: ${shown(ch)}` }, ch === "\n" ? "↵" : ch);
    b.addEventListener("click", () => {
      t.picked.replaceChildren(distTable(q, setup.vocab, 10,
        `Character ${step + 1}, “${shown(ch)}”, was drawn from these (temperature ${temp}, top-k ${k})`));
    });
    t.written.append(b);
    if (ch === "\n") t.written.append(el("br"));
    if (step % 10 === 9) await new Promise((r) => setTimeout(r, 0));   // let the page draw
  });
  delete root.dataset.writing;
  root.dataset.done = "";
  t.write.disabled = false;
}

function setUp(root) {
  const setup = JSON.parse(root.dataset.writer);
  root.replaceChildren();
  const t = makeTool(root, setup);
  let model = null;
  const showNext = () => {
    const x = readIds(t, setup);
    if (!x) return;   // the message says why; nothing else changes
    t.top.replaceChildren(distTable(next(model, x, 1), setup.vocab, 10, "The next character's ten likeliest (temperature 1)"));
  };
  t.write.addEventListener("click", () => { if (!t.write.disabled) writeOut(root, t, setup, model); });
  t.start.addEventListener("click", async () => {
    t.start.disabled = true;
    t.note.textContent = "Fetching the weights…";
    try {
      const [response] = await Promise.all([fetch(WEIGHTS), batched.ready()]);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      model = modelFromBytes(setup, await response.arrayBuffer());
    } catch (e) {
      t.note.textContent = `The writer could not start (${e.message}).`;
      t.start.disabled = false;
      return;
    }
    t.start.remove();     // .md-button's display would outlast the hidden attribute
    t.note.remove();
    t.tool.hidden = false;
    t.text.addEventListener("input", showNext);
    showNext();
    root.dataset.ready = "";
  });
}

function start() {
  document.querySelectorAll("[data-writer]").forEach((root) => {
    if (root.dataset.writerSet) return;
    root.dataset.writerSet = "";
    setUp(root);
  });
}

export { half, modelFromBytes, outside, encode, next, topK, write, start };
