"""Benevolent rules data: the assumptions the issue fixes, and overrides from a TOML file."""
import pytest

from simcore.benevolent.rules import (
    DEFAULT_ARROWS, HEX_TYPES, Rules, RulesError, assemble, load_rules, parse_leaves,
)


def test_forest_defaults():
    r = Rules()
    assert [len(assemble(r.layout(n))[0]) for n in (2, 3, 4)] == [8, 10, 14]
    # each side shows 5 different types of the 6; each type appears 5 times in all; 2 gray per side
    for side in r.sides:
        assert len(set(side)) == 5
    allt = [t for side in r.sides for t in side]
    assert all(allt.count(t) == 5 for t in HEX_TYPES)
    assert all(sum(g) == 2 for g in r.gray)
    # 2 players: the second segment covers 2 hexes of the first; 4 players: the third covers 1
    assert 5 + 5 - len(assemble(r.layout(2))[0]) == 2
    assert 15 - len(assemble(r.layout(4))[0]) == 1


def test_dream_path_default():
    assert DEFAULT_ARROWS == ((0, 1, "Clover"), (1, 2, None), (1, 0, "Feather"), (2, 1, "Feather"),
                              (2, 0, "Crystal"), (2, 3, None), (3, 2, "Amber"), (3, 0, "Figurine"))


def test_override_from_file(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text('[benevolent]\ntimeout_rounds = 50\ndream_path = [[0, 1, "Feather"], [1, 0, ""]]\n'
                 'layouts = {"3" = [[0, 0], [3, 0]]}\n')
    r = load_rules(p)
    assert r.timeout_rounds == 50 and r.arrows == ((0, 1, "Feather"), (1, 0, None))
    assert len(assemble(r.layout(3))[0]) == 10


@pytest.mark.parametrize("text, message", [
    ("[benevolent]\ntimeout_rounds = 0\n", "timeout_rounds: 0"),
    ("[benevolent]\nsides = [['Meadow']]\n", "sides"),
    ("[benevolent]\ngray = [[2,0,0,0,0]]\n", "gray"),
    ("[benevolent]\ndream_path = [[0, 5, 'Clover']]\n", "bad arrow"),
    ("[benevolent]\ndream_path = [[1, 2, 'Clover']]\n", "start position 0"),
    ("[benevolent]\nlayouts = {'2' = [[0, 0], [9, 9]]}\n", "not form one connected forest"),
    ("[benevolent]\nexchange_tiles = [['Clover', 'Gold', 'Amber']]\n", "exchange_tiles"),
    ("[benevolent]\ncolour = 1\n", "unknown key 'colour'"),
    ("[benevolent\n", "not valid TOML"),
])
def test_bad_rules_files(tmp_path, text, message):
    p = tmp_path / "r.toml"
    p.write_text(text)
    with pytest.raises(RulesError, match=message) as e:
        load_rules(p)
    assert "\n" not in str(e.value)


def test_parse_leaves():
    assert parse_leaves(None, 3) == (1, 3, 4)
    assert parse_leaves("2,2", 2) == (2, 2)
    with pytest.raises(ValueError, match="negative"):
        parse_leaves("1,-1", 2)
