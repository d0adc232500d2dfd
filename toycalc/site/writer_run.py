"""The writer's run for the build: its weights file (weights_files.py:
TOYCALC_WRITER, else the shipped weights/writer.safetensors, with the record
beside it), loaded on the
first writer macro a build calls and kept while neither file changes,
its samples written by the browser's code (writer_sampler.py);
and the writer's macros (writer_table, _number, _figure, writer_claim),
which macros.py registers with `register`."""
from __future__ import annotations

from pathlib import Path

from ..book.writer import WRITER_CLAIMS, WriterRun, writer
from ..model import writer as model
from .arguments import check_arguments
from .claim_macros import refuted
from .errors import BookError, located
from .weights_files import writer_file
from .writer_sampler import node_write

RUNS: dict = {}


def _version(path: Path):
    try:
        s = path.stat()
        return s.st_mtime_ns, s.st_ctime_ns, s.st_size
    except OSError:
        return None


def writer_run() -> WriterRun:
    """The loaded writer; a file that does not load stops the build with its one line."""
    path = writer_file()
    # the training text too: the record's size and hash of it are checked at every build
    key = (str(path.resolve()), _version(path), _version(model.record_path(path)), _version(model.DATA))
    if key not in RUNS:
        try:
            run = WriterRun(model.load(path), sampler=node_write)
        except ValueError as e:
            raise BookError(str(e)) from None
        RUNS.clear()
        RUNS[key] = run
    return RUNS[key]


MACRO_NAMES = [*writer.macros(), "writer_claim"]


def register(env, registry_macro) -> None:
    """Define the writer's macros on env (registry_macro: macros.py's)."""
    for kind, registry in writer.macros().items():
        env.macro(registry_macro(env, kind, registry,
                                 lambda function, options: function(writer_run(), **options)), kind)
    def writer_claim(what, **options):
        """Nothing on the page; a false claim about the writer stops the build
        as claim's do (claim_macros.py): each named, page by page."""
        page = located(env)
        if what not in WRITER_CLAIMS:
            raise BookError(f"{page}: writer_claim({what!r}): no such claim; the claims are: "
                            f"{', '.join(WRITER_CLAIMS)}")
        function = WRITER_CLAIMS[what]
        try:
            check_arguments(function, options)
            false = function(writer_run(), **options)
        except (ValueError, TypeError) as e:
            raise BookError(f"{page}: writer_claim({what!r}): {e}") from None
        if not false:
            return ""
        # the sentence up to this call (sentence_at cuts at "{{ claim")
        return refuted(env, what, options, false, writer_file(),
                       (env.markdown or "").replace("{{ writer_claim", "{{ claim"))
    writer_claim.registry = WRITER_CLAIMS
    env.macro(writer_claim, "writer_claim")
