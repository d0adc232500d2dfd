"""nano-gpt's chapter is as strict as the toy's: the sentences that say
what the model does carry claims, checked on its weights at build time (a
false one stops a strict build naming the page, the line and the
sentence; TOYCALC_CLAIMS=warn builds and marks it), and the record's facts
are checked against the weights."""
from __future__ import annotations

import io
import logging
import re
from types import SimpleNamespace

import numpy as np
import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT, build_site, claim_calls, page_error, render_page
from toycalc.book import claims
from toycalc.book.nano_gpt import self_attention, transformer
from toycalc.book.nano_example import Run
from toycalc.model import nanogpt, train

CHAPTER = ROOT / "docs" / "nano-gpt"


def test_every_nano_claim_is_made_and_holds_for_the_shipped_weights(nano):
    calls = list(claim_calls(CHAPTER))
    assert {what for _, what, _ in calls} == set(claims.NANO_CLAIMS)
    for page, what, options in calls:
        assert claims.NANO_CLAIMS[what](Run(nano), **options) is None, (page, what, options)


def facts(params: dict, record: dict) -> dict:
    """record with the facts of these weights (what train writes)."""
    run = Run(nanogpt.Nano(nanogpt.DEFAULT_WEIGHTS, params, record))
    return dict(record, accuracy_on_729=run.sorted_count, loss_on_729=round(run.loss_on_729, 8))


@pytest.fixture(scope="module")
def one_step(tmp_path_factory, nano):
    """Weights trained one step (as "Train it yourself" gives at a step
    limit of 1), stored in float16, with a record that tells the truth."""
    params, opt, data = train.start()
    loss = round(float(train.train_step(params, opt, data)), 8)
    shipped = train.stored(params)
    record = dict(nano.record, steps=1, loss_curve=[loss], final_loss=loss,
                  final_loss_means="mean training loss of the last 1 steps")
    path = tmp_path_factory.mktemp("one_step") / "nanogpt.safetensors"
    nanogpt.save(shipped, facts(train.as64(shipped), record), path)
    return path


def page_text(name: str) -> str:
    return (CHAPTER / f"{name}.md").read_text(encoding="utf-8")


def claim_line(name: str, what: str) -> int:
    """The line of the page's file that makes the claim."""
    return next(k for k, line in enumerate(page_text(name).splitlines(), 1) if f'claim("{what}"' in line)


def only_claim(name: str, what: str) -> str:
    """The page with its other claims turned into empty macros (lines and
    sentences stay): what a strict build reports once those hold."""
    return re.sub(r'\{\{ claim\("(\w+)".*?\}\}', lambda m: m[0] if m[1] == what else '{{ "" }}', page_text(name))


@pytest.fixture(scope="module")
def one_step_does(one_step) -> SimpleNamespace:
    """What the one-step weights do, computed the slow way (nanogpt.sort,
    nanogpt.accuracy): .writes for the example, .sorts (of the 729)."""
    params = nanogpt.load(one_step).params
    return SimpleNamespace(writes=nanogpt.letters(nanogpt.sort(params, nanogpt.encode("C B A B B C"))),
                           sorts=nanogpt.accuracy(params))


def test_one_step_is_not_enough(one_step, one_step_does):
    assert one_step_does.writes != "A B B B C C" and one_step_does.sorts < 729
    assert nanogpt.load(one_step).record["accuracy_on_729"] == one_step_does.sorts


@pytest.mark.parametrize("name, what, sentence, false", [
    ("output", "writes_sorted", "The model writes …: the input …, sorted",
     "the model writes {writes} for C B A B B C, whose letters sorted are A B B B C C"),
    # the sentences before it end in a macro (how the weights were made): "…"
    ("preliminaries", "sorts_all", "… It stops as soon as greedy decoding sorts every one of the … possible inputs correctly",
     "greedy decoding sorts {sorts} of the 729 inputs"),
])
def test_weights_trained_one_step_stop_a_strict_build(macros, one_step, one_step_does, name, what, sentence, false):
    """The page, the line and the sentence; and what is true instead (the
    page's other claims made to hold: one of them may come first)."""
    line = page_error(macros(nano=one_step), only_claim(name, what), f"nano-gpt/{name}.md")
    false = false.format(**vars(one_step_does))
    assert line == (f"nano-gpt/{name}.md, line {claim_line(name, what)}: the text (“{sentence}”) claims {what}(), "
                    f"but {false}: rewrite the sentence or the weights ({one_step})")


def test_warn_builds_and_marks_the_sentence(macros, one_step, one_step_does, monkeypatch):
    env = macros(nano=one_step, claims="warn")
    from toycalc.site.errors import claims_log
    (printed,) = [h for h in claims_log.handlers if type(h) is logging.StreamHandler]
    monkeypatch.setattr(printed, "stream", io.StringIO())
    shown = render_page(env, page_text("output"), "nano-gpt/output.md")
    assert ('sorted</span><span class="claim-broken" role="note">This sentence was written for the book\'s '
            f"weights and does not hold for these: the model writes {one_step_does.writes} for C B A B B C") in shown
    assert f"claims writes_sorted(), but the model writes {one_step_does.writes}" in printed.stream.getvalue()


# ------------------------------------------------------------- words true of any weights

# Where the heads look is no property of a sorter (a run trained in the
# page, on the browser's random numbers, has other heads): those sentences
# say in computed words what the weights do, and the browser says them
# again for other letters (nano_gpt.js; test_nanogpt_switch holds the twins).

def with_weights(run: Run, block: int, head: int, row: list[float], t: int = 6) -> Run:
    """run with its cached trace changed: head `head` of block `block`
    (from 0) gives row t the attention weights `row`."""
    weights = run.block(block)["weights"].copy()
    weights[head, t - 1, :len(row)] = row
    run.__dict__["trace"] = dict(run.trace, blocks=[dict(b, weights=weights) if k == block else b
                                                    for k, b in enumerate(run.trace["blocks"])])
    return run


def test_the_followed_head_says_whether_it_finds_the_smallest_letter(nano):
    run = Run(nano)
    assert run.text == "C B A B B C"
    assert self_attention.finds_smallest_number(run, t=6, head="best") == "a copy of the smallest letter so far"
    block, head = run.best_head                       # from 0, as arrays count
    with_weights(run, block, head, [0.1, 0.1, 0.05, 0.5, 0.15, 0.1])     # largest on j = 4, a B
    assert self_attention.finds_smallest_number(run, t=6, head="best") == "not the smallest letter so far, A"
    assert self_attention.look_number(run, t=6, head="best") == "B at j = 4 (0.500)"
    with_weights(run, block, head, [0.1, 0.6, 0.3], t=3)                 # from t = 3: C B A, on the B
    assert self_attention.finds_smallest_number(run, t=3, head="best") == "not the smallest letter so far, A"
    with_weights(run, block, head, [0.6, 0.4], t=2)                      # from t = 2: C B, on the C
    assert self_attention.finds_smallest_number(run, t=2, head="best") == "not the smallest letter so far, B"


def test_the_heads_blend_and_lean_as_their_weights_say(nano):
    run = Run(nano)
    strongest = max(b["weights"][:, 5].max() for b in run.trace["blocks"])
    assert strongest < 0.5
    assert transformer.blend_number(run, t=6) == "so every head hands on a blend of several positions' values"
    assert transformer.lean_number(run, t=6, block=1) == "all lean towards the A"
    with_weights(run, 0, 1, [0.05, 0.05, 0.05, 0.05, 0.1, 0.7])         # head 2 of block 1: the C at j = 6
    assert transformer.blend_number(run, t=6) == \
        "so 1 of the 9 heads hands on mostly one position's value and the others a blend of several"
    assert transformer.lean_number(run, t=6, block=1) == "lean towards the A (heads 1 and 3) and the C (head 2)"
    with_weights(run, 0, 2, [0.1, 0.6, 0.1, 0.1, 0.05, 0.05])           # head 3: the B at j = 2
    assert transformer.lean_number(run, t=6, block=1) == "lean towards the A (head 1), the C (head 2) and the B (head 3)"
    for block in range(3):
        for head in range(3):
            with_weights(run, block, head, [0.5, 0.1, 0.1, 0.1, 0.1, 0.1])
    assert transformer.blend_number(run, t=6) == "so every head hands on mostly one position's value"
    assert transformer.lean_number(run, t=6, block=2) == "all lean towards the C"


def test_a_nano_claim_takes_no_heads(macros):
    assert "claim('writes_sorted'): unknown argument 'heads'; it takes no arguments" in \
        page_error(macros(), '# N\n\nIt sorts{{ claim("writes_sorted", heads=2) }}.\n')


# ------------------------------------------------------------- every guarded sentence

# Every sentence of the chapter that says what the model does, with its
# claim and the sentence a build names (the page's words up to the call,
# macros as "…"): a claim added to a page, or one taken away, fails
# test_every_sentence_about_the_model_is_guarded until it is listed here.
GUARDED = [
    ("index", "starts_with_smallest",
     "…ter, the one that has read all … of them, the model gives … to …, the letter that has to come first"),
    ("preliminaries", "sorts_all",
     "… It stops as soon as greedy decoding sorts every one of the … possible inputs correctly"),
    ("layer-norm", "variance_too_coarse",
     "…e one exception: at three places the variance would read …, far too coarse to take a square root of"),
    ("layer-norm", "epsilon_nudges_sigma",
     "…rly flat: its variance is small enough that \\(\\varepsilon\\), tiny as it is, still nudges \\(\\sigma\\)"),
    ("self-attention", "starts_with_smallest",
     "The answer has to start with the smallest letter of the input, here …"),
    ("output", "untrained_as_sure",
     "…ich learned to be sharp, and come out sharp too, more than half sure of a letter that means nothing"),
    ("output", "writes_sorted", "The model writes …: the input …, sorted"),
]


def test_every_sentence_about_the_model_is_guarded():
    assert sorted((page, what) for page, what, _ in claim_calls(CHAPTER)) == \
        sorted((f"{name}.md", what) for name, what, _ in GUARDED)


@pytest.fixture(scope="module")
def reversed_sorter(tmp_path_factory, nano):
    """The book's weights changed so that every guarded sentence is false:
    A and C swap places in E and W_U (a model that sorts C before A: it
    writes the largest letter first, its heads look at C, and it sorts only
    the 3 inputs of a single letter); the residual stream 100 times longer
    (E, P and what each block adds: the LayerNorms undo the length, but the
    row t = 4 is no longer flat); head 1 of block 1 six times sharper.
    Stored in float16, with the facts of these weights in its record."""
    params = {k: v.copy() for k, v in nano.params.items()}
    params["E"], params["W_U"] = params["E"][::-1].copy(), params["W_U"][:, ::-1].copy()
    for k in params:
        if k in ("E", "P") or k.rsplit(".", 1)[-1] in ("W_O", "b_O", "W_2", "b_2"):
            params[k] = params[k] * 100
    head_0 = Run(nano).head_columns(0)
    params["blocks.0.W_Q"][:, head_0] *= 6
    params["blocks.0.b_Q"][head_0] *= 6
    stored = {k: v.astype(np.float16) for k, v in params.items()}
    path = tmp_path_factory.mktemp("reversed") / "nanogpt.safetensors"
    nanogpt.save(stored, facts({k: v.astype(np.float64) for k, v in stored.items()}, nano.record), path)
    return path


@pytest.mark.parametrize("name, what, sentence", GUARDED)
def test_each_guarded_sentence_stops_a_strict_build(macros, reversed_sorter, one_step, name, what, sentence):
    """On weights that make it false: the page, the line, the sentence, and
    what is true instead. "Sharp too" holds for the reversed sorter (any
    sorter's columns are sharp), not for weights trained one step."""
    if what == "untrained_as_sure":
        reversed_sorter = one_step
    (options,) = [o for page, w, o in claim_calls(CHAPTER) if (page, w) == (f"{name}.md", what)]
    false = claims.NANO_CLAIMS[what](Run(nanogpt.load(reversed_sorter)), **options)
    assert false
    args = ", ".join(f"{k}={v!r}" for k, v in options.items())
    line = page_error(macros(nano=reversed_sorter), only_claim(name, what), f"nano-gpt/{name}.md")
    assert line == (f"nano-gpt/{name}.md, line {claim_line(name, what)}: the text (“{sentence}”) claims {what}({args}), "
                    f"but {false}: rewrite the sentence or the weights ({reversed_sorter})")


def test_what_the_reversed_sorter_does_is_what_the_claims_say(reversed_sorter):
    """The claims' words against the weights, computed the slow way."""
    params = nanogpt.load(reversed_sorter).params
    run = Run(nanogpt.load(reversed_sorter))
    writes = nanogpt.letters(nanogpt.sort(params, nanogpt.encode("C B A B B C")))
    assert writes.startswith("C") and claims.writes_sorted_claim(run).startswith(f"the model writes {writes} ")
    assert nanogpt.accuracy(params) == 3 and claims.sorts_all_claim(run) == "greedy decoding sorts 3 of the 729 inputs"
    assert claims.starts_with_smallest_claim(run).startswith("after C B A B B C the most probable letter is C (")
    x3 = (params["E"][nanogpt.encode("B")[0]] + params["P"][3])          # t = 4 is a B
    assert claims.epsilon_nudges_sigma_claim(run).startswith(f"the row t = 4 has variance {x3.var():.6f} ")
    assert claims.variance_too_coarse_claim(run).startswith(f"σ from the variance at three places, {x3.var():.3f}, ")
    least_sure_step = min(s["p"].max() for s in run.steps)
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])     # the positions training ignores
    least_untrained = min(run.trace["p"][t].max() for t in range(run.T) if targets[0, t] < 0)
    said = claims.untrained_as_sure_claim(run)
    if least_sure_step <= 0.5:
        assert said == f"a step of the greedy decoding gives its letter only {least_sure_step:.3f}"
    else:
        assert (said is None) == (least_untrained > 0.5), said


def test_an_unsure_untrained_column_is_named(nano):
    """Sharp steps, and an ignored column no more than half sure: named."""
    run = Run(nano)
    _, targets = nanogpt.examples(nanogpt.all_inputs()[:1])
    t = [t for t in range(run.T) if targets[0, t] < 0][2]
    run.__dict__["trace"] = dict(run.trace, p=run.trace["p"].copy())   # the cached trace, changed
    run.trace["p"][t] = 0
    run.trace["p"][t][:3] = [0.5, 0.3, 0.2]
    assert claims.untrained_as_sure_claim(run) == (f"the row t = {t + 1}, whose target training ignores, "
                                                   "is only 0.500 sure of its letter, not more than half")
    assert claims.untrained_as_sure_claim(Run(nano)) is None


def test_weights_trained_one_step_are_not_sharp(one_step):
    steps = Run(nanogpt.load(one_step)).steps
    assert claims.untrained_as_sure_claim(Run(nanogpt.load(one_step))) == \
        f"a step of the greedy decoding gives its letter only {min(s['p'].max() for s in steps):.3f}"


@pytest.mark.build
def test_the_reversed_sorter_builds_with_warn_and_every_guarded_sentence_marked(reversed_sorter, tmp_path):
    """One build with TOYCALC_CLAIMS=warn: each guarded sentence printed
    with its page and line, and marked on its page; a strict build stops,
    naming every one of them (issue 53). "Sharp too" holds for any sorter."""
    result = build_site(tmp_path / "site", nano=reversed_sorter, claims="warn")
    assert result.returncode == 0, result.stderr
    false = [(name, what, sentence) for name, what, sentence in GUARDED if what != "untrained_as_sure"]
    for name, what, sentence in false:
        assert f"nano-gpt/{name}.md, line {claim_line(name, what)}: the text (“{sentence}”) claims {what}(" \
            in result.stderr, (name, what)
    for name in {name for name, _, _ in GUARDED}:
        built = tmp_path / "site" / "nano-gpt" / ("" if name == "index" else name) / "index.html"
        marks = built.read_text(encoding="utf-8").count('<span class="claim-broken" role="note">This sentence was '
                                                         "written for the book's weights and does not hold for these: ")
        assert marks == sum(n == name for n, _, _ in false), name
    strict = build_site(tmp_path / "strict", nano=reversed_sorter)
    assert strict.returncode != 0 and "Traceback" not in strict.stderr
    for name, what, sentence in false:
        assert f"ERROR   -  nano-gpt/{name}.md, line {claim_line(name, what)}: the text (“{sentence}”) claims {what}(" \
            in strict.stderr, (name, what)


# ------------------------------------------------------------- the record against the weights

@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(accuracy_on_729=729), "field 'accuracy_on_729' says the weights sort 729 of the 729 inputs; they sort "),
    (lambda r: r.update(loss_on_729=0.5), "field 'loss_on_729' says 0.5; the weights' loss on the 729 inputs is "),
    (lambda r: r.update(final_loss=0.5), "field 'final_loss' says 0.5; the mean of the last 1 losses of its loss_curve is "),
])
def test_a_record_that_disagrees_with_the_weights_stops_the_build(macros, one_step, tmp_path, change, message):
    """A record left beside other weights (the shipped one beside one-step
    weights said 729 of 729 while they sort none) or edited."""
    loaded = nanogpt.load(one_step)
    record = dict(loaded.record)
    change(record)
    path = tmp_path / "mine.safetensors"
    nanogpt.save(loaded.params, record, path)
    with pytest.raises(PluginError) as err:
        macros(nano=path)
    assert str(err.value).startswith(f"{tmp_path / 'mine.json'}: {message}")
    assert str(err.value).endswith(": a record of other weights than mine.safetensors? Keep each record beside its weights")


def test_the_shortcuts_equal_the_full_passes(nano):
    """Run's sorted count and loss on all 729 (the KV cache from the
    prefix-tree pass on) are nanogpt.accuracy's and train.eval_loss's, on
    weights that sort some inputs and not others."""
    rng = np.random.default_rng(0)
    params = {k: v + rng.normal(0, 0.02, v.shape) * k.rsplit(".", 1)[-1].startswith("W_") for k, v in nano.params.items()}
    run = Run(nanogpt.Nano(nano.path, params, nano.record))
    assert 0 < run.sorted_count == nanogpt.accuracy(params) < 729
    assert run.loss_on_729 == pytest.approx(train.eval_loss(params), rel=1e-12)
    assert np.array_equal(run.answers, nanogpt.sort(params, nanogpt.all_inputs()))
