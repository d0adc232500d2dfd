"""The figures of the nano-gpt chapter and of "What changed since 2017" in
a real browser, on a desktop and on a phone: each one is drawn within the
text column (no sideways scroll), its marks say their numbers on hover
(<title>), and axe finds nothing above minor on the page. Fixtures
chromium, server and visit: conftest.py."""
import pytest

from conftest import axe_violations

PAGES = {"/nano-gpt/self-attention/": ["nano-attention"], "/nano-gpt/transformer/": ["nano-residual"],
         "/nano-gpt/output/": ["nano-generate"], "/nano-gpt/preliminaries/": ["nano-loss"],
         "/what-changed/": ["modern-params", "modern-rope", "modern-kv"]}


@pytest.mark.parametrize("width", [1280, 375])
def test_the_figures_fit_and_pass_axe(visit, width):
    visitor = visit(width=width)
    for path, names in PAGES.items():
        page = visitor.open(path)
        for name in names:
            boxes = page.evaluate("""name => {
                const column = document.querySelector('.md-content__inner').getBoundingClientRect();
                return [...document.querySelectorAll(`figure[data-figure="${name}"] svg`)].map(svg => {
                    const r = svg.getBoundingClientRect();
                    return {left: r.left - column.left, right: column.right - r.right, width: r.width,
                            marks: svg.querySelectorAll('title').length};
                });
            }""", name)
            assert boxes, f"{path}: no {name}"
            for box in boxes:
                assert box["left"] >= -0.5 and box["right"] >= -0.5, (path, name, box)
                assert box["width"] >= 140 and box["marks"] > 0, (path, name, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
        violations = axe_violations(page)
        assert [(v["id"], len(v["nodes"])) for v in violations if v["impact"] != "minor"] == [], path


def test_a_dot_says_its_value_on_hover(visit):
    """The loss curve: pointing at a dot shows its step and loss (the
    browser's tooltip reads the <title>; the test reads what it would)."""
    page = visit().open("/nano-gpt/preliminaries/")
    dot = page.locator('figure[data-figure="nano-loss"] circle.dot').nth(9)
    dot.scroll_into_view_if_needed()
    # at the dot's exact centre: the dots are 2 px wide, and Playwright's
    # hover point, rounded, can fall just outside one, onto the line under it
    box = dot.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hovered = page.evaluate("[...document.querySelectorAll(':hover')].pop().querySelector('title').textContent")
    assert hovered.startswith("step 10: loss ")
