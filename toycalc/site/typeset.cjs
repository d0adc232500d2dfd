// typeset.cjs: the book's formulas typeset at build, by MathJax in Node
// (toycalc/site/typeset.py starts it once a build and speaks to it).
//
// One request a line on stdin, one answer a line on stdout, both JSON:
//   {"tex": "...", "display": true}  ->  {"html": "<mjx-container ...>"} or {"error": "..."}
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

function answer(request) {
  if (request.css) return { css: adaptor.textContent(svg.styleSheet(doc)) };
  if (request.glyphs) {
    const paths = {};
    for (const path of adaptor.childNodes(svg.fontCache.defs)) paths[adaptor.getAttribute(path, "id")] = adaptor.outerHTML(path);
    return { glyphs: Object.fromEntries(request.glyphs.map((id) => [id, paths[id]])) };
  }
  error = null;
  tex.parseOptions.tags.reset();
  const node = doc.convert(request.tex, { display: Boolean(request.display) });
  return error ? { error } : { html: adaptor.outerHTML(node) };
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
