"""MkDocs hook: publish the writer's weights (book/writer/live.py's
WEIGHTS_URI) from the file the macros read (writer_run.py), for the page
where the reader types and it writes."""
from __future__ import annotations

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from toycalc.book.writer.live import WEIGHTS_URI
from toycalc.site.errors import BookError
from toycalc.site.writer_run import writer_run


def on_files(files, config):
    try:
        run = writer_run()
    except BookError as e:
        raise PluginError(str(e)) from None
    files.append(File.generated(config, WEIGHTS_URI, content=run.published))
    return files
