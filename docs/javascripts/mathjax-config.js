// MathJax reads this before it loads. Formulas are typeset from the
// \( \) and \[ \] that arithmatex leaves; TeX errors are recorded so the
// browser tests can tell a formula that failed.
window.mathjaxErrors = [];
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    formatError: (jax, err) => {
      window.mathjaxErrors.push(err.message);
      return jax.formatError(err);
    }
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  },
  startup: {
    pageReady: () => MathJax.startup.defaultPageReady().then(markTypeset)
  }
};

function markTypeset() {
  document.body.dataset.mathjax = "done";
}

// Material's instant navigation swaps the content without a reload:
// typeset each new page (the first one MathJax typesets on its own).
document$.subscribe(() => {
  if (!(window.MathJax && MathJax.typesetPromise)) return;
  document.body.dataset.mathjax = "busy";
  MathJax.startup.promise = MathJax.startup.promise.then(() => {
    // SVG output has no clearCache (that is CHTML's); its font cache is this
    if (MathJax.startup.output.clearFontCache) MathJax.startup.output.clearFontCache();
    MathJax.typesetClear();
    MathJax.texReset();
    return MathJax.typesetPromise();
  }).then(markTypeset);
});
