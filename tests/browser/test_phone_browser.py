"""On a phone (375 px, in chromium): a token never breaks inside itself nor
is set under 11 px in a table, a code block's copy button covers none of
its text, a display formula wider than the column scrolls and shows it (a
shadow inside the edge where more is hidden, as the screen shows it: pixels
of a screenshot, at both ends of the scroll), and a tap on a figure's mark
shows its number, as pointing at it does with a mouse (tips.js)."""
from __future__ import annotations

import struct
import zlib

import pytest

from tests.browser.test_every_page_browser import every_page
from toycalc.model.tokenizer import show

PHONE = 375

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


def pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """A screenshot's (width, height, rows of RGBA bytes): Playwright's PNGs
    are 8-bit RGBA or RGB, not interlaced."""
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
    for y in range(height):
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
    grey levels, summed over the rows (the formula's glyphs stay away from
    the edges' outer 3 px, its margins above and below are blank)."""
    width, height, rows = pixels(png)
    grey = lambda row, x: sum(row[4 * x:4 * x + 3]) // 3
    middle = [grey(rows[y], width // 2) for y in range(3)]
    return tuple(sum(abs(grey(rows[y], x) - middle[y]) for y in range(3)) for x in (1, width - 2))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tokens_stay_whole_and_wide_formulas_show_they_scroll(visit, site, toy, scheme):
    tokens = [show(t) for t in toy.vocab]
    v = visit(PHONE, scheme)
    broken, small, covered, no_cue, wide_seen, code_seen = {}, {}, {}, {}, 0, 0
    paths = every_page(site) if scheme == "light" else ["/toy/layernorm/"]   # dark: the cue's colours
    for path in paths:
        page = v.open(path)
        v.typeset_shown()
        if found := page.evaluate(BROKEN_TOKENS, tokens):
            broken[path] = found
        if found := page.evaluate(SMALL_CHIPS):
            small[path] = found[:3]
        blocks = page.evaluate(UNDER_COPY)
        code_seen += len(blocks)
        if under := [t for block in blocks for t in block]:
            covered[path] = under[:3]
        for i in page.evaluate(WIDE_FORMULAS):
            wide_seen += 1
            formula = page.locator(f'div.arithmatex[data-wide="{i}"]')
            formula.evaluate("(el) => el.scrollIntoView({block: 'center'})")   # clear of the sticky header
            start = edge_shades(formula.screenshot())
            formula.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
            end = edge_shades(formula.screenshot())
            # at the start only the right edge is shaded, at the end only the left
            # (a formula a few pixels too wide has a fainter shadow: its cover is near)
            if not (start[1] > 25 and start[0] < 10 and end[0] > 25 and end[1] < 10):
                no_cue.setdefault(path, []).append((start, end))
    assert broken == {}, f"tokens cut at {PHONE} px: {broken}"
    assert small == {}, f"tokens in tables under 11 px at {PHONE} px: {small}"
    assert covered == {}, f"code under its copy button at {PHONE} px: {covered}"
    assert code_seen > 0 or scheme == "dark", "no code block: the copy button goes untested"
    assert wide_seen > 0, "no formula wider than a phone's column: the cue goes untested"
    assert no_cue == {}, f"wide formulas with no cue of their scrolling (edge shades at start, end): {no_cue}"


def test_a_tap_on_a_mark_shows_its_number(visit):
    v = visit(PHONE, touch=True)
    page = v.open("/toy/attention/")
    mark = page.locator('figure[data-figure="attention"] svg.fig rect:has(> title)').locator("visible=true").first
    mark.scroll_into_view_if_needed()
    title = mark.locator("title").text_content().strip()
    assert page.locator(".fig-tip").count() == 0
    mark.tap()
    tip = page.locator(".fig-tip")
    assert tip.is_visible() and tip.text_content() == title
    tip_box, mark_box = tip.bounding_box(), mark.bounding_box()
    assert abs(tip_box["y"] - (mark_box["y"] + mark_box["height"])) < 40 or tip_box["y"] < mark_box["y"]
    assert tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= PHONE
    page.locator("article h1").tap()      # a tap elsewhere puts it away
    assert page.locator(".fig-tip").count() == 0
    # a nano-gpt cell, named in its title attribute
    page = v.open("/nano-gpt/embedding/")
    cell = page.locator("td.nano-cell[title]").locator("visible=true").first.element_handle()
    cell.scroll_into_view_if_needed()
    title = cell.get_attribute("title")
    cell.tap()
    assert page.locator(".fig-tip").text_content() == title
