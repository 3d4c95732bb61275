"""The handicap study's decision (experiments/study/handicap.py): the challenger is chosen among
the confirmed candidates and the printed handicap by the paired difference on the confirmation
games, and only the holdout games, which chose nothing, decide whether a handicap other than the
printed one is named. The StarCell that plays both stages keeps every cell's own counts."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from arena.units import FIELDS, Cell, field_index, run_unit
from experiments.cells import StarCell, star_unit
from experiments.study.handicap import (ADOPT, KEEP, candidates, challenger, choose, confirm_frame,
                                        gap_difference, handicap_answers, handicap_summary, holdout_frame,
                                        neighbours)

BV = "benevolent"


def _star_counts(sc: StarCell, base_codes, arm_codes) -> np.ndarray:
    """A StarCell's count vector (counts=True) from per-game outcome codes (0 a timeout, q + 1
    seat q won): the pair tables, then each cell's own counts (games, seat wins, timeouts; one
    turn a game), as star_unit lays them out."""
    n = len(base_codes)
    out = [np.array([n])]
    for a in arm_codes:
        out.append(np.bincount(np.asarray(a) * 5 + np.asarray(base_codes), minlength=25))
    for codes in [base_codes] + list(arm_codes):
        own = np.zeros(len(FIELDS[BV]), dtype=np.int64)
        own[field_index(BV, "games")] = n
        for q in range(sc.base.players):
            own[field_index(BV, f"seat{q}_wins")] = int((np.asarray(codes) == q + 1).sum())
        own[field_index(BV, "timeouts")] = int((np.asarray(codes) == 0).sum())
        own[field_index(BV, "turns")] = own[field_index(BV, "turns_sq")] = n
        out.append(own)
    return np.concatenate(out).astype(np.int64)


def _games(rng, n, shares):
    """n games' winner codes (seat q + 1) drawn with these seat shares (no timeouts)."""
    return rng.choice(np.arange(1, len(shares) + 1), size=n, p=np.asarray(shares) / np.sum(shares))


def _star(players, printed, arms, seed):
    base = Cell(BV, players, leaves=printed, policies=("random",), seed=seed)
    return StarCell(base, tuple(Cell(BV, players, leaves=a, policies=("random",), seed=seed) for a in arms), 5,
                    counts=True)


def _decide(printed, arms, conf_shares, hold_shares, n=4000, seed=1):
    """The whole decision on planted games: each handicap's seat shares on the confirmation and on
    the holdout games (dicts leaves -> shares; the printed one's shares equal, so its gap is
    noise). Returns (conf, hold)."""
    rng = np.random.default_rng(seed)
    players = len(printed)
    names = [",".join(map(str, lv)) for lv in (printed,) + tuple(arms)]
    sc = _star(players, printed, arms, 10)
    codes = {lv: _games(rng, n, conf_shares.get(lv, [1] * players)) for lv in (printed,) + tuple(arms)}
    conf, _ = confirm_frame(sc, _star_counts(sc, codes[printed], [codes[a] for a in arms]), names, seed)
    conf["role"] = "candidate"
    ch = tuple(map(int, challenger(conf).split(",")))
    hs = _star(players, printed, (ch,), 20)
    h_codes = {lv: _games(rng, n, hold_shares.get(lv, [1] * players)) for lv in (printed, ch)}
    hold = holdout_frame(hs, _star_counts(hs, h_codes[printed], [h_codes[ch]]),
                         [names[0], ",".join(map(str, ch))], seed)
    return conf, hold


def test_a_search_first_less_fair_than_printed_on_fresh_games_is_never_named():
    """The case of the quick report at 4 players: the search's first (0,4,4,5) is less fair than
    the printed 1,3,4,5 on the fresh games. It is not chosen, the holdout plays the closest rival,
    and the answer keeps the printed handicap."""
    printed = (1, 3, 4, 5)
    worse = {(0, 4, 4, 5): [1.3, 1, 1, 0.8], (1, 3, 4, 4): [1.15, 1, 1, 0.9]}
    conf, hold = _decide(printed, [(0, 4, 4, 5), (1, 3, 4, 4)], worse, worse)
    assert conf[conf["chosen"]]["leaves"].tolist() == ["1,3,4,5"]     # the printed one is chosen
    assert (conf[~conf["printed"]]["vs_printed_diff"] > 0).all()
    ch = hold[hold["challenger"]].iloc[0]
    assert ch.leaves == "1,3,4,4"                                       # its closest rival is challenged
    assert ch.vs_printed_diff_low > 0 and ch.decision == KEEP and ch.verdict == "established"
    assert hold[hold["recommended"]]["leaves"].tolist() == ["1,3,4,5"]
    [ans] = handicap_answers(SimpleNamespace(name="handicap"), None, hold, pd.DataFrame())
    assert ans.answer.startswith("4 pl keep the printed 1,3,4,5") and "adopt" not in ans.answer
    assert "keep the printed 1,3,4,5" in handicap_summary(hold) and "is less fair" in handicap_summary(hold)


def test_a_choice_the_holdout_does_not_confirm_keeps_the_printed_handicap():
    """A candidate that looked fairer on the confirmation games (they chose it: the winner's curse)
    but is no fairer on the holdout is not adopted: the answer keeps the printed one and says no
    candidate is shown fairer, with what the holdout could have found."""
    printed = (1, 3, 4)
    conf, hold = _decide(printed, [(1, 2, 4)], {(1, 2, 4): [1, 1, 1], (1, 3, 4): [1.12, 1, 0.9]},
                         {(1, 2, 4): [1.12, 1, 0.9]}, n=3000)
    assert conf[conf["chosen"]]["leaves"].tolist() == ["1,2,4"]
    ch = hold[hold["challenger"]].iloc[0]
    assert ch.leaves == "1,2,4" and ch.decision == KEEP and not ch.vs_printed_diff_high < 0
    [ans] = handicap_answers(SimpleNamespace(name="handicap"), None, hold, pd.DataFrame())
    assert ans.answer.startswith("3 pl keep the printed 1,3,4") and "adopt" not in ans.answer
    if ans.verdict != "established":
        assert "could find a gap difference of" in ans.detect


def test_a_fairer_handicap_is_adopted_with_its_holdout_figures():
    """A candidate fairer on both the confirmation and the holdout games is adopted, and the figures
    the answer gives are the holdout's (games that did not choose it), not the confirmation's."""
    printed = (1, 3)
    conf, hold = _decide(printed, [(0, 3), (1, 2)], {(1, 3): [1.25, 1], (0, 3): [1, 1], (1, 2): [1.3, 1]},
                         {(1, 3): [1.25, 1], (0, 3): [1, 1]})
    assert conf[conf["chosen"]]["leaves"].tolist() == ["0,3"]
    ch, pr = hold[hold["challenger"]].iloc[0], hold[hold["printed"]].iloc[0]
    assert ch.decision == ADOPT and ch.vs_printed_diff_high < 0 and ch.verdict == "established"
    assert np.isclose(ch.vs_printed_diff, ch.max_gap - pr.max_gap)
    c = conf[conf["leaves"] == "0,3"].iloc[0]
    assert ch.max_gap != c.max_gap                                   # other games
    [ans] = handicap_answers(SimpleNamespace(name="handicap"), None, hold, pd.DataFrame())
    from experiments.answers import pp_ci
    from experiments.stats import plain_pp

    def gap(x):
        return plain_pp(x, sign=False).replace(" pp", "")
    assert ans.answer == (f"2 pl adopt 0,3 (gap {gap(ch.max_gap)}; printed 1,3 {gap(pr.max_gap)}): "
                          f"{pp_ci(ch.vs_printed_diff, ch.vs_printed_diff_low, ch.vs_printed_diff_high)} pp")


def test_choose_takes_the_smallest_paired_difference_and_keeps_the_printed_on_ties():
    rows = [{"leaves": (1, 3), "diff": 0.0, "changed": 0}, {"leaves": (0, 3), "diff": 0.02, "changed": 1},
            {"leaves": (2, 2), "diff": 0.0, "changed": 2}]
    assert choose(rows)["leaves"] == (1, 3)                     # nothing beat the printed one
    rows.append({"leaves": (0, 2), "diff": -0.01, "changed": 2})
    rows.append({"leaves": (1, 2), "diff": -0.01, "changed": 1})
    assert choose(rows)["leaves"] == (1, 2)                     # a tie goes to the fewer leaves changed
    rows.append({"leaves": (0, 1), "diff": float("nan"), "changed": 3})
    assert choose(rows)["leaves"] == (1, 2)                     # no decided game: never chosen


def test_the_smallest_changes_are_the_candidates_one_leaf_away():
    near = neighbours((1, 3, 4, 5), candidates(4, 5))
    assert sorted(near) == [(0, 3, 4, 5), (1, 2, 4, 5), (1, 3, 3, 5), (1, 3, 4, 4), (1, 3, 5, 5),
                            (1, 4, 4, 5), (2, 3, 4, 5)]   # (1, 3, 4, 6) is past 5 leaves
    assert neighbours((1, 3), candidates(2, 2)) == [(1, 2)]


def test_gap_difference_is_scipys_paired_bootstrap():
    """Drawing the pair table from its multinomial is resampling the games: the interval matches
    scipy.stats.bootstrap's paired percentile interval on the games themselves (Monte Carlo error
    only), and the value is the difference of the two gaps over the decided games."""
    from scipy.stats import bootstrap

    from experiments.skill import gap_of
    rng = np.random.default_rng(3)
    n = 800
    b = rng.choice(4, size=n, p=[0.03, 0.4, 0.3, 0.27])                 # 0 a timeout, q + 1 seat q
    a = np.where(rng.random(n) < 0.7, b, rng.choice(4, size=n, p=[0.03, 0.33, 0.33, 0.31]))
    table = np.bincount(a * 5 + b, minlength=25)
    got = gap_difference(table, 3, seed=5)

    def stat(x, y, axis=-1):
        return gap_of(x - 1, 3, axis) - gap_of(y - 1, 3, axis)
    assert got["diff"] == pytest.approx(float(stat(a, b)))
    ref = bootstrap((a, b), stat, paired=True, vectorized=True, n_resamples=20_000, method="percentile",
                    random_state=np.random.default_rng(9))
    assert got["diff_low"] == pytest.approx(ref.confidence_interval.low, abs=0.006)
    assert got["diff_high"] == pytest.approx(ref.confidence_interval.high, abs=0.006)
    assert got["changed_games"] == int((a != b).sum())
    # the same games in both arms: nothing to resample, no interval, p = 1
    same = gap_difference(np.diag(np.bincount(b, minlength=5)).reshape(-1), 3, seed=5)
    assert same["diff"] == 0 and np.isnan(same["diff_low"]) and same["p_value"] == 1.0


def test_a_star_cell_with_counts_keeps_each_cells_own_counts_from_the_same_games(tmp_path):
    """StarCell(counts=True): after the pair tables, each cell's counts are exactly run_unit's of
    that cell; the pair tables are a plain StarCell's; its key differs from the plain cell's only
    by counts; a results store keeps, checks and replays its units."""
    from experiments.cells import cell_unit
    from experiments.run.execute import execute
    from experiments.run.store import Store, from_recipe, key_of, recipe_of, replay
    base = Cell(BV, 2, leaves=(1, 3), policies=("random",), seed=7)
    arms = (Cell(BV, 2, leaves=(0, 2), policies=("random",), seed=7),
            Cell(BV, 2, leaves=(2, 2), policies=("random",), seed=7))
    sc, plain = StarCell(base, arms, 5, counts=True), StarCell(base, arms, 5)
    c = star_unit(sc, 3, 60)
    assert len(c) == len(sc.fields) == 1 + 2 * 25 + 3 * len(FIELDS[BV])
    assert np.array_equal(c[:len(plain.fields)], star_unit(plain, 3, 60))
    for i, cell in enumerate((base,) + arms):
        assert np.array_equal(sc.cell_counts(c, i), run_unit(cell, 3, 60))
    with pytest.raises(ValueError):
        plain.cell_counts(c, 0)
    assert key_of(sc) != key_of(plain) and "counts" not in key_of(plain)
    back = from_recipe(recipe_of(sc))
    assert back == sc and np.array_equal(replay(back, 3, 60), c)
    with Store(tmp_path / "s.sqlite") as s:
        first = execute([(sc, 120)], threads=1, unit_fn=cell_unit, store=s)
        assert list(s._problems()) == []
    assert np.array_equal(first[0][1:51], (star_unit(plain, 0, 120))[1:])
