"""A fourth model through its declaration alone (models.Declaration): a
tiny GPT that learns to copy its input, declared and registered in this
test with nothing else: `python -m toycalc train tiny` trains it a few
steps through the one loop (trainer.py), the one loader reads what it
wrote (models.load), `python -m toycalc check` finds and checks it by its
record, and the record check refuses a record that lies about what the
weights do. Its chapter is one entry of the book's registry
(book/chapters.py) and its part: a page calls its macro and its claim
with no edit of toycalc/site/."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import page_error, render_page
from toycalc import __main__ as cli
from toycalc.book import chapters
from toycalc.book.part import Part
from toycalc.model import gpt, models, nanogpt_record as rec, sizes, trainer

CONFIG = gpt.Config(vocab_size=5, d=8, n_ctx=4, n_blocks=1, n_heads=2, width=16, bias=True,
                    ln_weights=True, tied=False)
FIXED = np.random.default_rng(7).integers(0, 5, (16, 4))      # the batch its record's loss is measured on


def loss_on_fixed(params) -> float:
    """The loss of copying the fixed batch (each position predicts its own id)."""
    p = gpt.forward({k: np.asarray(v, np.float64) for k, v in params.items()}, CONFIG, FIXED)["p"]
    return gpt.cross_entropy(p, FIXED)


def recompute(loaded) -> None:
    got = round(loss_on_fixed(loaded.params), 8)
    if abs(loaded.record["loss_on_fixed"] - got) > 1e-6:
        raise models.ModelError(f"{models.record_path(loaded.path)}: field 'loss_on_fixed': the record says "
                                f"{loaded.record['loss_on_fixed']}; recomputed: {got}")


@pytest.fixture
def tiny(tmp_path):
    book = tmp_path / "book" / "tiny.safetensors"
    book.parent.mkdir()
    declaration = None

    def record(r):
        return {"what": "tiny, a copying GPT", "config": {k: getattr(CONFIG, k) for k in CONFIG.__dataclass_fields__},
                "seed": r.seed, "steps": r.step, "loss_curve": [float(v) for v in r.losses],
                "stored_as": "float16",
                "loss_on_fixed": round(loss_on_fixed({k: v.astype(np.float64) for k, v in r.shipped().items()}), 8)}

    recipe = trainer.Recipe(
        model="tiny", what="tiny", command="python -m toycalc train tiny", config=CONFIG,
        book_weights=lambda: book, record_path=models.record_path,
        save=lambda params, record_, path: models.save(declaration, params, record_, path),
        batches=lambda rng: iter(lambda: (ids := rng.integers(0, 5, (8, 4)), ids), None),
        steps=3, max_steps=10, steps_option="--steps", every=1,
        check=lambda r: (f"step {r.step}  loss {r.losses[-1]:.4f}", False), record=record,
        accepts=lambda _: None, summary=lambda record_: f"{record_['steps']} steps", hint="")
    declaration = models.register(models.Declaration(
        name="tiny", title="tiny", config=CONFIG, weights=lambda: book, env="TOYCALC_TINY",
        published="javascripts/tiny.safetensors",
        schema={"what": rec.text, "config": rec.config_of(CONFIG, "tiny's"), "seed": rec.whole(0, rec.MAX_SEED),
                "steps": rec.whole(1, 10), "loss_curve": rec.loss_list(10), "stored_as": rec.one_of(*rec.DTYPES),
                "loss_on_fixed": rec.number(0)},
        required=("what", "config", "steps", "loss_curve", "loss_on_fixed"),
        recompute=recompute, recipe=recipe))
    yield declaration, tmp_path
    models.unregister("tiny")


def test_a_fourth_model_trains_loads_and_is_checked_through_its_declaration(tiny, capsys):
    declaration, folder = tiny
    out = folder / "mine.safetensors"
    assert cli.main(["train", "tiny", "--out", str(out), "--steps", "3"]) == 0     # the one loop
    printed = capsys.readouterr().out
    assert "step 3" in printed and f"wrote {out} and {folder / 'mine.json'}" in printed
    loaded = models.load(declaration, out)                                           # the one loader
    assert sorted(loaded.params) == sorted(sizes.param_shapes(CONFIG))
    assert loaded.record["steps"] == 3 == len(loaded.record["loss_curve"])
    assert cli.main(["check", str(out)]) == 0                                        # check finds it
    assert capsys.readouterr().out == f"{out}: tiny, {sizes.count_params(CONFIG)['total']:,} parameters, its record checked\n"
    # the record check: a lie about what the weights do, a boolean for a number
    record = json.loads((folder / "mine.json").read_text())
    (folder / "mine.json").write_text(json.dumps(dict(record, loss_on_fixed=0.5)))
    with pytest.raises(models.ModelError) as lie:
        models.load(declaration, out)
    assert str(lie.value) == (f"{folder / 'mine.json'}: field 'loss_on_fixed': the record says 0.5; "
                              f"recomputed: {record['loss_on_fixed']}")
    (folder / "mine.json").write_text(json.dumps(dict(record, steps=True)))
    assert cli.main(["check", str(out)]) == 1
    assert capsys.readouterr().err == (f"error: {folder / 'mine.json'}: field 'steps': expected a whole number "
                                       "from 1 to 10, found True\n")


def test_the_trainer_keeps_the_fourth_models_files_its_own(tiny, capsys):
    declaration, folder = tiny
    notes = folder / "notes.json"
    notes.write_text("a keeper's\n")
    with pytest.raises(SystemExit):
        cli.main(["train", "tiny", "--out", str(folder / "notes.safetensors")])
    assert "is there and is not tiny's record" in capsys.readouterr().err
    assert notes.read_text() == "a keeper's\n"
    assert "tiny" in models.trained() and models.others(declaration) == [models.NANO_GPT, models.WRITER]


def test_serve_watches_the_fourth_models_files(tiny, monkeypatch, mkdocs_config):
    """The files a build reads come from the registry: the fourth model's
    weights (its environment variable's), its record, and the writer's text."""
    from toycalc.site.weights_files import weights_files
    declaration, folder = tiny
    monkeypatch.setenv("TOYCALC_TINY", str(folder / "other.safetensors"))
    read = weights_files(mkdocs_config).read
    assert folder / "other.safetensors" in read and folder / "other.json" in read
    assert models.WRITER.data[0] in read


def test_the_build_publishes_the_fourth_models_weights(tiny, monkeypatch, mkdocs_config, capsys):
    """publish_weights's on_files runs over the registry: the fourth model's
    weights, from its environment variable's file, go where its declaration says."""
    from safetensors.numpy import load
    from toycalc.site import publish_weights
    declaration, folder = tiny
    out = folder / "mine.safetensors"
    assert cli.main(["train", "tiny", "--out", str(out), "--steps", "2"]) == 0
    monkeypatch.setenv("TOYCALC_TINY", str(out))
    published = dict(publish_weights.published_weights(mkdocs_config))
    assert {"javascripts/nanogpt.safetensors", "javascripts/writer.safetensors"} < set(published)
    arrays = load(published["javascripts/tiny.safetensors"])
    assert all(np.array_equal(arrays[k].astype(np.float64), v) for k, v in models.load(declaration, out).params.items())


# ---------------------------------------------------------------- its chapter

TINY = Part("tiny_", kinds=("number",))     # {{ tiny_number(...) }}


@TINY.number("loss_on_fixed")
def loss_on_fixed_number(run) -> str:
    """Its loss on the fixed batch, as its record states it (recomputed when it loads)."""
    return f"{run.record['loss_on_fixed']:.4f}"


def loss_below_claim(run, bound: float) -> str | None:
    """Its loss on the fixed batch is below `bound`."""
    loss = run.record["loss_on_fixed"]
    return None if loss < bound else f"its loss on the fixed batch is {loss:.4f}"


@pytest.fixture
def tiny_chapter(tiny):
    """tiny's chapter: its part, its run (the loaded weights themselves), its claim."""
    chapters.add(chapters.Chapter("tiny", TINY, lambda loaded, sampler: loaded, {"tiny_loss_below": loss_below_claim}))
    yield tiny
    chapters.remove("tiny")


def test_a_fourth_models_page_calls_its_macro_and_its_claim_through_the_registry(tiny_chapter, macros, monkeypatch):
    declaration, folder = tiny_chapter
    out = folder / "mine.safetensors"
    assert cli.main(["train", "tiny", "--out", str(out), "--steps", "3"]) == 0
    loss = json.loads((folder / "mine.json").read_text())["loss_on_fixed"]
    monkeypatch.setenv("TOYCALC_TINY", str(out))
    env = macros()
    text = '# Tiny\n\nIts loss is {{ tiny_number("loss_on_fixed") }}.{{ claim("tiny_loss_below", bound=100) }}\n'
    assert render_page(env, text, "tiny/index.md") == f"# Tiny\n\nIts loss is {loss:.4f}."
    assert env.macros["tiny_number"].registry == {"loss_on_fixed": loss_on_fixed_number}   # the contributor page's list
    assert env.macros["claim"].registry["tiny_loss_below"] is loss_below_claim
    line = page_error(env, '# Tiny\n\nIt copies perfectly{{ claim("tiny_loss_below", bound=0) }}.\n', "tiny/index.md")
    assert line == (f"tiny/index.md, line 3: the text (“It copies perfectly”) claims tiny_loss_below(bound=0), "
                    f"but its loss on the fixed batch is {loss:.4f}: rewrite the sentence or the weights ({out})")


def test_a_fourth_models_weights_are_read_when_its_first_macro_is_called(tiny_chapter, macros, monkeypatch):
    """Its chapter is not eager: the build starts without its weights, and
    its first macro names the file that does not load, in one line."""
    declaration, folder = tiny_chapter
    missing = folder / "missing.safetensors"
    monkeypatch.setenv("TOYCALC_TINY", str(missing))
    env = macros()
    with pytest.raises(models.ModelError) as refused:
        models.load(declaration, missing)
    assert page_error(env, '# Tiny\n\n{{ tiny_number("loss_on_fixed") }}\n', "tiny/index.md") == str(refused.value)


def test_a_fourth_models_run_is_kept_while_its_files_are_unchanged(tiny_chapter, mkdocs_config, monkeypatch):
    from toycalc.site import runs
    declaration, folder = tiny_chapter
    out = folder / "mine.safetensors"
    assert cli.main(["train", "tiny", "--out", str(out), "--steps", "2"]) == 0
    monkeypatch.setenv("TOYCALC_TINY", str(out))
    first = runs.model_run(mkdocs_config, "tiny")
    assert runs.model_run(mkdocs_config, "tiny") is first
    record = folder / "mine.json"
    record.write_text(record.read_text())       # the same words, a new version of the file
    again = runs.model_run(mkdocs_config, "tiny")
    assert again is not first and again.record == first.record


def test_a_claim_or_a_prefix_two_chapters_would_share_is_refused(tiny):
    def chapter(name, prefix, claims):
        return chapters.Chapter(name, Part(prefix), lambda loaded, sampler: loaded, claims)
    with pytest.raises(ValueError, match=r"^claim\('writes_sorted'\) is registered twice: by nano-gpt and by tiny$"):
        chapters.add(chapter("tiny", "tiny_", {"writes_sorted": loss_below_claim}))
    with pytest.raises(ValueError, match=r"^claim\('identity'\) is registered twice: by the toy and by tiny$"):
        chapters.add(chapter("tiny", "tiny_", {"identity": loss_below_claim}))
    with pytest.raises(ValueError, match=r"^chapter of 'tiny': its macros' prefix 'writer_' is writer's$"):
        chapters.add(chapter("tiny", "writer_", {}))
    with pytest.raises(ValueError, match=r"^chapter of 'fifth': no such model in model/models.py's registry"):
        chapters.add(chapter("fifth", "fifth_", {}))
    assert "tiny" not in chapters.CHAPTERS and "fifth" not in chapters.CHAPTERS
