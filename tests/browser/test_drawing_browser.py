"""The whole model's drawing as a reader meets it, in chromium, on Home and
End to End: named in words, its block one frame around every head and the
MLP, no label over another, each step once, for every heads choice, a
sentence of one token and one as long as the toy reads, at 1280 and 375;
on End to End an open step's panel comes right under the drawing, with the
drawing's top half still on the screen at 1280 x 800."""
from __future__ import annotations

import re

import pytest

from tests.browser.probes import DRAWN_HEADS
from toycalc.book.example import Example

# What the drawing shown shows: its words, the block's frame against every
# head's label and the MLP's, any two labels that overlap, the steps' numbers.
SEEN = r"""(scope) => {
  const svg = [...document.querySelectorAll(scope + ' svg.model-band')].find((s) => s.checkVisibility());
  const box = (el) => el.getBoundingClientRect();
  const within = (inner, outer) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 &&
    inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
  const texts = [...svg.querySelectorAll('text')].filter((t) => t.getClientRects().length && t.textContent.trim());
  const frames = [...svg.querySelectorAll('rect.block')];
  const held = [...svg.querySelectorAll('g[data-part="heads"] text.hdr, g[data-part="mlp"] text.hdr')];
  const overlaps = [];
  texts.forEach((a, i) => texts.slice(i + 1).forEach((b) => {
    const p = box(a), q = box(b);
    const x = Math.min(p.right, q.right) - Math.max(p.left, q.left), y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (x > 0.5 && y > 0.5) overlaps.push([a.textContent, b.textContent]);
  }));
  return {words: texts.map((t) => t.textContent).join(' '), frames: frames.length,
          held: held.map((t) => t.textContent), outside: frames.length === 1 ?
            held.filter((t) => !within(box(t), box(frames[0]))).map((t) => t.textContent) : null,
          overlaps, steps: [...svg.querySelectorAll('.step-n')].map((t) => t.textContent)};
}"""
WORDS = ("Tokens", "Embedding", "Attention", "MLP", "Probabilities", "Output")


def assert_reads(seen, heads, steps):
    for words in WORDS if steps else WORDS[:-1]:
        assert words in seen["words"], words
    assert seen["frames"] == 1
    assert seen["held"] == [f"head {h + 1}" for h in range(heads)] + ["MLP m"]
    assert seen["outside"] == []
    assert seen["overlaps"] == []
    if steps:
        numbers = [t.split()[0] for t in seen["steps"]]
        assert numbers == [str(n) for n in range(1, 10)], seen["steps"]


@pytest.mark.parametrize("width", [1280, 375])
def test_end_to_ends_drawing_reads_in_words_with_one_block(visit, width, toy):
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    longest = "the cat climbed the roof. the"             # as many tokens as the toy reads
    assert len(Example(toy, text=longest).ids) == toy.cfg.n_ctx
    for text in ("the", longest, Example(toy).text):
        page.locator("#sim-text").fill(text)
        for heads in (4, 1, 2):
            page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
            page.wait_for_function(DRAWN_HEADS, arg=heads)
            seen = page.evaluate(SEEN, "#path")
            assert_reads(seen, heads, steps=True)
            rows = page.locator('#path g[data-part="tokens"]').first.locator("text.lbl").count()
            assert rows == (1 if text == "the" else toy.cfg.n_ctx if text == longest else 5), text


@pytest.mark.parametrize("width", [1280, 375])
def test_homes_drawing_reads_in_words_with_one_block(visit, width):
    page = visit(width).open("/")
    for heads in (4, 1, 2):
        page.locator(f'.heads-chooser input[value="{heads}"]').first.check()
        seen = page.evaluate(SEEN, ".home-figure")
        assert_reads(seen, heads, steps=False)


def test_homes_first_screen_holds_the_whole_drawing(visit):
    page = visit(1280, own_context=True).open("/")
    page.set_viewport_size({"width": 1280, "height": 800})
    where = page.evaluate("""() => { const svg = [...document.querySelectorAll('.home-figure svg.model-band')]
      .find((s) => s.checkVisibility()); const r = svg.getBoundingClientRect();
      return {top: r.top, bottom: r.bottom, chooser: document.querySelector('.heads-chooser').getBoundingClientRect().top}; }""")
    assert where["top"] > 0 and where["bottom"] <= 800, where
    assert where["chooser"] > 800, where          # the heads chooser is told in the story, further down


@pytest.mark.parametrize("heads", [1, 4])
def test_an_open_step_leaves_the_drawing_in_view(visit, heads):
    """At 1280 x 800, after a click on any step, the drawing's top half and
    the step panel's title are on the screen together; the panel lies right
    under the drawing, and the tools (buttons, chooser, drawers) after it."""
    page = visit(1280, own_context=True).open("/end-to-end/")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_selector("#sim-text")
    page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
    # another choice than the build's is drawn once model_drawing.js has come
    # (path.js): drawn after a step opened, it moved the step's panel
    page.wait_for_function(DRAWN_HEADS, arg=heads)
    for n in (1, 9, 6, 2, 8, 3, 7, 4, 5):
        page.locator(f"#path-step-{n}").click()
        page.wait_for_timeout(50)
        seen = page.evaluate("""(n) => {
          const figure = document.querySelector('#path .path-figure').getBoundingClientRect();
          const drawing = document.querySelector('#path svg.model-band').getBoundingClientRect();
          const panel = document.getElementById('step-' + n), title = panel.querySelector('.path-title');
          const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
          return {header, top: drawing.top, half: drawing.top + drawing.height / 2, figureBottom: figure.bottom,
                  panelTop: panel.getBoundingClientRect().top, title: title.getBoundingClientRect().bottom,
                  tools: document.querySelector('.sim-under').getBoundingClientRect().top};
        }""", n)
        assert seen["top"] >= seen["header"] - 1 and seen["half"] <= 800, (n, seen)
        assert seen["title"] <= 800, (n, seen)
        assert 0 <= seen["panelTop"] - seen["figureBottom"] < 40 and seen["tools"] > seen["panelTop"], (n, seen)


def test_on_a_phone_a_step_opens_right_under_the_drawing(visit):
    page = visit(375).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    for n in (1, 6, 9):
        page.locator(f"#path-step-{n}").click()
        gap = page.evaluate("""(n) => document.getElementById('step-' + n).getBoundingClientRect().top -
          document.querySelector('#path .path-figure').getBoundingClientRect().bottom""", n)
        assert 0 <= gap < 40, (n, gap)
        # the drawing scrolls sideways as one unit: the page itself never gets wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("width", [1280, 375])
def test_every_step_says_what_it_is(visit, width):
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    for heads in (2, 4, 1):
        page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
        # another choice than the build's waits for model_drawing.js, fetched then
        page.wait_for_function(DRAWN_HEADS, arg=heads)
        labels = page.locator("#path g.path-step[role=button] text").all_text_contents()
        assert len(labels) == 9
        bare = [t for t in labels if not re.match(r"^\d\s+\S", t)]
        assert bare == [], f"{heads} heads: steps with a number alone: {bare}"
