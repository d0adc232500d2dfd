// train_page.js: a page's code (data-module="train_page", on the trainer
// that toycalc/book/nano_gpt/train.py writes): nano-gpt's page "Train it
// yourself" (docs/nano-gpt/train.md). It wires
// the controls to the module Web Worker train_worker.js, which trains nano-gpt
// from the reader's seed with the book's recipe (the JSON the build wrote
// into data-nano-train), and draws what the worker reports: the loss of
// each step beside the book's own run (charts.js's lineChartSvg), the last
// block's three heads on the chapter's example (attentionSvg), and the
// status line "N of 729 sorted"; each drawing patched in place (dom.js), so
// that a redraw changes only what moved. At the end: the downloads (.safetensors and
// its record .json), which `TOYCALC_NANOGPT=path.safetensors make build` reads, and
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
    "(nanogpt-unfinished.safetensors and .json) and “Follow these weights” hold these weights as they are: " +
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

/** The two downloads: the weights (.safetensors) and their record (.json), which
 *  the build reads side by side; and following the weights in the chapter. */
function downloads(ui, run, recipe) {
  followButton(ui, run, recipe);
  const name = () => (run.files.unfinished ? "nanogpt-unfinished" : "nanogpt");
  ui.npz.addEventListener("click", () => save(new Blob([run.files.weights], { type: "application/octet-stream" }),
                                              `${name()}.safetensors`));
  ui.record.addEventListener("click", () => save(new Blob([JSON.stringify(run.files.record, null, 2) + "\n"],
                                                          { type: "application/json" }), `${name()}.json`));
}

/** The run as the chapter's pages keep it (letters.followWeights): its
 *  weights file, as downloaded (safetensors, float16), in base64, since
 *  session storage keeps text, and its record. */
function kept(weights, record) {
  let binary = "";
  for (const byte of weights) binary += String.fromCharCode(byte);
  return { weights: btoa(binary), record };
}

/** "Follow these weights": the run's weights (as downloaded: float16)
 *  stored for the chapter's pages. */
function followButton(ui, run, recipe) {
  ui.follow.addEventListener("click", () => {
    try {
      letters.followWeights(kept(run.files.weights, run.files.record), { id: Date.now() });
    } catch (e) {
      ui.following.textContent = `Your weights could not be kept for the other pages (${e.message}).`;
      return;
    }
    run.followed = true;
    followed(ui);
  });
}

/** Under "Follow these weights", once pressed. */
function followed(ui) {
  const first = el("a", { href: new URL("../", location.href).href, text: "the chapter's first page" });
  ui.following.replaceChildren("Every page of this chapter now computes its numbers from your weights, " +
    "until “Back to the book's weights” on any of them: open ", first, " or any other.");
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

// The run, kept while the reader reads other pages: instant navigation
// keeps this module, and the worker with it, so a run goes on meanwhile
// and the page, drawn again on return, shows it where it is (a full
// page load ends it, as it ends the worker). What the page shows of it
// lives here; `view` is the page's controls while it is open.
let run = null;

/** What a run, new or reset, shows before its first check. */
const unchecked = (inputs) => ({ worker: null, losses: [], files: null, state: "idle", followed: false,
                                 status: `0 of ${inputs} sorted (not checked yet)`, detail: "", attention: null });

function newRun(recipe, key) {
  const inputs = recipe.vocab.length ** recipe.length;
  return { key, recipe, inputs, pending: false, ...unchecked(inputs), seed: String(recipe.seed),
           limit: String(recipe.step_limit), view: null };
}

function setUp() {
  const host = document.querySelector("[data-nano-train]:not([data-ready])");
  if (!host) return;
  host.dataset.ready = "1";
  const key = host.dataset.nanoTrain, recipe = JSON.parse(key);
  if (!run || run.key !== key) {                      // another build's recipe: the old run is not this page's
    if (run && run.worker) run.worker.terminate();
    run = newRun(recipe, key);
  }
  const r = run, ui = layout(host, recipe);
  r.view = { host, ui, tokens: recipe.example.map((i) => recipe.vocab[i]) };
  ui.seed.input.value = r.seed;
  ui.limit.input.value = r.limit;
  ui.seed.input.addEventListener("input", () => { r.seed = ui.seed.input.value; });
  ui.limit.input.addEventListener("input", () => { r.limit = ui.limit.input.value; });
  ui.start.addEventListener("click", () => {
    const s = read(ui.seed, "Seed", 0, 2 ** 32 - 1), n = read(ui.limit, "Step limit", 1, recipe.max_steps);
    if (s.error || n.error) return;
    reset(r);
    r.worker = new Worker(new URL("train_worker.js", import.meta.url), { type: "module" });
    r.worker.onmessage = (event) => receive(r, event.data);
    r.worker.postMessage({ type: "start", recipe, seed: s.value, limit: n.value });
    Object.assign(r, { state: "running", detail: "Starting…" });
    show(r);
  });
  ui.pause.addEventListener("click", () => {
    const paused = r.state === "paused";
    r.worker.postMessage({ type: paused ? "resume" : "pause" });
    r.state = paused ? "running" : "paused";
    show(r);
  });
  ui.reset.addEventListener("click", () => { reset(r); show(r); });
  downloads(ui, r, recipe);
  show(r);
}

/** The page's view of the run, if the reader is on it. */
const viewOf = (r) => (r.view && r.view.host.isConnected ? r.view : null);

/** The run's state, drawn in its page (when open): every line, the chart, the heads, the buttons. */
function show(r) {
  const v = viewOf(r);
  if (!v) return;
  const { ui, host } = v;
  ui.status.textContent = r.status;
  ui.detail.textContent = r.detail;
  drawChart(r);
  if (r.attention) headsInto(ui.heads, r.attention, v.tokens, r.recipe.example_text);
  else dom.patchInto(ui.heads, "");
  ui.start.disabled = r.state !== "idle"; ui.reset.disabled = r.state === "idle" && !r.losses.length;
  ui.pause.disabled = !(r.state === "running" || r.state === "paused");
  ui.pause.textContent = r.state === "paused" ? "Resume" : "Pause";
  labelDownloads(ui, r.files);
  if (r.followed) followed(ui);
  else ui.following.textContent = "";
  ui.seed.input.disabled = ui.limit.input.disabled = r.state !== "idle";
  host.dataset.state = r.state;
}

function drawChart(r) {
  const v = viewOf(r);
  if (!v) return;
  dom.patchInto(v.ui.chart, lossChart(r.recipe.book_curve, r.losses, r.limit || r.recipe.step_limit) +
    "<figcaption>The loss on each step's batch (every few steps on a long run): the book's run " +
    "(python -m toycalc train) and yours.</figcaption>");
}

function reset(r) {
  if (r.worker) r.worker.terminate();
  Object.assign(r, unchecked(r.inputs));
}

/** What the worker says, kept in the run and drawn if the page is open. */
function receive(r, m) {
  if (m.attention) {
    r.attention = m.attention;
    const v = viewOf(r);
    if (v) headsInto(v.ui.heads, m.attention, v.tokens, r.recipe.example_text);
  }
  if (m.type === "step") {
    r.losses.push(m.loss);
    if (r.state !== "paused") {          // else the step under way when Pause was pressed
      r.detail = `Step ${m.step}: loss ${fixed(m.loss)} on this step's batch (${Math.round(m.ms)} ms a step).`;
      const v = viewOf(r);
      if (v) v.ui.detail.textContent = r.detail;
    }
    if (!r.pending) { r.pending = true; requestAnimationFrame(() => { r.pending = false; drawChart(r); }); }
    return;
  }
  if (m.type === "paused") r.detail = `Paused after step ${m.step}.`;
  else if (m.type === "check") r.status = `${m.sorted} of ${r.inputs} sorted (checked at step ${m.step})`;
  else if (m.type === "done") finished(r, m);
  else if (m.type === "error") Object.assign(r, { detail: m.message, state: "idle" });    // kernels.wasm did not load
  else return;
  show(r);
}

function finished(r, m) {
  const rec = m.record, inputs = r.inputs;
  r.files = { weights: m.weights, record: rec, unfinished: rec.accuracy_on_729 !== inputs };
  r.status = `${rec.accuracy_on_729} of ${inputs} sorted after ${rec.steps} step${rec.steps === 1 ? "" : "s"}, ${fixed(rec.seconds, 1)} s`;
  r.detail = rec.accuracy_on_729 === inputs
    ? "Done: your model sorts every input. Download its weights and its record to build the book on them: " +
      "every number and every sentence about where its heads look then comes from your model (a sentence " +
      "written for the book's weights that yours make false stops the build, named with its page and line: " +
      "see “When a build on your weights stops at a sentence”)."
    : "Stopped at the step limit, before sorting every input. Raise the limit and start again, or try another seed.";
  r.worker.terminate(); r.worker = null;
  r.state = "idle";
}

export { start, wholeNumber };
