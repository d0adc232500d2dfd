// weights_editor.js: a page script: the Simulator page's "Change the
// weights" (#sim-editor), which simulator.js puts under its controls.
//
// Every weight of the toy as an input; a change reruns the model at once.
// "Download these weights" writes a toy.yaml (toYaml) that
// toycalc/model/weights.py's load_toy reads back as the same doubles
// (tests/book/test_weights_download.py runs toYaml in Node). A CommonJS
// module in Node, toycalc.weightsEditor in a page.
(function (root, name, needs, factory) {   // the wrapper of every module: see gpt.js
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory(...needs.map((n) => require(`./${n}.js`)));
    return;
  }
  const t = (root.toycalc = root.toycalc || { waiting: [] }), ready = (w) => w.needs.every((n) => t[n]);
  t.waiting.push({ name, needs, factory, script: document.currentScript });
  for (let w; (w = t.waiting.find(ready));) {
    t.waiting.splice(t.waiting.indexOf(w), 1);
    if (!t[w.name] || t[w.name].start) t[w.name] = w.factory(...w.needs.map((n) => t[n]));
    if (t[w.name].start) t[w.name].start(w.script);
  }
})(typeof self !== "undefined" ? self : this, "weights_editor", ["gpt", "dom"], function (gpt, dom) {
  "use strict";

  const { show } = gpt, { el } = dom;

  const EDITABLE = ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"];

  /** How the book labels row r and column c of a matrix. */
  function cellName(model, name, r, c) {
    const tok = (i) => show(model.vocab[i]);
    if (name === "E") return `E, ${tok(r)}, column ${c + 1}`;
    if (name === "P") return `P, position ${r + 1}, column ${c + 1}`;
    if (name === "W_U") return `W_U, row ${r + 1}, ${tok(c)}`;
    return `${name}, row ${r + 1}, column ${c + 1}`;
  }

  const copyOf = (model) => Object.fromEntries(EDITABLE.map((n) => [n, model[n].map((row) => Float64Array.from(row))]));

  /** A number as toycalc's loader reads it back to the same double:
   *  JavaScript's shortest form (1e-7 included: the loader reads numbers
   *  as people write them). */
  const yamlNumber = (v) => String(v);

  /** The weights as a toy.yaml in the repository's layout. The book's
   *  comments stay where what they describe is unchanged. */
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
      const above = (keys[name] || {}).above || [];
      const mentioned = named(above.join(" "));
      mentioned.add(name);
      if (above.length && ![...mentioned].some((n) => changed.has(n))) out.push(...above);
      out.push(`${name}:${inline(name)}${changed.has(name) ? "   # changed in the Simulator" : ""}`);
      model[name].forEach((row, r) => {
        const label = name === "E" ? `   # ${r}  ${show(model.vocab[r])}` : name === "P" ? `   # position ${r + 1}` : "";
        out.push(`  - [${Array.from(row, yamlNumber).join(", ")}]${label}`);
      });
      out.push("");
    }
    return out.join("\n");
  }

  const NOTE = "Every weight of the toy, as the weights file holds it. Type a new number and every table and " +
    "figure of this page follows at once; a changed cell is marked. Download the weights to build " +
    "the whole book from them (TOYCALC_WEIGHTS).";

  /** One matrix as a table of inputs, folded under its name and size. */
  function matrixInputs(model, name, inputs) {
    const M = model[name];
    const block = el("details", { class: "sim-matrix" }, [el("summary", { text: `${name} (${M.length} × ${M[0].length})` })]);
    const table = el("table", { class: "sim-weights", id: `sim-edit-${name}` });
    M.forEach((row, r) => {
      const tr = el("tr");
      row.forEach((v, c) => {
        const input = el("input", { type: "text", inputmode: "decimal", size: "5", spellcheck: "false",
                                    "aria-label": cellName(model, name, r, c), "data-matrix": name,
                                    "data-row": String(r), "data-col": String(c) });
        input.value = String(v);
        inputs.push(input);
        tr.append(el("td", {}, [input]));
      });
      table.append(tr);
    });
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

  /** Every weight as an input: a change reruns the model at once (onChange). */
  function weightsEditor(model, onChange) {
    const original = copyOf(model);
    const changedCells = new Set();
    const section = el("details", { class: "sim-editor", id: "sim-editor" });
    section.append(el("summary", { text: "Change the weights" }), el("p", { class: "sim-note", text: NOTE }));
    const reset = el("button", { type: "button", id: "sim-weights-reset", class: "sim-action",
                                 text: "Reset to the book's weights" });
    const save = el("button", { type: "button", id: "sim-weights-download", class: "sim-action",
                                text: "Download these weights" });
    const count = el("span", { id: "sim-weights-changed", "aria-live": "polite" });
    section.append(el("div", { class: "sim-buttons" }, [reset, save, count]));
    const inputs = [];
    for (const name of EDITABLE) section.append(matrixInputs(model, name, inputs));
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
    reset.addEventListener("click", () => {
      for (const input of inputs) {
        const [name, r, c] = where(input);
        model[name][r][c] = original[name][r][c];
        input.value = String(original[name][r][c]);
        input.removeAttribute("aria-invalid");
        mark(input);
      }
      onChange();
    });
    // another page script changed the model in place (toy_training.js's steps): show and mark the new numbers
    section.addEventListener("weights-set", () => {
      for (const input of inputs) {
        const [name, r, c] = where(input);
        input.value = String(model[name][r][c]);
        input.removeAttribute("aria-invalid");
        mark(input);
      }
    });
    const changedMatrices = () => new Set([...changedCells].map((k) => k.split(":")[0]));
    save.addEventListener("click", () => download(toYaml(model, changedMatrices()), "toy.yaml"));
    return section;
  }

  /** The number typed into `input` into the model; false (the input
   *  marked invalid) if it is not a number. */
  function typed(model, input) {
    const name = input.dataset.matrix, r = Number(input.dataset.row), c = Number(input.dataset.col);
    const text = input.value.trim().replace(/\u2212/g, "-");
    const v = Number(text);
    if (text === "" || !Number.isFinite(v)) {
      input.setAttribute("aria-invalid", "true");
      return false;
    }
    input.removeAttribute("aria-invalid");
    model[name][r][c] = v;
    return true;
  }

  return { EDITABLE, cellName, toYaml, download, weightsEditor };
});
