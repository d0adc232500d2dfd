// toy_training.js: a page's code (data-module="toy_training"): "Train the toy" ([data-toy-trainer]) on the
// toy chapter's Training page (docs/toy/training.md) and in End to End's
// drawer "Train" (docs/end-to-end.md, data-into="live-simulator": the
// playground's model; simulator.js starts this when the drawer opens).
// On the Training page the worked step's tables (∂L/∂E and the step, under
// every heads choice) follow the reader's weights and choice too
// (followTables: the next step from them, in the build's markup).
//
// It only wires controls to the twins: descent.js takes the steps (the
// twin of toycalc/model/descent.py, on gpt.js's backward pass), render.js
// prints the numbers, charts.js draws the chart, weights_editor.js writes
// the toy.yaml. The new weights go into the page's model in place: on the
// playground the simulator runs again (its own update) and the weights
// editor shows them, changed cells marked (its "weights-set" event); on
// the Training page the whole model is drawn again (model_drawing.js).
// What the reader types is only ever written with textContent.

import * as gpt from "./gpt.js";
import * as render from "./render.js";
import * as draw from "./draw.js";
import * as charts from "./charts.js";
import * as dom from "./dom.js";
import * as descent from "./descent.js";
import * as weightsEditor from "./weights_editor.js";
import * as modelDrawing from "./model_drawing.js";
import { putInEveryChoice } from "./path.js";

const { show } = gpt, { fixed, short, vector } = render, { el, table } = dom;
const STEPS_MS = 8;   // Train's steps per frame: those that fit in this many milliseconds

/** Each page view (book.js): the page's trainers. host: the simulator's
 *  module, when it starts the trainer in its drawer (passed, not imported:
 *  the simulator imports this module, and two modules never import each other). */
function start(host) {
  // the print page holds every chapter, the controls left out (as letters.js does)
  if (/\/print_page\/$/.test(location.pathname)) return;
  document.querySelectorAll("[data-toy-trainer]").forEach((box) => setUp(box, host));
}

function setUp(box, host) {
  if (box.dataset.ready || (box.dataset.into && !host)) return;   // a drawer's trainer waits for its simulator
  box.dataset.ready = "1";
  if (box.dataset.into) return inSimulator(box, host, 0);
  dom.fetchJson(box.dataset.weights).then((data) => build(box, onItsOwn(box, gpt.load(data)))).catch((e) => {
    box.replaceChildren(el("p", { class: "sim-message", text: `The training could not start (${e.message}).` }));
    box.hidden = false;
  });
}

// ------------------------------------------------------------ where it runs: the host

/** End to End's playground: the simulator's model, sentence, heads and
 *  temperature; a change of weights runs the simulator again and shows
 *  in the weights editor. Waits for the simulator to be built. */
function inSimulator(box, simulator, tries) {
  const root = document.getElementById(box.dataset.into);
  const sim = root ? simulator.simOf(root) : null;
  const editor = document.getElementById("sim-editor");
  if (!sim || !editor) {
    if (tries < 400) setTimeout(() => inSimulator(box, simulator, tries + 1), 50);
    return;
  }
  // the box is in its drawer, written by the build (toycalc/book/path.py)
  build(box, {
    model: sim.model,
    sentence: () => (sim.trace ? { ids: Array.from(sim.trace.ids), heads: sim.trace.heads,
                                   temperature: sim.trace.temperature } : null),
    changed: () => {
      editor.dispatchEvent(new Event("weights-set"));
      sim.update();
    },
  });
}

/** The Training page: the book's sentence, the page's heads choice
 *  (path.js's chooser), and the whole model drawn under the controls. */
function onItsOwn(box, model) {
  const ids = gpt.tokenize(box.dataset.text, model.vocab);
  const heads = () => {
    const chosen = document.querySelector(".heads-chooser input:checked");
    return chosen ? Number(chosen.value) : model.heads;
  };
  const drawing = el("div", { class: "toy-training-model" });
  const redraw = () => {
    const tr = gpt.forward(model, ids, heads());
    drawing.innerHTML = modelDrawing.modelFigure(tr, ids.map((i) => show(model.vocab[i])), model.vocab);
  };
  document.querySelectorAll(".heads-chooser").forEach((c) => c.addEventListener("change", redraw));
  const outcome = document.getElementById("toy-step-outcome");
  const bookOutcome = outcome && outcome.innerHTML;
  let book = null;   // the book's tables, kept when the reader's weights first change them
  return { model, sentence: () => ({ ids, heads: heads(), temperature: 1 }), changed: redraw, drawing, redraw,
           follow: (o) => {
             if (!o && !book) return;
             if (!book) {
               putInEveryChoice();   // each heads choice's tables, those still waiting too
               book = bookTables();
             }
             const steps = followTables(model, ids, o, book);
             if (outcome) followOutcome(outcome, model, o, steps, bookOutcome, heads());
           } };
}

// ------------------------------------------------------------ the page's worked tables, on the reader's weights

const WORKED = 'table[id^="table-grad-E-h"], table[id^="table-step-h"]';

/** The worked step's tables as the build wrote them (their bodies), to put back on Reset. */
function bookTables() {
  return new Map(Array.from(document.querySelectorAll(WORKED), (t) => [t, t.tBodies[0].innerHTML]));
}

/** The Training page's tables of the step (book/end_to_end.py's grad_E,
 *  book/toy/training.py's step), each under its heads choice, for the
 *  next step from the reader's weights with the reader's target and η
 *  (E alone, as the worked step); `o` null: the book's again. Only the
 *  bodies change: the headers, their formulas typeset, stay. */
function followTables(model, ids, o, book) {
  document.querySelectorAll(".toy-training-follows").forEach((note) => note.remove());
  const steps = new Map();   // heads -> the step (both tables of a heads choice read one)
  for (const [t, body] of book) {
    if (!o) {
      t.tBodies[0].innerHTML = body;   // the build's own markup, kept from the page
      continue;
    }
    const heads = Number(t.id.split("-h").pop());
    if (!steps.has(heads)) steps.set(heads, descent.descend(model, ids, o.target, o.eta, "E", 1, heads, 1)[0]);
    const r = steps.get(heads);
    const rows = [...new Set(ids)], g = r.grads.E, vocab = model.vocab;
    const cells = (i) => (t.id.startsWith("table-step")
      ? [render.weightsVector(model.E[i]), vector(r.params.E[i])] : [vector(g[i])]);
    t.tBodies[0].replaceChildren(...rows.map((i) => el("tr", {}, [el("td", { text: String(i) }),
      el("td", {}, [el("code", { text: show(vocab[i]) })]), ...cells(i).map((text) => el("td", { text }))])));
    // above Material's scrolling wrapper, not inside it: the note wraps to the column
    (t.closest(".md-typeset__scrollwrap") || t).before(el("p", { class: "toy-training-follows", text: `From your weights: the next step with target ` +
      `${show(vocab[o.target])} and η = ${short(o.eta)}, for ${heads} head${heads === 1 ? "" : "s"} ` +
      "(the formulas above are the book's step)." }));
  }
  return steps;
}

/** The sentence after the step's table ("p(␣roof) goes from … to …"), on
 *  the reader's weights: the next step's p and loss under each heads
 *  choice the tables computed (shown as the page's choice is); `o` null:
 *  the book's sentence again. */
function followOutcome(p, model, o, steps, bookHtml, shownHeads) {
  if (!o) {
    p.innerHTML = bookHtml;   // the build's own markup, kept from the page
    return;
  }
  const tok = show(model.vocab[o.target]);
  const variant = (pick) => [...steps].map(([heads, r]) => el("span", { class: "heads-variant", "data-heads": String(heads),
    hidden: heads !== shownHeads, text: pick(r) }));
  // a change smaller than the printed places is said so, never "from 0.474 to 0.474"
  const outcome = (r) => (fixed(r.p) === fixed(r.pAfter) && fixed(r.loss) === fixed(r.lossAfter)
    ? `leaves p(${tok}) at ${fixed(r.p)} and the loss at ${fixed(r.loss)}: it moves them by less than the last place printed`
    : `takes p(${tok}) from ${fixed(r.p)} to ${fixed(r.pAfter)}, the loss from ${fixed(r.loss)} to ${fixed(r.lossAfter)}`);
  p.replaceChildren(`From your weights, the next step of E (target ${tok}, η = ${short(o.eta)}) `, ...variant(outcome),
    ". How far one step goes depends on the heads you chose, but it is one step on one sentence.");
}

// ------------------------------------------------------------ the controls

/** A field with its label and the message beside it. */
function field(id, label, input, after) {
  input.id = id;
  input.setAttribute("aria-describedby", `${id}-message`);
  const message = el("span", { id: `${id}-message`, class: "sim-message toy-training-message", hidden: true });
  input.message = message;
  return el("div", { class: "toy-training-field" },
            [el("label", { for: id, text: label }), input, ...(after ? [after] : []), message]);
}

function controls(model, box) {
  const ui = {};
  const text = (value, mode) => {
    const input = el("input", { type: "text", autocomplete: "off", spellcheck: "false", inputmode: mode || "text" });
    input.value = value;
    return input;
  };
  ui.target = text(box.dataset.target || show(model.vocab[0]));
  ui.target.setAttribute("list", "toy-training-vocab");
  ui.vocab = el("datalist", { id: "toy-training-vocab" }, model.vocab.map((tok) => el("option", { value: show(tok) })));
  ui.eta = text(box.dataset.eta || "0.1", "decimal");
  // the defaults are the build's (descent.py's TRAIN_STEPS, TRAIN_LEARNS): enough steps of enough
  // weights to watch p(target) rise; One step and Train move the same weights, the ones chosen here
  ui.steps = text(box.dataset.steps || "1", "numeric");
  ui.learns = el("fieldset", { class: "choices toy-training-learns" },
                 [el("legend", { text: "Weights that each step moves (One step and Train alike)" })]);
  for (const [value, label] of [["E", " E alone (the book's step)"], ["all", " every matrix"]]) {
    const input = el("input", { type: "radio", name: "toy-training-learns", value });
    input.checked = value === (box.dataset.learns || "E");
    ui.learns.append(el("label", {}, [input, label]));
  }
  const button = (id, label) => el("button", { type: "button", id, class: "sim-action", text: label });
  ui.one = button("toy-training-one", "One step");
  ui.train = button("toy-training-train", "Train");
  ui.reset = button("toy-training-reset", "Reset to the book's weights");
  ui.save = button("toy-training-download", "Download these weights");
  ui.summary = el("p", { id: "toy-training-summary", class: "sim-next", "aria-live": "polite" });
  ui.results = el("div", { id: "toy-training-results" });
  box.replaceChildren(
    el("div", { class: "sim-controls toy-training-controls" }, [
      field("toy-training-target", "Target", ui.target, ui.vocab),
      field("toy-training-eta", "Learning rate η", ui.eta),
      field("toy-training-steps", "Steps", ui.steps,
            el("span", { class: "toy-training-limit", text: `from 1 to ${descent.MAX_STEPS}` })),
      ui.learns,
      el("div", { class: "sim-buttons" }, [ui.one, ui.train, ui.reset, ui.save]),
    ]),
    ui.summary, ui.results);
  return ui;
}

/** What a field says, or null with its message shown beside it. */
function checked(input, value, problem) {
  input.message.textContent = problem || "";
  input.message.hidden = !problem;
  if (problem) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  return problem ? null : value;
}

/** The choices, each checked; null if one is wrong (its message shown). */
function read(ui, model, withSteps) {
  const typed = ui.target.value.split(gpt.SPACE_SIGN).join(" ");
  const target = model.vocab.indexOf(typed);
  const spaced = model.vocab.includes(" " + typed) ? ` Did you mean ${show(" " + typed)}?` : "";
  const tok = checked(ui.target, target, target >= 0 ? "" :
    `"${gpt.shorten(ui.target.value)}" is not a token of the vocabulary; pick one from the list ` +
    `(␣ stands for the space).${spaced} ${gpt.vocabulary(model.vocab)}`);
  const etaText = ui.eta.value.trim().replace(/\u2212/g, "-"), eta = Number(etaText);
  const rate = checked(ui.eta, eta, etaText !== "" && Number.isFinite(eta) && eta > 0 ? "" :
    `η must be a number above 0 (the book's step takes ${short(Number(ui.eta.defaultValue || 0.1))}); ` +
    `"${gpt.shorten(ui.eta.value)}" is not.`);
  let steps = 1;
  if (withSteps) {
    const n = Number(ui.steps.value.trim());
    steps = checked(ui.steps, n, Number.isInteger(n) && n >= 1 && n <= descent.MAX_STEPS ? "" :
      `Steps must be a whole number from 1 to ${descent.MAX_STEPS}; "${gpt.shorten(ui.steps.value)}" is not.`);
  }
  const learns = ui.learns.querySelector("input:checked").value;   // One step and Train alike
  return tok === null || rate === null || steps === null ? null : { target, eta, steps, learns };
}

// ------------------------------------------------------------ the steps

function build(box, host) {
  const model = host.model, original = copy(gpt.parameters(model));
  const ui = controls(model, box);
  ui.eta.defaultValue = ui.eta.value;
  if (host.drawing) {
    box.append(host.drawing);
    host.redraw();
  }
  const state = { history: [], key: "" };
  // Train draws the page after each frame's steps, so that the reader watches the
  // loss fall (and, on Training, the drawing change); the buttons wait
  const busy = (on) => {
    for (const b of [ui.one, ui.train, ui.reset, ui.save]) b.disabled = on;
    ui.summary.setAttribute("aria-busy", String(on));   // a screen reader hears the last frame's line only
    if (on) box.dataset.busy = "1";
    else delete box.dataset.busy;
  };
  const run = (withSteps) => {
    const o = read(ui, model, withSteps);
    const s = host.sentence();
    if (!o) return;
    if (!s) {
      ui.summary.textContent = "The sentence above cannot be run: no step to take.";
      return;
    }
    const records = [];
    let stopped = null;   // the step that would take a weight beyond the weights file's bounds
    const frame = () => {
      // as many steps as fit in a few milliseconds, then the page drawn once
      const fresh = [], start = performance.now();
      let before;
      do {
        const was = copy({ E: model.E }).E;   // E before the step, for its table
        const [record] = descent.descend(model, s.ids, o.target, o.eta, o.learns, 1, s.heads, s.temperature);
        // a weight not finite or beyond ±MAX_WEIGHT: the step is not taken, the last good weights stay
        // (a download must load: toycalc refuses such a weight)
        const beyond = descent.beyondBounds(record.params);
        if (beyond) {
          stopped = beyond;
          break;
        }
        before = was;
        apply(model, record.params);
        records.push(record);
        fresh.push(record);
      } while (records.length < o.steps && performance.now() - start < STEPS_MS);
      if (fresh.length) {
        host.changed();
        if (host.follow) host.follow(o);
        shown(ui, model, s, o, records, fresh, before, state);
      }
      // the weight's name as the book prints it (W with a subscript O, never W_O)
      if (stopped) ui.summary.replaceChildren(records.length ? ui.summary.textContent + " " : "",
        dom.notation(stopSentence(model, stopped, records.length ? state.history.length - 1 : null, o.eta)));
      if (!stopped && records.length < o.steps && box.isConnected) requestAnimationFrame(frame);
      else busy(false);
    };
    busy(true);
    frame();
  };
  ui.one.addEventListener("click", () => run(false));
  ui.train.addEventListener("click", () => run(true));
  ui.reset.addEventListener("click", () => {
    apply(model, original);
    host.changed();
    if (host.follow) host.follow(null);
    state.history = [];
    ui.summary.textContent = "The book's weights again.";
    ui.results.replaceChildren();
  });
  ui.save.addEventListener("click", () => {
    weightsEditor.download(weightsEditor.toYaml(model, changedMatrices(model, original)), "toy.yaml");
  });
  box.hidden = false;
}

const copy = (params) => Object.fromEntries(Object.entries(params).map(([n, a]) =>
  [n, ArrayBuffer.isView(a) ? Float64Array.from(a) : a.map((row) => Float64Array.from(row))]));

/** Weights by name into the model's own arrays, in place: every page
 *  part that holds the model (the simulator, the editor) sees them. */
function apply(model, params) {
  const own = gpt.parameters(model);
  for (const [name, a] of Object.entries(params)) {
    const into = own[name];
    if (into === a) continue;
    if (ArrayBuffer.isView(into)) into.set(a);
    else into.forEach((row, r) => row.set(a[r]));
  }
}

/** The matrices (as the weights file names them) that differ from the book's. */
function changedMatrices(model, original) {
  const own = gpt.parameters(model), out = new Set();
  for (const [name, a] of Object.entries(own)) {
    const was = original[name];
    const differs = ArrayBuffer.isView(a) ? a.some((v, i) => v !== was[i])
                                          : a.some((row, r) => row.some((v, c) => v !== was[r][c]));
    if (differs) out.add(name.replace(/^blocks\.0\./, ""));
  }
  return out;
}

// ------------------------------------------------------------ what a step shows

/** Why Train stopped: the step after step `last` (of the chart's count;
 *  null: the run's first) would have put a weight where the weights file
 *  refuses it. */
function stopSentence(model, beyond, last, eta) {
  const name = beyond.name.replace(/^blocks\.0\./, ""), [r, c] = beyond.index;
  const where = c === undefined ? `${name}, entry ${r + 1}` : weightsEditor.cellName(model, name, r, c);
  // beyond ±10^6, its power of ten is positive: a superscript of dom.notation's, as render.py's tiny() writes it
  const v = beyond.value, [mantissa, power] = Number.isFinite(v) ? v.toExponential(1).split("e") : [];
  const value = Number.isNaN(v) ? "NaN (not a number)" : !Number.isFinite(v) ? `${v < 0 ? "−" : ""}infinity`
    : `${mantissa.replace("-", "−")} × 10^${Number(power)}`;
  const limit = descent.MAX_WEIGHT.toLocaleString("en-US");
  return `Stopped before ${last === null ? "the first step" : `step ${last + 1}`}: it would set ${where} to ` +
    `${value}, and a weights file holds only finite weights within ±${limit}. The weights stay as they were ` +
    `${last === null ? "before it" : `after step ${last}`}, so a download still loads; ` +
    `a smaller η than ${short(eta)} goes further.`;
}

/** The summary, the last step's table of E and the chart of every step
 *  since the weights were last set from elsewhere. */
function shown(ui, model, s, o, records, fresh, before, state) {
  const key = [s.ids.join(","), s.heads, s.temperature, o.target, o.eta, o.learns].join(" ");
  const first = records[0], end = records[records.length - 1], total = o.steps;
  if (records.length === fresh.length) {
    const last = state.history[state.history.length - 1];
    // a new run when the choices changed, or the weights changed elsewhere since the last step
    if (key !== state.key || !last || last.loss !== first.loss) state.history = [{ loss: first.loss, p: first.p }];
    state.key = key;
  }
  for (const r of fresh) state.history.push({ loss: r.lossAfter, p: r.pAfter });
  const n = state.history.length - 1, tok = show(model.vocab[o.target]);
  const from = n - records.length + 1, going = records.length < total ? ` (of ${total})` : "";
  ui.summary.textContent = `${from === n ? `Step ${n}${going}` : `Steps ${from} to ${n}${going}`}: ` +
    `L = ${fixed(first.loss)} → ${loss(end.lossAfter)}, p(${tok}) = ${fixed(first.p)} → ${fixed(end.pAfter)}.`;
  ui.results.replaceChildren(stepTable(model, s, o, records[records.length - 1], before), chart(state.history, tok));
}

/** A loss as printed; ∞ where p(target) rounded to 0 (a huge η). */
const loss = (v) => (Number.isFinite(v) ? fixed(v) : "∞");

/** A row of the gradient in the book's three decimals. A row that is not
 *  all zero but whose every number would print as 0.000 (late in a run) is
 *  scaled by a power of ten said after it, [−0.031, 0.016, …] × 10⁻⁵, so
 *  that it reads as non-zero and keeps to a phone's line (a 10⁻ⁿ on each
 *  number ran over six lines). */
const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
function gradVector(values) {
  const top = Math.max(...Array.from(values, Math.abs));
  if (top === 0 || top >= 0.0005) return vector(values);
  const power = Math.floor(Math.log10(top));
  // (no break inside "] × 10⁻ⁿ": the power stays with its numbers)
  return `${vector(Array.from(values, (v) => v / 10 ** power))}\u00a0×\u00a010${String(power).replace(/./g, (c) => SUPERSCRIPT[c])}`;
}

/** The last step on E: its loss, dL/dE for the sentence's rows and the
 *  rows after it; the other rows' derivative, exactly 0, said in words. */
function stepTable(model, s, o, r, before) {
  const g = r.grads.E, E = r.params.E, rows = [...new Set(s.ids)];
  // the rows the sentence does not read: their derivative is exactly 0 (said only if it is)
  const others = g.map((_, i) => i).filter((i) => !rows.includes(i));
  const still = others.filter((i) => g[i].every((v) => v === 0));
  const caption = `The last step (η = ${short(o.eta)}) on the rows of E the sentence reads`;
  const body = rows.map((i) => [String(i), show(model.vocab[i]), vector(before[i]), gradVector(g[i]), vector(E[i])]);
  const words = el("p", { id: "toy-training-still", text:
    (still.length === others.length ? `The other ${others.length} rows of E get ∂L/∂E = 0 exactly`
                                    : `${still.length} of the other ${others.length} rows of E get ∂L/∂E = 0`) +
    (o.learns === "E" ? ", so they do not move." : "; with every matrix learning, the other matrices move too.") });
  // on a phone, a card per row (simulator.css's sim-stack): each vector on a line of its own
  return el("div", { class: "sim-stack" }, [table("toy-training-step", caption, ["id", "token", dom.notation("E_i before"),
                                                  dom.notation("∂L/∂E_i"), dom.notation("E_i after")], body,
                                                  { rowHeader: true, stack: true }), words]);
}

/** The loss and p(target) after each step, as lines (charts.js's chart). */
function chart(history, tok) {
  // a loss of infinity (p rounded to 0 at a huge η) has no place on the axis: left out, said in the summary
  const n = history.length - 1, values = history.flatMap((h) => [h.loss, h.p]).filter(Number.isFinite);
  const xTicks = charts.niceTicks(0, Math.max(n, 1), Math.min(5, Math.max(n, 1))).map((v) => [v, String(v)]);
  // the axis fits what it draws: a change of a few thousandths is not lost on a fixed 0-to-1 axis
  const yTicks = charts.niceTicks(Math.min(...values), Math.max(...values), 4)
    .map((v) => [v, short(Math.round(v * 1000) / 1000)]);
  const line = (name, symbol, value) => {
    const kept = history.map((h, k) => [k, value(h)]).filter(([, v]) => Number.isFinite(v));
    return [name, kept, kept.map(([k, v]) => `after step ${k}: ${symbol} = ${fixed(v)}`)];
  };
  const series = [line("your run: loss L", "L", (h) => h.loss), line(`p(${tok})`, `p(${tok})`, (h) => h.p)];
  const aria = `The loss and p(${tok}) over ${n} step${n === 1 ? "" : "s"}: L from ${fixed(history[0].loss)} ` +
    `to ${fixed(history[n].loss)}, p(${tok}) from ${fixed(history[0].p)} to ${fixed(history[n].p)}`;
  const svg = charts.lineChartSvg(series, aria, xTicks, yTicks, "step", "", 360, 200);
  const holder = el("div", { class: "toy-training-chart" });
  holder.innerHTML = draw.figure("training", svg, "Each dot: the loss and the target's probability after that " +
    "step (step 0: before the first). " +
    '<span class="screen-only">Point at or tap a dot to read its number.</span>');
  return holder;
}

export { start };
