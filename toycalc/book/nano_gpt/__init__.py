"""The nano-gpt chapter (docs/nano-gpt/), one module per page, as pure functions of a nano_example.Run.

Importing the package registers every page's functions on `nano_gpt` (shared.py):
{{ nano_gpt_matrix(...) }}, nano_gpt_table, _formula, _number, _figure; cells.py draws the matrices."""
from .shared import nano_gpt
from . import (index, preliminaries, embedding, layer_norm, self_attention, projection, mlp,  # noqa: F401 (each registers its page)
               transformer, softmax, output, train)

__all__ = ["nano_gpt"]
