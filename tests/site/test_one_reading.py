"""One reading per build: what the browser gets (the exported weights) is
what the pages were computed from, even when the weights file is
rewritten between the macros' reading and the export."""
import json

import yaml
from mkdocs.config import load_config

from toycalc.model import models, nanogpt
from toycalc.model.weights import DEFAULT_TOY
from toycalc.site import publish_weights
from toycalc.site.export import (NANO_URI, NANO_WEIGHTS_URI, WEIGHTS_URI, nano_setup_json, nano_weights_bytes,
                                 weights_json)

from conftest import ROOT, altered_nano, altered_toy


def published(config) -> dict:
    """What the build's hook would publish: the toy's JSON, nano-gpt's setup and weights file."""
    nano = publish_weights.model_read(config, models.NANO_GPT)
    return {WEIGHTS_URI: json.loads(weights_json(publish_weights.toy_model(config))),
            NANO_URI: json.loads(nano_setup_json(nano)), NANO_WEIGHTS_URI: nano_weights_bytes(nano)}


def test_the_export_is_the_reading_the_pages_used(macros, mkdocs_config, tmp_path, nano):
    toy = tmp_path / "toy.yaml"
    toy.write_text(DEFAULT_TOY.read_text(encoding="utf-8"), encoding="utf-8")
    nano_path = tmp_path / "nano.safetensors"
    nanogpt.save({k: v.astype("float32") for k, v in nano.params.items()}, nano.record, nano_path)
    env = macros(toy, nano_path)                          # the pages' reading
    wall = env.macros["number"]("p", token="␣wall")
    before = published(mkdocs_config)
    # the files change while the build goes on
    toy.write_text(yaml.safe_dump(altered_toy(), allow_unicode=True), encoding="utf-8")
    altered_nano(nano, nano_path)
    after = published(mkdocs_config)
    assert after == before
    assert after[WEIGHTS_URI]["E"][1] != altered_toy()["E"][1]
    # a new build (a new config) reads the new files, and says so in its numbers
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert published(config)[WEIGHTS_URI]["E"][1] == altered_toy()["E"][1]
    assert macros(toy, nano_path).macros["number"]("p", token="␣wall") != wall
