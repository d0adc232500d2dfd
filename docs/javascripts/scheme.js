// scheme.js: on every page (book.js starts it): the header's toggle between
// the light scheme and the dark
// (overrides/partials/palette.html, Material's inputs and labels without
// its palette component, whose work at every load cost a recalculation of
// every element's style). A choice is kept where Material keeps it, for
// its partials/javascripts/palette.html to apply before the next page's
// first paint.

const SCHEME_KEYS = ["media", "scheme", "primary", "accent"];

/** The scheme of `input` (one of the toggle's radio inputs) on the page, and kept. */
function choose(input) {
  const form = input.form, inputs = [...form.querySelectorAll("input")];
  const color = Object.fromEntries(SCHEME_KEYS.map((key) => [key, input.getAttribute(`data-md-color-${key}`)]));
  for (const key of SCHEME_KEYS.slice(1)) document.body.setAttribute(`data-md-color-${key}`, color[key]);
  for (const label of form.querySelectorAll("label")) label.hidden = label.previousElementSibling !== input;
  const meta = document.querySelector("meta[name=color-scheme]");
  if (meta) meta.content = color.scheme === "slate" ? "dark" : "light";   // Material's CSS: slate is dark
  __md_set("__palette", { index: inputs.indexOf(input), color });
}

let listening = false;

/** Each page view: the toggle listened to, once a visit (instant
 *  navigation keeps the header and its toggle). */
function start() {
  if (listening) return;
  listening = true;
  document.addEventListener("change", (event) => {
    if (event.target.matches("[data-scheme-toggle] input")) choose(event.target);
  });
}

export { start };
