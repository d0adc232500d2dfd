"""What the browser tests read in a page, shared by the tests that read it:
the queries (JavaScript run in the page) and the lists of pages. The
tour of every page (test_every_page_browser.py) runs most of them on one
load of each page; the other tests run one or two on the pages they open."""
from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path


def every_page(site):
    """Every page a reader reaches from the nav, and Home. The print page,
    every chapter again on one page, has tests of its own
    (test_print_browser.py; test_reader_conventions_browser.py prints it)."""
    return sorted("/" + p.parent.relative_to(site).as_posix() + "/"
                  for p in site.rglob("index.html") if p.parent not in (site, site / "print_page")) + ["/"]


# Visible text nodes outside code and typeset math: a backslash command,
# \( \[ or $$ there is TeX that MathJax never saw.
# The localStorage key of the reader's heads choice, as path.js (its one
# place) exports it: a test that opens pages under a heads count sets it.
HEADS_KEY = re.search(r'^const HEADS_KEY = "([^"]+)";$',
                      (Path(__file__).resolve().parents[2] / "docs" / "javascripts" / "path.js").read_text(encoding="utf-8"),
                      re.M)[1]


RAW_TEX = r"""() => {
    const skip = 'PRE, CODE, SCRIPT, STYLE, MJX-CONTAINER, .md-clipboard';
    const found = [];
    const walk = (n) => { for (const c of n.childNodes) {
        if (c.nodeType === 3) {
            if (/\\[a-zA-Z]+|\\[(\[]|\$\$/.test(c.data) && c.parentElement.checkVisibility())
                found.push(c.data.trim().slice(0, 80));
        } else if (c.nodeType === 1 && !c.matches(skip)) walk(c);
    } };
    walk(document.querySelector('article'));
    return found;
}"""


# Tables and display formulas wider than the article's text column: a
# table overflows the scrolling box Material wraps it in (which reaches
# 0.8rem into the margins), a formula its own box. Left out: the path's
# panels (their own test).
TOO_WIDE = r"""() => {
    const column = document.querySelector('article').clientWidth;
    const box = el => el.closest('.md-typeset__scrollwrap') || el;
    return [...document.querySelectorAll('article table, article div.arithmatex')]
        .filter(el => el.checkVisibility() && !el.closest('.path'))
        .filter(el => box(el).scrollWidth > Math.max(box(el).clientWidth, column) + 1)
        .map(el => [el.id || el.textContent.trim().slice(0, 40), Math.round(el.scrollWidth)]);
}"""


# The page's cumulative layout shift, counted from its first paint, and
# when it last changed (a node, an attribute, a text, a file fetched): an
# init script.
OBSERVE = """window.__shift = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
}).observe({type: 'layout-shift', buffered: true});
window.__changed = performance.now();
{   // a block: the page's own scripts share this global scope
  const changed = () => { window.__changed = performance.now(); };
  new MutationObserver(changed).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  new PerformanceObserver(changed).observe({type: 'resource'});
}"""

# The page at rest: its fonts loaded and nothing changed for QUIET ms (its
# own scripts and Material's have set up; the last of them, the search's,
# about 0.2 s after MathJax's first typesetting).
QUIET = 300
SETTLED = f"() => document.fonts.status === 'loaded' && performance.now() - window.__changed > {QUIET}"


# Elements showing one token (a code, or a live table's cell): on how many
# lines each is laid out, when more than one.
BROKEN_TOKENS = r"""(tokens) => {
  const lines = (el) => {   // the lines its text is laid out on
    const tops = new Set(), walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let text; (text = walker.nextNode());) {
      const range = document.createRange();
      range.selectNodeContents(text);
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    return tops.size;
  };
  return [...document.querySelectorAll('article code, article th, article td')]
    .filter((el) => tokens.includes(el.textContent.trim()) && el.checkVisibility())
    .filter((el) => lines(el) > 1).map((el) => el.textContent.trim());
}"""


# Code in a table's cell (a token's chip) set under 11 CSS px: the text of each.
SMALL_CHIPS = """() => [...document.querySelectorAll('article :is(td, th) code')]
    .filter((el) => el.checkVisibility() && parseFloat(getComputedStyle(el).fontSize) < 11)
    .map((el) => `${el.textContent.trim()} ${getComputedStyle(el).fontSize}`)"""


# Each code block's copy button (Material's, top right) against the code's
# text, with the code scrolled to its start and to its end: the text under it.
UNDER_COPY = """() => [...document.querySelectorAll('article pre:has(> .md-code__nav)')].filter((p) => p.checkVisibility())
  .map((pre) => {
    const nav = pre.querySelector('.md-code__nav'), code = pre.querySelector('code');
    const under = () => {
      const b = nav.getBoundingClientRect(), box = code.getBoundingClientRect(), out = [];
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let text; (text = walker.nextNode());) {
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const r of range.getClientRects())
          if (r.width > 0 && r.left < box.right && r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom)
            out.push(text.textContent.trim());
      }
      return out;
    };
    const start = under();
    code.scrollLeft = code.scrollWidth;
    const end = under();
    code.scrollLeft = 0;
    return start.concat(end);
  })"""


WIDE_FORMULAS = """() => [...document.querySelectorAll('article div.arithmatex')]
    .filter((el) => el.checkVisibility() && el.scrollWidth > el.clientWidth + 1)
    .map((el, i) => { el.dataset.wide = i; return i; })"""


def pixels(png: bytes, rows_wanted: int | None = None) -> tuple[int, int, list[bytes]]:
    """A screenshot's (width, height, rows of RGBA bytes), its first
    rows_wanted rows only when given (a row is undone from the one above
    it, in Python: a whole screenshot took a tenth of a second): Playwright's
    PNGs are 8-bit RGBA or RGB, not interlaced."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width = 8, b"", 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw, rows, stride, prev = zlib.decompress(data), [], width * channels, bytearray(width * channels)
    for y in range(height if rows_wanted is None else min(rows_wanted, height)):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1: line[i] = (line[i] + a) & 255
            elif kind == 2: line[i] = (line[i] + b) & 255
            elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if channels == 4 else bytes(x for k in range(width) for x in (*line[3 * k:3 * k + 3], 255)))
        prev = line
    return width, height, rows


def edge_shades(png: bytes) -> tuple[int, int]:
    """How far from the box's middle column the left and right edges are, in
    grey levels, summed over its top three rows (the formula's glyphs stay
    away from the edges' outer 3 px, its margins above and below are blank)."""
    width, height, rows = pixels(png, rows_wanted=3)
    grey = lambda row, x: sum(row[4 * x:4 * x + 3]) // 3
    middle = [grey(rows[y], width // 2) for y in range(3)]
    return tuple(sum(abs(grey(rows[y], x) - middle[y]) for y in range(3)) for x in (1, width - 2))


def phone_formulas(page) -> list:
    """Each display formula wider than a phone's column: the shades of its
    edges at the start of its scroll and at the end (edge_shades)."""
    out = []
    for i in page.evaluate(WIDE_FORMULAS):
        formula = page.locator(f'div.arithmatex[data-wide="{i}"]')
        formula.evaluate("(el) => el.scrollIntoView({block: 'center'})")   # clear of the sticky header
        start = edge_shades(formula.screenshot())
        formula.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
        out.append((start, edge_shades(formula.screenshot())))
    return out



# Every table shown wider than the box it scrolls in (Material's wrapper, a
# nano-gpt matrix, the simulator's box), read as a phone's reader scrolls
# it: its first column sticky; the cue (book.css: a shadow inside the box's
# right edge while more is hidden there, one beside the first column once
# the table has scrolled); half-way, the right shadow still shown; at the
# end, every cell of the first column at the box's left (or where the
# table's margin in the box puts it, when the table scrolls less than
# that), the shadow beside it, the right one gone; its caption within the
# box. Returns {checked: how many, faults: [...]}.
# (A shadow's colour, computed, is that of its frame in the box's scroll:
# two frames after a scroll.)
WIDE_TABLES = r"""async () => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const alpha = (shadow) => {     // of the shadow's colour; 0 for none
    if (!shadow || shadow === 'none') return 0;
    const m = shadow.match(/(rgba?|oklab|oklch|lab|lch|color)\(([^)]*)\)/);
    if (!m) return 1;
    if (m[2].includes('/')) return parseFloat(m[2].split('/')[1]);
    return m[1] === 'rgba' ? parseFloat(m[2].split(',')[3]) : 1;
  };
  const scrolls = (el) => /auto|scroll/.test(getComputedStyle(el).overflowX);
  const out = {checked: 0, faults: []};
  for (const table of document.querySelectorAll('article table')) {
    if (!table.checkVisibility()) continue;
    let box = table;
    while (box && box.tagName !== 'ARTICLE' && !scrolls(box)) box = box.parentElement;
    const name = table.id || table.textContent.trim().slice(0, 30);
    const fault = (what) => out.faults.push([name, what]);
    if (!box || box.tagName === 'ARTICLE') {
      if (table.getBoundingClientRect().right > innerWidth + 1) fault('wider than the screen, in no box that scrolls');
      continue;
    }
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    out.checked += 1;
    const first = [...table.rows].map((r) => r.cells[0]).filter((c) => c && c.checkVisibility());
    if (!first.every((c) => getComputedStyle(c).position === 'sticky')) fault('first column not sticky');
    const caption = table.caption && table.caption.checkVisibility() ? table.caption : null;
    const edge = () => box.getBoundingClientRect().left + box.clientLeft;
    const right = () => box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
    const kept = box.scrollLeft;
    box.scrollLeft = 0;
    await frames();
    const rest = first.map((c) => c.getBoundingClientRect().left);
    if (!(alpha(getComputedStyle(box).boxShadow) > 0.2)) fault('no cue at the right edge at the start');
    if (parseFloat(getComputedStyle(first[0], '::after').opacity) > 0) fault('a cue beside the first column at the start');
    if (caption) {
      const range = document.createRange();
      range.selectNodeContents(caption);
      if (range.getBoundingClientRect().right > right() + 1) fault('caption cut at the start');
    }
    box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2;
    await frames();
    if (!(alpha(getComputedStyle(box).boxShadow) > 0.2)) fault('no cue at the right edge half-way');
    box.scrollLeft = box.scrollWidth;
    await frames();
    const off = first.filter((c, k) =>
      Math.abs(c.getBoundingClientRect().left - Math.max(edge(), rest[k] - box.scrollLeft)) > 1);
    if (off.length) fault(`first column left the box's edge: ${off.length} of ${first.length} cells`);
    if (!(parseFloat(getComputedStyle(first[0], '::after').opacity) > 0.9)) fault('no cue beside the first column once scrolled');
    if (alpha(getComputedStyle(box).boxShadow) > 0.05) fault('a cue at the right edge at the end');
    if (caption) {
      const range = document.createRange();
      range.selectNodeContents(caption);
      const r = range.getBoundingClientRect();
      if (r.left < edge() - 1 || r.right > right() + 1) fault('caption out of the box, scrolled');
    }
    box.scrollLeft = kept;
  }
  return out;
}"""


# Display formulas cut: a box around one (the formula's own or an
# ancestor's) narrower than what it holds and not scrolling, or a formula's
# scrolling box reaching past the screen. Returns [formula, fault] pairs.
CLIPPED_FORMULAS = r"""() => {
  const out = [];
  for (const m of document.querySelectorAll('article mjx-container[display="true"]')) {
    if (!m.checkVisibility()) continue;
    const name = m.closest('.arithmatex')?.textContent.slice(0, 40) || m.textContent.slice(0, 40);
    for (let a = m.parentElement; a && a.tagName !== 'ARTICLE'; a = a.parentElement) {
      const overflow = getComputedStyle(a).overflowX;
      if (overflow === 'visible') continue;
      if (/auto|scroll/.test(overflow)) {
        const r = a.getBoundingClientRect();
        if (r.right > innerWidth + 1 || r.left < -1) out.push([name, 'its box reaches past the screen']);
        break;
      }
      if (a.scrollWidth > a.clientWidth + 1) { out.push([name, `cut by ${a.tagName}.${a.className}`]); break; }
    }
  }
  return out;
}"""


SHOWN = 'figure[data-figure="minimap"] svg.map-band'   # the map's drawing; hidden variants have no boxes


# Two animation frames: a scroll's event, dispatched in the rendering
# steps of the next frame, has fired by then. tips.js takes a mouse's or a
# tap's box away on a scroll: a test that scrolls a mark into view waits
# for these before it moves the pointer onto the mark (a scroll event
# after the pointer came took the box away).
FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


# End to End's drawing shows `heads` heads: path.js has drawn it again for
# a heads choice other than the build's (once model_drawing.js has come)
DRAWN_HEADS = """(heads) => document.querySelectorAll('#path [data-part="heads"]').length === heads"""


# Material's instant navigation: a click on a link of the site changes the
# address at once and swaps the new page's article in once its file has
# come; until then the old page stays, and its body keeps its
# data-started and data-mathjax=done. A test marks the article it leaves
# (LEAVING, before the click), then waits for another, started (arrived):
# the new article and book.js's start (which drops data-started) come in
# one task.
ARTICLE = "article.md-content__inner"
LEAVING = f"() => {{ document.querySelector('{ARTICLE}').dataset.left = ''; }}"


def arrived(page, timeout: float = 60000) -> None:
    """The page a link was followed to (LEAVING marked the one left): its
    article in place, its formulas set and its code started."""
    page.wait_for_selector(f"{ARTICLE}:not([data-left])", timeout=timeout)
    page.wait_for_selector("body[data-mathjax=done][data-started]", timeout=timeout)


# what the map shows, read in the page (its drawing of the heads chosen):
# the parts drawn, the page's ones and their marks ("you are here": shaded
# and underlined, in ink), every mark outlined in the accent colour (the
# token the model picks alone), the key's names, the smallest text, the
# right edge of the map's box (a phone scrolls the drawing inside it) and
# the page's width
READ = r"""() => {
  const all = [...document.querySelectorAll('figure[data-figure="minimap"] svg.map-band')]
      .filter((s) => !s.closest('[hidden]'));
  const bands = all.filter((s) => s.checkVisibility());
  const probe = document.createElement('span');
  probe.style.color = 'var(--md-accent-fg-color)';
  document.querySelector('article').append(probe);
  const accent = getComputedStyle(probe).color;
  probe.remove();
  const figure = document.querySelector('figure[data-figure="minimap"]');
  const h1 = document.querySelector('article h1');
  const drawn = 'rect, path, circle, line, polygon, text';
  return {
    parts: all.flatMap((s) => [...s.querySelectorAll('g[data-part]')].map((g) => g.dataset.part)),
    here: all.flatMap((s) => [...s.querySelectorAll('g.here')].map((g) => g.dataset.part)),
    marks: all.flatMap((s) => [...s.querySelectorAll('g.here')].map((g) => {
      const box = g.querySelector(':scope > .here-box'), bar = g.querySelector(':scope > .here-bar');
      return box && bar ? [getComputedStyle(box).stroke, getComputedStyle(box).fill, getComputedStyle(bar).fill] : null;
    })),
    ink: getComputedStyle(figure.querySelector('svg.map-band text')).fill,
    outlined: all.flatMap((s) => [...s.querySelectorAll(drawn)].filter((el) => {
      const st = getComputedStyle(el);
      return st.stroke === accent && parseFloat(st.strokeWidth) > 0 && parseFloat(st.strokeOpacity) > 0;
    }).map((el) => ({cls: el.getAttribute('class'), title: el.querySelector(':scope > title')?.textContent ?? null}))),
    // the key's swatch of "you are here", and the words after it
    hereKey: [...figure.querySelectorAll('figcaption .swatch.here')].map((sw) => sw.nextSibling.textContent.trim().split('.')[0]),
    accent,
    smallest: Math.min(...bands.flatMap((s) => [...s.querySelectorAll('text')].map(
        (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))),
    right: Math.max(...bands.map((s) => s.closest('.map-bands').getBoundingClientRect().right)),
    width: document.documentElement.scrollWidth,
    afterTitle: h1.compareDocumentPosition(figure) & Node.DOCUMENT_POSITION_FOLLOWING,
    // the heads' lanes: their cells' titles name the head ("head 2, ...")
    lanes: new Set(all.flatMap((s) => [...s.querySelectorAll('g[data-part="heads"] rect > title')])
        .map((t) => t.textContent.split(',')[0])).size,
    softmax: all.flatMap((s) => [...s.querySelectorAll('g[data-part="softmax"] rect > title')])
        .map((t) => t.textContent),
  };
}"""


CHAPTERS = [("toy", ["", "tokens", "embedding", "positions", "layernorm", "attention", "mlp", "output",
                     "generation", "training"]),
            ("nano-gpt", ["", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
                          "transformer", "softmax", "output", "train"]),
            ("writer", ["", "inside", "write"])]


# How the map reads, and how the page opens (the drawing of the heads
# chosen): its labels (each <text>'s words, its letter after a space; a
# <title> is no label), the pairs of labels whose boxes overlap, for each
# block frame the names of heads and the MLP's inside it, each cell's
# width on the screen, the map's box against the screen and whether it
# scrolls (and says so); the first paragraph of prose (none in a figure)
# from the page's top, and the paragraphs before it.
MAP_READING = r"""() => {
  const figure = document.querySelector('figure[data-figure="minimap"]');
  if (!figure) return null;
  const svg = [...figure.querySelectorAll('svg.map-band')].find((s) => s.checkVisibility());
  const words = (t) => [...t.childNodes].filter((n) => n.nodeName !== 'title').map((n) => n.textContent)
      .join(' ').replace(/\s+/g, ' ').trim();
  const texts = [...svg.querySelectorAll('text')].filter((t) => t.checkVisibility()).map((t) => {
    const r = t.getBoundingClientRect();
    return {text: words(t), l: r.left, t: r.top, r: r.right, b: r.bottom};
  });
  const overlaps = [];
  texts.forEach((a, i) => texts.slice(i + 1).forEach((b) => {
    if (a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5) overlaps.push([a.text, b.text]);
  }));
  const named = texts.filter((t) => /^head \d+$|^MLP$/.test(t.text));
  const frames = [...svg.querySelectorAll('rect.block')].map((f) => {
    const r = f.getBoundingClientRect();
    return named.filter((t) => t.l >= r.left && t.r <= r.right && t.t >= r.top && t.b <= r.bottom).map((t) => t.text);
  });
  const bands = svg.closest('.map-bands'), box = bands.getBoundingClientRect();
  const more = bands.nextElementSibling;
  const paragraphs = [...document.querySelectorAll('article p')].filter((p) => p.checkVisibility());
  const prose = paragraphs.find((p) => !p.closest('figure'));
  return {
    labels: texts.map((t) => t.text), overlaps, frames,
    heads: named.filter((t) => t.text !== 'MLP').map((t) => t.text),
    cells: [...svg.querySelectorAll('rect[class^="v-"]')].map((c) => c.getBoundingClientRect().width),
    left: box.left, right: box.right, screen: document.documentElement.clientWidth,
    page: document.documentElement.scrollWidth,
    scrolls: bands.scrollWidth > bands.clientWidth + 1,
    saysSo: bands.hasAttribute('data-scrolls') && !!more && more.checkVisibility(),
    keyOpen: figure.querySelector('details.map-key').open,
    proseTop: prose.getBoundingClientRect().top + scrollY,
    before: paragraphs.slice(0, paragraphs.indexOf(prose)).map((p) => p.textContent.trim().slice(0, 60)),
  };
}"""


# WCAG's contrast of two CSS colours: rgb() reads one (its alpha the
# fourth number, if any), lum() is its relative luminance.
WCAG = r"""
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""


# The contrast of every visible text of every figure with what is behind
# its centre: the first filled shape under it (a bar, a cell, blended over
# the page by its opacity), else the page.
CONTRASTS = r"""() => {""" + WCAG + r"""
  const page = rgb(getComputedStyle(document.body).backgroundColor);
  const alpha = (e) => {     // how much of its fill covers what is behind: 0 for none or transparent
    const s = getComputedStyle(e);
    if (s.fill === 'none' || !s.fill.startsWith('rgb')) return 0;
    const c = rgb(s.fill);
    return (c.length > 3 ? c[3] : 1) * Number(s.fillOpacity) * Number(s.opacity);
  };
  const out = [];
  for (const text of document.querySelectorAll('svg.fig text')) {
    const box = text.getBoundingClientRect();
    if (!box.width || !text.checkVisibility()) continue;
    text.scrollIntoView({block: 'center'});
    const b = text.getBoundingClientRect();
    const under = document.elementsFromPoint(b.x + b.width / 2, b.y + b.height / 2)
        .find((e) => e !== text && !text.contains(e) && e.closest('svg') && ['rect', 'circle', 'path'].includes(e.tagName)
             && alpha(e) > 0);
    let back = page;
    if (under) {
      const a = alpha(under);
      back = rgb(getComputedStyle(under).fill).map((v, i) => v * a + page[i] * (1 - a));
    }
    const fill = rgb(getComputedStyle(text).fill);
    out.push({text: text.textContent, ratio: ratio(fill, back)});
  }
  return out;
}"""


# A button's label against what is behind it: its own fill, else the
# nearest ancestor's.
BUTTON_CONTRAST = r"""(b) => {""" + WCAG + r"""
  let e = b, fill = rgb(getComputedStyle(e).backgroundColor);
  while (e.parentElement && fill.length === 4 && fill[3] === 0) {
    e = e.parentElement;
    fill = rgb(getComputedStyle(e).backgroundColor);
  }
  return ratio(rgb(getComputedStyle(b).color), fill);
}"""


# Each shown text of each figure, and each of its <tspan>s, at the size the
# reader sees: its font size times the scale of its drawing on the screen
# (a viewBox wider than the column shrinks its text; a turned text keeps
# its size, hence the length of the CTM's first column).
RENDERED_SIZES = r"""() => [...document.querySelectorAll('svg.fig text, svg.fig tspan')]
  .filter((t) => t.getClientRects().length && t.checkVisibility())
  .map((t) => { const m = t.getScreenCTM();
                return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)]; })"""


# The pages of nano-gpt's and "What changed"'s figures, and the figures on each.
NANO_FIGURES = {"/nano-gpt/self-attention/": ["nano-attention"], "/nano-gpt/transformer/": ["nano-residual"],
                "/nano-gpt/output/": ["nano-generate"], "/nano-gpt/preliminaries/": ["nano-loss"],
                "/what-changed/": ["modern-params", "modern-rope", "modern-kv"]}


# The pages whose colours axe reads, in each scheme: one of each kind, and
# each page with controls of its own (the letters, the two trainers). The
# others are drawn by the same stylesheet; their figures' texts are read
# on every page in both schemes (CONTRASTS).
MAIN_PAGES = ["/", "/toy/attention/", "/toy/training/", "/nano-gpt/", "/nano-gpt/self-attention/",
              "/nano-gpt/train/", "/end-to-end/", "/what-changed/", "/glossary/", "/contributing/"]


def our_module(name: str) -> str:
    """A JavaScript expression: the promise of docs/javascripts/NAME.js's
    exports, the very module the page runs (a module is one per address,
    found beside the page's one script, book.js, as the browser fetched it:
    after instant navigation the script's relative src reads against
    another page)."""
    return ("import(new URL('" + name + ".js', performance.getEntriesByType('resource')"
            ".find((e) => e.name.endsWith('/javascripts/book.js')).name).href)")


# the TeX errors MathJax reported on this visit (mathjax-config.js)
MATHJAX_ERRORS = "() => " + our_module("mathjax-config") + ".then((m) => m.errors)"


# The text of the element (a selector), as innerText gives it, with what
# End to End lays out only near the screen (content-visibility: auto,
# book.css) read as it shows once the reader scrolls there: innerText
# leaves out what is not laid out.
SHOWN_TEXT = """(selector) => {
  const all = document.createElement('style');
  all.textContent = '* { content-visibility: visible !important; }';
  document.head.append(all);
  try { return document.querySelector(selector).innerText; } finally { all.remove(); }
}"""


# Each figure's text boxes (issue 50): two that overlap (by more than a
# pixel across and two down: a line's leading may touch the next), or one
# past its drawing's edge, as [what, text, the figure's kind].
LABELS = """() => {
  const out = [];
  for (const svg of document.querySelectorAll('article svg')) {
    if (!svg.checkVisibility() || svg.getBoundingClientRect().width < 2) continue;
    const box = svg.getBoundingClientRect();
    const kind = svg.closest('figure')?.dataset.figure || svg.closest('[class]')?.className || '';
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.checkVisibility() && t.textContent.trim())
      .map((t) => [t.textContent.trim(), t.getBoundingClientRect()]);
    for (const [s, r] of texts) {
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push(['past the edge', s, kind]);
    }
    texts.forEach(([a, ra], i) => texts.slice(i + 1).forEach(([b, rb]) => {
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 2) out.push(['on each other', `${a} | ${b}`, kind]);
    }));
  }
  return out;
}"""
