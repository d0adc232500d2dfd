"""The engine: the seed's numbers, gradients against central differences,
parameter counts."""
import numpy as np
import pytest

from references import assert_grads_match
from toycalc.model import gpt, inference, sizes
from toycalc.model.tokenizer import tokenize

SENTENCE = "the cat climbed the"


def run(toy, heads=2, temperature=1.0):
    return gpt.forward(toy.params, toy.cfg, tokenize(SENTENCE, toy.vocab), heads, temperature)


def r3(x):
    return np.round(np.asarray(x, dtype=float), 3) + 0.0


def test_seed_numbers_two_heads(toy):
    t = run(toy)
    b = t["blocks"][0]
    assert r3(b["mu"][-1]) == 0.0 and r3(b["sigma"][-1]) == 0.866
    assert r3(b["u"][2]).tolist() == [-0.535, 1.604, 0.0, -1.069]
    assert r3(b["dots"][0, -1]).tolist() == [-2.357, -0.667, 3.395, 2.449, -2.0]
    assert r3(b["scores"][1, -1]).tolist() == [-1.667, 2.357, -0.218, -1.732, -1.414]
    assert r3(b["weights"][0, -1]).tolist() == [0.011, 0.035, 0.622, 0.319, 0.014]
    assert r3(b["weights"][1, -1]).tolist() == [0.016, 0.882, 0.067, 0.015, 0.020]
    assert r3(b["weights"][0, 2]).tolist() == [0.930, 0.063, 0.007, 0.0, 0.0]
    assert r3(b["A"][-1]).tolist() == [-0.739, 1.411, -0.521, -0.520]
    assert r3(b["h"][-1]).tolist() == [-1.239, 0.911, -1.021, 0.980]
    assert r3(b["u2"][-1]).tolist() == [-1.102, 0.964, -0.892, 1.030]
    assert r3(b["mlp_post"][-1]).tolist() == [-0.149, 0.802, -0.166, 0.874, 0.952, -0.162, 0.726, -0.156]
    assert r3(b["m"][-1]).tolist() == [0.803, 0.640, 0.560, 0.718]
    assert r3(b["y"][-1]).tolist() == [-0.436, 1.551, -0.461, 1.698]
    assert r3(t["f"][-1]).tolist() == [-0.987, 0.928, -1.011, 1.069]
    assert r3(t["z"][-1]).tolist() == [0.0, 0.418, 0.634, 0.564, -0.945, 0.410, 2.491, 1.463,
                                      0.999, 0.970, -2.056, -0.518]
    assert toy.vocab[int(t["p"][-1].argmax())] == " roof"
    assert r3(t["p"][-1].max()) == 0.395


@pytest.mark.parametrize("heads, token, p", [(1, " cat", 0.426), (2, " roof", 0.395), (4, " cat", 0.306)])
def test_heads_change_the_answer(toy, heads, token, p):
    probs = run(toy, heads)["p"][-1]
    assert toy.vocab[int(probs.argmax())] == token and r3(probs.max()) == p


@pytest.mark.parametrize("temperature, p", [(0.5, 0.761), (1, 0.395), (2, 0.208)])
def test_temperature_keeps_the_order(toy, temperature, p):
    probs = run(toy, 2, temperature)["p"][-1]
    assert r3(probs.max()) == p
    assert np.argsort(probs).tolist() == np.argsort(run(toy)["p"][-1]).tolist()


def test_heads_must_divide_d(toy):
    with pytest.raises(gpt.HeadsError, match="does not divide d = 4; expected one of 1, 2, 4"):
        run(toy, heads=3)


def test_training_step_on_E(toy):
    ids = tokenize(SENTENCE, toy.vocab)
    targets = np.array([-1, -1, -1, -1, toy.vocab.index(" roof")])
    loss, grads = gpt.loss_and_grads(toy.params, toy.cfg, ids, targets, heads=2)
    assert r3(loss) == 0.928
    assert r3(grads["E"][1]).tolist() == [-0.011, 0.011, 0.027, -0.028]
    assert r3(grads["E"][2]).tolist() == [0.0, 0.0, 0.026, -0.026]
    assert r3(grads["E"][5]).tolist() == [0.002, 0.002, 0.0, -0.004]
    untouched = [i for i in range(12) if i not in ids]
    assert not grads["E"][untouched].any()
    stepped = dict(toy.params, E=toy.params["E"] - 0.1 * grads["E"])
    p = gpt.forward(stepped, toy.cfg, ids, 2)["p"]
    assert r3(p[-1, 6]) == 0.396 and r3(gpt.cross_entropy(p, targets)) == 0.927


# ------------------------------------------------------------- gradient checks

@pytest.mark.parametrize("heads", [1, 2, 4])
def test_backward_toy_every_parameter(toy, heads):
    ids = tokenize(SENTENCE, toy.vocab)
    targets = [2, 4, 5, 1, 6]  # every position predicts something
    assert_grads_match(toy.params, toy.cfg, ids, targets, heads, temperature=0.7)


@pytest.mark.parametrize("tied", [False, True])
def test_backward_small_config_with_biases_and_layernorm(tied):
    cfg = gpt.Config(vocab_size=5, d=6, n_ctx=7, n_blocks=2, n_heads=3, width=10,
                     bias=True, ln_weights=True, tied=tied)
    rng = np.random.default_rng(0)
    # big weights and non-trivial biases and gammas, so that no path hides
    params = {k: rng.normal(0, 0.5, v.shape) for k, v in sizes.init_params(cfg, rng).items()}
    ids = np.array([[1, 3, 3, 0, 1, 3], [4, 4, 2, 2, 0, 1]])     # repeated tokens, a batch
    targets = np.array([[3, 3, -1, 1, 3, 2], [-1, 2, 2, 0, 1, 4]])  # some positions ignored
    assert_grads_match(params, cfg, ids, targets)


# ------------------------------------------------------------- counts

def test_toy_count_by_piece(toy):
    c = sizes.count_params(toy.cfg)
    assert {k: c[k] for k in ("E", "P", "W_QKV", "W_O", "W_MLP", "W_U", "total")} == \
        {"E": 48, "P": 32, "W_QKV": 48, "W_O": 16, "W_MLP": 64, "W_U": 48, "total": 256}


def test_gpt2_small_count():
    cfg = gpt.Config(vocab_size=50257, d=768, n_ctx=1024, n_blocks=12, n_heads=12, width=3072,
                     bias=True, ln_weights=True, tied=True)
    c = sizes.count_params(cfg)
    assert c["total"] == 124_439_808
    assert (c["E"], c["P"], c["W_QKV"], c["W_O"], c["W_MLP"], c["W_U"]) == \
        (38_597_376, 786_432, 21_233_664, 7_077_888, 56_623_104, 0)


def test_count_matches_the_parameters_a_model_has():
    cfg = gpt.Config(vocab_size=3, d=48, n_ctx=11, n_blocks=3, n_heads=3, bias=True, ln_weights=True)
    params = sizes.init_params(cfg, np.random.default_rng(0))
    assert sum(v.size for v in params.values()) == sizes.count_params(cfg)["total"] == 85_728


def test_generate_with_a_chooser_and_a_stop_token(toy):
    ids = tokenize("the cat climbed the", toy.vocab)
    seen = []

    def choose(p):
        seen.append(p)
        return len(seen) % 3  # the, ␣the, ␣cat, the, ...
    out, probs = inference.generate(toy.params, toy.cfg, ids, 3, 2, temperature=0.5, choose=choose)
    assert out == ids + [1, 2, 0] and len(probs) == 3
    # the chooser sees each step's probabilities, at the temperature asked
    for n, p in enumerate(seen):
        expected = gpt.forward(toy.params, toy.cfg, out[:len(ids) + n], 2, temperature=0.5)["p"][-1]
        np.testing.assert_allclose(p, expected, atol=1e-12)
    # a stop token ends it as soon as it is chosen; no room, no run
    out, probs = inference.generate(toy.params, toy.cfg, ids, 3, 2, choose=lambda p: 11, stop=(11,))
    assert out == ids + [11] and len(probs) == 1
    assert inference.generate(toy.params, toy.cfg, ids, 0) == (ids, [])
