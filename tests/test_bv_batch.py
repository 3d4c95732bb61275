"""Benevolent batch runner: reproducible, the same games as `play`, seat records that add up."""
import pytest

from arena.benevolent.batch import simulate
from arena.benevolent.trace import record_game


def test_same_records_any_threads_and_chunking():
    a = simulate(3, games=1500, seed=4, threads=1, keep_records=True).records
    b = simulate(3, games=1500, seed=4, threads=2, keep_records=True, chunk=333).records
    assert a.equals(b)


def test_summary_and_records_agree():
    s = simulate(4, games=3000, seed=2, keep_records=True)
    r = s.records
    assert s.games == 3000 and sum(s.seat_wins) + s.timeouts == 3000
    for q in range(4):
        assert s.seat_wins[q] == int((r["winner"] == q).sum())
    # seats play in turn: turns taken differ by at most one, earlier seats first
    t = r[[f"seat{q}_turns" for q in range(4)]].to_numpy()
    assert ((t[:, :1] - t) >= 0).all() and ((t[:, :1] - t) <= 1).all()
    assert (t.sum(axis=1) == r["turns"]).all()
    # the winner holds all five gifts
    for q in range(4):
        won = r[r["winner"] == q]
        gifts = won[[f"seat{q}_{g}" for g in ("clover", "feather", "crystal", "amber", "figurine")]]
        assert (gifts > 0).all().all()


@pytest.mark.parametrize("game", [0, 5])
def test_batch_game_is_the_game_play_records(game):
    r = simulate(3, games=8, seed=9, keep_records=True).records.iloc[game]
    end = record_game(3, None, "random", seed=9, game_index=game)[-1]
    assert end["winner"] == (None if r["winner"] < 0 else r["winner"]) and end["turns"] == r["turns"]


def test_the_handicap_matters():
    # a statistical check, not an exact figure: a big handicap for seat 0 must raise its win rate
    even = simulate(2, leaves="3,3", games=20000, seed=1)
    rich = simulate(2, leaves="30,3", games=20000, seed=1)
    assert rich.seat_wins[0] > even.seat_wins[0] + 1000


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 5}, "players 5"), ({"leaves": "1,3"}, "2 seats for 4 players"), ({"leaves": "1,3,-4,5"}, "negative"),
    ({"leaves": "1,x,4,5"}, "whole numbers"), ({"policies": "random,random"}, "2 policies for 4 players"),
    ({"policy": "smart"}, "unknown policy"), ({"games": 0}, "games 0"), ({"leaves": "60,3,4,5"}, "only 64"),
])
def test_bad_arguments(kwargs, message):
    args = dict(players=4, games=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        simulate(**args)
