"""Which weights files a build reads: the one place that decides, for the
macros' runs (runs.py) and the hooks (publish_weights.py, serve.py).

    toy               TOYCALC_WEIGHTS, else extra.toycalc.weights in mkdocs.yml
                      (relative to mkdocs.yml); a build must name one
    a registered      its environment variable (nano-gpt: TOYCALC_NANOGPT, the
    model             writer: TOYCALC_WRITER), else its declaration's weights
                      (model/models.py: weights/nanogpt.safetensors, ...), with
                      its record .json beside it (`model_file`)

Every file a build reads from them (`read`, from the registry of models,
model/models.py: each one's weights, record and data): serve watches them all, and
the runs cache (runs.py) keeps a run while none of them changes.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from mkdocs.exceptions import PluginError

from ..model import models
from .environment import setting

TOY_ENV = "TOYCALC_WEIGHTS"


class WeightsFiles(NamedTuple):
    toy: Path

    @property
    def read(self) -> tuple[Path, ...]:
        """Every file a build reads: the toy's weights, and every registered
        model's (models.REGISTRY) weights file, its record and its data."""
        out = [self.toy]
        for declaration in models.REGISTRY.values():
            path = model_file(declaration)
            out += [path, models.record_path(path), *declaration.data]
        return tuple(out)


def model_file(declaration) -> Path:
    """A registered model's weights for this build: its environment variable's file, else the book's."""
    return Path(setting(declaration.env) or declaration.weights())


def weights_files(config) -> WeightsFiles:
    """The toy's weights file for this build, and through it every file a
    build reads (config: the MkDocs config, or any mapping with its "extra"
    and "config_file_path")."""
    toy = setting(TOY_ENV) or (config["extra"] or {}).get("toycalc", {}).get("weights")
    if not toy:
        raise PluginError("mkdocs.yml: extra.toycalc.weights is not set: "
                          "expected the path of the toy weights file")
    toy = Path(toy)
    if not toy.is_absolute():
        toy = Path(config["config_file_path"]).parent / toy
    return WeightsFiles(toy=toy)
