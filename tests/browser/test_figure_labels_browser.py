"""Every label of every figure readable (#65 item 3), read in real chromium
on every page at 1280 and 375 px, in the light scheme and the dark, and on
toy Training's chart after Train: no figure text drawn over a mark that
stands for a number (one with a <title>) unless the text names it (RoPE's
k₅ sat on the arrow of q₅, the writer's names across other letters'
lines); every figure text at 4.5:1 or more against what is painted behind
its centre, a stroke (an arrow, an axis) as much as a fill (RoPE's q on its
axis read 2.33 in the dark); no cell of a scale under a pixel across (the
writer's strips took 30 px for 128 cells on a phone); and at 375 px no
element of the page wider than the screen outside a box that scrolls it.
One evaluation a page and configuration (FIGURES), so the four tours take
about two minutes. Fixtures: conftest.py."""
from __future__ import annotations

import pytest

from tests.browser import probes

CONFIGS = [(1280, "light"), (1280, "dark"), (375, "light"), (375, "dark")]
PHONE = 375

# What a page's figures show a reader. A text's colour against what is behind
# it: every shape of its drawing painted at the point (its stroke where the
# point is on the stroke, else its fill where inside), blended by its
# opacity, over the page. A mark a text is over: one painted at any of 15
# points inside the text's box whose <title> (its own or its group's) does
# not name the text (the text as a word of it, subscripts as digits).
# Returns {texts, low: [figure, text, ratio], over: [figure, text, the
# mark's title], squeezed: [figure, cell, width], wide: [element, text,
# left, right], page: the document's width}.
FIGURES = r"""() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const SHAPES = 'rect, circle, ellipse, path, polyline, polygon, line';
  const page = rgb(getComputedStyle(document.body).backgroundColor);
  // what a shape paints at a screen point (its stroke over its fill): [colour, how much covers] or null
  const paint = (e, x, y) => {
    const s = getComputedStyle(e), m = e.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(x, y).matrixTransform(m.inverse());
    const cover = (kind) => { const v = s[kind]; if (!v.startsWith('rgb')) return 0;
      const c = rgb(v); return (c.length > 3 ? c[3] : 1) * Number(s[kind + 'Opacity']) * Number(s.opacity); };
    if (cover('stroke') > 0 && parseFloat(s.strokeWidth) > 0 && e.isPointInStroke(p)) return [rgb(s.stroke), cover('stroke')];
    if (cover('fill') > 0 && e.isPointInFill(p)) return [rgb(s.fill), cover('fill')];
    return null;
  };
  // the shapes of `svg` painted at a point under `text`, bottom first, and the colour they make over the page
  const behind = (text, svg, x, y) => {
    const shapes = document.elementsFromPoint(x, y).filter((e) => svg.contains(e) && e.matches(SHAPES) && !text.contains(e)).reverse();
    let back = page; const hits = [];
    for (const e of shapes) { const p = paint(e, x, y); if (p) { back = p[0].slice(0, 3).map((v, i) => v * p[1] + back[i] * (1 - p[1])); hits.push(e); } }
    return {back, hits};
  };
  const plain = (s) => s.replace(/[₀-₉]/g, (d) => String(d.charCodeAt(0) - 0x2080)).replace(/\s+/g, ' ').trim();
  const words = (t) => plain([...t.childNodes].filter((n) => n.nodeName !== 'title').map((n) => n.textContent).join(''));
  const titleOf = (e) => e.querySelector(':scope > title') || (e.parentElement.matches('g') ? e.parentElement.querySelector(':scope > title') : null);
  const names = (name, title) => { const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[^\\p{L}\\p{N}])${esc}($|[^\\p{L}\\p{N}])`, 'u').test(plain(title)); };
  const out = {texts: 0, low: [], over: [], squeezed: [], wide: []};
  for (const svg of document.querySelectorAll('article svg')) {
    if (!svg.checkVisibility() || svg.getBoundingClientRect().width < 2) continue;
    const kind = svg.closest('figure')?.dataset.figure || svg.getAttribute('class') || '';
    for (const text of svg.querySelectorAll('text')) {
      const name = words(text);
      if (!name || !text.checkVisibility()) continue;
      out.texts += 1;
      text.scrollIntoView({block: 'center', inline: 'center'});
      const b = text.getBoundingClientRect();
      const centre = behind(text, svg, b.x + b.width / 2, b.y + b.height / 2);
      const r = ratio(rgb(getComputedStyle(text).fill), centre.back);
      if (r < 4.5) out.low.push([kind, name, Math.round(r * 100) / 100]);
      // the marks that stand for a number (a <title>) under the text's box, on a grid of points inside it
      const seen = new Set();
      for (let i = 1; i < 6; i++) for (let j = 1; j < 4; j++)
        for (const e of behind(text, svg, b.x + b.width * i / 6, b.y + b.height * j / 4).hits) {
          const t = titleOf(e);
          if (t && !seen.has(t) && !names(name, t.textContent)) { seen.add(t); out.over.push([kind, name, plain(t.textContent).slice(0, 50)]); }
        }
    }
    // a cell of a scale (a strip, a heat-map, a map) is a pixel across at least: bars are as long as their numbers
    for (const m of svg.querySelectorAll('rect[class^="v-"]')) {
      const r = m.getBoundingClientRect(), t = m.querySelector(':scope > title');
      if (t && r.width > 0 && Math.min(r.width, r.height) < 1) out.squeezed.push([kind, plain(t.textContent).slice(0, 40), Math.round(r.width * 100) / 100]);
    }
  }
  // past the screen's edges, in no box that scrolls it (a box that scrolls, inside the screen, may hold more)
  const screen = document.documentElement.clientWidth;
  const clips = (e) => /auto|scroll|hidden|clip/.test(getComputedStyle(e).overflowX);
  for (const e of document.querySelectorAll('.md-content *')) {   // the page's column (the nav's drawer waits off the screen)
    const r = e.getBoundingClientRect();
    if (r.width === 0 || (r.right <= screen + 1 && r.left >= -1) || !e.checkVisibility()) continue;
    let a = e.parentElement;
    while (a && a !== document.body && !clips(a)) a = a.parentElement;
    if (a && a !== document.body) { const box = a.getBoundingClientRect(); if (box.right <= screen + 1 && box.left >= -1) continue; }
    const parent = e.parentElement.getBoundingClientRect();
    if (parent.right > screen + 1 || parent.left < -1) continue;   // its parent is named
    out.wide.push([e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : ''),
                   (e.textContent || '').trim().slice(0, 40), Math.round(r.left), Math.round(r.right)]);
  }
  out.page = document.documentElement.scrollWidth;
  window.scrollTo(0, 0);
  return out;
}"""


def has_figure(site, path) -> bool:
    return 'class="fig' in (site / path.strip("/") / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tours(chromium, server, site):
    """tours(width, scheme) -> {page: what FIGURES read there}, each taken
    once: every page at 375 px (the widths of all), the figures' pages at
    1280, and toy Training after Train (its chart, drawn in the page)."""
    from conftest import Visit
    taken: dict = {}

    def take(width, scheme):
        if (width, scheme) not in taken:
            v = Visit(chromium, server, width, scheme)
            seen = {}
            for path in probes.every_page(site):
                if width == PHONE or has_figure(site, path):
                    seen[path] = v.open(path).evaluate(FIGURES)
            page = v.open("/toy/training/")
            page.wait_for_selector("[data-toy-trainer][data-ready]:not([hidden]) #toy-training-one")
            page.get_by_role("button", name="Train").click()
            page.wait_for_selector("[data-toy-trainer][data-ready]:not([data-busy]) figure[data-figure='training'] svg")
            seen["/toy/training/ after Train"] = page.evaluate(FIGURES)
            assert v.errors == [] and v.outside == []
            v.context.close()
            taken[width, scheme] = seen
        return taken[width, scheme]
    return take


def found(seen: dict, key: str) -> dict:
    return {path: read[key] for path, read in seen.items() if read[key]}


@pytest.mark.parametrize("width, scheme", CONFIGS)
def test_no_figure_text_is_drawn_over_a_mark_it_does_not_name(tours, width, scheme):
    seen = tours(width, scheme)
    assert sum(read["texts"] for read in seen.values()) > 800     # every figure's text read
    assert "/toy/training/ after Train" in found(seen, "texts")
    assert found(seen, "over") == {}


@pytest.mark.parametrize("width, scheme", CONFIGS)
def test_every_figure_text_keeps_4_5_to_1_against_what_is_behind_it(tours, width, scheme):
    assert found(tours(width, scheme), "low") == {}


@pytest.mark.parametrize("width, scheme", CONFIGS)
def test_no_cell_of_a_figure_is_squeezed_under_a_pixel(tours, width, scheme):
    assert found(tours(width, scheme), "squeezed") == {}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_nothing_is_wider_than_the_screen_outside_a_box_that_scrolls(tours, site, scheme):
    seen = tours(PHONE, scheme)
    assert set(probes.every_page(site)) <= set(seen)
    assert found(seen, "wide") == {}
    assert {path: read["page"] for path, read in seen.items() if read["page"] > PHONE} == {}
