// render.js: the twin of toycalc/book/render.py (numbers, HTML tables, math).
//
// The strings a page shows, as the build writes them: computed values
// with three places and a true minus sign, typed weights as typed, HTML
// tables, inline and display math as arithmatex marks it. The functions
// the browser needs, each named as its Python twin in camelCase
// (tests/test_mirrors.py); tests/book/test_simulator_parity.py and
// test_nanogpt_switch.py hold them to the same strings. Pure functions,
// no page: the same ES module in Node and in a page.

const MINUS = "\u2212";

// ------------------------------------------------------------ numbers

/** Python's f"{x:.{places}f}": exact ties go to the even digit. */
function toFixedEven(x, places) {
  // toFixed rounds an exact tie away from zero, Python to the even digit.
  // A tie needs x times 10^places to end in .5 exactly: clear of that,
  // toFixed is right as it is (and the simulator prints thousands of them)
  const scaled = Math.abs(x) * 10 ** places;
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-7 * (1 + scaled)) return x.toFixed(places);
  // toFixed(100) spells out the double exactly, so a tie can be told
  const exact = Math.abs(x).toFixed(100), dot = exact.indexOf(".");
  if (/^50*$/.test(exact.slice(dot + 1 + places))) {
    const kept = exact.slice(0, dot + 1 + places).replace(/\.$/, "");
    if (Number(kept.slice(-1)) % 2 === 0) return (x < 0 ? "-" : "") + kept;
  }
  return x.toFixed(places);
}

/** A computed value: fixed places, true minus, never −0.000. */
function fixed(x, places) {
  places = places === undefined ? 3 : places;
  let text = toFixedEven(x, places);
  if (text.replace(/^-/, "").replace(/^[0.]+|[0.]+$/g, "") === "") text = text.replace(/^-/, "");
  return text.replace(/-/g, MINUS);
}

/** A typed weight or an exact sum of them: at most three places, no
 *  trailing zeros (1, −0.5); keepDecimal prints 1 as 1.0. */
function short(x, keepDecimal) {
  let text = toFixedEven(x, 3).replace(/0+$/, "");
  text = keepDecimal && text.endsWith(".") ? text + "0" : text.replace(/\.$/, "");
  if (text === "-0" || text === "-0.0") text = text.slice(1);
  return text.replace(/-/g, MINUS);
}

function vector(values, fmt) {
  fmt = fmt || ((v) => fixed(v));
  return "[" + Array.from(values, fmt).join(", ") + "]";
}

function weightsVector(values) {
  return vector(values, (v) => short(v, true));
}

/** A number string for use inside TeX: ASCII minus. */
function tex(text) {
  return text.replace(new RegExp(MINUS, "g"), "-");
}

/** A whole count with thousands separators: 124,439,808. */
function count(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

// ------------------------------------------------------------ tables and math

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/** Python's html.escape: quotes too unless quote is false. */
function escape(text, quote) {
  return String(text).replace(quote === false ? /[&<>]/g : /[&<>"']/g, (c) => ESCAPES[c]);
}

/** An HTML table with a stable id; cells arrive as safe HTML (the
 *  browser's tables need no bold rows nor wrapped columns). An empty first
 *  header: the first column holds the rows' headers. */
function htmlTable(id, header, rows, caption) {
  const named = header[0] === "";
  const cell = (c, k) => named && !k ? `<th scope="row">${c}</th>` : `<td>${c}</td>`;
  const lines = [`<table id="${escape(id)}" class="book-table">`];
  if (caption) lines.push(`<caption>${caption}</caption>`);
  lines.push("<thead><tr>" + header.map((h, k) => named && !k ? "<td></td>" : `<th>${h}</th>`).join("") +
             "</tr></thead>", "<tbody>");
  for (const row of rows) lines.push("<tr>" + row.map(cell).join("") + "</tr>");
  lines.push("</tbody></table>");
  return lines.join("\n");
}

/** Inline TeX inside raw HTML, marked as arithmatex marks it. */
function inlineMath(body) {
  return `<span class="arithmatex">\\(${escape(body, false)}\\)</span>`;
}

/** Display math as arithmatex (generic mode) writes it. */
function mathBlock(body) {
  return `<div class="arithmatex">\\[${escape(body, false)}\\]</div>`;
}

/** Display math, one 'left &= right' per line. */
function aligned(lines) {
  return alignedRows(lines.map(([l, r]) => `${l} &= ${r}`.trimStart()));
}

/** Display math, one row of an aligned environment per item. */
function alignedRows(rows) {
  return mathBlock("\\begin{aligned} " + rows.join(" \\\\ ") + " \\end{aligned}");
}

export { MINUS, fixed, short, vector, weightsVector, tex, count, escape, htmlTable, inlineMath, mathBlock,
         aligned, alignedRows };
