// mathjax-config.js: on every page (book.js imports it first): MathJax's
// settings, for the formulas a page's script makes for the reader
// (nano-gpt's, for the reader's letters: letters.js).
//
// The book's own formulas come typeset in the page: MathJax drew them at
// build (toycalc/site/typeset.py), so no page loads MathJax to show them.
// A script that makes formulas calls load(), which brings MathJax's script
// (toycalc/site/publish_mathjax.py publishes it) the first time; MathJax
// then typesets the formulas made before it started, and the script
// typesets those it makes later (letters.js). TeX errors are recorded so
// the browser tests can tell a formula that failed.
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
    typeset: false,  // the page's formulas are typeset already
    pageReady: () => MathJax.startup.defaultPageReady().then(typesetMade)
  }
};

// body[data-mathjax=done]: every formula of the page is typeset ("busy"
// while MathJax sets the ones a script made).
function mark(state) {
  document.body.dataset.mathjax = state;
}

// The formulas a script made before MathJax started: those with their TeX
// still in them (the build's have MathJax's markup).
function typesetMade() {
  const made = [...document.querySelectorAll(".arithmatex")].filter((el) => !el.querySelector("mjx-container"));
  if (!made.length) return mark("done");
  mark("busy");
  return MathJax.typesetPromise(made).then(() => mark("done"));
}

// MathJax (160 KiB compressed, and its start, and its fonts), the first
// time a script asks.
let requested = false;
function load() {
  if (requested) return;
  requested = true;
  mark("busy");
  const script = document.createElement("script");
  script.src = new URL("mathjax/mathjax.js", import.meta.url).href;
  script.async = true;
  document.head.appendChild(script);
}

// Material's instant navigation swaps the content without a reload: MathJax,
// if it came, forgets the formulas of the page left.
document$.subscribe(() => {
  if (window.MathJax && MathJax.typesetClear) MathJax.typesetClear();
  if (!requested || (window.MathJax && MathJax.typesetPromise)) mark("done");
});

export { errors, load };
