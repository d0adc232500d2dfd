"""nano-gpt trained in the page "Train it yourself" (docs/nano-gpt/train.md),
in chromium: bad input gets its message beside the field; from the book's
seed the page trains until greedy decoding sorts all 729 inputs (Pause
holds it, Resume goes on); the downloaded .safetensors, loaded by toycalc, sorts
all 729 under toycalc's own `sort`, and the book builds on it. One test:
the run takes minutes (marked train, as the retraining tests are)."""
import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from conftest import build_site, page as built_page
from tests.browser.probes import LEAVING, arrived
from toycalc.book.nano_example import Run
from toycalc.book.nano_gpt.transformer import lean_number
from toycalc.model import nanogpt, train

STEPS = "() => document.querySelector('[data-nano-train]').dataset.state"


@pytest.mark.train
def test_trained_in_the_page_it_sorts_every_input_and_builds_the_book(visit, tmp_path):
    v = visit()
    page = v.open("/nano-gpt/train/")
    seed = page.get_by_label("Seed")
    assert seed.input_value() == str(train.SEED)
    seed.fill("1.5")
    page.get_by_role("button", name="Start").click()
    assert "not a whole number" in page.locator("#nano-train-seed-message").text_content()
    assert seed.get_attribute("aria-invalid") == "true"
    page.get_by_label("Step limit").fill("99999")
    seed.fill(str(train.SEED))
    page.get_by_role("button", name="Start").click()
    assert "out of range" in page.locator("#nano-train-limit-message").text_content()
    assert page.locator("#nano-train-seed-message").text_content() == ""
    page.get_by_label("Step limit").fill(str(train.MAX_STEPS))

    page.get_by_role("button", name="Start").click()
    status = page.locator("[data-nano-train] .nano-train-status")
    page.wait_for_function("() => /Step [3-9]/.test(document.querySelector('.nano-train-detail').textContent)",
                           timeout=120_000)
    page.get_by_role("button", name="Pause").click()
    page.wait_for_function("() => /^Paused after step \\d+\\.$/.test(document.querySelector('.nano-train-detail').textContent)",
                           timeout=60_000)                  # the step under way finishes first
    held = page.locator(".nano-train-detail").text_content()
    page.wait_for_timeout(3000)
    assert page.locator(".nano-train-detail").text_content() == held
    page.get_by_role("button", name="Resume").click()
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle'",
                           timeout=3_000_000, polling=1000)
    assert status.text_content().startswith("729 of 729 sorted after ")
    assert page.locator(".nano-train-heads svg").count() == 3

    with page.expect_download() as got:
        page.get_by_role("button", name="Download weights").click()
    weights_file = tmp_path / "mine" / "nanogpt.safetensors"
    weights_file.parent.mkdir()
    got.value.save_as(weights_file)
    with page.expect_download() as got:
        page.get_by_role("button", name="Download the record").click()
    got.value.save_as(nanogpt.record_path(weights_file))

    mine = nanogpt.load(weights_file)
    inputs = nanogpt.all_inputs()
    assert (nanogpt.sort(mine.params, inputs) == np.sort(inputs, axis=1)).all()
    assert mine.record["accuracy_on_729"] == 729 and mine.record["seed"] == train.SEED
    assert len(mine.record["loss_curve"]) == mine.record["steps"]
    assert mine.record["loss_on_729"] == pytest.approx(train.eval_loss(mine.params), abs=1e-6)

    # the book builds on them strictly, as the page says (#53, item 6): the browser's random
    # numbers are not numpy's and its heads learn other habits, and the sentences about where
    # heads look say what these heads do
    said = page.locator(".nano-train-detail").text_content()
    assert "build the book on them" in said and "where its heads look then comes from your model" in said
    result = build_site(tmp_path / "site", nano=weights_file)
    assert result.returncode == 0, result.stderr
    assert " claims " not in result.stderr and "Traceback" not in result.stderr
    mine_run = Run(mine)
    transformer_page = built_page(tmp_path / "site", "nano-gpt/transformer").get_text()
    assert f"the first block's heads {lean_number(mine_run, t=6, block=1)}." in " ".join(transformer_page.split())
    rows = {r.find_all(["td", "th"])[0].get_text(): r.find_all(["td", "th"])[1].get_text()
            for r in built_page(tmp_path / "site", "nano-gpt/preliminaries").select("#nano-training tr")[1:]}
    assert rows["steps"] == f"{mine.record['steps']:,}" and rows["weights stored as"] == "float16"
    assert json.loads(nanogpt.record_path(weights_file).read_text())["what"].endswith("(the page Train it yourself)")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_before_a_run_the_downloads_are_greyed_and_say_why(visit, scheme):
    """Nothing to download before a run: the two downloads and "Follow
    these weights" are disabled, drawn dashed and unfilled (not as a button
    to press), and described by the sentence saying what they wait for."""
    page = visit(scheme=scheme).open("/nano-gpt/train/")
    start = page.get_by_role("button", name="Start")
    for name in ("Download weights", "Download the record", "Follow these weights"):
        button = page.get_by_role("button", name=name)
        assert button.is_disabled()
        looks = button.evaluate("(b) => [getComputedStyle(b).borderTopStyle, getComputedStyle(b).backgroundColor]")
        assert looks[0] == "dashed" and looks[1] in ("rgba(0, 0, 0, 0)", "transparent"), (name, looks)
        why = page.locator("#" + button.get_attribute("aria-describedby"))
        assert why.is_visible() and "wait for a finished run" in why.text_content()
    assert start.is_enabled()
    assert start.evaluate("(b) => getComputedStyle(b).borderTopStyle") == "solid"


def test_without_its_kernels_the_trainer_says_it_cannot_start(visit):
    """The worker fetches kernels.wasm before its first step: when that
    fails (a browser without WebAssembly's SIMD, a file missing), the page
    says so in its status line and goes back to idle, rather than saying
    "Starting…" for ever."""
    v = visit(own_context=True)
    v.context.route("**/kernels.wasm", lambda route: route.fulfill(status=404, body="not here"))
    page = v.open("/nano-gpt/train/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle'", timeout=60_000)
    assert page.locator(".nano-train-detail").text_content().startswith("The trainer could not start: ")
    assert page.get_by_role("button", name="Start").is_enabled()


STEPS_ON = """async ([threads, steps]) => {
  const recipe = JSON.parse(document.querySelector('[data-nano-train]').dataset.nanoTrain);
  const w = new Worker(new URL("../../javascripts/train_worker.js", location.href), { type: "module" });
  const next = () => new Promise((resolve) => { w.onmessage = (e) => resolve(e.data); });
  let answer = next();
  w.postMessage({ type: "start", recipe, seed: recipe.seed, limit: 1e9, stepwise: true, threads });
  await answer;
  const losses = [];
  for (let k = 0; k < steps; k++) {
    answer = next();
    w.postMessage({ type: "one" });
    losses.push((await answer).loss);
  }
  w.terminate();
  return losses;
}"""


RUN_ON = """async ([threads, limit]) => {
  const recipe = JSON.parse(document.querySelector('[data-nano-train]').dataset.nanoTrain);
  const w = new Worker(new URL("../../javascripts/train_worker.js", location.href), { type: "module" }), checks = [];
  const record = await new Promise((resolve) => {
    w.onmessage = (e) => (e.data.type === "check" ? checks.push(e.data) : e.data.type === "done" && resolve(e.data.record));
    w.postMessage({ type: "start", recipe, seed: recipe.seed, limit, threads });
  });
  w.terminate();
  return { checks, record };
}"""


def test_two_threads_take_the_steps_one_takes(visit):
    """On a machine of more than two cores the worker trains on two threads
    (its helper takes half of each batch and of each check); on this one it
    takes one. Both, from the book's seed, give the same losses step after
    step (to float32's rounding: the halves' gradients are summed apart,
    then added), and the same checks: the quick one in float32 at step 50,
    the float64 one at the limit, which the record keeps (its loss to the
    drift of the two runs' weights)."""
    page = visit().open("/nano-gpt/train/")
    one, two = (page.evaluate(STEPS_ON, [threads, 4]) for threads in (1, 2))
    assert len(one) == len(two) == 4 and one[0] > one[-1]
    assert max(abs(a - b) for a, b in zip(one, two)) < 1e-5 * max(one)
    one, two = (page.evaluate(RUN_ON, [threads, 51]) for threads in (1, 2))
    assert [c["step"] for c in one["checks"]] == [c["step"] for c in two["checks"]] == [50, 51]
    assert [c["sorted"] for c in one["checks"]] == [c["sorted"] for c in two["checks"]]
    assert one["record"]["made_with"]["threads"] == 1 and two["record"]["made_with"]["threads"] == 2
    assert one["record"]["accuracy_on_729"] == two["record"]["accuracy_on_729"] == one["checks"][-1]["sorted"]
    # the two runs' weights drift apart at float32's rounding (Adam divides by
    # the gradients' size), 6e-5 of the loss after 51 steps
    assert one["record"]["loss_on_729"] == pytest.approx(two["record"]["loss_on_729"], rel=1e-3)



def test_a_run_stopped_by_its_step_limit_is_offered_as_unfinished(visit, tmp_path):
    """A step limit of 2 stops the run long before it sorts every input:
    the downloads and "Follow these weights" are offered, each button saying
    the run is unfinished (the weights' with how many of the 729 they sort),
    the sentence under them says it plainly, the files are named so, and
    the count is the one toycalc finds in the downloaded weights."""
    page = visit().open("/nano-gpt/train/")
    page.get_by_label("Step limit").fill("2")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle' && "
                           "/after 2 steps/.test(document.querySelector('.nano-train-status').textContent)",
                           timeout=120_000)
    with page.expect_download() as got:
        page.get_by_role("button", name="Download weights").click()
    assert got.value.suggested_filename == "nanogpt-unfinished.safetensors"
    weights_file = tmp_path / got.value.suggested_filename
    got.value.save_as(weights_file)
    with page.expect_download() as got:
        page.get_by_role("button", name="Download the record").click()
    assert got.value.suggested_filename == "nanogpt-unfinished.json"
    got.value.save_as(nanogpt.record_path(weights_file))
    mine = nanogpt.load(weights_file)
    inputs = nanogpt.all_inputs()
    sorted_ = int((nanogpt.sort(mine.params, inputs) == np.sort(inputs, axis=1)).all(axis=1).sum())
    assert sorted_ < len(inputs) and mine.record["accuracy_on_729"] == sorted_
    buttons = [page.locator(".nano-train-buttons button").nth(k).text_content() for k in range(3, 6)]
    assert buttons == [f"Download weights (unfinished: sorts {sorted_} of {len(inputs)})",
                       "Download the record (unfinished run)", "Follow these weights (unfinished)"]
    hint = page.locator("#nano-train-downloads-hint").text_content()
    assert hint.startswith(f"This run is unfinished: its step limit stopped it after 2 steps, when it sorted "
                           f"{sorted_} of the {len(inputs)} inputs.")
    assert page.get_by_role("button", name="Download weights").get_attribute("aria-describedby") == \
        "nano-train-downloads-hint"


LEAVE_BY = """(href) => [...document.querySelectorAll('a')].find((a) => a.href.endsWith(href) &&
                                                                a.getClientRects().length).click()"""


def test_a_run_goes_on_while_the_reader_reads_another_page(visit):
    """Instant navigation keeps the page's module and its worker: a run
    started, then left for another page by the nav, goes on meanwhile, and
    back on the page (by a link, as a reader comes back) it is where the
    run is, not "0 of 729 (not checked yet)": its steps, its status, its
    chart and heads, its fields as the reader left them; it ends there as
    if never left (#53, item 7)."""
    v = visit(own_context=True)
    page = v.open("/nano-gpt/train/")
    page.get_by_label("Step limit").fill("60")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => /^Step [2-9]/.test(document.querySelector('.nano-train-detail').textContent)",
                           timeout=120_000)
    left_at = int(page.locator(".nano-train-detail").text_content().split()[1].rstrip(":"))
    page.evaluate(LEAVING)
    page.evaluate(LEAVE_BY, "/nano-gpt/output/")
    page.wait_for_url("**/nano-gpt/output/")
    arrived(page)                                          # Output in place (the address changes first)
    page.wait_for_timeout(3000)                            # reading another page
    page.evaluate(LEAVE_BY, "/nano-gpt/train/")
    page.wait_for_url("**/nano-gpt/train/")
    page.wait_for_selector("[data-nano-train][data-ready] .nano-train-status")
    detail = page.locator(".nano-train-detail").text_content()
    assert page.evaluate("() => document.querySelector('[data-nano-train]').dataset.state") in ("running", "idle")
    assert "not checked yet" not in page.locator(".nano-train-status").text_content() or detail.startswith("Step ")
    if detail.startswith("Step "):
        assert int(detail.split()[1].rstrip(":")) > left_at       # it went on meanwhile
    assert page.get_by_label("Step limit").input_value() == "60"
    assert page.locator(".nano-train-loss svg").count() == 1
    # each head's map is drawn in a task of its own after the page's view (train_page.js's headsInto)
    expect(page.locator(".nano-train-heads svg")).to_have_count(3)
    page.wait_for_function("() => document.querySelector('[data-nano-train]').dataset.state === 'idle'",
                           timeout=300_000)
    assert re.match(r"\d+ of 729 sorted after 60 steps, ", page.locator(".nano-train-status").text_content())
    assert page.get_by_role("button", name="Download weights (unfinished", exact=False).is_enabled()
