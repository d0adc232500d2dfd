// tips.js: on every page (book.js starts it): the words behind a mark or a
// term, in a small box beside it.
//
// A figure's mark says its number in its SVG <title>, a nano-gpt cell in
// its title attribute: text that the build or the page's script wrote,
// which a screen reader reads and the tests read. The book shows it in a
// small box beside the mark, the same box however the mark is reached: a
// mouse pointing at it (at once, in the same frame, until the pointer
// leaves it), a tap (until the next tap, a scroll or another page), the
// keyboard's focus (the box follows its mark as the page scrolls). While a
// mouse points at a mark, the mark and the elements around it hold no
// title (each <title> is taken out, each title attribute set aside, and
// put back when the pointer leaves): the browser's own tooltip, which
// reads them after its delay, would show the words a second time, over the
// box. A glossary term (an <abbr>, its line in its title) shows its line
// in the same box when a mouse points at it, a tap, or the keyboard's
// focus (its first use on a page is a tab stop), as the glossary page
// says; its title then moves to data-title for good.
// No number is made here: the words are the title's.
//
// The listeners are the document's: nothing is set up per mark or term at a
// page's load (Material's tooltips, one per term, made a tenth of its start).
let tip = null, leaving = 0, pointed = null;
const TIP_ID = "term-tip";

/** A glossary term under `node`, or null. */
function termOf(node) {
  const term = node && node.nodeType === 1 ? node.closest("abbr[title], abbr[data-title]") : null;
  if (!term) return null;
  if (term.hasAttribute("title")) {   // its words move to data-title: the browser's tooltip would repeat them
    term.dataset.title = term.getAttribute("title");
    term.removeAttribute("title");
  }
  return { node: term, text: term.dataset.title, term: true };
}

/** The mark under `node` that has a title: an SVG element of a figure with
 *  a <title> child, or a nano-gpt cell; or a glossary term. */
function markOf(node) {
  for (let n = node; n && n.nodeType === 1; n = n.parentNode) {
    if (pointed && n === pointed.node) return { node: n, text: pointed.text };   // its titles set aside
    if (n.matches("td.nano-cell[title]")) return { node: n, text: n.getAttribute("title") };
    if (n instanceof SVGElement && n.closest("svg.fig")) {
      const title = [...n.children].find((c) => c.tagName.toLowerCase() === "title");
      if (title && title.textContent.trim()) return { node: n, text: title.textContent.trim() };
    } else if (!(n instanceof SVGElement)) {
      return termOf(node);
    }
  }
  return null;
}

/** The mark a mouse points at: its titles, and those of the elements
 *  around it, set aside (the browser's tooltip reads the nearest), so that
 *  only the book's box shows the words; `aside` keeps what to put back. */
function point(mark) {
  if (pointed && pointed.node === mark.node) return;
  unpoint();
  const aside = [];
  for (let n = mark.node; n && n.nodeType === 1; n = n.parentNode) {
    if (n.hasAttribute("title")) {
      aside.push({ node: n, attribute: n.getAttribute("title") });
      n.removeAttribute("title");
    }
    if (n instanceof SVGElement) {
      for (const c of [...n.children]) {
        if (c.tagName.toLowerCase() !== "title") continue;
        aside.push({ node: n, title: c, before: c.nextSibling });
        c.remove();
      }
    }
  }
  pointed = { node: mark.node, text: mark.text, aside };
}

/** The titles set aside put back where they were (unless the page's
 *  script wrote the element's words again meanwhile). */
function unpoint() {
  if (!pointed) return;
  for (const { node, attribute, title, before } of pointed.aside.reverse()) {
    if (title) node.insertBefore(title, before && before.parentNode === node ? before : null);
    else if (!node.hasAttribute("title")) node.setAttribute("title", attribute);
  }
  pointed = null;
}

function hide() {
  clearTimeout(leaving);
  if (!tip) return;
  if (tip.id === TIP_ID) tip.mark.removeAttribute("aria-describedby");   // the term it described
  tip.remove();
  tip = null;
}

/** The words in a box beside the mark. */
function show(mark) {
  if (tip && tip.mark === mark.node) {   // already shown: it stays
    clearTimeout(leaving);
    return;
  }
  hide();
  tip = document.createElement("div");
  tip.mark = mark.node;
  tip.className = mark.term ? "fig-tip term-tip" : "fig-tip";
  if (mark.term) {
    // a term's line describes it (a screen reader says it after the term)
    tip.id = TIP_ID;
    tip.setAttribute("role", "tooltip");
    mark.node.setAttribute("aria-describedby", TIP_ID);
  } else {
    tip.setAttribute("role", "status");
  }
  tip.textContent = mark.text;
  // in the page's main landmark, as the words it shows are
  (document.querySelector("main") || document.body).append(tip);
  place();
}

/** The box under its mark (above it when the screen ends there). */
function place() {
  const r = tip.mark.getBoundingClientRect(), w = tip.offsetWidth, h = tip.offsetHeight;
  const left = Math.max(4, Math.min(r.left + r.width / 2 - w / 2, document.documentElement.clientWidth - w - 4));
  const below = r.bottom + 6 + h < innerHeight;
  // placed from the box it is positioned in (the page's, if none of main's ancestors is)
  const from = tip.offsetParent && tip.offsetParent !== document.body
    ? tip.offsetParent.getBoundingClientRect() : { left: -scrollX, top: -scrollY };
  tip.style.left = `${left - from.left}px`;
  // inside the screen, both ways (a phone's 375 px too)
  const top = Math.max(4, Math.min(below ? r.bottom + 6 : r.top - h - 6, innerHeight - h - 4));
  tip.style.top = `${top - from.top}px`;
}

// a tap: a pointer that is a finger or a pen (a mouse shows the box as it points)
document.addEventListener("pointerup", (event) => {
  if (event.pointerType === "mouse") return;
  const mark = markOf(event.target);
  if (mark) show(mark);
  else if (!(tip && tip.contains(event.target))) hide();
});
// a mouse over a mark or a term: its box at once (the browser reads a
// title for its tooltip after this event's listeners have run, so the
// titles set aside here are not shown); a term's box stays while the
// pointer moves onto it.
document.addEventListener("pointerover", (event) => {
  if (event.pointerType !== "mouse") return;
  if (pointed && !pointed.node.contains(event.target)) {   // left without a pointerout: redrawn under the pointer
    if (tip && tip.mark === pointed.node) hide();
    unpoint();
  }
  const mark = markOf(event.target);
  if (mark && !mark.term) point(mark);
  if (mark) show(mark);
  else if (tip && tip.contains(event.target)) clearTimeout(leaving);
});
document.addEventListener("pointerout", (event) => {
  if (event.pointerType !== "mouse") return;
  if (pointed && !pointed.node.contains(event.relatedTarget)) {   // off the mark a mouse pointed at
    if (tip && tip.mark === pointed.node) hide();
    unpoint();
  }
  if (!tip || !tip.classList.contains("term-tip")) return;
  if (tip.contains(event.relatedTarget) || tip.mark.contains(event.relatedTarget)) return;
  clearTimeout(leaving);
  leaving = setTimeout(hide, 250);
});
document.addEventListener("focusin", (event) => {
  const mark = markOf(event.target);
  if (mark && event.target.matches(":focus-visible")) show(mark);
});
// the focus leaving the mark shown (a tap's focus moves after its pointerup,
// from the term tapped before)
document.addEventListener("focusout", (event) => {
  if (!tip || !tip.mark.contains(event.target)) return;
  if (!event.relatedTarget || !markOf(event.relatedTarget)) hide();
});
// Escape closes it, without moving the pointer or the focus
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") hide();
});
// A scroll takes a tap's or a mouse's box away. The keyboard's box stays
// with its mark while the mark is on the screen: moving the focus with the
// arrow keys to a mark out of view scrolls the page to it.
addEventListener("scroll", () => {
  if (!tip) return;
  const focused = document.activeElement;
  const r = tip.mark.getBoundingClientRect();
  if (focused && tip.mark.contains(focused) && focused.matches(":focus-visible")
      && r.bottom > 0 && r.top < innerHeight) place();
  else hide();
}, { passive: true });

// The listeners above are the document's, set once (a module runs once);
// each page view (book.js) takes the last page's tip away.
function start() {
  hide();
  unpoint();
}

export { start };
