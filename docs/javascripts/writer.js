// writer.js: a page's code (data-module="writer"): the page Type, it writes (docs/writer/write.md). The reader
// types; the table shows the next character's ten likeliest; Write draws a
// continuation. The model is gpt.js's, on the writer's weights, which the
// build publishes as a safetensors file (toycalc/book/writer/live.py) and this
// page fetches only when the reader presses Start; each next character's
// distribution is batched.js's forward pass in float32 on kernels.wasm
// (the last block's rest on the last row only), eight times quicker than
// gpt.js's float64 and equal to numpy's within 1e-5. The draws
// repeat toycalc/book/writer/shared.py's (mulberry32, top-k, a window of
// the last n_ctx characters), so a seed writes what the chapter printed.
import * as gpt from "./gpt.js";
import * as batched from "./batched.js";
import * as safetensors from "./safetensors.js";

const WEIGHTS = new URL("writer.safetensors", import.meta.url).href;

/** gpt.js's model from the published weights file (safetensors.js reads
 *  it): the arrays setup.shapes names (sizes.param_shapes), no other,
 *  each of its shape, every number finite. */
function modelFromBytes(setup, buffer) {
  const { arrays } = safetensors.read(buffer, new Map(setup.shapes), "the writer");
  for (const [name, a] of arrays) {
    // a NaN or an infinity would make every p NaN and the writer write line breaks
    const i = a.values.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) throw new RangeError(`the weights file holds ${a.values[i]} in ${name} (number ${i + 1}): not a finite number`);
  }
  return gpt.load(gpt.fromArrays({ ...setup, vocab: Array.from(setup.vocab) }, arrays));
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
 *  is called after each (the page draws it); when it answers false, the
 *  writing stops there (the page's Stop). */
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
    if (onStep && (await onStep(s, id, q)) === false) break;
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

/** The `count` likeliest characters of p, a row each with its p and its
 *  bar (the book's purple, for a probability), as the book's tables look;
 *  chosen: the character drawn, its row marked as the one chosen. */
function distTable(p, vocab, count, caption, chosen = -1) {
  const order = p.map((v, i) => i).sort((a, b) => (p[b] - p[a]) || (a - b)).slice(0, count);
  if (chosen >= 0 && !order.includes(chosen)) order.push(chosen);
  const table = el("table", { class: "book-table writer-top" });
  table.append(el("caption", {}, caption));
  const head = el("tr");
  head.append(el("th", { scope: "col" }, "character"), el("th", { scope: "col" }, "p"),
    el("th", { scope: "col", class: "writer-bar-head" }, ""));
  table.append(el("thead"));
  table.tHead.append(head);
  const body = el("tbody");
  for (const i of order) {
    const row = el("tr", i === chosen ? { class: "is-chosen" } : {});
    const bar = el("td", { class: "writer-bar", "aria-hidden": "true" });
    bar.append(el("span", { style: `width: ${(100 * p[i]).toFixed(1)}%` }));
    row.append(el("td", {}, shown(vocab[i])), el("td", {}, p[i].toFixed(3)), bar);
    body.append(row);
  }
  table.append(body);
  return table;
}

/** A probability's rank in p (1: the likeliest; a tie goes to the earlier). */
const rankOf = (p, i) => 1 + p.filter((v, j) => v > p[i] || (v === p[i] && j < i)).length;

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
  t.topEarlier = el("p", { class: "writer-earlier", hidden: "" }, "This table is for the last text the writer could read.");
  const settings = el("div", { class: "writer-settings" });
  t.length = field(settings, "Characters", { name: "length", type: "number", min: "1", max: String(setup.max_length), value: String(setup.length) });
  t.temperature = field(settings, "Temperature", { name: "temperature", type: "number", min: "0.05", max: "5", step: "0.05", value: String(setup.temperature) });
  t.k = field(settings, "Top-k", { name: "top-k", type: "number", min: "0", max: String(setup.vocab.length), value: String(setup.top_k) });
  t.seed = field(settings, "Seed", { name: "seed", type: "number", min: "0", max: "4294967295", value: String(setup.seed) });
  t.write = el("button", { type: "button", class: "md-button", "data-writer-write": "" }, "Write");
  t.stop = el("button", { type: "button", class: "md-button", "data-writer-stop": "", hidden: "" }, "Stop");
  t.output = el("div", { class: "writer-output", "data-writer-output": "" });
  t.earlier = el("p", { class: "writer-earlier", hidden: "" });
  t.written = el("p", { class: "writer-written-out", "data-writer-out": "" });
  t.picked = el("div", { class: "writer-picked", "aria-live": "polite", "data-writer-picked": "", hidden: "" });
  t.output.append(t.earlier, t.written, t.picked);
  t.tool = el("div", { class: "writer-tool", hidden: "" });
  t.tool.append(textLabel, t.text, t.message, settings, t.topEarlier, t.top, t.write, t.stop, t.output);
  root.append(t.tool);
  return t;
}

/** The reader's text as ids, or null with the message saying why. */
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

/** The settings Write would use, or null (the message says which is wrong). */
function settings(t, setup) {
  const n = setting(t, t.length, 1, setup.max_length, true), temperature = setting(t, t.temperature, 0.05, 5, false);
  const k = setting(t, t.k, 0, setup.vocab.length, true), seed = setting(t, t.seed, 0, 4294967295, true);
  return [n, temperature, k, seed].includes(null) ? null : { n, temperature, k, seed };
}

/** Greyed and said to be an earlier text's, or shown as the text's own: the
 *  table when the text cannot be read, the written text when the text is
 *  no longer the one it continues. */
function markEarlier(box, earlier) {
  box.classList.toggle("is-earlier", earlier);
  if (earlier) box.dataset.earlier = "";
  else delete box.dataset.earlier;
}

/** The readout of a written character, right under it: the distribution
 *  it was drawn from, the character marked in it, its p and its rank. */
function showPicked(t, b, setup) {
  t.written.querySelectorAll(".is-marked").forEach((m) => m.classList.remove("is-marked"));
  b.classList.add("is-marked");
  const { q, step, ch, temperature, k } = b.writer;
  const id = setup.vocab.indexOf(ch);
  t.picked.replaceChildren(distTable(q, setup.vocab, 10,
    `Character ${step}, “${shown(ch)}”: p = ${q[id].toFixed(3)}, rank ${rankOf(q, id)} of ${setup.vocab.length} ` +
    `(temperature ${temperature}, top-k ${k}${k ? "" : ": all kept"})`, id));
  t.picked.hidden = false;
  // beside the character: under its line, from its left edge, within the output's width
  const box = t.output.getBoundingClientRect(), at = b.getBoundingClientRect();
  const left = Math.max(0, Math.min(at.left - box.left, box.width - t.picked.offsetWidth));
  t.picked.style.left = `${left}px`;
  t.picked.style.top = `${at.bottom - box.top + 4}px`;
}

/** Write: draw the continuation a character at a time, each shown as it
 *  is drawn, each a button that shows its distribution. Words stay whole
 *  on a line: a word's characters are held in one box that does not break. */
async function writeOut(root, t, setup, model) {
  const x = readIds(t, setup);
  const set = x && settings(t, setup);
  if (!set) return;
  t.write.disabled = true;
  t.written.replaceChildren();
  t.picked.replaceChildren();
  t.picked.hidden = true;
  t.writtenFrom = t.text.value;
  markEarlier(t.output, false);
  t.earlier.hidden = true;
  root.dataset.writing = "";
  delete root.dataset.done;
  t.stopped = false;
  t.stop.hidden = false;
  let word = null;
  await write(model, x, set.n, set.temperature, set.k, set.seed, async (step, id, q) => {
    const ch = setup.vocab[id];
    // a line break shows as ↵ and breaks the line after it
    const b = el("button", { type: "button", class: "writer-char", "data-step": String(step + 1), "data-char": ch,
      "aria-label": `character ${step + 1}: ${shown(ch)}` }, ch === "\n" ? "↵" : ch);
    b.writer = { q, step: step + 1, ch, temperature: set.temperature, k: set.k };
    if (ch === " " || ch === "\n") {
      word = null;
      t.written.append(b);
      if (ch === "\n") t.written.append(el("br"));
    } else {
      if (!word) t.written.append(word = el("span", { class: "writer-word" }));
      word.append(b);
    }
    if (step % 10 === 9) await new Promise((r) => setTimeout(r, 0));   // let the page draw it, and hear Stop
    return !t.stopped;
  });
  t.stop.hidden = true;
  delete root.dataset.writing;
  root.dataset.done = "";
  t.write.disabled = false;
}

/** A written character answers the pointer, a tap and the keyboard: its
 *  readout beside it; the arrow keys move along the written text. */
function followPointer(t, setup) {
  const charOf = (e) => e.target.closest && e.target.closest("button.writer-char");
  const show = (e) => { const b = charOf(e); if (b) showPicked(t, b, setup); };
  t.written.addEventListener("pointerover", show);
  t.written.addEventListener("focusin", show);
  t.written.addEventListener("click", show);
  t.written.addEventListener("keydown", (e) => {
    const b = charOf(e);
    if (!b || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    const all = [...t.written.querySelectorAll("button.writer-char")], at = all.indexOf(b);
    const to = all[at + (e.key === "ArrowRight" ? 1 : -1)];
    if (to) {
      e.preventDefault();
      to.focus();
    }
  });
}

function setUp(root) {
  const setup = JSON.parse(root.dataset.writer);
  root.replaceChildren();
  const t = makeTool(root, setup);
  let model = null;
  // the table and the written text always say whose they are: the text's,
  // or (greyed, with a line saying so) an earlier text's
  const showNext = () => {
    const x = readIds(t, setup), set = x && settings(t, setup);
    const unread = !set;
    markEarlier(t.top, unread && !!t.top.firstChild);
    t.topEarlier.hidden = !(unread && t.top.firstChild);
    const fromEarlier = t.writtenFrom !== undefined && t.text.value !== t.writtenFrom;
    markEarlier(t.output, fromEarlier);
    t.earlier.hidden = !fromEarlier;
    t.earlier.textContent = fromEarlier ? "Written after an earlier text: Write continues the one above." : "";
    if (unread) return;
    const p = topK(next(model, x, set.temperature), set.k);
    t.top.replaceChildren(distTable(p, setup.vocab, 10,
      `The next character's ten likeliest (temperature ${set.temperature}, top-k ${set.k}${set.k ? "" : ": all kept"})`));
  };
  t.write.addEventListener("click", () => { if (!t.write.disabled) writeOut(root, t, setup, model); });
  t.stop.addEventListener("click", () => { t.stopped = true; });
  t.start.addEventListener("click", async () => {
    t.start.disabled = true;
    t.note.textContent = "Fetching the weights…";
    try {
      const [response] = await Promise.all([fetch(WEIGHTS), batched.ready()]);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      model = modelFromBytes(setup, await response.arrayBuffer());
    } catch (e) {
      t.note.textContent = `The writer could not start: ${e.message}.`;
      t.start.disabled = false;
      return;
    }
    t.start.remove();     // .md-button's display would outlast the hidden attribute
    t.note.remove();
    t.tool.hidden = false;
    for (const input of [t.text, t.temperature, t.k]) input.addEventListener("input", showNext);
    followPointer(t, setup);
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

export { modelFromBytes, outside, encode, next, topK, write, start };
