"""The writer's chapter (docs/writer/): a character-level GPT trained on
Shakespeare. Importing the package registers every page's functions on
`part` (shared.py): {{ writer_table(...) }}, writer_number, writer_figure;
claims.py holds the checks of its {{ claim(...) }} calls (book/chapters.py)."""
from .shared import part as writer, WriterRun
from . import chapter, live  # noqa: F401 (each registers its functions)
from .claims import WRITER_CLAIMS

__all__ = ["writer", "WriterRun", "WRITER_CLAIMS"]
