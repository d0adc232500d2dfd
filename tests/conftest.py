"""Shared fixtures: the toy model; the macros run in process on a page's
text (macros, render_page, page_error); builds of the site into temporary
folders (a real build is marked `build`: `make check` leaves those out)."""
from __future__ import annotations

import ast
import fcntl
import functools
import http.server
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import pytest
from bs4 import BeautifulSoup, Tag
from selectolax.lexbor import LexborHTMLParser

from toycalc.book.nano_example import Run
from toycalc.model import nanogpt
from toycalc.model.weights import DEFAULT_TOY, load_toy
from toycalc.site import typeset

ROOT = Path(__file__).resolve().parent.parent


ADDRESS = ("TOYCALC_SITE_URL", "TOYCALC_REPO_URL", "TOYCALC_EDIT_BRANCH")

# Material 9.8.1 starts every `mkdocs` command with eight lines on stderr:
# it reaches its end of life in May 2027 (docs/contributing.md, "When the
# platform ends"). NO_MKDOCS_2_WARNING, named for the MkDocs 2.0 notice it
# first silenced, turns them off. The tests' mkdocs commands set it because
# they read what a command prints (one error line, no warning at all), not
# to hide the notice from anyone: `make build` and `make serve` still print
# it. A build in the tests' own process prints nothing (Material prints it
# only under the `mkdocs` command). tests/site/test_platform.py holds that
# this variable still silences it.
QUIET_PLATFORM = {"NO_MKDOCS_2_WARNING": "1"}


def mkdocs_env(**variables) -> dict:
    """The environment for an `mkdocs` command the tests run: this one's,
    with these variables, without Material's end-of-life notice."""
    return dict(os.environ, **variables, **QUIET_PLATFORM)


def build_site(site_dir: Path, weights: Path | None = None, address: dict | None = None,
               nano: Path | None = None, claims: str | None = None) -> subprocess.CompletedProcess:
    """mkdocs build --strict into site_dir, optionally with other weights
    files (toy, nano-gpt); address: the site's and its repository's (else a
    local build's none), as the Pages workflow sets them; claims: "warn"
    builds with the prose's false claims marked (TOYCALC_CLAIMS)."""
    env = {k: v for k, v in mkdocs_env().items() if k not in (*ADDRESS, "TOYCALC_WEIGHTS", "TOYCALC_NANOGPT")}
    env |= address or {}
    if claims is not None:
        env["TOYCALC_CLAIMS"] = claims
    if weights is not None:
        env["TOYCALC_WEIGHTS"] = str(weights)
    if nano is not None:
        env["TOYCALC_NANOGPT"] = str(nano)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def interruptible() -> None:
    """preexec_fn of a child a test stops with SIGINT, as a terminal's
    Ctrl-C would: a pytest-xdist worker may ignore SIGINT, and a child
    inherits that (a served site then ran on until killed, 30 s later)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def parsed(html: Path) -> BeautifulSoup:
    """The HTML file, parsed once a worker and shared by every test that
    reads it (parsing took half of `make check`'s time): read it, never
    change it. A test that removes or changes nodes parses its own copy
    (fresh_page). A rebuilt file is parsed again (its time and size are
    the key)."""
    stat = html.stat()
    return _parse(html, stat.st_mtime_ns, stat.st_size)


# a formula as the build typesets it (toycalc/site/typeset.py): its element
# keeps the TeX in data-tex, MathJax's markup inside
TYPESET = re.compile(r'(<(span|div)\b[^>]*\sdata-tex="([^"]*)"[^>]*>)<mjx-container\b.*?</mjx-container>(</\2>)', re.S)
# the glyphs of a page's formulas, after its article
GLYPHS = re.compile(rf'<svg id="{typeset.GLYPHS_ID}" style="display:none" aria-hidden="true"><defs>.*?</defs></svg>', re.S)


# a heads choice the page puts in when the reader picks it (render.by_heads);
# BeautifulSoup reads a <template>'s text as no text of the page
LATER = re.compile(r'<template class="(?:heads|block)-later">(.*?)</template>', re.S)


def as_tex(text: str) -> str:
    """A built page's HTML with each formula as the TeX MathJax set it from
    (\\( \\) in a span, \\[ \\] in a div), as arithmatex wrote it, and
    without their glyphs, and every heads choice's variant in the page (as
    path.js puts a waiting one in): what the tests of the book's numbers
    read. tests/site/test_typeset.py reads the typeset markup itself."""
    def tex(m: re.Match) -> str:
        opening, kind, body, closing = m.groups()
        return opening + ("\\(" if kind == "span" else "\\[") + body + ("\\)" if kind == "span" else "\\]") + closing
    return LATER.sub(r"\1", GLYPHS.sub("", TYPESET.sub(tex, text)))


@functools.cache
def _parse(html: Path, mtime_ns: int, size: int) -> BeautifulSoup:
    SharedTag.building = True
    try:
        return BeautifulSoup(as_tex(html.read_text(encoding="utf-8")), "html.parser", element_classes={Tag: SharedTag})
    finally:
        SharedTag.building = False


class SharedTag(Tag):
    """A tag of a shared parse: it refuses to be changed once parsed (the
    next test would read the change), with a line that says what to do."""
    building = False


def _refuse(name):
    def refuse(self, *args, **kwargs):
        if not SharedTag.building:
            raise TypeError(f"{name}: this page's parse is shared by the tests (conftest.parsed); "
                            "parse your own to change it: fresh_page")
        return getattr(Tag, name)(self, *args, **kwargs)
    return refuse


for _name in ("__setitem__", "__delitem__", "append", "clear", "decompose", "extend", "extract", "insert",
              "insert_after", "insert_before", "replace_with", "smooth", "unwrap", "wrap"):
    setattr(SharedTag, _name, _refuse(_name))


def tree(site_dir: Path, name: str) -> LexborHTMLParser:
    """The built page `name` as selectolax parses it (as_tex's text, as
    parsed() reads), shared: read it, never change it. A twentieth of
    BeautifulSoup's time: for the print page, a third of the site's bytes."""
    html = site_dir / name / "index.html"
    stat = html.stat()
    return _tree(html, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _tree(html: Path, mtime_ns: int, size: int) -> LexborHTMLParser:
    return LexborHTMLParser(as_tex(html.read_text(encoding="utf-8")))


def page(site_dir: Path, name: str) -> BeautifulSoup:
    """The built page `name` (a folder of the site), shared: read it, never change it."""
    return parsed(site_dir / name / "index.html")


def fresh_page(site_dir: Path, name: str) -> BeautifulSoup:
    """The built page `name`, parsed for this caller alone: free to change."""
    return BeautifulSoup(as_tex((site_dir / name / "index.html").read_text(encoding="utf-8")), "html.parser")


@pytest.fixture
def project(tmp_path):
    """A copy of the book's sources, to add a page to (build_with_page)."""
    for folder in ("docs", "overrides"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    # the package itself, not a copy: a folder named toycalc here would hide it
    (tmp_path / "toycalc").symlink_to(ROOT / "toycalc", target_is_directory=True)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    return tmp_path


def build_with_page(project: Path, text: str, weights: Path = DEFAULT_TOY) -> subprocess.CompletedProcess:
    """Build the copy with docs/bad.md holding text, on the shipped nano-gpt."""
    (project / "docs" / "bad.md").write_text(text, encoding="utf-8")
    env = mkdocs_env(TOYCALC_WEIGHTS=str(weights))
    env.pop("TOYCALC_NANOGPT", None)
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(project / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------- the macros, in process
#
# What a build does with a page's macros, without the build: define_env
# registers them on a stand-in for mkdocs-macros' env, Jinja renders the
# page's text with them (strict about unknown names, as mkdocs.yml asks),
# and an error goes through the handlers the plugin calls (errors.py),
# which log the one line the build prints.

class FakePage:
    def __init__(self, src_path: str, source: str | None = None, markdown: str = ""):
        """source: the page's file, front matter included (markdown is what the macros render)."""
        self.file = SimpleNamespace(src_path=src_path)
        if source is not None:
            self.file.content_string, self.markdown = source, markdown


class FakeEnv:
    """What define_env and the macros read of mkdocs-macros' env."""

    def __init__(self, config):
        self.conf, self.config = config, {"on_error_fail": True}
        self.macros: dict = {}
        self.page, self.markdown = None, ""

    def macro(self, function, name=None):
        self.macros[name or function.__name__] = function
        return function


@pytest.fixture(scope="session")
def mkdocs_config():
    from mkdocs.config import load_config
    return load_config(str(ROOT / "mkdocs.yml"))


@pytest.fixture
def macros(mkdocs_config, monkeypatch):
    """macros(weights=None, nano=None, claims=None): the env with every macro
    registered, on these weights files (else the shipped ones) and claims mode."""
    from toycalc.site import macros as module

    def make(weights: Path | None = None, nano: Path | None = None, claims: str | None = None) -> FakeEnv:
        for name, value in (("TOYCALC_WEIGHTS", weights), ("TOYCALC_NANOGPT", nano), ("TOYCALC_CLAIMS", claims)):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, str(value))
        env = FakeEnv(mkdocs_config)
        module.define_env(env)
        return env
    return make


def render_page(env: FakeEnv, text: str, src_path: str = "bad.md", source: str | None = None) -> str:
    """text as the macros plugin renders it (then on_post_page_macros), with
    the blocks the macros kept put back; raises what the macros raise.
    source: the page's whole file, when text is what is left under its front matter."""
    import jinja2
    from toycalc.site.blocks import put_back
    from toycalc.site.page_checks import on_post_page_macros
    env.page = FakePage(src_path, source, text)
    jinja = jinja2.Environment(undefined=jinja2.StrictUndefined)
    jinja.globals.update(env.macros)
    env.markdown = text                # as mkdocs-macros holds it while the page renders
    env.markdown = jinja.from_string(text).render()
    on_post_page_macros(env)
    return put_back(env.page, env.markdown)


def claim_calls(folder: Path):
    """(page, claim, options) for every claim(...) call in the pages of
    `folder` (docs/toy, docs/nano-gpt), read as the macro would take them."""
    for md in sorted(folder.glob("*.md")):
        for call in re.findall(r"\{\{-?\s*(claim\(.*?\))\s*-?\}\}", md.read_text(encoding="utf-8")):
            node = ast.parse(call, mode="eval").body
            yield (md.name, ast.literal_eval(node.args[0]),
                   {k.arg: ast.literal_eval(k.value) for k in node.keywords})


def nano_refused(path) -> str:
    """Why nanogpt.load refuses `path`: one line after the file's name, short."""
    with pytest.raises(nanogpt.NanoWeightsError) as err:
        nanogpt.load(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 400, message
    return message[len(str(path)) + 2:]


def page_error(env: FakeEnv, text: str, src_path: str = "bad.md", source: str | None = None) -> str:
    """The line a build logs at error level for a page holding text (the
    plugin's handlers, errors.py); fails when the page renders."""
    from mkdocs_macros.errors import format_error
    from toycalc.site import errors
    errors.LOGGED.clear()
    try:
        shown = render_page(env, text, src_path, source)
    except Exception as error:      # what MacrosPlugin.render catches
        errors.LOGGED.clear()
        shown = format_error(error, markdown=text, page=env.page)
        (line,) = errors.LOGGED
        assert "Traceback" not in shown
        return line
    if errors.PAGE_ERROR in shown:  # false claims: each logged, the page shows them in its place
        (line,) = errors.LOGGED
        return line
    pytest.fail(f"{text!r} rendered without an error")


# What `make check` leaves out (pyproject.toml lists the markers): a test
# that builds a site of its own (marked build, or using project, server,
# served or altered), a test in a browser (using chromium), a retraining
# (marked train), and the tests named in LONG (marked long): nano-gpt's
# JavaScript on all 729 inputs in Node, greedy decoding one input after
# another, which took a quarter of make check's time. `make test` runs
# them all.
LONG = {
    "book/test_nanogpt_parity.py": ["test_the_browser_sorts_all_729_as_toycalc_does",
                                    "test_the_browsers_logits_are_toycalcs"],    # the same Node run (browser_runs)
    "book/test_training_parity.py": ["test_the_sorted_count_is_greedy_decodings"],
    # and the checks that take seconds each (a whole make check on 2 cores
    # took 95 s with them): the writer's held-out loss computed again, every
    # page rendered on hostile weights, the print page's words and links read
    "model/test_writer.py": ["test_the_shipped_held_out_loss_is_computed_again_from_the_committed_text"],
    "site/test_text_not_markup.py": ["test_no_value_from_a_weights_file_becomes_markup"],
    "site/test_counting.py": ["test_no_page_numbers_a_position_block_or_head_0"],
    "site/test_blocks.py": ["test_on_the_print_page_every_link_within_it_reaches_an_element",
                            "test_on_the_print_page_a_drawings_parts_link_to_their_sections"],
    # the central differences of a 3-block model and of each 2017-to-now switch
    # (the toy's and the writer's backward passes keep theirs in make check)
    "book/test_nanogpt_chapter.py": ["test_backward_three_blocks_against_central_differences",
                                     # greedy decoding of the 729 the slow way: the build's claim sorts_all
                                     # counts them (Run's shortcut, held to this way by test_nanogpt_claims.py)
                                     "test_shipped_weights_sort_all_729"],
    # the command line's refusal after a run: a training step and two passes over the 729
    "model/test_train.py": ["test_a_run_that_does_not_sort_all_729_writes_nothing"],
    "book/test_since_2017.py": ["test_backward_of_each_switch_against_central_differences"],
    "site/test_reader_conventions.py": ["test_on_the_print_page_a_term_is_underlined_once_a_section_and_never_in_a_heading"],
    "site/test_speedups.py": ["test_the_built_print_page_prefixes_each_heading_with_its_page"],
}
#
# The files that take longest, longest first (a whole run on 2 cores,
# measured with --durations): the Makefile hands whole files to the two
# workers in the order of collection (--dist loadfile
# --no-loadscope-reorder), so the long ones start first and the short ones
# even out the end. The first worker takes the tour of every page; the
# second the one-test training in chromium and, as a worker whose file
# has at most two tests left is handed the next file at once, the numpy
# retraining (test_nanogpt_chapter.py) after it: the two trainings (two
# threads each, which wait on each other on a busy machine) never run side
# by side. Only the time a run takes depends on this list; a file missing
# from it runs after these.
LONG_FIRST = [
    "browser/test_every_page_browser.py", "browser/test_nanogpt_train_browser.py",
    # under make check these come first: the site's build (for test_nanogpt_chapter.py)
    # on one worker while the other computes what needs no site
    "book/test_nanogpt_claims.py", "book/test_nanogpt_chapter.py", "book/test_training_parity.py",
    "book/test_writer_parity.py", "model/test_train.py", "browser/test_simulator_browser.py",
    "site/test_reader_conventions.py", "browser/test_nanogpt_live_browser.py",
    "browser/test_end_to_end_browser.py", "browser/test_weights_editor_browser.py",
    "site/test_serve_survives.py", "browser/test_reader_conventions_browser.py",
    "browser/test_figures_browser.py", "book/test_end_to_end.py", "browser/test_toy_training_browser.py",
    "site/test_build_failures.py", "site/test_workflow.py", "browser/test_nanogpt_follow_weights_browser.py",
    "browser/test_nanogpt_switch_browser.py", "browser/test_print_browser.py", "book/test_nanogpt_live.py",
    "book/test_nanogpt_parity.py", "browser/test_simulator_speed_browser.py",
    "book/test_toy_chapter.py", "browser/test_nanogpt_browser.py", "browser/test_figures_nano_browser.py",
]


def pytest_collection_modifyitems(items):
    long = {f"tests/{path}::{name}" for path, names in LONG.items() for name in names}
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "chromium" in used:
            item.add_marker(pytest.mark.browser)
        if used & {"project", "server", "served", "altered"}:
            item.add_marker(pytest.mark.build)
        if item.nodeid.split("[")[0] in long:
            item.add_marker(pytest.mark.long)
    rank = {f"tests/{name}": k for k, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))   # stable: a file's order kept


@pytest.fixture(scope="session")
def toy():
    return load_toy(DEFAULT_TOY)


@pytest.fixture(scope="session")
def nano():
    """The shipped nano-gpt."""
    return nanogpt.load()


@pytest.fixture(scope="session")
def run(nano):
    """nano-gpt on the book's example (its numbers are computed once, when asked)."""
    return Run(nano)


def built_once(tmp_path_factory, name: str, make) -> Path:
    """The folder `name` that make(folder) fills, made once for the whole run:
    under pytest-xdist the first worker to ask makes it (the others wait for
    it), in the folder the workers' own temporary folders share; make must
    not depend on the worker (the served site, built for its worker's port,
    does). A failed make leaves nothing for the next to reuse."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    out, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # released when the file closes
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            make(out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site built once from the shipped weights (once for both workers)."""
    def make(out):
        result = build_site(out)
        assert result.returncode == 0, result.stderr
    return built_once(tmp_path_factory, "site", make)


@pytest.fixture(scope="session")
def soups(site) -> dict[Path, BeautifulSoup]:
    """Every HTML file of the shared site (its path: its soup), for the
    checks that read every page; shared as parsed() says: read only. The
    print page aside: it is every chapter again, a third of the site's
    bytes, and its own tests read it (test_blocks.py, test_counting.py,
    test_reader_conventions.py, test_print_browser.py)."""
    return {path: parsed(path) for path in sorted(site.rglob("*.html")) if path.parent.name != "print_page"}


def altered_toy(add_token: bool = False) -> dict:
    """The shipped toy weights with ␣the and ␣cat moved, a row of P and a
    weight of ␣roof's column changed, and (add_token) a 13th token, ␣mat:
    every number of the book changes, no sentence of it turns false."""
    import yaml
    data = yaml.safe_load(DEFAULT_TOY.read_text(encoding="utf-8"))
    data["E"][1] = [-0.5, 0.5, -0.5, 1]     # ␣the moves: the last token's q turns elsewhere
    data["E"][2] = [0.5, -1, 0.5, 0]        # ␣cat moves
    data["P"][3] = [-0.5, 0.5, 0.5, 0]
    data["W_U"][1][6] = 0.5                  # ␣roof's column
    if add_token:
        data["vocab"].append("␣mat")
        data["E"].append([0, 0.5, 1, -0.5])
        for row, w in zip(data["W_U"], [0, 1, 1, 0.5]):
            row.append(w)
    return data


def altered_nano(nano, path: Path) -> Path:
    """nano-gpt with W_Q scaled by 0.8 and W_U by 1.5 (it still sorts all
    729 inputs, so no sentence of the chapter turns false) and a loss curve
    halved; the record's facts follow (the build checks them)."""
    import numpy as np
    from toycalc.book.nano_example import Run
    scale = {"W_Q": 0.8, "W_U": 1.5}
    params = {k: (v * scale.get(k.rsplit(".", 1)[-1], 1)).astype(np.float32) for k, v in nano.params.items()}
    run = Run(nanogpt.Nano(path, {k: v.astype(np.float64) for k, v in params.items()}, nano.record))
    curve = [round(v / 2, 8) for v in nano.record["loss_curve"]]
    last = int(nano.record["final_loss_means"].split()[-2])     # "mean training loss of the last 100 steps"
    record = dict(nano.record, loss_curve=curve, final_loss=round(float(np.mean(curve[-last:])), 8),
                  loss_on_729=round(run.loss_on_729, 8), accuracy_on_729=run.sorted_count)
    nanogpt.save(params, record, path)
    return path


@pytest.fixture(scope="session")
def altered(tmp_path_factory, nano) -> SimpleNamespace:
    """The site built once on other weights (altered_toy with ␣mat,
    altered_nano), for the tests that check the book follows its weights:
    .site, .toy, .nano (paths)."""
    import yaml

    def make(root):
        toy_path = root / "toy.yaml"
        toy_path.write_text(yaml.safe_dump(altered_toy(add_token=True), allow_unicode=True), encoding="utf-8")
        altered_nano(nano, root / "nano.safetensors")
        result = build_site(root / "site", toy_path, nano=root / "nano.safetensors")
        assert result.returncode == 0, result.stderr
    root = built_once(tmp_path_factory, "altered", make)
    return SimpleNamespace(site=root / "site", toy=root / "toy.yaml", nano=root / "nano.safetensors")


# ---------------------------------------------------------------- the browser

# Debian's chromium-headless-shell: the headless build of chromium, the one
# Playwright runs by default. Debian's chromium (the whole browser, run
# headless) is the fallback: it also starts a renderer for the window's own
# interface with every context, which made each test's fresh page take
# about twice as long.
CHROMIUM = next((path for path in (shutil.which("chromium-headless-shell"),
                                   "/usr/lib/chromium/chromium-headless-shell",
                                   shutil.which("chromium"), "/usr/bin/chromium")
                 if path and os.path.exists(path)), None)


@pytest.fixture(scope="session")
def chromium():
    if CHROMIUM is None:
        message = ("the browser tests need Debian's chromium: sudo apt-get install chromium-headless-shell "
                   "(Playwright cannot download its own browser here)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            # no name resolves but the local server's address: a request for
            # anything else fails in the browser, never leaving the machine
            # (Visit records it), without routing each request through Python
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"])
        yield browser
        browser.close()


FORK = "https://github.com/a-reader/toycalc-fork"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The site, built for and served at http://127.0.0.1:PORT/, as a fork's
    Pages workflow builds it (with the address of its repository, FORK)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = tmp_path_factory.mktemp("served")
    result = build_site(root, address={"TOYCALC_SITE_URL": f"http://127.0.0.1:{port}/",
                                       "TOYCALC_REPO_URL": FORK, "TOYCALC_EDIT_BRANCH": "trunk"})
    assert result.returncode == 0, result.stderr
    handler = functools.partial(Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()


BLANK = "/blank-between-tests"


class Quiet(http.server.SimpleHTTPRequestHandler):
    """The site's files, unlogged, and at BLANK an empty page of the same
    origin (where Visit.reset clears what a test stored)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path != BLANK:
            try:
                return super().do_GET()
            except (BrokenPipeError, ConnectionResetError):   # the page was left before its file came
                return None
        body = b"<!doctype html><title>between two tests</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


# The book's formulas come typeset (toycalc/site/typeset.py); those a
# script makes for the reader (nano-gpt's letters) wait for MathJax, which
# the script brings (mathjax-config.js). To check them all, a test shows
# what it wants (opens a step, a question) and then brings each formula
# that is shown, one not yet typeset, into view until it is typeset.
# Returns the first formula that never got typeset, or null.
TYPESET_SHOWN = r"""async (scope) => {
  const typeset = (el) => el.querySelector('mjx-container');
  const shown = () => [...document.querySelectorAll(scope + ' .arithmatex')]
      .filter((el) => el.checkVisibility() && !typeset(el));   // not in a closed <details>
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  for (let el; (el = shown()[0]); ) {
    el.scrollIntoView({block: 'center'});
    const start = performance.now();
    // a live table may replace the formula's node meanwhile: then look again
    while (el.isConnected && !typeset(el) && performance.now() - start < 20000) {
      await frame();
      if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
    }
    if (el.isConnected && !typeset(el)) return el.textContent.slice(0, 80);
  }
  return null;
}"""


# What axe leaves out: the heads choices the reader did not make. Hidden,
# they are in no reader's view nor the accessibility tree, and axe reads
# them as such; walking them cost it a quarter of its time on a toy page.
# The choice a reader makes is read when shown (the heads tests).
UNCHOSEN = ".heads-variant[hidden]"


# Rules axe calls experimental (off unless asked for) that Lighthouse runs:
# a data cell of a large table without a header; a control whose name leaves
# out the words it shows (a reader who speaks them to voice control misses it).
EXPERIMENTAL_RULES = ["td-has-header", "label-content-name-mismatch"]


def axe_violations(page, rules: list[str] | None = None, skip: list[str] | None = None) -> list[dict]:
    """axe's findings on the page at rest (only these rules, when given,
    else all, EXPERIMENTAL_RULES too; without the rules to skip), the unchosen heads variants left out:
    Material's back-to-top button and the header's title (the site's or
    the page's) fade in or out when a test scrolls, and axe must not read
    their colours half-way through (it flagged their contrast then, now and
    again)."""
    from axe_playwright_python.sync_playwright import Axe
    page.wait_for_function("() => !document.getAnimations().some(a => a.playState === 'running' "
                           "&& a.effect && a.effect.target && a.effect.target.closest('.md-header, .md-top'))")
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    else:
        options["rules"] = {rule: {"enabled": True} for rule in EXPERIMENTAL_RULES}
    if skip:
        options.setdefault("rules", {}).update({rule: {"enabled": False} for rule in skip})
    # (an exclusion that matches nothing is no error to axe)
    return Axe().run(page, context={"exclude": [[UNCHOSEN]]}, options=options).response["violations"]


class Visit:
    """A browser context and its page (linked choices live in localStorage)
    that records every request for anything but the local server (the
    browser lets none through: chromium's host rules). Watched, not routed:
    a route sends each request through Python and turns off the browser's
    cache, which made every page load slower. Its reader asks for reduced
    motion: End to End's steps then jump into view instead of gliding
    (test_end_to_end_browser.py reads the glide), so a click never waits
    for the page to stop moving (12 % of the step-clicking files' time)."""

    def __init__(self, browser, base, width=1280, scheme="light", touch=False):
        self.base, self.outside, self.errors = base, [], []
        self.host = urlparse(base).netloc
        self.context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme,
                                           has_touch=touch, reduced_motion="reduce")
        self.context.on("request", self._request)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def reset(self) -> None:
        """Ready for the next test as a new context would be: its page left
        (its scripts stopped), what it stored in either storage cleared,
        the mouse back in the corner, what it asked and logged forgotten.
        The page stays, and with it its renderer and the browser's cache:
        a test's first load took half as long again in a new context."""
        self.page.goto(self.base + BLANK)
        self.page.evaluate("localStorage.clear(); sessionStorage.clear()")
        self.page.mouse.move(0, 0)      # hovering nothing on the next page
        self.context.clear_cookies()
        self.outside.clear()
        self.errors.clear()

    def _request(self, request):
        url = urlparse(request.url)
        if url.scheme not in ("data", "blob") and url.netloc != self.host:
            self.outside.append(request.url)

    def open(self, path="/end-to-end/"):
        self.page.goto(self.base + path)
        # the formulas set and the page's code running (book.js)
        self.page.wait_for_selector("body[data-mathjax=done][data-started]", timeout=60000)
        return self.page

    def typeset_shown(self, scope: str = "article") -> None:
        """Bring every formula shown in scope into view, and wait until each is typeset."""
        stuck = self.page.evaluate(TYPESET_SHOWN, scope)
        assert stuck is None, f"never typeset, though shown: {stuck}"


@pytest.fixture(scope="module")
def kept_visits(chromium, server):
    """A test file's visits, one for each width, scheme and touch, handed
    from one test to the next (reset between them)."""
    kept: dict[tuple, Visit] = {}
    yield kept
    for v in kept.values():
        v.context.close()


@pytest.fixture
def visit(chromium, server, kept_visits):
    """visit(width, scheme, touch) -> a Visit: the file's kept one of that
    kind, or (own_context=True, or a second of a kind in one test) a new
    context of the test's own. A test that changes its context or page for
    good (a route, an init script, emulated media) asks for its own."""
    visits, own = [], []

    def make(width=1280, scheme="light", touch=False, own_context=False):
        """scheme: the reader's system preference, "light" or "dark" (the site
        follows it); touch: a touch screen (page.tap)."""
        kind = (width, scheme, touch)
        kept = kept_visits.get(kind)
        if own_context or (kept is not None and kept in visits):
            v = Visit(chromium, server, width, scheme, touch)
            own.append(v)
        elif kept is None:
            v = kept_visits[kind] = Visit(chromium, server, width, scheme, touch)
        else:
            v = kept
        visits.append(v)
        return v
    yield make
    found = [(list(v.outside), list(v.errors)) for v in visits]
    for v in visits:
        if v in own:
            v.context.close()
            continue
        try:
            v.reset()
        except Exception:       # noqa: BLE001 (a page that cannot be left: the next test gets a new one)
            kept_visits.pop(next(kind for kind, kept in kept_visits.items() if kept is v))
            v.context.close()
    for outside, errors in found:
        assert outside == [], f"requests left the local server: {outside}"
        assert errors == [], f"console errors: {errors}"
