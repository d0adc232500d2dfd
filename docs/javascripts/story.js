// story.js: a page's code (data-module="story"): Home's story of the path
// (docs/index.md). Each paragraph of the story (.story-part) names the
// parts of the model's drawing it tells, in the drawing's own names
// (data-part="P X"). The paragraph that crosses the middle of the screen
// is the one told: its parts carry aria-current="step" and stand out, the
// others step back (home.css). The drawing lies above the story, out of
// view: a strip at the top of the screen shows a copy of the row of the
// drawing that holds the told part (hidden from screen readers, which
// have the drawing itself).

let observer = null;

/** Each page view (book.js): Home's story, if the page has one. */
function start() {
  if (observer) observer.disconnect();
  observer = null;
  const story = document.querySelector(".home-story"), figure = document.querySelector(".home-figure");
  if (!story || !figure || story.dataset.ready) return;
  story.dataset.ready = "1";
  const paragraphs = [...story.querySelectorAll(".story-part[data-part]")];
  const strip = document.createElement("div");
  strip.className = "story-band";
  strip.setAttribute("aria-hidden", "true");
  story.prepend(strip);
  let told = null;

  function tell(paragraph) {
    if (paragraph === told) return;
    told = paragraph;
    const names = paragraph ? paragraph.dataset.part.split(/\s+/) : [];
    paragraphs.forEach((p) => p.classList.toggle("is-told", p === paragraph));
    figure.querySelectorAll("[data-part]").forEach((part) => {
      if (names.includes(part.dataset.part)) part.setAttribute("aria-current", "step");
      else part.removeAttribute("aria-current");
    });
    for (const box of [figure, story]) box.classList.toggle("is-telling", paragraph !== null);
    showBand(strip, figure, names);
  }

  // a line across the middle of the screen: the paragraph on it is told;
  // above the first paragraph or below the last, none is
  observer = new IntersectionObserver((entries) => {
    const middle = innerHeight / 2;
    for (const e of entries) {
      if (e.isIntersecting) tell(e.target);
      else if (e.target === told) {
        const first = paragraphs[0].getBoundingClientRect(), last = paragraphs[paragraphs.length - 1].getBoundingClientRect();
        if (first.top > middle || last.bottom < middle) tell(null);
      }
    }
  }, { rootMargin: "-50% 0px -50% 0px" });
  paragraphs.forEach((p) => observer.observe(p));
  // another heads choice shows another drawing (path.js)
  document.querySelectorAll(".heads-chooser").forEach((chooser) => {
    chooser.addEventListener("change", () => showBand(strip, figure, told ? told.dataset.part.split(/\s+/) : []));
  });
}

/** A copy of the row of the drawing shown now that holds the first of
 *  `names` (its view cut to that row and, where the row is wider than the
 *  strip, to the strip's width around the told part, at full size), its
 *  told parts marked; no links and no names of its own. */
function showBand(strip, figure, names) {
  const part = [...figure.querySelectorAll("[data-part]")]
    .find((p) => p.dataset.part === names[0] && p.closest("svg").getClientRects().length);
  if (!part) return strip.replaceChildren();
  const row = part.closest(".parts-row").getBBox(), told = part.getBBox();
  // the strip spans the screen (fixed, left 0 right 0), though empty it has no width yet
  const room = Math.max(120, document.documentElement.clientWidth - 40), width = Math.min(row.width + 8, room);
  const middle = told.x + told.width / 2;
  const x = Math.max(row.x - 4, Math.min(middle - width / 2, row.x + row.width + 4 - width));
  const band = part.closest("svg").cloneNode(true);
  band.setAttribute("viewBox", `${x} ${row.y - 4} ${width} ${row.height + 8}`);
  band.setAttribute("width", String(Math.ceil(width)));
  band.setAttribute("height", String(Math.ceil(row.height + 8)));
  band.removeAttribute("role");
  band.removeAttribute("aria-label");
  band.querySelectorAll("[aria-current]").forEach((p) => {
    p.removeAttribute("aria-current");
    p.classList.add("is-told");
  });
  band.querySelectorAll("a").forEach((a) => a.replaceWith(...a.childNodes));
  strip.replaceChildren(band);
}

export { start };
