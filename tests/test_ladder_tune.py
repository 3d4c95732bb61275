"""The skill ladder and the CMA-ES tuner (tiny runs: the figures are in docs/policies.md)."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.bethel_woods.batch import simulate
from boardsim.cli import app
from experiments.ladder import ladder_benevolent, ladder_bethel_woods
from experiments.stats import paired_difference
from experiments.tune import tune_bethel_woods
from policies.bethel_woods.heuristic import THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES
from policies.tuned import tuned_theta
from simcore.errors import UserError

FIELDS = {"policy", "games", "wins", "win_rate", "ci95", "diff_vs_below", "diff_ci95", "p_value", "games_per_second"}


def test_bethel_woods_ladder_rungs_share_their_games():
    rows = ladder_bethel_woods(3, 0, games=8, seed=5, threads=2, budgets=(2,), reference="search(2)")
    names = [r["policy"] for r in rows]
    assert names[:2] == ["random", "heuristic"] and names[-4:] == ["search(2)", "learned", "expert(16)", "clairvoyant"]
    assert not rows[-1]["player"] and all(r["player"] for r in rows[:-1])
    # every rung is also paired with the reference rung, and its speed given as a ratio to the heuristic's
    ref = next(r for r in rows if r["policy"] == "search(2)")
    learned = next(r for r in rows if r["policy"] == "learned")
    assert ref["diff_vs_reference"] is None and learned["reference"] == "search(2)"
    assert learned["diff_vs_reference"] == pytest.approx(learned["win_rate"] - ref["win_rate"])
    heur = rows[1]
    assert heur["speed_vs_heuristic"] == 1.0
    assert learned["speed_vs_heuristic"] == pytest.approx(learned["games_per_second"] / heur["games_per_second"])
    assert "not a player" in rows[-1]["label"]
    # the rung's difference is the paired difference of its games and the rung below's, on the same seeds
    h = simulate(3, 0, policy="heuristic", games=8, seed=5, threads=2, keep_records=True).records["won"]
    r = simulate(3, 0, policy="random", games=8, seed=5, threads=2, keep_records=True).records["won"]
    assert rows[1]["wins"] == int(h.sum())
    d = paired_difference(h.values, r.values)
    assert rows[1]["diff_vs_below"] == pytest.approx(d.diff) and rows[1]["p_value"] == pytest.approx(d.pvalue)
    for a, b in zip(rows[1:], rows[:-1]):
        assert a["diff_vs_below"] == pytest.approx(a["win_rate"] - b["win_rate"])
        assert FIELDS <= set(a) and a["games"] == 8


def test_benevolent_ladder_rotates_seats_over_the_same_deals():
    """Each rung plays the rung below and search(8), seats swapped on the same deals; the records
    of a pair agree both ways; the learned and expert rungs are on it with their speed ratio."""
    bars = []

    def bar():   # each rotation of each pair gets its own progress callback, as a Bethel Woods rung does
        seen = []
        bars.append(seen)
        return lambda done, total, elapsed: seen.append((done, total))

    rows = ladder_benevolent(2, games=6, seed=3, threads=2, progress_factory=bar)
    labels = [r["label"] for r in rows]
    assert labels[:2] == ["random", "heuristic"] and "search(8)" in labels and labels[-2:] == ["learned", "expert"]
    played = {frozenset((r["label"], o)) for r in rows for o in r["vs"]}
    assert len(bars) == 2 * len(played) and all(seen and seen[-1] == (6, 6) for seen in bars)
    for i, r in enumerate(rows):
        assert (i == 0 or labels[i - 1] in r["vs"]) and (r["label"] == "search(8)" or "search(8)" in r["vs"])
        for opp, v in r["vs"].items():
            back = next(x for x in rows if x["label"] == opp)["vs"][r["label"]]
            assert v["games"] == back["games"] == 12
            assert v["wins"] + back["wins"] <= 12  # a game has at most one winner (timeouts: none)
        if r["label"] != "search(8)":
            assert r["reference_win_rate"] == pytest.approx(r["vs"]["search(8)"]["win_rate"])
        # the JSON names each policy's parameters as the Bethel Woods ladder's does
        assert len(r["theta_hash"]) >= 8 and r["threads"] == 2
        assert (r["budget"] is not None) == (r["name"] == "search")
        assert r["selfplay_games_per_second"] > 0 and r["speed_games"] == 6
    assert next(r for r in rows if r["label"] == "heuristic")["speed_vs_heuristic"] == 1.0
    assert len({r["theta_hash"] for r in rows}) == len(rows)
    from experiments.ladder import ladder_table
    text = ladder_table(rows, "benevolent")
    assert "learned vs search(8)" in text and "against search(8)" in text   # the budget is shown
    with pytest.raises(UserError, match="players 3"):
        ladder_benevolent(3, games=2)


def test_benevolent_rung_difference_takes_the_deal_as_the_unit():
    """Both slots of a deal (a and b in seat 0, a and b in seat 1) show the same difference when
    no game times out, so the rung's interval and p are the t-test's over the N deals, not a
    McNemar test over 2N slots (which counted every deal twice and was too confident)."""
    from scipy import stats as sps
    from experiments.ladder import _diff_by_deal
    rng = np.random.default_rng(0)
    n = 100
    w = (rng.random((2, n)) < np.array([[0.42], [0.66]])).astype(int)  # winner seat; row k: a in seat k
    a_won = np.concatenate([w[0] == 0, w[1] == 1])
    b_won = np.concatenate([w[1] == 0, w[0] == 1])
    per = (a_won.astype(int) - b_won).reshape(2, n)
    assert (per[0] == per[1]).all()
    d, ci, p, _, _ = _diff_by_deal(a_won, b_won)
    t = sps.ttest_1samp(per[0], 0.0)
    assert d == pytest.approx(per[0].mean()) and p == pytest.approx(t.pvalue)
    assert ci == pytest.approx(list(t.confidence_interval()))
    slots = paired_difference(a_won, b_won)   # the old test on the 2N slots: too small a p
    assert slots.pvalue < p


def test_ladder_cli_json_and_errors():
    res = CliRunner().invoke(app, ["ladder", "bethel-woods", "--games", "4", "--budgets", "2", "--json", "--threads", "2"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert len(rows) >= 4 and all(FIELDS <= set(r) for r in rows) and rows[-1]["policy"] == "clairvoyant"
    bad = CliRunner().invoke(app, ["ladder", "chess", "--games", "4"])
    assert bad.exit_code == 2 and "allowed: bethel-woods, benevolent" in bad.output
    # bad values are refused before any rung plays (no half-printed ladder)
    for args, needle in ((["bethel-woods", "--games", "0"], "games 0"), (["bethel-woods", "--spies", "9"], "spies 9"),
                         (["benevolent", "--games", "0"], "games 0"),
                         (["benevolent", "--spies", "2"], "--spies 2: Benevolent has no spies"),
                         (["benevolent", "--budgets", "4,x"], "give whole numbers"),
                         (["bethel-woods", "--budgets", "2,2"], "give each budget once")):
        bad = CliRunner().invoke(app, ["ladder", *args])
        assert bad.exit_code == 2 and needle in bad.output and "rung" not in bad.output, bad.output


def test_tuner_uses_common_random_numbers_and_confirms_on_fresh_seeds():
    rec = tune_bethel_woods(3, 0, budget_games=120, games_per_candidate=20, popsize=4, seed=2, confirm_games=40,
                            threads=2, say=lambda m: None)
    assert rec["generations"] == 1 and rec["tuning_games"] == 100
    g0 = rec["history"][0]
    # the defaults' figure is the defaults' wins on that generation's games
    assert g0["default_wins"] == simulate(3, 0, policy="heuristic", games=20, seed=g0["seed"], threads=2).wins
    c = rec["confirmation"]
    assert c["seed"] not in [h["seed"] for h in rec["history"]]
    assert c["default_wins"] == simulate(3, 0, policy="heuristic", games=40, seed=c["seed"], threads=2).wins
    assert rec["confirmed"] == (c["diff_ci95"][0] > 0)
    th = np.array([rec["theta"][n] for n in THETA_NAMES])
    assert np.all(th >= THETA_BOUNDS[:, 0]) and np.all(th <= THETA_BOUNDS[:, 1]) and not np.allclose(th, THETA_DEFAULT)


def test_tuned_vector_is_read_only_when_confirmed(tmp_path):
    rec = {"confirmed": False, "theta": {n: float(v) for n, v in zip(THETA_NAMES, THETA_DEFAULT)}}
    f = tmp_path / "tuned.json"
    f.write_text(json.dumps(rec))
    with pytest.raises(UserError, match="not confirmed"):
        tuned_theta("bethel_woods", f)
    rec["confirmed"] = True
    rec["theta"]["built"] = 50.0
    f.write_text(json.dumps(rec))
    t = tuned_theta("bethel_woods", f)
    assert t[THETA_NAMES.index("built")] == 50.0 and len(t) == len(THETA_NAMES)
    with pytest.raises(UserError, match="no tuned weights"):
        tuned_theta("bethel_woods", tmp_path / "missing.json")
    del rec["theta"]["spy_loss"]  # a record from an older THETA_NAMES: named, not a KeyError
    f.write_text(json.dumps(rec))
    with pytest.raises(UserError, match="no weight 'spy_loss'.*boardsim tune bethel-woods"):
        tuned_theta("bethel_woods", f)
