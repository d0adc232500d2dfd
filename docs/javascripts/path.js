// path.js: a page script: the path of End to End (toycalc/book/path.py
// writes it) and the heads chooser of every page with one.
//
// Without this script every step is shown and the default heads count is
// printed; with it, one step opens at a time (its number in the URL, as
// #step-6) and the chooser switches every heads-dependent number at once.
// Material's instant navigation swaps pages without reloading: everything
// hangs on document$ and is safe to run twice.
(function () {
  "use strict";
  const HEADS_KEY = "toycalc.heads";

  function showHeads(heads) {
    document.querySelectorAll(".heads-variant").forEach((el) => {
      el.hidden = el.dataset.heads !== heads;
    });
    document.querySelectorAll(".heads-chooser input").forEach((input) => {
      input.checked = input.value === heads;
    });
    try { localStorage.setItem(HEADS_KEY, heads); } catch (e) { /* private mode */ }
  }

  function setUpChoosers() {
    const choosers = document.querySelectorAll(".heads-chooser");
    if (!choosers.length) return;
    choosers.forEach((chooser) => {
      chooser.hidden = false;
      if (chooser.dataset.ready) return;
      chooser.dataset.ready = "1";
      chooser.addEventListener("change", (event) => showHeads(event.target.value));
    });
    let stored = null;
    try { stored = localStorage.getItem(HEADS_KEY); } catch (e) { /* private mode */ }
    const offered = [...choosers[0].querySelectorAll("input")].map((i) => i.value);
    if (stored && offered.includes(stored)) showHeads(stored);
  }

  function setUpPath() {
    const path = document.getElementById("path");
    if (!path || path.dataset.ready) return;
    path.dataset.ready = "1";
    path.classList.add("path--js");
    const steps = [...path.querySelectorAll(".path-step")];

    function open(step, scroll) {
      steps.forEach((s) => {
        const isIt = s === step;
        s.setAttribute("aria-expanded", String(isIt));
        s.classList.toggle("is-open", isIt);
        document.getElementById(s.getAttribute("aria-controls")).classList.toggle("is-open", isIt);
      });
      const hash = step ? "#" + step.getAttribute("aria-controls") : "";
      if (location.hash !== hash) {
        history.replaceState(history.state, "", location.pathname + location.search + hash);
      }
      if (step && scroll) step.scrollIntoView({ block: "start" });
    }

    function toggle(step) {
      open(step.getAttribute("aria-expanded") === "true" ? null : step, false);
    }

    // buttons: Enter and Space click them, by themselves
    steps.forEach((step) => step.addEventListener("click", () => toggle(step)));

    function fromHash() {
      const step = steps.find((s) => "#" + s.getAttribute("aria-controls") === location.hash);
      if (step) open(step, true);
    }
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  // Two fixes for axe, to Material's markup: the search dialog has no
  // name, and a table too wide for the screen scrolls but takes no focus.
  function fixMaterialA11y() {
    document.querySelectorAll(".md-search[role=dialog]:not([aria-label])").forEach((el) => {
      el.setAttribute("aria-label", "Search");
    });
    document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset div.arithmatex").forEach((el) => {
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
    });
  }

  document$.subscribe(() => {
    setUpChoosers();
    setUpPath();
    fixMaterialA11y();
  });
})();
