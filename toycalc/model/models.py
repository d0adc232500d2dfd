"""The models the book trains, registered in one place: their training
recipes (trainer.Recipe) by the name `python -m toycalc train MODEL` takes."""
from __future__ import annotations

from . import train, train_writer

TRAINED = {"nano-gpt": train.RECIPE, "writer": train_writer.RECIPE}
