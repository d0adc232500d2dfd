"""nano-gpt's record (nanogpt.json) is read as strictly as its weights:
each field has a type and a range, every number is finite, and a mistake
is one line naming the record file and the field; a missing record is
said to be missing."""
from __future__ import annotations

import json

import pytest

from toycalc.model import nanogpt
from toycalc.site.errors import PluginError

SHIPPED = json.loads(nanogpt.record_path(nanogpt.DEFAULT_WEIGHTS).read_text(encoding="utf-8"))


def weights_with(tmp_path, record_text: str | None):
    """The shipped weights, beside a record of this text (None: no record)."""
    path = tmp_path / "w.safetensors"
    path.write_bytes(nanogpt.DEFAULT_WEIGHTS.read_bytes())
    if record_text is not None:
        (tmp_path / "w.json").write_text(record_text, encoding="utf-8")
    return path


def refused(tmp_path, record_text) -> str:
    """The one line load gives, after the record's path."""
    path = weights_with(tmp_path, record_text)
    with pytest.raises(nanogpt.NanoWeightsError) as err:
        nanogpt.load(path)
    message, where = str(err.value), f"{tmp_path / 'w.json'}: "
    assert message.startswith(where) and "\n" not in message and len(message) < 400, message
    return message[len(where):]


def changed(**fields) -> str:
    """The shipped record with these fields (None: left out), as JSON."""
    record = {k: v for k, v in dict(SHIPPED, **fields).items() if v is not None}
    return json.dumps(record, indent=2)


FINITE = "expected a finite number of at least 0, found"
SEED = "expected a whole number from 0 to 4,294,967,295, found"


@pytest.mark.parametrize("text, message", [
    # numbers JSON lacks, as Python's json writes them (and as train wrote them after --max-steps 0)
    (changed(final_loss=1.0).replace('"final_loss": 1.0', '"final_loss": NaN'), f"field 'final_loss': {FINITE} NaN"),
    (changed(loss_on_729=1.0).replace('"loss_on_729": 1.0', '"loss_on_729": Infinity'),
     f"field 'loss_on_729': {FINITE} Infinity"),
    (changed(loss_on_729=1.0).replace('"loss_on_729": 1.0', '"loss_on_729": 1e400'),
     f"field 'loss_on_729': {FINITE} Infinity"),
    (changed(loss_curve=[0.5, 0.4, -1.0] + SHIPPED["loss_curve"][3:]),
     "field 'loss_curve': step 3: expected a number of at least 0, found -1"),
    (changed(seconds=1.0).replace('"seconds": 1.0', '"seconds": -Infinity'), f"field 'seconds': {FINITE} -Infinity"),
    (changed(made_with=dict(SHIPPED["made_with"], threads=1.5)).replace('"threads": 1.5', '"threads": NaN'),
     f"field 'made_with.threads': {FINITE} NaN"),
    # wrong types
    ("[1, 2, 3]", "expected a JSON object with the fields what, config, parameters"),
    ('"weights"', "found 'weights'"),
    (changed(seed="1337"), f"field 'seed': {SEED} '1337'"),
    (changed(seed=1337.0), f"field 'seed': {SEED} 1337.0"),
    (changed(seed=True), f"field 'seed': {SEED} True"),
    (changed(seed=-1), f"field 'seed': {SEED} -1"),
    (changed(optimizer=["AdamW"]), "field 'optimizer': expected an object with the fields name, lr, betas"),
    (changed(optimizer=dict(SHIPPED["optimizer"], lr="fast")), "field 'optimizer.lr': expected a number of at least 0, found 'fast'"),
    (changed(optimizer=dict(SHIPPED["optimizer"], betas=[0.9])), "field 'optimizer.betas': expected a list of two numbers"),
    (changed(optimizer=dict(SHIPPED["optimizer"], betas=[0.9, 1.5])),
     "field 'optimizer.betas[1]': expected a number from 0 to below 1, found 1.5"),
    (changed(dtype="float8"), "field 'dtype': expected one of float16, float32, float64, found 'float8'"),
    (changed(what=["x"]), "field 'what': expected text, found a list"),
    (changed(loss_curve={"1": 0.5}), "field 'loss_curve': expected a list of numbers, one per step, found an object"),
    (changed(made_with=["numpy"]), "field 'made_with': expected an object, found a list"),
    # ranges, and what the record says of itself
    (changed(accuracy_on_729=730), "field 'accuracy_on_729': expected a whole number from 0 to 729, found 730"),
    (changed(steps=0), "field 'steps': expected a whole number from 1 to 5,000, found 0"),
    (changed(steps=199), "field 'loss_curve': expected one loss per step, 199 (steps), found 200"),
    (changed(config=dict(SHIPPED["config"], d=64)), "field 'config.d': expected 48, nano-gpt's, found 64"),
    (changed(config=dict(SHIPPED["config"], bias=1)), "field 'config.bias': expected True, nano-gpt's, found 1"),
    (changed(parameters=1000), "field 'parameters': expected a whole number from 85,728 to 85,728, found 1,000"),
    (changed(final_loss_means="the loss"), "field 'final_loss_means': expected 'mean training loss of the last N steps', found 'the loss'"),
    (changed(final_loss_means="mean training loss of the last 201 steps"),
     "field 'final_loss_means': the last 201 steps, of 200 (steps)"),
    (changed(what="x" * 501), "field 'what': 501 characters, more than the limit of 500"),
    # fields
    (changed(sead=1), "field 'sead': unknown field; the fields are what, config, parameters, seed,"),
    (changed(accuracy_on_729=None), "field 'accuracy_on_729': missing"),
    (changed(optimizer={k: v for k, v in SHIPPED["optimizer"].items() if k != "eps"}), "field 'optimizer.eps': missing"),
])
def test_a_bad_record_is_one_line_naming_the_file_and_the_field(tmp_path, text, message):
    assert message in refused(tmp_path, text)


def test_a_missing_record_is_said_to_be_missing(tmp_path):
    assert refused(tmp_path, None) == ("the record of the weights w.safetensors is missing; the chapter prints its facts. "
                                       "python -m toycalc train writes both files, and so does the page Train "
                                       "it yourself: keep them in one folder")


def test_a_record_that_is_a_folder(tmp_path):
    (tmp_path / "w.json").mkdir()
    path = weights_with(tmp_path, None)
    with pytest.raises(nanogpt.NanoWeightsError, match=r"w\.json: the record is a directory; expected a regular file$"):
        nanogpt.load(path)


def test_the_browsers_record_is_read(tmp_path):
    """The fields only the page Train it yourself writes (train_worker.js's record), with its numbers as
    JavaScript writes them (10000 for 10000.0)."""
    record = dict(SHIPPED, weights_between_steps="float32", random_numbers="the browser's seeded generator",
                  config=dict(SHIPPED["config"], rope_base=10000),
                  made_with={"browser": "Mozilla/5.0 (X11; Linux x86_64) Chrome", "threads": 2, "ms_per_step": 90.0})
    assert nanogpt.load(weights_with(tmp_path, json.dumps(record))).record == record


def test_the_shipped_record_holds(nano):
    assert nano.record == SHIPPED


def test_a_bad_record_stops_the_build_naming_it(tmp_path, macros):
    """Wrong types once failed inside a macro ("'list' object has no attribute 'get'")."""
    path = weights_with(tmp_path, changed(optimizer=[1, 2]))
    with pytest.raises(PluginError) as err:
        macros(nano=path)
    assert str(err.value).startswith(f"{tmp_path / 'w.json'}: field 'optimizer': expected an object")
