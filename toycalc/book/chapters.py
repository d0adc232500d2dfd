"""The book's side of each registered model (model/models.py), declared
once and keyed by the model's name: its chapter. A chapter is its part
(what its pages call: {{ writer_table(...) }}, ...), the run its
functions and claims read, built from the loaded weights, and its claims
({{ claim(...) }}). site/macros.py registers every chapter's macros and
claims in one loop, and site/runs.py keeps each chapter's run while its
files are unchanged; a fourth model adds its declaration, one `add` here
and its part.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..model import models
from ..model.nanogpt import NanoWeightsError
from . import claims as toy_claims
from .nano_example import Run
from .nano_gpt import nano_gpt
from .part import Part
from .writer import WRITER_CLAIMS, WriterRun, writer


@dataclass(frozen=True)
class Chapter:
    model: str                          # its model's name in models.REGISTRY
    part: Part                          # its macros: the part's prefix and kinds (writer_ + table)
    run: Callable[[Any, Callable], Any]  # run(loaded, sampler): what its functions and claims read
    claims: dict = field(default_factory=dict)   # name -> check(run, ...): None, or what holds instead
    # loaded when the build starts (every page's map and the published
    # setup read it), else on the first of its macros a build calls (slow)
    eager: bool = False


CHAPTERS: dict[str, Chapter] = {}


def add(chapter: Chapter) -> Chapter:
    """Register a chapter; a model that is not registered, a part's prefix
    or a claim's name another chapter (or the toy) has is refused."""
    if chapter.model not in models.REGISTRY:
        raise ValueError(f"chapter of {chapter.model!r}: no such model in model/models.py's registry; "
                         f"the models are: {', '.join(models.REGISTRY)}")
    for other in CHAPTERS.values():
        if other.model != chapter.model and other.part.prefix == chapter.part.prefix:
            raise ValueError(f"chapter of {chapter.model!r}: its macros' prefix {chapter.part.prefix!r} "
                             f"is {other.model}'s")
    taken = {name: "the toy" for name in toy_claims.CLAIMS} | {
        name: other.model for other in CHAPTERS.values() if other.model != chapter.model for name in other.claims}
    for name in chapter.claims:
        if name in taken:
            raise ValueError(f"claim({name!r}) is registered twice: by {taken[name]} and by {chapter.model}")
    CHAPTERS[chapter.model] = chapter
    return chapter


def remove(model: str) -> None:
    CHAPTERS.pop(model, None)


def nano_gpt_run(loaded, sampler) -> Run:
    """nano-gpt's example on its weights, its record's facts recomputed (check_record)."""
    run = Run(loaded)
    try:
        run.check_record()
    except ValueError as e:
        if isinstance(e, NanoWeightsError):   # names its record already
            raise
        raise ValueError(f"nano-gpt's example: {e}") from None
    return run


add(Chapter("nano-gpt", nano_gpt, nano_gpt_run, toy_claims.NANO_CLAIMS, eager=True))
add(Chapter("writer", writer, lambda loaded, sampler: WriterRun(loaded, sampler=sampler), WRITER_CLAIMS))
