// letters.js: a page's code (data-module="letters"): nano-gpt's pages
// (docs/nano-gpt/*.md; every live part the build writes names this
// module, toycalc/book/nano_gpt/shared.py). It wires the page to nano_gpt.js and gpt.js, on the
// weights the build publishes (javascripts/nanogpt.safetensors, fetched
// the first time a reader asks for something, never before):
//  - the field "Letters for nano-gpt to sort" ([data-nano-sort]): six letters of the
//    reader's, sorted by the model, with p(A), p(B), p(C) at each step; where it
//    opens the page (the Introduction) it is also the field the chapter follows,
//    "Letters for nano-gpt to sort and this chapter to follow" (one field, not
//    two look-alikes one under the other);
//  - every matrix that stops at "N more" rows or columns ([data-nano-full], added by
//    the chapter's `openable`) gets a button that shows it whole
//    (nano_gpt.fullMarkup), computed on the letters the page follows;
//  - "Letters for this chapter to follow" after the first paragraph of a page with per-input numbers
//    (but the Introduction, whose sorter is that field)
//    ([data-nano-live]): every such output drawn again for the reader's
//    letters (nano_gpt.chapter), kept page to page in sessionStorage until
//    "Back to the book's example";
//  - "Follow these weights" (train_page.js stores the weights trained on
//    "Train it yourself" in sessionStorage): every live output, the weight
//    matrices included, drawn again from the reader's weights on every
//    chapter page, with a note after the first paragraph and "Back to the book's
//    weights"; what only the build computes (over all 729 inputs, the
//    training record) is marked as the book's;
//  - a matrix is one Tab stop, its cells reached by the arrow keys.
// Text typed by the reader is only ever written with textContent.

import * as gpt from "./gpt.js";
import * as render from "./render.js";
import * as draw from "./draw.js";
import * as nanoGpt from "./nano_gpt.js";
import * as dom from "./dom.js";
import * as mathjax from "./mathjax-config.js";
import * as weightsCheck from "./stored_weights.js";
import * as safetensors from "./safetensors.js";

const { el } = dom, { InputError, parseLetters } = nanoGpt;

// beside this file, as the build publishes them: nano-gpt's sizes and
// record (toycalc/site/export.py), and its weights file (safetensors.js reads it)
const setupUrl = new URL("nanogpt.json", import.meta.url).href;
const weightsUrl = new URL("nanogpt.safetensors", import.meta.url).href;

// sessionStorage: the weights the chapter follows (followWeights, which
// train_page.js calls, writes both): their id, and the weights themselves,
// as the download's two files: {weights: the safetensors file in base64, record}
const WEIGHTS_ABOUT = "nanogpt-weights-about", WEIGHTS = "nanogpt-weights";

/** Keep the reader's weights ({weights, record}) and what they are for
 *  every page of the chapter; throws when storage refuses. */
function followWeights(weights, about) {
  sessionStorage.setItem(WEIGHTS, JSON.stringify(weights));
  sessionStorage.setItem(WEIGHTS_ABOUT, JSON.stringify(about));
}

/** {id} of the reader's weights stored for the chapter, or null: what the
 *  pages say of them (seed, steps, inputs sorted) comes from the weights
 *  and their record as checked (checkFollowed), never from this entry,
 *  which a reader may edit as easily. */
function storedWeights() {
  try {
    const about = JSON.parse(sessionStorage.getItem(WEIGHTS_ABOUT) || "null");
    return about && typeof about === "object" && sessionStorage.getItem(WEIGHTS) ? about : null;
  } catch (e) {
    return null;   // storage refused, or not ours: the book's weights
  }
}

// The reader's stored weights as checked (checkFollowed), by their id:
// {data} when the chapter may follow them, {problem} when it may not. A
// Map: an id read from storage is any text ("__proto__", "toString"), never a key of an object.
const checked = new Map();

/** The reader's weights the chapter follows ({id, seed, ...}): stored and
 *  checked, else null (the book's weights). */
function followedWeights() {
  const about = storedWeights();
  return about && checked.has(about.id) && checked.get(about.id).data ? about : null;
}

// The models fetched, kept from page to page (instant navigation keeps
// this module): the book's, and the reader's trained weights by their id.
const cache = {};
let bookData = null;   // the book's {setup, arrays, data}, the layout gpt.load reads (the check compares to them)

function fetchBook() {
  if (!bookData) {
    bookData = Promise.all([dom.fetchJson(setupUrl), dom.fetchBytes(weightsUrl)]).then(([setup, buffer]) => {
      const { arrays } = safetensors.read(buffer);
      return { setup, arrays, data: { ...gpt.fromArrays(setup, arrays), record: setup.record } };
    }).catch((e) => {
      bookData = null;   // may be tried again
      throw e;
    });
  }
  return bookData;
}

/** The model, fetched once and shared by every part of every page; a
 *  failed fetch may be tried again. The reader's trained weights
 *  instead, as checked, while the chapter follows them. */
function model() {
  const mine = followedWeights(), key = mine ? `followed:${mine.id}` : weightsUrl;
  if (!cache[key]) {
    const data = mine ? Promise.resolve(checked.get(mine.id).data) : fetchBook().then((book) => book.data);
    // the record of its training beside it: the live training table and loss curve read it
    cache[key] = data.then((d) => Object.assign(gpt.load(d), { record: d.record || {} })).catch((e) => {
      delete cache[key];
      throw e;
    });
  }
  return cache[key];
}

/** Check the reader's stored weights once (per id, for the visit) before
 *  any part of a page uses them: their arrays against the book's (fetched
 *  to compare), their record against what they do. */
function checkFollowed() {
  const about = storedWeights();
  if (!about || checked.has(about.id)) return Promise.resolve();
  return fetchBook().then(async (book) => {
    let mine, got;
    try {
      mine = JSON.parse(sessionStorage.getItem(WEIGHTS));
      got = await weightsCheck.check(mine, book);
    } catch (e) {
      got = { problem: `they could not be read or run (${e.message})` };
    }
    // the id "Follow these weights" gives them: the time it stored them, a whole number
    if (!Number.isSafeInteger(about.id) || about.id < 0) got = { problem: "their id is not the whole number “Follow these weights” gives them" };
    checked.set(about.id, got);
  }).catch(() => {});   // the book's weights did not come: the page as built, nothing followed
}

// ------------------------------------------------------------ the sorter

let count = 0;   // the fields of the page, numbered for their ids

const FOLLOW_ID = "nano-follow-letters";   // the field whose letters the chapter follows

/** The sorter's field in `root` ([data-nano-sort]): it sorts; `follows`:
 *  the chapter follows its letters too (setUpFollow), and says so. */
function setUpSorter(root, follows) {
  if (root.dataset.ready) return;
  root.dataset.ready = "1";
  const n = ++count, length = Number(root.dataset.length), id = follows ? FOLLOW_ID : `nano-letters-${n}`;
  const input = el("input", { type: "text", id, autocomplete: "off", spellcheck: "false",
                              placeholder: root.dataset.example || "", "aria-describedby": `${id}-hint ${id}-message` });
  const message = el("p", { id: `${id}-message`, class: "nano-message", role: "alert" });
  const intro = el("p", { text: "Type letters of your own and nano-gpt sorts them, in your browser, on " +
                                "the weights every number of this chapter comes from." });
  const form = el("form", { class: "nano-sorter-form" }, [
    el("label", { for: id, text: follows ? "Letters for nano-gpt to sort and this chapter to follow"
                                         : "Letters for nano-gpt to sort" }), " ", input, " ",
    el("button", { type: "submit", class: "nano-button nano-button--primary", text: "Sort" }),
    el("p", { id: `${id}-hint`, class: "nano-hint",
              text: `${length} letters, each A, B or C (any case; spaces are ignored). The answer shows ` +
                    "under this field" + (follows ? "; and every number of the chapter that depends on the " +
                    "input is computed again for your letters in your browser, on this page and the next ones " +
                    "(sizes and weights stay)." : "; the page's other numbers follow the field “Letters for " +
                    "this chapter to follow”, near the top.") }),
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
      showSorted(answer, results.lastChild, m, ids, nanoGpt.sortLetters(m, ids, length), `${id}-steps`);
    }).catch((e) => ask === asked && fail(`nano-gpt could not run (${e.message}); the chapter's numbers still hold.`));
  });
}

/** The answer, a table of the steps (as the Output page's generation
 *  table) and each step's probabilities as bars (draw.js, the
 *  figures' SVG conventions). */
function showSorted(answerLine, results, model, ids, steps, tableId) {
  const vocab = model.vocab;
  const answer = steps.map((s) => vocab[s.next]).join(" ");
  const table = el("table", { id: tableId, class: "book-table" }, [
    el("caption", { text: "Greedy decoding of your letters: the probabilities of the last column, and the letter appended" }),
    el("thead", {}, [el("tr", {}, ["step", "the model reads"].concat(vocab.map((l) => `p(${l})`), ["appends"])
      .map((h) => el("th", { scope: "col", text: h })))]),
    el("tbody", {}, steps.map((s, k) => el("tr", {}, [
      el("td", { text: String(k + 1) }), el("td", { text: s.ids.map((i) => vocab[i]).join(" ") }),
      ...s.p.map((v) => el("td", { text: render.fixed(v) })),
      el("td", {}, [el("strong", { text: vocab[s.next] })])]))),
  ]);
  const bars = el("div", { class: "fig-row nano-bars" });
  // markup from draw.js, which escapes every text; the letters are the model's own
  bars.innerHTML = steps.map((s, k) => draw.figure("probabilities",
    draw.barsSvg(vocab, s.p, `Step ${k + 1}: the probability of each letter, ${vocab[s.next]} the largest`, s.next),
    `Step ${k + 1}: appends ${draw.esc(vocab[s.next])}`, { step: k + 1 })).join("");
  answerLine.replaceChildren("nano-gpt writes ", el("strong", { class: "nano-answer-letters", text: answer }),
                             ` for ${ids.map((i) => vocab[i]).join(" ")}.`);
  results.replaceChildren(
    el("div", { class: "nano-scroll", tabindex: "0", role: "region", "aria-label": "The steps of the sort" }, [table]),
    bars);
}

// ------------------------------------------------------------ a matrix in full

/** A button under a matrix cut short, that opens it whole and closes it again. */
function setUpMatrix(table) {
  if (table.dataset.ready) return;
  table.dataset.ready = "1";
  const rows = Number(table.dataset.rows), cols = Number(table.dataset.cols);
  // what the corner leaves out: rows (a "N more rows" line), columns (a "… N more" head), or both
  const cutRows = table.querySelector("td.nano-more[colspan]") !== null;
  const cutCols = Array.from(table.querySelectorAll("thead th")).some((th) => th.textContent.startsWith("…"));
  const all = "Show all " + [cutRows && `${rows} rows`, cutCols && `${cols} columns`].filter(Boolean).join(" and ");
  const first = `Show the first ${[cutRows && "rows", cutCols && "columns"].filter(Boolean).join(" and ")} only`;
  const button = el("button", { type: "button", class: "nano-button", "aria-controls": table.id,
                                "aria-expanded": "false", text: all });
  const status = el("span", { class: "nano-full-status", role: "status" });
  // its line, written by the build (nano_gpt/shared.py, FULL_LINE): filled, not
  // inserted, as an element inserted among the article's has chromium restyle
  // all of it once MathJax's MathML is in the page
  let line = table.nextElementSibling;
  if (!(line && line.matches("p.nano-full"))) {
    line = el("p", { class: "nano-full" });
    table.after(line);
  }
  line.replaceChildren(button, " ", status);
  line.hidden = false;
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
        const tr = gpt.forward(m, nanoGpt.exampleIds(m, table.dataset.example));
        const holder = document.createElement("table");
        holder.innerHTML = nanoGpt.fullMarkup(m, tr, table.dataset);   // our own markup: every text escaped
        whole = [holder.tHead, holder.tBodies[0]];
      }
      corner.forEach((part) => part.remove());
      table.append(...whole);
      button.setAttribute("aria-expanded", "true");
      button.textContent = first;
      status.textContent = `All ${rows} × ${cols} values, computed in your browser for ${table.dataset.example}.`;
    }).catch((e) => {
      status.textContent = `The whole matrix could not be computed (${e.message}).`;
    }).finally(() => { button.disabled = false; });
  });
}

// ------------------------------------------------------------ following the reader's letters

const FOLLOWED = "nanogpt-followed";   // sessionStorage: the letters the chapter follows, page to page

function stored(action, value) {
  try {
    if (action === "get") return sessionStorage.getItem(FOLLOWED);
    if (action === "set") sessionStorage.setItem(FOLLOWED, value);
    else sessionStorage.removeItem(FOLLOWED);
  } catch (e) { /* storage refused (private mode): the choice lasts for the page */ }
  return null;
}

/** MathJax typesets what it has not seen: the new formulas and captions. */
function typeset(elements) {
  const mj = self.MathJax;
  if (!elements.length) return;
  mathjax.load();   // MathJax, if it has not come, and its fonts' faces, if this page has none
  if (!(mj && mj.typesetPromise)) return;   // when it has started, it sees them
  document.body.dataset.mathjax = "busy";
  mj.startup.promise = mj.startup.promise.then(() => mj.typesetPromise(elements))
    .then(() => { document.body.dataset.mathjax = "done"; });
}

/** Every output of the page marked data-nano-live drawn again for `ch`
 *  (nano_gpt.chapter), in place; the sentences written for the book's
 *  example marked while other letters are followed. */
function redraw(ch, isBook) {
  const book = isBook && !followedWeights();   // the book's example on the book's weights
  const fresh = [];
  document.querySelectorAll("[data-nano-live]").forEach((old) => {
    const [kind, name] = old.dataset.nanoLive.split(":");
    const markup = ch.render(kind, name, JSON.parse(old.dataset.nanoArgs));   // our own markup: every text escaped
    if (kind === "number") {
      old.innerHTML = markup;
      return;
    }
    const holder = document.createElement("template");
    holder.innerHTML = markup;
    const now = holder.content.firstElementChild;
    for (const a of Array.from(old.attributes)) {
      if (a.name.startsWith("data-") && a.name !== "data-ready") now.setAttribute(a.name, a.value);
    }
    if (now.hasAttribute("data-example")) now.setAttribute("data-example", ch.text);
    if (self.MathJax && MathJax.typesetClear) MathJax.typesetClear([old]);
    old.replaceWith(now);
    if (now.matches("table[data-nano-full]")) setUpMatrix(now);
    fresh.push(now);
  });
  typeset(fresh);
  const sorted = ch.steps.map((s) => s.next).join() === ch.ids.slice().sort((a, b) => a - b).join();
  document.querySelectorAll(".nano-for-example").forEach((span) => {
    const note = span.previousElementSibling;
    if (note && note.classList.contains("nano-example-note")) note.remove();
    const holds = span.dataset.nanoHolds === "sorted" && sorted;
    span.classList.toggle("nano-for-example--marked", !book && !holds);
    if (!book && !holds) {
      const what = followedWeights() ? "weights and example" : "example";
      span.before(el("span", { class: "nano-example-note",
                               text: `written for the book's ${what}, ${exampleText()}, not for yours:` }), " ");
    }
  });
}

const exampleText = () => document.querySelector("[data-nano-example]").dataset.nanoExample;

/** The field to follow the reader's letters, and the way back; `book`
 *  is the book's example, `length` its number of letters. */
function followForm(book, length) {
  const id = FOLLOW_ID;
  const f = {
    now: el("p", { class: "nano-follow-now", "aria-live": "polite" }),
    input: el("input", { type: "text", id, autocomplete: "off", spellcheck: "false", placeholder: book,
                         "aria-describedby": `${id}-hint ${id}-message` }),
    back: el("button", { type: "button", class: "nano-button nano-follow-back", text: "Back to the book's example" }),
    message: el("p", { id: `${id}-message`, class: "nano-message", role: "alert" }),
  };
  f.form = el("form", { class: "nano-follow-form" }, [
    el("label", { for: id, text: "Letters for this chapter to follow" }), " ", f.input, " ",
    el("button", { type: "submit", class: "nano-button nano-button--primary", text: "Follow" }), " ", f.back,
    el("p", { id: `${id}-hint`, class: "nano-hint",
              text: `${length} letters, each A, B or C. Not a sort: every number of this page that depends on ` +
                    "the input is computed again for them in your browser, and on the chapter's next pages too; " +
                    "sizes and weights stay." }),
    f.message]);
  f.box = el("div", { class: "nano-follow" }, [f.now, f.form]);
  return f;
}

/** Where a box about the page's input or weights goes: after the page's
 *  first paragraph (before it, the box and the note took ~400 px of a
 *  phone's first screen before any prose), else under the title; after
 *  the sorter when it comes right after that paragraph (the
 *  Introduction opens on its tool). The room is kept there until it
 *  comes (book.css, data-nano-input). */
function lead(title) {
  const first = title.parentElement.querySelector(":scope > p");
  const next = first && first.nextElementSibling;
  return next && next.matches("[data-nano-sort]") ? next : first || title;
}

/** Whether the page's numbers can follow the reader's letters: it has
 *  per-input numbers (Preliminaries' depend on the weights alone) and is
 *  not the whole book on one page, to print, which prints the book's example. */
function followsLetters() {
  const first = Array.from(document.querySelectorAll("[data-nano-live]"))
    .find((part) => !nanoGpt.WEIGHTS_ONLY.includes(part.dataset.nanoLive));
  return !!first && !!document.querySelector("article h1") && !/\/print_page\/$/.test(location.pathname);
}

/** The sorter's field (setUpSorter) as the one whose letters the chapter
 *  follows: which letters it follows above it, the way back beside Sort;
 *  the way back clears the sort's answer too. */
function sorterForm(root) {
  const form = root.querySelector("form"), results = root.querySelector(".nano-sorted");
  const f = {
    form, input: form.querySelector("input"), message: form.querySelector(".nano-message"),
    now: el("p", { class: "nano-follow-now", "aria-live": "polite" }),
    back: el("button", { type: "button", class: "nano-button nano-follow-back", text: "Back to the book's example" }),
    clear: () => { results.firstChild.replaceChildren(); results.lastChild.replaceChildren(); },
    sorts: true,
  };
  form.querySelector("button[type=submit]").after(" ", f.back);
  form.before(el("div", { class: "nano-follow nano-follow--sorter" }, [f.now]));
  return f;
}

/** After the page's first paragraph, on a page with per-input numbers:
 *  which letters the page follows, a field to follow the reader's (the
 *  sorter's, where the page has one), and the way back. */
function setUpFollow() {
  const title = document.querySelector("article h1");
  if (!followsLetters() || document.querySelector(".nano-follow")) return;
  const sorter = document.querySelector(`[data-nano-sort] #${FOLLOW_ID}`);
  const book = exampleText(), length = book.split(" ").length;
  const f = sorter ? sorterForm(sorter.closest("[data-nano-sort]")) : followForm(book, length);
  if (!sorter) {
    // its place, written by the build (page_speed.py, FOLLOW_PLACE), filled as a matrix's line is
    const place = lead(title).nextElementSibling;
    if (place && place.matches(".nano-follow-place")) {
      place.append(...f.box.childNodes);
      place.className = "nano-follow";
      place.hidden = false;
    } else lead(title).after(f.box);
  }
  title.closest("article").setAttribute("data-follow-shown", "");   // its room goes (book.css)
  document.querySelectorAll("[data-nano-about]").forEach((p) => { p.hidden = false; });   // says how, where it works
  let asked = 0, followed = null;

  const says = (ids, m) => {
    const yours = ids && ids.map((i) => m.vocab[i]).join(" ");
    f.back.hidden = !yours;
    f.now.replaceChildren(...(yours
      ? ["Following ", el("strong", { class: "nano-followed", text: yours }),
         ", your letters, computed in your browser; the book follows ", book, "."]
      : ["Following ", el("strong", { class: "nano-followed", text: book }), ", the book's example."]));
  };
  const fail = (text) => {
    f.message.textContent = text;
    f.input.setAttribute("aria-invalid", "true");
  };
  // the page follows `text` (null: the book's example)
  const go = (text, remember) => {
    const ask = ++asked;
    f.now.textContent = "Loading nano-gpt…";
    return model().then((m) => {
      if (ask !== asked) return;
      let ids = null;
      if (text !== null) {
        try {
          ids = parseLetters(text, m.vocab, length);
        } catch (e) {
          if (!(e instanceof InputError)) throw e;
          says(followed, m);   // the page keeps what it shows
          return fail(e.message);
        }
      }
      f.message.textContent = "";
      f.input.removeAttribute("aria-invalid");
      const isBook = !ids || ids.join() === parseLetters(book, m.vocab, length).join();
      redraw(nanoGpt.chapter(m, isBook ? parseLetters(book, m.vocab, length) : ids), isBook);
      followed = isBook ? null : ids;
      if (remember) stored(isBook ? "remove" : "set", isBook ? "" : ids.map((i) => m.vocab[i]).join(" "));
      says(followed, m);
    }).catch((e) => ask === asked && fail(`nano-gpt could not run (${e.message}); the page shows the book's example.`));
  };
  says(null, { vocab: [] });
  listenToFollow(f, go);
}

/** The follow form's listeners; the letters followed on an earlier page, followed again. */
function listenToFollow(f, go) {
  f.form.addEventListener("submit", (event) => {
    event.preventDefault();
    go(f.input.value, true);
  });
  f.back.addEventListener("click", () => {
    f.input.value = "";
    if (f.clear) f.clear();
    go(null, true).then(() => f.input.focus());
  });
  f.input.addEventListener("focus", () => model().catch(() => {}), { once: true });
  const saved = stored("get");
  if (saved) f.input.value = saved;
  if (saved && f.sorts) f.form.requestSubmit();         // sorted, and the page drawn again for them
  else if (saved || followedWeights()) go(saved, false);   // the page drawn again for them
}

// ------------------------------------------------------------ following the reader's trained weights

/** After the first paragraph, while the chapter follows the reader's trained
 *  weights: which, and the way back; what the build alone computes
 *  (BOOK_WEIGHTS in toycalc/book/nano_gpt/shared.py) marked as the book's. */
function setUpWeightsNote() {
  const stored = storedWeights(), about = followedWeights(), title = document.querySelector("article h1");
  if (!stored || !title || document.querySelector(".nano-weights-note") || /\/print_page\/$/.test(location.pathname)) return;
  if (!about) return refusedNote(title, stored);
  // what the note says, from the weights as checked: their record, its counts measured (checkFollowed)
  const run = checked.get(about.id), steps = run.data.record.steps;
  const books = document.querySelectorAll("[data-nano-book-weights]");
  books.forEach((part) => {
    part.classList.add("nano-book-weights--marked");
    if (!part.matches("span")) part.before(el("p", { class: "nano-book-weights-note" }, [
      el("span", { class: "nano-example-note", text: "the book's weights, not yours:" })]));
    else part.title = "computed from the book's weights, not yours";
  });
  const back = el("button", { type: "button", class: "nano-button nano-weights-back", text: "Back to the book's weights" });
  const live = document.querySelector("[data-nano-live]");
  const note = el("div", { class: "nano-weights-note", role: "note" });
  lead(title).after(note);
  title.closest("article").classList.add("nano-yours");   // the training record's curve is the reader's run (figures.css)
  note.append(
    el("p", {}, [live ? "Every number on this page that depends on the weights is computed in your browser from "
                      : "The chapter follows ",
      el("strong", { text: "the weights you trained" }),
      ` (seed ${run.data.record.seed}, ${steps} step${steps === 1 ? "" : "s"}, ${run.sorted} of ${run.inputs} ` +
      `inputs sorted${run.sorted < run.inputs ? ": an unfinished run" : ""})` + (live ? ", not from the book's" : "") +
      (books.length ? `; the ${books.length} parts marked “the book's weights” stay the book's (facts over all ` +
                      `${run.inputs} inputs, or how the book's weights were made).` : ".")]),
    el("p", {}, [back]));
  if (live && !document.querySelector(".nano-follow")) {   // no letters to follow here: drawn again for the weights
    model().then((m) => redraw(nanoGpt.chapter(m, nanoGpt.exampleIds(m, exampleText())), true))
      .catch((e) => { note.firstChild.append(` (Your weights could not run: ${e.message}.)`); });
  }
  back.addEventListener("click", forget);
}

/** Back to the book's weights: the reader's dropped from storage. */
function forget() {
  try {
    sessionStorage.removeItem(WEIGHTS);
    sessionStorage.removeItem(WEIGHTS_ABOUT);
  } catch (e) { /* nothing was stored */ }
  location.reload();   // the page as the build wrote it: the book's weights
}

/** Where the note would be: why the stored weights are not followed, the
 *  page showing the book's numbers as built, and the way to drop them. */
function refusedNote(title, stored) {
  const why = checked.has(stored.id) ? checked.get(stored.id).problem : "the book's weights, to check them against, did not load";
  const back = el("button", { type: "button", class: "nano-button nano-weights-back", text: "Back to the book's weights" });
  const note = el("div", { class: "nano-weights-note nano-weights-refused", role: "note" });
  note.append(el("p", { class: "nano-message", text: `The weights kept for this chapter cannot be followed: ${why}. ` +
                                                     "This page shows the book's numbers." }), el("p", {}, [back]));
  lead(title).after(note);
  back.addEventListener("click", forget);
}

// ------------------------------------------------------------ a matrix is one Tab stop

const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
const CELL = "td.nano-cell[tabindex]";

/** The arrow keys move within a matrix (Home, End: to the ends of the
 *  row); the cell reached becomes the matrix's one Tab stop. */
function onMatrixKey(event) {
  const cell = event.target.closest && event.target.closest(CELL);
  if (!cell || event.altKey || event.ctrlKey || event.metaKey) return;
  const table = cell.closest("table"), row = cell.parentElement;
  let target = null;
  if (MOVES[event.key]) {
    const [dr, dc] = MOVES[event.key];
    let r = row.rowIndex + dr, c = cell.cellIndex + dc;
    while (r >= 0 && r < table.rows.length && c >= 0 && c < table.rows[r].cells.length) {
      const next = table.rows[r].cells[c];
      if (next.matches(CELL)) { target = next; break; }
      r += dr; c += dc;
    }
  } else if (event.key === "Home" || event.key === "End") {
    const cells = row.querySelectorAll(CELL);
    target = cells[event.key === "Home" ? 0 : cells.length - 1];
  }
  if (!target) return;
  event.preventDefault();
  target.focus();
}

function onMatrixFocus(event) {
  const cell = event.target.closest && event.target.closest(CELL);
  if (!cell) return;
  cell.closest("table").querySelectorAll(`${CELL}[tabindex="0"]`).forEach((c) => c.setAttribute("tabindex", "-1"));
  cell.setAttribute("tabindex", "0");
}

// once for the whole visit: the document outlives instant navigation's pages
document.addEventListener("keydown", onMatrixKey);
document.addEventListener("focusin", onMatrixFocus);

/** Each page view (book.js): the page's live parts, once their
 *  stylesheet is there (only nano-gpt's pages need it). */
function start() {
  return Promise.all([dom.stylesheet("../stylesheets/nanogpt.css"), checkFollowed()]).then(() => {
    count = 0;
    // a sorter that opens the page (right after its first paragraph, where the field to follow
    // would go) is that field too, where the page can follow letters
    const title = document.querySelector("article h1"), follows = followsLetters();
    document.querySelectorAll("[data-nano-sort]").forEach((root) => setUpSorter(root, follows && lead(title) === root));
    document.querySelectorAll("table[data-nano-full]").forEach(setUpMatrix);
    setUpFollow();
    setUpWeightsNote();
  });
}

export { start, followWeights };
