"""The several-knob planted-problem harness (benchmarks/target_multi_harness.py, issue 41 part 3):
the planted problems are what they say, and on 40 seeded replications per problem (the harness runs
200; 40 keep this file to about 15 s) the tuner's confirmation intervals cover the true rates,
it names no change where none is needed, says so where the target is out of reach, and the
TAG-style baseline's reported average is selection-biased toward the target where many settings
compete. The thresholds sit below the 200-replication figures (in the comments), not at them."""
import math

import pytest
from test_target_multi import THREE as TEST_THREE
from test_target_multi import TWO as TEST_TWO

from benchmarks import target_multi_harness as mh

REPS = 40
TWO_KNOBS, THREE_KNOBS, NO_CHANGE, OUT_OF_REACH = mh.PROBLEMS


@pytest.fixture(scope="module")
def runs():
    """{problem name: (tuner reps, baseline reps)}, REPS seeded replications each."""
    return {pr.name: mh.run_problem(pr, REPS) for pr in mh.PROBLEMS}


def test_the_planted_problems_are_what_they_say():
    assert (mh.TWO, mh.THREE) == (TEST_TWO, TEST_THREE)   # copies of tests/test_target_multi.py's
    for pr in (TWO_KNOBS, THREE_KNOBS):
        answer = {k: {"a": 3, "b": 1}.get(k, v[2]) for k, v in pr.knobs.items()}   # a 2->3, b 2->1
        assert pr.fewest() == 2 and pr.is_answer(answer) and abs(pr.p(answer) - mh.TARGET) < 0.005
        assert all(abs(pr.p(s) - mh.TARGET) > 0.05 for s in pr.settings if pr.changes(s) == 1)
    defaults = {k: v[2] for k, v in NO_CHANGE.knobs.items()}
    assert NO_CHANGE.fewest() == 0 and NO_CHANGE.is_answer(defaults)
    assert abs(NO_CHANGE.p(defaults) - mh.TARGET) <= 0.0051
    assert not OUT_OF_REACH.reachable() and OUT_OF_REACH.closest() == {"a": 4, "b": 3}
    rates = sorted(abs(OUT_OF_REACH.p(s) - mh.TARGET) for s in OUT_OF_REACH.settings)
    assert rates[0] > 0.03 and rates[1] - rates[0] > 0.025   # 3.5 pp off, the next 6.5 pp


def test_the_confirmation_intervals_cover_the_true_rates(runs):
    """Pooled over every confirmed Pareto point and alternative of every replication, and over the
    named settings: at least 90% (200 replications: 0.931 to 0.938 per problem, points; 2000 more
    replications of the two-knob and out-of-reach problems: 0.947 for both)."""
    points = [lo <= true <= hi for tuner, _ in runs.values() for r in tuner for true, lo, hi in r.points]
    named = [r.covered for tuner, _ in runs.values() for r in tuner]
    assert len(points) > 2 * len(named)
    assert sum(points) / len(points) >= 0.90
    assert sum(named) / len(named) >= 0.88


def test_no_change_is_named_where_the_printed_rules_already_get_there(runs):
    """200 replications: the tuner names no change in 98%, the baseline in 17%."""
    tuner, base = runs[NO_CHANGE.name]
    assert sum(r.changes == 0 for r in tuner) >= 0.85 * REPS
    assert sum(r.is_answer for r in base) <= 0.5 * REPS


def test_the_smallest_change_is_named_with_two_and_three_knobs(runs):
    """200 replications: the planted two-knob answer 97.5% (two knobs), 65.5% (three knobs, TPE)."""
    assert sum(r.is_answer for r in runs[TWO_KNOBS.name][0]) >= 0.9 * REPS
    assert sum(r.is_answer for r in runs[THREE_KNOBS.name][0]) >= 0.45 * REPS


def test_out_of_reach_says_none_gets_there_and_names_the_closest(runs):
    """200 replications: no point gets there in 93%; the closest setting named in 98%."""
    tuner, base = runs[OUT_OF_REACH.name]
    assert sum(r.named_none for r in tuner) >= 0.8 * REPS
    assert sum(r.is_answer for r in tuner) >= 0.9 * REPS
    assert not any(r.within for r in tuner + base)


def _gap(reps):
    """mean |reported - target| - mean |true - target|, in pp."""
    return 100 * sum(abs(r.reported - mh.TARGET) - abs(r.true_rate - mh.TARGET) for r in reps) / len(reps)


def test_the_baselines_reported_average_is_selection_biased(runs):
    """Where 80 settings compete and the planted answer is the defaults, the baseline's winner by
    its own average reports a rate much closer to the target than it truly is (200 replications:
    0.36 vs 2.03 pp; 40 here: 0.38 vs 2.06 pp). With three knobs the bias is smaller (200
    replications: 0.63 vs 1.06 pp; 40: 0.64 vs 0.78 pp, too close to assert on 40). The tuner's
    fresh confirmation is not biased toward the target (200 replications: 0.92 vs 0.50 pp no
    change, 1.50 vs 0.90 pp three knobs)."""
    assert _gap(runs[NO_CHANGE.name][1]) < -1.0
    assert _gap(runs[NO_CHANGE.name][0]) > 0 and _gap(runs[THREE_KNOBS.name][0]) > 0


def test_the_tuner_names_the_fewest_changes_more_often_than_the_baseline(runs):
    """200 replications: 65.5% vs 27% (three knobs), 98% vs 17% (no change)."""
    for pr in (THREE_KNOBS, NO_CHANGE):
        tuner, base = runs[pr.name]
        assert sum(r.is_answer for r in tuner) >= sum(r.is_answer for r in base) + 0.15 * REPS


def test_the_baseline_plays_the_tuners_games_of_each_replication(runs):
    for pr in mh.PROBLEMS:
        tuner, base = runs[pr.name]
        assert [r.games for r in tuner] == [r.games for r in base]
        assert all(r.games >= pr.budget + mh.CONFIRM for r in tuner)


def test_the_harness_is_deterministic_for_a_seed():
    a = mh.run_problem(THREE_KNOBS, 3)
    assert a == mh.run_problem(THREE_KNOBS, 3)
    assert mh.run_tuner(THREE_KNOBS, 1000) != mh.run_tuner(THREE_KNOBS, 1001)


def test_the_command_prints_a_row_per_problem_and_method(capsys):
    mh.main(["--reps", "2", "--budget", "4000", "--confirm", "300"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if " | " in line][1:]
    assert len(rows) == 2 * len(mh.PROBLEMS)
    for pr in mh.PROBLEMS:
        assert sum(line.startswith(pr.name) for line in rows) == 2
    assert math.isfinite(float(out.splitlines()[-1].split()[0]))
