"""docs/javascripts/gpt.js and render.js against toycalc: the same tokens,
every intermediate of the forward pass to 1e-9, the same tokenizer message,
the same printed numbers. They run in Node (tests/nodejs.py) on fixtures
exported here from toycalc, with the weights exported the way the build
exports them (toycalc/site/export.py)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml

from nodejs import run_json
from references import mulberry32, reference_sample
from toycalc.model import gpt
from toycalc.model.mirror import PARITY_PLACES
from toycalc.site.export import weights_data, weights_json
from toycalc.book.render import fixed, short
from toycalc.model.tokenizer import TokenizerError, show, shorten, tokenize, vocabulary
from toycalc.model.weights import DEFAULT_TOY, load_toy

TOL = 10.0 ** -PARITY_PLACES   # 1e-9: the Simulator page says so, from the same constant

SENTENCES = [
    "the cat climbed the",
    "the dog climbed the",
    "the",                                   # one token
    ".",
    "<eot>",
    "the cat",
    "the the the the",                       # repeated tokens
    " the the the the the the the the",     # eight tokens, all the same
    "the cat climbed the roof. the",         # eight tokens
    "the dog climbed the wall.",
    "the cat climbed the sofa.<eot>",
    " floor roof wall sofa",
    "ededed",
    " climbed",
    "the dog climbed the floor",
]
BAD = ["the bird", "the cat sat", "xyz", "the  cat", "the cat climbed the roof.!", "the 🐈 cat",
       "the " + "🐈" * 60, "the cat climbed the " * 5 + "moonlit rooftop of the old house"]  # long: cut short
TEMPERATURES = [1.0, 0.5, 2.0, 0.1, 3.0]

# the names of the trace that both sides compute: (toycalc name, in the block?)
NAMES = ["E_ids", "P_t", "X", "f", "mu_f", "sigma_f", "logits", "z", "p"]
# the twins RUNNER runs (tests/test_mirrors.py)
JS_CASES = ["gpt.js:load", "gpt.js:run", "gpt.js:forward", "gpt.js:tokenize", "gpt.js:show", "gpt.js:shorten",
         "gpt.js:vocabulary", "gpt.js:uniform", "gpt.js:sample", "gpt.js:argmax", "render.js:fixed", "render.js:short"]
BLOCK = ["u", "mu", "sigma", "Q", "K", "V", "dots", "scores", "weights", "outputs", "A", "attn",
         "h", "u2", "mu2", "sigma2", "mlp_pre", "mlp_post", "m", "y"]

RUNNER = r"""
const g = (await js("gpt")), r = (await js("render"));
const model = g.load(job.weights);
const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) : v);
const out = {runs: job.runs.map((run) => {
  try {
    const tr = run.text ? g.forward(model, g.tokenize(run.text, model.vocab), run.heads, run.temperature)
                        : g.run(model, run.text, run.heads, run.temperature);   // the empty sentence's message
    const res = {};
    for (const k of Object.keys(tr)) if (k !== "blocks") res[k] = plain(tr[k]);
    return res;
  } catch (e) { return {error: e.message, kind: e.constructor.name}; }
})};
out.tokenize = job.tokenize.map((t) => { try { return g.tokenize(t, model.vocab); } catch (e) { return e.message; } });
out.fixed = job.numbers.map((x) => r.fixed(x));
out.fixed0 = job.numbers.map((x) => r.fixed(x, 0));
out.short = job.numbers.map((x) => r.short(x));
out.shortKeep = job.numbers.map((x) => r.short(x, true));
out.uniform = job.draws.map(([seed, k]) => g.uniform(seed, k));
out.sample = job.samples.map(([p, u]) => g.sample(p, u));
out.show = job.tokenize.map((t) => g.show(t));
out.shorten = job.tokenize.map((t) => [g.shorten(t), g.shorten(t, 5)]);
out.vocabulary = [g.vocabulary(model.vocab), g.vocabulary(model.vocab, 3)];
out.argmax = job.argmax.map((p) => g.argmax(p));
process.stdout.write(JSON.stringify(out));
"""


def run_node(job: dict) -> dict:
    return run_json(RUNNER, job)


def job_for(model, runs, tokenize_texts=(), numbers=(), draws=(), samples=(), argmax=()):
    # the weights as the build publishes them, read back from the JSON text
    return {"weights": json.loads(weights_json(model)), "runs": runs,
            "tokenize": list(tokenize_texts), "numbers": list(numbers), "draws": list(draws),
            "samples": list(samples), "argmax": list(argmax)}


def arr(value) -> np.ndarray:
    """JS output to numpy: JSON null stands for -Infinity (masked scores)."""
    def fix(v):
        return [fix(x) for x in v] if isinstance(v, list) else (-math.inf if v is None else v)
    return np.array(fix(value), dtype=float)


def assert_trace_agrees(trace: dict, js: dict, where: str) -> None:
    assert js.get("error") is None, f"{where}: {js.get('error')}"
    assert js["ids"] == [int(i) for i in trace["ids"]], where
    assert js["heads"] == trace["heads"], where
    blk = trace["blocks"][0]
    for name in NAMES + BLOCK:
        want = np.asarray(trace[name] if name in NAMES else blk[name], dtype=float)
        got = arr(js[name])
        assert got.shape == want.shape, f"{where}: {name} has shape {got.shape}, toycalc {want.shape}"
        # the mask: -inf in exactly the same places
        assert np.array_equal(np.isinf(got), np.isinf(want)), f"{where}: {name}: the mask differs"
        finite = np.isfinite(want)
        diff = np.abs(got[finite] - want[finite]).max(initial=0.0)
        assert diff <= TOL, f"{where}: {name} differs by {diff:.3g}"


def forward_runs(model, sentences, heads_list, temperatures):
    runs, traces = [], []
    for text in sentences:
        ids = tokenize(text, model.vocab)
        for heads in heads_list:
            for temperature in temperatures:
                runs.append({"text": text, "heads": heads, "temperature": temperature})
                traces.append(gpt.forward(model.params, model.cfg, ids, heads, temperature))
    return runs, traces


@pytest.fixture(scope="module")
def toy_model():
    return load_toy(DEFAULT_TOY)


def test_every_intermediate_agrees_on_the_toy(toy_model):
    runs, traces = forward_runs(toy_model, SENTENCES, [1, 2, 4], TEMPERATURES)
    assert len(runs) == len(SENTENCES) * 3 * len(TEMPERATURES)
    out = run_node(job_for(toy_model, runs))
    for run, trace, js in zip(runs, traces, out["runs"]):
        assert_trace_agrees(trace, js, f"{run}")

def test_the_playground_states_the_tolerance_this_file_holds(site):
    """End to End says to how many decimal places the browser agrees
    with toycalc: the tolerance of the parity tests above, from the same
    constant (it typed "nine")."""
    from conftest import page
    text = " ".join(page(site, "end-to-end").select_one("article").get_text(" ").split())
    assert f"agrees to {PARITY_PLACES} decimal places" in text
    assert TOL == 10.0 ** -PARITY_PLACES


def test_the_default_heads_come_from_the_weights_file(toy_model):
    out = run_node(job_for(toy_model, [{"text": "the dog climbed the"}]))
    trace = gpt.forward(toy_model.params, toy_model.cfg, tokenize("the dog climbed the", toy_model.vocab))
    assert_trace_agrees(trace, out["runs"][0], "default heads, T = 1")


def test_edge_cases_are_covered(toy_model):
    lengths = [len(tokenize(t, toy_model.vocab)) for t in SENTENCES]
    assert 1 in lengths and toy_model.cfg.n_ctx in lengths
    assert any(len(set(ids)) < len(ids) for ids in (tokenize(t, toy_model.vocab) for t in SENTENCES))


def test_other_weights_agree_too(tmp_path):
    """Random weights, another vocabulary and sizes: no hand-picked zero
    hides a mistake, and the browser follows whatever file the build reads."""
    rng = np.random.default_rng(7)
    vocab = ["a", "ab", "␣b", "␣", "b", "c<", "&d"]
    d, n_ctx, width = 6, 10, 10
    data = {"heads": 3, "vocab": vocab,
            "E": rng.normal(0, 1, (len(vocab), d)), "P": rng.normal(0, 1, (n_ctx, d)),
            **{k: rng.normal(0, 1, (d, d)) for k in ("W_Q", "W_K", "W_V", "W_O")},
            "W_1": rng.normal(0, 1, (d, width)), "W_2": rng.normal(0, 1, (width, d)),
            "W_U": rng.normal(0, 1, (d, len(vocab)))}
    path = tmp_path / "random.yaml"
    path.write_text(yaml.safe_dump({k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                    for k, v in data.items()}, allow_unicode=True), encoding="utf-8")
    model = load_toy(path)
    sentences = ["a", "ab b", "abab", "a b&dc<", "c< c< c< c< c<", "bbb"]
    runs, traces = forward_runs(model, sentences, [1, 2, 3, 6], [1.0, 0.7])
    out = run_node(job_for(model, runs + [{"text": "ab b", "heads": 4}]))
    for run, trace, js in zip(runs, traces, out["runs"]):
        assert_trace_agrees(trace, js, f"random weights {run}")
    assert out["runs"][-1]["error"] == "heads = 4 does not divide d = 6; expected one of 1, 2, 3, 6"


def test_the_tokenizer_cuts_the_same_and_fails_the_same(toy_model):
    texts = SENTENCES + BAD + ["the cat climbed the roof. the dog climbed"]
    out = run_node(job_for(toy_model, [], tokenize_texts=texts))
    for text, js in zip(texts, out["tokenize"]):
        try:
            want = tokenize(text, toy_model.vocab)
        except TokenizerError as e:
            want = str(e)
        assert js == want, text
    # and the pieces of its messages
    assert out["show"] == [show(t) for t in texts]
    assert out["shorten"] == [[shorten(t), shorten(t, 5)] for t in texts]
    assert out["vocabulary"] == [vocabulary(toy_model.vocab), vocabulary(toy_model.vocab, 3)]


def test_an_uncuttable_sentence_gives_the_message_and_other_limits(toy_model):
    too_long = "the cat climbed the roof. the dog climbed"
    runs = [{"text": "the bird", "heads": 2, "temperature": 1}, {"text": "", "heads": 2},
            {"text": too_long, "heads": 2}, {"text": "the", "heads": 2, "temperature": 0},
            {"text": "the", "heads": 3}]
    out = run_node(job_for(toy_model, runs))["runs"]
    with pytest.raises(TokenizerError) as e:
        tokenize("the bird", toy_model.vocab)
    assert out[0] == {"error": str(e.value), "kind": "TokenizerError"}
    assert out[0]["error"].startswith('cannot cut "␣bird" (character 4 of "the bird")')
    assert out[1]["error"] == "0 tokens, but the model has 8 positions"
    n = len(tokenize(too_long, toy_model.vocab))
    with pytest.raises(ValueError) as e:
        gpt.forward(toy_model.params, toy_model.cfg, tokenize(too_long, toy_model.vocab))
    assert out[2]["error"] == str(e.value) == f"{n} tokens, but the model has 8 positions"
    assert out[3]["error"] == "temperature must be > 0, got 0"
    with pytest.raises(gpt.HeadsError) as e:
        gpt.check_heads(4, 3)
    assert out[4]["error"] == str(e.value)


def test_numbers_print_as_the_book_prints_them(toy_model):
    rng = np.random.default_rng(3)
    ties = [k / 16 for k in range(-40, 41)] + [0.0005, -0.0005, 0.0625, 2.5, -2.5, 0.125, 1e-12, -1e-12]
    numbers = ties + list(rng.normal(0, 2, 300)) + list(rng.normal(0, 0.001, 50))
    trace = gpt.forward(toy_model.params, toy_model.cfg, tokenize("the dog climbed the", toy_model.vocab))
    numbers += [float(v) for v in trace["p"].ravel()] + [float(v) for v in trace["blocks"][0]["u"].ravel()]
    out = run_node(job_for(toy_model, [], numbers=numbers))
    assert out["fixed"] == [fixed(x) for x in numbers]
    assert out["fixed0"] == [fixed(x, 0) for x in numbers]
    assert out["short"] == [short(x) for x in numbers]
    assert out["shortKeep"] == [short(x, keep_decimal=True) for x in numbers]


# ---------------------------------------------------------------- sampling

def test_seeded_draws_and_sampling_agree(toy_model):
    draws = [[seed, k] for seed in (0, 1, 42, 2**32 - 1, 123456789) for k in range(6)]
    want = []
    for seed, k in draws:
        gen = mulberry32(seed)
        values = [gen() for _ in range(k + 1)]
        want.append(values[-1])
    p = gpt.forward(toy_model.params, toy_model.cfg, tokenize("the cat climbed the", toy_model.vocab),
                    2, 1.5)["p"][-1].tolist()
    rs = [0.0, 1e-9, 0.25, 0.5, 0.75, 0.999999, *want]
    samples = [[p, r] for r in rs] + [[[0.5, 0.5, 0.0], 0.9999999999999999]]
    argmax = [p, [0.2, 0.4, 0.4], [1.0]]
    out = run_node(job_for(toy_model, [], draws=draws, samples=samples, argmax=argmax))
    assert out["uniform"] == want
    assert out["sample"] == [reference_sample(pp, r) for pp, r in samples]
    assert out["argmax"] == [int(np.argmax(a)) for a in argmax]
    # each draw picks tokens in proportion to p: a rough check over many seeds
    counts = np.zeros(len(p))
    for seed in range(2000):
        counts[reference_sample(p, mulberry32(seed)())] += 1
    assert np.abs(counts / 2000 - np.array(p)).max() < 0.05


# ---------------------------------------------------------------- the export

def test_the_export_reads_back_as_the_same_doubles(toy_model):
    data = json.loads(weights_json(toy_model))
    assert data["vocab"] == toy_model.vocab and data["heads"] == toy_model.heads
    assert data["n_ctx"] == toy_model.cfg.n_ctx and data["d"] == toy_model.cfg.d
    for name in ("E", "P", "W_U"):
        assert np.array_equal(np.array(data[name]), toy_model.params[name])
    for name in ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"):
        assert np.array_equal(np.array(data[name]), toy_model.params[f"blocks.0.{name}"])
    assert data["ln_eps"] == gpt.LN_EPS and data["gelu_c"] == gpt.GELU_C
    assert weights_data(toy_model)["vocab"][1] == " the"


def test_the_build_publishes_the_weights_the_macros_use(site, toy_model):
    published = json.loads((site / "javascripts" / "toy-weights.json").read_text(encoding="utf-8"))
    assert published == json.loads(weights_json(toy_model))
    html = (site / "end-to-end" / "index.html").read_text(encoding="utf-8")
    assert 'data-module="simulator"' in html   # book.js imports simulator.js, which imports gpt.js
    assert 'data-weights="../javascripts/toy-weights.json"' in html
    assert (site / "javascripts" / "gpt.js").is_file() and (site / "javascripts" / "simulator.js").is_file()
    assert (site / "stylesheets" / "simulator.css").is_file()


def test_a_build_with_other_weights_publishes_them(altered, toy_model):
    """Other weights (conftest.altered_toy: ␣cat's row of E is [0.5, -1, 0.5, 0]):
    the simulator's weights follow."""
    model = load_toy(altered.toy)
    assert model.params["E"][2, 0] == 0.5 and toy_model.params["E"][2, 0] != 0.5
    published = json.loads((altered.site / "javascripts" / "toy-weights.json").read_text(encoding="utf-8"))
    assert published["E"][2][0] == 0.5 and published == json.loads(weights_json(model))


def test_the_hook_needs_a_weights_file_and_names_a_bad_one(tmp_path, monkeypatch):
    from mkdocs.exceptions import PluginError
    from toycalc.site import publish_weights
    monkeypatch.delenv("TOYCALC_WEIGHTS", raising=False)
    config = {"extra": {}, "config_file_path": str(tmp_path / "mkdocs.yml")}
    with pytest.raises(PluginError, match="extra.toycalc.weights is not set"):
        publish_weights.toy_model(config)
    bad = tmp_path / "bad.yaml"
    bad.write_text("vocab: [a]\n", encoding="utf-8")
    monkeypatch.setenv("TOYCALC_WEIGHTS", str(bad))
    with pytest.raises(PluginError, match="bad.yaml: key 'E' is missing"):
        publish_weights.toy_model(config)
