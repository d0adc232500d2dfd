"""The build's sampler of the writer (toycalc/site/writer_sampler.py):
writer_pass.js in Node writes what the page writes (tests/browser/
test_writer_browser.py holds it to chromium), and a Node that fails or
hangs stops the build in one line, its process group ended."""
from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from nodejs import need_node
from toycalc.model import writer
from toycalc.site import writer_sampler
from toycalc.site.errors import BookError


@pytest.fixture(scope="module")
def loaded():
    return writer.load()


def broken_js(tmp_path, body: str):
    """A copy of docs/javascripts whose writer_pass.js is `body`."""
    js = tmp_path / "javascripts"
    js.mkdir()
    shutil.copy(ROOT / "docs" / "javascripts" / "gpt.js", js)
    (js / "package.json").write_text('{"type": "module"}')
    (js / "writer_pass.js").write_text(body)
    return js


def test_node_writes_the_numpy_samples_on_this_machine(loaded):
    """The reference: numpy's write (shared.py) draws the same ids here."""
    need_node()
    from toycalc.book.writer.shared import write
    ids = writer.encode("To be, or not to be")
    runs = [(40, 0.8, 0, 51), (30, 1.0, 5, 7)]
    got = writer_sampler.node_write(loaded.params, loaded.cfg, loaded.vocab, ids, runs)
    assert got == [write(loaded.params, ids, n, t, k, seed, loaded.cfg)[0] for n, t, k, seed in runs]


def test_a_node_that_fails_stops_the_build_in_one_line(loaded, tmp_path, monkeypatch):
    need_node()
    monkeypatch.setattr(writer_sampler, "JS", broken_js(tmp_path, 'throw new RangeError("no kernels here");\n'))
    with pytest.raises(BookError) as e:
        writer_sampler.node_write(loaded.params, loaded.cfg, loaded.vocab, [1, 2], [(5, 1.0, 0, 1)])
    assert "\n" not in str(e.value)
    assert str(e.value).endswith("Node stopped, exit code 1: RangeError: no kernels here"), str(e.value)


def test_a_node_that_hangs_is_stopped(loaded, tmp_path, monkeypatch):
    need_node()
    monkeypatch.setattr(writer_sampler, "JS", broken_js(tmp_path, "await new Promise(() => setInterval(() => {}, 1000));\n"))
    monkeypatch.setattr(writer_sampler, "SECONDS", 3)
    with pytest.raises(BookError) as e:
        writer_sampler.node_write(loaded.params, loaded.cfg, loaded.vocab, [1, 2], [(5, 1.0, 0, 1)])
    assert str(e.value).endswith("no answer in 3 s; the build stopped it"), str(e.value)


def test_a_node_that_answers_garbage_is_one_line(loaded, tmp_path, monkeypatch):
    need_node()
    monkeypatch.setattr(writer_sampler, "JS", broken_js(
        tmp_path, "export async function write() { return { ids: [999] }; }\n"))
    with pytest.raises(BookError) as e:
        writer_sampler.node_write(loaded.params, loaded.cfg, loaded.vocab, [1, 2], [(5, 1.0, 0, 1)])
    assert "not the ids of 1 samples" in str(e.value) and "\n" not in str(e.value)
