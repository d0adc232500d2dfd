// minimap.js: a page's code (data-module="minimap"): the "you are here"
// map under a chapter page's title (toycalc/book/minimap.py). Wider than
// the column (a phone), the map scrolls sideways as one piece: marked
// data-scrolls (figures.css shows a line saying so under it), and
// data-more while more of it is to the right (its right edge fades). Its
// Key opens for print, and closes again after, as the reader left it.

function mark(bands) {
  const scrolls = bands.scrollWidth > bands.clientWidth + 1;
  bands.toggleAttribute("data-scrolls", scrolls);
  bands.toggleAttribute("data-more", scrolls && bands.scrollLeft + bands.clientWidth < bands.scrollWidth - 1);
}

function markAll() {
  document.querySelectorAll(".minimap .map-bands").forEach(mark);
}

let listening = false;

/** Each page view (book.js): every map of the page (the toy's, one per heads choice). */
function start() {
  markAll();
  if (listening) return;
  listening = true;
  // a scroll does not bubble: caught on its way down, for a map put in later too (a heads choice)
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(".minimap .map-bands")) mark(event.target);
  }, { capture: true, passive: true });
  // a heads choice shows another map; a turned phone, another width
  addEventListener("resize", markAll);
  document.addEventListener("change", () => requestAnimationFrame(markAll));
  addEventListener("beforeprint", () => {
    document.querySelectorAll("details.map-key:not([open])").forEach((d) => { d.open = true; d.dataset.printed = ""; });
  });
  addEventListener("afterprint", () => {
    document.querySelectorAll("details.map-key[data-printed]").forEach((d) => { d.open = false; delete d.dataset.printed; });
  });
}

export { start };
