"""The TOYCALC_* environment variables (toycalc/site/environment.py): each
read in one place, by one rule: unset or empty, it means its default
(#65, item 5: TOYCALC_CLAIMS='' was refused while an empty TOYCALC_NANOGPT
meant the default)."""
from __future__ import annotations

import re

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.config import load_config

from conftest import ROOT
from toycalc.model import models, nanogpt, writer
from toycalc.site import environment, errors, weights_files

SITE = ROOT / "toycalc" / "site"
CONFIG = {"extra": {"toycalc": {"weights": "toycalc/weights/toy.yaml"}}, "config_file_path": str(ROOT / "mkdocs.yml")}


def test_every_variable_the_book_names_is_listed_and_read_in_one_place():
    named = set()
    for path in [*sorted((ROOT / "toycalc").rglob("*.py")), ROOT / "mkdocs.yml"]:
        named |= set(re.findall(r"\bTOYCALC_[A-Z_]+\b", path.read_text(encoding="utf-8")))
    assert named == set(environment.VARIABLES)
    # no other module reads the environment (blas.py sets BLAS's own variable)
    reading = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "toycalc").rglob("*.py")
                     if re.search(r"os\.environ|getenv", p.read_text(encoding="utf-8")))
    assert reading == ["toycalc/model/blas.py", "toycalc/site/environment.py"]


@pytest.mark.parametrize("value, mode", [(None, "strict"), ("", "strict"), ("strict", "strict"), ("warn", "warn")])
def test_claims_empty_means_strict(monkeypatch, value, mode):
    if value is None:
        monkeypatch.delenv("TOYCALC_CLAIMS", raising=False)
    else:
        monkeypatch.setenv("TOYCALC_CLAIMS", value)
    assert errors.claims_mode() == mode


def test_claims_of_another_word_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("TOYCALC_CLAIMS", "loose")
    with pytest.raises(PluginError, match=r"^TOYCALC_CLAIMS='loose': expected strict \(the default"):
        errors.claims_mode()


def test_empty_weights_variables_mean_the_shipped_files(monkeypatch):
    for name in ("TOYCALC_WEIGHTS", "TOYCALC_NANOGPT", "TOYCALC_WRITER"):
        monkeypatch.setenv(name, "")
    assert weights_files.weights_files(CONFIG).toy == ROOT / "toycalc/weights/toy.yaml"
    assert weights_files.model_file(models.NANO_GPT) == nanogpt.DEFAULT_WEIGHTS
    assert weights_files.model_file(models.WRITER) == writer.DEFAULT_WEIGHTS


def test_an_empty_edit_branch_means_main(monkeypatch):
    import importlib.util
    spec = importlib.util.spec_from_file_location("pages_hook", SITE / "pages.py")
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    monkeypatch.setenv("TOYCALC_EDIT_BRANCH", "")
    config = {"repo_url": "https://github.com/someone/book", "config_file_path": str(ROOT / "mkdocs.yml")}
    assert pages.on_config(config)["edit_uri"] == "edit/main/docs/"


def test_empty_addresses_mean_none(monkeypatch):
    """mkdocs.yml reads them (!ENV [NAME, null]): empty, YAML's empty scalar, null."""
    monkeypatch.setenv("TOYCALC_SITE_URL", "")
    monkeypatch.setenv("TOYCALC_REPO_URL", "")
    config = load_config(config_file=str(ROOT / "mkdocs.yml"))
    assert config.site_url is None and config.repo_url is None
