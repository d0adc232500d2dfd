"""The charts' colours, as chromium computes them in both schemes (figures.css):
any two series of one chart are at least MIN_DELTA_E apart (CIE76: the
Euclidean distance in CIE L*a*b*, D65), and a colour means one thing across
the book's charts: the book's run, the reader's run, a probability, each
letter, each part of What changed, never two of them."""
from __future__ import annotations

import itertools
import re

import pytest

MIN_DELTA_E = 20

# every keyed chart on the page: [figure, series name, colour] per key mark
KEYS = r"""() => [...document.querySelectorAll('figure svg.fig')].flatMap((svg) => {
  const figure = svg.closest('figure').dataset.figure || svg.closest('figure').className;
  return [...svg.querySelectorAll('path.series, rect.key')].filter((m) => m.matches('rect') || /h18$/.test(m.getAttribute('d')))
    .map((m) => [figure, m.nextElementSibling.textContent,
                 getComputedStyle(m)[m.matches('rect') ? 'fill' : 'stroke']]);
})"""

# a series' name on the page, as the one thing its colour means
MEANING = {"loss L": "your run", "p(␣roof)": "a probability", "p(␣wall)": "a probability"}


def lab(rgb: str) -> tuple[float, float, float]:
    """'rgb(r, g, b)' in CIE L*a*b* (sRGB, D65)."""
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


def test_delta_e_is_cie76():
    """Known values: black to white is 100; sRGB red is L* 53.2, a* 80.1, b* 67.2."""
    assert delta_e("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(100, abs=0.01)
    assert lab("rgb(255, 0, 0)") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def charts(visit, scheme: str) -> list:
    v = visit(scheme=scheme)
    keys = []
    page = v.open("/toy/training/")
    page.wait_for_selector("[data-toy-trainer][data-ready]:not([hidden]) #toy-training-one")
    page.get_by_role("button", name="Train").click()
    page.wait_for_selector('figure[data-figure="training"] svg')
    keys += page.evaluate(KEYS)
    page = v.open("/nano-gpt/train/")
    page.get_by_label("Step limit").fill("1")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle' && "
                           "document.querySelectorAll('.nano-train-loss svg path.series').length >= 2", timeout=120_000)
    keys += page.evaluate(KEYS)
    for path in ("/what-changed/", "/nano-gpt/output/", "/nano-gpt/preliminaries/"):
        keys += v.open(path).evaluate(KEYS)
    return keys


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_series_colours_are_far_apart_and_each_means_one_thing(visit, scheme):
    keys = charts(visit, scheme)
    by_figure: dict[str, dict[str, str]] = {}
    for figure, name, colour in keys:
        by_figure.setdefault(figure, {})[name] = colour
    assert {"training", "toy-figure nano-train-loss", "modern-params", "modern-kv", "nano-generate"} <= set(by_figure)
    assert by_figure["toy-figure nano-train-loss"].keys() == {"the book's run", "your run"}
    close = [(figure, a, b, round(delta_e(by_figure[figure][a], by_figure[figure][b]), 1))
             for figure, series in by_figure.items() for a, b in itertools.combinations(series, 2)
             if delta_e(series[a], series[b]) < MIN_DELTA_E]
    assert close == []
    meanings: dict[str, set] = {}
    for figure, name, colour in keys:
        meanings.setdefault(colour, set()).add(MEANING.get(name, name))
    assert {c: m for c, m in meanings.items() if len(m) > 1} == {}
    # the reader's run is one colour on both training charts
    assert by_figure["training"]["loss L"] == by_figure["toy-figure nano-train-loss"]["your run"]


# the keys written in HTML beside a figure (RoPE's q and k): [figure, name, colour]
SWATCHES = r"""() => [...document.querySelectorAll('.fig-legend .swatch')]
  .filter((s) => /\bs[1-5]\b/.test(s.className))
  .map((s) => [s.closest('.fig-legend').className, (s.nextSibling?.textContent || '').trim().replace(/[;,.]$/, ''),
               getComputedStyle(s).backgroundColor])"""

# the book's signed scale and its scale of shares, as the page computes them
PALETTE = r"""() => { const s = getComputedStyle(document.querySelector('svg.fig'));
  const rgb = (v) => { const e = document.createElement('i'); e.style.color = v; document.body.append(e);
                       const c = getComputedStyle(e).color; e.remove(); return c; };
  return {positive: rgb(s.getPropertyValue('--fig-pos')), negative: rgb(s.getPropertyValue('--fig-neg')),
          'a share from 0 to 1': rgb(s.getPropertyValue('--fig-prob'))}; }"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_what_changed_draws_no_series_in_a_colour_that_means_something_else(visit, scheme):
    """What changed's charts and RoPE's figure with its HTML key (issue 50:
    RoPE's q was drawn in the purple of "0 to 1", a bar's "other" in a
    brown close to "positive"): every series, keyed in the drawing or beside
    it, is at least MIN_DELTA_E from the signed scale's two ends and from
    the purple of a share, and from the other series of its figure."""
    page = visit(scheme=scheme).open("/what-changed/")
    keys = page.evaluate(KEYS) + page.evaluate(SWATCHES)
    palette = page.evaluate(PALETTE)
    assert {f for f, _, _ in keys} >= {"modern-params", "fig-legend fig-key modern-rope-key"}, keys
    assert {n for f, n, _ in keys if "rope" in f} == {"q", "k"}
    near = [(f, n, meaning, round(delta_e(c, ref), 1)) for f, n, c in keys for meaning, ref in palette.items()
            if delta_e(c, ref) < MIN_DELTA_E]
    assert near == []
    by_figure: dict[str, dict[str, str]] = {}
    for f, n, c in keys:
        by_figure.setdefault(f, {})[n] = c
    close = [(f, a, b) for f, series in by_figure.items() for a, b in itertools.combinations(series, 2)
             if delta_e(series[a], series[b]) < MIN_DELTA_E]
    assert close == []
