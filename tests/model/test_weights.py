"""A weights file typed by hand: each mistake gets one clear message, in
Python and in the build (non-zero exit, no traceback)."""
import pytest
from mkdocs.exceptions import PluginError

from toycalc.model.weights import DEFAULT_TOY, WeightsError, load_toy

TOY = DEFAULT_TOY.read_text(encoding="utf-8")

# (what is wrong, how to make it from toy.yaml, what the message must say)
BAD_FILES = [
    ("missing key", lambda t: t.replace("W_V:   # d x d", "W_X:   # d x d"),
     "unknown key 'W_X'"),
    ("missing key", lambda t: t[:t.index("W_U:")],
     "key 'W_U' is missing"),
    ("short row", lambda t: t.replace("[ 1,   -0.5, -0.5,  0  ]   # 3  ␣dog", "[ 1, -0.5, -0.5 ]   # 3  ␣dog"),
     "key 'E', row 4 (␣dog): expected 4 numbers (as many as in row 1), found 3"),
    ("missing row", lambda t: t.replace("  - [ 0.5, -0.5,  0.5, -0.5]   # 11 <eot>\n", ""),
     "key 'E': expected 12 rows (one per token of vocab, V = 12), found 11"),
    ("wrong width", lambda t: t.replace("  - [1, 0, 0, 0, -1,  0,  0,  0]", "  - [1, 0, 0, 0, -1,  0,  0]"),
     "key 'W_1', row 2: expected 7 numbers (as many as in row 1), found 8"),
    ("non-number", lambda t: t.replace("[0, 1, 0, 0]   # u2", "[0, one, 0, 0]   # u2", 1),
     "key 'W_Q', row 2, column 2: expected a number, found 'one'"),
    ("NaN", lambda t: t.replace("[ 0,    0.5, -0.5,  0  ]   # 5  ed", "[ 0, .nan, -0.5, 0 ]   # 5  ed"),
     "key 'E', row 6 (ed), column 2: expected a finite number, found nan"),
    ("infinity", lambda t: t.replace("  - [ 0,    0,    0,    0  ]   # position 1", "  - [ 0, 0, .inf, 0 ]"),
     "key 'P', row 1, column 3: expected a finite number, found inf"),
    ("duplicate token", lambda t: t.replace('"␣sofa"', '"␣cat"'),
     'key \'vocab\': token "␣cat" appears twice (entries 3 and 9)'),
    ("heads", lambda t: t.replace("heads: 2 ", "heads: 3 "),
     "key 'heads': heads = 3 does not divide d = 4; expected one of 1, 2, 4"),
    ("not YAML", lambda t: t.replace("E:   # V x d", "E: [  # V x d"),
     "not valid YAML"),
]


def write_bad(tmp_path, mutate):
    text = mutate(TOY)
    assert text != TOY, "the mutation did not apply"
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("what, mutate, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_message(tmp_path, what, mutate, message):
    path = write_bad(tmp_path, mutate)
    with pytest.raises(WeightsError) as err:
        load_toy(path)
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)


@pytest.mark.parametrize("what, mutate, message",
                         [BAD_FILES[i] for i in (1, 2, 5, 6, 8, 9)], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_file_stops_the_build_with_its_message(macros, tmp_path, what, mutate, message):
    """The macros load the weights as the build starts: the same message
    stops it (tests/site/test_build_failures.py builds one for real)."""
    path = write_bad(tmp_path, mutate)
    with pytest.raises(PluginError) as err:
        macros(weights=path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(WeightsError, match="cannot read the weights file"):
        load_toy(tmp_path / "nowhere.yaml")


def test_the_shipped_file_loads():
    toy = load_toy()
    assert toy.cfg.vocab_size == 12 and toy.cfg.d == 4 and toy.cfg.n_ctx == 8
    assert toy.cfg.mlp_width == 8 and toy.heads == 2
    assert toy.vocab[1] == " the"
