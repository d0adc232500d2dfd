// end_to_end.js: the twin of toycalc/book/end_to_end.py's figures.
//
// What the simulator draws again for the reader's sentence: the attention
// figure and the probabilities figure (attention_figure,
// probabilities_figure), in draw.js's markup.
// tests/book/test_figures_parity.py compares the strings. Pure functions,
// no page: the same ES module in Node and in a page.

import * as draw from "./draw.js";

const rows = (M) => Array.from(M, (r) => Array.from(r));

/** Each head's attention as a heat-map and as lines, side by side. */
function attentionFigure(tokens, tr) {
  let out = "";
  tr.weights.forEach((w, h) => {
    const W = rows(w);
    out += draw.figure("attention", draw.attentionSvg(tokens, W, h + 1) + draw.attentionLinesSvg(tokens, W, h + 1),
                       `Head ${h + 1}`, { head: h + 1 });
  });
  return `<div class="fig-row">${out}</div>` + draw.probKey("weight", true, true);   // one key for the heads' row
}

/** The last position's probabilities as bars, most probable first. */
function probabilitiesFigure(vocab, tr) {
  const T = tr.ids.length, p = tr.p[T - 1];
  const order = Array.from(p, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
  const last = vocab[tr.ids[T - 1]];
  return draw.figure("probabilities", draw.barsSvg(order.map((i) => vocab[i]), order.map((i) => p[i]),
    `The probability of each token of the vocabulary after position ${T}, most probable first`, 0),
    `p of each next token after ${draw.esc(last)} (position ${T})`);
}

export { attentionFigure, probabilitiesFigure };
