"""The figures of the nano-gpt chapter in a real browser: a dot of the loss
curve says its value on hover, and every coloured cell's number reads at
4.5:1. That the figures (and "What changed"'s) fit the column on a desktop
and a phone, with axe content: the tour of every page,
test_every_page_browser.py. Fixtures chromium, server and visit: conftest.py."""
import pytest

from tests.browser.probes import FRAMES


def test_a_dot_says_its_value_on_hover(visit):
    """The loss curve: pointing at a dot shows its step and loss, its
    <title>'s words, in the book's box (tips.js)."""
    page = visit().open("/nano-gpt/preliminaries/")
    dot = page.locator('figure[data-figure="nano-loss"] circle.dot').nth(9)
    dot.scroll_into_view_if_needed()
    page.evaluate(FRAMES)   # the scroll's event fired: tips.js takes a mouse's box away on a scroll
    # at the dot's exact centre: the dots are 2 px wide, and Playwright's
    # hover point, rounded, can fall just outside one, onto the line under it
    box = dot.bounding_box()
    words = dot.evaluate("(el) => el.querySelector(':scope > title').textContent")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert words.startswith("step 10: loss ") and page.locator(".fig-tip").text_content() == words


# Each shown nano-gpt cell's number against its fill (blue, orange or purple
# at the cell's --shade, or the zero's grey, blended over the page): WCAG's
# contrast ratio. Light text on the dark scheme's light blue at full strength
# would be about 4:1 (#24): --toy-nano-strength weakens it there. A colour mixed
# in CSS (color-mix) computes as color(srgb r g b / a), its channels in [0, 1].
CELL_CONTRASTS = r"""() => {
  const rgba = (c) => {
    const v = (c.match(/[\d.]+/g) || []).map(Number);
    const rgb = c.startsWith('color(srgb') ? [...v.slice(0, 3).map((x) => x * 255), ...v.slice(3)] : v;
    return rgb.length > 3 ? rgb : [...rgb, 1];
  };
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (top, under) => under.map((u, i) => top[i] * top[3] + u * (1 - top[3]));
  const page = rgba(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  return [...document.querySelectorAll('td.nano-cell')].filter((c) => c.checkVisibility() && c.textContent.trim())
    .map((c) => { const back = over(rgba(getComputedStyle(c).backgroundColor), page);
                  return [c.title, ratio(over(rgba(getComputedStyle(c).color), back), back),
                          parseFloat(getComputedStyle(c).fontSize)]; });
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_cells_number_keeps_its_contrast(visit, scheme):
    """The Introduction's key, Embedding, Self Attention and Output, at the
    strongest shade of each colour too: every number reads at 4.5:1 or more,
    at 11 px or more on a phone."""
    visitor, seen = visit(375, scheme), 0
    tones = set()
    for path in ("/nano-gpt/", "/nano-gpt/embedding/", "/nano-gpt/self-attention/", "/nano-gpt/output/"):
        page = visitor.open(path)
        tones |= set(page.evaluate("[...document.querySelectorAll('td.nano-cell')].flatMap((c) => [...c.classList])"))
        cells = page.evaluate(CELL_CONTRASTS)
        assert cells, f"{path}: no cell"
        seen += len(cells)
        low = [(name, round(r, 2)) for name, r, _ in cells if r < 4.5]
        assert low == [], f"{path} ({scheme}): {len(low)} of {len(cells)} cells under 4.5:1, e.g. {low[:3]}"
        small = [(name, px) for name, _, px in cells if px < 11]   # at 375 px: the book's smallest text
        assert small == [], f"{path}: {len(small)} cells under 11 px, e.g. {small[:3]}"
    assert seen > 100
    assert {"nano-neg", "nano-zero", "nano-pos", "nano-prob", "nano-weight"} <= tones
