// nanogpt.js: nano-gpt live on the chapter's pages.
//
// Two things, both on toygpt.js's one JavaScript GPT (its `load`, `forward`
// and `greedy`; nothing of the model is written again here) and on the
// weights the build exports (javascripts/nanogpt-weights.json, fetched the
// first time a reader asks for something, never before):
//  - the field "Letters to sort" ([data-nano-sort]): six letters of the
//    reader's, sorted by the model, with p(A), p(B), p(C) at each step;
//  - every matrix that stops at "N more rows" ([data-nano-full], added by
//    toycalc/book/nanogpt_chapter.py's `openable`) gets a button that
//    shows it whole, computed on the chapter's example, in the markup of
//    nanogpt_chapter.heat (tests/book/test_nanogpt_live.py compares the
//    strings with Python's, for every matrix, all rows and columns).
// The build puts this script on the pages that need it (hooks.py).
// Text typed by the reader is only ever written with textContent.
(function (root, factory) {
  "use strict";
  const node = typeof module === "object" && module.exports;
  const api = factory(() => (node ? require("./toygpt.js") : root.toygpt));
  if (node) module.exports = api;
  else api.start(document.currentScript);
})(typeof self !== "undefined" ? self : this, function (toygpt) {
  "use strict";

  class InputError extends Error {}

  // ------------------------------------------------------------ the reader's letters

  /** The reader's text as ids: any case, spaces allowed, exactly `length`
   *  letters of the vocabulary; else an InputError that says what to type. */
  function parseLetters(text, vocab, length) {
    const letters = Array.from(text).filter((ch) => !/\s/.test(ch));
    const known = vocab.join(", ").replace(/, ([^,]*)$/, " or $1");
    const foreign = letters.find((ch) => !vocab.includes(ch.toUpperCase()));
    if (foreign !== undefined) {
      throw new InputError(`"${foreign}" is not a letter nano-gpt knows: type ${length} letters, each ${known}.`);
    }
    if (letters.length !== length) {
      throw new InputError(`${letters.length} letter${letters.length === 1 ? "" : "s"}: ` +
                           `nano-gpt sorts exactly ${length}, each ${known}.`);
    }
    return letters.map((ch) => vocab.indexOf(ch.toUpperCase()));
  }

  /** The generation loop of the Output page: `length` greedy steps, each
   *  with the ids read, p of every letter, and the id appended. */
  function sortLetters(model, ids, length) {
    const run = toygpt().greedy(model, ids, length);
    return run.probabilities.map((p, k) => ({ ids: run.ids.slice(0, ids.length + k), p, next: run.ids[ids.length + k] }));
  }

  // ------------------------------------------------------------ a matrix in full

  const MLP_NAMES = { mlp_pre: "MLP hidden layer before GELU", mlp_post: "MLP hidden layer after GELU",
                      m: "MLP output", y: "Block output", h: "After attention" };
  const QKV_NAMES = { Q: "Queries", K: "Keys", V: "Values" };

  const transpose = (M) => Array.from(M[0], (_, c) => Array.from(M, (row) => row[c]));
  const range = (n) => Array.from({ length: n }, (_, i) => i);

  /** What `spec` (a table's data attributes) names, computed on the trace
   *  tr of the chapter's example: the matrix as displayed (rows x columns),
   *  its kind, the names of its rows and columns and label(r, c), the
   *  words of a cell, as nanogpt_chapter.py's matrix functions give them. */
  function matrixOf(model, tr, spec) {
    const vocab = model.vocab, b = Number(spec.block || 1), head = Number(spec.head || 1);
    const letters = tr.ids.map((i) => vocab[i]);
    const blk = tr.blocks[b - 1];
    const channels = (M) => M.map((_, c) => `c = ${c}`);
    // nanogpt_chapter.activations: one column per time step, one row per channel
    const act = (A, what) => {
      const M = transpose(A);
      return { M, kind: "act", rowNames: channels(M), colNames: letters.map((l, t) => `t = ${t}<br>${l}`),
               label: (r, c) => `${what}, channel ${r}, t = ${c} (${letters[c]})` };
    };
    // nanogpt_chapter.weights
    const weights = (W, what, colNames) => ({
      M: W.map((row) => Array.from(row)), kind: "weight", rowNames: W.map((_, i) => String(i)),
      colNames: colNames || Array.from(W[0], (_, j) => String(j)),
      label: (i, j) => `${what}, row ${i}, column ${j}`,
    });
    switch (spec.nanoFull) {
      case "E": {
        const M = transpose(model.E);
        return { M, kind: "weight", rowNames: channels(M), colNames: vocab.map((l, i) => `${l} (${i})`),
                 label: (c, i) => `token embedding of ${vocab[i]}, channel ${c}` };
      }
      case "P": {
        const M = transpose(model.P);
        return { M, kind: "weight", rowNames: channels(M), colNames: M[0].map((_, t) => `t = ${t}`),
                 label: (c, t) => `position embedding of t = ${t}, channel ${c}` };
      }
      case "X": return act(tr.X, "Input embedding");
      case "u": return act(blk.u, `Normalised input of block ${b}`);
      case "qkv": {
        const A = model.d / tr.heads, c0 = (head - 1) * A;
        return act(blk[spec.which].map((row) => row.slice(c0, c0 + A)),
                   `${QKV_NAMES[spec.which]} of head ${head}, block ${b},`);
      }
      case "mlp": return act(blk[spec.which], `${MLP_NAMES[spec.which]}, block ${b}`);
      case "W":
        if (spec.name === "W_U") return weights(model.W_U, "Output matrix", vocab.map((l, i) => `${l} (${i})`));
        return weights(model.blocks[b - 1][spec.name], `Block ${b}'s weight matrix`);
      default:
        throw new RangeError(`data-nano-full="${spec.nanoFull}": no such matrix`);
    }
  }

  /** The head and body of the whole matrix, in nanogpt_chapter.heat's
   *  markup: the same cells (value, title, aria-label, shade) for every
   *  row and column. */
  function fullMarkup(model, tr, spec) {
    const g = toygpt(), esc = g.draw.esc;
    const { M, kind, rowNames, colNames, label } = matrixOf(model, tr, spec);
    let scale = 0;
    for (const row of M) for (const v of row) scale = Math.max(scale, Math.abs(v));
    const cell = (v, r, c) => {
      const text = g.fixed(v), alpha = scale > 0 ? 0.08 + 0.55 * Math.min(Math.abs(v) / scale, 1) : 0.08;
      const said = esc(`${label(r, c)}: ${text}`);
      return `<td class="nano-cell nano-${kind}" tabindex="0" title="${said}" aria-label="${said}" ` +
             `style="--shade:${g.fixed(alpha, 2)}">${text}</td>`;
    };
    const lines = [`<thead><tr><td></td>${colNames.map((n) => `<th scope="col">${n}</th>`).join("")}</tr></thead>`,
                   "<tbody>"];
    M.forEach((row, r) => {
      lines.push(`<tr><th scope="row">${rowNames[r]}</th>${row.map((v, c) => cell(v, r, c)).join("")}</tr>`);
    });
    lines.push("</tbody>");
    return lines.join("\n");
  }

  /** The ids of the chapter's example, as a table's data-example names them. */
  function exampleIds(model, text) {
    return parseLetters(text, model.vocab, Array.from(text).filter((ch) => !/\s/.test(ch)).length);
  }

  // ------------------------------------------------------------ on the page

  let weightsUrl = null;

  /** The model, fetched once per page visit and shared by every part of
   *  the page; a failed fetch may be tried again. */
  function model() {
    const cache = (self.nanogptModels = self.nanogptModels || {});
    if (!cache[weightsUrl]) {
      cache[weightsUrl] = fetch(weightsUrl).then((r) => {
        if (!r.ok) throw new Error(`${new URL(weightsUrl).pathname}: HTTP ${r.status}`);
        return r.json();
      }).then((data) => toygpt().load(data)).catch((e) => {
        delete cache[weightsUrl];
        throw e;
      });
    }
    return cache[weightsUrl];
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  let count = 0;

  function setUpSorter(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    const n = ++count, length = Number(root.dataset.length), id = `nano-letters-${n}`;
    const input = el("input", { type: "text", id, autocomplete: "off", spellcheck: "false",
                                placeholder: root.dataset.example || "", "aria-describedby": `${id}-hint ${id}-message` });
    const message = el("p", { id: `${id}-message`, class: "nano-message", role: "alert" });
    const intro = el("p", { text: "Try letters of your own: the same model runs in your browser, " +
                                  "on the weights every number of this chapter comes from." });
    const form = el("form", { class: "nano-sorter-form" }, [
      el("label", { for: id, text: "Letters to sort" }), " ", input, " ",
      el("button", { type: "submit", class: "nano-button nano-button--primary", text: "Sort" }),
      el("p", { id: `${id}-hint`, class: "nano-hint",
                text: `${length} letters, each A, B or C (any case; spaces are ignored).` }),
      message]);
    // only the answer's sentence is announced, not the table under it
    const answer = el("p", { class: "nano-answer", "aria-live": "polite" });
    const results = el("div", { class: "nano-sorted" }, [answer, el("div")]);
    root.replaceChildren(intro, form, results);
    let asked = 0;
    root.hidden = false;

    const fail = (text) => {
      message.textContent = text;
      input.setAttribute("aria-invalid", "true");
      answer.replaceChildren();
      results.lastChild.replaceChildren();
    };
    input.addEventListener("focus", () => model().catch(() => {}), { once: true });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value, ask = ++asked;
      answer.textContent = "Loading nano-gpt…";
      model().then((m) => {
        if (ask !== asked) return;  // sorted again meanwhile: the last one answers
        let ids;
        try {
          ids = parseLetters(text, m.vocab, length);
        } catch (e) {
          if (e instanceof InputError) return fail(e.message);
          throw e;
        }
        message.textContent = "";
        input.removeAttribute("aria-invalid");
        showSorted(answer, results.lastChild, m, ids, sortLetters(m, ids, length), `${id}-steps`);
      }).catch((e) => ask === asked && fail(`nano-gpt could not run (${e.message}); the chapter's numbers still hold.`));
    });
  }

  /** The answer, a table of the steps (as the Output page's generation
   *  table) and each step's probabilities as bars (toygpt.draw, the
   *  figures' SVG conventions). */
  function showSorted(answerLine, results, model, ids, steps, tableId) {
    const g = toygpt(), vocab = model.vocab;
    const answer = steps.map((s) => vocab[s.next]).join(" ");
    const table = el("table", { id: tableId }, [
      el("caption", { text: "Greedy decoding of your letters: the probabilities of the last column, and the letter appended" }),
      el("thead", {}, [el("tr", {}, ["step", "the model reads"].concat(vocab.map((l) => `p(${l})`), ["appends"])
        .map((h) => el("th", { scope: "col", text: h })))]),
      el("tbody", {}, steps.map((s, k) => el("tr", {}, [
        el("td", { text: String(k + 1) }), el("td", { text: s.ids.map((i) => vocab[i]).join(" ") }),
        ...s.p.map((v) => el("td", { text: g.fixed(v) })),
        el("td", {}, [el("strong", { text: vocab[s.next] })])]))),
    ]);
    const bars = el("div", { class: "fig-row nano-bars" });
    // markup from toygpt.draw, which escapes every text; the letters are the model's own
    bars.innerHTML = steps.map((s, k) => g.draw.figure("probabilities",
      g.draw.barsSvg(vocab, s.p, `Step ${k + 1}: the probability of each letter, ${vocab[s.next]} the largest`, s.next),
      `Step ${k + 1}: appends ${g.draw.esc(vocab[s.next])}`, { step: k + 1 })).join("");
    answerLine.replaceChildren("nano-gpt writes ", el("strong", { class: "nano-answer-letters", text: answer }),
                               ` for ${ids.map((i) => vocab[i]).join(" ")}.`);
    results.replaceChildren(
      el("div", { class: "nano-scroll", tabindex: "0", role: "region", "aria-label": "The steps of the sort" }, [table]),
      bars);
  }

  function setUpMatrix(table) {
    if (table.dataset.ready) return;
    table.dataset.ready = "1";
    const rows = Number(table.dataset.rows), cols = Number(table.dataset.cols);
    const shownCols = table.querySelectorAll("thead th").length;
    const all = `Show all ${rows} rows` + (shownCols < cols ? ` and ${cols} columns` : "");
    const button = el("button", { type: "button", class: "nano-button", "aria-controls": table.id,
                                  "aria-expanded": "false", text: all });
    const status = el("span", { class: "nano-full-status", role: "status" });
    table.after(el("p", { class: "nano-full" }, [button, " ", status]));
    const corner = [table.tHead, table.tBodies[0]];
    let whole = null;
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-expanded") === "true";
      if (open) {
        whole = [table.tHead, table.tBodies[0]];
        whole.forEach((part) => part.remove());
        table.append(...corner);
        button.setAttribute("aria-expanded", "false");
        button.textContent = all;
        status.textContent = "";
        return;
      }
      button.disabled = true;
      status.textContent = "Computing…";
      model().then((m) => {
        if (!whole) {
          const tr = toygpt().forward(m, exampleIds(m, table.dataset.example));
          const holder = document.createElement("table");
          holder.innerHTML = fullMarkup(m, tr, table.dataset);   // our own markup: every text escaped
          whole = [holder.tHead, holder.tBodies[0]];
        }
        corner.forEach((part) => part.remove());
        table.append(...whole);
        button.setAttribute("aria-expanded", "true");
        button.textContent = "Show the first rows only";
        status.textContent = `All ${rows} × ${cols} values, computed in your browser from the chapter's example.`;
      }).catch((e) => {
        status.textContent = `The whole matrix could not be computed (${e.message}).`;
      }).finally(() => { button.disabled = false; });
    });
  }

  function setUp() {
    document.querySelectorAll("[data-nano-sort]").forEach(setUpSorter);
    document.querySelectorAll("table[data-nano-full]").forEach(setUpMatrix);
  }

  /** In a page: the weights sit beside this script. Material's instant
   *  navigation runs the page's scripts again, maybe toygpt.js after this
   *  one: wait for it. */
  function start(script) {
    weightsUrl = new URL("nanogpt-weights.json", script ? script.src : document.baseURI).href;
    const go = () => {
      if (toygpt()) return setUp();
      const other = document.querySelector('script[src*="toygpt.js"]');
      if (other) other.addEventListener("load", setUp, { once: true });
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", go);
    else go();
  }

  return { InputError, parseLetters, sortLetters, matrixOf, fullMarkup, exampleIds, start };
});
