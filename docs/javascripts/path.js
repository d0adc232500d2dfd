// path.js: on every page (book.js starts it): the path of End to End (toycalc/book/path.py
// writes it) and the heads chooser of every page with one.
//
// Without this script every step is shown and the default heads count is
// printed; with it, one step opens at a time (its number in the URL, as
// #step-6), its panel under the drawing, and the chooser switches every
// heads-dependent number at once (the drawing is redrawn by the simulator's
// run, with model_drawing.js).
// Material's instant navigation swaps pages without reloading: book.js
// calls start on each page view, and it is safe to run twice.
import * as light from "./light.js";

// localStorage: the heads count the reader chose, on every page (the only
// place that names it: the browser tests read it from here)
const HEADS_KEY = "toycalc.heads";

/** Every heads-dependent part of the page as `heads` gives it: a block
 *  variant whose content the build left in a <template> (render.by_heads)
 *  gets it the first time it is chosen, then is shown and hidden as the others. */
function showHeads(heads) {
  putIn(`.heads-variant[data-heads="${heads}"] > template.heads-later`);
  document.querySelectorAll(".heads-variant").forEach((el) => {
    el.hidden = el.dataset.heads !== heads;
  });
  document.querySelectorAll(".heads-chooser input").forEach((input) => {
    input.checked = input.value === heads;
  });
  try { localStorage.setItem(HEADS_KEY, heads); } catch (e) { /* private mode */ }
}

/** The waiting variants `selector` finds (in `root`), put in the page. */
function putIn(selector, root = document) {
  const waiting = root.querySelectorAll(selector);
  waiting.forEach((t) => t.replaceWith(t.content));
  if (waiting.length) fixMaterialA11y();   // their formulas and tables, as the page's own
}

/** What the build left in a <noscript> `holder` (shown as it is without
 *  JavaScript; with it, its markup is one text node), put in the page in
 *  its place. A page instant navigation fetched was parsed by a parser
 *  that runs no script: its <noscript> holds elements, moved out as they are. */
function putInHeld(holder) {
  if (holder.firstElementChild) {
    holder.replaceWith(...holder.childNodes);
  } else {
    const parsed = document.createElement("template");
    parsed.innerHTML = holder.textContent;   // our own markup (path.py, chapter.py)
    holder.replaceWith(parsed.content);
  }
  fixMaterialA11y();   // its formulas and tables, as the page's own
}

/** The heads count the page's chooser shows (null on a page without one). */
function chosenHeads() {
  const input = document.querySelector(".heads-chooser input:checked");
  return input ? input.value : null;
}

/** A step's panel with its content in the page (path.py keeps it in a
 *  <noscript> until the step first opens), showing the heads chosen. */
function putInPanel(panel) {
  const holder = panel && panel.querySelector(":scope > noscript.step-later");
  if (!holder) return;
  putInHeld(holder);
  const heads = chosenHeads();
  if (!heads) return;
  putIn(`.heads-variant[data-heads="${heads}"] > template.heads-later`, panel);
  panel.querySelectorAll(".heads-variant").forEach((el) => { el.hidden = el.dataset.heads !== heads; });
}

/** Every heads choice's variants in the page, for a script that changes
 *  them all (toy_training.js follows the reader's weights in each). */
function putInEveryChoice() {
  putIn("template.heads-later");
}

function setUpChoosers() {
  const choosers = document.querySelectorAll(".heads-chooser");
  choosers.forEach((chooser) => {
    chooser.hidden = false;
    if (chooser.dataset.ready) return;
    chooser.dataset.ready = "1";
    chooser.addEventListener("change", (event) => showHeads(event.target.value));
  });
  let stored = null;
  try { stored = localStorage.getItem(HEADS_KEY); } catch (e) { /* private mode */ }
  // the choices offered: the chooser's, or on a page without one (the
  // toy's first pages, whose map has a variant per choice) the variants'
  const offered = choosers.length ? [...choosers[0].querySelectorAll("input")].map((i) => i.value)
    : [...document.querySelectorAll(".heads-variant")].map((v) => v.dataset.heads);
  if (stored && offered.includes(stored)) showHeads(stored);
}

// The window's events go to the path of the page shown: instant navigation
// keeps the window (and this module) from page to page, so they are
// listened to once, here, not once per visit to End to End.
let shown = null;   // the shown page's path: { fromHash }, or null
addEventListener("hashchange", () => shown && shown.fromHash());
// printed, every step is laid open (print.css)
addEventListener("beforeprint", () => {
  document.querySelectorAll(".path-panel").forEach(putInPanel);
  document.querySelectorAll("details.drawing-key").forEach((key) => { key.open = true; });
  document.querySelectorAll("noscript.near-later").forEach(putInHeld);
});

function setUpPath() {
  const path = document.getElementById("path");
  if (!path) shown = null;
  if (!path || path.dataset.ready) return;
  path.dataset.ready = "1";   // book.css: one step open at a time from now on
  // the print page lays every step open (print.css)
  if (document.getElementById("print-site-page")) path.querySelectorAll(".path-panel").forEach(putInPanel);
  const figure = path.querySelector(".path-figure");
  let current = null;   // the open step's number, as a string

  // Every mark of a step (its bars, its parts) and its panel say whether it is open.
  function mark() {
    path.querySelectorAll("[data-step]").forEach((el) => el.classList.toggle("is-open", el.dataset.step === current));
    path.querySelectorAll("[role=button][data-step]").forEach((b) => {
      b.setAttribute("aria-expanded", String(b.dataset.step === current));
    });
    path.querySelectorAll(".path-panel").forEach((p) => p.classList.toggle("is-open", p.id === `step-${current}`));
  }

  function open(n, scroll) {
    current = n;
    putInPanel(n && document.getElementById(`step-${n}`));
    mark();
    const hash = n ? `#step-${n}` : "";
    if (location.hash !== hash) {
      history.replaceState(history.state, "", location.pathname + location.search + hash);
    }
    const panel = n && document.getElementById(`step-${n}`);
    if (panel && scroll) panel.scrollIntoView({ block: "start" });
    else if (panel) keepInView(figure, panel);
  }

  const toggle = (n) => open(n === current ? null : n, false);

  // a step is a region of the drawing: a click anywhere in it, or Enter
  // or Space on its numbered bar (the part of it that takes the focus)
  // (on the way down: the step is open before the simulator hears the click)
  figure.addEventListener("click", (event) => {
    const region = event.target.closest("[data-step]");
    if (region) toggle(region.dataset.step);
  }, true);
  figure.addEventListener("keydown", (event) => {
    const button = event.target.closest("[role=button][data-step]");
    if (!button || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    toggle(button.dataset.step);
  });

  function fromHash() {
    const m = /^#step-([1-9])$/.exec(location.hash);
    if (m) open(m[1], true);
  }
  shown = { fromHash };
  fromHash();

  followRuns(path, figure, mark);
}

/** A step opened under the drawing: the page scrolls, if it must, so that
 *  the drawing's top and the panel's title are both on the screen (the
 *  panel lies right under the drawing); it glides there, or jumps for a
 *  reader whose system asks for less motion. Where the screen is too short
 *  for both (a phone), the panel's title comes first. */
function keepInView(figure, panel) {
  const header = document.querySelector(".md-header"), top = header ? header.getBoundingClientRect().bottom : 0;
  const title = panel.querySelector(".path-title:not([hidden] *)") || panel;
  const drawingTop = figure.getBoundingClientRect().top, titleBottom = title.getBoundingClientRect().bottom;
  if (drawingTop >= top && titleBottom <= innerHeight) return;
  let by = drawingTop - top - 8;
  if (titleBottom - by > innerHeight) by = panel.getBoundingClientRect().top - top - 8;
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  scrollBy({ top: by, behavior: still ? "instant" : "smooth" });
}

/** The simulator's runs (simulator.js): the drawing is the run's. The
 *  build drew the book's sentence with the default heads; any other run
 *  is drawn here by model_drawing.js, in the same place and markup,
 *  fetched the first time it is needed (a reader who changes nothing
 *  does not download it). mark: puts the open step back on the marks. */
function followRuns(path, figure, mark) {
  let drawn = "book", last = null;
  function redraw() {
    const run = last;
    figure.classList.toggle("is-stale", !run.tr);   // a sentence that cannot run: the last drawing, greyed
    if (!run.tr) return;
    const key = run.book && String(run.heads) === figure.dataset.heads ? "book"
      : [run.weights, run.heads, run.temperature, ...run.tr.ids].join(" ");
    if (key === drawn) return;
    if (!drawing.modelSvg) return loadDrawing().then(redraw);
    drawn = key;
    const focused = figure.contains(document.activeElement) ? document.activeElement.id : "";
    const tokens = Array.from(run.tr.ids, (i) => drawing.show(run.vocab[i]));
    const before = light.readings(figure.querySelector(".model-bands"));
    figure.querySelector(".model-bands").outerHTML = drawing.modelSvg(run.tr, tokens, run.vocab, {}, [], 1, true);
    light.markChanged(before, figure.querySelector(".model-bands"));   // the numbers that changed flash once
    mark();
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  }
  path.addEventListener("toycalc:run", (event) => {
    last = event.detail;
    redraw();
  });
}

// model_drawing.js and gpt.js's show, imported the first time a run
// differs from the book's
const drawing = { modelSvg: null, show: null, loading: null };

function loadDrawing() {
  drawing.loading = drawing.loading || Promise.all([import("./model_drawing.js"), import("./gpt.js")])
    .then(([m, gpt]) => Object.assign(drawing, { modelSvg: m.modelSvg, show: gpt.show }));
  return drawing.loading;
}

// Two fixes for axe, to Material's markup: the search dialog has no
// name, and a table too wide for the screen scrolls but takes no focus.
function fixMaterialA11y() {
  document.querySelectorAll(".md-search[role=dialog]:not([aria-label])").forEach((el) => {
    el.setAttribute("aria-label", "Search");
  });
  document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset div.arithmatex").forEach((el) => {
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
  });
}

// A part far down a page (the writer's heads' maps) waits in a <noscript>
// until the reader scrolls within a screen of it: its box, empty, is watched.
const nearby = typeof IntersectionObserver === "function"
  ? new IntersectionObserver((entries) => entries.forEach((entry) => {
    if (!entry.isIntersecting) return;
    nearby.unobserve(entry.target);
    entry.target.querySelectorAll(":scope > noscript.near-later").forEach(putInHeld);
  }), { rootMargin: "100% 0px" })
  : null;

function setUpNearLater() {
  document.querySelectorAll("noscript.near-later").forEach((holder) => {
    if (nearby && !document.getElementById("print-site-page")) nearby.observe(holder.parentElement);
    else putInHeld(holder);
  });
}

/** A figure drawn a block at a time (the writer's heads: book/writer/
 *  chapter.py): its chooser, just before it, shows the block picked, put in
 *  the page from its <template> the first time. */
function setUpBlockChoosers() {
  document.querySelectorAll(".block-chooser").forEach((chooser) => {
    chooser.hidden = false;
    if (chooser.dataset.ready) return;
    chooser.dataset.ready = "1";
    const figure = chooser.nextElementSibling, shown = figure.querySelector(".block-shown");
    chooser.addEventListener("change", (event) => {
      const block = event.target.value;
      putIn(`:scope > [data-block="${block}"] > template.block-later`, figure);
      figure.querySelectorAll(":scope > [data-block]").forEach((part) => { part.hidden = part.dataset.block !== block; });
      if (shown) shown.textContent = block;
    });
  });
}

/** Each page view (book.js). */
function start() {
  setUpChoosers();
  setUpBlockChoosers();
  setUpNearLater();
  setUpPath();
  fixMaterialA11y();
}

export { start, putInEveryChoice, HEADS_KEY };
