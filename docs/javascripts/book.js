// book.js: on every page, the one script it loads (mkdocs.yml's extra_javascript,
// a module); everything else of ours comes through `import`.
//
// On every page view (Material's instant navigation swaps the content
// without a reload, and document$ tells each new page, the first one
// included): the heads chooser and End to End's path (path.js), the tips
// (tips.js), the drawing's first look (light.js), the scheme toggle
// (scheme.js), and the code of the
// page's own parts. A
// part declares its code where the build writes it: data-module="simulator"
// (or several names, "letters train_page") imports docs/javascripts/
// simulator.js, whose start() then runs once for this page view. A module
// is fetched and run once per visit, whatever the pages.
import "./mathjax-config.js";
import * as path from "./path.js";
import * as tips from "./tips.js";
import * as light from "./light.js";
import * as scheme from "./scheme.js";

const MODULE_NAME = /^[a-z_]+$/;

/** The modules the page's parts name, each started once; then
 *  body[data-started] says the page's code is running (the browser tests
 *  wait for it). */
function startPageCode() {
  delete document.body.dataset.started;
  const names = new Set(), started = [];
  document.querySelectorAll("[data-module]").forEach((part) => {
    part.dataset.module.split(/\s+/).filter(Boolean).forEach((name) => names.add(name));
  });
  for (const name of names) {
    if (!MODULE_NAME.test(name)) {
      console.error(`data-module="${name}": a module of docs/javascripts is named in lower case and _ only`);
      continue;
    }
    started.push(import(`./${name}.js`).then((module) => module.start()));
  }
  Promise.allSettled(started).then(() => { document.body.dataset.started = ""; });
}

document$.subscribe(() => {
  path.start();
  tips.start();
  light.start();
  scheme.start();
  startPageCode();
});
