"""The code beside the formula, in chromium: closed on screen, opened by a
click; open, its text is at least 11 px on a phone and reads at 4.5:1 on
its background in both schemes, and the page keeps its width; on paper
every block prints open. The built HTML: tests/site/test_code_beside.py."""
import re

import pytest

from conftest import FORK, axe_violations

PAGES = ["/toy/attention/", "/nano-gpt/self-attention/", "/writer/write/"]

# Every text of each open code block: its size, and its contrast with the
# code's background (its colour blended over that background by its alpha).
READING = r"""() => {
  const rgba = (c) => { const v = (c.match(/[\d.]+/g) || []).map(Number); return v.length > 3 ? v : [...v, 1]; };
  const L = (rgb) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]); };
  const out = [];
  for (const code of document.querySelectorAll('article details.code[open] .highlight code')) {
    const bg = rgba(getComputedStyle(code).backgroundColor);
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const s = getComputedStyle(node.parentElement);
      const c = rgba(s.color);
      const seen = [0, 1, 2].map((k) => c[k] * c[3] + bg[k] * (1 - c[3]));
      const [a, b] = [L(seen), L(bg)];
      out.push({text: node.textContent.trim().slice(0, 20), size: parseFloat(s.fontSize),
                ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)});
    }
  }
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_open_code_reads_on_a_phone(visit, path, scheme):
    page = visit(375, scheme=scheme).open(path)
    blocks = page.locator("article details.code")
    assert blocks.count() >= 1
    first_closed = blocks.evaluate_all("(ds) => ds.findIndex((d) => !d.open)")
    if first_closed >= 0:
        block = blocks.nth(first_closed)
        assert block.locator(".highlight").is_hidden()         # closed on screen
        block.locator("summary").click()
        assert block.locator(".highlight").is_visible()        # a click opens it
    page.evaluate("document.querySelectorAll('article details.code').forEach((d) => { d.open = true; })")
    texts = page.evaluate(READING)
    assert texts, "no text in the open code"
    assert [t for t in texts if t["size"] < 11] == []
    assert [t for t in texts if t["ratio"] < 4.5] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375   # long lines scroll in their box


def test_open_code_has_no_accessibility_violation(visit):
    page = visit(1280, scheme="dark").open("/toy/attention/")
    page.evaluate("document.querySelectorAll('article details.code').forEach((d) => { d.open = true; })")
    # (landmark-unique: Material gives each code block's copy button a
    # <nav> without a name, so two open blocks are two alike landmarks;
    # the theme's markup, left as shipped)
    violations = axe_violations(page, skip=["landmark-unique"])
    assert [(x["id"], x["nodes"][0]["target"]) for x in violations
            if x["impact"] in ("serious", "critical", "moderate")] == []


def test_every_block_prints_open(visit):
    page = visit(1280, own_context=True).open("/toy/mlp/")
    page.emulate_media(media="print")
    heights = page.evaluate("""() => [...document.querySelectorAll('article details.code')]
        .map((d) => [d.open, d.querySelector('.highlight').getBoundingClientRect().height])""")
    assert len(heights) >= 2
    assert all(not is_open for is_open, _ in heights)            # closed, as on screen
    assert all(height > 20 for _, height in heights), heights      # yet their code is laid out on paper


def test_each_block_links_its_file_in_the_repository(visit):
    """The served site is built as the Pages workflow builds a fork (FORK,
    edit branch trunk): each block links its file there, at its first line."""
    page = visit(1280).open("/toy/output/")
    pairs = page.evaluate("""() => [...document.querySelectorAll('article details.code')]
        .map((d) => [d.querySelector('summary').textContent, d.querySelector('a[href*="/blob/"]').href])""")
    assert len(pairs) >= 2
    for title, href in pairs:
        path, line = re.search(r"(toycalc/[\w/]+\.py), line (\d+)", title).groups()
        assert href == f"{FORK}/blob/trunk/{path}#L{line}"
