"""The report's statistics added for issue 33: what a sample can detect, intervals for means known
only by their sums, the paired t-test from counts, and the plain rounding of the front page.
Monte Carlo checks run on fixed seeds (the same numbers every run)."""
import math

import numpy as np
import pytest

from experiments.stats import (bounded_mean_interval, detectable_difference, detectable_from_interval,
                               mean_interval, plain_pct, plain_pp, weighted_mean_test)


def _z_test_rejects(k1, n1, k2, n2, alpha):
    """The two-proportion z-test (pooled variance; statsmodels) at level alpha, vectorized."""
    from statsmodels.stats.proportion import proportions_ztest
    out = []
    for a, b in zip(k1, k2):
        if a + b in (0, n1 + n2):
            out.append(False)
            continue
        out.append(proportions_ztest([a, b], [n1, n2])[1] < alpha)
    return np.array(out)


def test_detectable_difference_is_found_80_percent_of_the_time():
    """Simulated at the returned difference, the test finds it in about 80% of samples (1,000
    samples on a fixed seed: 80% +- 4 points covers the binomial noise, 95% +- 1.3 std errors)."""
    rng = np.random.default_rng(33)
    n1, n2, p0 = 400, 4000, 0.30
    d = detectable_difference(n1, p0, n2, direction=-1)
    assert 0.05 < d < 0.10
    k1 = rng.binomial(n1, p0 - d, 1000)
    k2 = rng.binomial(n2, p0, 1000)
    power = _z_test_rejects(k1, n1, k2, n2, 0.05).mean()
    assert 0.76 <= power <= 0.84, power
    # a smaller effect is found less often: the figure is the smallest with 80%
    k1 = rng.binomial(n1, p0 - 0.6 * d, 1000)
    assert _z_test_rejects(k1, n1, k2, n2, 0.05).mean() < 0.6


def test_a_set_of_60_games_cannot_find_a_10_point_weakness():
    """The issue's example: 60 games per character set at Holm's first level over 28 sets find a
    10-point weakness rarely; the smallest they find with 80% chance is far larger."""
    d = detectable_difference(60, 0.28, 60 * 27, alpha=0.05 / 28, direction=-1)
    assert d > 0.15
    one_sample = detectable_difference(4000, 1 / 3, None, direction=1)   # seat 1 against a fixed 1/3
    assert 0.02 < one_sample < 0.03
    assert math.isnan(detectable_difference(5, 0.01, 5, alpha=0.001, direction=-1))   # no rate below 0 is far enough


def test_detectable_from_interval_is_143_half_widths():
    assert detectable_from_interval(-0.05, 0.05) == pytest.approx(0.05 * (1.959964 + 0.841621) / 1.959964, rel=1e-5)
    # a stricter level (Holm's first) asks for a larger effect
    assert detectable_from_interval(-0.05, 0.05, alpha=0.05 / 40) > detectable_from_interval(-0.05, 0.05)


def test_bounded_mean_interval_covers_at_least_95_percent_for_the_worst_spread():
    """Pieces built per lost game (0..6), only the sum known: the interval uses the largest variance
    the mean allows, so it covers even the two-point distribution that has it."""
    rng = np.random.default_rng(7)
    n, m = 50, 4.2
    p = m / 6                                   # 0 or 6 pieces: the largest spread with mean m
    hits = 0
    for _ in range(2000):
        x = 6 * (rng.random(n) < p)
        lo, hi = bounded_mean_interval(x.sum(), n, 0, 6)
        hits += lo <= m <= hi
    assert hits / 2000 >= 0.94
    from experiments.stats import wilson
    lo, hi = bounded_mean_interval(0, 10, 0, 6)   # no piece in 10 lost games: 0 to Wilson's bound, not a point
    assert lo == 0.0 and hi == pytest.approx(6 * wilson(0, 10)[1])
    assert all(math.isnan(v) for v in bounded_mean_interval(0, 0, 0, 6))


def test_mean_interval_from_sums_is_scipys_t_interval():
    from scipy import stats
    x = np.array([3, 9, 4, 7, 7, 12, 5, 8, 6, 6], dtype=float)
    m, lo, hi = mean_interval(x.sum(), (x * x).sum(), len(x))
    want = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert m == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(want)


def test_weighted_mean_test_equals_the_test_on_the_expanded_data():
    from statsmodels.stats.weightstats import DescrStatsW
    values, weights = np.array([-1, 0, 1, 2]), np.array([3, 40, 9, 2])
    m, lo, hi, p = weighted_mean_test(values, weights)
    x = np.repeat(values, weights)
    d = DescrStatsW(x.astype(float))
    assert m == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(d.tconfint_mean())
    assert p == pytest.approx(d.ttest_mean(0)[1])
    # every seed shows the same difference: not a point interval, and p the exact bound's
    m, lo, hi, p = weighted_mean_test([1], [12])
    assert m == 1 and lo < 1 < hi and 0 < lo and p == pytest.approx(2 * 1.5 ** -12)
    assert weighted_mean_test([0], [30])[3] == 1.0


@pytest.mark.parametrize("x,text", [(0.2634, "26%"), (0.004, "0.4%"), (0.00004, "0.004%"), (0, "0%"),
                                    (1, "100%"), (0.9997, "99.97%"), (0.996, "99.6%"), (0.951, "95%")])
def test_plain_pct_rounds_as_a_designer_says_it(x, text):
    assert plain_pct(x) == text


def test_plain_pp_claims_no_direction_for_zero():
    assert plain_pp(0.0612) == "+6 pp" and plain_pp(-0.004) == "-0.4 pp" and plain_pp(0.0004) == "0 pp"
    assert plain_pp(-0.07, sign=False) == "-7 pp" and plain_pp(0.07, sign=False) == "7 pp"
