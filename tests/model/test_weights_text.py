"""A token is printable text: what toy.yaml's vocabulary may not hold
(control, format and invisible characters; tokens a reader cannot tell
apart), and a weights path that is not a regular file. Each is refused
with the loader's one line, naming the file, the entry and the character."""
from __future__ import annotations

import json
import os
import re

import pytest

from toycalc.model import nanogpt
from toycalc.model.weights import DEFAULT_TOY, WeightsError, load_toy


def with_token(tmp_path, token: str, entry: int = 3):
    """The book's weights with vocab entry `entry` replaced by token. The
    vocabulary is one line of JSON, which YAML reads; escaped as ASCII, every
    character can be written there."""
    lines = DEFAULT_TOY.read_text(encoding="utf-8").splitlines()
    k = next(k for k, line in enumerate(lines) if line.startswith("vocab:"))
    vocab = json.loads(lines[k].removeprefix("vocab:"))
    vocab[entry] = token
    lines[k] = "vocab: " + json.dumps(vocab)
    path = tmp_path / "toy.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def refused(path) -> str:
    with pytest.raises(WeightsError) as err:
        load_toy(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "entr" in message
    return message


@pytest.mark.parametrize("token, code", [
    ("ro\nof", "U+000A"),            # a line break: crashed Material's search before
    ("ro\x00of", "U+0000"),          # NUL
    ("ro\tof", "U+0009"),
    ("roof\u2028", "U+2028"),        # line separator
    ("roof\u2029", "U+2029"),        # paragraph separator
    ("\u202eroof", "U+202E"),        # right-to-left override
    ("\u2066roof", "U+2066"),        # left-to-right isolate
    ("ro\u200bof", "U+200B"),        # zero-width space
    ("ro\u200dof", "U+200D"),        # zero-width joiner
    ("\ufeffroof", "U+FEFF"),        # byte order mark inside a token
    ("ro\u00adof", "U+00AD"),        # soft hyphen
    ("\u00a0roof", "U+00A0"),        # no-break space, which looks like ␣
    ("\u2003roof", "U+2003"),        # em space
])
def test_a_token_with_a_character_that_is_not_printable_text_is_refused(tmp_path, token, code):
    message = refused(with_token(tmp_path, token))
    assert re.search(rf"entry 4: .* holds {re.escape(code)}[ ,]", message), message
    assert "printable text" in message


def test_a_token_mixing_scripts_is_refused(tmp_path):
    message = refused(with_token(tmp_path, " \u0441at"))   # Cyrillic es, then Latin "at"
    assert "mixes Cyrillic and Latin letters" in message


def test_tokens_that_differ_only_in_compatibility_forms_are_refused(tmp_path):
    message = refused(with_token(tmp_path, " \uff52\uff4f\uff4f\uff46", entry=4))   # fullwidth "roof"
    assert "differ only in compatibility forms" in message and "entries" in message


@pytest.mark.parametrize("token", [" caf\u00e9", " \u00fcber", " \u043a\u043e\u0442", " \u732b",
                                   "\u65e5\u672c\u8a9e\u3067\u3059", "\u2423x", "<unk>", " 3.5"])
def test_printable_tokens_in_any_one_script_are_read(tmp_path, token):
    model = load_toy(with_token(tmp_path, token))
    assert model.vocab[3] == token.replace("\u2423", " ")


def test_a_weights_path_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "toy.yaml"
    os.mkfifo(fifo)
    with pytest.raises(WeightsError, match=r"toy\.yaml: the weights path is a FIFO \(named pipe\); "
                                           "expected a regular file"):
        load_toy(fifo)


def test_a_weights_path_that_is_a_directory_or_a_device_is_refused(tmp_path):
    with pytest.raises(WeightsError, match="is a directory; expected a regular file"):
        load_toy(tmp_path)
    with pytest.raises(WeightsError, match="is a character device; expected a regular file"):
        load_toy("/dev/zero")


def test_a_symlink_to_the_weights_is_followed(tmp_path):
    link = tmp_path / "toy.yaml"
    link.symlink_to(DEFAULT_TOY)
    assert load_toy(link).vocab == load_toy(DEFAULT_TOY).vocab


def test_nano_gpt_weights_and_record_must_be_regular_files(tmp_path):
    fifo = tmp_path / "nano.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(nanogpt.NanoWeightsError, match="the nano-gpt weights path is a FIFO"):
        nanogpt.load(fifo)
    weights_file = tmp_path / "weights.safetensors"
    weights_file.write_bytes(nanogpt.DEFAULT_WEIGHTS.read_bytes())
    os.mkfifo(nanogpt.record_path(weights_file))
    with pytest.raises(nanogpt.NanoWeightsError, match="the record is a FIFO"):
        nanogpt.load(weights_file)


@pytest.mark.parametrize("typed, value", [("\u22120.5", -0.5), ("\u22121", -1), ("1e\u22123", 1e-3),
                                          ("\u2212.25", -0.25), ("-0.5", -0.5)])
def test_a_number_with_the_true_minus_sign_reads_as_the_book_prints_it(typed, value):
    from toycalc.model import yamlfile
    assert yamlfile.load(f"w: [{typed}]") == {"w": [value]}


@pytest.mark.parametrize("typed", ["\u2212", "a\u22121", "\u2212\u22121", "1\u2212"])
def test_a_true_minus_sign_outside_a_number_stays_text(typed):
    from toycalc.model import yamlfile
    assert yamlfile.load(f"w: [{typed}]") == {"w": [typed]}


def test_the_loader_reads_a_matrix_typed_with_true_minus_signs(tmp_path):
    text = DEFAULT_TOY.read_text(encoding="utf-8")
    assert "-" in text.split("E:", 1)[1]
    path = tmp_path / "toy.yaml"
    head, matrices = text.split("E:", 1)
    path.write_text(head + "E:" + re.sub(r"(?<=[\s\[,])-(?=[\d.])", "\u2212", matrices), encoding="utf-8")
    book, typed = load_toy(DEFAULT_TOY), load_toy(path)
    assert all((book.params[k] == typed.params[k]).all() for k in book.params)
