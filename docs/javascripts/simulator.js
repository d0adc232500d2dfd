// simulator.js: a page's code (data-module="simulator"): the book's playground, on
// End to End (docs/end-to-end.md): the sentence field and the vocabulary's
// tokens above the drawing, the prediction, and under the drawing the
// buttons, the heads and three drawers (sampling, the weights editor,
// the trainer). The build writes all of it (toycalc/book/path.py), so the
// page has its room before this runs; this wires it.
//
// It only wires controls to the twins: gpt.js runs the model, render.js
// prints the numbers, draw.js and end_to_end.js draw the figures, and
// later.js builds what the reader sees first. The reader's tables go into
// the path's panels, the drawing follows the run (path.js), the page's
// heads chooser picks the heads. The drawers "Change the weights"
// (weights_editor.js) and "Train" (toy_training.js) are fetched and built
// the first time the reader opens one. Text typed by the reader is only
// ever written with textContent.

import * as gpt from "./gpt.js";
import * as render from "./render.js";
import * as draw from "./draw.js";
import * as endToEnd from "./end_to_end.js";
import * as dom from "./dom.js";
import * as later from "./later.js";

const { show } = gpt, { fixed, short, vector, weightsVector } = render, { el, table, notation: n, fetchJson } = dom, { drawn } = later;

// ------------------------------------------------------------ the tables of each step

/** Every table and figure of the path, from one trace: one entry per
 *  step of the path (toycalc/book/path.py's STEPS), each a title, its
 *  parts (a function each, that builds one node: a part is built when
 *  the reader can see it, see later.js). */
function steps(model, tr, choice) {
  const s = { model, tr, choice, tokens: tr.ids.map((i) => show(model.vocab[i])), T: tr.ids.length,
              vocab: model.vocab.map(show) };
  const out = [];
  const step = (title, ...parts) => out.push({ n: out.length + 1, title, parts });
  step("Tokens and ids", () => idsTable(s));
  step("The table E", () => embeddingTable(s));
  step("Position: X", () => positionTable(s));
  step("LayerNorm: u", () => layernormTable(s));
  step("Query, key and value", () => qkvTable(s));
  step(`The heads (${tr.heads})`, () => drawn(endToEnd.attentionFigure(s.tokens, tr)), ...headTables(s));
  step("Mix the values, join the heads", () => mixTable(s));
  step("LayerNorm again, and the MLP", () => mlpTable(s));
  step("Logits and probabilities", () => drawn(endToEnd.probabilitiesFigure(s.vocab, tr)),
       () => finalNorm(s), () => softmaxTable(s));
  return out;
}

const ROWS = { rowHeader: true };
// a table of vectors: on a phone, one row at a time (dom.js's table)
const CARDS = { rowHeader: true, stack: true };
// c₁, u₁ …: the column's number as a subscript, as the built tables print it (\(c_{1}\))
const SUB = "₀₁₂₃₄₅₆₇₈₉", low = (n) => String(n).replace(/\d/g, (d) => SUB[d]);
const columns = (model, symbol) => Array.from({ length: model.d }, (_, c) => `${symbol}${low(c + 1)}`);

function idsTable({ tr, tokens }) {
  return table("sim-ids", "The sentence cut into tokens, and their ids", ["token"].concat(tokens),
               [["id"].concat(tr.ids.map(String))], ROWS);
}

function embeddingTable({ model, tr }) {
  return table("sim-E", "The embedding table E, the sentence's rows in bold", ["id", "token"].concat(columns(model, "c")),
               model.vocab.map((t, i) => [String(i), show(t)].concat(Array.from(model.E[i], (v) => short(v)))),
               { bold: new Set(tr.ids) });
}

function positionTable({ tr, tokens }) {
  return table("sim-X", "Each token's row of E plus its position's row of P",
               ["token", "E[id]", n("P_t"), n("x_t = E[id] + P_t")],
               tokens.map((t, i) => [t, weightsVector(tr.E_ids[i]), weightsVector(tr.P_t[i]), weightsVector(tr.X[i])]),
               CARDS);
}

function layernormTable({ model, tr, tokens }) {
  return table("sim-u", "Each row of X shifted to mean 0 and scaled to standard deviation 1",
               ["token", "μ", "σ"].concat(columns(model, "u")),
               tokens.map((t, i) => [t, fixed(tr.mu[i]), fixed(tr.sigma[i])].concat(Array.from(tr.u[i], (v) => fixed(v)))),
               ROWS);
}

function qkvTable({ tr, tokens }) {
  return table("sim-QKV", n("Q = u W_Q, K = u W_K, V = u W_V"), ["token", "Q", "K", "V"],
               tokens.map((t, i) => [t, vector(tr.Q[i]), vector(tr.K[i]), vector(tr.V[i])]), CARDS);
}

/** Each head's scores and weights, a table each. */
function headTables({ model, tr, tokens }) {
  const parts = [];
  for (let h = 0; h < tr.heads; h++) {
    const head = h + 1;
    parts.push(() => table(`sim-scores-${head}`,
      `Head ${head}: scores s = q·k / √${model.d / tr.heads}, one row per position (−∞: hidden by the mask)`,
      [`head ${head}`].concat(tokens),
      tokens.map((t, i) => [t].concat(Array.from(tr.scores[h][i], (v) => (v === -Infinity ? "−∞" : fixed(v))))),
      ROWS));
    parts.push(() => table(`sim-weights-${head}`,
      `Head ${head}: the weights a = softmax(s) of each row (blank: masked)`,
      [`head ${head}`].concat(tokens),
      tokens.map((t, i) => [t].concat(Array.from(tr.weights[h][i], (v, j) => (j > i ? null : fixed(v))))),
      ROWS));
  }
  return parts;
}

function mixTable({ tr, tokens }) {
  const oHeader = Array.from({ length: tr.heads }, (_, h) => `o (head ${h + 1})`);
  return table("sim-mix", n("The values averaged by each head, the heads joined (A), A W_O, and h = x + A W_O"),
               ["token"].concat(oHeader, ["A", n("A W_O"), "h"]),
               tokens.map((t, i) => [t].concat(tr.outputs.map((o) => vector(o[i])),
                                               [vector(tr.A[i]), vector(tr.attn[i]), vector(tr.h[i])])),
               CARDS);
}

function mlpTable({ tr, tokens }) {
  return table("sim-mlp", n("u' = LN(h), then GELU(u' W_1) W_2 = m, and y = h + m"),
               ["token", n("u'"), n("u' W_1"), n("GELU(u' W_1)"), "m", "y"],
               tokens.map((t, i) => [t, vector(tr.u2[i]), vector(tr.mlp_pre[i]), vector(tr.mlp_post[i]),
                                     vector(tr.m[i]), vector(tr.y[i])]),
               CARDS);
}

function finalNorm({ tr, T }) {
  return el("p", { id: "sim-f" }, [n(`f_${T} = LN(y_${T}) = ${vector(tr.f[T - 1])}; each logit is f_${T} ` +
                                     `times a column of W_U, then divided by T = ${short(tr.temperature)}.`)]);
}

function softmaxTable({ model, tr, T, choice }) {
  const z = tr.z[T - 1], p = tr.p[T - 1], logits = tr.logits[T - 1];
  const order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
  return table("sim-softmax", `The next token after position ${T}, most probable first`,
               ["token", "logit", "z = logit / T", n("e^z"), "p"],
               order.map((i) => [show(model.vocab[i]), fixed(logits[i]), fixed(z[i]), fixed(Math.exp(z[i])), fixed(p[i])]),
               { rowHeader: true, bold: new Set([order.indexOf(choice.id)]) });
}

// ------------------------------------------------------------ where the tables go

/** The End-to-End page: each step's tables go into that step's panel
 *  of the path, in place of the book's (for the heads shown); with
 *  steps = null the path shows the book's sentence again. */
function showInPath(path, steps, heads) {
  path.classList.toggle("path--live", steps !== null);
  shownRun.set(path, { steps, heads });
  path.querySelectorAll(".path-panel").forEach((panel) => {
    showInPanel(panel, path);
    fillWhenOpened(panel);
  });
}

const shownRun = new WeakMap();     // path -> the run its panels show: { steps, heads }
const panelRun = new WeakMap();     // panel -> the run put in its boxes

/** A panel's boxes for the run its path shows. A panel whose content
 *  path.js has not put in yet (a step never opened) gets them when it opens. */
function showInPanel(panel, path) {
  const run = shownRun.get(path);
  if (!run || panel.querySelector(":scope > noscript.step-later")) return;
  panelRun.set(panel, run);
  const { steps, heads } = run;
  const k = Number(panel.id.slice("step-".length)) - 1;   // by its id: on a phone the open one moves (path.js)
  panel.querySelectorAll(".path-body").forEach((body) => {
    const live = liveOf(body);
    const variant = body.closest(".heads-variant");
    live.pending = null;
    if (variant && variant.dataset.heads !== String(heads)) clear(live);
    else if (steps && (panel.classList.contains("is-open") || !path.dataset.ready)) {
      later.showParts(live, steps[k].parts);
    } else {
      // a closed step is built when it opens (see fillWhenOpened): one step, not nine
      clear(live);
      live.pending = steps ? steps[k] : null;
    }
  });
}

/** A box of the path emptied, and nothing left to fill it later. */
function clear(box) {
  for (const slot of box.children) later.drop(slot.firstChild);   // a part deferred in its slot
  if (box.firstChild) box.replaceChildren();  // even when empty, a change: the box and its kin restyled
}

/** The live tables of a step's panel, before its box. */
function liveOf(body) {
  let live = body.querySelector(":scope > .path-live");
  if (!live) {
    live = el("div", { class: "path-live" });
    body.insertBefore(live, body.querySelector(":scope > .path-box"));
  }
  return live;
}

/** What a run may redraw, for survey: the open step's boxes. */
function inSight(path) {
  return [[...path.querySelectorAll(".path-panel.is-open .path-body")].map(liveOf), []];
}

const watched = new WeakSet();

/** The pending step of an opened panel, built now. */
function fillPending(panel) {
  if (!panel.classList.contains("is-open")) return;
  const path = panel.closest(".path");
  if (path && panelRun.get(panel) !== shownRun.get(path)) showInPanel(panel, path);   // put in as it opened
  panel.querySelectorAll(".path-live").forEach((live) => {
    if (live.pending) {
      const step = live.pending;
      live.pending = null;
      live.near = null;  // shown now: every part of it
      later.showParts(live, step.parts);
    }
  });
}

/** When path.js opens a step, its pending live tables are built: on the
 *  click (path.js has toggled the panel by the time it bubbles to the path), or
 *  when the panel opens otherwise (a #step-N link). */
function fillWhenOpened(panel) {
  if (watched.has(panel)) return;
  watched.add(panel);
  new MutationObserver(() => fillPending(panel)).observe(panel, { attributes: true, attributeFilter: ["class"] });
  // the path (path.js opens the step on the click's way down, and the
  // drawing it lies in may be drawn again)
  panel.parentNode.addEventListener("click", () => fillPending(panel));
}

// ------------------------------------------------------------ the controls

const state = new WeakMap();   // #live-simulator -> its simulator

/** Each page view (book.js): the page's simulator; the promise settles
 *  once it answers (book.js then marks the page started). */
function start() {
  return Promise.all([...document.querySelectorAll("#live-simulator")].map(setUp));
}

function setUp(root) {
  if (root.dataset.ready) return null;
  root.dataset.ready = "1";
  return fetchJson(root.dataset.weights).then((data) => build(root, gpt.load(data))).catch((e) => {
    const message = root.querySelector("#sim-message");
    message.textContent = `The playground could not start (${e.message}); the book's sentence stays as the build computed it.`;
    message.hidden = false;
    root.querySelectorAll(".sim-live input, .sim-live button").forEach((c) => { c.disabled = true; });
  });
}

/** The simulator in `root`: its controls, their listeners, a first run. */
function build(root, model) {
  const path = document.getElementById(root.dataset.into);
  const sim = { root, model, path, bookText: root.dataset.text || "", draws: 0, drawn: [], trace: null, choice: null,
                book: copyOfWeights(model), weightsRun: 0 };
  // a change of weights (the editor, the trainer) runs again, and the drawing is drawn again
  sim.update = () => { sim.weightsRun += 1; update(sim); };
  sim.rerun = () => update(sim);
  state.set(root, sim);
  sim.ui = controls(root);
  listen(sim);
  drawers(sim);
  update(sim);
  root.dataset.live = "";   // its controls answer from now on (the build wrote them long before)
}

const WEIGHTS = ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"];
const copyOfWeights = (model) => Object.fromEntries(WEIGHTS.map((name) => [name, model[name].map((row) => Array.from(row))]));

/** Whether the model's weights are still the book's (the build's panels hold for them only). */
function booksWeights({ model, book }) {
  return WEIGHTS.every((name) => model[name].every((row, r) => row.every((v, c) => v === book[name][r][c])));
}

/** The controls the build wrote (toycalc/book/path.py), by their ids. */
function controls(root) {
  const $ = (id) => root.querySelector(`#${id}`);
  return {
    text: $("sim-text"), vocab: root.querySelector(".sim-vocab"), back: $("sim-back"), reset: $("sim-reset"),
    temp: $("sim-temperature"), tempShown: $("sim-temperature-value"), mode: root.querySelector(".sim-mode"),
    seed: $("sim-seed"), draw: $("sim-draw"), append: $("sim-append"), message: $("sim-message"),
    summary: $("sim-next"),
  };
}

/** "Change the weights" and "Train": built the first time the reader opens
 *  either (the trainer shows its changes in the weights editor, so it
 *  builds that too). */
function drawers(sim) {
  const editorBox = sim.root.querySelector("#sim-editor"), trainBox = sim.root.querySelector("#toy-training-details");
  let editor = null;
  const openEditor = () => {
    editor = editor || Promise.all([import("./weights_editor.js"), fetchJson(sim.root.dataset.editor)]).then(([w, extra]) => {
      // the editor also reads the file's comments and the loader's number rules
      Object.assign(sim.model, extra);
      w.weightsEditor(sim.model, sim.update, editorBox);
    });
    return editor;
  };
  editorBox.addEventListener("toggle", () => { if (editorBox.open) openEditor(); });
  trainBox.addEventListener("toggle", () => {
    if (trainBox.open) openEditor().then(() => import("./toy_training.js")).then((t) => t.start({ simOf }));
  });
}

/** What the controls say: heads, temperature, greedy or sampled, seed. */
function read({ root, model, ui }) {
  const heads = root.querySelector(".heads-chooser input:checked");
  return {
    heads: heads ? Number(heads.value) : model.heads,
    temperature: Number(ui.temp.value),
    sampled: root.querySelector("input[name=sim-mode]:checked").value === "sample",
    seed: Math.max(0, Math.floor(Number(ui.seed.value) || 0)) >>> 0,
  };
}

/** The model run again on what the controls say, and everything shown again. */
function update(sim) {
  const { model, path, ui } = sim;
  later.survey(...inSight(path));  // before any write
  const o = read(sim);
  holdHeight(sim);
  ui.tempShown.textContent = short(o.temperature, true);
  let tr;
  try {
    tr = gpt.run(model, ui.text.value, o.heads, o.temperature);
  } catch (e) {
    return cannotRun(sim, e, o);
  }
  ui.message.textContent = "";
  ui.message.hidden = true;
  ui.text.removeAttribute("aria-invalid");
  stale(sim, false);
  const choice = choose(sim, tr, o);
  sim.trace = tr; sim.choice = choice;
  // the book's own run keeps the book's panels, with their sums
  const isBook = ui.text.value === sim.bookText && o.temperature === 1 && !o.sampled && booksWeights(sim);
  showInPath(path, isBook ? null : steps(model, tr, choice), o.heads);
  ui.reset.disabled = isBook;
  // the model's drawing follows the run (path.js draws it)
  path.dispatchEvent(new CustomEvent("toycalc:run", { detail: { tr, vocab: model.vocab, heads: o.heads,
                                                                temperature: o.temperature, book: isBook,
                                                                weights: sim.weightsRun } }));
  const full = tr.ids.length >= model.nCtx;
  ui.append.disabled = full;
  ui.append.textContent = full ? `All ${model.nCtx} positions are used`
                               : `Append ${show(model.vocab[choice.id])} and run again`;
  enableTokens(sim, tr.ids.length);
}

/** The next token, the most probable or drawn, and the line that says it. */
function choose({ model, ui, draws }, tr, o) {
  const p = tr.p[tr.ids.length - 1];
  let choice;
  if (o.sampled) {
    const r = gpt.uniform(o.seed, draws);
    choice = { id: gpt.sample(p, r), r };
    ui.draw.textContent = ` draw ${draws + 1} of seed ${o.seed}: r = ${fixed(r)}`;
  } else {
    choice = { id: gpt.argmax(p) };
    ui.draw.textContent = "";
  }
  // the token in the frame that marks the token the model picks (the build writes the same)
  const token = el("span", { class: "sim-pick", text: show(model.vocab[choice.id]) });
  ui.summary.replaceChildren(...(o.sampled
    ? [`Next token, drawn with r = ${fixed(choice.r)}: `, token, ` (p = ${fixed(p[choice.id])})`]
    : ["Next token: ", token, ` with p = ${fixed(p[choice.id])}`]));
  return choice;
}

/** A sentence that cannot run (yet: a word half typed): the message
 *  beside the field, the last tables kept, dimmed. */
function cannotRun(sim, e, o) {
  const { model, path, ui } = sim;
  ui.message.textContent = whatIsWrong(model, ui.text.value, e);
  ui.message.hidden = false;
  // on a phone the field may sit at the foot of the screen
  if (document.activeElement === ui.text) ui.message.scrollIntoView({ block: "nearest" });
  stale(sim, true);
  // the drawing keeps the last run, as the tables do, and is told nothing ran
  if (path) path.dispatchEvent(new CustomEvent("toycalc:run", { detail: { tr: null } }));
  ui.append.disabled = true;
  ui.append.textContent = "Append the next token and run again";
  ui.text.setAttribute("aria-invalid", "true");
  sim.trace = null;
  enableTokens(sim, tokenCount(model, ui.text.value));
}

/** While the field has the focus, the results keep their tallest height:
 *  a shorter sentence on the way does not pull the page up. */
function holdHeight({ ui, path }) {
  if (document.activeElement !== ui.text) return;
  const box = path, held = parseFloat(box.style.minHeight) || 0;
  box.style.minHeight = `${Math.max(held, box.offsetHeight)}px`;
}

/** The last run's tables marked as not the sentence's (or no longer). */
function stale({ path, ui }, on) {
  for (const node of [ui.summary, path]) {
    node.classList.toggle("sim-stale", on);
    if (on) node.setAttribute("aria-describedby", "sim-message"); else node.removeAttribute("aria-describedby");
  }
}

function whatIsWrong(model, text, e) {
  if (text.trim() === "") return "The sentence is empty: type one, or add tokens of the vocabulary.";
  const lower = model.vocab.every((t) => t === t.toLowerCase());
  return e.message + (lower && text !== text.toLowerCase()
    ? " Every token of the vocabulary is in lower case: write the sentence in lower case." : "");
}

function tokenCount(model, text) {
  try { return gpt.tokenize(text, model.vocab).length; } catch (e) { return 0; }
}

/** The vocabulary's buttons, off once every position is used. */
function enableTokens({ model, ui }, T) {
  ui.vocab.querySelectorAll("button").forEach((b) => { b.disabled = T >= model.nCtx; });
}

/** Each control reruns the model. */
function listen(sim) {
  const { root, model, ui } = sim, update = () => sim.rerun();
  ui.text.addEventListener("input", update);
  ui.text.addEventListener("blur", () => { sim.path.style.minHeight = ""; });
  // path.js switches the book's variants on the same change, first
  document.querySelectorAll(".heads-chooser").forEach((c) => c.addEventListener("change", update));
  ui.mode.addEventListener("change", update);
  ui.temp.addEventListener("input", update);
  ui.seed.addEventListener("input", () => { sim.draws = 0; sim.drawn = []; update(); });
  ui.vocab.addEventListener("click", (event) => {
    const b = event.target.closest("button");
    if (!b) return;
    ui.text.value += model.vocab[Number(b.dataset.id)];
    update();
  });
  ui.back.addEventListener("click", () => {
    let ids;
    try { ids = gpt.tokenize(ui.text.value, model.vocab); } catch (e) { return; }
    // a drawn token: its draw is undone too
    if (sim.drawn.length && sim.drawn[sim.drawn.length - 1] === ui.text.value) {
      sim.drawn.pop();
      sim.draws = Math.max(0, sim.draws - 1);
    }
    ui.text.value = ids.slice(0, -1).map((i) => model.vocab[i]).join("");
    update();
  });
  ui.reset.addEventListener("click", () => {
    ui.text.value = sim.bookText;
    ui.temp.value = "1";
    root.querySelector("input[name=sim-mode][value=greedy]").checked = true;
    sim.draws = 0;
    sim.drawn = [];
    update();
  });
  ui.append.addEventListener("click", () => {
    if (!sim.trace) return;
    ui.text.value += model.vocab[sim.choice.id];
    if (read(sim).sampled) {
      sim.draws += 1;
      sim.drawn.push(ui.text.value);
    }
    update();
  });
}

/** The simulator of a root (its model, trace and update), for toy_training.js. */
const simOf = (root) => state.get(root);

export { start, steps, simOf };
