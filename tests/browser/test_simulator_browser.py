"""End to End's playground in a real browser (fixtures chromium, server and
visit in conftest.py): a sentence typed by the reader, the heads and the
temperature chosen, every number shown in the path's steps checked against
toycalc; the tokenizer's message; the keyboard, a phone, and the page
without JavaScript. (The Simulator page it took in only sends the reader
here: test_playground_browser.py.) `visit` fails a test that asked
anything of another host or logged an error."""
from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import axe_violations

from references import mulberry32, reference_sample
from toycalc.book.example import Example
from toycalc.book.render import fixed, short, vector
from toycalc.model.tokenizer import TokenizerError, show, shorten, tokenize

PAGE = "/end-to-end/"


def open_simulator(visit, width=1280):
    page = visit(width).open(PAGE)
    page.wait_for_selector("#live-simulator[data-live] #sim-next")
    return page


def open_drawer(page, name):
    """One of the drawers under the drawing ("sampling", "editor", "train"), opened."""
    drawer = page.locator({"sampling": "#sim-sampling", "editor": "#sim-editor",
                           "train": "#toy-training-details"}[name])
    if drawer.get_attribute("open") is None:
        drawer.locator("> summary").click()
    return drawer


def cells(page, table_id) -> list[list[str]]:
    """Each cell's text (without the copy of its column's name a table of
    vectors shows on a phone, dom.js)."""
    return page.locator(f"#{table_id}").evaluate(
        "t => [...t.rows].map(r => [...r.cells].map(c => [...c.childNodes]"
        ".filter(n => !n.classList || !n.classList.contains('cell-label')).map(n => n.textContent).join('')))")


def choose(page, text=None, heads=None, temperature=None):
    if heads is not None:
        page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
    if temperature is not None:
        open_drawer(page, "sampling")
        page.locator("#sim-temperature").fill(str(temperature))
    if text is not None:
        page.locator("#sim-text").fill(text)


def open_every_step(page):
    """On End to End a step's live tables are built when it opens: open
    each in turn, as a reader would, so that every table is there. A step
    opened below the drawing scrolls the page (path.js; it jumps, as the
    tests' reader asks for reduced motion). A click that left its step
    closed is made again: once one did (#sim-E never built), the page then
    still gliding, which is the likeliest cause, not a proven one."""
    for n in range(1, 10):      # a step is a region of the drawing, opened one at a time
        step = page.locator(f"#path-step-{n}")
        for _ in range(3):
            if step.get_attribute("aria-expanded") == "true":
                break
            step.click()
            try:
                page.wait_for_function(f"document.querySelector('#path-step-{n}').getAttribute('aria-expanded') === 'true'",
                                       timeout=3000)
            except PlaywrightTimeout:
                pass
        assert step.get_attribute("aria-expanded") == "true", f"step {n} did not open on three clicks"


def assert_shows(page, ex: Example):
    """Every table of the path against toycalc's trace of the same run."""
    open_every_step(page)
    tr, b, vocab = ex.trace, ex.block, ex.model.vocab
    tokens = [show(t) for t in ex.tokens]
    assert cells(page, "sim-ids") == [["token"] + tokens, ["id"] + [str(i) for i in ex.ids]]
    E, sentence = ex.model.params["E"], set(ex.ids)
    assert cells(page, "sim-E")[1:] == [[str(i), show(t)] + [short(v) for v in E[i]]
                                        for i, t in enumerate(vocab)]
    assert page.locator("#sim-E tr.in-sentence").evaluate_all(
        "rows => rows.map(r => r.cells[0].textContent)") == [str(i) for i in sorted(sentence)]
    wv = lambda v: vector(v, lambda x: short(x, keep_decimal=True))  # noqa: E731
    assert cells(page, "sim-X")[1:] == [[t, wv(e), wv(p), wv(x)]
                                        for t, e, p, x in zip(tokens, tr["E_ids"], tr["P_t"], tr["X"])]
    assert cells(page, "sim-u")[1:] == [[t, fixed(m), fixed(s)] + [fixed(v) for v in u]
                                        for t, m, s, u in zip(tokens, b["mu"], b["sigma"], b["u"])]
    assert cells(page, "sim-QKV")[1:] == [[t, vector(q), vector(k), vector(v)]
                                          for t, q, k, v in zip(tokens, b["Q"], b["K"], b["V"])]
    for h in range(ex.n_heads):
        a, s = b["weights"][h], b["scores"][h]
        assert cells(page, f"sim-weights-{h + 1}")[1:] == [
            [t] + [fixed(a[i, j]) if j <= i else "" for j in range(len(tokens))]
            for i, t in enumerate(tokens)]
        assert cells(page, f"sim-scores-{h + 1}")[1:] == [
            [t] + [fixed(s[i, j]) if j <= i else "−∞" for j in range(len(tokens))]
            for i, t in enumerate(tokens)]
    assert page.locator(f"#sim-weights-{ex.n_heads + 1}").count() == 0
    assert cells(page, "sim-mix")[1:] == [
        [t] + [vector(b["outputs"][h, i]) for h in range(ex.n_heads)]
        + [vector(b["A"][i]), vector(b["attn"][i]), vector(b["h"][i])] for i, t in enumerate(tokens)]
    assert cells(page, "sim-mlp")[1:] == [
        [t, vector(b["u2"][i]), vector(b["mlp_pre"][i]), vector(b["mlp_post"][i]), vector(b["m"][i]),
         vector(b["y"][i])] for i, t in enumerate(tokens)]
    z, p, logits = tr["z"][-1], ex.p_last, tr["logits"][-1]
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    assert cells(page, "sim-softmax")[1:] == [
        [show(vocab[i]), fixed(logits[i]), fixed(z[i]), fixed(np.exp(z[i])), fixed(p[i])] for i in order]
    top = show(vocab[ex.top_id])
    assert page.locator("#sim-next").text_content() == f"Next token: {top} with p = {fixed(p.max())}"
    assert page.locator("#sim-next .sim-pick").text_content() == top    # framed as the token the model picks
    if len(ex.ids) < ex.model.cfg.n_ctx:
        assert page.locator("#sim-append").text_content() == f"Append {top} and run again"


@pytest.mark.parametrize("heads,temperature", [(1, 1.0), (2, 0.5), (4, 2.0), (2, 1.3)])
def test_the_dog_climbed_the(visit, toy, heads, temperature):
    page = open_simulator(visit)
    choose(page, "the dog climbed the", heads, temperature)
    assert page.locator("#sim-temperature-value").text_content() == short(temperature, keep_decimal=True)
    assert_shows(page, Example(toy, text="the dog climbed the", heads=heads, temperature=temperature))
    # a prime stands for the book's u′, never for an apostrophe ("Each head′s average")
    captions = page.locator("#path .path-live table caption").all_text_contents()
    assert len(captions) > 5 and not [c for c in captions if re.search(r"\w′s\b", c)], captions


def test_an_unknown_word_shows_the_message_and_nothing_breaks(visit, toy):
    page = open_simulator(visit)
    choose(page, "the bird climbed the")
    with pytest.raises(TokenizerError) as e:
        tokenize("the bird climbed the", toy.vocab)
    message = page.locator("#sim-message")
    assert message.is_visible() and message.text_content() == str(e.value)
    # the last run's tables stay, dimmed, while the sentence cannot be run
    results = page.locator("#path")
    assert results.is_visible() and "sim-stale" in results.get_attribute("class")
    assert page.locator("#sim-append").is_disabled()
    assert page.locator("#sim-text").get_attribute("aria-invalid") == "true"
    # the controls still work, and a good sentence brings everything back
    choose(page, heads=4)
    choose(page, "the dog climbed the")
    assert message.is_hidden()
    assert "sim-stale" not in (results.get_attribute("class") or "")
    assert_shows(page, Example(toy, text="the dog climbed the", heads=4))


@pytest.mark.parametrize("text, says", [
    ("", "The sentence is empty: type one, or add tokens of the vocabulary."),
    ("The cat", 'cannot cut "The" (character 1 of "The cat")'),
])
def test_an_empty_or_capitalised_sentence_says_what_is_wrong_once(visit, toy, text, says):
    page = open_simulator(visit)
    choose(page, text)
    message = page.locator("#sim-message").text_content()
    assert message.startswith(says)
    assert all(t == t.lower() for t in toy.vocab)
    if text:
        assert message.endswith("Every token of the vocabulary is in lower case: write the sentence in lower case.")
    append = page.locator("#sim-append")
    assert append.is_disabled() and append.text_content() == "Append the next token and run again"
    assert "positions" not in message + append.text_content()


def test_reader_text_is_shown_as_text(visit):
    page = open_simulator(visit)
    evil = '<img src=x onerror="window.hacked=1"><b>bold</b>'
    choose(page, evil)
    assert shorten(evil) in page.locator("#sim-message").text_content()  # a short excerpt, as text
    assert page.locator("#live-simulator img, #live-simulator b").count() == 0
    assert page.evaluate("window.hacked") is None


def test_clicking_tokens_and_appending(visit, toy):
    page = open_simulator(visit)
    page.locator("#sim-text").fill("")
    assert page.locator("#sim-message").text_content() == ("The sentence is empty: type one, or add tokens "
                                                           "of the vocabulary.")
    for label in ["the", "␣dog", "␣climb", "ed", "␣the"]:
        button = page.locator(f'.sim-token[data-id="{toy.vocab.index(label.replace("␣", " "))}"]')
        assert button.text_content() == label
        button.click()
    assert page.locator("#sim-text").input_value() == "the dog climbed the"
    assert_shows(page, Example(toy, text="the dog climbed the"))
    # append the prediction until every position is used
    text = "the dog climbed the"
    for _ in range(3):
        ex = Example(toy, text=text)
        page.locator("#sim-append").click()
        text += toy.vocab[ex.top_id]
        assert page.locator("#sim-text").input_value() == text
    assert len(tokenize(text, toy.vocab)) == 8
    assert page.locator("#sim-append").is_disabled()
    assert page.locator("#sim-append").text_content() == "All 8 positions are used"
    assert all(b.is_disabled() for b in page.locator(".sim-token").all())
    assert_shows(page, Example(toy, text=text))
    page.locator("#sim-back").click()
    assert page.locator("#sim-append").is_enabled()
    assert len(tokenize(page.locator("#sim-text").input_value(), toy.vocab)) == 7


def test_sampling_with_a_seed(visit, toy):
    page = open_simulator(visit)
    choose(page, "the cat climbed the", heads=2, temperature=2)
    assert page.locator("#sim-sampling").get_attribute("open") is not None   # the drawer that holds them
    page.locator("input[name=sim-mode][value=sample]").check()
    page.locator("#sim-seed").fill("42")
    draw = mulberry32(42)
    text = "the cat climbed the"
    for k in range(3):
        ex = Example(toy, text=text, heads=2, temperature=2.0)
        r = draw()
        chosen = reference_sample(ex.p_last.tolist(), r)
        assert page.locator("#sim-draw").text_content() == f" draw {k + 1} of seed 42: r = {fixed(r)}"
        assert page.locator("#sim-next").text_content() == (
            f"Next token, drawn with r = {fixed(r)}: {show(toy.vocab[chosen])} "
            f"(p = {fixed(ex.p_last[chosen])})")
        page.locator("#sim-append").click()
        text += toy.vocab[chosen]
        assert page.locator("#sim-text").input_value() == text


def test_by_keyboard(visit, toy):
    page = open_simulator(visit)
    field = page.locator("#sim-text")
    field.fill("")
    field.focus()
    page.keyboard.type("the dog")
    page.keyboard.press("Tab")   # to the first token of the vocabulary
    assert page.evaluate("document.activeElement.dataset.id") == "0"
    for _ in range(4):           # the, ␣the, ␣cat, ␣dog, ␣climb
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert field.input_value() == "the dog climb"
    page.locator('input[name=path][value="2"]').focus()
    page.keyboard.press("ArrowRight")  # radio buttons: the arrows choose
    assert page.locator('input[name=path][value="4"]').is_checked()
    page.locator("#sim-sampling > summary").focus()
    page.keyboard.press("Enter")       # a drawer opens from the keyboard
    page.locator("#sim-temperature").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("#sim-temperature-value").text_content() == "1.1"
    page.locator("#sim-append").focus()
    page.keyboard.press("Enter")
    ex = Example(toy, text="the dog climb", heads=4, temperature=1.1)
    assert field.input_value() == "the dog climb" + toy.vocab[ex.top_id]


def test_phone_width_does_not_overflow(visit):
    page = open_simulator(visit, width=375)
    choose(page, "the cat climbed the roof. the", heads=4)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide"
    box = page.locator("#sim-text").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375


def test_no_serious_accessibility_violation(visit):
    page = open_simulator(visit)
    choose(page, "the bird")
    choose(page, "the dog climbed the")
    violations = axe_violations(page)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations
           if v["impact"] != "minor"]
    assert bad == []


def test_a_playground_that_cannot_start_says_so_and_keeps_the_books_path(visit, toy):
    v = visit(own_context=True)
    v.context.route("**/toy-weights.json", lambda route: route.fulfill(status=404, body="not here"))
    page = v.open(PAGE)
    message = page.locator("#sim-message")
    message.wait_for()
    assert message.text_content().startswith("The playground could not start (") and message.is_visible()
    # no control offers what it cannot do; the book's prediction and path stay
    assert page.locator("#sim-text").is_disabled() and page.locator("#sim-append").is_disabled()
    ex = Example(toy)
    assert page.locator("#sim-next").text_content() == (f"Next token: {show(toy.vocab[ex.top_id])} "
                                                        f"with p = {fixed(ex.p_last.max())}")
    page.locator("#path-step-9").click()
    assert f"with p = {fixed(ex.p_last.max())}" in page.locator("#step-9 .path-box-sum:visible").inner_text()
    # the one error: the weights' file, refused here on purpose
    assert v.errors and all("404" in e for e in v.errors), v.errors
    v.errors.clear()


# ---------------------------------------------------------------- in the End-to-End page's path

def open_end_to_end(visit, width=1280):
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    return page


def live_panel(page, step):
    return page.locator(f"#step-{step} .path-live:visible")


def test_the_path_starts_on_the_books_sentence(visit, toy):
    page = open_end_to_end(visit)
    assert page.locator("#sim-text").input_value() == Example(toy).text
    assert "path--live" not in page.locator("#path").get_attribute("class")
    assert page.locator("#sim-reset").is_disabled()
    page.locator("#path-step-9").click()
    assert page.locator("#step-9 .path-matrices:visible").count() == 1
    assert page.locator("#step-9 .path-box-sum:visible").count() == 1
    assert live_panel(page, 9).count() == 0
    assert page.locator("#step-9 #sim-softmax").count() == 0


@pytest.mark.parametrize("heads,temperature", [(1, 1.0), (4, 0.5)])
def test_the_readers_sentence_runs_through_the_path(visit, toy, heads, temperature):
    page = open_end_to_end(visit)
    page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
    choose(page, "the dog climbed the", temperature=temperature)
    assert "path--live" in page.locator("#path").get_attribute("class")
    assert_shows(page, Example(toy, text="the dog climbed the", heads=heads, temperature=temperature))
    # each step's panel shows the reader's tables where the book's were,
    # and the box keeps only what holds for any sentence
    for step, table in [(1, "sim-ids"), (2, "sim-E"), (3, "sim-X"), (4, "sim-u"), (5, "sim-QKV"),
                        (6, f"sim-weights-{heads}"), (7, "sim-mix"), (8, "sim-mlp"), (9, "sim-softmax")]:
        page.locator(f"#path-step-{step}").click()
        assert live_panel(page, step).locator(f"#{table}").is_visible(), (step, table)
        assert page.locator(f"#step-{step} .path-matrices:visible").count() == 0
        assert page.locator(f"#step-{step} .path-box-sum:visible").count() == 0
        assert page.locator(f"#step-{step} .path-box:visible").count() == 1


def test_the_heads_chooser_drives_the_live_path(visit, toy):
    page = open_end_to_end(visit)
    choose(page, "the dog climbed the")
    for heads in (4, 1, 2):
        page.locator(f'.heads-chooser input[name=path][value="{heads}"]').check()
        open_every_step(page)
        assert page.locator(f"#sim-weights-{heads}").count() == 1
        assert page.locator(f"#sim-weights-{heads + 1}").count() == 0
        assert_shows(page, Example(toy, text="the dog climbed the", heads=heads))
        # the worked example further down follows the same choice, from the one chooser of the page
        assert page.locator(".heads-chooser").count() == 1
        shown = page.evaluate("""() => { const start = document.getElementById('a-worked-example-step-by-step');
          return [...new Set([...document.querySelectorAll('.heads-variant')].filter((v) =>
            start.compareDocumentPosition(v) & Node.DOCUMENT_POSITION_FOLLOWING && v.checkVisibility())
            .map((v) => v.dataset.heads))]; }""")
        assert shown == [str(heads)]


def test_back_to_the_books_sentence(visit, toy):
    page = open_end_to_end(visit)
    choose(page, "the dog climbed the", temperature=2)
    page.locator("input[name=sim-mode][value=sample]").check()
    page.locator("#sim-reset").click()
    assert page.locator("#sim-text").input_value() == Example(toy).text
    assert page.locator("#sim-temperature-value").text_content() == "1.0"
    assert page.locator("input[name=sim-mode][value=greedy]").is_checked()
    assert "path--live" not in page.locator("#path").get_attribute("class")
    assert page.locator(".path-live *").count() == 0


def test_an_unknown_word_in_the_path(visit, toy):
    page = open_end_to_end(visit)
    choose(page, "the bird climbed the")
    with pytest.raises(TokenizerError) as e:
        tokenize("the bird climbed the", toy.vocab)
    assert page.locator("#sim-message").text_content() == str(e.value)
    page.locator("#path-step-6").click()
    # the message is said once, beside the field; the path keeps the last tables, dimmed
    assert "sim-stale" in page.locator("#path").get_attribute("class")
    assert page.locator("#step-6 .path-matrices:visible").count() > 0
    assert page.locator("#sim-append").is_disabled()
    evil = '<img src=x onerror="window.hacked=1">'
    choose(page, evil)
    assert shorten(evil) in page.locator("#sim-message").text_content()  # a short excerpt, as text
    assert page.locator("#path img, #live-simulator img").count() == 0
    choose(page, "the dog")
    assert_shows(page, Example(toy, text="the dog"))
    assert page.evaluate("window.hacked") is None


def test_appending_in_the_path(visit, toy):
    page = open_end_to_end(visit)
    text = Example(toy).text
    page.locator("#sim-append").click()
    text += toy.vocab[Example(toy).top_id]
    assert page.locator("#sim-text").input_value() == text
    assert_shows(page, Example(toy, text=text))


def test_the_live_path_on_a_phone_and_for_axe(visit):
    page = open_end_to_end(visit, width=375)
    choose(page, "the cat climbed the roof. the", temperature=0.3)
    page.locator('.heads-chooser input[name=path][value="4"]').check()
    page.locator("#path-step-6").click()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide"
    violations = axe_violations(page)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations
           if v["impact"] != "minor"]
    assert bad == []


def test_without_javascript_the_path_is_the_books(chromium, server, toy):
    context = chromium.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server + "/end-to-end/")
    # no control that would do nothing; the prediction, as the build computed it
    assert page.locator(".sim-live").count() == 3 and all(c.is_hidden() for c in page.locator(".sim-live").all())
    assert page.locator(".path-live").count() == 0
    ex = Example(toy)
    assert page.locator("#sim-next").inner_text() == (f"Next token: {show(toy.vocab[ex.top_id])} "
                                                      f"with p = {fixed(ex.p_last.max())}")
    assert f"with p = {fixed(ex.p_last.max())}" in page.locator("#step-9 .path-box-sum:visible").inner_text()
    context.close()


def test_the_live_path_after_instant_navigation(visit, toy):
    """Material swaps the page in without a reload: the simulator starts on
    the End-to-End page all the same, and drives its path."""
    page = visit().open("/")
    page.locator("article a[href$='end-to-end/']").first.click()
    page.wait_for_url("**/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live] #sim-next")
    choose(page, "the dog climbed the", temperature=2)
    assert "path--live" in page.locator("#path").get_attribute("class")
    assert_shows(page, Example(toy, text="the dog climbed the", temperature=2.0))


@pytest.mark.parametrize("text, says", [
    ("", "The sentence is empty: type one, or add tokens of the vocabulary."),
    ("The cat", 'cannot cut "The" (character 1 of "The cat")'),
])
def test_the_path_says_what_is_wrong_once(visit, text, says):
    """On End to End the message stands beside the field, once; the path
    keeps the last tables, dimmed, and no stale button offers a token."""
    page = open_end_to_end(visit)
    choose(page, text)
    assert page.locator("#sim-message").text_content().startswith(says)
    page.locator("#path-step-6").click()
    assert "sim-stale" in page.locator("#path").get_attribute("class")
    append = page.locator("#sim-append")
    assert append.is_disabled() and append.text_content() == "Append the next token and run again"


# ---------------------------------------------------------------- typing without tripping (issue #25)

TYPED = "the dog climbed the sofa. the"
HEIGHT = "() => document.documentElement.scrollHeight"


@pytest.mark.parametrize("width", [1280, 375])
def test_typing_key_by_key_keeps_the_tables_and_the_height(visit, width):
    """A sentence typed a key at a time passes through texts that cannot be
    cut (a half-typed word): on every keystroke the tables stay (dimmed
    while the text cannot be cut), the page's height never falls more than
    10 % below what it was, and the message sits beside the field, in
    view without scrolling."""
    page = open_simulator(visit, width)
    page.locator("#path-step-2").click()
    field = page.locator("#sim-text")
    field.fill("")
    field.focus()
    heights, uncuttable = [page.evaluate(HEIGHT)], 0
    for key in TYPED:
        page.keyboard.type(key)
        page.wait_for_function("!document.querySelector('.sim-pending')")
        results = page.locator("#path")
        assert page.locator("#step-2 table:visible").count() > 0, key
        heights.append(page.evaluate(HEIGHT))
        assert heights[-1] >= 0.9 * heights[-2], (field.input_value(), heights[-2:])
        stale = "sim-stale" in (results.get_attribute("class") or "")
        message = page.locator("#sim-message")
        assert stale == message.is_visible(), field.input_value()
        if stale:
            uncuttable += 1
            box, view = message.bounding_box(), page.viewport_size
            field_box = field.bounding_box()
            # beside the field: right under it, inside the window
            assert 0 <= box["y"] - (field_box["y"] + field_box["height"]) < 40
            assert box["y"] + box["height"] <= view["height"] + 1 and box["y"] >= 0, box
    assert uncuttable >= 5   # the sentence did pass through texts that cannot be cut
    assert field.input_value() == TYPED and "sim-stale" not in (page.locator("#path").get_attribute("class") or "")


def test_the_heads_chosen_on_another_page_open_the_playground(visit, toy):
    """Home says the choice of heads is remembered from page to page: the
    playground opens on it, and its own choice is remembered too."""
    v = visit()
    page = v.open("/")
    page.locator('.heads-chooser input[value="4"]').first.check(force=True)
    page = v.open(PAGE)
    page.wait_for_selector("#live-simulator[data-live] #sim-next")
    assert page.locator('input[name=path][value="4"]').is_checked()
    ex = Example(toy, heads=4)
    assert page.locator("#sim-next").text_content() == (f"Next token: {show(toy.vocab[ex.top_id])} "
                                                        f"with p = {fixed(ex.p_last.max())}")
    choose(page, "the dog climbed the")
    assert_shows(page, Example(toy, text="the dog climbed the", heads=4))
    page.locator('input[name=path][value="1"]').check()
    page = v.open("/toy/attention/")
    assert page.locator('.heads-chooser input[value="1"]').first.is_checked()


def test_removing_the_last_token_undoes_its_draw(visit, toy):
    """"Remove the last token" after a drawn token rewinds the sampling: the
    next draw is the one that was undone, with the same r."""
    page = open_simulator(visit)
    choose(page, "the cat climbed the", heads=2, temperature=2)
    page.locator("input[name=sim-mode][value=sample]").check()
    page.locator("#sim-seed").fill("42")
    first = page.locator("#sim-draw").text_content()
    assert first == f" draw 1 of seed 42: r = {fixed(mulberry32(42)())}"
    page.locator("#sim-append").click()
    assert page.locator("#sim-draw").text_content().startswith(" draw 2 of seed 42")
    page.locator("#sim-back").click()
    assert page.locator("#sim-text").input_value() == "the cat climbed the"
    assert page.locator("#sim-draw").text_content() == first


@pytest.mark.parametrize("width", [1280, 375])
def test_typing_on_end_to_end_keeps_the_height(visit, width):
    """End to End, step 6 open: the same sentence typed key by key never
    makes the page fall more than 10 % below what it was."""
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#sim-text")
    page.locator("#path-step-6").click()
    field = page.locator("#sim-text")
    field.fill("")
    field.focus()
    heights = [page.evaluate(HEIGHT)]
    for key in TYPED:
        page.keyboard.type(key)
        page.wait_for_function("!document.querySelector('.sim-pending')")
        heights.append(page.evaluate(HEIGHT))
        assert heights[-1] >= 0.9 * heights[-2], (field.input_value(), heights[-2:])
    assert "sim-stale" not in page.locator("#path").get_attribute("class")
