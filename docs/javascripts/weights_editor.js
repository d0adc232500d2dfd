// weights_editor.js: a page helper: End to End's drawer "Change the weights"
// (#sim-editor, written by the build), which simulator.js fills the first
// time the reader opens it.
//
// Every weight of the toy as an input, labelled as the book's tables are; a
// change reruns the model at once. A typed number follows the weights
// loader's rules (readNumber; tests/model/test_number_rules.py holds the two
// to one list of strings).
// "Download these weights" writes a toy.yaml (toYaml) that
// toycalc/model/weights.py's load_toy reads back as the same doubles
// (tests/book/test_weights_download.py runs toYaml in Node). The same ES
// module in Node and in a page.

import * as gpt from "./gpt.js";
import * as dom from "./dom.js";

const { show } = gpt, { el } = dom;

const EDITABLE = ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"];

const SUB = "₀₁₂₃₄₅₆₇₈₉";
/** c₁, c₂, …: a dimension as the book's tables head it. */
const dim = (i) => "c" + String(i + 1).replace(/[0-9]/g, (k) => SUB[k]);

/** How the book labels a matrix's rows and columns: tokens for the rows
 *  of E and the columns of W_U, positions (from 1) for the rows of P,
 *  dimensions c₁ … elsewhere; `corner` heads the row labels. */
function labels(model, name) {
  const M = model[name], tokens = model.vocab.map(show);
  const dims = (n) => Array.from({ length: n }, (_, i) => dim(i));
  const rows = name === "E" ? tokens : name === "P" ? M.map((_, r) => String(r + 1)) : dims(M.length);
  const cols = name === "W_U" ? tokens : dims(M[0].length);
  return { rows, cols, corner: name === "E" ? "token" : name === "P" ? "position" : "" };
}


/** How the book names row r and column c of a matrix (the cell's label). */
function cellName(model, name, r, c) {
  const tok = (i) => show(model.vocab[i]);
  if (name === "E") return `E, ${tok(r)}, column ${c + 1}`;
  if (name === "P") return `P, position ${r + 1}, column ${c + 1}`;
  // W_U is shown by its columns, a row per token: its row r is the shown column c_{r+1}
  if (name === "W_U") return `W_U, ${tok(c)}, ${dim(r)}`;
  return `${name}, row ${r + 1}, column ${c + 1}`;
}

/** A number typed into a cell, by the loader's own table of rules
 *  (toycalc/model/yamlfile.py NUMBER_RULES, in toy-editor.json as
 *  `numbers`): {value} when toycalc would read it as that weight, else
 *  {why}. The true minus sign reads as "-", as the loader reads it. */
function readNumber(text, numbers) {
  let typed = String(text).trim();
  if (!typed) return { why: "the cell is empty: type a number" };
  const rules = numbers.rules.map((r) => ({ ...r, re: new RegExp(`^(?:${r.pattern})$`) }));
  const reads = (t) => rules.some((r) => r.read && r.re.test(t));
  if (typed.includes(numbers.minus)) {
    const signed = typed.split(numbers.minus).join("-");
    if (reads(signed)) typed = signed;
  }
  const rule = rules.find((r) => r.re.test(typed));
  if (!rule) return { why: "expected a number, such as 0.5, \u22121 or 2e\u22123" };
  if (!rule.read) return { why: rule.why };
  if (typed.split(/[eE]/)[0].replace(/[^0-9]/g, "").length > numbers.max_digits) {
    return { why: `a number of more than ${numbers.max_digits} digits` };
  }
  const value = Number(typed.replace(/_/g, ""));
  if (!Number.isFinite(value)) return { why: "too large for a floating-point number" };
  if (Math.abs(value) > numbers.max_weight) {
    return { why: `beyond the limit of a weight, \u00b1${numbers.max_weight.toLocaleString("en-US")}` };
  }
  return { value };
}

const copyOf = (model) => Object.fromEntries(EDITABLE.map((n) => [n, model[n].map((row) => Float64Array.from(row))]));

/** A number as toycalc's loader reads it back to the same double:
 *  JavaScript's shortest form (1e-7 included: the loader reads numbers
 *  as people write them). */
const yamlNumber = (v) => String(v);

/** The weights as a toy.yaml in the repository's layout. The book's
 *  comments stay where what they describe is unchanged; a changed
 *  matrix keeps only the labels of its rows (its token, its position). */
function toYaml(model, changed) {
  const c = model.comments || { header: [], keys: {} };
  const keys = c.keys || {};
  const named = (text) => new Set((text.match(/\bW_[A-Z0-9]+\b|\b[EP]\b/g) || []).concat());
  const out = [];
  const header = c.header.length ? c.header : ["# The toy model's weights."];
  out.push(...header, "# Saved from the Simulator page; the matrices changed there say so.", "");
  const inline = (key) => {
    const text = (keys[key] || {}).inline || "";
    if (!text) return "";
    return "   # " + (changed.has(key) ? text.split(":")[0] : text);
  };
  out.push(`heads: ${model.heads}${inline("heads")}`, "");
  out.push(`vocab: [${model.vocab.map((t) => JSON.stringify(show(t))).join(", ")}]${inline("vocab")}`, "");
  for (const name of EDITABLE) {
    const kept = keys[name] || {}, above = kept.above || [];
    const mentioned = named(above.join(" "));
    mentioned.add(name);
    if (above.length && ![...mentioned].some((n) => changed.has(n))) out.push(...above);
    out.push(`${name}:${inline(name)}${changed.has(name) ? "   # changed in the Simulator" : ""}`);
    const same = !changed.has(name) && (kept.rows || []).length === model[name].length;
    if (same) out.push(...(kept.inside || []));
    model[name].forEach((row, r) => {
      const label = same ? (kept.rows[r] ? `   # ${kept.rows[r]}` : "")
        : name === "E" ? `   # ${r}  ${show(model.vocab[r])}` : name === "P" ? `   # position ${r + 1}` : "";
      out.push(`  - [${Array.from(row, yamlNumber).join(", ")}]${label}`);
    });
    out.push("");
  }
  return out.join("\n");
}

const NOTE = "Every weight of the toy, as the weights file holds it, labelled as the book's tables are. " +
  "Type a new number and every table and figure of this page follows at once; a changed cell is " +
  "marked. A cell that does not hold a number the weights file accepts says why, and the model keeps " +
  "its last number. Download the weights to build the whole book from them.";

/** One matrix as a table of inputs with the book's row and column
 *  labels, folded under its name and size. W_U, whose columns are tokens,
 *  is shown by its columns, one row per token, as the Output page prints
 *  it (a sequence or a vocabulary has one row per token in the whole book). */
function matrixInputs(model, name, cells) {
  const M = model[name], { rows, cols } = labels(model, name);
  const byColumns = name === "W_U";
  const shown = byColumns ? cols.map((_, c) => M.map((row, r) => [r, c]))
                          : M.map((row, r) => Array.from(row, (_, c) => [r, c]));
  const [rowNames, colNames] = byColumns ? [cols, rows] : [rows, cols];
  const corner = name === "P" ? "position" : name === "E" || byColumns ? "token" : "";
  const size = `${M.length} × ${M[0].length}${byColumns ? ", shown by its columns: a row per token" : ""}`;
  const block = el("details", { class: "sim-matrix" }, [el("summary", {}, [dom.notation(name), ` (${size})`])]);
  const table = el("table", { class: "sim-weights", id: `sim-edit-${name}` });
  table.append(el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: corner }),
    ...colNames.map((h) => el("th", { scope: "col", text: h }))])]));
  const body = el("tbody");
  shown.forEach((places, k) => {
    const tr = el("tr", {}, [el("th", { scope: "row", text: rowNames[k] })]);
    // a refused entry's note goes in a row of its own under the cell's row,
    // as wide as the table: inside the cell it widened its column (#25, at 375 px)
    const notes = el("td", { colspan: String(places.length + 1) });
    places.forEach(([r, c]) => {
      const v = M[r][c];
      const note = el("span", { class: "sim-cell-note", id: `sim-note-${name}-${r}-${c}`, hidden: true });
      const input = el("input", { type: "text", inputmode: "decimal", size: "5", spellcheck: "false",
                                  "aria-label": cellName(model, name, r, c), "data-matrix": name,
                                  "data-row": String(r), "data-col": String(c) });
      input.value = String(v);
      cells.set(`${name}:${r}:${c}`, input);
      NOTES.set(input, note);
      tr.append(el("td", {}, [input]));
      notes.append(note);
    });
    body.append(tr, el("tr", { class: "sim-note-row", hidden: true }, [notes]));
  });
  table.append(body);
  block.append(el("div", { class: "sim-scroll", tabindex: "0", role: "region", "aria-label": name }, [table]));
  return block;
}

/** A file for the reader to save, from the page. */
function download(text, name) {
  const blob = new Blob([text], { type: "text/yaml" });
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

const NOTES = new WeakMap();   // a cell's input -> the note that says why its entry is refused

/** A cell's verdict shown under its row: nothing when `why` is empty, else
 *  what was typed, why it is not applied and the number the model keeps. */
function showVerdict(input, why, kept) {
  const note = NOTES.get(input), row = note.closest("tr");
  if (!why) {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
    note.hidden = true;
    note.textContent = "";
  } else {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", note.id);
    note.textContent = `${input.getAttribute("aria-label")}: “${input.value.trim()}” is not applied: ${why}. ` +
                       `The model keeps ${kept}.`;
    note.hidden = false;
  }
  row.hidden = !row.querySelector(".sim-cell-note:not([hidden])");
}

/** Every weight as an input, in `section` (the drawer, its summary
 *  written by the build): a change reruns the model at once (onChange).
 *  The section's `editor` (cell, refresh) lets another script reach a
 *  cell or show weights it changed in the model. */
function weightsEditor(model, onChange, section) {
  const original = copyOf(model);
  const changedCells = new Set();
  section.append(el("p", { class: "sim-note", text: NOTE }));
  const reset = el("button", { type: "button", id: "sim-weights-reset", class: "sim-action",
                               text: "Reset to the book's weights" });
  const save = el("button", { type: "button", id: "sim-weights-download", class: "sim-action",
                              text: "Download these weights" });
  const count = el("span", { id: "sim-weights-changed", "aria-live": "polite" });
  section.append(el("div", { class: "sim-buttons" }, [reset, save, count]));
  const cells = new Map();                   // "name:r:c" -> its input
  for (const name of EDITABLE) section.append(matrixInputs(model, name, cells));
  const where = (input) => [input.dataset.matrix, Number(input.dataset.row), Number(input.dataset.col)];
  // a cell that differs from the book's is marked, and counted
  const mark = (input) => {
    const [name, r, c] = where(input), key = `${name}:${r}:${c}`;
    const differs = model[name][r][c] !== original[name][r][c];
    input.classList.toggle("is-changed", differs);
    if (differs) changedCells.add(key); else changedCells.delete(key);
    const n = changedCells.size;
    count.textContent = n ? ` ${n} weight${n > 1 ? "s" : ""} changed` : "";
  };
  section.addEventListener("input", (event) => {
    if (!event.target.dataset.matrix) return;
    if (typed(model, event.target)) {
      mark(event.target);
      onChange();
    }
  });
  // every cell shows the model's number again (after reset, or another script's change)
  const refresh = () => {
    for (const input of cells.values()) {
      const [name, r, c] = where(input);
      input.value = String(model[name][r][c]);
      showVerdict(input, "");
      mark(input);
    }
  };
  reset.addEventListener("click", () => {
    for (const name of EDITABLE) model[name].forEach((row, r) => row.set(original[name][r]));
    refresh();
    onChange();
  });
  const changedMatrices = () => new Set([...changedCells].map((k) => k.split(":")[0]));
  save.addEventListener("click", () => download(toYaml(model, changedMatrices()), "toy.yaml"));
  // another page script changed the model in place (training steps): show and mark the new numbers
  section.addEventListener("weights-set", refresh);
  section.editor = { cell: (name, r, c) => cells.get(`${name}:${r}:${c}`), refresh };
  return section;
}

/** The number typed into `input` into the model, if the weights file
 *  would accept it; else false, the cell saying why beside it. */
function typed(model, input) {
  const name = input.dataset.matrix, r = Number(input.dataset.row), c = Number(input.dataset.col);
  const read = readNumber(input.value, model.numbers);
  showVerdict(input, read.why, String(model[name][r][c]).replace("-", "\u2212"));
  if (read.why) return false;
  model[name][r][c] = read.value;
  return true;
}

export { EDITABLE, cellName, labels, readNumber, toYaml, download, weightsEditor };
