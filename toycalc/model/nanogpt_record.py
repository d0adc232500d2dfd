"""The records' one declared checker, and the record beside nano-gpt's
weights (nanogpt.json): what each field holds, checked as strictly as the
weights are. The writer's record is declared with the same checkers
(writer.RECORD), so both are held to one set of rules: a number is never
a boolean, every number is finite, a field nobody declared is refused.

`python -m toycalc train` writes the record, and so does the page Train
it yourself (train_worker.js, which adds the fields marked "browser");
the chapter prints its numbers and the browser reads it as JSON. So each
field has a type and a range, every number is finite (JSON has no NaN or
Infinity; Python's json module reads and writes them all the same), and
a field the book does not know is refused as a typo would be. A mistake
raises RecordError naming the field; nanogpt.load adds the file.
"""
from __future__ import annotations

import math
import re

from . import sizes
from .configs import NANO_GPT

MAX_STEPS = 5000            # steps of a run: the record keeps the loss of each
MAX_SEED = 2 ** 32 - 1      # the seeds the page Train it yourself takes, too
MAX_BATCH = 100_000
MAX_TEXT = 500              # characters of a text field (a browser's user agent)
INPUTS = 729                # 3^6: every input of six letters A, B, C
DTYPES = ("float16", "float32", "float64")


class RecordError(ValueError):
    """A field of the record that cannot be used: .field names it (with
    the entry, as in "optimizer.lr" or "loss_curve", step 17)."""

    def __init__(self, field: str, what: str):
        super().__init__(f"field '{field}': {what}" if field else what)
        self.field = field


def _found(value) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__.replace(
        "dict", "an object").replace("list", "a list")
    return text if len(text) <= 40 else text[:37] + "..."


def text(field, value):
    if not isinstance(value, str):
        raise RecordError(field, f"expected text, found {_found(value)}")
    if len(value) > MAX_TEXT:
        raise RecordError(field, f"{len(value):,} characters, more than the limit of {MAX_TEXT}")


def whole(low, high):
    def check(field, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError(field, f"expected a whole number from {low:,} to {high:,}, found {_found(value)}")
        if not low <= value <= high:
            raise RecordError(field, f"expected a whole number from {low:,} to {high:,}, found {value:,}")
    return check


def number(low=0.0, high=None, below=None):
    """A finite number in [low, high] (or [low, below))."""
    span = f"from {low:g} to {high:g}" if high is not None else f"from {low:g} to below {below:g}" \
        if below is not None else f"of at least {low:g}"

    def check(field, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RecordError(field, f"expected a number {span}, found {_found(value)}")
        if not math.isfinite(value):
            raise RecordError(field, f"expected a finite number {span}, found {_found(value)}")
        if value < low or (high is not None and value > high) or (below is not None and value >= below):
            raise RecordError(field, f"expected a number {span}, found {_found(value)}")
    return check


def one_of(*choices):
    def check(field, value):
        if value not in choices or not isinstance(value, str):
            raise RecordError(field, f"expected one of {', '.join(choices)}, found {_found(value)}")
    return check


def fields(schema: dict, required: tuple = ()):
    """An object whose fields follow schema (field -> check); those in
    required must be there, the others may be, no other may."""
    def check(field, value):
        if not isinstance(value, dict):
            raise RecordError(field, f"expected an object with the fields {', '.join(schema)}, "
                              f"found {_found(value)}")
        at = f"{field}." if field else ""
        for key in value:
            if key not in schema:
                raise RecordError(f"{at}{key}"[:60], f"unknown field; the fields are {', '.join(schema)}")
        for key in required:
            if key not in value:
                raise RecordError(f"{at}{key}", "missing")
        for key, item in value.items():
            schema[key](f"{at}{key}", item)
    return check


def pair(check_item, second=None):
    """Two items: each checked by check_item, or the second by `second`."""
    def check(field, value):
        if not isinstance(value, list) or len(value) != 2:
            raise RecordError(field, f"expected a list of two numbers, found {_found(value)}")
        for k, item in enumerate(value):
            (second if k == 1 and second else check_item)(f"{field}[{k}]", item)
    return check


def loss_list(max_steps: int):
    """One loss per step, each a finite number of at least 0 (never a boolean)."""
    def check(field, value):
        if not isinstance(value, list):
            raise RecordError(field, f"expected a list of numbers, one per step, found {_found(value)}")
        if len(value) > max_steps:
            raise RecordError(field, f"{len(value):,} losses, more than the limit of {max_steps:,} steps")
        loss = number(0)
        for step, item in enumerate(value, 1):
            try:
                loss(field, item)
            except RecordError as e:
                raise RecordError(field, f"step {step}: {str(e).split(': ', 1)[1]}") from None
    return check


def list_of(check_item, most: int):
    """A list of at most `most` items, each checked; a mistake names its entry."""
    def check(field, value):
        if not isinstance(value, list) or not 1 <= len(value) <= most:
            raise RecordError(field, f"expected a list of 1 to {most:,} entries, found {_found(value)}")
        for k, item in enumerate(value):
            check_item(f"{field}[{k}]", item)
    return check


def hex_digest(field, value):
    if not (isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value)):
        raise RecordError(field, f"expected a SHA-256 in 64 hexadecimal digits, found {_found(value)}")


losses = loss_list(MAX_STEPS)


# what final_loss is the mean of, as train and the browser write it
FINAL_LOSS_MEANS = re.compile(r"mean training loss of the last (\d+) steps?")


def final_loss_means(field, value):
    text(field, value)
    last = FINAL_LOSS_MEANS.fullmatch(value)
    if not last or int(last[1]) < 1:
        raise RecordError(field, f"expected 'mean training loss of the last N steps', found {_found(value)}")


def config_of(cfg, whose: str):
    """The model's shape: `cfg`, whose arrays the loader has checked."""
    def check(field, value):
        names = cfg.__dataclass_fields__
        fields({name: lambda *_: None for name in names}, tuple(names))(field, value)
        for name in names:
            expected = getattr(cfg, name)
            if value[name] != expected or isinstance(value[name], bool) != isinstance(expected, bool):
                raise RecordError(f"{field}.{name}", f"expected {expected!r}, {whose}, found {_found(value[name])}")
    return check


config = config_of(NANO_GPT, "nano-gpt's")


def parameters(field, value):
    total = sizes.count_params(NANO_GPT)["total"]
    whole(total, total)(field, value)


def made_with(field, value):
    """Who trained the weights: numpy's or the browser's versions, threads, ..."""
    if not isinstance(value, dict):
        raise RecordError(field, f"expected an object, found {_found(value)}")
    for key, item in value.items():
        if isinstance(item, str):
            text(f"{field}.{key}"[:60], item)
        else:
            number(0)(f"{field}.{key}"[:60], item)


RECORD = {
    "what": text,
    "config": config,
    "parameters": parameters,
    "seed": whole(0, MAX_SEED),
    "batch": whole(1, MAX_BATCH),
    "optimizer": fields({"name": text, "lr": number(0), "betas": pair(number(0, below=1)),
                         "eps": number(0), "weight_decay": number(0)},
                        ("name", "lr", "betas", "eps", "weight_decay")),
    "dtype": one_of(*DTYPES),
    "stored_as": one_of(*DTYPES),
    "weights_between_steps": one_of(*DTYPES),     # browser
    "random_numbers": text,                        # browser
    "steps": whole(1, MAX_STEPS),
    "final_loss": number(0),
    "final_loss_means": final_loss_means,
    "loss_on_729": number(0),
    "loss_curve": losses,
    "accuracy_on_729": whole(0, INPUTS),
    "seconds": number(0),
    "made_with": made_with,
}

# What the chapter prints, so every record holds it; loss_curve, seconds
# and made_with only change what the pages say (a record from elsewhere).
REQUIRED = ("what", "config", "parameters", "seed", "batch", "optimizer", "dtype", "stored_as",
            "steps", "final_loss", "final_loss_means", "loss_on_729", "accuracy_on_729")


def check(record) -> None:
    """Raise RecordError for the first field of record that breaks the schema."""
    if not isinstance(record, dict):
        raise RecordError("", f"expected a JSON object with the fields {', '.join(REQUIRED)}, "
                          f"found {_found(record)}")
    fields(RECORD, REQUIRED)("", record)
    last = int(FINAL_LOSS_MEANS.fullmatch(record["final_loss_means"])[1])
    if last > record["steps"]:
        raise RecordError("final_loss_means", f"the last {last:,} steps, of {record['steps']:,} (steps)")
    curve = record.get("loss_curve")
    if curve is not None and len(curve) != record["steps"]:
        raise RecordError("loss_curve", f"expected one loss per step, {record['steps']:,} (steps), "
                          f"found {len(curve):,}")
