// mathjax-config.js: on every page (book.js imports it first): MathJax's
// settings (toycalc/site/publish_mathjax.py publishes MathJax itself).
//
// MathJax reads this before it loads: book.js is a module, which runs
// before the deferred MathJax script after it in the page (mkdocs.yml). Formulas are typeset from the
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
      MathJax.startup.defaultReady();
      typesetOnScreen(document.querySelectorAll(".arithmatex"));
      document.documentElement.classList.add("typeset-first");  // book.css shows the article
    },
    pageReady: () => MathJax.startup.defaultPageReady().then(typesetWhenSeen)
  }
};

// The fonts nearly every formula uses are fetched now, beside MathJax,
// rather than once the first formula is laid out.
if (document.querySelector(".arithmatex")) {
  for (const name of ["Zero", "Main-Regular", "Math-Italic"]) {
    const link = document.createElement("link");
    Object.assign(link, { rel: "preload", as: "font", type: "font/woff", crossOrigin: "anonymous",
      href: new URL(`mathjax/output/chtml/fonts/woff-v2/MathJax_${name}.woff`, import.meta.url).href });
    document.head.appendChild(link);
  }
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
      .then(() => {
        // by its turn a formula may be typeset already, or gone (its part redrawn)
        const todo = now.filter((el) => el.isConnected && !el.querySelector("mjx-container"));
        return todo.length && MathJax.typesetPromise(todo);
      })
      .then(() => mark("done"));
  }, { rootMargin: "50% 0px" });
  formulas.forEach((el) => seen.observe(el));
}

// The formulas on the first screen (and half a screen below it) are typeset
// as soon as MathJax has loaded, in one go; until then the article of a page
// with formulas is laid out but not shown (book.css, html.typeset-first).
// Shown earlier, each formula would grow from its TeX's box to its own and
// move the lines under it (the layout shift, #24). MathJax.typeset is
// synchronous: everything it needs is in the one script the site publishes.
function typesetOnScreen(formulas) {
  if (/\/print_page\/$/.test(location.pathname)) return;  // typesetAll's
  const h = innerHeight;
  const near = [...formulas].filter((el) => {
    const r = el.getBoundingClientRect();
    return (r.width || r.height) && r.bottom > -h / 2 && r.top < 1.5 * h;
  });
  if (near.length) MathJax.typeset(near);
}

// Material's instant navigation swaps the content without a reload: start
// again on each new page, as Material's own MathJax snippet does. The first
// page is pageReady's: document$ fires for it too, at a moment that depends
// on the page's size (on the print page, in the middle of typesetAll), and
// clearing MathJax's cache then took the characters' CSS from every formula
// already typeset (they kept their markup, with no width).
let firstPage = true;
document$.subscribe(() => {
  if (firstPage) {
    firstPage = false;
    return;
  }
  if (!(window.MathJax && MathJax.typesetPromise)) return;  // MathJax not started yet: pageReady will
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

export { errors };
