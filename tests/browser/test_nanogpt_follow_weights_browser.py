"""nano-gpt's chapter following the weights a reader trained on "Train it
yourself", in chromium: a short run (the step limit at 2), "Follow these
weights", then three chapter pages whose live numbers, weight matrices
and training record included, are toycalc's on the downloaded .safetensors and its
record; what the build alone computes (over all 729 inputs) is marked as
the book's; "Back to the book's weights" gives the book's numbers again."""
from __future__ import annotations

import inspect

from bs4 import BeautifulSoup

from toycalc.book.nano_example import Run
from toycalc.book.nano_gpt import nano_gpt
from toycalc.model import nanogpt

KINDS = nano_gpt.registries

# every live output of the page: its kind, name, options and what the page shows
SHOWN = r"""() => [...document.querySelectorAll('[data-nano-live]')].map((el) => {
  const [kind, name] = el.dataset.nanoLive.split(':');
  const text = (e) => e.textContent.trim();
  let shown;
  if (el.matches('table')) shown = [...el.tBodies[0].rows].map((r) => [...r.cells].map(text));
  else if (el.matches('figure')) shown = [...el.querySelectorAll('svg title')].map(text);
  else shown = text(el);
  return [kind, name, JSON.parse(el.dataset.nanoArgs), shown];
})"""


def expected(run: Run, kind: str, name: str, args: dict):
    """What toycalc's chapter shows for the same output, read as SHOWN reads the page."""
    function = inspect.unwrap(KINDS[kind][name])
    wanted = inspect.signature(function).parameters
    markup = function(run, **{k: v for k, v in args.items() if k in wanted})
    soup = BeautifulSoup(markup, "html.parser")
    if markup.startswith("<table"):
        return [[c.get_text().strip() for c in tr.find_all(["td", "th"])] for tr in soup.find("tbody").find_all("tr")]
    if markup.startswith("<figure"):
        return [t.get_text().strip() for t in soup.find_all("title")]
    return soup.get_text().strip()


def live_outputs(page, run: Run) -> list:
    """(kind, name, args, shown, toycalc's) of every live output but the
    formulas (MathJax rewrites them)."""
    return [(kind, name, args, shown, expected(run, kind, name, args))
            for kind, name, args, shown in page.evaluate(SHOWN) if kind != "formula"]


def test_follow_these_weights_through_the_chapter_and_back(visit, nano, tmp_path):
    v = visit()
    page = v.open("/nano-gpt/train/")
    follow = page.get_by_role("button", name="Follow these weights")
    assert follow.is_disabled()
    page.get_by_label("Step limit").fill("2")
    page.get_by_role("button", name="Start").click()
    page.wait_for_function("() => /after 2 steps/.test(document.querySelector('.nano-train-status').textContent)",
                           timeout=120_000)
    with page.expect_download() as got:
        page.get_by_role("button", name="Download weights").click()
    weights_file = tmp_path / "nanogpt.safetensors"
    got.value.save_as(weights_file)
    with page.expect_download() as got:
        page.get_by_role("button", name="Download the record").click()
    got.value.save_as(nanogpt.record_path(weights_file))
    follow.click()
    assert "now computes its numbers from your weights" in page.locator(".nano-train-following").text_content()
    stored = page.evaluate("() => sessionStorage.getItem('nanogpt-weights').length")
    assert 200_000 < stored < 400_000           # float16 in base64, well within the storage's 5 MB
    theirs = Run(nanogpt.load(weights_file))
    book = Run(nano)

    for path in ("/nano-gpt/embedding/", "/nano-gpt/self-attention/", "/nano-gpt/preliminaries/"):
        page = v.open(path)
        note = page.locator(".nano-weights-note")
        assert "the weights you trained (seed 1337, 2 steps" in note.text_content()
        if "preliminaries" in path:   # no letters to follow there: its record's numbers, table and curve are the run's
            assert page.locator(".nano-follow").count() == 0
            page.wait_for_function("() => [...document.querySelectorAll('#nano-training tbody tr')]"
                                   ".some((r) => r.cells[0].textContent === 'steps' && r.cells[1].textContent === '2')")
        else:
            page.wait_for_function("() => document.querySelector('.nano-follow-now').textContent.startsWith('Following')")
        shown = live_outputs(page, theirs)
        assert len(shown) >= 4
        for kind, name, _, got_, want in shown:
            assert got_ == want, (path, kind, name)
        # not the book's numbers: the weights moved
        moved = sum(got_ != expected(book, kind, name, args) for kind, name, args, got_, _ in shown)
        assert moved >= len(shown) // 2
        # what the build alone computes (over all 729 inputs): marked as the book's, a table with a note above
        books = page.locator("[data-nano-book-weights]")
        assert page.locator(".nano-book-weights--marked").count() == books.count()
        assert ("self-attention" not in path) or (books.count() >= 2 and f"the {books.count()} parts marked" in note.text_content())
        if "preliminaries" in path:   # how the book's weights were made: the book's, said so
            assert page.locator("span.nano-book-weights--marked", has_text="python -m toycalc train").count() == 1
        for table in page.locator("table[data-nano-book-weights]").all():
            assert table.evaluate("t => t.previousElementSibling.textContent") == "the book's weights, not yours:"

    page.get_by_role("button", name="Back to the book's weights").click()
    page.wait_for_selector("body[data-mathjax=done]", timeout=60_000)
    assert page.locator(".nano-weights-note").count() == 0
    assert page.evaluate("() => sessionStorage.getItem('nanogpt-weights')") is None
    back = live_outputs(page, book)
    assert len(back) >= 4 and any(name == "training" for _, name, _, _, _ in back)
    for kind, name, _, got_, want in back:
        assert got_ == want, ("back", kind, name)



# Store weights as "Follow these weights" does: the book's own (its record, and its weights file in
# base64), broken by `how` (a function's body given `w`, {record}, and `file`, {header, data}: the
# weights file's parsed header and its numbers' bytes), then an unbroken page of the chapter is opened.
STORE = """async ([how, about]) => {
  const base = new URL("../../javascripts/", location.href);
  const setup = await (await fetch(new URL("nanogpt.json", base))).json();
  const bytes = new Uint8Array(await (await fetch(new URL("nanogpt.safetensors", base))).arrayBuffer());
  const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  const file = { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.slice(8 + n) };
  const w = { record: setup.record };
  new Function("w", "file", how)(w, file);
  const head = new TextEncoder().encode(JSON.stringify(file.header));
  const out = new Uint8Array(8 + head.length + file.data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  out.set(file.data, 8 + head.length);
  let binary = "";
  for (const b of out) binary += String.fromCharCode(b);
  if (!("weights" in w)) w.weights = btoa(binary);
  sessionStorage.setItem("nanogpt-weights", JSON.stringify(w));
  sessionStorage.setItem("nanogpt-weights-about", JSON.stringify({ id: Date.now() + Math.floor(1000 * Math.random()), ...about }));
}"""

# where a cell of an array is in the file's numbers (float16: two bytes each)
CELL = "const at = (name, k) => file.header[name].data_offsets[0] + 2 * k; "

BROKEN = [
    # the file cut short: its last array loses half its bytes
    ("file.data = file.data.slice(0, file.data.length - 48)", "the weights file is cut short: "),
    ("file.header.E.shape = [1, 48]", "E has the shape 1 × 48, where the book's model has 3 × 48"),
    ('file.header.E.dtype = "F64"', 'E holds "F64" numbers, expected F16 or F32'),
    ('file.header.W_X = file.header.E', "W_X is not an array of the book's model"),
    ('delete file.header["blocks.2.W_K"]', "blocks.2.W_K is missing"),
    ("w.weights = 42", "their weights file is number, not a file"),
    ('w.weights = "%%%"', "their weights file is not base64"),
    # a NaN (float16 0x7e00) in W_O of block 2, row 1, column 3
    (CELL + 'const k = at("blocks.1.W_O", 1 * 48 + 3); file.data[k] = 0x00; file.data[k + 1] = 0x7e',
     "blocks.1.W_O[1, 3] is NaN, not a number, where every weight must be finite and within ±1,000,000"),
    # a declared shape far beyond the book's (allocated, it would take seconds and gigabytes)
    ('file.header["blocks.0.W_1"].shape = [48, 100000000]', "blocks.0.W_1 has the shape 48 × 100000000, where "
     "the book's model has 48 × 192"),
    ("w.record.loss_curve[3] = null", "their record's loss_curve[3] is null, where the book's is number"),
    # a record edited to say what the weights do not do (#53, item 5): each checked against the weights
    ("w.record.accuracy_on_729 = 700", "their record says they sort 700 of the 729 inputs; they sort 729"),
    ("w.record.loss_on_729 = 0.001", "their record gives their loss on the 729 inputs as 0.001; it is 0.00711962"),
    ("w.record.steps = 199", "their record says 199 steps, where its loss curve has 200"),
    ("w.record.seed = 1.5", "their record's seed is 1.5, where the build takes a whole number from 0 to 4,294,967,295"),
    # the build's rules (nanogpt_record.py): no run of 0 steps, even with a curve of none
    ("w.record.steps = 0; w.record.loss_curve = []", "their record's steps is 0, where the build takes a whole "
     "number from 1 to 5,000"),
    ("w.record.steps = true", "their record's steps is boolean, where the book's is number"),
    ("delete w.record.optimizer.lr", "their record's optimizer has no lr"),
]


def test_broken_stored_weights_are_refused_with_the_books_numbers(visit, run):
    """Weights in session storage that are not the book's model's (E cut in
    half, a NaN cell, a huge declared shape, a record with a hole) are
    checked before any part of a page uses them: where the note on the
    followed weights would be, a message names what is wrong, and every
    live output shows the book's numbers (toycalc's, on the shipped weights);
    "Back to the book's weights" drops them."""
    v = visit(own_context=True)
    page = v.open("/nano-gpt/embedding/")
    for how, problem in BROKEN:
        page.evaluate(STORE, [how, {}])
        page = v.open("/nano-gpt/embedding/")
        note = page.locator(".nano-weights-note")
        note.wait_for()
        said = note.locator(".nano-message").text_content()
        assert said.startswith(f"The weights kept for this chapter cannot be followed: {problem}") and \
            said.endswith(". This page shows the book's numbers.") and "undefined" not in said, said
        page.wait_for_function("() => document.querySelector('.nano-follow-now') && "
                               "document.querySelector('.nano-follow-now').textContent.startsWith('Following')")
        shown = live_outputs(page, run)
        assert len(shown) >= 4
        for kind, name, _, got_, want in shown:
            assert got_ == want, (problem, kind, name)
        assert page.locator(".nano-book-weights--marked").count() == 0
    page.get_by_role("button", name="Back to the book's weights").click()
    page.wait_for_load_state()
    assert page.evaluate("() => sessionStorage.getItem('nanogpt-weights')") is None
    assert page.locator(".nano-weights-note").count() == 0


def test_an_id_that_is_not_a_plain_key_is_refused_in_one_sentence(visit):
    """The entry beside the stored weights names them by an id, the time
    "Follow these weights" stored them: "__proto__", "constructor" or
    "toString" (each a key every object has) is refused in one sentence,
    never "undefined"."""
    v = visit(own_context=True)
    page = v.open("/nano-gpt/embedding/")
    for bad in ("__proto__", "constructor", "toString"):
        page.evaluate(STORE, ["", {"id": bad}])
        page = v.open("/nano-gpt/embedding/")
        note = page.locator(".nano-weights-note")
        note.wait_for()
        assert note.locator(".nano-message").text_content() == (
            "The weights kept for this chapter cannot be followed: their id is not the whole number "
            "“Follow these weights” gives them. This page shows the book's numbers."), bad
        assert "undefined" not in page.locator("article").text_content()


def test_what_the_note_says_of_followed_weights_comes_from_them_not_from_storage(visit, nano):
    """The entry beside the stored weights is only their id: edited to say
    729 sorted in 5 steps from seed 7, or to hold nothing, the note on
    every page still gives the record's seed and steps and the count the
    page measured from the weights themselves (#53, item 5)."""
    v = visit(own_context=True)
    page = v.open("/nano-gpt/embedding/")
    rec = nano.record
    for about in ({"seed": 7, "steps": 5, "sorted": 700, "inputs": 1}, {}):
        page.evaluate(STORE, ["", about])
        page = v.open("/nano-gpt/preliminaries/")
        note = page.locator(".nano-weights-note")
        note.wait_for()
        assert (f"the weights you trained (seed {rec['seed']}, {rec['steps']} steps, "
                f"{rec['accuracy_on_729']} of 729 inputs sorted)") in note.text_content()
        assert "undefined" not in page.locator("article").text_content()
