"""Preliminaries says who made the weights the chapter runs, from their
record: `python -m toycalc train` for the book's, a reader's browser for
weights trained on the page Train it yourself (whose record says so)."""
from __future__ import annotations

import re

from conftest import ROOT, render_page
from toycalc.book.nano_gpt.preliminaries import made_by
from toycalc.model import nanogpt

PAGE = (ROOT / "docs" / "nano-gpt" / "preliminaries.md").read_text(encoding="utf-8")


def rendered(macros, nano=None) -> str:
    """The page's text as the macros leave it, with Markdown's marks (code, links) and tags taken out."""
    text = render_page(macros(nano=nano), PAGE, "nano-gpt/preliminaries.md")
    text = re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", text.replace("`", ""))
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


def browser_trained(nano, path):
    """The shipped weights under the record the page Train it yourself writes
    (train_worker.js's record): made_with names the browser. Its dtype is
    float64, as the page's downloads said before batched.js (float32 now):
    a value other than the book's own shows that the page reads the record."""
    record = dict(nano.record, what="nano-gpt, the letter sorter, trained in the browser (the page Train it yourself)",
                  seed=7, dtype="float64", weights_between_steps="float32",
                  made_with={"browser": "Mozilla/5.0 (X11; Linux x86_64) Chrome", "threads": 2, "ms_per_step": 90.0})
    nanogpt.save(dict(nano.params), record, path)
    return path


def test_the_book_weights_were_made_by_toycalc_train(macros, nano):
    assert made_by(nano.record) == "numpy"
    text = rendered(macros)
    assert "python -m toycalc train trains the model in plain numpy" in text
    assert "with a fixed seed, so it gives the same weights every time on the same machine" in text
    assert "The record beside the weights file ( toycalc/weights/nanogpt.json ) holds" in text
    assert "a reader's browser" not in text


def test_browser_trained_weights_say_so(macros, nano, tmp_path):
    path = browser_trained(nano, tmp_path / "mine.safetensors")
    assert made_by(nanogpt.load(path).record) == "browser"
    text = rendered(macros, path)
    assert "These weights were trained in a reader's browser, on the page Train it yourself" in text
    assert "trains the model in plain numpy" not in text
    assert "with the reader's seed" in text and "fixed seed" not in text
    assert "The record beside the weights file ( mine.json ) holds" in text
    assert "Training computes in float64" in text     # the record's own dtype, as the page reads it


def test_a_record_of_unknown_origin(macros, nano, tmp_path):
    record = {k: v for k, v in nano.record.items() if k != "made_with"}
    path = tmp_path / "other.safetensors"
    nanogpt.save(dict(nano.params), record, path)
    text = rendered(macros, path)
    assert "These weights come without a record of how they were made" in text
