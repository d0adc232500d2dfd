// typeset.cjs: the book's formulas typeset at build, by MathJax in Node
// (toycalc/site/typeset.py starts it once a build and speaks to it).
//
// One request a line on stdin, one answer a line on stdout, both JSON:
//   {"tex": "...", "display": true}  ->  {"html": "<mjx-container ...>"} or {"error": "..."},
//                                        or {"unresolved": ["\\ref{x}", ...]}: references to no label of the formula
//   {"glyphs": ["MJX-TEX-I-1D465", ...]} -> {"glyphs": {"MJX-TEX-I-1D465": "<path ...>", ...}}
//   {"css": true}                    ->  {"css": "..."}: the formulas' stylesheet
// MathJax is the one the site publishes (django-static-mathjax carries the
// npm release's CommonJS modules, js/), so nothing comes from npm. Its
// output is MathJax's SVG, with the hidden MathML a screen reader reads:
// each character a <use> of its glyph, which the page holds once (the
// glyphs request; typeset.py writes them into the page).
"use strict";
const path = require("path");
const readline = require("readline");

const js = process.argv[2];   // MathJax's js/ folder
const mj = (name) => require(path.join(js, name));
const { mathjax } = mj("mathjax.js");
const { TeX } = mj("input/tex.js");
const { SVG } = mj("output/svg.js");
const { liteAdaptor } = mj("adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = mj("handlers/html.js");
const { AssistiveMmlHandler } = mj("a11y/assistive-mml.js");
// The TeX the book writes, and no more: a macro outside them is an error
// that fails the build (not the red text MathJax shows in a browser). No
// newcommand: one process typesets every page, and a \def would hold on
// every page after its own (typeset.py refuses definitions, in one line).
const PACKAGES = ["base", "ams", "boldsymbol", "color"];
const CONFIGURATIONS = ["base/BaseConfiguration", "ams/AmsConfiguration",
                        "boldsymbol/BoldsymbolConfiguration", "color/ColorConfiguration"];
CONFIGURATIONS.forEach((name) => mj(`input/tex/${name}.js`));

const adaptor = liteAdaptor();
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
let error = null;
const tex = new TeX({
  packages: PACKAGES,
  formatError: (jax, err) => { error = err.message; return jax.formatError(err); }
});
const svg = new SVG({ fontCache: "global" });
const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });

// A \ref or \eqref, with its label (a braced argument, or one token, as TeX reads it).
const REF = /\\(eq)?ref(?![A-Za-z])\s*(?:\{([^{}]*)\}|([^\s{}]))/g;

/** The \ref and \eqref of the formula that name no numbered label of its
 *  own (each formula is typeset alone: its labels are forgotten after it):
 *  MathJax would print each as "???". */
function unresolved(source, tags) {
  const refs = [...source.matchAll(REF)];
  const missing = refs.filter((m) => { const label = tags.allLabels[m[2] ?? m[3]]; return !label || !label.id; })
                      .map((m) => m[0]);
  // a reference the pattern did not read (MathJax found no label for it): said as it is
  return missing.length || !tags.redo ? missing : [refs.length ? refs[0][0] : "\\ref"];
}

function typeset(request) {
  const tags = tex.parseOptions.tags, options = { display: Boolean(request.display) };
  error = null;
  tags.reset();
  let node = doc.convert(request.tex, options);
  if (!error && tags.redo) {
    // a \ref before its \label: typeset once more, the formula's labels known
    // (as MathJax does in a page), its own labels not counted twice
    tex.parseOptions.options.ignoreDuplicateLabels = true;
    try { node = doc.convert(request.tex, options); } finally { tex.parseOptions.options.ignoreDuplicateLabels = false; }
  }
  if (error) return { error };
  const missing = unresolved(request.tex, tags);
  return missing.length ? { unresolved: missing } : { html: adaptor.outerHTML(node) };
}

function answer(request) {
  if (request.css) return { css: adaptor.textContent(svg.styleSheet(doc)) };
  if (request.glyphs) {
    const paths = {};
    for (const path of adaptor.childNodes(svg.fontCache.defs)) paths[adaptor.getAttribute(path, "id")] = adaptor.outerHTML(path);
    return { glyphs: Object.fromEntries(request.glyphs.map((id) => [id, paths[id]])) };
  }
  return typeset(request);
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch (err) {
    reply = { error: String(err && err.message || err) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
