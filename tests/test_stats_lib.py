"""Report statistics against published values, hand-worked examples, second implementations."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from experiments.stats import (adjust_pvalues, balance, chi2_equal, logit_effects,
                               pair_table, paired_difference, seat_intervals, sequential_plan,
                               constant_mean_interval, square_and_add, wilson)


@pytest.mark.parametrize("k,n,lo,hi", [
    # Newcombe (1998) Stat Med 17:857, Table II, method 3 (Wilson score, no continuity correction)
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_newcombe_1998(k, n, lo, hi):
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=6e-5) and got[1] == pytest.approx(hi, abs=6e-5)


def test_wilson_exact_endpoints_arrays_and_levels():
    assert wilson(0, 7)[0] == 0.0 and wilson(7, 7)[1] == 1.0
    lo, hi = wilson(np.array([0, 5, 10]), 10)
    assert lo[0] == 0.0 and hi[2] == 1.0 and lo[1] == pytest.approx(0.2366, abs=1e-4)
    assert all(math.isnan(x) for x in wilson(3, 0))
    # a 99% interval is wider than the 95% one and equals the one at z = 2.5758
    w95 = np.diff(wilson(30, 100))[0]
    w99 = wilson(30, 100, alpha=0.01)
    assert w99[1] - w99[0] > w95
    assert w99 == pytest.approx(wilson(30, 100, z=st.norm.isf(0.005)))


def test_seat_intervals_goodman_against_hand_formula():
    # Goodman (1965): chi-square with 1 df at alpha/k, per category
    counts = np.array([56, 72, 73, 59, 62, 87, 58])
    big_n, k = counts.sum(), counts.size
    a = st.chi2.isf(0.05 / k, 1)
    half = np.sqrt(a * (a + 4 * counts * (big_n - counts) / big_n))
    want = np.column_stack([(a + 2 * counts - half), (a + 2 * counts + half)]) / (2 * (big_n + a))
    np.testing.assert_allclose(seat_intervals(counts), want, rtol=1e-10)
    # simultaneous intervals are wider than each seat's own 95% Wilson interval
    lo, hi = wilson(counts, big_n)
    ci = seat_intervals(counts)
    assert np.all(ci[:, 1] - ci[:, 0] > hi - lo)
    assert seat_intervals([30, 30, 40], method="sison-glaz").shape == (3, 2)
    with pytest.raises(ValueError, match="method"):
        seat_intervals([1, 2], method="wald")
    with pytest.raises(ValueError, match="counts"):
        seat_intervals([3, -1])


def test_chi2_equal_known_table():
    # scipy's documented example: a die rolled 88 times
    r = chi2_equal([16, 18, 16, 14, 12, 12])
    assert r.statistic == pytest.approx(2.0) and r.pvalue == pytest.approx(0.84914503608460956)
    # by hand: 2 seats, 60 vs 40 of 100: (10^2 + 10^2) / 50 = 4, p = P(chi2_1 > 4)
    r = chi2_equal([60, 40])
    assert r.statistic == pytest.approx(4.0) and r.pvalue == pytest.approx(0.0455003, abs=1e-6)


def test_balance():
    assert balance([0.25, 0.25, 0.25, 0.25]) == 1.0
    assert balance([0.40, 0.30, 0.20, 0.10]) == pytest.approx(0.7)
    assert balance([1.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="rates"):
        balance([0.5, 1.2])


def _games(both, only_a, only_b, neither):
    a = np.array([1] * both + [1] * only_a + [0] * only_b + [0] * neither, dtype=bool)
    b = np.array([1] * both + [0] * only_a + [1] * only_b + [0] * neither, dtype=bool)
    return a, b


def test_square_and_add_published_value():
    # Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), section 8:
    # complete response before and after consolidation therapy (Cavo et al. 2012), the table
    # [[59, 6], [16, 80]]: Newcombe square-and-add -0.0621 (95% CI -0.1186 to -0.0046)
    lo, hi = square_and_add(59, 6, 16, 80)
    assert (round(lo, 4), round(hi, 4)) == (-0.1186, -0.0046)
    r = paired_difference(*_games(59, 6, 16, 80))
    assert round(r.diff, 4) == -0.0621 and (r.ci_low, r.ci_high) == (lo, hi)


def test_paired_difference_by_hand_and_mcnemar_exact():
    # 40 games: 12 both win, 9 only a wins, 2 only b wins, 17 neither
    a, b = _games(12, 9, 2, 17)
    r = paired_difference(a, b)
    n = 40
    assert (r.only_a, r.only_b, r.n) == (9, 2, 40)
    assert r.diff == pytest.approx(7 / 40) and r.rate_a == pytest.approx(21 / 40)
    # square and add by hand: Wilson intervals of 21/40 and 14/40, psi from the table with
    # Newcombe's adjustment ((12 * 17 - 9 * 2 - n / 2) / sqrt(21 * 19 * 14 * 26))
    l1, u1 = wilson(21, n)
    l2, u2 = wilson(14, n)
    p1, p2 = 21 / n, 14 / n
    psi = (12 * 17 - 9 * 2 - n / 2) / math.sqrt(21 * 19 * 14 * 26)
    lo = 7 / n - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2))
    hi = 7 / n + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1))
    assert r.ci_low == pytest.approx(lo, abs=1e-12) and r.ci_high == pytest.approx(hi, abs=1e-12)
    # exact McNemar: 2 * P(X <= 2), X ~ Bin(11, 1/2) = 2 * (1 + 11 + 55) / 2048
    assert r.pvalue == pytest.approx(134 / 2048)
    # chi-square with continuity correction: (|9 - 2| - 1)^2 / 11
    assert paired_difference(a, b, exact=False).pvalue == pytest.approx(st.chi2.sf(36 / 11, 1))
    # symmetric
    s = paired_difference(b, a)
    assert s.diff == -r.diff and s.ci_low == pytest.approx(-r.ci_high)
    with pytest.raises(ValueError, match="same length"):
        paired_difference(a, b[:-1])
    with pytest.raises(ValueError, match="whole numbers"):
        square_and_add(1, -1, 0, 3)


def test_constant_mean_interval_by_hand():
    # the Clopper-Pearson lower bound for n of n is (alpha / 2)^(1 / n)
    s = 0.025 ** (1 / 40)
    lo, hi = constant_mean_interval(1.0, 40, 0.0, 1.0)
    assert lo == pytest.approx(s) and hi == 1.0
    lo, hi = constant_mean_interval(0.0, 10, -1.0, 1.0)
    assert hi == pytest.approx(1 - 0.025 ** 0.1) and lo == pytest.approx(-hi)
    # with d = 1 on [-1, 1] the lower end is above 0 exactly when the sign test rejects
    for n in range(2, 12):
        assert (constant_mean_interval(1.0, n, -1.0, 1.0)[0] > 0) == (2 / 2 ** n < 0.05)


def test_paired_interval_has_width_at_the_edges():
    # the Wald interval of the per-game differences is a point here; this one is not
    same = paired_difference(*_games(540, 0, 0, 1460))  # no discordant game in 2,000
    assert same.diff == 0 and same.pvalue == 1
    assert -0.003 < same.ci_low < 0 < same.ci_high < 0.003  # about the rule of three, 3 / 2000
    one_way = paired_difference(*_games(0, 20, 0, 0))  # a won all 20 games, b none
    assert one_way.diff == 1 and one_way.ci_high == 1
    # the bound is Wilson's lower bound of 20/20 and upper of 0/20, added in squares
    lo20, hi0 = wilson(20, 20)[0], wilson(0, 20)[1]
    assert one_way.ci_low == pytest.approx(1 - math.hypot(1 - lo20, hi0))
    assert 0.7 < one_way.ci_low < 0.8


def test_paired_interval_covers_where_wald_does_not():
    # few discordant games (about 4 in 100): the square-and-add interval holds its 95% coverage
    # (98% here), the Wald interval of the per-game differences falls short of it (94%)
    rng = np.random.default_rng(5)
    probs = [0.20, 0.03, 0.01, 0.76]  # both, only a, only b, neither
    true = probs[1] - probs[2]
    n, reps = 100, 3000
    cover_sa = cover_wald = 0
    for both, oa, ob, nei in rng.multinomial(n, probs, size=reps):
        lo, hi = square_and_add(both, oa, ob, nei)
        cover_sa += lo <= true <= hi
        d = (oa - ob) / n
        se = math.sqrt(max(0.0, ((oa + ob) / n - d * d) / (n - 1)))
        cover_wald += d - 1.959964 * se <= true <= d + 1.959964 * se
    assert cover_sa / reps > 0.93
    assert cover_wald / reps < 0.95 and cover_wald / reps < cover_sa / reps - 0.03


def test_paired_interval_is_narrower_than_independent_when_arms_agree():
    rng = np.random.default_rng(11)
    luck = rng.random(2000)
    a, b = luck < 0.42, luck < 0.40  # the same seeds: the arms disagree on 2% of games
    r = paired_difference(a, b)
    se_indep = math.sqrt(a.mean() * (1 - a.mean()) / 2000 + b.mean() * (1 - b.mean()) / 2000)
    assert r.ci_high - r.ci_low < 0.5 * (2 * 1.96 * se_indep)
    assert r.ci_low > 0 and r.pvalue < 1e-6


def test_holm_hand_worked():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
    got = adjust_pvalues([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04], method="bonferroni"), [0.02, 0.08])
    assert adjust_pvalues([0.5, 0.6]).max() <= 1
    with pytest.raises(ValueError, match="p-values"):
        adjust_pvalues([0.1, 1.5])


def _cells():
    rng = np.random.default_rng(5)
    rows = []
    for spies in range(3):
        for nova in (0, 1):
            games = int(rng.integers(40, 90))
            p = 1 / (1 + math.exp(-(0.3 - 0.7 * spies + 0.5 * nova)))
            rows.append({"spies": spies, "nova": nova, "games": games,
                         "wins": int(rng.binomial(games, p))})
    return pd.DataFrame(rows)


def test_logit_effects_equals_logit_on_expanded_games():
    import statsmodels.api as sm

    cells = _cells()
    got = logit_effects(cells, "C(spies) + nova").set_index("term")
    # second implementation: one row per game, statsmodels Logit
    games = cells.loc[cells.index.repeat(cells["games"])].copy()
    games["won"] = np.concatenate([np.r_[np.ones(w), np.zeros(g - w)]
                                   for w, g in zip(cells["wins"], cells["games"])])
    x = pd.get_dummies(games["spies"], prefix="s", drop_first=True).astype(float)
    x["nova"] = games["nova"].astype(float)
    fit = sm.Logit(games["won"].to_numpy(), sm.add_constant(x).to_numpy()).fit(disp=0)
    order = ["Intercept", "C(spies)[T.1]", "C(spies)[T.2]", "nova"]
    np.testing.assert_allclose(got.loc[order, "coef"], fit.params, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got.loc[order, "p_value"], fit.pvalues, rtol=1e-5)
    ci = fit.conf_int()
    np.testing.assert_allclose(got.loc[order, "ci_low"], ci[:, 0], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(got.loc[order, "or_high"], np.exp(ci[:, 1]), rtol=1e-5)
    assert list(logit_effects(cells, "~ nova").columns) == [
        "term", "coef", "ci_low", "ci_high", "odds_ratio", "or_low", "or_high", "p_value"]


def test_logit_effects_recovers_exact_odds_ratio():
    # 300/1000 (in two cells, so the model is not saturated) vs 500/1000:
    # odds ratio (500/500) / (300/700) = 7/3
    cells = pd.DataFrame({"x": [0, 0, 1], "wins": [140, 160, 500], "games": [500, 500, 1000]})
    got = logit_effects(cells, "x").set_index("term")
    assert got.loc["x", "odds_ratio"] == pytest.approx(7 / 3, rel=1e-8)
    se = math.sqrt(1 / 300 + 1 / 700 + 1 / 500 + 1 / 500)  # Woolf's standard error
    assert got.loc["x", "or_low"] == pytest.approx(7 / 3 * math.exp(-1.959964 * se), rel=1e-5)


def test_sequential_plan_schedule_and_worst_case():
    plan = sequential_plan(0.01, n0=1000)
    assert [plan.games_at(k) for k in range(3)] == [1000, 2000, 4000]
    assert sum(plan.alpha_at(k) for k in range(40)) == pytest.approx(0.05)
    n = plan.worst_case_games()
    k = int(math.log2(n // 1000))
    assert plan.should_stop(n // 2, n, k)
    assert not plan.should_stop(plan.games_at(k - 1) // 2, plan.games_at(k - 1), k - 1)
    # every win count stops by then: a 50% rate has the widest Wilson interval
    assert all(plan.should_stop(w, n, k) for w in range(0, n + 1, n // 50))
    # a far-from-50% rate stops earlier
    assert plan.should_stop(int(0.02 * 4000), 4000, 2)
    with pytest.raises(ValueError, match="k_wins"):
        plan.should_stop(5, 4, 0)


@pytest.mark.parametrize("p", [0.5, 0.08])
def test_sequential_plan_coverage_by_simulation(p):
    plan = sequential_plan(0.04, n0=50, alpha=0.05)
    rng = np.random.default_rng(2024)
    runs = 4000
    wins = np.zeros(runs, dtype=np.int64)
    played = 0
    covered = np.zeros(runs, dtype=bool)
    stopped_at = np.zeros(runs, dtype=np.int64)
    active = np.ones(runs, dtype=bool)
    for k in range(plan.max_looks):
        n = plan.games_at(k)
        wins += rng.binomial(n - played, p, size=runs)
        played = n
        lo, hi = plan.interval(wins, n, k)
        stop = active & ((hi - lo) / 2 <= plan.target_halfwidth)
        covered[stop] = (lo[stop] <= p) & (p <= hi[stop])
        stopped_at[stop] = n
        active &= ~stop
        if not active.any():
            break
    assert not active.any()
    assert stopped_at.max() <= plan.worst_case_games()
    # at least 1 - alpha (Bonferroni over looks); 3 standard errors of slack for 4000 runs
    assert covered.mean() >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / runs)


def test_pair_table_pools_sets_containing_the_pair():
    sets = pd.DataFrame({
        "players": 3, "spies": 1,
        "characters": ["Nova,Harris,Fenn", "Nova,Harris,Fare", "Nova,Fenn,Fare"],
        "games": [10, 20, 30], "wins": [5, 4, 3]})
    t = pair_table(sets).set_index(["a", "b"])
    assert len(t) == 6
    assert tuple(t.loc[("Harris", "Nova"), ["games", "wins"]]) == (30, 9)
    assert tuple(t.loc[("Fare", "Nova"), ["games", "wins"]]) == (50, 7)
    assert tuple(t.loc[("Fenn", "Harris"), ["games", "wins"]]) == (10, 5)
    # the pair against the other sets: 9/30 vs 3/30, Fisher's exact test
    p = st.fisher_exact([[9, 21], [3, 27]])[1]
    assert t.loc[("Harris", "Nova"), "p_value"] == pytest.approx(p)
    np.testing.assert_allclose(t["p_adj"], adjust_pvalues(t["p_value"].to_numpy()))
    assert (t["significant"] == (t["p_adj"] < 0.05)).all()


def test_against_rest_is_fishers_exact_test():
    from experiments.stats import against_rest
    # a set that won 0 of 60 while the other sets won 6% (expected 3.6 wins, below the
    # chi-square's 5): the exact p, smaller here than the Yates-corrected chi-square's
    p = against_rest(0, 60, 240, 4000)
    assert p == pytest.approx(st.fisher_exact([[0, 60], [240, 3760]])[1], rel=1e-12)
    assert p < st.chi2_contingency([[0, 60], [240, 3760]], correction=True)[1]
    assert against_rest(3, 10, 3, 10) == pytest.approx(1.0)
    # nothing to compare: an empty side, or every game won (or lost) on both sides
    assert against_rest(0, 0, 5, 10) == against_rest(5, 10, 0, 0) == 1.0
    assert against_rest(0, 10, 0, 20) == against_rest(10, 10, 20, 20) == 1.0


def test_signed_drops_the_sign_of_a_rounded_zero():
    from experiments.stats import signed
    assert signed(1.234) == "+1.23" and signed(-1.234) == "-1.23"
    assert signed(-0.004) == "0.00" and signed(0.004) == "0.00" and signed(0.0) == "0.00"
    assert signed(-0.04, 1) == "0.0" and signed(-0.06, 1) == "-0.1" and signed(0.05, 1) in ("+0.1", "0.0")


def test_p_text_never_prints_zero():
    from experiments.stats import p_text
    assert p_text(0.0) == "< 1e-300" and p_text(1e-320) == "< 1e-300"
    assert p_text(0.01234) == "0.012" and p_text(3.2e-45) == "3.2e-45" and p_text(1.0) == "1"
    from experiments.stats import p_is
    assert p_is(0.0) == "p < 1e-300" and p_is(0.01234) == "p = 0.012"   # never "p = < 1e-300"


def test_rate_text_carries_the_wilson_interval():
    from experiments.stats import prose_pct as pct, rate_text
    lo, hi = wilson(27, 100)
    assert rate_text(27, 100) == f"27.0% (95% CI {pct(lo)} to {pct(hi)})"
    assert rate_text(0, 600, "") == f"0% (0% to {pct(wilson(0, 600)[1])})"


def test_wilson_refuses_impossible_counts_and_pair_table_one_policy():
    import pandas as pd
    from experiments.stats import pair_table
    with pytest.raises(ValueError, match="5 successes in 4 trials"):
        wilson(5, 4)
    with pytest.raises(ValueError, match="-1 successes"):
        wilson(np.array([1, -1]), np.array([3, 3]))
    assert np.isnan(wilson(0, 0)[0])          # no games: no interval, as documented
    sets = pd.DataFrame({"players": 2, "spies": 0, "characters": ["A,B", "A,C"], "games": 10, "wins": 3,
                         "policy": ["heuristic", "random"]})
    with pytest.raises(ValueError, match="several policies"):
        pair_table(sets)
    assert len(pair_table(sets.assign(policy="heuristic"))) == 2
