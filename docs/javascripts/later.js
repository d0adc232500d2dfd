// later.js: a page helper, no Python twin: what the reader sees first is
// built first (for simulator.js).
//
// A run redraws every table and figure, but the reader sees a screenful
// of them. The parts on the screen are built in the same frame; the
// others when they come within half a screen of it (so, scrolling, before
// they are seen) or when the browser is idle, whichever is first, a few
// at a time. Until then a deferred table or figure is an empty box of its
// last height (no stale number is shown as current), and a deferred
// drawing on a path button keeps its last drawing, dimmed (class
// sim-pending on both). On a phone a task of more than about 12 ms holds
// a tap (Lighthouse's total blocking time counts four times its length
// over 50 ms): so does a first run that builds every part, or an idle
// turn that fills the whole of an idle period.

import * as dom from "./dom.js";

const { el, patchInto } = dom;

const fills = new Map();  // node -> what fills it
let near = null, idle = 0;
const TURN_MS = 8;         // an idle turn's building, at most (a part started is finished)
const GUESSED_PX = 320;    // a part never laid out waits in a box this tall
const whenIdle = typeof requestIdleCallback === "function"
  ? (f) => requestIdleCallback(f, { timeout: 250 })
  : (f) => setTimeout(() => f({ timeRemaining: () => 10 }), 20);

/** What fills `node`, now (if it is still on the page). */
function run(node) {
  const fill = fills.get(node);
  if (!fill) return;
  drop(node);
  if (node.isConnected) fill();
}

/** `node` is no longer to be filled. */
function drop(node) {
  if (fills.delete(node) && near) near.unobserve(node);
}

/** Fill what waits when the browser is idle, a little at a time. */
function schedule() {
  if (idle || !fills.size) return;
  idle = whenIdle((deadline) => {
    idle = 0;
    const start = performance.now();
    for (const node of [...fills.keys()]) {
      run(node);
      if (deadline.timeRemaining() < 4 || performance.now() - start > TURN_MS) break;
    }
    schedule();
  });
}

/** fill() when `node` nears the screen or the browser is idle. */
function defer(node, fill) {
  near = near || new IntersectionObserver((entries) => entries.forEach((e) => {
    if (e.isIntersecting) run(e.target);
  }), { rootMargin: "50% 0px" });
  fills.set(node, fill);
  near.observe(node);
  schedule();
}

/** Everything deferred, now (or only what is inside `within`). */
function flush(within) {
  for (const node of [...fills.keys()]) if (!within || within.contains(node)) run(node);
}

/** How many parts wait (tests/browser/test_simulator_speed_browser.py). */
const pending = () => fills.size;

/** A block of figures: markup from draw.js, which escapes every text. */
function drawn(markup) {
  const node = el("div", { class: "sim-figures" });
  node.drawing = markup;  // written by showParts: into this node, or patched into the last one
  return node;
}

/** Where the parts of each box are, read before the run writes anything
 *  (one layout, no read between writes). A box that now shows a message
 *  or is hidden keeps where its parts were when last seen. Sets box.near:
 *  for each part, whether it is on the screen. */
function survey(boxes, singles) {
  const y = scrollY, h = innerHeight;
  const isNear = (top, height) => top < h && top + height > 0;
  for (const box of boxes) {
    if (!box.dataset.message) {
      const seen = [];
      for (const child of box.children) {
        const r = child.getBoundingClientRect();
        if (!r.width && !r.height) { seen.length = 0; break; }
        seen.push({ top: r.top + y, height: r.height });
      }
      if (seen.length) box.seen = seen;
    }
    box.near = (box.seen || []).map((s) => isNear(s.top - y, s.height));
  }
  for (const node of singles || []) {  // a drawing, placed by its button (it may be hidden)
    const r = node.parentNode.getBoundingClientRect();
    node.near = isNear(r.top, r.height);
  }
}

/** A run's parts into `box`: those on the screen (or of unknown place)
 *  built now, the others deferred (see `later`). Each part has a slot of
 *  its own in the box (div.sim-part), and a part is replaced within its
 *  slot: the box's own children then stay as they are, for a change
 *  among them would have the browser restyle every part after it (the
 *  figures too, thousands of elements, when a table after them is
 *  deferred). */
function showParts(box, parts) {
  if (box.dataset.message) {
    delete box.dataset.message;
    box.replaceChildren();
  }
  for (const slot of box.children) drop(slot.firstChild);
  const near = box.near || [];
  const build = (make, was) => {
    const node = make();
    if (node.drawing === undefined) return node;
    // a drawing: into the one there if it is one (see patchInto)
    const into = was && was.drawing !== undefined ? was : node;
    patchInto(into, node.drawing);
    into.drawing = node.drawing;
    return into;
  };
  while (box.children.length > parts.length) box.lastChild.remove();
  while (box.children.length < parts.length) box.append(el("div", { class: "sim-part" }));
  parts.forEach((make, i) => {
    const slot = box.children[i], was = slot.firstChild;
    let node;
    if (near[i] !== false) node = build(make, was);
    else {
      node = el("div", { class: "sim-pending", "aria-busy": "true" });
      node.style.height = `${box.seen[i].height}px`;
      const hold = node;
      defer(hold, () => hold.replaceWith(build(make)));
    }
    // the nodes kept stay in place: moving them would rebuild them
    if (!was) slot.append(node);
    else if (node !== was) was.replaceWith(node);
  });
}

/** The parts of boxes new to the page (a first run), in order: a box that
 *  starts on the screen has its parts built now (one layout read a box,
 *  up to the first that does not); the parts of the boxes from there on
 *  wait (see `defer`), each in a box GUESSED_PX tall. The Simulator's
 *  steps lie under its controls, below a phone's first screen: its first
 *  run builds none of them, and the first comes in a task of its own, as
 *  it is near. */
function showFirst(boxes, partsOfBoxes) {
  let onScreen = true;
  boxes.forEach((box, k) => {
    const parts = partsOfBoxes[k];
    onScreen = onScreen && box.getBoundingClientRect().top < innerHeight;
    box.near = onScreen ? null : parts.map(() => false);
    box.seen = onScreen ? null : parts.map(() => ({ height: GUESSED_PX }));
    showParts(box, parts);
  });
}

/** A drawing's markup into `node`, now if its button is on the screen,
 *  else when the button nears it (the drawing itself may be hidden, empty);
 *  the markup is written only if it changed. */
function showDrawing(node, markup) {
  const button = node.parentNode;
  const write = () => {
    node.classList.remove("sim-pending");
    const text = typeof markup === "function" ? markup() : markup;
    patchInto(node, text);
  };
  drop(button);
  if (node.near === false && typeof markup === "function") {
    node.classList.add("sim-pending");
    defer(button, write);
  } else write();
}

export { defer, drop, flush, pending, drawn, survey, showParts, showFirst, showDrawing };
