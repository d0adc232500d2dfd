"""End to End's steps on the model's drawing, in chromium: each step's bar
says what it is (a word beside its number, not a number alone), for every
heads choice; on a phone an open step's panel stands right under the step's
last band, and goes back among the panels when it closes; on a wide screen
it stays under the drawing."""
from __future__ import annotations

import re

import pytest

# the open step's panel against the drawing: where it is, the bottom of the
# step's last band, the top of the band after it (if any), the figure's bottom
WHERE = r"""(n) => {
  const panel = document.getElementById('step-' + n);
  const bands = [...document.querySelectorAll('#path .path-figure svg.model-band')];
  // the bands of the step's own parts (every band repeats the tokens' labels, step 1's part)
  const mine = bands.filter((b) => b.querySelector(`[data-step="${n}"]:not([data-part="tokens"])`));
  const last = mine[mine.length - 1], after = bands[bands.indexOf(last) + 1];
  return {top: panel.getBoundingClientRect().top, bottom: panel.getBoundingClientRect().bottom,
          lastBottom: last.getBoundingClientRect().bottom,
          nextTop: after ? after.getBoundingClientRect().top : null,
          figureBottom: document.querySelector('#path .path-figure').getBoundingClientRect().bottom,
          inFigure: !!panel.closest('.path-figure'),
          order: [...document.querySelectorAll('#path .path-panel')].map((p) => p.id)};
}"""
ORDER = [f"step-{n}" for n in range(1, 10)]


def test_on_a_phone_a_step_opens_right_under_its_bands(visit):
    page = visit(375).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    for n in range(1, 10):
        page.locator(f"#path-step-{n}").click()
        seen = page.evaluate(WHERE, n)
        assert seen["inFigure"], n
        assert 0 <= seen["top"] - seen["lastBottom"] < 40, (n, seen)
        if seen["nextTop"] is not None:       # the bands after it come after the panel
            assert seen["nextTop"] >= seen["bottom"], (n, seen)
        page.locator(f"#path-step-{n}").click()
        seen = page.evaluate(WHERE, n)
        assert not seen["inFigure"] and seen["order"] == ORDER, n


def test_on_a_wide_screen_a_step_opens_under_the_drawing(visit):
    page = visit(1280).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    for n in (1, 6, 9):
        page.locator(f"#path-step-{n}").click()
        seen = page.evaluate(WHERE, n)
        assert not seen["inFigure"] and seen["top"] >= seen["figureBottom"] and seen["order"] == ORDER, n


@pytest.mark.parametrize("width", [1280, 375])
def test_every_step_says_what_it_is(visit, width):
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    for heads in (2, 4, 1):
        page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
        # another choice than the build's waits for model_drawing.js, fetched then
        page.wait_for_function(f"document.querySelectorAll('#path [data-part=\"heads\"]').length === {heads}")
        labels = page.locator("#path g.path-step[role=button] text").all_text_contents()
        assert len(labels) == 9
        bare = [t for t in labels if not re.match(r"^\d\s+\S", t)]
        assert bare == [], f"{heads} heads: steps with a number alone: {bare}"
