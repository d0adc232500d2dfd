"""The "you are here" map in chromium (toycalc/book/minimap.py): on every
chapter page, under the title, every part drawn, the page's parts outlined
in the accent colour, text a phone can read, the numbers of the heads
shown, and a click on a part opens its page."""
from __future__ import annotations

import pytest

from toycalc.book import minimap
from toycalc.book.example import Example
from toycalc.book.model_drawing import PARTS
from toycalc.book.render import fixed
from toycalc.model.tokenizer import show

SHOWN = 'figure[data-figure="minimap"] svg.map-band'   # the map's bands; hidden variants have no boxes

# what the map shows, read in the page: the parts drawn, the outlined ones
# (their outline's colour and the accent's), the smallest text, the widest
# band's right edge and the page's width
READ = r"""() => {
  const bands = [...document.querySelectorAll('figure[data-figure="minimap"] svg.map-band')]
      .filter((s) => s.checkVisibility());
  const probe = document.createElement('span');
  probe.style.color = 'var(--md-accent-fg-color)';
  document.querySelector('article').append(probe);
  const accent = getComputedStyle(probe).color;
  probe.remove();
  const figure = document.querySelector('figure[data-figure="minimap"]');
  const h1 = document.querySelector('article h1');
  return {
    parts: bands.flatMap((s) => [...s.querySelectorAll('g[data-part]')].map((g) => g.dataset.part)),
    here: bands.flatMap((s) => [...s.querySelectorAll('g.here')].map((g) => g.dataset.part)),
    outlines: bands.flatMap((s) => [...s.querySelectorAll('g.here .here-box')].map((r) => getComputedStyle(r).stroke)),
    accent,
    smallest: Math.min(...bands.flatMap((s) => [...s.querySelectorAll('text')].map(
        (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))),
    right: Math.max(...bands.map((s) => s.getBoundingClientRect().right)),
    width: document.documentElement.scrollWidth,
    afterTitle: h1.compareDocumentPosition(figure) & Node.DOCUMENT_POSITION_FOLLOWING,
    lanes: bands.flatMap((s) => [...s.querySelectorAll('g[data-part="heads"] rect.strip')]).length,
    softmax: bands.flatMap((s) => [...s.querySelectorAll('g[data-part="softmax"] rect.strip title')])
        .map((t) => t.textContent),
  };
}"""

CHAPTERS = [("toy", ["", "tokens", "embedding", "positions", "layernorm", "attention", "mlp", "output",
                     "generation", "training"]),
            ("nano-gpt", ["", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
                          "transformer", "softmax", "output", "train"])]


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("chapter,pages", CHAPTERS)
def test_every_chapter_page_shows_where_it_is(visit, toy, chapter, pages, width):
    v = visit(width)
    ex = Example(toy)
    for name in pages:
        page = v.open(f"/{chapter}/{name}/" if name else f"/{chapter}/")
        seen = page.evaluate(READ)
        assert seen["afterTitle"], name
        assert seen["parts"] == PARTS, name
        assert seen["here"] == minimap.highlighted(chapter, (name or "index") + ".md"), name
        assert len(seen["outlines"]) == len(seen["here"]), name
        assert set(seen["outlines"]) <= {seen["accent"]}, name   # the accent's outline, as the visual language says
        assert seen["smallest"] >= 11, f"{name}: map text down to {seen['smallest']:.1f} px"
        assert seen["right"] <= width and seen["width"] <= width, name
        if chapter == "toy":         # the default heads, as the page shows them
            assert seen["lanes"] == ex.n_heads, name
            vocab = [show(t) for t in ex.model.vocab]
            at = f"{ex.model.show(ex.ids[-1])} (position {len(ex.ids)})"
            assert seen["softmax"] == [f"p after {at}: " + ", ".join(
                f"{t} {fixed(p)}" for t, p in zip(vocab, ex.trace["p"][-1]))], name


def test_the_toys_map_follows_the_heads_choice_on_every_page(visit, toy):
    """Chosen on Attention, the heads hold on a page without a chooser (Embedding's map)."""
    v = visit()
    page = v.open("/toy/attention/")
    for heads in (4, 1, 2, 4):
        page.locator(f'.heads-chooser input[value="{heads}"]').first.check()
        seen = page.evaluate(READ)
        ex = Example(toy, heads=heads)
        assert seen["lanes"] == heads
        assert seen["softmax"][0].endswith(", ".join(
            f"{show(t)} {fixed(p)}" for t, p in zip(ex.model.vocab, ex.trace["p"][-1])))
    page = v.open("/toy/embedding/")
    assert page.locator(".heads-chooser").count() == 0
    assert page.evaluate(READ)["lanes"] == 4


@pytest.mark.parametrize("start,part,target,title", [
    ("/toy/tokens/", "heads", "/toy/attention/", "Attention"),
    ("/toy/attention/", "next", "/toy/generation/", "Generation"),
    ("/nano-gpt/embedding/", "mlp", "/nano-gpt/mlp/", "MLP"),
    ("/nano-gpt/", "softmax", "/nano-gpt/softmax/", "Softmax")])
def test_a_click_on_a_part_opens_its_page(visit, start, part, target, title):
    page = visit(375).open(start)
    page.locator(f'{SHOWN} g[data-part="{part}"]').locator("visible=true").first.click()
    page.wait_for_url(f"**{target}")
    page.wait_for_selector("body[data-mathjax=done]", timeout=60000)
    assert title.lower() in page.locator("article h1").first.text_content().lower()
