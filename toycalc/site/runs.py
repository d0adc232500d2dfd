"""The runs the macros read: the toy's worked example, once per heads
choice and temperature, and each registered model's chapter's run
(book/chapters.py), kept across `mkdocs serve`'s rebuilds while its
files are unchanged. A file that does not load, or an example that does
not run on it, stops the build with one line naming the file (the toy's
PluginError, a chapter's BookError)."""
from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from ..book.chapters import CHAPTERS
from ..book.example import Example
from ..model import models
from ..model.weights import WeightsError, load_toy
from .errors import BookError
from .weights_files import model_file, weights_files
from .writer_sampler import node_write


# One reading per build: the models the pages are computed from are the
# ones publish_weights.py exports for the browser, so a weights file
# rewritten during a build cannot give pages of one version and a JSON of
# the other. They are kept on the build's config (serve makes a new one a
# rebuild), not in this module, which serve may import anew (fresh.py).
READ = "_toycalc_read"


def read_by_this_build(config, which: str):
    """The toy Model ("toy"), or a registered model's loaded weights (its
    name), this build's macros read, or None."""
    return getattr(config, READ, {}).get(which)


def _remember(config, which: str, model) -> None:
    if not hasattr(config, READ):
        setattr(config, READ, {})
    getattr(config, READ)[which] = model


def toy_examples(config):
    """Load the toy weights (a bad file stops the build) and return
    example(heads, temperature): the worked example, run once per choice.
    The book's own example (extra.toycalc.example) is run here, so that a
    vocabulary that cannot cut its sentence, a P too short for it, a
    missing target or an overflow stops the build with the file's name."""
    path = weights_files(config).toy
    try:
        model = load_toy(path)
    except WeightsError as e:
        raise PluginError(str(e)) from None
    _remember(config, "toy", model)
    settings = dict(config["extra"].get("toycalc", {}).get("example", {}))
    examples: dict = {}

    def example(heads=None, temperature=1.0) -> Example:
        heads = model.heads if heads is None else heads
        key = (heads, float(temperature))
        if key not in examples:
            examples[key] = Example(model, heads=heads, temperature=float(temperature), **settings)
            examples[key].trace  # fail here, on the call that chose it
        return examples[key]
    try:
        for heads in example().heads_choices:
            example(heads).target_id
    except ValueError as e:
        raise PluginError(f"{path}: the book's example (extra.toycalc.example in mkdocs.yml): {e}") from None
    return example


# mkdocs serve rebuilds in one process: a chapter's run (its model's
# weights and all that is computed from them, such as nano-gpt's best head
# over the 729 inputs or the writer's samples) is kept while none of the
# files it was read from changes, so that an edit of the toy's weights or
# of a page does not compute it again, and an edited record is read and
# checked again.
RUNS: dict = {}     # model name -> (its files' versions, the loaded weights, its chapter's run)


def _file_version(path: Path) -> tuple | None:
    """What tells a file's versions apart without reading it; ctime too,
    since a copy that keeps its source's mtime (cp -p) still changes it."""
    try:
        stat = path.stat()
    except OSError:
        return None                      # the loader says what is wrong with it
    return stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size


def versions(declaration: models.Declaration, path: Path) -> tuple:
    """The version of every file a model's run is read from: its weights
    (and which file they are), its record, its data (the writer's record
    holds the size and hash of its training text, checked at every build)."""
    return (str(path.resolve()),
            *(_file_version(p) for p in (path, models.record_path(path), *declaration.data)))


def model_run(config, name: str):
    """The run of the chapter of the registered model `name` (book/chapters.py),
    on this build's weights file (weights_files.model_file). A file that
    does not load, or a run that fails on it, raises BookError in one line."""
    declaration, chapter = models.REGISTRY[name], CHAPTERS[name]
    path = model_file(declaration)
    key = versions(declaration, path)
    kept = RUNS.get(name)
    if kept is None or kept[0] != key:
        try:
            loaded = models.load(declaration, path)
            kept = (key, loaded, chapter.run(loaded, node_write))
        except ValueError as e:         # each model's loader and run name the file
            raise BookError(str(e)) from None
        RUNS[name] = kept
    _remember(config, name, kept[1])
    return kept[2]
