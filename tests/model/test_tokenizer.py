import pytest

from toycalc.model.tokenizer import TokenizerError, tokenize


def test_greedy_longest_match(toy):
    assert tokenize("the cat climbed the", toy.vocab) == [0, 2, 4, 5, 1]
    assert tokenize("the dog climbed the wall.", toy.vocab) == [0, 3, 4, 5, 1, 7, 10]


def test_longest_wins_over_shorter():
    assert tokenize("abab", ["a", "ab", "b", "aba"]) == [3, 2]


def test_unknown_piece_is_named_with_the_vocabulary(toy):
    with pytest.raises(TokenizerError) as err:
        tokenize("the cat jumped", toy.vocab)
    message = str(err.value)
    assert '"␣jumped"' in message and "character 8" in message
    assert "the, ␣the, ␣cat, ␣dog, ␣climb, ed, ␣roof, ␣wall, ␣sofa, ␣floor, ., <eot>" in message
