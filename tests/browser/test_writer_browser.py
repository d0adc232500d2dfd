"""The page Type, it writes in a real browser (fixtures visit and server in
conftest.py): the weights are fetched only when the reader starts; a seed
writes the chapter's 200 characters, with its helper thread or without
one; the top 10 is toycalc's at the
settings' temperature and top-k; a character outside the vocabulary gets
its message naming it and its place, and what belongs to an earlier text
is greyed and says so; a written character shows its distribution beside
it; words stay whole on a phone's line; weights that are not finite are
refused in one sentence; a marked character's text is shaded by the
chosen head's attention, as toycalc computes it; a typed character shows
what the model predicted there; on a phone the readout covers no line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import axe_violations

from toycalc.book.render import fixed
from toycalc.book.writer import WriterRun
from toycalc.book.writer.shared import FOLLOWED_HEAD, LIVE_TEMPERATURE
from toycalc.model import gpt, writer
from toycalc.site.writer_sampler import node_write

PAGE = "/writer/write/"


@pytest.fixture(scope="module")
def run():
    """The run the build makes: its samples written by writer.js in Node."""
    return WriterRun(writer.load(), sampler=node_write)


def started(visit, one_core=False, worker=None, clipboard=False):
    """The page with the writer started; one_core: on a machine of one
    core, as the page is told; worker: the source served as its helper;
    clipboard: the page may write and read the clipboard (each in a
    context of the test's own)."""
    v = visit(own_context=bool(one_core or worker or clipboard))
    if clipboard:
        v.context.grant_permissions(["clipboard-read", "clipboard-write"])
    if one_core:
        v.page.add_init_script("Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => 1 });")
    if worker:
        v.page.route("**/javascripts/writer_worker.js",
                     lambda route: route.fulfill(body=worker, content_type="text/javascript"))
    fetched = []
    v.page.on("request", lambda r: fetched.append(r.url))
    page = v.open(PAGE)
    assert not [u for u in fetched if u.endswith("writer.safetensors")], "fetched before the reader started"
    page.get_by_role("button", name="Start the writer").click()
    page.wait_for_selector("[data-writer][data-ready]", timeout=60000)
    assert [u for u in fetched if u.endswith("writer.safetensors")]
    return page


def helpers(page):
    """The page's writer workers (Material's search has one of its own)."""
    return [name for w in page.workers if (name := w.url.rsplit("/", 1)[-1]).startswith("writer")]


def written_by_write(page):
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=300000)
    return page.locator("[data-writer-out]").evaluate(
        "o => [...o.querySelectorAll('button.writer-char')].map(b => b.dataset.char).join('')")


def test_copy_puts_the_text_and_what_it_wrote_on_the_clipboard(visit, run):
    """Line breaks as line breaks (the page shows ↵); offered once a writing ends."""
    page = started(visit, clipboard=True)
    copy = page.get_by_role("button", name="Copy the text")
    assert not copy.is_visible()
    page.locator("#writer-length").fill("40")
    written = written_by_write(page)
    copy.click()
    page.wait_for_function("() => document.querySelector('[data-writer-copied]').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == run.prompt + written and len(written) == 40 and "↵" not in copied
    assert page.locator("[data-writer-copied]").inner_text() == f"Copied: {len(copied)} characters."
    page.get_by_role("button", name="Write", exact=True).click()       # a new writing: not yet the text to copy
    assert page.locator("[data-writer-copied]").inner_text() == ""


def test_a_seed_writes_the_chapters_200_characters(visit, run):
    """The page's first Write is the chapter's sample, as the build wrote it
    (in Node, one thread): here with its helper thread, which takes the
    later half of every full window."""
    page = started(visit)
    page.wait_for_selector("[data-writer][data-helper]", timeout=60000)
    assert helpers(page) == ["writer_worker.js"]
    written = written_by_write(page)
    assert len(written) == 200
    assert written == run.sample_text(LIVE_TEMPERATURE)
    # tapping a written character shows the distribution it was drawn from
    page.locator("[data-writer-out] button[data-step='1']").click()
    rows = page.locator("[data-writer-picked] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    p = gpt.forward(run.params, run.cfg, np.array(writer.encode(run.prompt)), temperature=LIVE_TEMPERATURE)["p"][-1]
    best = int(np.argmax(p))
    assert rows[0][:2] == [{" ": "␣", "\n": "↵"}.get(run.vocab[best], run.vocab[best]), f"{p[best]:.3f}"]


# a helper that starts, sends nothing while the page writes, and fails a
# moment later (by then the page waits for its first window)
FAILING_HELPER = """addEventListener("message", ({ data }) => {
  if (data.type === "model") postMessage({ type: "ready" });
  else if (data.type === "begin") setTimeout(() => postMessage({ type: "failed", message: "a test's helper" }), 300);
});"""


# a helper that starts and then never sends a window
SILENT_HELPER = """addEventListener("message", ({ data }) => {
  if (data.type === "model") postMessage({ type: "ready" });
});"""


@pytest.mark.parametrize("case", ["one core", "a failing helper", "a silent helper"])
def test_without_a_working_helper_the_page_writes_the_same(visit, run, case):
    """On one core the page starts no helper; a helper that fails, or
    says nothing for two seconds while the page waits, is left and the
    page writes on alone: the chapter's sample each way."""
    worker = {"a failing helper": FAILING_HELPER, "a silent helper": SILENT_HELPER}.get(case)
    page = started(visit, one_core=case == "one core", worker=worker)
    if case == "one core":
        page.wait_for_timeout(500)
        assert not helpers(page) and not page.locator("[data-writer][data-helper]").count()
    else:
        page.wait_for_selector("[data-writer][data-helper]", timeout=60000)
    assert written_by_write(page) == run.sample_text(LIVE_TEMPERATURE)
    for _ in range(50):                  # a dropped helper is ended, not left running
        if not helpers(page):
            break
        page.wait_for_timeout(100)
    assert helpers(page) == []


def test_the_top_10_follows_the_text_and_a_foreign_character_gets_its_message(visit, run):
    page = started(visit)
    field = page.get_by_label("Your text")
    field.fill("To be, or not to b")
    page.wait_for_function("() => document.querySelector('[data-writer-next] caption')")
    rows = page.locator("[data-writer-next] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    # at the settings' temperature and top-k, which the caption names
    p = gpt.forward(run.params, run.cfg, np.array(writer.encode("To be, or not to b")),
                    temperature=LIVE_TEMPERATURE)["p"][-1]
    order = sorted(range(65), key=lambda i: (-p[i], i))[:10]
    assert [r[:2] for r in rows] == [[{" ": "␣", "\n": "↵"}.get(run.vocab[i], run.vocab[i]), fixed(p[i])]
                                     for i in order]
    caption = page.locator("[data-writer-next] caption").inner_text()
    assert f"temperature {LIVE_TEMPERATURE}" in caption and "top-k 0" in caption, caption
    assert page.locator("[data-writer-next] td.writer-bar span").count() == 10      # each p with its bar
    # a top-k under ten: the table lists the k kept, their p summing to 1, and says so
    page.locator("#writer-top-k").fill("3")
    page.wait_for_function("() => document.querySelector('[data-writer-next] caption').textContent.includes('top-k 3')")
    kept = page.locator("[data-writer-next] tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    q = np.where(np.isin(np.arange(65), order[:3]), p, 0.0)
    assert [r[:2] for r in kept] == [[{" ": "␣", "\n": "↵"}.get(run.vocab[i], run.vocab[i]), fixed(q[i] / q.sum())]
                                     for i in order[:3]]
    assert page.locator("[data-writer-next] caption").inner_text() == (
        f"The next character's 3 likeliest, all that top-k 3 keeps (temperature {LIVE_TEMPERATURE})")
    page.locator("#writer-top-k").fill("0")
    page.wait_for_function("() => document.querySelectorAll('[data-writer-next] tbody tr').length === 10")
    field.fill("To be\u2014or not")
    message = page.locator("[data-writer-message]")
    assert message.inner_text() == ("Character 6 (“\u2014”, U+2014) is not one of the writer's 65 characters.")
    # the table is the last good text's, and says so, greyed
    assert page.locator("[data-writer-next].is-earlier tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))") == rows
    assert page.get_by_text("This table is for the last text the writer could read.").is_visible()
    page.get_by_role("button", name="Write", exact=True).click()
    assert page.locator("[data-writer-out] button").count() == 0
    field.fill("To be, or not to b")                      # a text it reads brings the table back as its own
    assert page.locator("[data-writer-next].is-earlier").count() == 0
    assert not page.get_by_text("This table is for the last text the writer could read.").is_visible()


def test_inside_the_heads_maps_come_a_block_at_a_time(visit, run):
    """Inside the writer draws block 1's four maps as the reader comes
    near them (a <noscript> until then, far down the page); the other
    blocks' wait in <template>s (their elements are no part of the page)
    until the reader picks one above the maps, whose cells then carry that
    block's weights (toycalc's); the caption says which block is shown."""
    page = visit().open("/writer/inside/")
    maps = "[data-figure=writer-attention] [data-block]:not([hidden]) svg"
    assert page.locator(maps).count() == 0
    assert page.locator("[data-figure=writer-attention] noscript.near-later").count() == 1
    page.get_by_role("group", name="Block").scroll_into_view_if_needed()
    page.wait_for_function(f"() => document.querySelectorAll('{maps}').length === 4")
    assert page.evaluate("document.querySelectorAll('[data-figure=writer-attention] svg').length") == 4
    chooser = page.get_by_role("group", name="Block")
    chooser.get_by_label("block 4").check()
    page.wait_for_function(f"() => document.querySelectorAll('{maps}').length === 4 && "
                           "document.querySelector('[data-block=\"4\"]:not([hidden]) svg')")
    T = len(run.line)
    for h in range(1, 5):
        cells = page.locator(maps).nth(h - 1).locator("rect title").all_text_contents()
        assert len(cells) == T * (T + 1) // 2
        assert cells[1].endswith(fixed(run.attention(4, h)[1, 0])), (h, cells[1])
    assert "Block 4 here" in page.locator("[data-figure=writer-attention] figcaption").text_content()
    chooser.get_by_label("block 1").check()
    assert page.locator(maps).count() == 4 and page.locator("[data-block='1']:not([hidden])").count() == 1


def test_an_empty_text_and_a_changed_text_leave_nothing_unmarked(visit):
    """Empty, the table greys and says it is an earlier text's; the written
    text, once the text above it changed, greys and says so too, and comes
    back as its own when the text is the one it continued again."""
    page = started(visit)
    field = page.get_by_label("Your text")
    page.locator("#writer-length").fill("20")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=60000)
    prompt = field.input_value()
    field.fill("")
    assert page.locator("[data-writer-message]").inner_text() == "Type at least one character."
    assert page.locator("[data-writer-next].is-earlier").count() == 1
    assert page.locator("[data-writer-output].is-earlier").count() == 1
    assert page.get_by_text("Written after an earlier text").is_visible()
    field.fill(prompt)
    assert page.locator(".is-earlier").count() == 0
    assert not page.get_by_text("Written after an earlier text").is_visible()


def test_a_written_character_shows_its_readout_beside_it_and_the_arrows_move_it(visit, run):
    page = started(visit)
    page.locator("#writer-length").fill("30")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=60000)
    chars = page.locator("[data-writer-out] button.writer-char")
    third = chars.nth(2)
    third.hover()
    readout = page.locator("[data-writer-picked]")
    assert readout.is_visible() and third.evaluate("b => b.classList.contains('is-marked')")
    box, at = readout.bounding_box(), third.bounding_box()
    assert 0 <= box["y"] - (at["y"] + at["height"]) < 12, (box, at)       # right under it, not under the output
    caption = readout.locator("caption").first.inner_text()
    ch = third.get_attribute("data-char")
    typed = len(page.locator("#writer-text").input_value())
    assert caption.startswith(f"Written character 3 (character {typed + 3} of the text), "
                              f"“{ {' ': '␣', chr(10): '↵'}.get(ch, ch) }”: p = ") and "rank " in caption
    assert f"temperature {LIVE_TEMPERATURE}" in caption
    chosen = readout.locator("tr.is-chosen td").first.inner_text()
    assert chosen == { " ": "␣", "\n": "↵"}.get(ch, ch)
    assert readout.locator("td.writer-bar span").count() >= 10
    third.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.step") == "4"
    assert chars.nth(3).evaluate("b => b.classList.contains('is-marked')")
    assert readout.locator("caption").first.inner_text().startswith("Written character 4 (")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.step") == "3"


def test_on_a_phone_no_written_word_is_split_across_lines(visit):
    v = visit(375)
    page = v.open(PAGE)
    page.get_by_role("button", name="Start the writer").click()
    page.wait_for_selector("[data-writer][data-ready]", timeout=60000)
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=300000)
    split = page.evaluate("""() => [...document.querySelectorAll('[data-writer-out] .writer-word')]
      .filter((w) => w.getClientRects().length > 1).map((w) => w.textContent)""")
    assert page.locator("[data-writer-out] .writer-word").count() > 10
    assert split == []


def test_a_weights_file_holding_nan_is_refused_in_one_sentence(visit, run):
    """Served weights with a NaN: the page says so in one sentence, naming
    the tensor, and shows no tool (it wrote line breaks with p = NaN)."""
    v = visit(own_context=True)
    real = {}

    def poisoned(route):
        body = bytearray(route.fetch().body())
        n = int.from_bytes(body[:8], "little")              # the header's length, then the header
        at = 8 + n + json.loads(body[8:8 + n])["E"]["data_offsets"][0]
        body[at:at + 2] = (0x7E00).to_bytes(2, "little")    # float16 NaN, the first number of E
        real["bytes"] = len(body)
        route.fulfill(status=200, body=bytes(body), headers={"content-type": "application/octet-stream"})
    v.context.route("**/writer.safetensors", poisoned)
    page = v.open(PAGE)
    page.get_by_role("button", name="Start the writer").click()
    note = page.locator(".writer-note")
    page.wait_for_function("() => /could not start/.test(document.querySelector('.writer-note').textContent)")
    assert note.inner_text() == ("The writer could not start: the weights file holds NaN in E (number 1): "
                                 "not a finite number.")
    assert real["bytes"] > 0
    assert page.locator(".writer-tool").is_hidden() and page.locator("[data-writer-out] button").count() == 0


def test_the_text_appears_as_it_is_written_and_stop_ends_it(visit):
    """The first characters show while the writer is still writing (the
    page draws as it goes), and Stop, shown only meanwhile, ends it there:
    fewer characters than asked, and Write comes back."""
    page = started(visit)
    stop = page.get_by_role("button", name="Stop", exact=True)
    assert stop.is_hidden()
    page.locator("#writer-length").fill("500")          # the most one Write may ask for
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_function("""() => document.querySelector('[data-writer]').hasAttribute('data-writing') &&
      document.querySelectorAll('[data-writer-out] button.writer-char').length >= 10""", timeout=60000)
    stop.click()
    page.wait_for_selector("[data-writer][data-done]", timeout=60000)
    written = page.locator("[data-writer-out] button.writer-char").count()
    assert 10 <= written < 500
    assert stop.is_hidden() and page.get_by_role("button", name="Write", exact=True).is_enabled()


def test_a_marked_character_shades_what_the_chosen_head_read(visit, run):
    """Marking a written character shades each character of the window it
    was drawn from by the chosen head's attention weight, the query being
    the character just before it: the weights are the Python forward's on
    that window, to 1e-4, for the head the chapter follows (the chooser's
    default) and for another chosen; within the context and after the
    window slid past its start; the readout lists the heaviest."""
    page = started(visit)
    page.locator("#writer-length").fill("100")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=120000)
    assert [page.locator("#writer-block").input_value(), page.locator("#writer-head").input_value()] == \
        [str(FOLLOWED_HEAD[0]), str(FOLLOWED_HEAD[1])]
    written = page.locator("[data-writer-out] button.writer-char").evaluate_all("bs => bs.map(b => b.dataset.char)")
    ids = writer.encode(run.prompt) + writer.encode("".join(written))
    assert len(ids) > run.cfg.n_ctx + 20

    def check(step, block, head):
        page.locator(f"[data-writer-out] button[data-step='{step}']").hover()
        shaded = page.locator("[data-writer-out] [data-weight]").evaluate_all(
            "cs => cs.map(c => [c.dataset.char, Number(c.dataset.weight)])")
        at = len(writer.encode(run.prompt)) + step - 1           # the characters before it
        window = ids[max(0, at - run.cfg.n_ctx):at]
        want = gpt.forward(run.params, run.cfg, np.array(window))["blocks"][block - 1]["weights"][head - 1][-1]
        assert "".join(ch for ch, _ in shaded) == writer.decode(window)
        np.testing.assert_allclose([a for _, a in shaded], want, rtol=0, atol=1e-4)
        caption = page.locator("[data-writer-picked] .writer-read-table caption").inner_text()
        assert caption.startswith(f"What block {block}, head {head} read to write it"), caption
        heaviest = page.locator("[data-writer-picked] .writer-read-table tbody tr").evaluate_all(
            "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        best = int(np.argmax(want))
        assert heaviest[0][1:3] == [str(at - len(window) + best + 1), fixed(want[best])]
        return shaded
    check(5, *FOLLOWED_HEAD)                                      # within the context
    check(90, *FOLLOWED_HEAD)                                     # the window slid
    page.locator("#writer-block").select_option("3")
    page.locator("#writer-head").select_option("4")
    page.locator("[data-writer-out] button[data-step='90']").blur()
    check(90, 3, 4)
    key = page.locator("[data-writer-key]")
    assert key.is_visible() and key.evaluate("k => k.closest('.writer-tool') !== null")


def test_another_seed_writes_what_the_builds_sampler_writes(visit, run):
    """The build's sampler (writer.js in Node) and the page (chromium) draw
    the same characters for a second seed, temperature and top-k."""
    page = started(visit)
    page.locator("#writer-length").fill("150")
    page.locator("#writer-seed").fill("7")
    page.locator("#writer-temperature").fill("1")
    page.locator("#writer-top-k").fill("5")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=120000)
    written = page.locator("[data-writer-out]").evaluate(
        "o => [...o.querySelectorAll('button.writer-char')].map(b => b.dataset.char).join('')")
    assert len(written) == 150
    assert written == run.sample_text(1.0, k=5, seed=7, n=150)
    assert written != run.sample_text(1.0, k=5, seed=8, n=150)


def test_a_typed_character_shows_what_the_model_predicted_there(visit, run):
    """A character of the reader's own text, hovered or reached by the
    arrow keys, shows the distribution the model gave at its place from
    the text before it (Python's forward, at Write's temperature), the
    character marked with its p and rank, and what the chosen head read;
    the first character, with nothing before it, is no button."""
    page = started(visit)
    page.locator("#writer-length").fill("5")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=60000)
    typed = page.locator("[data-writer-out] button.writer-typed")
    assert typed.count() == len(run.prompt) - 1
    assert page.locator("[data-writer-out] span.writer-typed").evaluate_all("s => s.map(e => e.dataset.char)") == \
        [run.prompt[0]]
    ids = writer.encode(run.prompt)
    readout = page.locator("[data-writer-picked]")

    def check(at):                                     # the character at `at` (from 0), from the at before it
        p = gpt.forward(run.params, run.cfg, np.array(ids[:at]), temperature=LIVE_TEMPERATURE)["p"][-1]
        ch, i = run.prompt[at], ids[at]
        rank = 1 + sum(1 for j, v in enumerate(p) if v > p[i] or (v == p[i] and j < i))
        caption = readout.locator("caption").first.inner_text()
        assert caption.startswith(f"Your character {at + 1}, “{ {' ': '␣', chr(10): '↵'}.get(ch, ch) }”: "
                                  f"p = {p[i]:.3f}, rank {rank} of 65; the ten likeliest "
                                  f"(temperature {LIVE_TEMPERATURE}"), caption
        rows = readout.locator("table").first.locator("tbody tr").evaluate_all(
            "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        best = int(np.argmax(p))
        assert rows[0][:2] == [{" ": "␣", "\n": "↵"}.get(run.vocab[best], run.vocab[best]), f"{p[best]:.3f}"]
        assert readout.locator("tr.is-chosen td").first.inner_text() == {" ": "␣", "\n": "↵"}.get(ch, ch)
        assert readout.locator(".writer-read-table caption").inner_text().startswith(
            f"What block {FOLLOWED_HEAD[0]}, head {FOLLOWED_HEAD[1]} read to predict it")
        assert page.locator("[data-writer-out] [data-weight]").count() == at     # the text before it, shaded
    fifth = typed.nth(3)                                # the prompt's fifth character
    fifth.hover()
    assert readout.is_visible() and fifth.evaluate("b => b.classList.contains('is-marked')")
    check(4)
    fifth.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.typed") == "6"
    check(5)
    typed.last.focus()                                  # the last typed character, then the first written
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.step") == "1"
    assert readout.locator("caption").first.inner_text().startswith(f"Written character 1 (character {len(run.prompt) + 1} of")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_the_readout_covers_no_line(visit, scheme):
    """At 375 px a tapped character's readout sits in the text's flow under
    its line: the marked character's line and the next line are both clear
    of it, the readout within the page's width, its text at least 11 px and
    of enough contrast (axe) in either colour scheme."""
    v = visit(375, scheme)
    page = v.open(PAGE)
    page.get_by_role("button", name="Start the writer").click()
    page.wait_for_selector("[data-writer][data-ready]", timeout=60000)
    page.locator("#writer-length").fill("120")
    page.get_by_role("button", name="Write", exact=True).click()
    page.wait_for_selector("[data-writer][data-done]", timeout=120000)
    for target in ("button.writer-char[data-step='40']", "button.writer-typed[data-typed='3']"):
        mark = page.locator(f"[data-writer-out] {target}")
        mark.click()
        readout = page.locator("[data-writer-picked]")
        assert readout.is_visible() and mark.evaluate("b => b.classList.contains('is-marked')")
        seen = page.evaluate("""(target) => {
          const mark = document.querySelector('[data-writer-out] ' + target).getBoundingClientRect();
          const box = document.querySelector('[data-writer-picked]').getBoundingClientRect();
          const chars = [...document.querySelectorAll('[data-writer-out] .writer-char, [data-writer-out] .writer-typed')]
            .map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0);
          const tops = [...new Set(chars.map((r) => Math.round(r.top)))].sort((a, b) => a - b);
          const line = (top) => chars.filter((r) => Math.round(r.top) === top);
          const own = Math.round(mark.top), next = tops.find((t) => t > mark.bottom - 1);
          const overlaps = (rs) => rs.some((r) => r.bottom > box.top && r.top < box.bottom && r.right > box.left && r.left < box.right);
          const sizes = [...document.querySelectorAll('[data-writer-picked] td, [data-writer-picked] th, [data-writer-picked] caption')]
            .filter((e) => e.textContent.trim()).map((e) => parseFloat(getComputedStyle(e).fontSize));
          return { ownOverlaps: overlaps(line(own)), nextOverlaps: next === undefined ? null : overlaps(line(next)),
                   below: box.top >= mark.bottom - 0.5, nextBelow: next === undefined ? null : next >= box.bottom - 0.5,
                   right: box.right, width: innerWidth, smallest: Math.min(...sizes) };
        }""", target)
        assert seen["nextOverlaps"] is False and seen["ownOverlaps"] is False, seen
        assert seen["below"] and seen["nextBelow"], seen          # under its line, above the next
        assert seen["right"] <= seen["width"] and seen["smallest"] >= 11, seen
        found = [x for x in axe_violations(page, rules=["color-contrast"]) if any(
            "writer-picked" in "".join(n.get("target", [""])) or "writer" in n.get("html", "") for n in x["nodes"])]
        assert found == [], [(n["html"][:120], n.get("any", [{}])[0].get("message", "")) for x in found for n in x["nodes"]]
