"""nano-gpt, the letter sorter: its gradients, its training, its shipped
weights, its loader, and the chapter's numbers in the built site."""
import os
import re
import subprocess
import sys

import numpy as np
from safetensors.numpy import load_file, save_file
import pytest
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from conftest import fresh_page, page, page_error
from references import assert_grads_match
from toycalc.book.nano_gpt import cells as nano_cells, embedding, index, layer_norm, nano_gpt, self_attention
from toycalc.model import blas, gpt, nanogpt, sizes, train
from toycalc.book.nano_example import Run
from toycalc.book.render import fixed

M = "\u2212"
# The first five training losses at the fixed seed (float32, batch 64),
# as python -m toycalc train computes them.
FIRST_LOSSES = [1.0317977666854858, 0.8848059773445129, 0.7934215664863586,
                0.7687504887580872, 0.7253214716911316]


# ------------------------------------------------------------- the engine

def test_config_is_mingpts_sorter():
    assert sizes.count_params(nanogpt.CONFIG)["total"] == 85_728
    c = sizes.count_params(nanogpt.CONFIG)
    assert c["total"] - c["W_U"] == 85_584   # what minGPT prints: no lm_head


def test_backward_three_blocks_against_central_differences():
    """Every parameter of a 3-block model with biases, LayerNorm weights and
    an untied output, on a batch of sort examples (ignored targets included)."""
    cfg = gpt.Config(vocab_size=3, d=12, n_ctx=11, n_blocks=3, n_heads=3, width=16,
                     bias=True, ln_weights=True, tied=False)
    rng = np.random.default_rng(4)
    params = {k: rng.normal(0, 0.4, v.shape) for k, v in sizes.init_params(cfg, rng).items()}
    ids, targets = nanogpt.examples(rng.integers(0, 3, (2, 6)))
    assert (targets == -1).sum() == 10 and np.isin(ids, [0, 1, 2]).all()
    assert_grads_match(params, cfg, ids, targets)


def test_float32_stays_float32():
    params, _, data = train.start()
    ids, targets = next(data)
    loss, grads = gpt.loss_and_grads(params, nanogpt.CONFIG, ids, targets)
    assert all(g.dtype == np.float32 for g in grads.values())


def test_first_training_losses_are_pinned():
    np.testing.assert_allclose(train.first_losses(5), FIRST_LOSSES, rtol=0, atol=1e-6)


def test_examples_are_mingpts():
    ids, targets = nanogpt.examples(np.array([[2, 1, 0, 1, 1, 2]]))
    assert ids.tolist() == [[2, 1, 0, 1, 1, 2, 0, 1, 1, 1, 2]]
    assert targets.tolist() == [[-1, -1, -1, -1, -1, 0, 1, 1, 1, 2, 2]]


# ------------------------------------------------------------- the shipped weights

def test_shipped_weights_sort_all_729(nano):
    assert nanogpt.accuracy(nano.params) == 729
    assert nano.record["accuracy_on_729"] == 729


def test_the_example(nano):
    answer = nanogpt.sort(nano.params, nanogpt.encode("C B A B B C"))
    assert nanogpt.letters(answer) == "A B B B C C"


def test_record_describes_the_weights(nano):
    rec = nano.record
    assert rec["config"] == {k: getattr(nanogpt.CONFIG, k) for k in nanogpt.CONFIG.__dataclass_fields__}
    assert rec["parameters"] == 85_728 and rec["seed"] == train.SEED and rec["batch"] == train.BATCH
    assert rec["loss_on_729"] == pytest.approx(train.eval_loss(nano.params), abs=1e-7)


@pytest.mark.train
def test_retraining_reproduces_the_shipped_weights_whatever_the_threads(tmp_path, nano):
    """The documented command, run again with the machine's BLAS set to a
    thread count other than the one it pins (blas.THREADS): it stops at the
    same step, sorts all 729 inputs and gives the shipped weights to the
    bit (it pins the kernel and the threads itself, and says so in the
    record). With the pinned count it would only repeat this run."""
    threads = "1"
    assert str(blas.THREADS) != threads
    out = tmp_path / "nanogpt.safetensors"
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
    env.pop("OPENBLAS_CORETYPE", None)
    result = subprocess.run([sys.executable, "-m", "toycalc", "train", "--out", str(out)],
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    again = nanogpt.load(out)
    assert again.record["steps"] == nano.record["steps"]
    assert again.record["made_with"] == nano.record["made_with"]
    for name, value in nano.params.items():
        assert np.array_equal(again.params[name], value), name


def test_the_record_says_what_the_weights_depend_on(nano):
    made = nano.record["made_with"]
    assert made["kernel"] == blas.CORETYPE and made["threads"] == blas.THREADS
    assert made["numpy"] == np.__version__, "numpy changed since the weights were made: retrain"


# ------------------------------------------------------------- the loader

def write_weights(tmp_path, change):
    arrays = {k: v.astype(np.float32) for k, v in nanogpt.load().params.items()}
    change(arrays)
    path = tmp_path / "bad.safetensors"
    save_file(arrays, path)
    return path


BAD = [
    ("missing", lambda a: a.pop("blocks.1.W_K"), "array 'blocks.1.W_K' is missing: expected shape (48, 48)"),
    ("misshapen", lambda a: a.update({"blocks.2.b_1": np.zeros(48, np.float32)}),
     "array 'blocks.2.b_1': expected shape (192,), found (48,)"),
    ("transposed", lambda a: a.update({"W_U": a["W_U"].T}), "array 'W_U': expected shape (48, 3), found (3, 48)"),
    ("not finite", lambda a: a["P"].__setitem__((4, 7), np.nan), "array 'P': holds a value that is not finite (at index (4, 7))"),
    ("unknown", lambda a: a.update({"W_X": np.zeros(3)}), "unknown array 'W_X'"),
]


@pytest.mark.parametrize("what, change, message", BAD, ids=[b[0] for b in BAD])
def test_loader_rejects(tmp_path, what, change, message):
    path = write_weights(tmp_path, change)
    with pytest.raises(nanogpt.NanoWeightsError) as err:
        nanogpt.load(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_loader_missing_file(tmp_path):
    with pytest.raises(nanogpt.NanoWeightsError, match="cannot read the nano-gpt weights.*python -m toycalc train"):
        nanogpt.load(tmp_path / "nowhere.safetensors")


def test_bad_weights_stop_the_build(tmp_path, macros):
    path = write_weights(tmp_path, BAD[1][1])
    with pytest.raises(PluginError) as err:
        macros(nano=path)
    assert str(err.value).startswith(f"{path}: ") and BAD[1][2] in str(err.value)


# ------------------------------------------------------------- macro mistakes

@pytest.mark.parametrize("call, message", [
    ('{{ nano_gpt_table("nope") }}', "bad.md, line 3: nano_gpt_table('nope'): no such name; the names are: legend, vocab, params,"),
    ('{{ nano_gpt_number("p", leter="A") }}', "bad.md, line 3: nano_gpt_number('p'): unknown argument 'leter'; it takes letter, t, places"),
    ('{{ nano_gpt_number("p", t=7) }}', "bad.md, line 3: nano_gpt_number('p'): t = 7: the example has positions 1 to 6"),
    ('{{ nano_gpt_number("p", t=0) }}', "bad.md, line 3: nano_gpt_number('p'): t = 0: the example has positions 1 to 6"),
    ('{{ nano_gpt_matrix("qkv", head=4) }}', "bad.md, line 3: nano_gpt_matrix('qkv'): head = 4: the model has heads 1 to 3"),
    ('{{ nano_gpt_matrix("u", block=0) }}', "bad.md, line 3: nano_gpt_matrix('u'): block = 0: the model has blocks 1 to 3"),
])
def test_bad_nano_macro_call(macros, call, message):
    assert message in page_error(macros(), f"# Bad\n\n{call}\n")


# ------------------------------------------------------------- the chapter, built

PAGES = ["", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
         "transformer", "softmax", "output"]


def chapter(site, name):
    return page(site, f"nano-gpt/{name}" if name else "nano-gpt")


def text_of(soup):
    return " ".join(soup.get_text(" ").split())


def cells(soup, table_id):
    table = soup.find("table", id=table_id)
    assert table is not None, f"no table #{table_id}"
    return [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]


def f3(x):
    return fixed(x)


def test_every_page_builds(site):
    for name in PAGES:
        soup = chapter(site, name)
        assert soup.find("h1").get_text().startswith("nano-gpt")


def test_credits(site):
    for name in ("", "output"):
        text = text_of(chapter(site, name))
        assert "Brendan Bycroft" in text and "MIT" in text and "minGPT" in text and "Karpathy" in text


def test_embedding_numbers_match_the_model(site, nano):
    """Computed here from the weights, without the trace the tables read."""
    E, P = nano.params["E"], nano.params["P"]
    ids = [2, 1, 0, 1, 1, 2]
    x3 = E[ids[3]] + P[3]       # the fourth letter, t = 4 on the page
    body = cells(chapter(site, "embedding"), "nano-embed-4")[1:9]
    assert body == [[str(c + 1), f3(E[1, c]), f3(P[3, c]), f3(x3[c])] for c in range(8)]


def test_layernorm_numbers_match_the_model(site, nano):
    x3 = (nano.params["E"][1] + nano.params["P"][3])
    mu, sigma = x3.mean(), np.sqrt(x3.var() + 1e-5)
    u = (x3 - mu) / sigma * nano.params["blocks.0.gamma_1"] + nano.params["blocks.0.beta_1"]
    soup = chapter(site, "layer-norm")
    text = text_of(soup)
    assert f"\\(\\mu = \\) {f3(mu)}" in text and f"\\(\\sigma = \\) {f3(sigma)}" in text
    body = cells(soup, "nano-layernorm-1-4")[1:9]
    assert [r[-1] for r in body] == [f3(u[c]) for c in range(8)]


def test_attention_and_output_match_the_model(site, nano):
    tr = gpt.forward(nano.params, nanogpt.CONFIG, np.array([2, 1, 0, 1, 1, 2]))
    a = tr["blocks"][0]["weights"][1, 5]   # the page follows block 1's head 2, at t = 6 (see below)
    s = tr["blocks"][0]["scores"][1, 5]
    body = cells(chapter(site, "self-attention"), "nano-attention-row-1-2-6")[1:]
    assert [r[-1] for r in body[:-1]] == [f3(v) for v in a]
    assert body[-1][-2:] == [f3(np.exp(s - s.max()).sum()), "1.000"]
    soup = chapter(site, "output")
    p = tr["p"][5]
    assert f"gives {f3(p[0])} to A, {f3(p[1])} to B and {f3(p[2])} to C" in text_of(soup)
    loop = cells(soup, "nano-generate")[1:]
    assert [r[-1] for r in loop] == ["A", "B", "B", "B", "C", "C"]
    assert loop[0][2:5] == [f3(v) for v in p]
    assert "The model writes A B B B C C" in text_of(soup)


def test_the_whole_model_is_drawn_on_the_introduction(site, nano):
    """nano-gpt's whole-model drawing, as the toy's: its parts named in
    words, one block frame marked × 3 holding its 3 heads, a row per
    letter, and each strip's title its row's 48 numbers, recomputed here."""
    tr = gpt.forward(nano.params, nanogpt.CONFIG, np.array([2, 1, 0, 1, 1, 2]))
    figure = chapter(site, "").select_one('figure[data-figure="nano-model"]')
    svg = figure.select_one("svg")
    words = " ".join(t.get_text() for t in svg.select("text"))
    for name in ("Tokens", "Embedding", "Positions", "LayerNorm", "Attention", "Queries", "Mix", "MLP",
                 "Logits", "Probabilities", "Next token"):
        assert name in words, name
    assert [t.get_text() for t in svg.select("text.frame-title")] == ["Transformer block × 3"]
    assert [t.get_text() for t in svg.select('g[data-part="heads"] text.hdr')] == ["head 1", "head 2", "head 3"]
    rows = {}
    for hit in svg.select('g[data-part="X"] rect.strip-hit'):
        name, numbers = hit.title.get_text().split(": ", 1)
        rows[name] = numbers.split(", ")
    assert len(rows) == 6
    for t, (name, numbers) in enumerate(rows.items()):
        assert f"(position {t + 1})" in name and "its 48 columns" in name
        assert numbers == [f3(v) for v in tr["X"][t]]
    # the answer: A after the last C, with its probability
    assert next(svg.select_one("text.answer").strings) == f"A, p = {f3(tr['p'][5][0])}"


def test_parameter_counts_on_the_page(site):
    soup = chapter(site, "preliminaries")
    body = cells(soup, "nano-params")
    assert body[-2][-1] == "85,728" and body[-1][-1] == "85,584"
    # minGPT prints the count as "%.2fM" % (n / 1e6) when it builds the model
    assert ("minGPT counts a smaller number for the same model, 85,584, and prints it in millions, "
            f"rounded: {85_584 / 1e6:.2f}M") in text_of(soup)


def test_the_scored_positions_follow_the_task(site):
    """Position t predicts the letter at t + 1: the first five would predict
    input letters (ignored); from the one reading the last input letter on,
    the six sorted letters are scored. The page counts positions from 1."""
    _, targets = nanogpt.examples(nanogpt.all_inputs())
    scored = sorted(set(np.nonzero(targets >= 0)[1] + 1))
    assert scored == list(range(nanogpt.LENGTH, 2 * nanogpt.LENGTH))
    text = text_of(chapter(site, "preliminaries"))
    assert f"Only the predictions made at positions {scored[0]} to {scored[-1]} are scored" in text
    assert f"Those at positions 1 to {scored[0] - 1} would have to guess" in text


def test_every_chapter_table_matches_its_renderer(site, run):
    """Each table and matrix on the pages is what book/nano_gpt/ renders for
    the shipped weights (so the page cannot drift from the model)."""
    wanted = {}
    for registry in (nano_gpt.registries["table"], nano_gpt.registries["matrix"]):
        for name, function in registry.items():
            html = function(run)
            for tid in re.findall(r'<table\b[^>]*\sid="([^"]+)"', html):
                wanted[tid] = cells(BeautifulSoup(html, "html.parser"), tid)
    seen = 0
    for name in PAGES:
        soup = chapter(site, name)
        for table in soup.select("table[id^=nano-]"):
            if table["id"] in wanted:
                assert cells(soup, table["id"]) == wanted[table["id"]], table["id"]
                seen += 1
    assert seen >= 15


def test_cells_are_readable_without_colour(site):
    soup = chapter(site, "self-attention")
    for td in soup.select("td.nano-cell:not(.nano-masked)"):
        assert td.get("tabindex") in ("0", "-1")    # reached by the arrow keys; one Tab stop per matrix
        assert td["title"] == td["aria-label"] and td["title"].endswith(td.get_text())
    for table in soup.select("table.nano-matrix"):
        stops = table.select('[tabindex="0"]')
        assert len(stops) == 1 and stops[0] == table.select("td.nano-cell:not(.nano-masked)")[0], table["id"]
    kinds = {k for t in soup.select("table.nano-matrix") for k in t["class"]}
    assert {"nano-matrix--act", "nano-matrix--weight", "nano-matrix--prob"} <= kinds
    for kind in nano_cells.KINDS:   # each caption says its kind in words
        for table in soup.select(f"table.nano-matrix--{kind}"):
            assert table.caption.get_text().endswith(f"({nano_cells.kind_words(kind)})"), table["id"]


TONES = {"nano-neg", "nano-zero", "nano-pos", "nano-prob"}


def test_cells_follow_the_books_visual_language(site):
    """Blue negative, grey zero (a cell that prints 0.000), orange positive,
    purple for a share in [0, 1]; a learned weight's cell framed. No green
    left, and blue said only of negative numbers."""
    seen = {k: 0 for k in TONES | {"nano-weight"}}
    for name in PAGES:
        soup = chapter(site, name)
        article = soup.select_one("article")
        assert not article.select(".nano-act"), name
        words = text_of(article)
        assert "green" not in words.lower(), name
        assert set(re.findall(r"\bblue\W+(?:cell holds a\W+)?(\w+)", words)) <= {"negative"}, name
        for table in article.select("table.nano-matrix:not(.nano-legend)"):
            kind = next(k[len("nano-matrix--"):] for k in table["class"] if k.startswith("nano-matrix--"))
            for td in table.select("td.nano-cell:not(.nano-masked)"):
                value = float(td.get_text().replace(M, "-"))
                tone = set(td["class"]) & TONES
                want = ("nano-prob" if kind == "prob" else "nano-zero" if td.get_text() == "0.000"
                        else "nano-neg" if value < 0 else "nano-pos")
                assert tone == {want}, (name, table["id"], td["title"])
                assert ("nano-weight" in td["class"]) == (kind == "weight"), (name, table["id"], td["title"])
                if kind == "prob":
                    assert 0 <= value <= 1, (name, table["id"], td["title"])
                seen[want] += 1
                seen["nano-weight"] += kind == "weight"
    assert min(seen.values()) > 0 and seen["nano-neg"] > 100 and seen["nano-weight"] > 100, seen


def test_the_key_shows_the_signs_the_frame_and_the_purple(site):
    soup = chapter(site, "")
    key = soup.select_one("table#nano-legend")
    assert [th.get_text() for th in key.thead.select("th")] == ["negative", "zero", "positive"]
    rows = [[set(td["class"]) for td in tr.select("td.nano-cell")] for tr in key.tbody.select("tr")]
    rows = [r for r in rows if r]
    tones = [{"nano-neg"}, {"nano-zero"}, {"nano-pos"}]
    assert [[c & TONES for c in r] for r in rows] == [tones, tones, [{"nano-prob"}] * 3]
    assert [["nano-weight" in c for c in r] for r in rows] == [[False] * 3, [True] * 3, [False] * 3]
    cells = key.select("td.nano-cell")
    assert [td.get_text() for td in cells][1::3][:2] == ["0.000", "0.000"]
    assert float(cells[0].get_text().replace(M, "-")) < 0 < float(cells[2].get_text())
    # the prose beside it says the same
    words = text_of(soup.select_one("article"))
    for said in ("blue cell holds a negative number", "orange one a positive number", "grey one a zero",
                 "purple", "A cell with a frame holds a weight"):
        assert said in words


# ------------------------------------------------------------- the renderers, without a build

def test_a_cell_escapes_its_label_and_says_its_value():
    out = nano_cells.cell(-0.25, "act", 'a "<b>" label', 0.5)
    assert 'title="a &quot;&lt;b&gt;&quot; label: −0.250"' in out and 'tabindex="-1"' in out
    assert out.endswith(">−0.250</td>") and "--shade:0.36" in out


@pytest.mark.parametrize("value, kind, classes", [
    (-0.25, "act", "nano-cell nano-neg"), (0.25, "act", "nano-cell nano-pos"),
    (0.0004, "act", "nano-cell nano-zero"), (-0.0004, "weight", "nano-cell nano-zero nano-weight"),
    (-0.25, "weight", "nano-cell nano-neg nano-weight"), (0.0, "prob", "nano-cell nano-prob"),
    (0.9, "prob", "nano-cell nano-prob")])
def test_a_cells_colour_is_its_sign_or_a_share_and_a_weight_is_framed(value, kind, classes):
    assert f'class="{classes}"' in nano_cells.cell(value, kind, "a cell", 0.5)


def test_a_cell_of_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="kind = 'green': expected one of act, weight, prob"):
        nano_cells.cell(1.0, "green", "a cell", 1.0)


def test_big_matrices_are_summarised(run):
    html = self_attention.W_matrix(run, "W_1")
    soup = BeautifulSoup(html, "html.parser")
    assert len(soup.select("td.nano-cell")) == 64                   # an 8 x 8 corner
    assert "48 × 192" in html and "9,216 values" in html and "40 more rows" in html


@pytest.mark.parametrize("call, message", [
    (lambda r: embedding.embed_table(r, t=9), "t = 9: the example has positions 1 to 6"),
    (lambda r: embedding.embed_table(r, t=0), "t = 0: the example has positions 1 to 6"),
    (lambda r: self_attention.qkv_matrix(r, which="X"), "which = 'X': expected one of Q, K, V"),
    (lambda r: self_attention.W_matrix(r, name="W_Z"), "name = 'W_Z': expected one of W_Q, W_K, W_V, W_O, W_1, W_2, W_U"),
    (lambda r: index.p_number(r, letter="D"), "letter = 'D': expected one of A, B, C"),
    (lambda r: layer_norm.layernorm_table(r, block=4), "block = 4: the model has blocks 1 to 3"),
    (lambda r: self_attention.qcell_formula(r, c=0), "c = 0: the channels are 1 to 48"),
    (lambda r: self_attention.qcell_formula(r, c=17, head=2), "c = 17: head 2's channels are 1 to 16"),
])
def test_renderer_mistakes_say_what_exists(run, call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(run)


def test_what_the_prose_claims_holds(run):
    """Sentences that describe the trained weights in words."""
    a_at = run.ids.index(0)
    assert all(int(np.argmax(run.block(0)["weights"][h, 5])) == a_at for h in range(3))  # transformer.md
    assert nanogpt.VOCAB[int(np.argmax(run.trace["p"][5]))] == "A"                        # index.md
    # layer-norm.md: "this row is nearly flat ... epsilon still nudges sigma", for any
    # letter at t = 4 (a reader may follow other letters): by more than half a percent
    for letter in range(len(nanogpt.VOCAB)):
        variance = (run.params["E"][letter] + run.params["P"][3]).var()
        assert np.sqrt(1 + gpt.LN_EPS / variance) - 1 > 0.005


def test_untrained_columns_and_small_weights_are_explained(site, nano):
    """Output says why the columns training ignored are sure anyway, with
    their least sure probability; Embedding gives the largest entries."""
    run = Run(nano)
    p = gpt.forward(nano.params, nano.cfg, run.ids)["p"]
    least = min(p[t].max() for t in range(nanogpt.LENGTH - 1))
    assert least > 0.9
    out = text_of(chapter(site, "output"))
    assert f"Yet each of them is at least {fixed(least)} sure of some letter" in out
    assert "z_A - z_B = \\ln (p_A / p_B)" in out
    emb = text_of(chapter(site, "embedding"))
    E, P = nano.params["E"], nano.params["P"]
    assert (f"no entry of \\(E\\) is larger than {fixed(np.abs(E).max())} in size, none of \\(P\\) larger "
            f"than {fixed(np.abs(P).max())}") in emb


def test_the_head_that_finds_the_smallest_letter(site, nano):
    """Over the 726 inputs that mix letters, count per head of each block how
    often the largest weight at t = 6 falls on the smallest letter; the page
    shows the counts and follows the best head (block 1's head 2, 726 of 726),
    counting blocks and heads from 1."""
    inputs = nanogpt.all_inputs()
    mixed = inputs[inputs.min(1) != inputs.max(1)]
    hits = np.zeros((nano.cfg.n_blocks, nano.cfg.n_heads), int)
    for k, x in enumerate(mixed):
        trace = gpt.forward(nano.params, nano.cfg, x)
        for b, blk in enumerate(trace["blocks"]):
            for h in range(nano.cfg.n_heads):
                hits[b, h] += x[int(np.argmax(blk["weights"][h, 5]))] == x.min()
    assert len(mixed) == 726 and hits[0, 1] == 726 and hits[0, 0] == 515
    table = cells(chapter(site, "self-attention"), "nano-smallest-looks")[1:]
    assert table == [[f"block {b + 1}"] + [str(v) for v in hits[b]] for b in range(len(hits))]
    text = text_of(chapter(site, "self-attention"))
    assert "follows one of them, head 2 of block 1" in text
    assert "does it for 726 of them, which is why this page follows it; head 1 of block 1 does it for 515" in text


def test_the_prefix_tree_pass_equals_a_full_pass_per_input(run):
    """last_looks reads the letters one at a time, each prefix reusing its
    parent's keys and values; its weights are the full pass's at t = 5."""
    full = gpt.forward(run.params, run.cfg, nanogpt.all_inputs())
    for b, looks in enumerate(run.last_looks):
        assert looks.shape == (729, run.cfg.n_heads, nanogpt.LENGTH)
        np.testing.assert_allclose(looks, full["blocks"][b]["weights"][:, :, 5], rtol=0, atol=1e-12)


def test_what_the_walkthrough_covers_is_kept(site, run):
    """The walkthrough's history, credit, lookup analogy, W_2, sampling odds,
    temperature and T x C, in the chapter's own words (and numbers)."""
    text = lambda name: text_of(chapter(site, name))
    assert "GPT-2 in 2019" in text("preliminaries") and "GPT-4 (2023)" in text("preliminaries")
    assert "Zero to Hero" in text("")
    assert any("ages[" in c.get_text() for c in chapter(site, "self-attention").select("pre code"))
    mlp = chapter(site, "mlp")
    assert mlp.find(id="nano-W_1-1") is not None and mlp.find(id="nano-W_2-1") is not None
    p = run.trace["p"][5, 0]
    assert f"a letter with probability {p:.3f} comes out in that share of the draws, {100 * p:.1f} % of them" \
        in text("output")
    # temperature is explained by differences of logits, as the toy's Output does
    assert "Only the differences between logits matter" in text("output")
    assert "stretches the gaps" not in text("output")
    assert "\\(T\\) for time" in text("embedding") and "\\(C\\) for channels" in text("embedding")


def test_the_page_says_how_the_weights_are_stored(site, nano):
    """The record's float32 arithmetic and float16 storage, in the training
    table and in the sentence that explains them; and the stored arrays are
    of that type."""
    soup = chapter(site, "preliminaries")
    rows = {r[0]: r[-1] for r in cells(soup, "nano-training")}
    assert rows["computed in"] == nano.record["dtype"] == "float32"
    assert rows["weights stored as"] == nano.record["stored_as"] == "float16"
    # the record's numbers are spans (marked as the book's while a reader's weights are followed)
    prose = re.sub(r" ([,.;:])", r"\1", text_of(soup))
    assert (f"Training computes in {nano.record['dtype']}, but the weights are kept in half precision, "
            f"{nano.record['stored_as']},") in prose
    assert {a.dtype.name for a in load_file(nano.path).values()} == {nano.record["stored_as"]}


# A position, channel, row, column, block or head numbered 0, or a sentence
# saying that the chapter counts so: the book counts them from 1 (issue 50);
# only a token's index counts from 0 ("an index counts from 0").
NUMBERED_0 = re.compile(r"\b[tcj] = 0\b|\b(?:rows|columns|positions|channels) 0 to\b|"
                        r"\b(?:channel|block|head|row|column|position)s? 0\b")
SAYS_FROM_ZERO = re.compile(r"\b(?:counted|count|counts|counting|numbered)(?: \w+)? from 0\b", re.I)
NANO_PAGES = ["", "preliminaries", "embedding", "layer-norm", "self-attention", "projection", "mlp",
              "transformer", "softmax", "output", "train"]


@pytest.mark.parametrize("name", NANO_PAGES)
def test_the_chapter_counts_from_1_as_the_book_does(site, name):
    """nano-gpt counted time steps, channels, rows, columns, blocks and
    heads from 0, as its code does, where the toy counts from 1 (issue 50):
    every page now counts as the book does, in its prose, tables, figures
    and titles, and no page explains a second rule (an index, the number
    of a letter in the vocabulary, still counts from 0, and says so)."""
    article = fresh_page(site, f"nano-gpt/{name}").select_one("article")
    words = " ".join(article.get_text(" ").split())
    titles = " ".join(t.get_text(" ") for t in article.select("title")) + " " + \
        " ".join(v for el in article.select("[title], [aria-label]") for v in (el.get("title"), el.get("aria-label")) if v)
    for text in (words, titles):
        found = NUMBERED_0.search(text)
        assert found is None, (name, text[max(0, found.start() - 120):found.end() + 40])
    for said in SAYS_FROM_ZERO.finditer(words):
        assert "index" in words[max(0, said.start() - 40):said.start()], (name, words[max(0, said.start() - 160):said.end()])


def test_preliminaries_names_the_page_that_trains(site):
    """Preliminaries said the chapter "only follows inference", while its
    last page trains the model in the browser: it says so, and links it."""
    first = page(site, "nano-gpt/preliminaries").select_one("article p")
    text = " ".join(first.get_text(" ").split())
    assert "only follows" not in text, text
    assert first.find("a", href=re.compile(r"^\.\./train/")) is not None, first


def test_train_it_yourself_says_what_its_heads_figure_shows(site):
    """The page promised that the last block's heads take shape (issue 50),
    then said two things of them (issue 65): it says what the book's run
    shows, which heads stay close to even and which do not."""
    text = " ".join(BeautifulSoup((site / "nano-gpt" / "train" / "index.html").read_text(encoding="utf-8"),
                                  "html.parser").get_text(" ").split())
    assert "take shape" not in text and "may leave them close to even" not in text
    assert "in the book's run, on the chapter's example, head" in text


def test_the_worked_query_is_an_entry_of_the_table_under_it(site, run):
    """Self Attention works one entry of Q out by hand, then prints the
    queries of the head the page follows: the entry is that head's (it was
    head 1's channel 1, 0.668, above head 2's table, whose t = 6, c = 1 is
    0.509), and the page's table shows the same number at t = 6, c = 1."""
    block, head = (i + 1 for i in run.best_head)
    columns = run.head_columns(head - 1)
    want = fixed(run.block(block - 1)["Q"][5, columns.start])
    formula = self_attention.qcell_formula(run, t=6, c=1, head="best")
    last = formula.split("\\\\")[-1]                     # the aligned formula's last line: its value
    assert last.strip().startswith("&amp;= " + want.replace("−", "-") + " \\end{aligned}"), formula
    assert f"(W_Q)_{{k,{columns.start + 1}}}" in formula and "Q_{6,1}" in formula
    soup = fresh_page(site, "nano-gpt/self-attention")
    table = soup.find("table", id=f"nano-Q-{block}-{head}")
    cell = next(td for td in table.select("td") if ", t = 6 (" in td.get("title", "")
                and td["title"].split(", channel ")[1].startswith("1:"))
    assert cell.get_text() == want, cell


def test_the_train_page_says_one_thing_of_the_last_blocks_heads(site, run):
    """Issue 65: its introduction said the heads may stay close to even,
    and "What to look for" that each takes a pattern of its own. It says it
    once, computed from the book's run: which stay even, which do not."""
    from toycalc.book.nano_gpt.train import last_heads_number
    text = " ".join(fresh_page(site, "nano-gpt/train").get_text(" ").split())
    said = last_heads_number(run)
    assert said in text
    assert "close to even" not in text.replace(said, "") and "pattern of its own" not in text.replace(said, "")


def test_the_last_heads_words_hold_for_any_weights(run):
    from types import SimpleNamespace
    from toycalc.book.nano_gpt.train import last_heads_number
    T, H = run.T, run.cfg.n_heads
    even = np.array([[[1 / (t + 1) if j <= t else 0 for j in range(T)] for t in range(T)]] * H)
    sharp = np.array([[[1.0 if j == 0 else 0 for j in range(T)] for t in range(T)]] * H)
    fake = lambda w: SimpleNamespace(T=T, cfg=run.cfg, block=lambda b: {"weights": w})   # noqa: E731
    assert last_heads_number(fake(even)) == ("heads 1, 2 and 3 stay close to even (no weight more than 0.050 "
                                             "above an even share)")
    assert last_heads_number(fake(sharp)) == ("heads 1, 2 and 3 each take a pattern of their own (head 1 puts "
                                              "1.000 on one key at t = 6, where an even share is 0.167)")


def test_train_it_yourself_shows_the_gradient_a_step_follows(site, nano):
    """The page's table of loss_and_grads on the book's example: the loss is
    the mean −ln p of the sorted letters under the page's own forward pass,
    and the parts' sizes are those of the true gradient: a small step
    against it lowers the loss by the step times the sum of their squares
    (a central difference, so the table's sizes cannot be of another
    vector, nor parts left out)."""
    rows = cells(chapter(site, "train"), "nano-gradient")
    table = {name: float(value) for name, value in rows[1:]}
    ids, targets = nanogpt.examples(np.array([nanogpt.encode("C B A B B C")]))
    p = gpt.forward(nano.params, nano.cfg, ids[0])["p"]
    sorted_part = targets[0] >= 0
    expected_loss = -np.mean(np.log(p[np.arange(len(ids[0]))[sorted_part], targets[0][sorted_part]]))
    assert rows[1][0] == "the loss L" and table["the loss L"] == pytest.approx(expected_loss, abs=6e-5)
    parts = [v for name, v in table.items() if name != "the loss L"]
    assert len(parts) == 2 + nano.cfg.n_blocks
    _, grads = gpt.loss_and_grads(nano.params, nano.cfg, ids[0], targets[0])
    eps = 1e-3

    def loss_at(sign):
        moved = {k: v + sign * eps * grads[k] for k, v in nano.params.items()}
        return gpt.cross_entropy(gpt.forward(moved, nano.cfg, ids[0])["p"], targets[0])
    slope = (loss_at(+1) - loss_at(-1)) / (2 * eps)          # = |gradient|²
    assert sum(v * v for v in parts) == pytest.approx(slope, rel=2e-3)
