// train_page.js: a page's code (data-module="train_page", on the trainer
// that toycalc/book/nano_gpt/train.py writes): nano-gpt's page "Train it
// yourself" (docs/nano-gpt/train.md). It wires
// the controls to the module Web Worker train_worker.js, which trains nano-gpt
// from the reader's seed with the book's recipe (the JSON the build wrote
// into data-nano-train), and draws what the worker reports: the loss of
// each step beside the book's own run (charts.js's lineChartSvg), the last
// block's three heads on the chapter's example (attentionSvg), and the
// status line "N of 729 sorted"; each drawing patched in place (dom.js), so
// that a redraw changes only what moved. At the end: the downloads (.npz and its
// record .json), which `TOYCALC_NANOGPT=path.npz make build` reads, and
// "Follow these weights", which has letters.js keep the weights: every
// page of the chapter then computes its numbers from them.

import * as draw from "./draw.js";
import * as charts from "./charts.js";
import * as render from "./render.js";
import * as dom from "./dom.js";
import * as letters from "./letters.js";

const { el } = dom, { fixed } = render;

/** A whole number from lo to hi typed in a field, or a message saying what to type. */
function wholeNumber(text, what, lo, hi) {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return { error: `${what}: "${s.slice(0, 20)}" is not a whole number; type one from ${lo} to ${hi.toLocaleString("en")}.` };
  const n = Number(s);
  if (n < lo || n > hi) return { error: `${what}: ${n} is out of range; type a whole number from ${lo} to ${hi.toLocaleString("en")}.` };
  return { value: n };
}

function field(id, label, value, hint) {
  const input = el("input", { type: "text", id, inputmode: "numeric", autocomplete: "off", value: String(value),
                              "aria-describedby": `${id}-hint ${id}-message` });
  return { input, node: el("div", { class: "nano-train-field" }, [
    el("label", { for: id, text: label }), " ", input,
    el("p", { id: `${id}-hint`, class: "nano-hint", text: hint }),
    el("p", { id: `${id}-message`, class: "nano-message", role: "alert" })]) };
}

const POINTS = 100;

// under the downloads: why they are greyed before a run ends, then how to keep them
const DOWNLOADS_HINT = { waiting: "The downloads and “Follow these weights” wait for a finished run: press Start.",
                         ready: "Keep both files in one folder: the build reads the record beside the weights." };

/** A run stopped by its step limit before sorting every input is offered
 *  too, said to be unfinished on each button, in the sentence under them
 *  and in the files' names (the book's own `train` writes no such run). */
function unfinishedHint(sorted, inputs, steps) {
  return `This run is unfinished: its step limit stopped it after ${steps.toLocaleString("en")} ` +
    `step${steps === 1 ? "" : "s"}, when it sorted ${sorted} of the ${inputs} inputs. The downloads ` +
    "(nanogpt-unfinished.npz and .json) and “Follow these weights” hold these weights as they are: " +
    "the chapter's sentences were written for a model that sorts every input, and a build on them names " +
    "those they make false. " + DOWNLOADS_HINT.ready;
}

/** The loss chart: the book's run and the reader's, step by step (every
 *  few steps once a run is longer than POINTS). */
function lossChart(book, mine, limit) {
  const last = Math.max(book.length, mine.length, 10);
  const top = Math.max(...book, ...mine.slice(0, 3), 0.1);
  // at most POINTS marks a line, so that a redraw stays within a frame on a long run
  const thin = (c) => {
    const every = Math.ceil(c.length / POINTS);
    return c.map((v, k) => [k + 1, v]).filter(([step]) => (step - 1) % every === 0 || step === c.length);
  };
  const series = [["the book's run", book], ["your run", mine]].filter(([, c]) => c.length)
    .map(([name, c]) => [name, thin(c), thin(c).map(([k, v]) => `${name}, step ${k}: loss ${fixed(v)}`)]);
  const xs = charts.niceTicks(0, last, 4), ys = charts.niceTicks(0, top, 4);
  return charts.lineChartSvg(series, `Lines: the training loss of each step, the book's run of ${book.length} steps ` +
    `and yours so far (${mine.length} of at most ${limit})`, xs.map((v) => [v, String(v)]), ys.map((v) => [v, fixed(v, 1)]),
    "training step", "loss on the step's batch", 336, 240);
}

/** The controls, the status line and the figures, in `host`. */
function layout(host, recipe) {
  const inputs = recipe.vocab.length ** recipe.length;
  const seed = field("nano-train-seed", "Seed", recipe.seed, `A whole number; the book's is ${recipe.seed}.`);
  const limit = field("nano-train-limit", "Step limit", recipe.step_limit,
                      `Training stops here if it has not sorted all ${inputs} inputs; at most ${recipe.max_steps.toLocaleString("en")}.`);
  const button = (text, primary) => el("button", { type: "button", class: `nano-button${primary ? " nano-button--primary" : ""}`, text });
  const ui = { inputs, seed, limit, start: button("Start", true), pause: button("Pause"), reset: button("Reset"),
               npz: button("Download weights"), record: button("Download the record"),
               follow: button("Follow these weights", true),
               following: el("p", { class: "nano-hint nano-train-following", role: "status" }),
               status: el("p", { class: "nano-train-status", role: "status" }),
               detail: el("p", { class: "nano-hint nano-train-detail" }),
               chart: el("figure", { class: "toy-figure nano-train-loss" }),
               heads: el("figure", { class: "toy-figure nano-train-heads" }),
               done: el("p", { class: "nano-hint", id: "nano-train-downloads-hint" }) };
  for (const b of [ui.npz, ui.record, ui.follow]) b.setAttribute("aria-describedby", ui.done.id);
  host.replaceChildren(el("form", { class: "nano-train-form" }, [seed.node, limit.node,
    el("p", { class: "nano-train-buttons" }, [ui.start, " ", ui.pause, " ", ui.reset])]),
    ui.status, ui.detail, ui.chart, ui.heads, el("p", { class: "nano-train-buttons" }, [ui.npz, " ", ui.record]), ui.done,
    el("p", { class: "nano-train-buttons" }, [ui.follow]), ui.following);
  return ui;
}

/** A field's whole number, or its message beside it. */
function read(f, what, lo, hi) {
  const out = wholeNumber(f.input.value, what, lo, hi);
  f.node.querySelector(".nano-message").textContent = out.error || "";
  if (out.error) f.input.setAttribute("aria-invalid", "true"); else f.input.removeAttribute("aria-invalid");
  return out;
}

function save(blob, name) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The downloads and "Follow these weights": greyed before a run ends,
 *  said to be unfinished after a run its step limit stopped. */
function labelDownloads(ui, files) {
  ui.npz.disabled = ui.record.disabled = ui.follow.disabled = !files;
  const r = files && files.record, unfinished = Boolean(files && files.unfinished);
  ui.npz.textContent = `Download weights${unfinished ? ` (unfinished: sorts ${r.accuracy_on_729} of ${ui.inputs})` : ""}`;
  ui.record.textContent = `Download the record${unfinished ? " (unfinished run)" : ""}`;
  ui.follow.textContent = `Follow these weights${unfinished ? " (unfinished)" : ""}`;
  ui.done.textContent = unfinished ? unfinishedHint(r.accuracy_on_729, ui.inputs, r.steps)
                                   : DOWNLOADS_HINT[files ? "ready" : "waiting"];
}

/** The two downloads: the weights (.npz) and their record (.json), which
 *  the build reads side by side; and following the weights in the chapter. */
function downloads(ui, run, recipe) {
  followButton(ui, run, recipe);
  const name = () => (run.files.unfinished ? "nanogpt-unfinished" : "nanogpt");
  ui.npz.addEventListener("click", () => save(new Blob([run.files.npz], { type: "application/octet-stream" }), `${name()}.npz`));
  ui.record.addEventListener("click", () => save(new Blob([JSON.stringify(run.files.record, null, 2) + "\n"],
                                                          { type: "application/json" }), `${name()}.json`));
}

/** The .npz of train.js's npz (a stored zip of little-endian float16
 *  .npy files, one per parameter) and its record as
 *  toycalc/site/export.py's nano_weights_data, the layout letters.js
 *  loads the model from. */
function packedWeights(npz, recipe, record) {
  const view = new DataView(npz.buffer, npz.byteOffset, npz.byteLength), text = new TextDecoder();
  const out = { vocab: recipe.vocab, heads: recipe.heads, d: recipe.d, n_ctx: recipe.n_ctx, width: recipe.width,
                ln_eps: recipe.ln_eps, gelu_c: recipe.gelu_c, packed: true, record,
                blocks: Array.from({ length: recipe.blocks }, () => ({})) };
  for (let at = 0; at + 30 <= npz.length && view.getUint32(at, true) === 0x04034b50;) {
    const size = view.getUint32(at + 18, true), nameLength = view.getUint16(at + 26, true);
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    const name = text.decode(npz.subarray(at + 30, at + 30 + nameLength)).replace(/\.npy$/, "");
    const file = npz.subarray(start, start + size), headerLength = file[8] | (file[9] << 8);
    const header = text.decode(file.subarray(10, 10 + headerLength));
    if (!header.includes("'<f2'")) throw new Error(`${name}: not float16`);
    const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(",").filter((n) => n.trim()).map(Number);
    let binary = "";
    for (const byte of file.subarray(10 + headerLength)) binary += String.fromCharCode(byte);
    const [, block, param] = name.match(/^blocks\.(\d+)\.(.+)$/) || [];
    if (param) out.blocks[Number(block)][param] = { shape, f16: btoa(binary) };
    else out[name] = { shape, f16: btoa(binary) };
    at = start + size;
  }
  return out;
}

/** "Follow these weights": the run's weights (as downloaded: float16)
 *  stored for the chapter's pages, with what they are. */
function followButton(ui, run, recipe) {
  ui.follow.addEventListener("click", () => {
    const r = run.files.record;
    const about = { id: Date.now(), seed: r.seed, steps: r.steps, sorted: r.accuracy_on_729, inputs: ui.inputs };
    try {
      letters.followWeights(packedWeights(run.files.npz, recipe, run.files.record), about);
    } catch (e) {
      ui.following.textContent = `Your weights could not be kept for the other pages (${e.message}).`;
      return;
    }
    const first = el("a", { href: new URL("../", location.href).href, text: "the chapter's first page" });
    ui.following.replaceChildren("Every page of this chapter now computes its numbers from your weights, " +
      "until “Back to the book's weights” on any of them: open ", first, " or any other.");
  });
}

/** The last block's heads on the example: one box per head (written
 *  once), then each head's map in a task of its own (the three drawn at
 *  once, the first time, made a frame of 24 ms). */
function headsInto(figure, attention, tokens, exampleText) {
  dom.patchInto(figure, attention.map((w, h) => `<div class="nano-train-head"><p class="nano-hint">head ${h + 1}</p>` +
    '<div class="nano-train-map"></div></div>').join("") +
    `<figcaption>The last block's ${attention.length} heads reading the chapter's example ` +
    `(${draw.esc(exampleText)} then its sorted letters): one row per query, one column per key, the stronger the purple, the more weight.</figcaption>`);
  const maps = figure.querySelectorAll(".nano-train-map");
  attention.forEach((w, h) => setTimeout(() => dom.patchInto(maps[h], draw.attentionSvg(tokens, w, h + 1)), 0));
}

/** Each page view (book.js): the page's trainer, once nano-gpt's stylesheet is there. */
function start() {
  return dom.stylesheet("../stylesheets/nanogpt.css").then(setUp);
}

function setUp() {
  const host = document.querySelector("[data-nano-train]:not([data-ready])");
  if (!host) return;
  host.dataset.ready = "1";
  const recipe = JSON.parse(host.dataset.nanoTrain), workerUrl = new URL("train_worker.js", import.meta.url);
  const ui = layout(host, recipe), tokens = recipe.example.map((i) => recipe.vocab[i]);
  const run = { worker: null, losses: [], files: null, pending: false };
  const drawChart = () => {
    dom.patchInto(ui.chart, lossChart(recipe.book_curve, run.losses, ui.limit.input.value || recipe.step_limit) +
      "<figcaption>The loss on each step's batch (every few steps on a long run): the book's run " +
      "(python -m toycalc train) and yours.</figcaption>");
  };
  const drawHeads = (attention) => headsInto(ui.heads, attention, tokens, recipe.example_text);
  const set = (state) => {
    ui.start.disabled = state !== "idle"; ui.reset.disabled = state === "idle" && !run.losses.length;
    ui.pause.disabled = !(state === "running" || state === "paused");
    ui.pause.textContent = state === "paused" ? "Resume" : "Pause";
    labelDownloads(ui, run.files);
    ui.seed.input.disabled = ui.limit.input.disabled = state !== "idle";
    host.dataset.state = state;
  };
  const reset = () => {
    if (run.worker) run.worker.terminate();
    Object.assign(run, { worker: null, losses: [], files: null });
    ui.status.textContent = `0 of ${ui.inputs} sorted (not checked yet)`;
    ui.detail.textContent = ui.following.textContent = "";
    dom.patchInto(ui.heads, "");
    drawChart();
    set("idle");
  };
  ui.start.addEventListener("click", () => {
    const s = read(ui.seed, "Seed", 0, 2 ** 32 - 1), n = read(ui.limit, "Step limit", 1, recipe.max_steps);
    if (s.error || n.error) return;
    reset();
    run.worker = new Worker(workerUrl, { type: "module" });
    run.worker.onmessage = (event) => receive(event.data);
    run.worker.postMessage({ type: "start", recipe, seed: s.value, limit: n.value });
    set("running");
    ui.detail.textContent = "Starting…";
  });
  ui.pause.addEventListener("click", () => {
    const paused = host.dataset.state === "paused";
    run.worker.postMessage({ type: paused ? "resume" : "pause" });
    set(paused ? "running" : "paused");
  });
  ui.reset.addEventListener("click", reset);
  downloads(ui, run, recipe);
  const receive = (m) => {
    if (m.attention) drawHeads(m.attention);
    if (m.type === "step") {
      run.losses.push(m.loss);
      if (host.dataset.state !== "paused") {          // else the step under way when Pause was pressed
        ui.detail.textContent = `Step ${m.step}: loss ${fixed(m.loss)} on this step's batch (${Math.round(m.ms)} ms a step).`;
      }
      if (!run.pending) { run.pending = true; requestAnimationFrame(() => { run.pending = false; drawChart(); }); }
    } else if (m.type === "paused") ui.detail.textContent = `Paused after step ${m.step}.`;
    else if (m.type === "check") {
      ui.status.textContent = `${m.sorted} of ${ui.inputs} sorted (checked at step ${m.step})`;
    } else if (m.type === "done") finished(m);
    else if (m.type === "error") { ui.detail.textContent = m.message; set("idle"); }    // kernels.wasm did not load
  };
  const finished = (m) => {
    const r = m.record;
    run.files = { npz: m.npz, record: r, unfinished: r.accuracy_on_729 !== ui.inputs };
    ui.status.textContent = `${r.accuracy_on_729} of ${ui.inputs} sorted after ${r.steps} step${r.steps === 1 ? "" : "s"}, ${fixed(r.seconds, 1)} s`;
    ui.detail.textContent = r.accuracy_on_729 === ui.inputs
      ? "Done: your model sorts every input. Download its weights and its record to build the book on them."
      : "Stopped at the step limit, before sorting every input. Raise the limit and start again, or try another seed.";
    run.worker.terminate(); run.worker = null;
    drawChart();
    set("idle");
  };
  reset();
}

export { start, wholeNumber };
