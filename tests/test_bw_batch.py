"""The batch runner: reproducible on any thread count and chunking, and the same games as `play`."""
import pytest

from arena.bethel_woods.batch import simulate
from arena.bethel_woods.trace import record_game


def test_same_records_on_one_and_two_threads_and_any_chunking():
    a = simulate(3, 1, games=3000, seed=5, threads=1, keep_records=True).records
    b = simulate(3, 1, games=3000, seed=5, threads=2, keep_records=True, chunk=1001).records
    c = simulate(3, 1, games=3000, seed=5, threads=2, keep_records=True, chunk=97).records
    assert a.equals(b) and a.equals(c)


def test_seed_changes_games():
    a = simulate(3, 0, games=500, seed=1, threads=2, keep_records=True).records
    b = simulate(3, 0, games=500, seed=2, threads=2, keep_records=True).records
    assert not a["turns"].equals(b["turns"])


def test_summary_matches_records():
    s = simulate(2, 2, games=4000, seed=3, threads=2, keep_records=True)
    r = s.records
    assert s.games == len(r) == 4000
    assert s.wins == int(r["won"].sum())
    assert s.wins + sum(s.losses.values()) == s.games
    for reason, n in s.losses.items():
        assert n == int((r["outcome"] == reason).sum())
    assert s.turns == int(r["turns"].sum()) and s.decisions == int(r["decisions"].sum())


@pytest.mark.parametrize("game", [0, 1, 17])
def test_batch_game_is_the_game_play_records(game):
    r = simulate(3, 2, games=20, seed=7, threads=2, keep_records=True).records.iloc[game]
    trace = record_game(3, 2, None, "random", seed=7, game_index=game)
    end = trace[-1]
    assert end["outcome"] == r["outcome"] and end["turns"] == r["turns"]
    assert end["daydreamer_built"] == r["daydreamer_built"]
    decisions = sum(1 for line in trace if line["type"] == "decision")
    assert decisions == r["decisions"]


def test_fixed_characters_are_dealt_to_every_game():
    r = simulate(2, 0, characters="Linny,Rone", games=300, seed=1, keep_records=True).records
    assert set(r["characters"]) == {"Linny,Rone"}
    r2 = simulate(2, 0, games=300, seed=1, keep_records=True).records
    assert r2["characters"].nunique() > 20  # 56 ordered pairs are possible


def test_more_spies_lose_more_to_six_spies():
    # a statistical sanity check of the difficulty knob, not an exact figure
    low = simulate(3, 0, games=20000, seed=2).losses["six_spies"]
    high = simulate(3, 5, games=20000, seed=2).losses["six_spies"]
    assert high > 10 * max(low, 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 5}, "players 5"), ({"spies": 6}, "spies 6"), ({"games": 0}, "games 0"),
    ({"characters": "Nova,Nova,Fenn"}, "only once"), ({"characters": "Nova,Fenn"}, "2 characters for 3"),
    ({"policy": "smart"}, "unknown policy"), ({"threads": 99}, "threads 99"), ({"seed": -1}, "seed -1"),
])
def test_bad_arguments_are_named(kwargs, message):
    args = dict(players=3, spies=0, games=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        simulate(**args)


