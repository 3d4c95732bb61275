"""The sensitivity study: common seeds, paired intervals, the counts the arena's units give for
the same cells, the ordering, the chart and the command."""
import json

import numpy as np
import pytest
from matplotlib.image import imread

from arena.units import Cell, field_index, run_unit
from experiments import sensitivity as S
from boardsim.cli import main
from simcore.bethel_woods.rules import load_rules as bw_rules
from simcore.benevolent.rules import load_rules as bv_rules
from simcore.errors import UserError


def test_variants_cover_every_switch_value_and_table():
    """Every reading and table, but not a design switch (ability_off: a character without its
    ability is a question for the tuner, not a reading of the rulebook)."""
    from simcore.bethel_woods.rules import ALTERNATIVES, DESIGN_SWITCHES, SWITCHES
    names = [v[0] for v in S.variants("bethel_woods")]
    readings = {k: v for k, v in SWITCHES.items() if k not in DESIGN_SWITCHES}
    assert DESIGN_SWITCHES == ("ability_off",) and len(readings) == 5
    assert len(names) == sum(len(v) - 1 for v in readings.values()) + len(ALTERNATIVES)
    assert "four_critical=immediate" in names and "machines-b" in names
    assert not any(n.startswith("ability_off") for n in names)
    assert S.strongest_policy("bethel_woods") == "learned"


@pytest.fixture(scope="module")
def bw():
    return S.sensitivity("bethel_woods", games=40, seed=3, only=["four_critical=immediate", "orphanage-shift2"])


def test_bw_rows_agree_with_the_arena_units(bw):
    assert len(bw) == 2 * 6 and set(bw["spies"]) == set(range(6)) and (bw["policy"] == "learned").all()
    for r in bw[bw["spies"] <= 1].itertuples():   # (the units for two difficulties: enough, and fast)
        base = run_unit(Cell("bethel_woods", 3, spies=r.spies, policies=("learned",), seed=3), 0, 40)
        var = run_unit(Cell("bethel_woods", 3, spies=r.spies, policies=("learned",), seed=3,
                            rules=bw_rules(r.variant)), 0, 40)
        assert r.default_wins == base[field_index("bethel_woods", "wins")]
        assert r.variant_wins == var[field_index("bethel_woods", "wins")]
    for r in bw.itertuples():
        assert r.diff == pytest.approx((r.variant_wins - r.default_wins) / 40)
        assert r.only_variant - r.only_default == r.variant_wins - r.default_wins
        assert r.ci_low <= r.diff <= r.ci_high


def test_rows_are_sorted_by_effect_size(bw):
    d = bw["diff"].abs().to_numpy()
    assert (d[:-1] >= d[1:]).all()
    assert bw["default_wins"].sum() > 0   # the learned player wins some games: a real comparison


def test_bv_rows_agree_with_the_arena_units():
    df = S.sensitivity("benevolent", games=150, seed=4, only=["empty_gift=offered", "dream-d"], policy="random")
    assert len(df) == 2 * 3 and set(df["players"]) == {2, 3, 4} and (df["policy"] == "random").all()
    for r in df.itertuples():
        n = r.players
        base = run_unit(Cell("benevolent", n, seed=4), 0, 150)
        var = run_unit(Cell("benevolent", n, seed=4, rules=bv_rules(r.variant)), 0, 150)
        for q in range(n):
            assert getattr(r, f"default_seat{q + 1}_wins") == base[field_index("benevolent", f"seat{q}_wins")]
            assert getattr(r, f"variant_seat{q + 1}_wins") == var[field_index("benevolent", f"seat{q}_wins")]
        rates_b = [getattr(r, f"default_seat{q + 1}_wins") / 150 for q in range(n)]
        rates_a = [getattr(r, f"variant_seat{q + 1}_wins") / 150 for q in range(n)]
        assert r.default == pytest.approx(max(rates_b) - min(rates_b))
        assert r.diff == pytest.approx(max(rates_a) - min(rates_a) - r.default)
        assert r.ci_low <= r.diff <= r.ci_high and r.changed_games > 0
        assert 0 < r.pvalue <= 1 and r.pvalue <= r.p_holm <= 1
        if r.pvalue < 0.05:          # the p-value the percentile interval inverts
            assert r.ci_low > 0 or r.ci_high < 0


def test_bv_a_variant_that_changes_no_game_is_not_a_point():
    # under the heuristic `empty_gift=offered` changes no game (none of 20,000 in docs/sensitivity.md)
    df = S.sensitivity("benevolent", games=120, seed=4, only=["empty_gift=offered"], policy="heuristic")
    bound = S.unchanged_gap_bound(120)
    # 0 of 120 changed: the Clopper-Pearson upper bound 1 - 0.025^(1/120) for the share changed,
    # twice that for a gap (a maximum minus a minimum)
    assert bound == pytest.approx(2 * (1 - 0.025 ** (1 / 120)))
    for r in df.itertuples():
        assert r.changed_games == 0 and r.diff == 0
        assert (r.ci_low, r.ci_high) == (-bound, bound) and r.pvalue == 1 and r.p_holm == 1


def test_bootstrap_pvalue_inverts_the_percentile_interval():
    rng = np.random.default_rng(0)
    assert S.bootstrap_pvalue(np.zeros(999)) == 1.0                              # ties count on both sides
    assert S.bootstrap_pvalue(np.full(999, 0.01)) == pytest.approx(2 / 1000)    # none at or below 0: the floor
    assert S.bootstrap_pvalue(np.r_[np.full(3, -1.0), np.full(996, 1.0)]) == pytest.approx(8 / 1000)
    for m in (-0.5, 0.5, 1.0, 1.5, 3.0, -4.0):
        d = rng.normal(m, 1.0, 4999)
        lo, hi = np.quantile(d, [0.025, 0.975])
        p = S.bootstrap_pvalue(d)
        assert (p < 0.05) == (lo > 0 or hi < 0), (m, p, lo, hi)     # (m away from the one-resample edge)
        assert p == pytest.approx(2 * min((d <= 0).mean(), (d >= 0).mean()), abs=1e-3)


def test_seat_gap_is_vectorized():
    w = np.array([[0, 0, 1, -1], [1, 1, 1, 0]])
    assert S.seat_gap(w, 2).tolist() == [0.25, 0.5]


def test_bad_arguments():
    with pytest.raises(UserError, match="at least 2 games"):
        S.sensitivity("benevolent", games=1)
    with pytest.raises(UserError, match="variant 'nope' is not known"):
        S.sensitivity("benevolent", games=10, only=["nope"])
    with pytest.raises(UserError, match="policy 'oracle' is not known; allowed: random, heuristic, search, tuned"):
        S.sensitivity("benevolent", games=10, policy="oracle")
    with pytest.raises(UserError, match="'clairvoyant' is an upper bound .* not a player; .*allowed: random, heuristic, search, tuned, learned, expert$"):
        S.sensitivity("bethel_woods", games=10, policy="clairvoyant")
    with pytest.raises(UserError, match="threads 0"):
        S.sensitivity("benevolent", games=10, threads=0)
    with pytest.raises(UserError, match="seed 9223372036854775808 is not allowed"):
        S.sensitivity("benevolent", games=10, seed=2 ** 63)
    with pytest.raises(UserError, match=r"seed -1 is not allowed; use 0 to 2\*\*63-1"):  # as simulate says it
        S.sensitivity("benevolent", games=10, seed=-1)


def test_bad_input_on_the_command_line_is_one_line_before_any_play(capsys):
    """Every input is checked before anything is played: one line on stderr, exit code 2."""
    for args in (["--threads", "0"], ["--seed", str(2 ** 63)], ["--policy", "clairvoyant"]):
        code = main(["bethel-woods", "sensitivity", "--games", "10", *args])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (args, err)
        assert "playing" not in err


def test_progress_counts_every_arm_before_the_first_is_played():
    """The bar is told the whole run's games once, before any game is played, then advanced as
    each unit finishes (the executor's protocol): (variants + the defaults) x setups arms of
    `games` games, a setup's arms in one unit here."""
    calls = []

    class Bar:
        def add(self, games, cost=None):
            calls.append(("add", games))

        def advance(self, games, cost=None):
            calls.append(("advance", games))

    S.sensitivity("benevolent", games=6, seed=1, only=["empty_gift=offered", "gather_tile=optional"],
                  progress=Bar())
    arms = len(S.BV_PLAYERS) * (2 + 1)
    assert calls == [("add", arms * 6)] + [("advance", 3 * 6)] * len(S.BV_PLAYERS)


def test_policy_in_any_case_as_for_simulate():
    df = S.sensitivity("benevolent", games=4, seed=1, only=["empty_gift=offered"], policy="Random")
    assert set(df["policy"]) == {"random"}


def test_chart(bw, tmp_path):
    from experiments.charts import sensitivity_forest
    png, svg = sensitivity_forest(bw, tmp_path / "s")
    assert imread(png).shape[0] > 200 and "learned" in svg.read_text()
    # the legend lists only the markers drawn (issue 33: an entry named markers that never
    # appeared): the filled marker's entry exactly when some row is significant after Holm's correction
    assert ("filled: significant after Holm" in svg.read_text()) == bool((bw["p_holm"] < 0.05).any())
    assert ("hollow: not significant after Holm" in svg.read_text()) == bool((bw["p_holm"] >= 0.05).any())
    one = bw.assign(p_holm=np.where(bw.index == 0, 0.001, 0.9))
    _, svg3 = sensitivity_forest(one, tmp_path / "r")
    assert "filled: significant after Holm" in svg3.read_text()
    # without Holm's p, a filled marker is an interval that excludes 0, and the legend says so
    _, svg2 = sensitivity_forest(bw.drop(columns=["p_holm"]), tmp_path / "t")
    hollow = ~((bw["ci_low"] > 0) | (bw["ci_high"] < 0))
    assert "Holm" not in svg2.read_text()
    assert ("hollow: the interval includes 0" in svg2.read_text()) == bool(hollow.any())
    assert ("filled: the interval excludes 0 (no correction)" in svg2.read_text()) == bool((~hollow).any())


def test_command_json_and_errors(capsys, tmp_path):
    code = main(["benevolent", "sensitivity", "--games", "40", "--seed", "2", "--json",
                 "--chart", str(tmp_path / "c.png"), "--csv", str(tmp_path / "c.csv")])
    out, _ = capsys.readouterr()
    assert code == 0
    d = json.loads(out)
    from simcore.benevolent.rules import ALTERNATIVES, SWITCHES
    assert len(d["rows"]) == 3 * (len(SWITCHES) + len(ALTERNATIVES))
    assert (tmp_path / "c.png").exists() and (tmp_path / "c.csv").exists()
    code = main(["bethel-woods", "sensitivity", "--games", "1"])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: --games 1")
    code = main(["bethel-woods", "sensitivity", "--chart", str(tmp_path / "no" / "c.png")])
    _, err = capsys.readouterr()
    assert code == 2 and "does not exist" in err


def test_star_cell_pairs_each_arm_with_the_default_once_and_resumes_from_a_store(tmp_path):
    """A StarCell's unit holds, per arm, the (arm, default) outcome table of its games: the
    default's row sums are its own counts and each arm's column sums the arm's, as arena units
    give them; a results store keeps its units (no problem found), replays them from their recipe
    to the same counts, and a second run plays nothing."""
    from experiments.cells import StarCell, cell_unit, pairs_from_table, star_unit
    from experiments.run.execute import execute
    from experiments.run.store import Store, from_recipe, key_of, recipe_of, replay
    base = Cell("benevolent", 3, seed=4)
    arms = (Cell("benevolent", 3, seed=4, rules=bv_rules("empty_gift=offered")),
            Cell("benevolent", 3, seed=4, rules=bv_rules("dream-d")))
    sc = StarCell(base, arms, 5)
    c = star_unit(sc, 0, 90)
    assert c[0] == 90 and len(c) == len(sc.fields) == 1 + 2 * 25
    own = {cell: run_unit(cell, 0, 90) for cell in (base,) + arms}
    for i, arm in enumerate(arms):
        t = sc.pair_table(c, i)
        assert t.sum() == 90
        for q in range(3):   # code q + 1: seat q won; 0: a timeout
            assert t[:, q + 1].sum() == own[base][field_index("benevolent", f"seat{q}_wins")]
            assert t[q + 1, :].sum() == own[arm][field_index("benevolent", f"seat{q}_wins")]
        a, b = pairs_from_table(t)
        assert a.size == b.size == 90 and np.bincount(a * 5 + b, minlength=25).tolist() == t.reshape(-1).tolist()
    assert not np.array_equal(sc.pair_table(c, 0), sc.pair_table(c, 1))   # the arms are told apart
    back = from_recipe(recipe_of(sc))   # (rules rebuilt from their mapping: the same key, the same counts)
    assert isinstance(back, StarCell) and key_of(back) == key_of(sc) and np.array_equal(replay(back, 0, 90), c)
    with Store(tmp_path / "s.sqlite") as s:
        first = execute([(sc, 200)], threads=1, unit_fn=cell_unit, store=s)
        assert list(s._problems()) == []
        played = []
        again = execute([(sc, 200)], threads=1, store=s, unit_fn=cell_unit,
                        on_unit=lambda *a: played.append(a))
    assert played == [] and np.array_equal(first[0], again[0]) and np.array_equal(first[0], c + star_unit(sc, 90, 110))


def test_sensitivity_through_a_store_resumes(tmp_path):
    """The sensitivity tables play through the executor: with a results store, a second run plays
    no game and gives the same table."""
    import pandas as pd

    from experiments.run.store import Store
    with Store(tmp_path / "s.sqlite") as s:
        one = S.sensitivity("bethel_woods", games=30, seed=2, policy="random", only=["four_critical=immediate"],
                            backend={"store": s})
        n = len(s.played)
        two = S.sensitivity("bethel_woods", games=30, seed=2, policy="random", only=["four_critical=immediate"],
                            backend={"store": s})
        assert n == 6 and len(s.played) == n          # a unit per difficulty, none played again
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 6
