// tips.js: on every page (book.js starts it): a mark's number on a touch screen.
//
// A figure's mark says its number in its SVG <title>, a nano-gpt cell in
// its title attribute: the browser shows them when a mouse points at the
// mark, never on a tap. Here a tap on such a mark (or the keyboard's focus
// on one) shows the same words in a small box beside it, until the next
// tap, a scroll or another page. No number is made here: the words are the
// title's, as the build or the page's script wrote them. And a chapter's
// map, on a phone a row to swipe, opens on the page's part.
let tip = null;

/** The mark under `node` that has a title: an SVG element of a figure with
 *  a <title> child, or a nano-gpt cell. */
function markOf(node) {
  for (let n = node; n && n.nodeType === 1; n = n.parentNode) {
    if (n.matches("td.nano-cell[title]")) return { node: n, text: n.getAttribute("title") };
    if (n instanceof SVGElement && n.closest("svg.fig")) {
      const title = [...n.children].find((c) => c.tagName.toLowerCase() === "title");
      if (title && title.textContent.trim()) return { node: n, text: title.textContent.trim() };
    } else if (!(n instanceof SVGElement)) {
      return null;
    }
  }
  return null;
}

function hide() {
  if (tip) tip.remove();
  tip = null;
}

/** The words in a box under the mark (above it when the screen ends there). */
function show(mark) {
  hide();
  tip = document.createElement("div");
  tip.className = "fig-tip";
  tip.setAttribute("role", "status");
  tip.textContent = mark.text;
  document.body.append(tip);
  const r = mark.node.getBoundingClientRect(), w = tip.offsetWidth, h = tip.offsetHeight;
  const left = Math.max(4, Math.min(r.left + r.width / 2 - w / 2, document.documentElement.clientWidth - w - 4));
  const below = r.bottom + 6 + h < innerHeight;
  tip.style.left = `${left + scrollX}px`;
  tip.style.top = `${(below ? r.bottom + 6 : r.top - h - 6) + scrollY}px`;
}

// a tap: a pointer that is a finger or a pen (a mouse has the browser's own tooltip)
document.addEventListener("pointerup", (event) => {
  if (event.pointerType === "mouse") return;
  const mark = markOf(event.target);
  if (mark) show(mark);
  else if (!(tip && tip.contains(event.target))) hide();
});
document.addEventListener("focusin", (event) => {
  const mark = markOf(event.target);
  if (mark && event.target.matches(":focus-visible")) show(mark);
});
document.addEventListener("focusout", (event) => {
  if (!event.relatedTarget || !markOf(event.relatedTarget)) hide();
});
addEventListener("scroll", hide, { passive: true });

/** A chapter's map that the reader swipes through (on a phone, figures.css)
 *  opens on the page's part, as a tap on a mark opens its number; a
 *  keyboard reaches it (a region of its own: Tab, then the arrows). */
function openMaps() {
  if (!matchMedia("(max-width: 37.4375em)").matches) return;   // a wide screen: the bands wrap
  document.querySelectorAll(".minimap .map-bands").forEach((row) => {
    Object.entries({ tabindex: "0", role: "region", "aria-label": "The model's map, in a row to scroll sideways" })
      .forEach(([name, value]) => row.setAttribute(name, value));
    const here = row.querySelector("g.here");
    if (here && row.scrollWidth > row.clientWidth) {   // hidden (a heads choice not made): it has no width
      row.scrollLeft += here.closest("svg").getBoundingClientRect().left - row.getBoundingClientRect().left;
    }
  });
}

// The listeners above are the document's, set once (a module runs once);
// each page view (book.js) takes the last page's tip away and opens the maps on their part.
function start() {
  hide();
  openMaps();
}

export { start };
