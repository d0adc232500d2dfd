// light.js: on every page (book.js starts it): the model's drawing comes alive.
//
// The first time a reader sees the drawing of Home or of End to End in a
// visit, the path lights part by part, from the tokens to the prediction
// (about three seconds), then the prediction stands out. Any click, key
// or the drawing's "Skip" button stops it; it runs once per page and
// visit (sessionStorage). When a run draws the model again (End to End:
// another sentence, heads or weights, path.js), the cells whose number
// changed flash once (markChanged). Neither runs for a reader whose
// system asks for less motion, nor on paper (print.css shows every part),
// and neither moves anything: only colours and opacities change, and the
// button floats over the drawing.

const SEEN_KEY = "toycalc.lit:";
const STEP_MS = 3000;          // the whole path, from the tokens to the prediction
const ARRIVED_MS = 1600;       // the prediction standing out, after

const still = () => matchMedia("(prefers-reduced-motion: reduce)").matches || matchMedia("print").matches;

/** The drawing of the page that comes alive: End to End's path, Home's
 *  figure (of the heads shown: path.js has chosen them). */
function drawingOf(doc) {
  return [...doc.querySelectorAll("#path .path-figure, .home-figure figure[data-figure=model]")]
    .find((figure) => !figure.closest("[hidden]"));
}

/** The drawing's parts in the order the path goes through them (the
 *  tokens' labels, repeated in every band, first). */
function partsInOrder(figure) {
  const names = [];
  for (const part of figure.querySelectorAll("[data-part]")) {
    if (!names.includes(part.dataset.part)) names.push(part.dataset.part);
  }
  names.sort((a, b) => (b === "tokens") - (a === "tokens"));
  return names;
}

let running = null;   // the animation under way: { stop }

/** Each page view (book.js): the page's drawing lights, the first time. */
function start() {
  if (running) running.stop();
  const figure = drawingOf(document);
  if (!figure) return;
  followHeads(figure);
  if (still()) return;
  const key = SEEN_KEY + location.pathname;
  try { if (sessionStorage.getItem(key)) return; } catch (e) { return; }   // storage off: never, rather than always
  // when its top has come up a third of the screen (a phone's reader may scroll to it)
  const seen = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    try { sessionStorage.setItem(key, "1"); } catch (e) { /* private mode */ }
    running = lightUp(figure);
  }, { rootMargin: "0px 0px -35% 0px" });
  seen.observe(figure);
  running = { stop: () => seen.disconnect() };
}

/** The path lit part by part, then the prediction standing out. */
function lightUp(figure) {
  const names = partsInOrder(figure), timers = [];
  const skip = document.createElement("button");
  skip.type = "button";
  skip.className = "light-skip";
  skip.textContent = "Skip";
  skip.setAttribute("aria-label", "Skip the drawing's animation");
  figure.classList.add("is-lighting");
  figure.append(skip);
  const lit = (name) => figure.querySelectorAll(`[data-part="${name}"]`).forEach((p) => p.classList.add("is-lit"));
  names.forEach((name, k) => timers.push(setTimeout(() => lit(name), (k * STEP_MS) / names.length)));
  timers.push(setTimeout(() => {
    end();
    figure.classList.add("is-arrived");
    timers.push(setTimeout(() => figure.classList.remove("is-arrived"), ARRIVED_MS));
  }, STEP_MS));

  function end() {
    figure.classList.remove("is-lighting");
    figure.querySelectorAll(".is-lit").forEach((p) => p.classList.remove("is-lit"));
    skip.remove();
    removeEventListener("keydown", stop, true);
    removeEventListener("pointerdown", stop, true);
  }
  function stop() {
    timers.forEach(clearTimeout);
    end();
    figure.classList.remove("is-arrived");
  }
  skip.addEventListener("click", stop);
  addEventListener("keydown", stop, true);
  addEventListener("pointerdown", stop, true);
  return { stop };
}

/** Home draws a figure per heads choice: when the reader picks another
 *  (path.js shows it first), its cells that differ from the one shown
 *  before flash. End to End draws its runs again instead (path.js calls
 *  markChanged). */
function followHeads(figure) {
  if (figure.closest("#path")) return;
  let shown = figure;
  document.querySelectorAll(".heads-chooser").forEach((chooser) => chooser.addEventListener("change", () => {
    const now = drawingOf(document);
    if (now && now !== shown) markChanged(shown, now);
    shown = now;
  }));
}

/** What a mark says, split into what it is and its number ("p after ␣the
 *  (position 5), p(␣cat): 0.123": the part before the last ": " names it). */
function reading(mark) {
  const title = mark.querySelector(":scope > title");
  const text = title ? title.textContent : "";
  const at = text.lastIndexOf(": ");
  return at < 0 ? null : [text.slice(0, at), text.slice(at + 2)];
}

/** The marks of `drawn` whose number is not what `before` (the drawing it
 *  replaced, or its readings) showed for the same mark, or that it did not
 *  have (another token's row), flashed once. */
function markChanged(before, drawn) {
  if (still()) return;
  const old = before instanceof Map ? before : readings(before);
  if (!old.size) return;
  drawn.querySelectorAll(".cell-changed").forEach((mark) => mark.classList.remove("cell-changed"));
  void drawn.getBoundingClientRect();   // the class taken off is seen, so that a second flash runs
  for (const mark of drawn.querySelectorAll("rect, text")) {
    const r = reading(mark);
    if (r && old.get(r[0]) !== r[1]) mark.classList.add("cell-changed");
  }
}

/** Each mark's number by what it is, in a drawing. */
function readings(drawing) {
  const out = new Map();
  for (const mark of drawing.querySelectorAll("rect, text")) {
    const r = reading(mark);
    if (r) out.set(r[0], r[1]);
  }
  return out;
}

export { start, markChanged, readings };
