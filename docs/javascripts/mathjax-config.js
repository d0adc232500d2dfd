// mathjax-config.js: on every page (book.js imports it first): MathJax's
// settings (toycalc/site/publish_mathjax.py publishes MathJax itself).
//
// MathJax reads this before it loads: its script is added by load()
// below, on a page that needs it. Formulas are typeset from the
// \( \) and \[ \] that arithmatex leaves; TeX errors are recorded so the
// browser tests can tell a formula that failed.
//
// Only what the reader is about to see is typeset: a formula waits until
// it comes within a margin of the viewport. A closed step of the path, a
// hidden heads variant or a closed question is display:none, so its
// formulas wait until it is shown (and scrolled to). The first screen is
// typeset first, instead of after every formula of the page.
// the TeX errors of this visit, for the browser tests
const errors = [];

window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    formatError: (jax, err) => {
      errors.push(err.message);
      return jax.formatError(err);
    }
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  },
  startup: {
    typeset: false,  // typesetWhenSeen decides what, and when
    // as soon as MathJax has loaded (before the page's next script runs)
    ready: () => {
      // the fonts' @font-face rules are the site's fonts.css, there from the
      // page's start: written by MathJax at its first formula, they had
      // chromium lay the whole page out again (publish_mathjax.py)
      MathJax._.output.chtml.FontData.CHTMLFontData.prototype.addFontURLs = () => {};
      MathJax.startup.defaultReady();
      typesetOnScreen(document.querySelectorAll(".arithmatex"))
        .then(() => document.documentElement.removeAttribute("data-typeset-wait"));  // book.css shows the article
    },
    pageReady: () => MathJax.startup.defaultPageReady().then(typesetWhenSeen)
  }
};

// MathJax (160 KiB compressed, and its start) comes to a page only when
// it has formulas, or when a part of it makes some (nano-gpt's, for the
// reader's letters): a page without any, Home first, loads none. A page
// with formulas names the file in its head (overrides/main.html), so that
// its download starts with the page's. Formulas in a part shown only
// without JavaScript ([data-fallback], the Simulator's static path) do
// not count: the page's script shows that part, and calls load(), only
// when its own cannot start.
const SHOWN_FORMULA = ".arithmatex:not([data-fallback] *)";
const showsFormulas = () => document.querySelector(SHOWN_FORMULA) !== null;
let requested = false;
function load() {
  linkFontFaces();
  if (requested) return;
  requested = true;
  const script = document.createElement("script");
  script.src = new URL("mathjax/mathjax.js", import.meta.url).href;
  script.async = true;
  document.head.appendChild(script);
  // the fonts nearly every formula uses, beside it, rather than once the
  // first formula is laid out: loaded through their faces (fonts.css), not
  // preloaded by a <link>, which chromium lets hold the page's first paint
  // until they come (a phone's first paint 2 s later on the Simulator)
  for (const family of ["MJXZERO", "MJXTEX", "MJXTEX-I"]) document.fonts.load(`1em ${family}`);
}

// The fonts' @font-face rules (publish_mathjax.py), linked by the head of a
// page built with formulas; a page that makes them for the reader (nano-gpt's)
// may have none, and instant navigation takes a page's links with it.
const FONT_FACES = new URL("mathjax/fonts.css", import.meta.url).href;
function linkFontFaces() {
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((link) => link.href === FONT_FACES)) return;
  document.head.appendChild(Object.assign(document.createElement("link"), { rel: "stylesheet", href: FONT_FACES }));
}

// body[data-mathjax=done]: every formula seen so far is typeset.
function mark(state) {
  document.body.dataset.mathjax = state;
}

let seen = null;
function typesetWhenSeen() {
  if (seen) seen.disconnect();
  const formulas = document.querySelectorAll(".arithmatex");
  if (!formulas.length) return mark("done");
  // the whole book, to print: every formula now, since paper has no scrolling
  if (/\/print_page\/$/.test(location.pathname)) {
    typesetAll();  // chained after startup: returning it here would wait on itself
    return;
  }
  seen = new IntersectionObserver((entries, observer) => {
    const now = entries.filter((e) => e.isIntersecting).map((e) => e.target);
    now.forEach((el) => observer.unobserve(el));
    mark("busy");
    MathJax.startup.promise = MathJax.startup.promise
      .then(() => typesetInTurns(now))
      .then(() => mark("done"));
  }, { rootMargin: "50% 0px" });
  formulas.forEach((el) => seen.observe(el));
}

// A phone typesets a screen's formulas in about a second: in one task that
// would hold every tap meanwhile (Lighthouse's total blocking time). So
// they are set a few at a time, about TURN_MS of work, one turn a frame,
// after it is drawn: a scroll under way (a step of End to End opened out
// of sight glides to it) keeps its frames.
const TURN_MS = 10;
const afterNextFrame = () => new Promise((turn) => requestAnimationFrame(() => setTimeout(turn)));
async function typesetInTurns(formulas) {
  let next = 0;
  while (next < formulas.length) {
    const start = performance.now();
    while (next < formulas.length && performance.now() - start < TURN_MS) {
      const el = formulas[next++];
      // by its turn a formula may be typeset already, or gone (its part redrawn)
      if (el.isConnected && !el.querySelector("mjx-container")) MathJax.typeset([el]);
    }
    if (next < formulas.length) await afterNextFrame();
  }
}

// The formulas on the first screen are typeset first, as soon as MathJax
// has loaded, in turns as the others (in one go, they made MathJax's start
// one task of twice its length); until they are all typeset the article
// of a page with formulas is laid out but not shown from its first formula
// on (book.css, html[data-typeset-wait]). Shown earlier, each formula
// would grow from its TeX's box to its own and move the lines under it
// (the layout shift, #24). MathJax.typeset is synchronous: everything it
// needs is in the one script the site publishes.
function typesetOnScreen(formulas) {
  if (/\/print_page\/$/.test(location.pathname)) return Promise.resolve();  // typesetAll's
  const h = innerHeight;
  const near = [...formulas].filter((el) => {
    const r = el.getBoundingClientRect();
    return (r.width || r.height) && r.bottom > 0 && r.top < h;
  });
  return typesetInTurns(near);
}

// Material's instant navigation swaps the content without a reload: start
// again on each new page, as Material's own MathJax snippet does. The page
// MathJax loads on is pageReady's: clearing MathJax's cache there, as it
// typeset, took the characters' CSS from every formula already typeset
// (they kept their markup, with no width).
// MathJax starts with the page, not when a formula nears the screen: End
// to End's first step opened would wait for its start (a tenth of a second
// here, four times that on a phone) and not glide to the step.
if (showsFormulas()) load();   // the page being loaded
let firstView = true;
document$.subscribe(() => {
  const first = firstView;
  firstView = false;
  if (!requested) {   // every page so far without formulas
    if (showsFormulas()) load();   // its pageReady typesets this page
    else mark("done");
    return;
  }
  if (first) return;   // pageReady's
  if (!(window.MathJax && MathJax.typesetPromise)) return;  // MathJax not started yet: pageReady will
  if (showsFormulas()) linkFontFaces();
  mark("busy");
  MathJax.startup.promise = MathJax.startup.promise.then(() => {
    MathJax.startup.output.clearCache();
    MathJax.typesetClear();
    MathJax.texReset();
    typesetWhenSeen();
  });
});

function typesetAll() {
  if (seen) seen.disconnect();
  mark("busy");
  MathJax.startup.promise = MathJax.startup.promise
    .then(() => MathJax.typesetPromise([...document.querySelectorAll(".arithmatex")]))
    .then(() => mark("done"));
}

// A page printed from the browser: typeset what the reader has not scrolled to.
window.addEventListener("beforeprint", () => {
  if (window.MathJax && MathJax.typesetPromise) typesetAll();
});

export { errors, load };
