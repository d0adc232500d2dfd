"""The series colours of every chart of the book, as chromium computes them
in both schemes (figures.css), on every page and on the charts a run draws
(toy Training, Train it yourself): a colour means one thing in the whole
book and a meaning has one colour (#65: green meant the toy's loss, the
reader's run and the writer's training text; teal letter A and the writer's
training text). Read from each chart's key (the names beside its swatches,
in the drawing or in HTML beside it), the name mapped to what it means.
Every line, segment, dot and arrow of a series is drawn in its key's
colour; a chart without a key draws its one line in ink. Any two series of
one chart are at least MIN_DELTA_E apart (CIE76: the Euclidean distance in
CIE L*a*b*, D65), two colours of different meanings anywhere at least
MIN_BOOK_DELTA_E, and no series but a probability is near the signed
scale's ends or the purple of a share."""
from __future__ import annotations

import itertools
import re

import pytest

from tests.browser import probes

MIN_DELTA_E = 20
MIN_BOOK_DELTA_E = 15

# Every chart on the page: its keys (in the drawing: a key line or box and
# the name after it; in HTML: a swatch s1..s5 and the words after it) and
# every mark of a series (class s1..s5) with its colour, plus the book's
# ink, its signed scale and its share's purple as this page computes them.
SERIES = r"""() => {
  const S = '.s1, .s2, .s3, .s4, .s5';
  const colour = (m) => { const s = getComputedStyle(m);
    return m.matches('span') ? s.backgroundColor : m.matches('rect, circle') ? s.fill : s.stroke; };
  const cls = (m) => m.closest(S).getAttribute('class').match(/\bs[1-5]\b/)[0];
  const figures = [];
  for (const svg of document.querySelectorAll('svg.fig')) {
    const marks = [...svg.querySelectorAll('polyline.series, rect.seg, circle.dot, g.arrow > path:not(.head)')]
      .filter((m) => m.closest(S));
    if (!marks.length || !svg.checkVisibility()) continue;
    const figure = svg.closest('figure');
    const name = figure.dataset.figure || figure.className;
    const keys = [...svg.querySelectorAll('path.series, rect.key')]
      .filter((m) => m.matches('rect') || /h18$/.test(m.getAttribute('d')))
      .map((m) => [cls(m), m.nextElementSibling.textContent, colour(m)]);
    // an HTML key: in the figure, or beside small multiples, named for them
    const legends = new Set([...figure.querySelectorAll('.fig-legend'),
                             ...(figure.dataset.figure ? document.querySelectorAll(`.fig-legend.${name}-key`) : [])]);
    for (const legend of legends)
      keys.push(...[...legend.querySelectorAll('.swatch')].filter((w) => w.matches(S))
        .map((w) => [cls(w), (w.nextSibling?.textContent || '').trim().replace(/[;,.]$/, ''), colour(w)]));
    figures.push({figure: name, keys, marks: marks.map((m) => [cls(m), colour(m)])});
  }
  const rgb = (v) => { const e = document.createElement('i'); e.style.color = v; document.body.append(e);
                       const c = getComputedStyle(e).color; e.remove(); return c; };
  const s = getComputedStyle(document.querySelector('article') || document.body);
  return {figures, palette: {ink: rgb(s.getPropertyValue('--fig-ink')),
    positive: rgb(s.getPropertyValue('--fig-pos')), negative: rgb(s.getPropertyValue('--fig-neg')),
    'a share from 0 to 1': rgb(s.getPropertyValue('--fig-prob'))}};
}"""

# a series' name in a key, as the one thing its colour means (else the name itself)
MEANING = {"your run: loss L": "your run", "your run": "your run",
           "the book's run": "the book's run", "training text": "the book's run",
           "held-out text": "held-out text"}


def meaning(name: str) -> str:
    return "a probability" if re.fullmatch(r"p\(.+\)", name) else MEANING.get(name, name)


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


def every_chart(visit, site, scheme: str) -> tuple[list, dict]:
    """Every chart of every page, [(page, chart)], with the charts a run
    draws (toy Training after Train, Train it yourself after one step), and
    the page's palette."""
    v = visit(scheme=scheme)
    charts, palette = [], None
    for path in probes.every_page(site):
        read = v.open(path).evaluate(SERIES)
        charts += [(path, c) for c in read["figures"]]
        palette = palette or read["palette"]
    page = v.open("/toy/training/")
    page.wait_for_selector("[data-toy-trainer][data-ready]:not([hidden]) #toy-training-one")
    page.get_by_role("button", name="Train").click()
    page.wait_for_selector('figure[data-figure="training"] svg')
    charts += [("/toy/training/ trained", c) for c in page.evaluate(SERIES)["figures"]]
    page = v.open("/nano-gpt/train/")
    page.get_by_label("Step limit").fill("1")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle' && "
                           "document.querySelectorAll('.nano-train-loss svg path.series').length >= 2", timeout=120_000)
    charts += [("/nano-gpt/train/ run", c) for c in page.evaluate(SERIES)["figures"]]
    return charts, palette


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_series_colour_means_one_thing_in_the_whole_book(visit, site, scheme):
    charts, palette = every_chart(visit, site, scheme)
    names = {c["figure"] for _, c in charts}
    assert {"training", "toy-figure nano-train-loss", "nano-generate", "nano-loss", "nano-residual",
            "writer-curves", "modern-params", "modern-kv", "modern-rope"} <= names, names
    colours: dict[str, set] = {}      # colour: the meanings it has
    meanings: dict[str, set] = {}     # meaning: its colours
    unkeyed, off_key, close = [], [], []
    for path, chart in charts:
        where = f"{path} {chart['figure']}"
        key = {cls: colour for cls, _, colour in chart["keys"]}
        if not chart["keys"]:
            # a chart's only line, in ink (the book's run, a size along the blocks)
            key = {"s1": palette["ink"]}
            if {cls for cls, _ in chart["marks"]} != {"s1"}:
                unkeyed.append(where)
        for cls, name, colour in chart["keys"]:
            colours.setdefault(colour, set()).add(meaning(name))
            meanings.setdefault(meaning(name), set()).add(colour)
        off_key += [(where, cls, colour) for cls, colour in chart["marks"] if key.get(cls) != colour]
        close += [(where, a[1], b[1], round(delta_e(a[2], b[2]), 1))
                  for a, b in itertools.combinations(chart["keys"], 2)
                  if a[1] != b[1] and delta_e(a[2], b[2]) < MIN_DELTA_E]
    assert unkeyed == [], "charts of several series without a key"
    assert off_key == [], "series drawn in a colour their key does not show"
    assert close == [], "two series of one chart close in colour"
    assert {c: m for c, m in colours.items() if len(m) > 1} == {}, "a colour with two meanings"
    assert {m: c for m, c in meanings.items() if len(c) > 1} == {}, "a meaning in two colours"
    apart = [(sorted(colours[a]), sorted(colours[b]), round(delta_e(a, b), 1))
             for a, b in itertools.combinations(colours, 2) if delta_e(a, b) < MIN_BOOK_DELTA_E]
    assert apart == [], "colours of different meanings a reader could take for one"
    # a probability is the purple of a share; every other series keeps away from the book's scales
    assert meanings["a probability"] == {palette["a share from 0 to 1"]}
    assert meanings["the book's run"] == {palette["ink"]}
    near = [(sorted(m), scale, round(delta_e(c, ref), 1)) for c, m in colours.items() if m != {"a probability"}
            for scale, ref in palette.items() if scale != "ink" and delta_e(c, ref) < MIN_DELTA_E]
    assert near == []
    # the reader's run, the book's run, the writer's held-out text: each drawn, each its own colour
    assert {"your run", "the book's run", "held-out text", "A", "B", "C", "q", "k"} <= set(meanings)
