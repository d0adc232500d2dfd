"""The runs the macros read: the toy's worked example, once per heads
choice and temperature, and nano-gpt's, kept across `mkdocs serve`'s
rebuilds while its weights file and record are unchanged. A file that
does not load, or an example that does not run on it, stops the build
with one line naming the file (PluginError)."""
from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from ..book.example import Example
from ..book.nano_example import Run
from ..model.nanogpt import NanoWeightsError, load as load_nano
from ..model.weights import WeightsError, load_toy
from .weights_files import weights_files


# One reading per build: the models the pages are computed from are the
# ones publish_weights.py exports for the browser, so a weights file
# rewritten during a build cannot give pages of one version and a JSON of
# the other. They are kept on the build's config (serve makes a new one a
# rebuild), not in this module, which serve may import anew (fresh.py).
READ = "_toycalc_read"


def read_by_this_build(config, which: str):
    """The toy Model or nano-gpt Nano this build's macros loaded, or None."""
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


# mkdocs serve rebuilds in one process: nano-gpt's run (its weights and
# all that is computed from them, such as the best head over the 729
# inputs) is kept while neither its weights file nor its record changes,
# so that an edit of the toy's weights or of a page does not compute it
# again, and an edited record is read and checked again (check_record).
NANO_RUNS: dict = {}


def _file_version(path: Path) -> tuple:
    """What tells a file's versions apart without reading it; ctime too,
    since a copy that keeps its source's mtime (cp -p) still changes it."""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size


def nano_run(config) -> Run:
    files = weights_files(config)
    path = files.nano
    try:
        key = (str(path.resolve()), _file_version(path), _file_version(files.nano_record))
    except OSError:
        key = None                       # load_nano says what is wrong with either file
    if key is not None and key in NANO_RUNS:
        _remember(config, "nano", NANO_RUNS[key].model)
        return NANO_RUNS[key]
    try:
        run = Run(load_nano(path))
        run.check_record()
    except ValueError as e:   # NanoWeightsError names the file; a failing run needs it too
        message = str(e)
        raise PluginError(message if isinstance(e, NanoWeightsError) else
                          f"nano-gpt's example: {message}") from None
    NANO_RUNS.clear()
    if key is not None:
        NANO_RUNS[key] = run
    _remember(config, "nano", run.model)
    return run
