"""The writer's chapter (docs/writer/), read in the built HTML: its numbers
are the text's and the weights', its samples the ones toycalc writes, its
figures carry every number; every claim holds for the shipped weights, and
altered weights fail the build naming the page and the line."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter

import numpy as np
from safetensors.numpy import load
import pytest

from conftest import ROOT, mkdocs_env, page
from toycalc.book.writer import WRITER_CLAIMS, WriterRun
from toycalc.book.writer.live import WEIGHTS_URI
from toycalc.book.writer.shared import FOLLOWED_HEAD, SAMPLE_LENGTH, SAMPLE_SEED, TEMPERATURES
from toycalc.model import writer

CHAPTER = ROOT / "docs" / "writer"


@pytest.fixture(scope="module")
def run():
    return WriterRun(writer.load())


def text_of(soup) -> str:
    return " ".join(soup.select_one("article").get_text(" ").split())


def claim_calls():
    """(page, line, claim, options) of every claim on the chapter's pages."""
    for path in sorted(CHAPTER.glob("*.md")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, args in re.findall(r'\bclaim\("(\w+)"((?:, \w+=(?:"[^"]*"|[^,)]+))*)\)', line):
                options = {k: json.loads(v) for k, v in re.findall(r'(\w+)=("[^"]*"|[^,)]+)', args)}
                yield path.name, n, what, options


def test_every_claim_is_made_and_holds_for_the_shipped_weights(run):
    calls = list(claim_calls())
    assert {what for *_, what, _ in calls} == set(WRITER_CLAIMS)
    for name, line, what, options in calls:
        assert WRITER_CLAIMS[what](run, **options) is None, (name, line, what, options)


def test_the_text_page_prints_the_texts_counts(site, run):
    soup = page(site, "writer")
    text = text_of(soup)
    counts = Counter(writer.text())
    assert f"{len(writer.text()):,} characters of Shakespeare" in text
    assert f"occurs {counts['e']:,} times" in text and f"only {counts['z']:,}" in text
    cells = [td.get_text() for td in soup.select("#writer-characters td")]
    pairs = dict(zip(cells[0::2], cells[1::2]))
    assert len([k for k in pairs if k]) == 65
    assert pairs["␣"] == f"{counts[' ']:,}" and pairs["↵"] == f"{counts[chr(10)]:,}"


def test_the_losses_are_the_records_and_the_texts(site, run):
    soup = page(site, "writer")
    rows = [[c.get_text() for c in tr.select("th, td")] for tr in soup.select("#writer-losses tbody tr")]
    held = run.record["held_out_loss"]
    assert rows[0][1:] == [f"{held:.2f}", f"{held / math.log(2):.2f}", f"{math.exp(held):.1f}"]
    counts = np.bincount(writer.train_ids(), minlength=65)
    unigram = -np.log((counts / counts.sum())[writer.held_out_ids()]).mean()
    assert rows[1][1] == f"{unigram:.2f}" and 3.2 < unigram < 3.4
    assert rows[2][1] == f"{math.log(65):.2f}"
    titles = [t.get_text() for t in soup.select("[data-figure=writer-curves] title")]
    assert f"step {run.record['steps']}: held-out loss {run.record['held_out_curve'][-1][1]:.3f}" in titles


def test_the_samples_are_toycalcs_for_the_seed(site, run):
    """The chapter's samples are what the build's sampler writes (writer_pass.js
    in Node; tests/site/test_writer_sampler.py holds it to numpy's)."""
    from toycalc.site.writer_sampler import node_write
    built = WriterRun(writer.load(), sampler=node_write)
    soup = page(site, "writer")
    figures = soup.select("figure[data-figure=writer-sample]")
    assert [float(f["data-temperature"]) for f in figures] == list(TEMPERATURES)
    for f in figures:
        assert f["data-seed"] == str(SAMPLE_SEED)
        assert f.select_one(".writer-prompt").get_text() == run.line + "\n"
        written = f.select_one(".writer-written").get_text()
        assert len(written) == SAMPLE_LENGTH
        assert written == built.sample_text(float(f["data-temperature"]))
    assert len({f.select_one(".writer-written").get_text() for f in figures}) == 3


def test_inside_shows_every_step_and_every_head_with_its_numbers(site, run):
    soup = page(site, "writer/inside")
    rows = soup.select("#writer-steps tbody tr")
    assert [r.select_one("code").get_text() for r in rows][:3] == ["E", "P", "x"]
    last = len(run.ids) - 1
    x = run.trace["X"][last]
    x_row = rows[2]
    titles = [t.get_text() for t in x_row.select("svg title")]
    assert len(titles) == 128
    assert titles[0] == f"x[1]: {x[0]:.3f}".replace("-", "−")
    p_titles = [t.get_text() for t in rows[-1].select("svg title")]
    assert len(p_titles) == 65
    heads = soup.select("[data-figure=writer-attention] svg")
    assert len(heads) == 16
    T = len(run.line)
    cells = heads[0].select("rect title")
    assert len(cells) == T * (T + 1) // 2
    a = run.attention(1, 1)
    assert cells[1].get_text().endswith(f"{a[1, 0]:.3f}")



def test_the_embeddings_picture_carries_every_place_and_pair(site, run):
    """Every character is a mark (a name, or a dot of its kind) whose title
    gives its place on the two principal directions, recomputed here by an
    SVD of E; a line joins each letter's two cases, its title their
    distance; the figure has its key. (A third of the characters are named:
    a name is never drawn over a dot or across another letter's line.)"""
    soup = page(site, "writer/inside")
    fig = soup.select_one("[data-figure=writer-embeddings]")
    marks = fig.select(":is(text, circle, path.writer-dot) > title")
    assert len(marks) == 65 and len(fig.select("text > title")) > 18
    E = run.params["E"] - run.params["E"].mean(axis=0)
    _, _, vt = np.linalg.svd(E, full_matrices=False)
    xy = E @ vt[:2].T
    xy *= np.sign(xy[np.abs(xy).argmax(axis=0), [0, 1]])       # each direction's largest coordinate positive
    shown = {}
    for title in marks:
        found = re.fullmatch(r"(.+) \((a capital|a small letter|any other character)\): \((\S+), (\S+)\)",
                             title.get_text())
        assert found, title.get_text()
        shown[found[1]] = [float(v.replace("−", "-")) for v in (found[3], found[4])]
    for i, ch in enumerate(run.vocab):
        assert np.allclose(shown[{" ": "␣", "\n": "↵"}.get(ch, ch)], xy[i], atol=6e-4), ch
    pairs = fig.select("line.writer-pair > title")
    assert len(pairs) == 26
    a, A = run.vocab.index("a"), run.vocab.index("A")
    assert f"a and A: {np.linalg.norm(xy[a] - xy[A]):.3f} apart".replace("-", "−") in [t.get_text() for t in pairs]
    key = fig.find_next_sibling("p")
    assert "a capital" in key.get_text() and "a line joins a letter's two cases" in key.get_text()


def test_the_last_character_is_read_out_after_every_block(site, run):
    """The logit lens: x, then each block's output, through the final
    LayerNorm and W_U (computed here from the trace with numpy alone): the
    likeliest next character and its p in each row, the last row the model's own answer."""
    rows = page(site, "writer/inside").select("#writer-through tbody tr")
    t, last = run.trace, len(run.ids) - 1
    stages = [t["X"][last]] + [blk["y"][last] for blk in t["blocks"]]
    assert len(rows) == len(stages) == 5
    for row, y in zip(rows, stages):
        f = (y - y.mean()) / np.sqrt(y.var() + 1e-5) * run.params["gamma_f"] + run.params["beta_f"]
        z = f @ run.params["W_U"]
        p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        top = int(p.argmax())
        assert row.select("td")[-1].get_text(" ", strip=True) == (
            f"{ {' ': '␣', chr(10): '↵'}.get(run.vocab[top], run.vocab[top])} {p[top]:.3f}")
        assert len(row.select("svg title")) == 128
    assert np.isclose(p[top], t["p"][-1].max())


def test_the_live_page_has_its_setup_and_the_weights_are_published(site, run):
    soup = page(site, "writer/write")
    tool = soup.select_one("[data-writer]")
    assert tool["data-module"] == "writer"
    setup = json.loads(tool["data-writer"])
    assert setup["vocab"] == run.vocab and setup["prompt"] == run.prompt and setup["seed"] == SAMPLE_SEED
    published = (site / WEIGHTS_URI).read_bytes()
    assert WEIGHTS_URI.endswith(".safetensors") and len(published) == setup["bytes"] > 2 * 818_176
    arrays = load(published)            # the safetensors package reads what the page fetches
    assert all(np.array_equal(a.astype(np.float64), run.params[n]) for n, a in arrays.items())
    assert sorted(arrays) == sorted(run.params)
    # one weights format: no .npz or .bin weights anywhere in the site
    assert not [p for p in site.rglob("*") if p.suffix in (".npz", ".bin")]
    # the page loads nothing big before the reader starts: the weights are not in it
    assert len((site / "writer" / "write" / "index.html").read_bytes()) < 200_000


@pytest.mark.build
def test_false_claims_on_altered_weights_fail_the_build_each_named_with_page_and_line(tmp_path, run):
    """Head 2 of block 1 made to read every character alike (its part of
    W_Q and b_Q zero), and the unembedding shrunk to a hundredth (every
    next character nearly as likely as any other): the sentences these make
    false, on both of the chapter's pages with claims, are each named by a
    strict build, with page and line, not only the first (#51), and no
    other; a warn build marks each on its page."""
    params = {k: v.copy() for k, v in run.params.items()}
    block, head = FOLLOWED_HEAD                       # the head the chapter follows, its queries zero
    dh = run.cfg.d // run.cfg.n_heads
    cols = slice((head - 1) * dh, head * dh)
    params[f"blocks.{block - 1}.W_Q"][:, cols] = 0
    params[f"blocks.{block - 1}.b_Q"][cols] = 0
    params["W_U"] *= 0.01
    # their record told true, as the build recomputes it: the named windows, the curve's last point, the loss
    named = writer.windows_record(params)
    record = dict(run.record, weights_sha256=writer.digest(params), held_out_windows=named,
                  held_out_curve=[*run.record["held_out_curve"][:-1], [run.record["steps"], named["loss"]]],
                  held_out_loss=named["loss"])
    path = tmp_path / "writer.safetensors"
    writer.save(params, record, path)
    altered = WriterRun(writer.load(path))
    want = {(f"writer/{name}", line, what) for name, line, what, options in claim_calls()
            if WRITER_CLAIMS[what](altered, **options) is not None}
    head_2 = next(line for name, line, what, options in claim_calls()
                  if what == "favours" and options == {"offset": 1})        # the head the chapter follows
    assert len({page for page, *_ in want}) == 2 and ("writer/inside.md", head_2, "favours") in want

    def build(**claims):
        env = mkdocs_env(TOYCALC_WRITER=str(path), **claims)
        return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                               str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=600)
    result = build()
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    errors = [s for s in result.stderr.splitlines() if "rewrite the sentence or the weights" in s]
    named = set()
    for error in errors:
        found = re.search(r"(writer/\w+\.md), line (\d+): the text \(“.+”\) claims (\w+)\((.*?)\), but ", error)
        assert found, error
        assert error.endswith(f"rewrite the sentence or the weights ({path})")
        named.add((found[1], int(found[2]), found[3]))
    assert named == want, result.stderr[-3000:]
    warned = build(TOYCALC_CLAIMS="warn")
    assert warned.returncode == 0, warned.stderr[-2000:]
    marked = sum((tmp_path / "site" / "writer" / name / "index.html").read_text(encoding="utf-8")
                 .count('class="claim-broken"') for name in ("", "inside"))
    assert marked == sum(WRITER_CLAIMS[what](altered, **options) is not None
                         for _, _, what, options in claim_calls())
