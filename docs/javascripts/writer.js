// writer.js: a page's code (data-module="writer"): the page Type, it writes (docs/writer/write.md). The reader
// types; the table shows the next character's ten likeliest; Write draws a
// continuation. The model is gpt.js's, on the writer's weights, which the
// build publishes as a safetensors file (toycalc/book/writer/live.py) and this
// page fetches only when the reader presses Start. Each next character's
// distribution is writer_pass.js's forward pass (float32, kernels.wasm,
// a KV cache), each full window's first rows computed ahead on a second
// thread where there is one (writer_worker.js); the build writes the
// chapter's samples with writer_pass.js in Node
// (toycalc/site/writer_sampler.py), so a seed writes here what the
// chapter printed, on any machine.
import { strength } from "./draw.js";
import { modelFromBytes, ready, kvCache, next, nextWithWeights, topK, write, startHelper } from "./writer_pass.js";

const WEIGHTS = new URL("writer.safetensors", import.meta.url).href;

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

// ------------------------------------------------------------ the page

const SHOWN = { " ": "␣", "\n": "↵" };
let helper = null;      // the page's one helper thread (startHelper), Write's: a new Start replaces it
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

const LISTED = 10;   // the likeliest characters a table lists

/** What a table of a distribution lists, and how its caption says so:
 *  the ten likeliest, or, when top-k keeps fewer, the k it keeps (the
 *  others' p is 0: they could not be drawn). */
function listing(k) {
  return k > 0 && k < LISTED
    ? { count: k, words: `${k} likeliest, all that top-k ${k} keeps`, kept: "" }
    : { count: LISTED, words: "ten likeliest", kept: `, top-k ${k}${k ? "" : ": all kept"}` };
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
  // the whole text written, as text: its line breaks as line breaks, not the ↵ the page shows
  t.copy = el("button", { type: "button", class: "md-button", "data-writer-copy": "", hidden: "" }, "Copy the text");
  t.copied = el("span", { class: "writer-copied", role: "status", "data-writer-copied": "" });
  // whose attention shades the text behind a marked character: a block and a head (from 1)
  t.look = el("div", { class: "writer-look", "data-writer-look": "" });
  const choose = (name, label, count, chosen) => {
    const wrap = el("label", { for: `writer-${name}`, class: "writer-setting" }, label + " ");
    const select = el("select", { id: `writer-${name}`, name });
    for (let i = 1; i <= count; i++) select.append(el("option", i === chosen ? { value: String(i), selected: "" } : { value: String(i) }, String(i)));
    wrap.append(select);
    t.look.append(wrap);
    return select;
  };
  t.look.append(el("span", { class: "writer-look-what" }, "Bars under the text: the attention weights of"));
  t.block = choose("block", "block", setup.blocks, setup.followed[0]);
  t.head = choose("head", "head", setup.heads, setup.followed[1]);
  t.look.append(el("span", { class: "writer-look-what" }, "as the marked character was written."));
  t.output = el("div", { class: "writer-output", "data-writer-output": "" });
  t.earlier = el("p", { class: "writer-earlier", hidden: "" });
  t.written = el("div", { class: "writer-written-out", "data-writer-out": "" });
  t.picked = el("div", { class: "writer-picked", "aria-live": "polite", "data-writer-picked": "", hidden: "" });
  t.output.append(t.earlier, t.written, t.picked);
  t.tool = el("div", { class: "writer-tool", hidden: "" });
  t.tool.append(textLabel, t.text, t.message, settings, t.topEarlier, t.top, t.write, t.stop, t.copy, t.copied, t.look, t.output);
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

/** The readout of a character, right under it: the distribution it was
 *  drawn from (a typed one: what the model predicted there from the text
 *  before it, at Write's settings), the character marked in it, its p and
 *  its rank; and what the chosen head read to write it: the text behind
 *  it shaded by that head's attention weights (the book's purple, as its
 *  heat-maps), the heaviest of them in a table. */
function showPicked(t, b, setup) {
  t.marked = b;
  t.written.querySelectorAll(".is-marked").forEach((m) => m.classList.remove("is-marked"));
  b.classList.add("is-marked");
  if (!b.writer) b.writer = typedReadout(t, b, setup);
  const { q, name, ch, temperature, k } = b.writer;
  const id = setup.vocab.indexOf(ch);
  const list = listing(k);
  t.picked.replaceChildren(distTable(q, setup.vocab, list.count,
    `${name}, “${shown(ch)}”: p = ${q[id].toFixed(3)}, rank ${rankOf(q, id)} of ${setup.vocab.length}; ` +
    `the ${list.words} (temperature ${temperature}${list.kept})`, id), readTable(t, b, setup));
  t.picked.hidden = false;
  // writer.css places it: over the text below on a wide page, in the text on a narrow one
  if (getComputedStyle(t.picked).position === "absolute") besideIt(t, b);
  else underItsLine(t, b);
}

/** A typed character's readout (its distribution, computed when first
 *  marked): the model's next-character p after the text before it, at the
 *  temperature and top-k Write used, from the typed text's own KV cache. */
function typedReadout(t, b, setup) {
  const at = Number(b.dataset.typed) - 1, { ids, temperature, k } = t.typed;
  const { p, weights } = nextWithWeights(t.model, ids.slice(0, at), temperature, t.typedKv);
  return { q: topK(p, k), name: `Your character ${at + 1}`, verb: "predict", ch: b.dataset.char, temperature, k,
           weights, at, from: Math.max(0, at - setup.n_ctx) };
}

/** Over the text: under the character's line, from its left edge, within the output's width. */
function besideIt(t, b) {
  if (t.picked.parentElement !== t.output) t.output.append(t.picked);
  const box = t.output.getBoundingClientRect(), at = b.getBoundingClientRect();
  const left = Math.max(0, Math.min(at.left - box.left, box.width - t.picked.offsetWidth));
  t.picked.style.left = `${left}px`;
  t.picked.style.top = `${at.bottom - box.top + 4}px`;
}

/** In the text's flow, after the last box on the character's line: the
 *  lines below move down rather than being covered (a phone). */
function underItsLine(t, b) {
  t.picked.remove();                                 // the lines as they are without it
  const line = b.getBoundingClientRect(), middle = (line.top + line.bottom) / 2;
  let last = b.parentElement === t.written ? b : b.parentElement;     // its word's box
  for (let next = last.nextElementSibling; next; next = next.nextElementSibling) {
    if (next.tagName !== "BR" && next.getBoundingClientRect().top > middle) break;
    last = next;
  }
  last.after(t.picked);
}

const READ_SHOWN = 5;     // the heaviest weights the readout lists

/** Shades the characters the chosen head read to write b (the window
 *  before it: the query is the character just before b), each with its
 *  weight; returns the readout's table of the heaviest. */
function readTable(t, b, setup) {
  t.written.querySelectorAll("[data-weight]").forEach((c) => {
    c.classList.remove("writer-read");
    c.style.removeProperty("--weight");
    delete c.dataset.weight;
  });
  const block = Number(t.block.value), head = Number(t.head.value);
  const { weights, from, at } = b.writer, n = at - from, row = ((block - 1) * setup.heads + (head - 1)) * n;
  for (let j = 0; j < n; j++) {
    const c = t.chars[from + j], a = weights[row + j];
    c.dataset.weight = String(a);
    c.style.setProperty("--weight", strength(a));
    c.classList.add("writer-read");
  }
  const order = Array.from({ length: n }, (_, j) => j).sort((x, y) => (weights[row + y] - weights[row + x]) || (x - y))
    .slice(0, READ_SHOWN);
  const table = el("table", { class: "book-table writer-top writer-read-table" });
  const before = t.chars[at - 1].dataset.char;
  table.append(el("caption", {}, `What block ${block}, head ${head} read to ${b.writer.verb} it, from the “${shown(before)}” ` +
    `before it (character ${at} of the text): the ${Math.min(READ_SHOWN, n)} heaviest of its ${n} weights`));
  const head_ = el("tr");
  head_.append(el("th", { scope: "col" }, "character"), el("th", { scope: "col" }, "place in the text"), el("th", { scope: "col" }, "weight"),
    el("th", { scope: "col", class: "writer-bar-head" }, ""));
  table.append(el("thead"));
  table.tHead.append(head_);
  const body = el("tbody");
  for (const j of order) {
    const a = weights[row + j], r = el("tr"), bar = el("td", { class: "writer-bar", "aria-hidden": "true" });
    bar.append(el("span", { style: `width: ${(100 * a).toFixed(1)}%` }));
    r.append(el("td", {}, shown(t.chars[from + j].dataset.char)), el("td", {}, String(from + j + 1)), el("td", {}, a.toFixed(3)), bar);
    body.append(r);
  }
  table.append(body);
  return table;
}

// the longest the writer writes before the page gets a turn: the text
// grows 20 times a second; each turn costs a frame's style, layout and
// paint (4 to 7 ms in chromium here): turning every 12 ms took a quarter
// of the time of 200 characters, every 25 ms a fifth (chromium's profile)
const FRAME_MS = 50;

/** A turn for the page (its input, its drawing) before the next task:
 *  a message to itself, which, unlike setTimeout, no browser delays by 4 ms. */
function turn() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  });
}

/** A character into the output: words whole on a line (a word's
 *  characters in one box that does not break), a line break as ↵ and a
 *  break after it; t.chars: every character in text order. */
function place(t, node) {
  const ch = node.dataset.char;
  t.chars.push(node);
  if (ch === " " || ch === "\n") {
    t.word = null;
    t.written.append(node);
    if (ch === "\n") t.written.append(el("br"));
  } else {
    if (!t.word) t.written.append(t.word = el("span", { class: "writer-word" }));
    t.word.append(node);
  }
}

/** Write: the text (plain), then the continuation (bold), a character at
 *  a time, each shown as it is drawn, each a button that shows its
 *  distribution and what it read. */
async function writeOut(root, t, setup, model) {
  const x = readIds(t, setup);
  const set = x && settings(t, setup);
  if (!set) return;
  t.write.disabled = true;
  t.written.replaceChildren();
  t.chars = [];
  t.word = null;
  t.marked = null;
  t.picked.replaceChildren();
  t.picked.hidden = true;
  t.writtenFrom = t.text.value;
  markEarlier(t.output, false);
  t.earlier.hidden = true;
  root.dataset.writing = "";
  delete root.dataset.done;
  t.stopped = false;
  t.stop.hidden = false;
  t.copy.hidden = true;
  t.copied.textContent = "";
  // the typed text: each character after the first a button too, its
  // readout what the model predicted there (computed when marked)
  t.typed = { ids: x, temperature: set.temperature, k: set.k };
  Array.from(t.text.value).forEach((ch, i) => {
    const attrs = { class: "writer-typed", "data-char": ch };
    place(t, i ? el("button", { type: "button", ...attrs, "data-typed": String(i + 1), "aria-label": `your character ${i + 1}: ${shown(ch)}` },
      ch === "\n" ? "↵" : ch) : el("span", attrs, ch === "\n" ? "↵" : ch));
  });
  let turnAt = performance.now();
  await write(model, x, set.n, set.temperature, set.k, set.seed, async (step, id, q, weights) => {
    const ch = setup.vocab[id], at = x.length + step;       // the characters before it
    const b = el("button", { type: "button", class: "writer-char", "data-step": String(step + 1), "data-char": ch,
      "aria-label": `written character ${step + 1}: ${shown(ch)}` }, ch === "\n" ? "↵" : ch);
    // counted among those written, and in the whole text (as the readout's places are)
    b.writer = { q, name: `Written character ${step + 1} (character ${at + 1} of the text)`, verb: "write", ch,
                 temperature: set.temperature, k: set.k, weights,
                 at, from: Math.max(0, at - setup.n_ctx) };   // the window it was drawn from: from to at - 1
    place(t, b);
    if (performance.now() - turnAt > FRAME_MS) {    // let the page draw what is written, and hear Stop
      await turn();
      turnAt = performance.now();
    }
    return !t.stopped;
  }, undefined, helper);
  t.stop.hidden = true;
  t.copy.hidden = false;
  delete root.dataset.writing;
  root.dataset.done = "";
  t.write.disabled = false;
}

/** A character, written or typed, answers the pointer, a tap and the
 *  keyboard: its readout beside it; the arrow keys move along the text. */
const CHARS = "button.writer-char, button.writer-typed";
function followPointer(t, setup) {
  const charOf = (e) => e.target.closest && e.target.closest(CHARS);
  const show = (e) => { const b = charOf(e); if (b) showPicked(t, b, setup); };
  t.written.addEventListener("pointerover", show);
  t.written.addEventListener("focusin", show);
  t.written.addEventListener("click", show);
  t.written.addEventListener("keydown", (e) => {
    const b = charOf(e);
    if (!b || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    const all = [...t.written.querySelectorAll(CHARS)], at = all.indexOf(b);
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
  // the bars' key (live.py writes it after the tool, hidden without JavaScript): under the chooser
  const key = root.parentElement.querySelector("[data-writer-key]");
  if (key) {
    t.look.after(key);
    key.hidden = false;
  }
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
    const list = listing(set.k);
    t.top.replaceChildren(distTable(p, setup.vocab, list.count,
      `The next character's ${list.words} (temperature ${set.temperature}${list.kept})`));
  };
  t.write.addEventListener("click", () => { if (!t.write.disabled) writeOut(root, t, setup, model); });
  t.stop.addEventListener("click", () => { t.stopped = true; });
  t.copy.addEventListener("click", () => {
    const text = t.chars.map((c) => c.dataset.char).join("");
    (navigator.clipboard ? navigator.clipboard.writeText(text) : Promise.reject(new Error("no clipboard"))).then(
      () => { t.copied.textContent = `Copied: ${text.length} characters.`; },
      () => { t.copied.textContent = "The browser did not let the page copy: select the text instead."; });
  });
  t.start.addEventListener("click", async () => {
    t.start.disabled = true;
    t.note.textContent = "Fetching the weights…";
    try {
      const [response] = await Promise.all([fetch(WEIGHTS), ready()]);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      const bytes = await response.arrayBuffer();
      model = modelFromBytes(setup, bytes);
      t.model = model;
      // a second thread for Write, once it has the model laid out (until then, this one alone)
      if (helper) helper.worker.terminate();
      startHelper(model, setup, bytes).then((h) => {
        helper = h;
        if (h) root.dataset.helper = "";
      });
      t.typedKv = kvCache(model);        // the typed characters' readouts: a row each while the text fits the context
    } catch (e) {
      t.note.textContent = `The writer could not start: ${e.message}.`;
      t.start.disabled = false;
      return;
    }
    t.start.remove();     // .md-button's display would outlast the hidden attribute
    t.note.remove();
    t.tool.hidden = false;
    for (const input of [t.text, t.temperature, t.k]) input.addEventListener("input", showNext);
    for (const select of [t.block, t.head]) select.addEventListener("change", () => { if (t.marked) showPicked(t, t.marked, setup); });
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

export { outside, encode, start };
