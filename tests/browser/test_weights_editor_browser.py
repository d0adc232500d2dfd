"""The weights editor, End to End's drawer "Change the weights": an edit reruns the model with
toycalc's numbers for the edited weights, reset restores the book's, and
the downloaded file passes `toycalc check` and builds the book with the
numbers the browser showed."""
from __future__ import annotations

import subprocess
import sys

import yaml

from conftest import build_site, page as built_page
from toycalc.book.example import Example
from toycalc.book.render import fixed
from toycalc.model.weights import DEFAULT_TOY, load_toy

NEW_CAT = [0.5, -1.0, 0.5, 0.0]


def open_editor(visit, width=1280):
    page = visit(width).open("/end-to-end/")
    page.wait_for_selector("#live-simulator[data-live] #sim-next")
    page.locator("#sim-editor > summary").click()
    page.locator("#sim-editor details.sim-matrix").first.locator("summary").click()  # E
    return page


def softmax_shown(page) -> list[list[str]]:
    """The rows of step 9's table as shown (the build's for the book's run,
    else the reader's): token first, p last."""
    step = page.locator("#path-step-9")
    if step.get_attribute("aria-expanded") != "true":
        step.click()
    table = page.locator("#step-9 .path-live #sim-softmax:visible, #step-9 .path-matrices:visible table").last
    return table.evaluate("t => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent.trim()))")


def p_shown(page, token: str) -> str:
    return next(r[-1] for r in softmax_shown(page) if r[0] == token)


def edit_cat(page):
    for c, v in enumerate(NEW_CAT):
        page.get_by_label(f"E, ␣cat, column {c + 1}", exact=True).fill(str(v))


def edited_weights(tmp_path):
    data = yaml.safe_load(DEFAULT_TOY.read_text(encoding="utf-8"))
    data["E"][2] = NEW_CAT
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_an_edit_reruns_the_model_and_reset_restores_it(visit, toy, tmp_path):
    page = open_editor(visit)
    book = Example(toy)
    assert p_shown(page, "␣roof") == fixed(book.p_last[book.model.vocab.index(" roof")])
    edit_cat(page)
    edited = Example(load_toy(edited_weights(tmp_path)))
    assert p_shown(page, "␣roof") == fixed(edited.p_last[edited.model.vocab.index(" roof")])
    assert p_shown(page, "␣roof") != fixed(book.p_last[book.model.vocab.index(" roof")])
    differs = sum(a != b for a, b in zip(NEW_CAT, book.model.params["E"][2]))
    assert page.locator("#sim-edit-E input.is-changed").count() == differs
    assert "changed" in page.locator("#sim-weights-changed").text_content()
    # a value that is not a number is refused, the page keeps its numbers
    cell = page.get_by_label("E, ␣cat, column 1", exact=True)
    cell.fill("abc")
    assert cell.get_attribute("aria-invalid") == "true"
    note = page.locator(f"#{cell.get_attribute('aria-describedby')}")
    assert note.is_visible()
    assert note.inner_text().startswith("E, ␣cat, column 1: “abc” is not applied: expected a number")
    assert "The model keeps 0.5." in note.inner_text()
    # the note sits right under its cell, in a row of its own across the table
    box, cell_box = note.bounding_box(), cell.bounding_box()
    assert box["x"] <= cell_box["x"] and 0 <= box["y"] - (cell_box["y"] + cell_box["height"]) < 12
    assert p_shown(page, "␣roof") == fixed(edited.p_last[edited.model.vocab.index(" roof")])
    page.locator("#sim-weights-reset").click()
    assert p_shown(page, "␣roof") == fixed(book.p_last[book.model.vocab.index(" roof")])
    assert page.locator("#sim-edit-E input.is-changed").count() == 0


def test_the_download_checks_and_builds_the_same_numbers(visit, tmp_path):
    page = open_editor(visit)
    edit_cat(page)
    shown = softmax_shown(page)
    with page.expect_download() as download:
        page.locator("#sim-weights-download").click()
    path = tmp_path / "toy.yaml"
    download.value.save_as(path)
    check = subprocess.run([sys.executable, "-m", "toycalc", "check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    result = build_site(tmp_path / "site", path)
    assert result.returncode == 0, result.stderr
    soup = built_page(tmp_path / "site", "end-to-end")
    table = soup.select_one("#table-softmax-h2") or soup.select_one("#table-softmax")
    built = [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])] for tr in table.select("tbody tr")]
    # the build's softmax table: token, z, e^z, p; the browser's: token, logit, z, e^z, p (T = 1)
    assert [[r[0], r[-1]] for r in built] == [[r[0], r[-1]] for r in shown]


def test_every_matrix_is_labelled_as_the_book_labels_it(visit, toy):
    """Row labels (tokens for E and for W_U, shown by its columns; positions
    for P; dimensions c₁ … elsewhere) and column headers (c₁ …) on every
    matrix: a row per token, as everywhere in the book."""
    page = open_editor(visit)
    tokens = [toy.show(i) for i in range(len(toy.vocab))]
    sub = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    dims = lambda n: [f"c{i + 1}".translate(sub) for i in range(n)]
    for name in ["E", "P", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U"]:
        table = page.locator(f"#sim-edit-{name}")
        heads = table.locator("thead th").all_text_contents()[1:]
        rows = table.locator("tbody th").all_text_contents()
        key = name if name in ("E", "P", "W_U") else f"blocks.0.{name}"
        n, m = toy.params[key].shape
        if name == "W_U":
            assert rows == tokens and heads == dims(n), name
            assert "a row per token" in page.locator("#sim-edit-W_U").locator("xpath=ancestor::details[1]/summary").inner_text()
        else:
            assert rows == (tokens if name == "E" else [str(r + 1) for r in range(n)] if name == "P" else dims(n)), name
            assert heads == dims(m), name
        # the name as the book writes it: W with Q below, never "W_Q"
        summary = table.locator("xpath=ancestor::details[1]/summary")
        assert "_" not in summary.inner_text(), name
        assert summary.locator("sub").count() == ("_" in name), name
        assert table.locator("tbody input").count() == n * m, name


def test_a_refused_entry_widens_nothing_on_a_phone(visit):
    """At 375 px a refused entry's note neither widens its column nor the page (#25)."""
    page = open_editor(visit, width=375)
    widths = "() => [...document.querySelectorAll('#sim-edit-E tr:first-child > *')].map(c => c.offsetWidth)"
    region = "() => { const r = document.querySelector('#sim-edit-E').parentElement; return [r.scrollWidth, r.clientWidth]; }"
    before = page.evaluate(widths)
    cell = page.get_by_label("E, ␣cat, column 4", exact=True)
    cell.fill("abc")
    note = page.locator(f"#{cell.get_attribute('aria-describedby')}")
    assert note.is_visible() and "is not applied" in note.inner_text()
    assert page.evaluate(widths) == before
    scroll, client = page.evaluate(region)
    assert scroll <= client
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    cell.fill("0.5")
    assert not note.is_visible()
    assert page.locator("#sim-edit-E tr.sim-note-row:not([hidden])").count() == 0
