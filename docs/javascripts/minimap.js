// minimap.js: a page's code (data-module="minimap"): the "you are here"
// map under a chapter page's title (toycalc/book/minimap.py). On a phone,
// where all its bands would stand too tall, only those holding the page's
// parts show (figures.css); the button under them shows the whole map, and
// hides it again.

/** Each page view (book.js): the map's button, if the page has one. */
function start() {
  document.querySelectorAll(".minimap .map-whole:not([data-ready])").forEach((button) => {
    button.dataset.ready = "";
    button.addEventListener("click", () => {
      const whole = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(whole));
      button.previousElementSibling.classList.toggle("is-whole", whole);
    });
  });
}

export { start };
