"""nano-gpt's chapter is as strict as the toy's: the sentences that say
what the model does carry claims, checked on its weights at build time (a
false one stops a strict build naming the page, the line and the
sentence; TOYCALC_CLAIMS=warn builds and marks it), and the record's facts
are checked against the weights."""
from __future__ import annotations

import io
import logging
from types import SimpleNamespace

import numpy as np
import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT, claim_calls, page_error, render_page
from toycalc.book import claims
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
    run = Run(nanogpt.Nano(nanogpt.DEFAULT_NPZ, params, record))
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
    path = tmp_path_factory.mktemp("one_step") / "nanogpt.npz"
    nanogpt.save(shipped, facts(train.as64(shipped), record), path)
    return path


def page_text(name: str) -> str:
    return (CHAPTER / f"{name}.md").read_text(encoding="utf-8")


def claim_line(name: str, what: str) -> int:
    """The line of the page's file that makes the claim."""
    return next(k for k, line in enumerate(page_text(name).splitlines(), 1) if f'claim("{what}"' in line)


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
    """The page, the line and the sentence; and what is true instead."""
    line = page_error(macros(nano=one_step), page_text(name), f"nano-gpt/{name}.md")
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


def test_a_head_that_looks_elsewhere(nano):
    """The followed head's row 5, with its attention turned away from A."""
    run = Run(nano)
    block, head = run.best_head
    assert claims.looks_at_smallest_claim(run, t=5, head="best") is None
    weights = run.block(block - 1)["weights"].copy()
    weights[head - 1, 5] = [0.1, 0.1, 0.05, 0.5, 0.15, 0.1]     # largest on j = 3, a B
    trace = dict(run.trace, blocks=[dict(b, weights=weights) if k == block - 1 else b
                                    for k, b in enumerate(run.trace["blocks"])])
    run.__dict__["trace"] = trace                              # the cached forward pass, changed
    assert claims.looks_at_smallest_claim(run, t=5, head="best") == (
        f"head {head} of block {block} puts its largest weight, 0.500, on B at j = 3, "
        "not on the smallest letter, A")


def test_a_nano_claim_takes_no_heads(macros):
    assert "claim('writes_sorted'): unknown argument 'heads'; it takes no arguments" in \
        page_error(macros(), '# N\n\nIt sorts{{ claim("writes_sorted", heads=2) }}.\n')


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
    path = tmp_path / "mine.npz"
    nanogpt.save(loaded.params, record, path)
    with pytest.raises(PluginError) as err:
        macros(nano=path)
    assert str(err.value).startswith(f"{tmp_path / 'mine.json'}: {message}")
    assert str(err.value).endswith(": a record of other weights than mine.npz? Keep each record beside its weights")


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
