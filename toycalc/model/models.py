"""The models the book computes with, each declared once and registered
here: its configuration, its weights and record files, the environment
variable that names others, the pages it feeds, how its record is
checked and recomputed, and how it trains (trainer.Recipe).

`python -m toycalc check PATH.safetensors` finds the model by its record's
config, `python -m toycalc train NAME` trains a registered model through
the one loop, and `load` reads any declared model's files with the one
weights loader (safetensors_file) and the one record checker
(nanogpt_record's checkers). nano-gpt and the writer keep loaders of
their own (nanogpt.load, writer.load) for their messages and their
record's recomputations, built from the same pieces.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import gpt, nanogpt, nanogpt_record as rec, safetensors_file, sizes, train, train_writer, trainer, writer
from .files import not_regular


class ModelError(ValueError):
    """A declared model's file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Declaration:
    """One model, declared: everything the book's machinery needs of it."""

    name: str                                   # "writer": train NAME, and the registry's key
    title: str                                  # "the writer": in messages
    config: gpt.Config
    weights: Callable[[], Path]                 # the book's weights file (looked up when needed)
    env: str                                    # the environment variable naming other weights
    pages: tuple = ()                           # the docs/ pages it feeds
    data: tuple = ()                            # the files its training reads and its record names (a text)
    schema: dict = field(default_factory=dict)  # its record: field -> a nanogpt_record checker
    required: tuple = ()                        # the record's fields that must be there
    recompute: Callable[[Any], None] | None = None   # what a build recomputes of the record (raises the model's error)
    recipe: trainer.Recipe | None = None        # how it trains
    load: Callable[[Path], Any] | None = None   # its loader, when not the generic `load`
    max_record_bytes: int = 400_000
    describe: Callable[[Any], str] | None = None     # what `check` says of loaded weights, after their size
    published: str = ""                         # where the build publishes its weights for the browser


@dataclass(frozen=True)
class Loaded:
    """A declared model's weights (float64) and record, as `load` reads them."""

    path: Path
    params: dict
    record: dict
    cfg: gpt.Config


REGISTRY: dict[str, Declaration] = {}


def register(declaration: Declaration) -> Declaration:
    REGISTRY[declaration.name] = declaration
    return declaration


def unregister(name: str) -> None:
    REGISTRY.pop(name, None)


def record_path(weights: Path) -> Path:
    return Path(weights).with_suffix(".json")


def load(declaration: Declaration, path: str | Path | None = None):
    """The model's weights and record, read as the book reads every model's:
    the weights by the one loader (safetensors_file.read), the record by
    the one declared checker (its schema), float16's range where it says
    float16, then what the declaration recomputes. A problem raises
    ModelError (or the model's own error) in one line naming the file."""
    if declaration.load is not None:
        return declaration.load(Path(path) if path else declaration.weights())
    path = Path(path) if path else declaration.weights()
    params = safetensors_file.read(path, sizes.param_shapes(declaration.config), ModelError,
                                   declaration.title, f"python -m toycalc train {declaration.name}")
    record_file = record_path(path)
    kind = not_regular(record_file)
    if kind or not record_file.exists():
        raise ModelError(f"{record_file}: the record of the weights {path.name} is {kind or 'missing'}; "
                         f"python -m toycalc train {declaration.name} writes both files")
    record = nanogpt.record_json(record_file, declaration.max_record_bytes, ModelError)
    try:
        if not isinstance(record, dict):
            raise rec.RecordError("", "expected a JSON object (the record of the weights)")
        rec.fields(declaration.schema, declaration.required)("", record)
    except rec.RecordError as e:
        raise ModelError(f"{record_file}: {e}") from None
    safetensors_file.check_half(path, params, record, ModelError)
    loaded = Loaded(path=path, params=params, record=record, cfg=declaration.config)
    if declaration.recompute is not None:
        declaration.recompute(loaded)
    return loaded


def save(declaration: Declaration, params: dict, record: dict, path: Path) -> None:
    """A declared model's weights (float16 safetensors) and record, written together atomically."""
    from .files import replace_together
    text = json.dumps(record, indent=1, allow_nan=False) + "\n"
    replace_together([(path, lambda f: safetensors_file.write(f, params, sizes.param_shapes(declaration.config))),
                      (record_path(path), lambda f: f.write(text.encode("utf-8")))])


def which(record) -> Declaration | None:
    """The registered model whose config a record states, or None."""
    config = record.get("config") if isinstance(record, dict) else None
    for declaration in REGISTRY.values():
        if config == {k: getattr(declaration.config, k) for k in declaration.config.__dataclass_fields__}:
            return declaration
    return None


def others(declaration: Declaration) -> list:
    return [d for d in REGISTRY.values() if d is not declaration]


NANO_GPT = register(Declaration(
    name="nano-gpt", title="nano-gpt", config=nanogpt.CONFIG, weights=lambda: nanogpt.DEFAULT_WEIGHTS,
    env="TOYCALC_NANOGPT", pages=("nano-gpt/",), published="javascripts/nanogpt.safetensors", schema=rec.RECORD, required=rec.REQUIRED,
    recipe=train.RECIPE, load=lambda path: nanogpt.load(path), max_record_bytes=nanogpt.MAX_RECORD_BYTES,
    describe=lambda m: f"sorts {nanogpt.accuracy(m.params)} of {len(nanogpt.all_inputs())} inputs"))

WRITER = register(Declaration(
    name="writer", title="the writer", config=writer.CONFIG, weights=lambda: writer.DEFAULT_WEIGHTS,
    env="TOYCALC_WRITER", pages=("writer/",), data=(writer.DATA,), published="javascripts/writer.safetensors", schema=writer.RECORD, required=writer.RECORD_FIELDS,
    recompute=writer.recompute, recipe=train_writer.RECIPE, load=lambda path: writer.load(path),
    max_record_bytes=writer.MAX_RECORD_BYTES,
    describe=lambda m: (f"{len(m.vocab)} characters, held-out loss {m.record['held_out_loss']:.4f}, "
                        "its record recomputed")))


def trained() -> dict:
    """The names `python -m toycalc train NAME` takes: every registered model that trains."""
    return {name: d.recipe for name, d in REGISTRY.items() if d.recipe is not None}
