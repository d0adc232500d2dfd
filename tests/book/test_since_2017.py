"""What changed since 2017: the switches of gpt.Config, the KV cache, the
counts of the five models, and the page that shows them."""
import dataclasses
import html
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup

from conftest import page
from toycalc.book import what_changed
from toycalc.model import gpt, inference, nanogpt, sizes, writer
from toycalc.book.example import Example
from toycalc.model.configs import GPT2_SMALL, LLAMA2_7B

SENTENCE_IDS = [0, 2, 4, 5, 1]   # "the cat climbed the"
SMALL = gpt.Config(vocab_size=7, d=8, n_ctx=9, n_blocks=2, n_heads=4, width=12,
                   bias=True, ln_weights=True)


@pytest.fixture(scope="module")
def ex(toy):
    return Example(toy)


def random_params(cfg, seed=0, scale=0.5):
    """Big random weights (gammas and betas too), so that no switch hides."""
    rng = np.random.default_rng(seed)
    return {k: rng.normal(0, scale, v.shape) + (1.0 if k.endswith(("gamma_1", "gamma_2", "gamma_f")) else 0.0)
            for k, v in sizes.init_params(cfg, rng).items()}


# ------------------------------------------------------------- counts

def test_the_five_models_counted_by_one_counter(toy):
    assert sizes.count_params(toy.cfg)["total"] == 256
    assert sizes.count_params(nanogpt.CONFIG)["total"] == 85_728
    assert sizes.count_params(writer.CONFIG)["total"] == 818_176
    assert sizes.count_params(GPT2_SMALL)["total"] == 124_439_808
    assert sizes.count_params(LLAMA2_7B)["total"] == 6_738_415_616


def test_llama2_7b_by_piece():
    c = sizes.count_params(LLAMA2_7B)
    assert (c["E"], c["P"], c["W_U"], c["biases"]) == (131_072_000, 0, 131_072_000, 0)
    assert c["W_QKV"] == 32 * 3 * 4096 * 4096 and c["W_O"] == 32 * 4096 * 4096
    assert c["W_MLP"] == 32 * 3 * 4096 * 11008            # W_1, W_2 and W_3
    assert c["layernorm"] == (2 * 32 + 1) * 4096            # RMSNorm: a scale, no beta


@pytest.mark.parametrize("switches", [
    {}, {"norm": "rms"}, {"norm_at": "post"}, {"positions": "rope"}, {"mlp": "swiglu"},
    {"n_kv_heads": 2}, {"n_kv_heads": 1, "tied": True},
    {"norm": "rms", "positions": "rope", "mlp": "swiglu", "n_kv_heads": 2, "bias": False},
])
def test_count_matches_the_parameters_a_switched_model_has(switches):
    cfg = dataclasses.replace(SMALL, **switches)
    params = sizes.init_params(cfg, np.random.default_rng(0))
    assert sum(v.size for v in params.values()) == sizes.count_params(cfg)["total"]


def test_each_switch_changes_the_count_as_the_page_says():
    base = sizes.count_params(SMALL)
    d, w, B = SMALL.d, SMALL.mlp_width, SMALL.n_blocks

    def total(**s):
        return sizes.count_params(dataclasses.replace(SMALL, **s))["total"]
    assert total(mlp="swiglu") - base["total"] == B * (d * w + w)          # W_3 and b_3
    assert base["total"] - total(positions="rope") == SMALL.n_ctx * d        # no P
    assert base["total"] - total(norm="rms") == (2 * B + 1) * d              # no beta
    assert base["total"] - total(norm_at="post") == 2 * d                    # no final norm
    assert base["total"] - total(n_kv_heads=1) == B * 2 * (d + 1) * (d - d // 4)  # K, V for 1 of 4 heads
    assert base["total"] - total(tied=True) == d * SMALL.vocab_size


def test_the_defaults_are_the_book_model():
    cfg = gpt.Config(vocab_size=3, d=4, n_ctx=5)
    assert not cfg.switched
    assert set(sizes.param_shapes(cfg)) == {"E", "P", "blocks.0.W_Q", "blocks.0.W_K", "blocks.0.W_V",
                                          "blocks.0.W_O", "blocks.0.W_1", "blocks.0.W_2", "W_U"}


@pytest.mark.parametrize("bad, message", [
    ({"norm": "batch"}, "Config.norm = 'batch'"),
    ({"positions": "alibi"}, "Config.positions"),
    ({"n_kv_heads": 3}, "n_kv_heads = 3 does not divide n_heads = 4"),
])
def test_a_wrong_switch_says_what_exists(bad, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        dataclasses.replace(SMALL, **bad)


# ------------------------------------------------------------- each switch is a real change

def test_rmsnorm_differs_from_layernorm_when_the_mean_is_not_zero():
    x = np.array([[1.0, 2.0, 3.0, 6.0], [-1.0, 1.0, -2.0, 2.0]])   # means 3 and 0
    ln, _ = gpt.layernorm(x)
    rms, cache = gpt.rmsnorm(x)
    assert not np.allclose(ln[0], rms[0])
    np.testing.assert_allclose(ln[1], rms[1])
    np.testing.assert_allclose(rms, x / np.sqrt((x * x).mean(-1, keepdims=True) + gpt.LN_EPS))
    np.testing.assert_allclose(cache["sigma"], np.sqrt([12.5, 2.5] + np.float64(gpt.LN_EPS)))


def test_on_the_toy_rmsnorm_first_differs_at_u_prime(ex):
    ln, rms = what_changed.run(ex)["blocks"][0], what_changed.run(ex, norm="rms")["blocks"][0]
    assert abs(ex.trace["X"][-1].mean()) < 1e-12 and abs(ex.block["h"][-1].mean()) > 0.05
    np.testing.assert_allclose(ln["u"][-1], rms["u"][-1], atol=1e-5)
    assert np.abs(ln["u2"][-1] - rms["u2"][-1]).max() > 0.05


def test_post_norm_reads_x_and_normalises_the_sums(ex):
    b = what_changed.run(ex, norm_at="post")["blocks"][0]
    assert np.array_equal(b["u"], b["X"])
    np.testing.assert_allclose(b["h"], gpt.layernorm(b["h_sum"])[0])
    np.testing.assert_allclose(b["y"], gpt.layernorm(b["y_sum"])[0])
    assert not np.allclose(b["u2"], ex.block["u2"])


@pytest.mark.parametrize("switches", [{"norm": "rms"}, {"norm_at": "post"}, {"positions": "rope"},
                                      {"mlp": "swiglu"}, {"n_kv_heads": 1}, {"n_kv_heads": 2}])
def test_each_switch_changes_the_output(switches):
    cfg = dataclasses.replace(SMALL, **switches)
    params = random_params(cfg)
    base_params = {k: v for k, v in params.items() if k in sizes.param_shapes(SMALL)}
    # a base model sharing every weight the switched one has (K/V widened by repeating heads)
    for b in range(SMALL.n_blocks):
        for n in ("W_K", "W_V", "b_K", "b_V"):
            name = f"blocks.{b}.{n}"
            if params[name].shape != sizes.param_shapes(SMALL)[name]:
                group = SMALL.n_heads // cfg.n_kv_heads
                heads = params[name].reshape(*params[name].shape[:-1], cfg.n_kv_heads, -1)
                base_params[name] = np.repeat(heads, group, axis=-2).reshape(sizes.param_shapes(SMALL)[name])
    for name, shape in sizes.param_shapes(SMALL).items():
        base_params.setdefault(name, random_params(SMALL)[name])
    ids = [1, 3, 3, 0, 6, 2]
    p = gpt.forward(params, cfg, ids)["p"]
    p0 = gpt.forward(base_params, SMALL, ids)["p"]
    if "n_kv_heads" in switches:   # sharing, with shared weights repeated, is the same sum
        np.testing.assert_allclose(p, p0, rtol=1e-12)
    else:
        assert np.abs(p - p0).max() > 1e-3


def test_grouped_heads_read_shared_keys(ex):
    cfg, params = what_changed.variant(ex, n_heads=4, n_kv_heads=2)
    tr = gpt.forward(params, cfg, ex.ids, 4)
    b = tr["blocks"][0]
    assert b["K"].shape == (5, 2) and b["k"].shape == (2, 5, 1)
    # heads 1 and 2 meet the same keys: their scores differ only through their queries
    q = gpt.split_heads(b["Q"], 4)
    np.testing.assert_allclose(b["dots"][1], q[1] @ b["k"][0].T)
    mha_cfg, mha = what_changed.variant(ex, n_heads=4, n_kv_heads=4)
    np.testing.assert_allclose(gpt.forward(mha, mha_cfg, ex.ids, 4)["p"], what_changed.run(ex, heads=4)["p"])
    assert not np.allclose(tr["p"], what_changed.run(ex, heads=4)["p"])


def test_swiglu_is_silu_gate_times_up():
    cfg = dataclasses.replace(SMALL, mlp="swiglu")
    params = random_params(cfg)
    b = gpt.forward(params, cfg, [1, 2, 3])["blocks"][0]
    u2 = b["u2"]
    pre = u2 @ params["blocks.0.W_1"] + params["blocks.0.b_1"]
    up = u2 @ params["blocks.0.W_3"] + params["blocks.0.b_3"]
    np.testing.assert_allclose(b["mlp_post"], pre / (1 + np.exp(-pre)) * up)


def test_tied_output_reads_E(ex):
    cfg, params = what_changed.variant(ex, tied=True)
    tr = gpt.forward(params, cfg, ex.ids, ex.n_heads)
    np.testing.assert_allclose(tr["logits"], tr["f"] @ ex.model.params["E"].T)
    assert "W_U" not in params


# ------------------------------------------------------------- RoPE

@pytest.mark.parametrize("d_head", [2, 8])
def test_rope_score_depends_only_on_the_distance(d_head):
    rng = np.random.default_rng(d_head)
    q, k = rng.normal(size=(1, d_head)), rng.normal(size=(1, d_head))

    def score(m, n):
        return (gpt.rope(q, *gpt.rope_angles([m], d_head)) @ gpt.rope(k, *gpt.rope_angles([n], d_head)).T).item()
    for distance in (2, 5):   # two offsets, each at three places
        scores = [score(start + distance, start) for start in (0, 3, 11)]
        np.testing.assert_allclose(scores, scores[0], rtol=1e-12)
    assert abs(score(2, 0) - score(5, 0)) > 1e-3
    # a turn keeps lengths
    turned = gpt.rope(q, *gpt.rope_angles([7], d_head))
    np.testing.assert_allclose(np.linalg.norm(turned), np.linalg.norm(q))


def test_rope_in_the_model_sees_distance_not_place():
    cfg = dataclasses.replace(SMALL, positions="rope", n_blocks=1)
    params = random_params(cfg)
    early = gpt.forward(params, cfg, [3, 5])["blocks"][0]["dots"]            # at positions 1, 2
    late = gpt.forward(params, cfg, [0, 6, 1, 3, 5])["blocks"][0]["dots"]    # at positions 4, 5
    np.testing.assert_allclose(late[:, 4, 3], early[:, 1, 0], rtol=1e-12)
    np.testing.assert_allclose(late[:, 4, 4], early[:, 1, 1], rtol=1e-12)
    assert np.abs(late[:, 4, 1] - early[:, 1, 0]).max() > 1e-3               # distance 3, not 1


def test_the_page_rope_scores(ex):
    scores = what_changed.rope_scores(ex)
    by_distance = {}
    for m, n, s in scores:
        by_distance.setdefault(m - n, []).append(s)
    assert len(by_distance) == 2 and all(len(v) == 2 for v in by_distance.values())
    for v in by_distance.values():
        assert abs(v[0] - v[1]) < 1e-12
    a, b = by_distance.values()
    assert abs(a[0] - b[0]) > 1e-3


# ------------------------------------------------------------- the KV cache

@pytest.mark.parametrize("switches", [{}, {"positions": "rope", "norm": "rms", "mlp": "swiglu",
                                           "n_kv_heads": 2}, {"norm_at": "post", "n_kv_heads": 1}])
def test_running_on_from_the_cache_equals_the_whole_text(switches):
    cfg = dataclasses.replace(SMALL, **switches)
    params = random_params(cfg)
    ids = np.array([[1, 3, 3, 0, 6, 2, 5], [4, 4, 2, 2, 0, 1, 6]])      # a batch
    whole = gpt.forward(params, cfg, ids)
    first = gpt.forward(params, cfg, ids[:, :3])
    second = gpt.forward(params, cfg, ids[:, 3:5], past=first["cache"])
    third = gpt.forward(params, cfg, ids[:, 5:], past=second["cache"])
    np.testing.assert_allclose(np.concatenate([first["p"], second["p"], third["p"]], axis=1),
                               whole["p"], rtol=1e-10, atol=1e-14)
    kv = gpt.kv_heads(cfg, cfg.n_heads)
    assert third["cache"]["length"] == 7
    assert third["cache"]["blocks"][0]["k"].shape == (2, kv, 7, cfg.d // cfg.n_heads)


def test_generation_with_the_cache_gives_the_same_tokens_and_probabilities(toy):
    n = toy.cfg.n_ctx - len(SENTENCE_IDS) + 1
    cached = inference.generate(toy.params, toy.cfg, SENTENCE_IDS, n, 2, cached=True)
    whole = inference.generate(toy.params, toy.cfg, SENTENCE_IDS, n, 2, cached=False)
    assert cached[0] == whole[0] and len(cached[0]) == toy.cfg.n_ctx + 1
    np.testing.assert_allclose(cached[1], whole[1], rtol=1e-12, atol=1e-15)
    assert toy.vocab[cached[0][5]] == " roof"


def test_the_cache_cannot_run_past_the_last_position(toy):
    tr = gpt.forward(toy.params, toy.cfg, list(range(8)))
    with pytest.raises(ValueError, match="9 tokens, but the model has 8 positions"):
        gpt.forward(toy.params, toy.cfg, [1], past=tr["cache"])


def test_multiply_adds_by_hand(toy):
    d, w, V = 4, 8, 12
    # the whole text of 5 tokens, 2 heads of 2 columns: every row through every matrix,
    # 15 pairs (i >= j) of q . k and of a v, the output on the last row
    assert sizes.multiply_adds(toy.cfg, 5, 5, 2) == 5 * d * (4 * d + 2 * w) + 2 * 2 * 15 * 2 + d * V
    # one new token at length 5: one row, 5 keys
    assert sizes.multiply_adds(toy.cfg, 5, 1, 2) == d * (4 * d + 2 * w) + 2 * 2 * 5 * 2 + d * V
    llama = LLAMA2_7B
    assert sizes.cache_per_token(llama) == 2 * 32 * 4096
    assert sizes.cache_per_token(dataclasses.replace(llama, n_kv_heads=8)) == 2 * 32 * 8 * 128


@pytest.mark.parametrize("switches", [
    {"norm": "rms"}, {"norm_at": "post"}, {"positions": "rope"}, {"mlp": "swiglu"},
    {"n_kv_heads": 1}, {"n_kv_heads": 2, "tied": True},
    {"norm_at": "post", "norm": "rms", "positions": "rope", "mlp": "swiglu", "n_kv_heads": 2},
])
def test_backward_of_each_switch_against_central_differences(switches):
    from references import assert_grads_match
    cfg = dataclasses.replace(SMALL, **switches)
    params = {k: v * 0.6 for k, v in random_params(cfg, seed=3).items()}
    ids = np.array([[1, 3, 3, 0, 6], [4, 4, 2, 2, 0]])          # repeated tokens, a batch
    targets = np.array([[3, 3, -1, 1, 2], [-1, 2, 2, 0, 1]])     # some positions ignored
    assert_grads_match(params, cfg, ids, targets)


def test_backward_needs_the_whole_text():
    params = random_params(SMALL)
    tr = gpt.forward(params, SMALL, [1, 2])
    late = gpt.forward(params, SMALL, [3], past=tr["cache"])
    with pytest.raises(NotImplementedError, match="whole text"):
        gpt.backward(params, SMALL, late, [2])


# ------------------------------------------------------------- the page

def cells(soup, table_id):
    table = soup.find("table", id=table_id)
    assert table is not None, f"no table #{table_id}"
    return [[" ".join(c.get_text().split()) for c in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]


@pytest.fixture(scope="module")
def changed(site):
    return page(site, "what-changed")


@pytest.mark.parametrize("name", list(what_changed.what_changed.registries["table"]))
def test_every_table_on_the_page_is_toycalcs(changed, ex, name):
    expected = BeautifulSoup(what_changed.what_changed.registries["table"][name](ex), "html.parser")
    table_id = expected.find("table")["id"]
    assert cells(changed, table_id) == cells(expected, table_id)


def test_the_counts_on_the_page(changed):
    models = cells(changed, "table-models")
    assert models[0] == ["", "toy", "nano-gpt", "writer", "GPT-2 small", "Llama 2 7B"]
    assert models[-1] == ["total", "256", "85,728", "818,176", "124,439,808", "6,738,415,616"]


def test_the_writer_has_its_column_in_the_models_table(changed):
    """The writer (issue #61) beside the other models: its sizes from its
    config, its total by the same counter, and the section says so."""
    models = cells(changed, "table-models")
    # a row's name as the page's TeX, \(d\) for d
    column = {row[0].replace("\\(", "").replace("\\)", ""): row[models[0].index("writer")]
              for row in models[1:]}
    assert column["total"] == f"{sizes.count_params(writer.CONFIG)['total']:,}" == "818,176"
    assert (column["blocks"], column["width d"], column["positions"]) == ("4", "128", "64")
    assert (column["vocabulary V"], column["heads (K/V heads)"]) == ("65", "4 (4)")
    heading = changed.find("h2", id="five-models-counted-by-one-function")
    assert heading.get_text(strip=True).removesuffix("¶") == "Five models, counted by one function"
    assert len(models[0]) - 1 == 5
    intro = heading.find_next("p")
    assert intro.find("a", string="A model that writes")["href"] == "../writer/"


def test_the_kv_cache_on_the_page(changed, ex):
    rows = cells(changed, "table-kv-cache")[1:-1]
    assert [r[2] == r[3] for r in rows] == [True] * len(rows)       # same p with and without
    assert rows[0][1] == "␣roof"
    full, cached = (int(c.replace(",", "")) for c in cells(changed, "table-kv-cache")[-1][-2:])
    assert cached < full


def test_the_numbers_and_formula_in_the_prose(changed, ex):
    text = " ".join(changed.get_text().split())
    for name, options in (("first_norm", {}), ("h_mean", {}), ("rope_gap", {}), ("kv_heads", {}),
                          ("cache", {"model": "Llama 2 7B"}), ("count", {"piece": "W_MLP"}),
                          ("size", {"name": "n_ctx"})):
        expected = " ".join(BeautifulSoup(what_changed.what_changed.registries["number"][name](ex, **options), "html.parser").get_text().split())
        assert expected in text, name
    assert html.unescape(what_changed.rmsnorm_formula(ex).split("\\[")[1].split("\\]")[0]) in \
        [m.get_text()[2:-2] for m in changed.select(".arithmatex")]


def test_the_page_sits_after_nano_gpt(changed):
    """The nav: the toy, End to End, nano-gpt, then this page (issue #25);
    the writer's chapter (issue 51) comes between."""
    links = [a.get_text(" ", strip=True) for a in changed.select(".md-footer__link")]
    assert "A model that writes · Type, it writes" in links[0]


def test_every_formula_is_typeset_in_a_browser(visit):
    v = visit()
    page = v.open("/what-changed/")
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    v.typeset_shown()   # a formula is typeset when it comes into view
    typeset = page.evaluate("[document.querySelectorAll('.arithmatex').length,"
                            " document.querySelectorAll('.arithmatex mjx-container').length]")
    assert typeset[0] > 20 and typeset[0] == typeset[1]
    assert "\\(" not in page.locator("article").inner_text()


def test_the_tied_coincidence_is_named(site, toy):
    """Tied and separate outputs print the same top p for different tokens:
    the page says it is a coincidence and gives both to four places."""
    ex = Example(toy)
    E = toy.params["E"]
    tied = dict(toy.params, W_U=E.T)
    tops = []
    for params, cfg in ((toy.params, toy.cfg), (tied, dataclasses.replace(toy.cfg, tied=True))):
        p = gpt.forward(params, cfg, ex.ids, ex.n_heads)["p"][-1]
        tops.append((toy.vocab[int(np.argmax(p))].replace(" ", "␣"), p.max()))
    (a, pa), (b, pb) = tops
    assert f"{pa:.3f}" == f"{pb:.3f}" and a != b
    text = " ".join(page(site, "what-changed").get_text().split())
    assert (f"both print as {pa:.3f}, for two different tokens, {a} and {b}. That is a coincidence, "
            f"not a property of tying: to four places they are {pa:.4f} and {pb:.4f}.") in text
