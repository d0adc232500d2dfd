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

let printing = false;

/** Each page view (book.js): every map of the page (the toy's one per heads choice). */
function start() {
  const all = () => document.querySelectorAll(".minimap .map-bands");
  all().forEach((bands) => {
    if (bands.dataset.ready !== undefined) return;
    bands.dataset.ready = "";
    bands.addEventListener("scroll", () => mark(bands), { passive: true });
    mark(bands);
  });
  if (!start.listening) {
    start.listening = true;
    // a heads choice shows another map; a turned phone, another width
    addEventListener("resize", () => all().forEach(mark));
    document.addEventListener("change", () => requestAnimationFrame(() => all().forEach(mark)));
    addEventListener("beforeprint", () => {
      document.querySelectorAll("details.map-key:not([open])").forEach((d) => { d.open = true; d.dataset.printed = ""; });
      printing = true;
    });
    addEventListener("afterprint", () => {
      if (!printing) return;
      document.querySelectorAll("details.map-key[data-printed]").forEach((d) => { d.open = false; delete d.dataset.printed; });
      printing = false;
    });
  }
}

export { start };
