"""What the simulator leaves for later (docs/javascripts/later.js). A keystroke
redraws in the same frame the parts of the page on the screen; a part off
the screen is built when it comes within half a screen of it, or when the
browser is idle. Here: such a part is deferred, is built before it comes
into view, and is right once shown (benchmarks/simulator_speed.py times
the frame)."""
from __future__ import annotations

from tests.browser.probes import our_module
from toycalc.book.example import Example
from toycalc.book.render import fixed

TEXT = "the cat climbed the roof. the"

# the reader's sentence, typed while the view stays where it is (fill()
# would scroll the field into view); what is deferred, read in the same task
TYPE = """text => {
  const field = document.getElementById('sim-text');
  field.value = text;
  field.dispatchEvent(new Event('input'));
  return {
    figure: !!document.querySelector('#step-6 .path-live:not(:empty) figure[data-figure="attention"]'),
    weights4: !!document.getElementById('sim-weights-4'),
    held: document.querySelectorAll('#step-6 .path-live div.sim-pending').length,
  };
}"""


def open_at_step_6(visit, idle=True):
    v = visit(own_context=not idle)
    if not idle:  # only coming near the screen builds a deferred part
        v.page.add_init_script("window.requestIdleCallback = () => 0;")
    page = v.open("/end-to-end/#step-6")
    page.wait_for_selector("#live-simulator[data-live] #sim-next")
    page.evaluate("""() => {
      const four = document.querySelector('.heads-chooser input[name=path][value="4"]');
      four.checked = true;
      four.dispatchEvent(new Event('change', {bubbles: true}));
      document.getElementById('path-step-6').scrollIntoView();
    }""")
    page.evaluate(TYPE, "the dog climbed the roof. the")  # a first run, laid out: every part placed
    if idle:
        page.wait_for_function("!document.querySelector('.sim-pending')")
    return page


def weights_rows(page, head):
    return page.locator(f"#sim-weights-{head}").evaluate(
        "t => [...t.rows].slice(1).map(r => [...r.cells].map(c => c.textContent))")


def test_what_is_off_the_screen_waits_and_is_built_before_it_is_seen(visit, toy):
    page = open_at_step_6(visit, idle=False)
    now = page.evaluate(TYPE, TEXT)
    # on the screen: the heads' figure, in the same task; off it: the last head's tables
    assert now["figure"] and not now["weights4"] and now["held"] > 0
    ex = Example(toy, text=TEXT, heads=4)
    # bring the last head's table to within half a screen below the view: it
    # is built there, before it is seen
    page.evaluate("""() => {
      const held = [...document.querySelectorAll('#step-6 .path-live div.sim-pending')].pop();
      window.scrollBy(0, held.getBoundingClientRect().top - innerHeight - 80);
    }""")
    page.wait_for_selector("#sim-weights-4", state="attached")
    assert page.evaluate("document.getElementById('sim-weights-4').getBoundingClientRect().top > innerHeight")
    a = ex.block["weights"][3]
    tokens = [ex.model.show(i) for i in ex.ids]
    assert weights_rows(page, 4) == [[t] + [fixed(a[i, j]) if j <= i else "" for j in range(len(tokens))]
                                     for i, t in enumerate(tokens)]


def test_idle_time_builds_the_rest_where_the_reader_does_not_look(visit, toy):
    page = open_at_step_6(visit)
    page.evaluate(TYPE, TEXT)
    page.wait_for_function("!document.querySelector('.sim-pending')")
    ex = Example(toy, text=TEXT, heads=4)
    s = ex.block["scores"][3]
    tokens = [ex.model.show(i) for i in ex.ids]
    assert page.locator("#sim-scores-4").evaluate(
        "t => [...t.rows].slice(1).map(r => [...r.cells].map(c => c.textContent))") == [
        [t] + [fixed(s[i, j]) if j <= i else "−∞" for j in range(len(tokens))] for i, t in enumerate(tokens)]
    assert page.evaluate("() => " + our_module("later") + ".then((m) => m.pending())") == 0


# each drawing of the page as [its markup's length, whether the page holds
# that markup exactly (the node equals a fresh parse of it)]; with seen=true,
# [whether it can be seen, too]
DRAWINGS = """(seen) => [...document.querySelectorAll(
    '#step-6 .path-live .sim-figures')].map(node => {
  const fresh = node.cloneNode(false), t = document.createElement('template');
  t.innerHTML = node.markup;
  fresh.append(t.content);
  const out = [node.markup.length, node.isEqualNode(fresh)];
  return seen ? out.concat([node.getBoundingClientRect().height > 0 && !!node.firstElementChild
                                    && node.firstElementChild.checkVisibility()])
              : out;
})"""


def test_a_drawing_patched_in_place_is_the_drawing_itself(visit):
    """A drawing of the same shape as the last (the same number of tokens
    and heads) is patched, attribute by attribute (dom.js: patchInto):
    what is in the page then equals its markup, parsed anew."""
    page = open_at_step_6(visit)
    for text in [TEXT, "the dog climbed the roof. the", "the dog climbed the", "the cat climbed the wall. the", TEXT]:
        page.evaluate(TYPE, text)
        page.wait_for_function("!document.querySelector('.sim-pending')")
        drawings = page.evaluate(DRAWINGS)
        assert len(drawings) == 1 and all(size > 0 and same for size, same in drawings), (text, drawings)


def test_a_drawing_that_changes_shape_is_patched_to_the_drawing_itself(visit):
    """A token more, a token less, several, other heads, and a sentence after
    one that cannot be cut: each drawing is patched from the last (cells and
    rows kept, added, removed) and then equals its markup, parsed anew; a
    token more keeps the cells that were there."""
    page = open_at_step_6(visit)
    # the first cell of the heads' figure, before
    page.evaluate(TYPE, "the cat climbed the roof.")
    page.wait_for_function("!document.querySelector('.sim-pending')")
    page.evaluate("""() => { window.__cells = [
      document.querySelector('#step-6 .path-live .sim-figures rect')]; }""")
    steps = [(TEXT, 1), ("the cat climbed the roof.", 1), ("the dog", 1), ("the dog climbed the roof.", 1),
             (TEXT, 1), ("the cat climbed the roof. th", 0), (TEXT, 1), ("heads 1", 1),
             ("the dog climbed the", 1), ("heads 4", 1), (TEXT, 1)]
    kept = None
    for text, count in steps:
        if text.startswith("heads"):
            page.evaluate("""h => {
              const c = document.querySelector(`.heads-chooser input[name=path][value="${h}"]`);
              c.checked = true;
              c.dispatchEvent(new Event('change', {bubbles: true}));
            }""", text.split()[1])
        else:
            page.evaluate(TYPE, text)
        page.wait_for_function("!document.querySelector('.sim-pending')")
        drawings = page.evaluate(DRAWINGS, True)
        if count == 0:  # the error: the last drawings stay, the path dimmed
            assert all(size > 0 and same for size, same, _ in drawings), (text, drawings)
            assert "sim-stale" in page.locator("#path").get_attribute("class")
            continue
        assert len(drawings) == count and all(size > 0 and same and seen for size, same, seen in drawings), (
            text, drawings)
        if kept is None:  # the first step, a token more: the old cells are still there
            kept = page.evaluate("window.__cells.map(c => c.isConnected)")
    assert kept == [True]
