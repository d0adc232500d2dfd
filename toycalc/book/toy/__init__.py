"""The toy chapter (docs/toy/), one module per page, as pure functions of an Example.

Importing the package registers every page's functions on `toy` (shared.py):
{{ toy_table(...) }}, toy_formula, toy_number, toy_figure; home.py holds the home page's.
embedding.py registers its page's on `steps` (end_to_end.py): End to End shows them again."""
from .shared import toy
from . import (home, tokens, embedding, positions, layernorm, attention, mlp, output,  # noqa: F401 (each registers its page)
               generation, training)

__all__ = ["toy"]
