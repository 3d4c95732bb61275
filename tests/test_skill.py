"""Skill robustness: the joint cell (several arms on the same seeds), the lengths cell, their place
in a results store, and the statistics computed from their counts."""
import numpy as np
import pytest

from arena.units import FIELDS, Cell, run_unit
from experiments import skill
from experiments.cells import JointCell, joint_unit
from experiments.skill import per_game, robustness

BW = Cell("bethel_woods", 2, spies=2, policies=("heuristic",), seed=5)
BV = Cell("benevolent", 2, leaves=(1, 3), policies=("heuristic",), seed=6)


def test_joint_cell_counts_agree_with_each_arms_own_counts():
    """Each arm's margin of the joint histogram is its own play: the Bethel Woods wins and the
    Benevolent winners equal arena.units.run_unit's counts of that cell alone."""
    jc = JointCell((BW, BW.__class__(**{**BW.__dict__, "policies": ("random",)})), 2)
    c = joint_unit(jc, 100, 60)
    assert c[0] == 60 and c[1:].sum() == 60 and len(c) == 1 + 4 == len(jc.fields)
    g = per_game(c, 2, 2)
    assert g[0].sum() == run_unit(jc.arms[0], 100, 60)[1] and g[1].sum() == run_unit(jc.arms[1], 100, 60)[1] == 0
    five = JointCell((BV, BV.__class__(**{**BV.__dict__, "leaves": (2, 2)})), 5)
    c = joint_unit(five, 0, 40)
    g = per_game(c, 5, 2) - 1
    for arm, cell in zip(g, five.arms):
        own = run_unit(cell, 0, 40)
        assert [(arm == q).sum() for q in range(2)] == list(own[1:3]) and (arm < 0).sum() == own[5]
    # the same seeds: an arm against itself agrees on every game
    same = joint_unit(JointCell((BW, BW), 2), 0, 50)
    assert same[1 + 1] == same[1 + 2] == 0          # patterns (1, 0) and (0, 1): no game differs


def test_joint_and_lengths_cells_resume_through_a_results_store(tmp_path):
    """A store records their units, rebuilds them from their recipes (field by field against their
    keys) and finds no problem in them: they resume as the variants study's pairs do."""
    from experiments.run.execute import execute
    from experiments.run.store import Store, from_recipe, recipe_of
    from experiments.cells import LengthsCell, cell_unit
    jc = JointCell((BV, BV.__class__(**{**BV.__dict__, "policies": ("random",)})), 5)
    lc = LengthsCell(BW)
    assert from_recipe(recipe_of(jc)) == jc and from_recipe(recipe_of(lc)) == lc
    with Store(tmp_path / "s.sqlite") as s:
        first = execute([(jc, 300), (lc, 300)], threads=1, unit_fn=cell_unit, store=s)
        assert list(s._problems()) == []
        played = []
        again = execute([(jc, 300), (lc, 300)], threads=1, store=s, unit_fn=cell_unit,
                        on_unit=lambda *a: played.append(a))
    assert played == [] and all(np.array_equal(a, b) for a, b in zip(first, again))


def test_lengths_cell_adds_the_won_games_lengths_to_the_games_counts():
    from experiments.cells import WON_LENGTH_BINS, LengthsCell, lengths_unit
    c = lengths_unit(LengthsCell(BW), 0, 300)
    n = len(FIELDS["bethel_woods"])
    assert np.array_equal(c[:n], run_unit(BW, 0, 300))     # the game's own counts, unchanged
    won = c[n:]
    assert len(won) == WON_LENGTH_BINS and won.sum() == c[1] > 0
    assert (won <= c[14:n]).all()                           # never more won games of a length than games
    assert won[:5].sum() == 0                               # the Daydreamer takes six turns at least


def _hist(levels, arms, patterns):
    """A joint count vector from {pattern tuple (arm0, arm1, ...): games}."""
    c = np.zeros(1 + levels ** arms, dtype=np.int64)
    for codes, k in patterns.items():
        c[1 + sum(x * levels ** i for i, x in enumerate(codes))] += k
    c[0] = c[1:].sum()
    return c


def test_pair_rates_is_the_paired_difference_of_the_arms():
    from experiments.stats import paired_difference
    c = _hist(2, 2, {(1, 1): 30, (1, 0): 25, (0, 1): 5, (0, 0): 40})
    r = skill.pair_rates(c)
    a = np.r_[np.ones(55), np.zeros(45)].astype(bool)
    b = np.r_[np.ones(30), np.zeros(25), np.ones(5), np.zeros(40)].astype(bool)
    want = paired_difference(a, b)
    assert (r["best_wins"], r["study_wins"]) == (55, 35)
    assert (r["diff"], r["diff_low"], r["diff_high"], r["p_value"]) == pytest.approx(
        (want.diff, want.ci_low, want.ci_high, want.pvalue))


def test_contrast_change_recovers_a_planted_difference_of_differences():
    """The stronger player's X beats Y by 40 points, the study player's by 10: the change is +30."""
    pats = {}
    # 100 seeds: the stronger player wins with X on 60 and with Y on 20; the study player 30 and 20
    for i in range(100):
        key = (int(i < 60), int(i < 20), int(i < 30), int(i < 20))
        pats[key] = pats.get(key, 0) + 1
    r = skill.contrast_change(_hist(2, 4, pats))
    assert r["best_value"] == pytest.approx(0.40) and r["study_value"] == pytest.approx(0.10)
    assert r["diff"] == pytest.approx(0.30) and r["diff_low"] < 0.30 < r["diff_high"] and r["p_value"] < 0.001
    assert robustness(r["diff_low"], r["diff_high"]) == skill.CHANGES


def test_bootstrap_change_of_seat_1s_edge_is_the_same_for_the_same_counts():
    c = _hist(5, 2, {(1, 1): 40, (1, 2): 20, (2, 1): 5, (2, 2): 30, (0, 1): 5})   # arm0's seat 1 wins more
    a = skill.bootstrap_change(c, 2, lambda b, s, axis=-1: skill.edge_of(b, 2, axis) - skill.edge_of(s, 2, axis), 3)
    b = skill.bootstrap_change(c, 2, lambda b, s, axis=-1: skill.edge_of(b, 2, axis) - skill.edge_of(s, 2, axis), 3)
    assert a == b
    # arm0: 60 of 95 decided games to seat 1, arm1: 50 of 100
    assert a["diff"] == pytest.approx(60 / 95 - 0.5) and a["diff_low"] < a["diff"] < a["diff_high"]


def test_robustness_words():
    assert robustness(-0.02, 0.025) == skill.HOLDS           # inside +-3 points
    assert robustness(0.005, 0.02) == skill.HOLDS            # significant but smaller than the margin
    assert robustness(0.01, 0.09) == skill.CHANGES
    assert robustness(-0.2, 0.1) == skill.NOISY
    assert robustness(float("nan"), float("nan")) == skill.NOISY


def test_a_study_names_its_stronger_player_and_refuses_its_own(tmp_path, capsys):
    from boardsim.cli import main
    from experiments.study.common import skill_plan
    from experiments.study import load_study
    from policies import BEST_PLAYER, STUDY_PLAYER
    f = tmp_path / "d.toml"
    f.write_text('kind = "difficulty"\nplayers = [2]\nskill_games = 10\n')
    assert skill_plan(load_study(f)) == (STUDY_PLAYER["bethel_woods"], BEST_PLAYER["bethel_woods"], 10)
    f.write_text('kind = "seats"\nplayers = [2]\nskill_games = 10\nskill_policy = "Random"\n')
    assert skill_plan(load_study(f))[1] == "random"
    f.write_text('kind = "difficulty"\nplayers = [2]\n')
    assert skill_plan(load_study(f)) is None               # no skill_games: no check
    own = STUDY_PLAYER["benevolent"]
    for body, needle in ((f'kind = "seats"\nskill_policy = "{own}"\nskill_games = 5\n', "is the study's own player"),
                         ('kind = "seats"\nskill_policy = "smart"\n', "skill_policy 'smart' is not known"),
                         ('kind = "difficulty"\nskill_policy = "clairvoyant"\n', "is an upper bound"),
                         ('kind = "difficulty"\nskill_games = -1\n', "skill_games = -1")):
        f.write_text(body)
        assert main(["experiment", "run", str(f), "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and needle in err, err
        assert not (tmp_path / "o").exists()


def _tiny_difficulty(tmp_path, weaker: str | None):
    """A tiny difficulty study whose check is the heuristic against the search (the quickest pair),
    with the weaker rung `weaker` (None: the file names none, "none": no weaker rung)."""
    from experiments.study import load_study
    f = tmp_path / f"d_{weaker}.toml"
    f.write_text('kind = "difficulty"\npolicy = ["heuristic"]\nplayers = [2]\nspies = [0, 1]\ngames = 20\n'
                 'seed = 21\nskill_games = 8\nskill_policy = "search"\n'
                 + (f'skill_weaker = "{weaker}"\n' if weaker else ""))
    return load_study(f)


def test_the_weaker_rung_plays_the_checks_seeds_and_leaves_the_check_as_it_was(tmp_path):
    """The weaker rung's twin of each check plays the same seeds: its wins are a direct run of the
    weaker player on those seeds, its study-player arm is the check's own games again, and the
    check's columns (stronger against study player) are those of a study without a weaker rung."""
    from arena.units import as_dict
    from experiments.study import run_study
    from experiments.study.common import weaker_rung
    with_w = _tiny_difficulty(tmp_path, "random")
    without = _tiny_difficulty(tmp_path, "none")
    assert weaker_rung(with_w) == "random" and weaker_rung(without) is None
    res = run_study(with_w, threads=1)
    a = res.tables
    b = run_study(without, threads=1).tables
    sa, sb = a["skill"], b["skill"]
    assert "weaker_value" not in sb and "skill_weaker_patterns" not in b
    assert sa[list(sb.columns)].equals(sb)     # every column of the check as it was, value for value
    assert set(sa["weaker_policy"]) == {"random"}
    for r in sa[sa["spies"] >= 0].itertuples():
        direct = run_unit(Cell("bethel_woods", 2, spies=int(r.spies), policies=("random",), seed=21), 0, 8)
        assert r.weaker_wins == as_dict("bethel_woods", direct)["wins"]
        assert r.weaker_value == pytest.approx(r.weaker_wins / r.games)
        assert r.weaker_low <= r.weaker_value <= r.weaker_high
    # the twins' patterns: arm0 the weaker rung, arm1 the study player, whose games are the check's own
    wp, pp_ = a["skill_weaker_patterns"], a["skill_patterns"]
    for i, r in sa[sa["spies"] >= 0].reset_index(drop=True).iterrows():
        assert wp[(wp.check == i) & (wp.arm1 == 1)]["games"].sum() == r.study_wins
        assert pp_[(pp_.check == i) & (pp_.arm1 == 1)]["games"].sum() == r.study_wins
        assert wp[(wp.check == i) & (wp.arm0 == 1)]["games"].sum() == r.weaker_wins
    # the paired difference weaker minus study player, as the check's stronger minus study
    pooled = sa[sa["spies"] == -1].iloc[0]
    assert pooled.weaker_diff == pytest.approx(pooled.weaker_value - pooled.study_value)
    assert pooled.weaker_wins == sa[sa["spies"] >= 0]["weaker_wins"].sum()
    # the front page's cell names the three players weakest first, with their values
    cell = res.answers[0]
    assert cell.player == "heuristic" and ": all levels pooled, random " in cell.skill
    assert cell.skill.index("random ") < cell.skill.index(" → heuristic ") < cell.skill.index(" → search ")


def test_a_study_names_its_weaker_rung(tmp_path, capsys):
    from boardsim.cli import main
    from experiments.study import load_study
    from experiments.study.common import WEAKER_PLAYER, weaker_rung, study_players
    f = tmp_path / "d.toml"
    f.write_text('kind = "difficulty"\nplayers = [2]\nskill_games = 10\n')
    st = load_study(f)
    assert weaker_rung(st) == WEAKER_PLAYER == "heuristic" and "heuristic" in study_players(st)
    f.write_text('kind = "difficulty"\nplayers = [2]\nskill_games = 10\nskill_weaker = "None"\n')
    assert weaker_rung(load_study(f)) is None
    f.write_text('kind = "seats"\nplayers = [2]\nskill_games = 10\nskill_weaker = "Random"\n')
    assert weaker_rung(load_study(f)) == "random"
    # the default is left out where it is the study player (or the stronger); a file naming it is refused
    f.write_text('kind = "seats"\npolicy = ["heuristic"]\nplayers = [2]\nskill_games = 10\n')
    assert weaker_rung(load_study(f)) is None
    f.write_text('kind = "seats"\npolicy = ["heuristic"]\nplayers = [2]\nskill_games = 10\nskill_weaker = "heuristic"\n')
    assert main(["experiment", "run", str(f), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "skill_weaker = 'heuristic' is the study's own player" in err
