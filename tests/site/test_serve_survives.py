"""mkdocs serve survives every mistake a keeper can make in the weights:
the page shows the error, the terminal prints it once, and the next good
edit brings the page back, from the same server. It follows every file it
was given, wherever it is: the toy's weights, nano-gpt's and the
writer's, and their records."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, altered_nano, interruptible, mkdocs_env
from toycalc.book.render import fixed
from toycalc.model import nanogpt, writer
from toycalc.model.weights import DEFAULT_TOY

GOOD = DEFAULT_TOY.read_text(encoding="utf-8")
# W_O is no longer the identity: the End-to-End page's claim about it is false
BROKEN = GOOD.replace("W_O:   # d x d: the identity, the joined heads pass unchanged\n  - [1, 0, 0, 0]",
                      "W_O:   # d x d\n  - [2, 0, 0, 0]")
CLAIM = ("claims identity(name='W_O'), but W_O is not the identity matrix: "
         "rewrite the sentence or the weights")


def claim_at(page: str) -> str:
    """Where a page claims W_O is the identity: "page.md, line N" (the file's own numbering)."""
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    call = 'claim("identity", name="W_O")'
    return f"{page}, line {next(n for n, line in enumerate(lines, 1) if call in line)}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read().decode("utf-8")


def wait_for(what, timeout=180):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = what()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what.__doc__}")


class Served:
    """mkdocs serve on a free port with TOYCALC_WEIGHTS in a folder of its own."""

    def __init__(self, tmp_path, cwd=ROOT, weights: str | None = GOOD, nano: bool = False):
        """weights: the weights file's text, None to start without the file;
        nano: TOYCALC_NANOGPT and TOYCALC_WRITER too, copies of the shipped
        nano-gpt and writer (weights and record), each in a folder of its
        own (.nano, .nano_record, .writer, .writer_record)."""
        self.folder = tmp_path / "mine"
        self.folder.mkdir()
        self.weights = self.folder / "toy.yaml"
        if weights is not None:
            self.weights.write_text(weights, encoding="utf-8")
        self.log = tmp_path / "serve.log"
        self.port = free_port()
        env = mkdocs_env(TOYCALC_WEIGHTS=str(self.weights), TOYCALC_SITE_URL=f"http://127.0.0.1:{self.port}/")
        if nano:
            (tmp_path / "nano-gpt").mkdir()
            self.nano = tmp_path / "nano-gpt" / "sorter.safetensors"
            self.nano_record = nanogpt.record_path(self.nano)
            self.ship_nano()
            env["TOYCALC_NANOGPT"] = str(self.nano)
            (tmp_path / "writer").mkdir()
            self.writer = tmp_path / "writer" / "shakespeare.safetensors"
            self.writer_record = writer.record_path(self.writer)
            self.ship_writer()
            env["TOYCALC_WRITER"] = str(self.writer)
        self.out = open(self.log, "w", encoding="utf-8")
        self.since = 0
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{self.port}"],
            cwd=cwd, env=env, stdout=self.out, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=interruptible)

    def ship_nano(self) -> None:
        shutil.copyfile(nanogpt.DEFAULT_WEIGHTS, self.nano)
        shutil.copyfile(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS), self.nano_record)

    def ship_writer(self) -> None:
        shutil.copyfile(writer.DEFAULT_WEIGHTS, self.writer)
        shutil.copyfile(writer.record_path(writer.DEFAULT_WEIGHTS), self.writer_record)

    def nano_shipped(self) -> bool:
        return (self.nano.read_bytes() == nanogpt.DEFAULT_WEIGHTS.read_bytes() and
                self.nano_record.read_bytes() == nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_bytes())

    def page(self, path="end-to-end/") -> str:
        return fetch(f"http://127.0.0.1:{self.port}/{path}")

    def error(self, path="end-to-end/", html: str | None = None) -> str | None:
        """The error the page (or html, the page already fetched) shows in place of its text, if any."""
        html = self.page(path) if html is None else html
        if "admonition failure" not in html:      # parsed only when there is one: the polls run beside a build
            return None
        box = BeautifulSoup(html, "html.parser").select_one(".admonition.failure")
        # the text as read: a glossary term is an <abbr>, with no space around it
        return " ".join(box.get_text().split()) if box else None

    def output(self) -> str:
        """What the server printed since the test began (start)."""
        return self.log.read_text(encoding="utf-8")[self.since:]

    def start(self) -> None:
        self.since = len(self.log.read_text(encoding="utf-8"))

    def builds(self) -> int:
        return self.output().count("Building documentation")

    def close(self):
        """Stopped as a keeper stops it, with Ctrl-C (SIGINT): a server
        that does not stop on it is an error."""
        try:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGINT)
                try:
                    self.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    raise AssertionError("mkdocs serve did not stop within 15 s of a SIGINT (Ctrl-C)") from None
        finally:
            self.out.close()


@pytest.fixture(scope="module")
def server_of_the_file(tmp_path_factory):
    s = Served(tmp_path_factory.mktemp("served"), nano=True)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def served(server_of_the_file):
    """One server for the file's tests on the shipped weights (a start is a
    whole build), each test starting on the good page: the weights the last
    one left put back first."""
    s = server_of_the_file
    if s.weights.read_text(encoding="utf-8") != GOOD:
        s.weights.write_text(GOOD, encoding="utf-8")
    if not s.nano_shipped():
        s.ship_nano()
        training_shows(s, nanogpt.load(nanogpt.DEFAULT_WEIGHTS).record)
    good_page(s)
    s.start()
    return s


def good_page(served):
    def good():
        """the good page"""
        page = served.page()
        return page if 'id="step-1"' in page and served.error(html=page) is None else None
    return wait_for(good)


NANO_PAGE = "nano-gpt/preliminaries/"     # its training table shows the record


def training(served) -> dict | None:
    """nano-gpt's training table as its page shows it, {row: cell}; None
    while the page shows an error."""
    html = served.page(NANO_PAGE)
    if served.error(html=html) is not None:
        return None
    table = BeautifulSoup(html, "html.parser").select_one("#nano-training")
    return {" ".join(row.th.get_text().split()): " ".join(row.td.get_text().split())
            for row in table.select("tbody tr")}


def training_shows(served, record: dict) -> dict:
    """Wait until the training table shows the record's seed and losses."""
    def shown():
        """the training table of the record"""
        rows = training(served)
        return rows if rows is not None and (
            rows["seed"], rows["loss on all 729 inputs"], rows["final training loss"].split()[0]) == (
            str(record["seed"]), fixed(record["loss_on_729"], 4), fixed(record["final_loss"], 4)) else None
    return wait_for(shown)


def error_shown(served):
    def shown():
        """the error on the page"""
        return served.error()
    return wait_for(shown)


def test_serve_shows_a_false_claim_and_recovers(served):
    served.weights.write_text(BROKEN, encoding="utf-8")
    error = error_shown(served)
    assert error.startswith("This page could not be built")
    assert error.startswith(f"This page could not be built {claim_at('end-to-end.md')}: the text (“")
    assert f"{CLAIM} ({served.weights})" in error
    assert served.process.poll() is None, served.output()
    lines = [line for line in served.output().splitlines() if line.startswith("ERROR")]
    assert [line.split(": the text (“")[0] for line in lines] == [
        f"ERROR   -  {claim_at(page)}" for page in ("end-to-end.md", "toy/attention.md")], served.output()
    assert all(line.endswith(f"{CLAIM} ({served.weights})") for line in lines)

    served.weights.write_text(GOOD, encoding="utf-8")
    good_page(served)
    assert served.process.poll() is None
    assert "Traceback" not in served.output()


def test_serve_survives_a_broken_weights_file_and_watches_only_the_file(served):
    served.weights.write_text(GOOD.replace("heads: 2 ", "heads: 3 "), encoding="utf-8")
    message = f"{served.weights}: key 'heads': heads = 3 does not divide d = 4; expected one of 1, 2, 4"
    assert message in error_shown(served)
    assert message in served.error("toy/mlp/")                    # every page says it
    assert served.output().count(message) == 1                    # the terminal, once
    assert served.process.poll() is None

    # a file written beside the weights does not rebuild the site
    builds = served.builds()
    (served.folder / "notes.log").write_text("a log\n", encoding="utf-8")
    time.sleep(3)
    assert served.builds() == builds

    served.weights.write_text(GOOD, encoding="utf-8")
    good_page(served)
    assert served.builds() == builds + 1

    # an editor's save: a new file renamed over the old one
    saved = served.folder / "toy.yaml.tmp"
    saved.write_text(GOOD.replace("heads: 2 ", "heads: 3 "), encoding="utf-8")
    os.replace(saved, served.weights)
    assert message in error_shown(served)
    assert "Traceback" not in served.output()


def test_serve_follows_the_nano_gpt_file_outside_docs(served, nano):
    """TOYCALC_NANOGPT names a file outside docs/: replaced (as `train`
    writes, a new file renamed over it), the page follows, with no other edit."""
    shipped = training(served)
    assert shipped is not None and shipped["seed"] == str(nano.record["seed"])
    altered = nanogpt.load(altered_nano(nano, served.nano)).record
    assert fixed(altered["final_loss"], 4) != fixed(nano.record["final_loss"], 4)   # a change the page shows
    training_shows(served, altered)
    assert served.process.poll() is None
    assert "Traceback" not in served.output()


def test_serve_follows_an_edited_nano_gpt_record(served, nano):
    """The record alone edited, its weights untouched: the page reads it
    again (a field the build cannot check, the seed), and checks it again
    (a sorted count the weights disagree with stops the page)."""
    record = dict(nano.record, seed=4242)
    served.nano_record.write_text(json.dumps(record, indent=2), encoding="utf-8")
    training_shows(served, record)

    served.nano_record.write_text(json.dumps(dict(record, accuracy_on_729=700), indent=2), encoding="utf-8")
    message = (f"{served.nano_record}: field 'accuracy_on_729' says the weights sort 700 of the 729 inputs; "
               f"they sort {nano.record['accuracy_on_729']}")

    def refused():
        """the record's disagreement on the page"""
        return message in (served.error(NANO_PAGE) or "")
    wait_for(refused)
    assert served.process.poll() is None
    assert "Traceback" not in served.output()


def test_serve_follows_an_edited_writer_record_outside_docs(served):
    """TOYCALC_WRITER names a file outside docs/: its record edited (the
    training's seconds, which the build cannot check against the weights),
    the writer's page follows, with no other edit."""
    record = json.loads(served.writer_record.read_text(encoding="utf-8"))
    minutes = round(record["seconds"] / 60)

    def minutes_shown(n):
        def shown():
            """the writer's training time on its page"""
            return f"{n} minutes on this book" in " ".join(served.page("writer/").split())
        return shown
    wait_for(minutes_shown(minutes))
    try:
        saved = served.writer_record.with_suffix(".saving")
        saved.write_text(json.dumps(dict(record, seconds=60 * (minutes + 41)), indent=2), encoding="utf-8")
        os.replace(saved, served.writer_record)
        wait_for(minutes_shown(minutes + 41))
    finally:
        served.ship_writer()
    assert served.process.poll() is None
    assert "Traceback" not in served.output()


@pytest.mark.build        # a server of its own
def test_serve_started_without_the_weights_file_builds_once_it_is_saved(tmp_path):
    served = Served(tmp_path, weights=None)
    try:
        assert str(served.weights) in error_shown(served)
        assert served.process.poll() is None, served.output()
        served.weights.write_text(GOOD, encoding="utf-8")
        good_page(served)
        assert served.process.poll() is None
        assert "Traceback" not in served.output()
    finally:
        served.close()


def test_serve_shows_a_bad_macro_call_and_any_other_error_and_recovers(project, tmp_path):
    """A page's own mistake under mkdocs serve: an unknown table (a macro's
    error), then a stray block placeholder (an error a hook raises, which
    stops the whole rebuild): the server answers through both."""
    bad = project / "docs" / "end-to-end.md"
    good_text = bad.read_text(encoding="utf-8")
    served = Served(tmp_path, cwd=project)
    try:
        good_page(served)
        bad.write_text(good_text + '\n{{ table("nope") }}\n', encoding="utf-8")
        error = error_shown(served)
        assert "end-to-end.md, line " in error and ": table('nope'): no such table; the tables are:" in error
        assert served.process.poll() is None

        bad.write_text(good_text + '\n<div data-toycalc-block="99"></div>\n', encoding="utf-8")
        stray = ('end-to-end.md: <div data-toycalc-block="99"></div> stands for a table or a figure '
                 "that no macro of this page made; remove it")

        def hook_error():
            """the hook's error on the page"""
            return stray in (served.error() or "")
        wait_for(hook_error)
        assert stray in served.error("toy/mlp/")                       # every page says it
        assert served.output().count(stray) == 1                         # the terminal, once
        assert "the rebuild failed (above): every page shows why until the next good save" in served.output()
        assert served.process.poll() is None
        bad.write_text(good_text, encoding="utf-8")
        good_page(served)
        assert served.process.poll() is None
        assert "Traceback" not in served.output()
    finally:
        served.close()
