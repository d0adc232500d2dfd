// simulator.js: a page's code (data-module="simulator"): the simulator of the Simulator page
// (docs/simulator.md) and of End to End (docs/end-to-end.md), in
// #live-simulator: the sentence field, the vocabulary's buttons, the
// heads, temperature, next-token and seed controls.
//
// It only wires controls to the twins: gpt.js runs the model, render.js
// prints the numbers, draw.js and end_to_end.js draw the figures, and
// later.js builds what the reader sees first. On the Simulator page the
// whole model is drawn first (model_drawing.js), then each step of the
// path is a section of tables, with the weights editor (weights_editor.js)
// above them; on End to End (data-into="path") the
// tables go into the path's panels, and the page's heads chooser
// (path.js) picks the heads. Text typed by the reader is only ever
// written with textContent.

import * as gpt from "./gpt.js";
import * as render from "./render.js";
import * as draw from "./draw.js";
import * as endToEnd from "./end_to_end.js";
import * as dom from "./dom.js";
import * as later from "./later.js";

const { show } = gpt, { fixed, short, vector, weightsVector } = render, { el, table, notation: n } = dom, { drawn } = later;

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

/** The simulator's own page: the whole model drawn (model_drawing.js),
 *  then one section per step. */
function showSteps(results, steps, model, tr) {
  const first = results.children.length !== steps.length + 1;
  if (first) results.replaceChildren(...[0, ...steps].map(() => el("section", { class: "sim-step" })));
  results.hidden = false;
  const tokens = Array.from(tr.ids, (i) => show(model.vocab[i]));
  const parts = [[() => el("h2", { text: "The whole model" }),
                  () => drawn(pageParts.modelDrawing.modelFigure(tr, tokens, model.vocab))],
                 ...steps.map(({ n, title, parts }) => [() => el("h2", { text: `${n}. ${title}` }), ...parts])];
  // the first run: the sections are new, none laid out yet
  if (first) later.showFirst([...results.children], parts);
  else parts.forEach((own, k) => later.showParts(results.children[k], own));
}

/** The End-to-End page: each step's tables go into that step's panel
 *  of the path, in place of the book's (for the heads shown); with
 *  steps = null the path shows the book's sentence again. */
function showInPath(path, steps, heads) {
  path.classList.toggle("path--live", steps !== null);
  path.querySelectorAll(".path-panel").forEach((panel) => {
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
    fillWhenOpened(panel);
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

/** What a run may redraw, for survey: the boxes. */
function inSight(root, path) {
  if (!path) return [[...root.querySelectorAll("#sim-results > .sim-step")], []];
  return [[...path.querySelectorAll(".path-panel.is-open .path-body")].map(liveOf), []];
}

const watched = new WeakSet();

/** The pending step of an opened panel, built now. */
function fillPending(panel) {
  if (!panel.classList.contains("is-open")) return;
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

/** Each page view (book.js): the page's simulator. */
function start() {
  document.querySelectorAll("#live-simulator").forEach(setUp);
}

// The Simulator page's own parts (its drawing of the whole model and the
// weights editor), fetched only there: End to End shows neither.
const pageParts = { modelDrawing: null, weightsEditor: null };

function loadPageParts(root) {
  if (root.dataset.into) return null;
  return Promise.all([import("./model_drawing.js"), import("./weights_editor.js")]).then(([m, w]) => {
    pageParts.modelDrawing = m;
    pageParts.weightsEditor = w;
  });
}

function setUp(root) {
  if (root.dataset.ready) return;
  root.dataset.ready = "1";
  const json = (name) => {
    const url = new URL(name, document.baseURI);
    return fetch(url).then((r) => {
      if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
      return r.json();
    });
  };
  // the Simulator's editor also reads the file's comments and the loader's number rules
  const editor = root.dataset.editor ? json(root.dataset.editor) : {};
  Promise.all([json(root.dataset.weights), editor, loadPageParts(root)]).then(([data, extra]) => {
    build(root, Object.assign(gpt.load(data), extra));
  }).catch((e) => {
    const note = root.querySelector(".sim-loading");
    if (note) note.textContent = `The simulator could not start (${e.message}); the static path below still holds.`;
    root.hidden = false;
    showFallback();
  });
}

/** The simulator in `root`: its controls, their listeners, a first run. */
function build(root, model) {
  // On the End-to-End page (data-into="path") the tables go into the
  // path, and the page's own heads chooser picks the heads.
  const path = root.dataset.into ? document.getElementById(root.dataset.into) : null;
  const sim = { root, model, path, bookText: root.dataset.text || "", draws: 0, drawn: [], trace: null, choice: null };
  sim.update = () => update(sim);
  state.set(root, sim);
  root.replaceChildren();
  sim.ui = controls(model, path, sim.bookText);
  layOut(sim);
  listen(sim);
  root.hidden = false;
  update(sim);
}

/** The book's sentence as the build computed it (the Simulator page's
 *  #sim-static, shown without JavaScript), in place of a simulator that
 *  could not start. */
function showFallback() {
  const fallback = document.getElementById("sim-static");
  if (!fallback) return;
  fallback.hidden = false;
}

/** Radio buttons in a fieldset: [value, label] pairs, `checked` checked. */
function choices(cls, legend, name, options, checked) {
  const set = el("fieldset", { class: `${cls} choices` }, [el("legend", { text: legend })]);
  for (const [value, label] of options) {
    const input = el("input", { type: "radio", name, value });
    input.checked = value === checked;
    set.append(el("label", {}, [input, label]));
  }
  return set;
}

// the heads chosen on any page (path.js keeps it under this key)
const HEADS_KEY = "toycalc.heads";
function storedHeads() {
  try { return localStorage.getItem(HEADS_KEY); } catch (e) { return null; }   // private mode
}
function storeHeads(heads) {
  try { localStorage.setItem(HEADS_KEY, heads); } catch (e) { /* private mode */ }
}

/** The controls' nodes, not yet on the page. */
function controls(model, path, bookText) {
  const ui = {};
  ui.text = el("input", { type: "text", id: "sim-text", autocomplete: "off", spellcheck: "false",
                          "aria-describedby": "sim-message" });
  ui.text.value = bookText;
  ui.vocab = el("div", { class: "sim-vocab", role: "group", "aria-labelledby": "sim-vocab-label" },
                model.vocab.map((tok, i) => el("button", { type: "button", class: "sim-token", "data-id": String(i),
                                                           "aria-label": `add ${show(tok)}`, text: show(tok) })));
  ui.back = el("button", { type: "button", id: "sim-back", class: "sim-action", text: "Remove the last token" });
  ui.reset = el("button", { type: "button", id: "sim-reset", class: "sim-action", text: "Back to the book's sentence" });
  // on End to End the page's own chooser (path.js) picks the heads
  const offered = gpt.headsChoices(model).map(String), stored = storedHeads();
  ui.heads = path ? null : choices("sim-heads", "Heads", "sim-heads",
    offered.map((h) => [h, ` ${h} head${h > 1 ? "s" : ""}`]),
    offered.includes(stored) ? stored : String(model.heads));
  ui.temp = el("input", { type: "range", id: "sim-temperature", min: "0.1", max: "3", step: "0.1" });
  ui.temp.value = "1";
  ui.tempShown = el("output", { id: "sim-temperature-value", for: "sim-temperature", text: "1.0" });
  ui.mode = choices("sim-mode", "Next token", "sim-mode",
                    [["greedy", " the most probable"], ["sample", " drawn at random"]], "greedy");
  ui.seed = el("input", { type: "number", id: "sim-seed", min: "0", max: "4294967295", step: "1", inputmode: "numeric" });
  ui.seed.value = "1";
  ui.draw = el("span", { id: "sim-draw" });
  ui.append = el("button", { type: "button", id: "sim-append", class: "sim-action md-button md-button--primary" });
  ui.message = el("p", { id: "sim-message", class: "sim-message", role: "alert", hidden: true });
  ui.summary = el("p", { id: "sim-next", class: "sim-next", "aria-live": "polite" });
  ui.results = el("div", { id: "sim-results" });
  return ui;
}

/** The controls into the page: the Simulator page's weights editor and
 *  results under them; on End to End, the path takes the results. */
function layOut({ root, model, path, ui }) {
  root.append(
    el("div", { class: "sim-controls" }, [
      el("label", { for: "sim-text", class: "sim-label", text: "Sentence" }), ui.text, ui.message,
      el("p", { id: "sim-vocab-label", class: "sim-label",
                text: `Or add tokens of the vocabulary (at most ${model.nCtx}):` }),
      ui.vocab, el("div", { class: "sim-buttons" }, path ? [ui.back, ui.reset] : [ui.back]),
      ...(ui.heads ? [ui.heads] : []),
      el("div", { class: "sim-temperature" }, [
        el("label", { for: "sim-temperature", text: "Temperature T " }), ui.temp, " ", ui.tempShown]),
      ui.mode,
      el("div", { class: "sim-seed" }, [el("label", { for: "sim-seed", text: "Seed " }), ui.seed, ui.draw]),
    ]),
    ui.summary, ui.append,
    ...(path ? [] : [...trainerPlace(root), pageParts.weightsEditor.weightsEditor(model, () => update(state.get(root))),
                     ui.results]));
}

/** The page's trainer of this simulator (toy_training.js builds it),
 *  folded under its name beside "Change the weights", which shows what it
 *  changes. Moved in with the simulator's first build: a part moved in
 *  later had the browser restyle the whole article. */
function trainerPlace(root) {
  const box = document.querySelector(`[data-toy-trainer][data-into="${root.id}"]`);
  return box ? [el("details", { class: "sim-editor", id: "toy-training-details" },
                   [el("summary", { text: "Train the model" }), box])] : [];
}

/** What the controls say: heads, temperature, greedy or sampled, seed. */
function read({ root, model, path, ui }) {
  const heads = path ? document.querySelector(".heads-chooser input:checked")
                     : root.querySelector("input[name=sim-heads]:checked");
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
  later.survey(...inSight(sim.root, path));  // before any write
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
  const all = steps(model, tr, choice);
  if (!path) showSteps(ui.results, all, model, tr);
  else {
    // the book's own run keeps the book's panels, with their sums
    const isBook = ui.text.value === sim.bookText && o.temperature === 1 && !o.sampled;
    showInPath(path, isBook ? null : all, o.heads);
    ui.reset.disabled = isBook;
    // the model's drawing follows the run (path.js draws it)
    path.dispatchEvent(new CustomEvent("toycalc:run", { detail: { tr, vocab: model.vocab, heads: o.heads,
                                                                  temperature: o.temperature, book: isBook } }));
  }
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
  const token = show(model.vocab[choice.id]);
  ui.summary.textContent = o.sampled
    ? `Next token, drawn with r = ${fixed(choice.r)}: ${token} (p = ${fixed(p[choice.id])})`
    : `Next token: ${token} with p = ${fixed(p[choice.id])}`;
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
  const box = path || ui.results, held = parseFloat(box.style.minHeight) || 0;
  box.style.minHeight = `${Math.max(held, box.offsetHeight)}px`;
}

/** The last run's tables marked as not the sentence's (or no longer). */
function stale({ path, ui }, on) {
  for (const node of [ui.results, ui.summary, path]) {
    if (!node) continue;
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
  const { root, model, ui } = sim, update = sim.update;
  ui.text.addEventListener("input", update);
  ui.text.addEventListener("blur", () => { (sim.path || ui.results).style.minHeight = ""; });
  if (ui.heads) ui.heads.addEventListener("change", (event) => { storeHeads(event.target.value); update(); });
  // path.js switches the book's variants on the same change, first
  else document.querySelectorAll(".heads-chooser").forEach((c) => c.addEventListener("change", update));
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
