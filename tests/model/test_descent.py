"""Gradient descent on one sentence (toycalc/model/descent.py): its
default first step is the book's step, to the bit; every matrix can learn;
bad choices are refused with what is expected."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from toycalc.book import end_to_end
from toycalc.book.render import fixed
from toycalc.book.example import Example
from nodejs import run_json
from toycalc.model import descent, gpt
from toycalc.site.export import weights_data


@pytest.fixture(scope="module")
def ex(toy):
    return Example(toy)


def test_the_default_first_step_is_the_books(ex):
    """E alone, η and the target of the book's example: the same new E, the
    same loss and p(target) after, so the page prints the same numbers."""
    (step,) = descent.descend(ex.model.params, ex.model.cfg, ex.ids, ex.target_id, ex.eta, heads=ex.n_heads)
    assert np.array_equal(step["params"]["E"], ex.stepped_E)
    assert np.array_equal(step["grads"]["E"], ex.grads["E"])
    assert step["loss"] == ex.loss and step["loss_after"] == ex.stepped_loss
    assert step["p"] == ex.p_last[ex.target_id]
    assert step["p_after"] == ex.stepped_trace["p"][-1, ex.target_id]
    # as printed: the page's numbers (loss 0.928 → 0.927, p(␣roof) 0.395 → 0.396 with the shipped weights)
    assert fixed(step["loss"]) == end_to_end.loss_number(ex)
    assert fixed(step["loss_after"]) == end_to_end.loss_number(ex, after_step=True)
    assert fixed(step["p_after"]) == end_to_end.p_after_step(ex)
    assert step["p_after"] > step["p"] and step["loss_after"] < step["loss"]
    for name, value in ex.model.params.items():
        if name != "E":
            assert step["params"][name] is value, name


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_trains_defaults_visibly_teach(toy, heads):
    """Train's defaults (TRAIN_LEARNS, TRAIN_STEPS, at the book's η and target)
    move p(target) by at least 0.1 on the book's sentence, every step
    lowering the loss, under every heads choice of the page. With the book's
    heads, E alone would not, even for as many steps as the page allows
    (why the default is not E)."""
    ex = Example(toy, heads=heads)
    steps = descent.descend(toy.params, toy.cfg, ex.ids, ex.target_id, ex.eta, descent.TRAIN_LEARNS,
                            descent.TRAIN_STEPS, heads=heads)
    assert steps[-1]["p_after"] - steps[0]["p"] >= 0.1
    assert all(s["loss_after"] < s["loss"] for s in steps)
    if heads == Example(toy).n_heads:
        alone = descent.descend(toy.params, toy.cfg, ex.ids, ex.target_id, ex.eta, "E", descent.MAX_STEPS,
                                heads=heads)
        assert alone[-1]["p_after"] - alone[0]["p"] < 0.1


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_every_matrix_learns_and_the_loss_falls(toy, heads):
    """Ten steps on every matrix towards another target: each step starts
    where the last one ended, every matrix moves, and the loss falls."""
    ex = Example(toy, target="␣wall", heads=heads)
    steps = descent.descend(toy.params, toy.cfg, ex.ids, ex.target_id, 0.5, "all", 10, heads=heads)
    assert len(steps) == 10
    for before, after in zip(steps, steps[1:]):
        assert after["loss"] == before["loss_after"] and after["p"] == before["p_after"]
    last = steps[-1]
    assert all(not np.array_equal(last["params"][n], toy.params[n]) for n in toy.params)
    assert last["loss_after"] < steps[0]["loss"] and last["p_after"] > steps[0]["p"]
    # one step redone by hand from the gradients
    grads = gpt.loss_and_grads(toy.params, toy.cfg, ex.ids, descent.targets_of(ex.ids, ex.target_id), heads)[1]
    assert all(np.array_equal(steps[0]["params"][n], toy.params[n] - 0.5 * grads[n]) for n in toy.params)


@pytest.mark.parametrize("args, message", [
    ({"learns": "W_Q"}, "learns = 'W_Q': expected one of E, all"),
    ({"eta": 0}, "eta = 0: the learning rate must be a number above 0"),
    ({"eta": float("nan")}, "eta = nan: the learning rate must be a number above 0"),
    ({"steps": descent.MAX_STEPS + 1}, f"steps = {descent.MAX_STEPS + 1}: expected a whole number from 1 to "
                                       f"{descent.MAX_STEPS}"),
])
def test_a_bad_choice_is_named(ex, args, message):
    kwargs = {"eta": 0.1} | args
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        descent.descend(ex.model.params, ex.model.cfg, ex.ids, ex.target_id, **kwargs)


# ---------------------------------------------------------------- the browser's twin

# the twin the runner runs (tests/test_mirrors.py)
JS_CASES = ["descent.js:descend", "descent.js:beyondBounds"]

RUNNER = r"""
const g = (await js("gpt")), d = (await js("descent"));
const model = g.load(job.weights);
const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v.map(plain));
const out = job.runs.map((r) => d.descend(model, r.ids, r.target, r.eta, r.learns, r.steps, r.heads).map((s) => ({
  loss: s.loss, p: s.p, lossAfter: s.lossAfter, pAfter: s.pAfter,
  params: Object.fromEntries(Object.entries(s.params).map(([k, v]) => [k, plain(v)]))})));
process.stdout.write(JSON.stringify(out));
"""


def test_the_browser_takes_the_same_steps(toy):
    """descent.js against descend, step by step (loss and p(target) before
    and after, every weight after), to 1e-12: the book's weights and
    default, and random weights with 1, 2 and 4 heads, E alone and every
    matrix, ten steps towards another target."""
    rng = np.random.default_rng(5)
    random = dataclasses.replace(toy, params={n: rng.normal(0, 0.7, w.shape) for n, w in toy.params.items()})
    ex = Example(toy)
    runs = [(toy, dict(ids=ex.ids, target=ex.target_id, eta=ex.eta, learns="E", steps=1, heads=2))]
    for heads, learns in [(1, "all"), (2, "E"), (4, "all")]:
        runs.append((random, dict(ids=[0, 3, 4, 5, 1, 3], target=int(rng.integers(12)), eta=0.3, learns=learns,
                                  steps=10, heads=heads)))
    for model, run in runs:   # one Node per weights file
        got, = run_json(RUNNER, {"weights": weights_data(model), "runs": [run]})
        want = descent.descend(model.params, model.cfg, **run)
        assert len(got) == len(want) == run["steps"]
        for g, w in zip(got, want):
            for js_name, name in [("loss", "loss"), ("p", "p"), ("lossAfter", "loss_after"), ("pAfter", "p_after")]:
                assert abs(g[js_name] - w[name]) <= 1e-12, (run, js_name)
            assert sorted(g["params"]) == sorted(w["params"])
            for name, value in w["params"].items():
                assert np.abs(np.array(g["params"][name]) - value).max() <= 1e-12, (run, name)
        moved = [n for n in model.params if not np.array_equal(want[-1]["params"][n], model.params[n])]
        assert moved == (["E"] if run["learns"] == "E" else list(model.params))


BOUNDS_RUNNER = r"""
const d = (await js("descent"));
const value = (v) => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v);
const arrays = (params) => Object.fromEntries(Object.entries(params).map(([n, a]) => [n,
  Array.isArray(a[0]) ? a.map((row) => Float64Array.from(row, value)) : Float64Array.from(a, value)]));
const out = job.map((params) => {
  const found = d.beyondBounds(arrays(params));
  return found && { name: found.name, index: found.index, value: String(found.value) };
});
process.stdout.write(JSON.stringify(out));
"""


def test_the_bounds_of_a_weight_are_the_weights_files(toy):
    """beyond_bounds and its twin find the same first weight the weights
    file refuses (weights.py's rule: finite, |w| <= MAX_WEIGHT): none in
    the book's weights nor at the limit itself, the first in order past it,
    NaN and Infinity in a matrix or a vector."""
    from toycalc.model.weights import MAX_WEIGHT
    limit = MAX_WEIGHT
    above = float(np.nextafter(limit, np.inf))
    cases = [dict(toy.params),
             {"E": np.array([[0.0, limit], [-limit, 1.0]]), "b": np.array([limit, -limit])},
             {"E": np.array([[0.0, 1.0], [-above, 1.0]]), "b": np.array([above, 0.0])},
             {"E": np.array([[0.0, 1.0], [2.0, 1.0]]), "b": np.array([0.0, np.nan])},
             {"E": np.array([[0.0, np.inf], [2.0, -np.inf]])},
             {"E": np.array([[0.0, 1.0]]), "b": np.array([-np.inf])}]
    want = [descent.beyond_bounds(c) for c in cases]
    assert [w and (w["name"], w["index"]) for w in want] == [None, None, ("E", [1, 0]), ("b", [1]), ("E", [0, 1]),
                                                             ("b", [0])]
    plain = lambda a: [plain(r) for r in a] if np.ndim(a) > 1 else [v if np.isfinite(v) else
                                                                    {np.inf: "inf", -np.inf: "-inf"}.get(v, "nan")
                                                                    for v in map(float, a)]
    got = run_json(BOUNDS_RUNNER, [{n: plain(a) for n, a in c.items()} for c in cases])
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if w:
            assert (g["name"], g["index"]) == (w["name"], w["index"])
            assert float(g["value"].replace("Infinity", "inf")) == w["value"] or np.isnan(w["value"])
