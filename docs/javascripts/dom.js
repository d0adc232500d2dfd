// dom.js: a page helper, no Python twin: nodes and data for the page
// scripts (simulator.js, weights_editor.js, later.js, letters.js,
// toy_training.js).
//
// `el` makes an element (text written only with textContent), `table` a
// table of strings; `patchInto` writes draw.js's markup into a node,
// keeping the elements already there (tests/browser/test_simulator_speed_browser.py);
// `fetchJson` reads a JSON file the build wrote, `fetchBytes` a weights file. It touches the page's
// document, so only the pages import it; the parity tests in Node import
// the modules that compute (gpt.js, render.js, draw.js, ...), not this one.

/** An element: attrs.text is its text, attrs.hidden its hidden flag, the
 *  others attributes; children are nodes or strings (as text). */
function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v;
    else if (k === "hidden") node.hidden = v;
    else node.setAttribute(k, v);
  }
  for (const c of children || []) node.append(c);
  return node;
}

/** The book's notation in a label the page writes (never the reader's
 *  text): W_O as W with a subscript O, e^z with a superscript, u' with
 *  a prime. */
function notation(text) {
  const out = document.createDocumentFragment();
  text.replace(/'/g, "′").split(/([_^][A-Za-z0-9]+)/).forEach((piece) => {
    if (/^[_^]/.test(piece)) out.append(el(piece[0] === "_" ? "sub" : "sup", { text: piece.slice(1) }));
    else if (piece) out.append(piece);
  });
  return out;
}

/** A table with a header row; cells are strings (written as text).
 *  options.bold: the set of row indexes printed in bold; options.stack:
 *  on a phone each row is laid out as a card, a cell a line under its
 *  column's name (a table of vectors, too wide for a phone even scrolled:
 *  simulator.css), the name a copy of the header's, hidden from screen
 *  readers, which have the header. */
function table(id, caption, header, rows, options) {
  options = options || {};
  const bold = options.bold || new Set();
  const t = el("table", { id, class: "book-table" });
  const said = typeof caption === "string" ? caption : caption.textContent;   // before the node moves
  t.append(el("caption", {}, [caption]));      // a string is text; a node (notation's) as it is
  const heads = header.map((h) => el("th", { scope: "col" }, [h]));
  t.append(el("thead", {}, [el("tr", {}, heads)]));
  const label = (c) => el("span", { class: "cell-label", "aria-hidden": "true" }, [...heads[c].cloneNode(true).childNodes]);
  const body = el("tbody");
  rows.forEach((row, r) => {
    const tr = el("tr", bold.has(r) ? { class: "in-sentence" } : {});
    row.forEach((cell, c) => {
      const td = el(c === 0 && options.rowHeader ? "th" : "td", c === 0 && options.rowHeader ? { scope: "row" } : {});
      if (cell === null) {
        td.className = "sim-masked";
        td.setAttribute("aria-label", "masked");
      } else if (c > 0 && bold.has(r)) {
        td.append(el("strong", { text: cell }));
      } else {
        td.textContent = cell;
      }
      if (options.stack && c > 0) td.prepend(label(c));
      tr.append(td);
    });
    body.append(tr);
  });
  t.append(body);
  // a wide table scrolls on its own, and takes the focus to do it by keyboard
  return el("div", { class: options.stack ? "sim-scroll sim-stack" : "sim-scroll", tabindex: "0", role: "region",
                     "aria-label": said }, [t]);
}

// ------------------------------------------------------------ markup into a node, keeping its elements

/** Markup into `node`, keeping the elements already there. The markup
 *  written last and the new one are compared as trees of tags: within
 *  each element, the children of the two are lined up (an element of the
 *  same tag in the same order is kept, rather one with the same
 *  attributes, rather one with nothing changed inside), and only the
 *  differences are written: the changed attributes and texts, the
 *  elements added, those gone. So a drawing one token larger keeps its
 *  cells and rows and adds the new ones, and one of the same shape is
 *  patched attribute by attribute (patchSameShape). (Chromium restyles
 *  every child of an svg when one is inserted among them, which is why
 *  draw.js writes its drawings token by token: a token more is appended.
 *  Lining up the children by index instead costs more.) The result is the markup,
 *  parsed (tests/browser/test_simulator_speed_browser.py).
 *  The markup is draw.js's: its texts and attribute values escaped, no
 *  tag the parser would add or move. */
function patchInto(node, markup) {
  if (node.markup === markup) return;
  const was = node.written;
  const now = node.written = { markup, list: pieces(markup) };
  node.markup = markup;
  if (!was || !node.firstChild) node.innerHTML = markup;  // nothing to keep: the parser is faster
  else if (!(was.list.shape === now.list.shape ? patchSameShape(node, was.list, now.list)
             : patchChildren(node, was, -1, now, -1, new Map()))) node.innerHTML = markup;
}

/** The same tags in the same order (the same number of tokens and
 *  heads): each element and text in turn, written where it changed. */
function patchSameShape(node, was, now) {
  const elements = node.getElementsByTagName("*"), open = [];
  let e = -1;
  for (let k = 0; k < now.length; k++) {
    const [kind, text, attrs, end] = now[k], before = was[k];
    if (kind === 0) {
      e += 1;
      if (end !== k) open.push(e);
      if (attrs !== before[2]) setAttributes(elements[e], before[2], attrs);
    } else if (kind === 1) open.pop();
    else if (text !== before[1]) {
      const parent = open.length ? elements[open[open.length - 1]] : node;
      if (!parent || parent.childNodes.length !== 1) return false;
      parent.firstChild.data = unescape(text);
    }
  }
  return true;
}

/** The tags and texts of markup, in order: [0, tag, attributes, index of
 *  its end, offset, length] for a start tag, [1, tag, "", index, offset,
 *  length] for an end and [2, text, "", index, offset, length] for a text. */
const TOKEN = /<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>|([^<]+)/g;
function pieces(markup) {
  const list = [], open = [];
  let shape = "";  // the tags alone, in order
  for (const m of markup.matchAll(TOKEN)) {
    const k = list.length;
    if (m[5] !== undefined) {
      list.push([2, m[5], "", k, m.index, m[0].length]);
      shape += "t";
    } else if (m[1]) {
      list[open.pop()][3] = k;
      list.push([1, m[2], "", k, m.index, m[0].length]);
      shape += "/";
    } else {
      if (!m[4]) open.push(k);
      list.push([0, m[2], m[3], k, m.index, m[0].length]);
      shape += m[2] + (m[4] ? "/" : "") + " ";
    }
  }
  list.shape = shape;
  return list;
}

/** The children of token `at` (-1: of the whole markup), as indexes. */
function childrenOf(list, at) {
  const out = [];
  for (let k = at + 1, end = at < 0 ? list.length : list[at][3]; k < end; k = list[k][3] + 1) out.push(k);
  return out;
}

/** An id for the whole text of child k (its tags and all inside). */
function subtree(w, k, ids) {
  const text = w.markup.slice(w.list[k][4], w.list[w.list[k][3]][4] + w.list[w.list[k][3]][5]);
  let id = ids.get(text);
  if (id === undefined) ids.set(text, id = ids.size);
  return id;
}

/** The children of element `dom` (written from token a of `was`) made
 *  those of token b of `now`; false if the page's nodes are not those
 *  written. */
function patchChildren(dom, was, a, now, b, ids) {
  const olds = childrenOf(was.list, a), news = childrenOf(now.list, b), doms = dom.childNodes;
  if (doms.length !== olds.length) return false;
  const n = olds.length, m = news.length;
  const oldIds = olds.map((k) => subtree(was, k, ids)), newIds = news.map((k) => subtree(now, k, ids));
  const same = (i, j) => {
    const o = was.list[olds[i]], e = now.list[news[j]];
    return o[0] === e[0] && (o[0] === 2 || o[1] === e[1]);
  };
  // which old child each new one keeps (-1: none): in order when the
  // tags line up one for one, else the alignment of most worth
  let keep = news.map((_, j) => (j < n && same(j, j) ? j : -1));
  if (n !== m || keep.includes(-1)) {
    // the same children at both ends stay; the middle is lined up
    let first = 0, last = 0;
    while (first < n && first < m && oldIds[first] === newIds[first]) first++;
    while (last < n - first && last < m - first && oldIds[n - 1 - last] === newIds[m - 1 - last]) last++;
    const o = olds.slice(first, n - last), e = news.slice(first, m - last);
    const code = (w, k) => w.list[k][0] === 2 ? "#text" : w.list[k][1];
    const middle = align(o.map((k) => code(was, k)), e.map((k) => code(now, k)),
                         o.map((k) => was.list[k][2]), e.map((k) => now.list[k][2]),
                         oldIds.slice(first, n - last), newIds.slice(first, m - last));
    keep = news.map((_, j) => (j < first ? j : j >= m - last ? j - m + n
      : middle[j - first] < 0 ? -1 : middle[j - first] + first));
  }
  const kept = new Set(keep), nodes = Array.from(doms);
  nodes.forEach((child, i) => { if (!kept.has(i)) child.remove(); });
  let next = 0;  // the next old child kept, which the new ones go before
  while (next < n && !kept.has(next)) next++;
  for (let j = 0; j < m; j++) {
    const i = keep[j];
    if (i < 0) {
      dom.insertBefore(make(now, news[j], dom), next < n ? nodes[next] : null);
      continue;
    }
    next = i + 1;
    while (next < n && !kept.has(next)) next++;
    if (oldIds[i] === newIds[j]) continue;  // nothing changed inside
    const child = nodes[i], [kind, text, attrs] = now.list[news[j]];
    if (kind === 2) {
      if (child.nodeType !== 3) return false;
      child.data = unescape(text);
    } else {
      if (child.localName !== text) return false;
      const before = was.list[olds[i]][2];
      if (before !== attrs) setAttributes(child, before, attrs);
      if (!patchChildren(child, was, olds[i], now, news[j], ids)) return false;
    }
  }
  return true;
}

/** The old children (their tags, attributes and whole texts) lined up
 *  with the new: the pairs (i, j), i and j increasing, of the same tag
 *  that are worth most, a pair worth 1, 2 with the same attributes, 4
 *  with nothing changed inside. Returns, for each j, its i or -1. */
function align(oldTags, newTags, oldAttrs, newAttrs, oldIds, newIds) {
  const n = oldTags.length, m = newTags.length, codes = new Map();
  const code = (x) => { let c = codes.get(x); if (c === undefined) codes.set(x, c = codes.size); return c; };
  const oT = Int32Array.from(oldTags, code), nT = Int32Array.from(newTags, code);
  const oA = Int32Array.from(oldAttrs, code), nA = Int32Array.from(newAttrs, code);
  const oI = Int32Array.from(oldIds), nI = Int32Array.from(newIds);
  const score = (i, j) => (oT[i] !== nT[j] ? 0 : oI[i] === nI[j] ? 4 : oA[i] === nA[j] ? 2 : 1);
  const W = new Int32Array((n + 1) * (m + 1)), row = m + 1;  // W[i, j]: the most from (i, j) on
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const s = score(i, j), k = i * row + j;
      W[k] = Math.max(W[k + row], W[k + 1], s ? s + W[k + row + 1] : 0);
    }
  }
  const keep = new Array(m).fill(-1);
  for (let i = 0, j = 0; i < n && j < m;) {
    const s = score(i, j), k = i * row + j;
    if (s && W[k] === s + W[k + row + 1]) keep[j++] = i++;
    else if (W[k + row] >= W[k + 1]) i++;
    else j++;
  }
  return keep;
}

const SVG = "http://www.w3.org/2000/svg";

/** Child k of `now` as a node for `parent`, as the parser makes it: an
 *  svg and all inside it in SVG's namespace (draw writes no foreignObject). */
function make(now, k, parent) {
  const list = now.list, [kind, tag, attrs, end] = list[k];
  if (kind === 2) return document.createTextNode(unescape(tag));
  if (end - k > 200) {  // a large part: the parser is faster
    const range = document.createRange();
    range.selectNodeContents(parent);
    return range.createContextualFragment(now.markup.slice(list[k][4], list[end][4] + list[end][5]));
  }
  const e = document.createElementNS(tag === "svg" ? SVG : parent.namespaceURI, tag);
  setAttributes(e, "", attrs);
  for (let c = k + 1; c < end; c = list[c][3] + 1) e.append(make(now, c, e));
  return e;
}

const UNESCAPE = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };
const unescape = (text) => text.replace(/&(amp|lt|gt|quot|#x27);/g, (e) => UNESCAPE[e]);

const ATTRIBUTE = /([\w:-]+)="([^"]*)"/g;
/** An element's attributes, written as `before` in markup, made those of `now`. */
function setAttributes(e, before, now) {
  const old = new Map();
  for (const m of before.matchAll(ATTRIBUTE)) old.set(m[1], m[2]);
  for (const [, name, value] of now.matchAll(ATTRIBUTE)) {
    if (old.get(name) !== value) e.setAttribute(name, unescape(value));
    old.delete(name);
  }
  for (const name of old.keys()) e.removeAttribute(name);
}

/** The stylesheet at `url` (beside this file's folder), linked once; a
 *  promise that it has loaded (or failed), so that a page's code builds
 *  what the sheet styles only then, and nothing moves once shown. */
function stylesheet(url) {
  const href = new URL(url, import.meta.url).href;
  let link = [...document.querySelectorAll("link[rel=stylesheet]")].find((l) => l.href === href);
  if (link && link.sheet) return Promise.resolve();
  if (!link) {
    link = Object.assign(document.createElement("link"), { rel: "stylesheet", href });
    document.head.append(link);
  }
  return new Promise((done) => {
    link.addEventListener("load", done, { once: true });
    link.addEventListener("error", done, { once: true });
  });
}

/** The JSON file at `name` (an address, relative to the page or whole),
 *  parsed; a failed request rejects with the file's path and the status. */
function fetchJson(name) {
  const url = new URL(name, document.baseURI);
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
    return r.json();
  });
}

/** The bytes of a file the build wrote (a weights file, safetensors.js reads it), as an ArrayBuffer. */
function fetchBytes(name) {
  const url = new URL(name, document.baseURI);
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
    return r.arrayBuffer();
  });
}

export { el, table, patchInto, notation, stylesheet, fetchJson, fetchBytes };
