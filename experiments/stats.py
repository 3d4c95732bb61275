"""Statistics for reports: every rate is printed with its 95% interval.

The computations are scipy's and statsmodels'; this module only picks the method, fixes the
conventions (95%, exact 0/1 endpoints, counts in, named results out) and says why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

# scipy.stats and statsmodels take about a second to import: they are imported where they are
# used, so that `boardsim ... simulate` starts fast (its warm start is a benchmark row)


def _scipy_stats():
    from scipy import stats
    return stats

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(k, n, z: float = Z95, *, alpha: float | None = None):
    """The Wilson score interval for k successes in n trials (Wilson 1927), by statsmodels'
    proportion_confint(method="wilson"). Unlike the normal approximation it stays inside [0, 1]
    and behaves at k = 0 or k = n, which matters here: win rates of weak policies are often 0 in
    millions of games. The endpoints at k = 0 and k = n are exactly 0 and 1.

    The level is 95% (z = 1.96) unless `alpha` (two-sided) or `z` says otherwise. Scalars in,
    a (lo, hi) tuple of floats out; arrays in, a (lo, hi) tuple of arrays out; n <= 0 gives NaN;
    k outside 0..n is a ValueError (it gave NaN silently before 2026-12-01).
    """
    if alpha is None:
        alpha = 2 * _scipy_stats().norm.sf(z)
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    k_b, n_b = np.broadcast_arrays(k_arr, n_arr)
    ok = n_b > 0
    bad = ok & ((k_b < 0) | (k_b > n_b))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise ValueError(f"wilson: {k_b.ravel()[i]:g} successes in {n_b.ravel()[i]:g} trials; allowed: 0 to the trials")
    lo = np.full(k_b.shape, np.nan)
    hi = np.full(k_b.shape, np.nan)
    if ok.any():
        from statsmodels.stats.proportion import proportion_confint
        lo_ok, hi_ok = proportion_confint(k_b[ok], n_b[ok], alpha=alpha, method="wilson")
        lo[ok] = np.clip(np.where(k_b[ok] == 0, 0.0, lo_ok), 0.0, 1.0)
        hi[ok] = np.clip(np.where(k_b[ok] == n_b[ok], 1.0, hi_ok), 0.0, 1.0)
    if lo.ndim == 0:
        return (float(lo), float(hi))
    return (lo, hi)


def signed(x: float, digits: int = 2) -> str:
    """A signed difference (already in the unit printed) with `digits` decimals; a value that
    rounds to zero prints as 0.00, with no sign ("+0.00" or "-0.00" would claim a direction)."""
    s = f"{x:+.{digits}f}"
    return s[1:] if float(s) == 0 else s


def rate_text(k, n, ci_word: str = "95% CI ") -> str:
    """k of n as a rate with its Wilson 95% interval, as the report's prose says it (``prose_pct``):
    "27.0% (95% CI 23.6% to 30.7%)"."""
    lo, hi = wilson(int(k), int(n))
    return f"{prose_pct(k / n)} ({ci_word}{prose_pct(lo)} to {prose_pct(hi)})"


def p_text(p: float) -> str:
    """A p-value in text, two significant digits; one too small for a float (scipy returns 0.0
    below about 1e-308) prints as "< 1e-300", never as "0", which would claim certainty."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def p_is(p: float) -> str:
    """"p = 0.012", or "p < 1e-300" where p_text gives a bound (never "p = < 1e-300")."""
    t = p_text(p)
    return f"p {t}" if t.startswith("<") else f"p = {t}"


def pct(x: float) -> str:
    """A rate as a percentage that never hides a small bound: 3 decimals from 0.1%, else 3
    significant digits (0 wins in a million games: CI 0% to 0.000384%, not 0.000% to 0.000%)."""
    if x == 0:
        return "0%"
    v = 100 * x
    return f"{v:.3f}%" if v >= 0.1 else f"{v:.3g}%"


def prose_pct(x: float) -> str:
    """A rate as the report's sentences say it: one decimal from 1% ("48.7%"; the report's tables
    and the CLI keep ``pct``'s three), two significant digits below (a small bound stays visible:
    "0.038%"), and never "100.0%" or "0.0%" for a rate that is not exactly that."""
    if x == 0:
        return "0%"
    if x == 1:
        return "100%"
    v = 100 * x
    if v < 1:
        return f"{v:.2g}%"
    s = f"{v:.1f}"
    if s == "100.0":   # 99.95% or more but not all: as many decimals as it takes to show it is not 100
        s = f"{v:.6g}"
    return s + "%"


def spies_label(n) -> str:
    """'1 spy', '2 spies': a Bethel Woods spy count as the report's text and charts name it."""
    return f"{int(n)} spy" if int(n) == 1 else f"{int(n)} spies"


def _counts(counts) -> np.ndarray:
    c = np.asarray(counts)
    if c.ndim != 1 or c.size < 2:
        raise ValueError(f"counts must be a 1-D list of at least 2 counts, got shape {c.shape}")
    if np.any(c < 0) or np.any(c != np.round(c)):
        raise ValueError(f"counts must be whole numbers >= 0, got {c.tolist()}")
    return c.astype(np.int64)


def seat_intervals(counts, method: str = "goodman", alpha: float = 0.05) -> np.ndarray:
    """Simultaneous 95% intervals for the shares of a multinomial (wins per seat, one winner per
    game): all k intervals cover their true shares together with probability ~95%, so a reader
    may compare any seats with one another. Returns an array of shape (k, 2): lower, upper.

    Goodman (1965), by statsmodels' multinomial_proportions_confint, is the default because a
    table has 2 to 4 seats: Goodman holds for any number of categories once every count is
    >= 5, while Sison-Glaz (1995) rests on an Edgeworth expansion that needs about 7 or more
    categories (statsmodels' notes). With 2-4 seats Goodman is a little conservative, never
    optimistic. method="sison-glaz" is passed through for callers with many categories.
    """
    c = _counts(counts)
    if method not in ("goodman", "sison-glaz"):
        raise ValueError(f"method must be 'goodman' or 'sison-glaz', got {method!r}")
    from statsmodels.stats.proportion import multinomial_proportions_confint
    return np.asarray(multinomial_proportions_confint(c, alpha=alpha, method=method), dtype=float)


class TestResult(NamedTuple):
    statistic: float
    pvalue: float


def chi2_equal(counts) -> TestResult:
    """Pearson's chi-square test of the counts against equal shares (scipy.stats.chisquare):
    do the seats win equally often? Returns (statistic, pvalue); k - 1 degrees of freedom."""
    c = _counts(counts)
    r = _scipy_stats().chisquare(c)
    return TestResult(float(r.statistic), float(r.pvalue))


SEATS_DIFFER, SEATS_ALIKE = "the seats are NOT equal", "no evidence the seats differ"


def seats_verdict(p: float) -> str:
    """Do the seats win equally often? The answer to a chi-square p-value against equal seats."""
    return SEATS_DIFFER if p < 0.05 else SEATS_ALIKE


class SeatFairness(NamedTuple):
    decided: int          # the games some seat won (a timeout is won by no seat)
    shares: np.ndarray    # each seat's share of the decided games
    ci: np.ndarray        # (seats, 2): simultaneous (Goodman) 95% intervals of the shares
    chi2: TestResult      # Pearson's chi-square against equal shares

    @property
    def verdict(self) -> str:
        return seats_verdict(self.chi2.pvalue) if self.decided else "no game decided"


def seat_fairness(wins) -> SeatFairness:
    """Are the seats fair? The seats study's answer (and `benevolent simulate`'s): each seat's share
    of the decided games with simultaneous Goodman intervals, and the chi-square test against equal
    seats; nan throughout when no game was decided."""
    wins = [int(w) for w in wins]
    decided = sum(wins)
    if not decided:
        nan = np.full(len(wins), np.nan)
        return SeatFairness(0, nan, np.full((len(wins), 2), np.nan), TestResult(np.nan, np.nan))
    return SeatFairness(decided, np.array(wins) / decided, seat_intervals(wins), chi2_equal(wins))


def balance(rates) -> float:
    """Ludii's Balance metric: 1 - (max - min) over the seats' win rates. 1 is perfectly
    balanced; 0 means one seat always wins and another never does."""
    r = np.asarray(rates, dtype=float)
    if r.size == 0 or np.any(~np.isfinite(r)) or np.any((r < 0) | (r > 1)):
        raise ValueError(f"rates must be finite win rates in [0, 1], got {r.tolist()}")
    return float(1.0 - (r.max() - r.min()))


@dataclass(frozen=True)
class PairedDifference:
    """rate_a - rate_b on the same seeds, its 95% interval, and McNemar's test of equality."""
    diff: float
    ci_low: float
    ci_high: float
    rate_a: float
    rate_b: float
    n: int
    only_a: int  # games won by a and lost by b (the discordant pairs carry all the information)
    only_b: int
    pvalue: float


def square_and_add(both, only_a, only_b, neither, *, alpha: float = 0.05) -> tuple[float, float]:
    """The 95% interval of rate_a - rate_b from a paired 2x2 table of counts: Newcombe's
    square-and-add interval for paired proportions (Newcombe 1998, Statistics in Medicine 17,
    2635-2650, method 10; Fagerland, Lydersen and Laake, Statistical Analysis of Contingency
    Tables, 2017, section 8.6), made from the Wilson intervals of the two rates (``wilson``, by
    statsmodels) and their estimated correlation psi, with Newcombe's continuity adjustment of
    psi. Unlike the Wald interval it stays inside [-1, 1] and has width at the edges: with no
    discordant game it is a small interval around 0 (no game changed, so the difference is
    small, not known to be exactly 0), and with every game discordant one way it is not a point.

    both: games both won; only_a / only_b: games only a / only b won; neither: the rest.
    """
    counts = (both, only_a, only_b, neither)
    if any(int(c) != c or c < 0 for c in counts):
        raise ValueError(f"counts must be whole numbers >= 0, got {list(counts)}")
    n = both + only_a + only_b + neither
    if n <= 0:
        raise ValueError("need at least 1 paired game")
    a_won, b_won = both + only_a, both + only_b
    a_lost, b_lost = n - a_won, n - b_won
    if min(a_won, a_lost, b_won, b_lost) == 0:
        psi = 0.0
    else:
        cross = float(both) * neither - float(only_a) * only_b
        root = math.sqrt(float(a_won) * a_lost * b_won * b_lost)
        psi = (cross - n / 2) / root if cross > n / 2 else (0.0 if cross >= 0 else cross / root)
    # square and add: each rate's distance to its Wilson bound, combined with the correlation
    p1, p2 = a_won / n, b_won / n
    l1, u1 = wilson(a_won, n, alpha=alpha)
    l2, u2 = wilson(b_won, n, alpha=alpha)
    dl = math.sqrt(max(0.0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2)))
    du = math.sqrt(max(0.0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1)))
    d = p1 - p2
    return (max(-1.0, d - dl), min(1.0, d + du))


def paired_difference(a, b, *, exact: bool = True) -> PairedDifference:
    """The difference of two win rates measured on the same seeds (game i of a and game i of b
    share their chance events), e.g. two policies or two rule variants.

    Interval: Newcombe's square-and-add interval for paired proportions (``square_and_add``),
    the interval Fagerland, Lydersen and Laake recommend for the paired 2x2 table. Pairing makes
    it much narrower than an interval for independent samples when the two arms agree on most
    games (the correlation psi). At 20,000 games it agrees with the Wald interval of the per-game
    differences, which boardsim printed before 2026-11-30, to about 0.01 of a point (0.2 at 600
    games); at a few discordant games it is the honest one: the Wald interval covers too little
    when they are few, and collapses to a point when no game is discordant or every game is
    discordant the same way.
    The result carries the discordant counts (only_a, only_b), which hold all the information.

    p-value: McNemar's test on the discordant games (statsmodels contingency_tables.mcnemar),
    exact binomial by default (valid at any count), chi-square with continuity correction when
    exact=False; 1 when no game is discordant.
    """
    from statsmodels.stats.contingency_tables import mcnemar

    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-D of the same length, got {a.shape} and {b.shape}")
    if a.size < 2:
        raise ValueError(f"need at least 2 paired games, got {a.size}")
    a = a.astype(bool)
    b = b.astype(bool)
    n = int(a.size)
    only_a = int(np.sum(a & ~b))
    only_b = int(np.sum(~a & b))
    both = int(np.sum(a & b))
    neither = n - only_a - only_b - both
    diff = (only_a - only_b) / n
    lo, hi = square_and_add(both, only_a, only_b, neither)
    if only_a + only_b == 0:
        p = 1.0
    else:
        p = float(mcnemar([[both, only_a], [only_b, neither]], exact=exact, correction=True).pvalue)
    return PairedDifference(float(diff), float(lo), float(hi), float(a.mean()),
                            float(b.mean()), n, only_a, only_b, p)


def independent_difference(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[float, float, float]:
    """The difference of two win rates from independent games (two cells of a study), k1/n1 -
    k2/n2, with Newcombe's hybrid score interval (statsmodels confint_proportions_2indep,
    method "newcomb": the two Wilson intervals combined), which keeps its width at 0 or all wins."""
    from statsmodels.stats.proportion import confint_proportions_2indep
    lo, hi = confint_proportions_2indep(int(k1), int(n1), int(k2), int(n2), method="newcomb",
                                        compare="diff", alpha=alpha)
    return k1 / n1 - k2 / n2, float(lo), float(hi)


def constant_mean_interval(value: float, n: int, low: float, high: float, alpha: float = 0.05):
    """A 95% interval for the mean of a quantity bounded in [low, high] when all n observations
    equal `value` (where a t interval would be a point). Nothing is assumed about the spread: at
    least a share s of the population equals `value`, s the exact (Clopper-Pearson, statsmodels)
    lower bound for n out of n, and the rest could lie anywhere in [low, high], so the mean lies
    in [s value + (1 - s) low, s value + (1 - s) high]. Its lower end is above 0 for value = high
    = 1 and low = -1 exactly when the sign test rejects (p = 2 / 2^n < alpha: n >= 6 at 95%)."""
    from statsmodels.stats.proportion import proportion_confint
    s = float(proportion_confint(n, n, alpha=alpha, method="beta")[0])
    return (s * value + (1 - s) * low, s * value + (1 - s) * high)


def paired_difference_by_deal(a, b) -> PairedDifference:
    """The difference of two win rates measured on the same deals when every deal is several
    paired games: ``a`` and ``b`` are 0/1 arrays of shape (deals, games per deal), entry (d, k)
    of ``a`` paired with entry (d, k) of ``b`` (e.g. the same deal and seat, a's policy or b's in
    that seat). The games of one deal are not independent (with seats rotated against the same
    opponents they are strongly correlated: in the all-default game exactly one seat wins), so
    the deal is the unit: the interval is the t interval of the per-deal mean differences
    (statsmodels DescrStatsW.tconfint_mean) and the p-value the one-sample t-test of their mean
    against 0 (ttest_mean, two-sided). The difference itself is a's rate minus b's over all
    games; only_a / only_b count the discordant games (won by a and not b in the same slot, and
    the reverse).

    When every deal shows the same difference d (a tiny run: 10 deals all won by a) the t
    interval is a point. Then the interval bounds the mean per-deal difference without assuming
    its spread (``constant_mean_interval`` on [-1, 1]: at least a share s of the deals, s the
    Clopper-Pearson lower bound of deals/deals, (alpha/2)^(1/deals), at d, the rest anywhere), and
    p is the one that interval inverts: the smallest alpha at which it excludes 0,
    min(1, 2 (1 + |d|)^-deals) (1 when d is 0). With d = +-1 that is the exact sign test on the
    deals, 2 / 2^deals; with |d| < 1 it is larger, as the interval is wider. So p < 0.05 exactly
    when the interval excludes 0 (before 2026-12-01 p was the sign test's for every d, and with d
    = 0.5 it could fall below 0.05 while the interval held 0)."""
    from statsmodels.stats.weightstats import DescrStatsW

    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"a and b must be 2-D (deals, games per deal) of the same shape, got {a.shape} and {b.shape}")
    if a.shape[0] < 2 or a.shape[1] < 1:
        raise ValueError(f"need at least 2 deals of at least 1 game, got shape {a.shape}")
    a = a.astype(bool)
    b = b.astype(bool)
    per_deal = a.mean(axis=1) - b.mean(axis=1)
    diff = float(per_deal.mean())
    whole = a.sum(axis=1, dtype=np.int64) - b.sum(axis=1, dtype=np.int64)  # compared exactly, unlike the means
    if np.all(whole == whole[0]):
        # every deal shows the same difference d: the t interval would be a point
        deals = a.shape[0]
        d = whole[0] / a.shape[1]
        lo, hi = constant_mean_interval(d, deals, -1.0, 1.0)
        # the interval excludes 0 iff s > 1 / (1 + |d|), i.e. alpha > 2 (1 + |d|)^-deals
        p = 1.0 if d == 0 else min(1.0, 2.0 * (1.0 + abs(float(d))) ** -deals)
    else:
        ds = DescrStatsW(per_deal)
        lo, hi = ds.tconfint_mean(alpha=0.05)
        p = float(ds.ttest_mean(0.0)[1])
    return PairedDifference(diff, float(max(lo, -1.0)), float(min(hi, 1.0)), float(a.mean()), float(b.mean()),
                            int(a.size), int(np.sum(a & ~b)), int(np.sum(~a & b)), p)


def adjust_pvalues(p, method: str = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons (statsmodels multipletests): Holm's step-down
    by default, which controls the family-wise error rate like Bonferroni but rejects more.
    Other statsmodels methods ("bonferroni", "fdr_bh", ...) pass through."""
    from statsmodels.stats.multitest import multipletests

    arr = np.asarray(p, dtype=float)
    if arr.ndim != 1 or np.any(~np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"p must be a 1-D list of p-values in [0, 1], got {arr.tolist()}")
    if arr.size == 0:
        return arr
    return multipletests(arr, alpha=0.05, method=method)[1]


def logit_effects(frame: pd.DataFrame, formula: str) -> pd.DataFrame:
    """A logistic regression of the win rate on cell covariates: statsmodels GLM, Binomial family,
    fitted to [wins, losses] per row, so a row is a cell (e.g. one character set at one player
    count) with columns `wins` and `games`, not one game. `formula` is the right-hand side
    ("C(spies) + Nova + Harris" or "~ C(spies) + ..."); the response is added here.

    Returns one row per term: term, coef (log odds), ci_low, ci_high (95% Wald), odds_ratio,
    or_low, or_high, p_value (Wald z test). Same coefficients as a Logit on the per-game rows.
    """
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    for col in ("wins", "games"):
        if col not in frame.columns:
            raise ValueError(f"frame needs a {col!r} column, has {list(frame.columns)}")
    if (frame["wins"] < 0).any() or (frame["wins"] > frame["games"]).any():
        raise ValueError("every row needs 0 <= wins <= games")
    rhs = formula.split("~", 1)[1] if "~" in formula else formula
    data = frame.copy()
    data["_losses"] = data["games"] - data["wins"]
    fit = smf.glm(f"wins + _losses ~ {rhs}", data, family=sm.families.Binomial()).fit()
    ci = fit.conf_int(alpha=0.05)
    out = pd.DataFrame({
        "term": fit.params.index,
        "coef": fit.params.to_numpy(),
        "ci_low": ci.iloc[:, 0].to_numpy(),
        "ci_high": ci.iloc[:, 1].to_numpy(),
    })
    out["odds_ratio"] = np.exp(out["coef"])
    out["or_low"] = np.exp(out["ci_low"])
    out["or_high"] = np.exp(out["ci_high"])
    out["p_value"] = fit.pvalues.to_numpy()
    return out.reset_index(drop=True)


def against_rest(wins, games, rest_wins, rest_games) -> float:
    """Two-sided p-value of one group's win rate against the rest's: Fisher's exact test of the
    2x2 table (scipy). Exact at any size, where the chi-square's approximation fails when an
    expected count is below 5: a set that won 0 of 60 games while the rest won 6% expects 3.6
    wins. 1.0 when a side is empty or every game has the same outcome."""
    lost, rest_lost = games - wins, rest_games - rest_wins
    if games <= 0 or rest_games <= 0 or wins + rest_wins == 0 or lost + rest_lost == 0:
        return 1.0
    return float(_scipy_stats().fisher_exact([[wins, lost], [rest_wins, rest_lost]])[1])


def pair_table(sets: pd.DataFrame) -> pd.DataFrame:
    """Win rates of character pairs, from win counts per character set.

    `sets` has columns players, spies, characters ("Nova,Harris,Fare"), games, wins. For each
    (players, spies) and each pair of characters that occur together, the games and wins of
    all sets containing both are pooled. The pair is compared with the other sets of the same
    (players, spies) by Fisher's exact test of the 2x2 table (``against_rest``), and the
    p-values are Holm-adjusted within each (players, spies).
    With 2 players a pair IS a set, so this is each set against the rest.

    Returns columns players, spies, a, b (the pair, a < b in the order of first appearance),
    games, wins, rate, p_value, p_adj, significant (p_adj < 0.05). One policy's sets only: a
    frame with several policies would pool them, so it is refused.
    """
    need = {"players", "spies", "characters", "games", "wins"}
    missing = need - set(sets.columns)
    if missing:
        raise ValueError(f"sets needs columns {sorted(missing)}, has {list(sets.columns)}")
    if "policy" in sets.columns and sets["policy"].nunique() > 1:
        raise ValueError(f"sets holds several policies ({', '.join(map(str, sets['policy'].unique()))}); "
                         "pass one policy's sets (pairs would be pooled across them)")
    rows = []
    for (players, spies), g in sets.groupby(["players", "spies"], sort=True):
        tot_games, tot_wins = int(g["games"].sum()), int(g["wins"].sum())
        acc: dict[tuple[str, str], list[int]] = {}
        for chars, games, wins in zip(g["characters"], g["games"], g["wins"]):
            names = [c.strip() for c in str(chars).split(",") if c.strip()]
            for i in range(len(names)):
                for j in range(i + 1, len(names)):
                    key = (names[i], names[j]) if names[i] <= names[j] else (names[j], names[i])
                    cell = acc.setdefault(key, [0, 0])
                    cell[0] += int(games)
                    cell[1] += int(wins)
        block = []
        for (a, b), (games, wins) in acc.items():
            rest_g, rest_w = tot_games - games, tot_wins - wins
            p = against_rest(wins, games, rest_w, rest_g)
            block.append({"players": players, "spies": spies, "a": a, "b": b, "games": games,
                          "wins": wins, "rate": wins / games if games else float("nan"),
                          "p_value": p})
        if block:
            adj = adjust_pvalues([r["p_value"] for r in block])
            for r, q in zip(block, adj):
                r["p_adj"] = float(q)
                r["significant"] = bool(q < 0.05)
            rows.extend(block)
    cols = ["players", "spies", "a", "b", "games", "wins", "rate", "p_value", "p_adj",
            "significant"]
    return pd.DataFrame(rows, columns=cols)


@dataclass(frozen=True)
class SequentialPlan:
    """A stopping rule for "play until the win rate is known to +-target", valid under repeated
    looks at the data.

    Look k (k = 0, 1, 2, ...) comes after n_k = n0 * 2**k games and computes the Wilson interval
    at level 1 - alpha_k with alpha_k = alpha / 2**(k+1). The alpha_k add up to alpha, so by
    Bonferroni's inequality the probability that ANY look's interval misses the true rate is at
    most alpha: the interval reported when the rule stops (`interval`) covers with probability
    at least 1 - alpha, however the stopping depended on the data. Looking at a plain 95%
    interval after every batch and stopping when it is narrow enough would not have that
    guarantee. The game counts n_k must be fixed in advance (use `games_at`), not chosen from
    the data. Stop when the half-width is <= target.
    """
    target_halfwidth: float
    n0: int = 1000
    alpha: float = 0.05
    max_looks: int = 40

    def __post_init__(self):
        if not 0 < self.target_halfwidth < 0.5:
            raise ValueError(f"target_halfwidth must be in (0, 0.5), got {self.target_halfwidth}")
        if self.n0 < 1:
            raise ValueError(f"n0 must be >= 1, got {self.n0}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")

    def games_at(self, look_index: int) -> int:
        """n_k: the number of games played at look k."""
        return self.n0 * 2 ** look_index

    def alpha_at(self, look_index: int) -> float:
        """alpha_k = alpha / 2**(k+1): the error spent at look k."""
        if look_index < 0:
            raise ValueError(f"look_index must be >= 0, got {look_index}")
        return self.alpha / 2 ** (look_index + 1)

    def interval(self, k_wins: int, n: int, look_index: int) -> tuple[float, float]:
        """The Wilson interval at level 1 - alpha_k: the one to report when stopping here."""
        return wilson(k_wins, n, alpha=self.alpha_at(look_index))

    def halfwidth(self, k_wins: int, n: int, look_index: int) -> float:
        lo, hi = self.interval(k_wins, n, look_index)
        return (hi - lo) / 2

    def should_stop(self, k_wins: int, n: int, look_index: int) -> bool:
        """True when the interval at this look is narrow enough (or the last look is reached)."""
        if not 0 <= k_wins <= n or n < 1:
            raise ValueError(f"need 0 <= k_wins <= n and n >= 1, got k_wins={k_wins}, n={n}")
        if look_index >= self.max_looks - 1:
            return True
        return self.halfwidth(k_wins, n, look_index) <= self.target_halfwidth

    def worst_case_games(self, target: float | None = None) -> int:
        """The n_k at which the rule certainly stops: the first look whose interval at a 50%
        win rate (the widest Wilson interval for a given n) is narrow enough."""
        t = self.target_halfwidth if target is None else target
        for k in range(self.max_looks):
            n = self.games_at(k)
            if n % 2 == 0 and self.halfwidth(n // 2, n, k) <= t:
                return n
            if n % 2 == 1 and max(self.halfwidth(n // 2, n, k),
                                  self.halfwidth(n // 2 + 1, n, k)) <= t:
                return n
        return self.games_at(self.max_looks - 1)


def sequential_plan(target_halfwidth: float, n0: int = 1000, alpha: float = 0.05,
                    max_looks: int = 40) -> SequentialPlan:
    """A SequentialPlan (see its docstring): looks at n0 * 2**k games, Bonferroni alpha spending
    alpha / 2**(k+1), stop when the Wilson half-width is <= target_halfwidth."""
    return SequentialPlan(target_halfwidth, n0, alpha, max_looks)


# ---------------------------------------------------------------------------------------------
# what a sample can detect, and intervals for means (issue 33)

POWER = 0.80   # "the smallest effect the sample had an 80% chance to find"


def detectable_difference(n1, p0: float, n2=None, *, alpha: float = 0.05, power: float = POWER,
                          direction: int = -1) -> float:
    """The smallest difference of a win rate from p0 that a two-sided test at level `alpha` finds
    with probability `power` (statsmodels NormalIndPower on Cohen's arcsine effect size h, the
    normal approximation of the two-proportion test): n1 games of the group tested against n2
    games at the rate p0 (n2=None: p0 is a fixed value, the one-sample test). direction -1 asks
    for a rate below p0, +1 above it. Returns the difference as a positive rate (0.12 = 12
    points); nan when no rate in [0, 1] that far from p0 is detectable at this size."""
    from statsmodels.stats.power import NormalIndPower
    if n1 <= 0 or (n2 is not None and n2 <= 0):
        return float("nan")
    ratio = 0.0 if n2 is None else float(n2) / float(n1)
    h = float(NormalIndPower().solve_power(effect_size=None, nobs1=float(n1), alpha=alpha,
                                           power=power, ratio=ratio))
    phi0 = 2 * math.asin(math.sqrt(min(max(p0, 0.0), 1.0)))
    phi1 = phi0 + direction * h
    if not 0.0 <= phi1 <= math.pi:
        return float("nan")
    return abs(math.sin(phi1 / 2) ** 2 - p0)


def games_to_notice(p1: float, p2: float, power: float = POWER, alpha: float = 0.05) -> float:
    """Games at each of two setups a playtest group needs to tell win rates p1 and p2 apart with
    this power at this two-sided level (statsmodels: NormalIndPower on Cohen's h, the normal
    approximation of the two-proportion test, independent games); inf when p1 == p2, nan when
    either is unknown. The playtests-to-notice figure of the front page (docs/studies.md)."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize
    if not (np.isfinite(p1) and np.isfinite(p2)):
        return float("nan")
    h = abs(float(proportion_effectsize(p1, p2)))
    if h < 1e-9:
        return float("inf")
    return float(math.ceil(NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=1.0)))


def games_to_notice_edge(share: float, fair: float, power: float = POWER, alpha: float = 0.05) -> float:
    """Decided games a playtest group needs to tell a seat's share from the fair share (one sample
    against a fixed proportion, statsmodels NormalIndPower with ratio 0); inf at no edge."""
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize
    if not np.isfinite(share):
        return float("nan")
    h = abs(float(proportion_effectsize(share, fair)))
    if h < 1e-9:
        return float("inf")
    return float(math.ceil(NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=0.0)))


def notice_text(n: float) -> str:
    """A playtest count as the front page says it: "1,234", "never" (no difference) or "n/a"."""
    if n == float("inf"):
        return "never (no difference)"
    return f"{int(n):,}" if np.isfinite(n) else "n/a"


def detectable_from_interval(lo: float, hi: float, *, alpha: float = 0.05, power: float = POWER) -> float:
    """The smallest effect a test at level `alpha` finds with probability `power`, for an
    estimate whose 95% interval is [lo, hi] and roughly normal: its standard error is the
    half-width over z(0.975), and the effect is (z(1 - alpha/2) + z(power)) standard errors (the
    usual normal power formula; at alpha 0.05 and 80% power, 1.43 half-widths)."""
    st = _scipy_stats()
    se = (hi - lo) / 2 / Z95
    return float((st.norm.ppf(1 - alpha / 2) + st.norm.ppf(power)) * se)


def bounded_mean_interval(total: float, n: int, low: float, high: float, alpha: float = 0.05):
    """A conservative 95% interval for the mean of a quantity bounded in [low, high] when only its
    sum over n observations is known (no sum of squares): the quantity rescaled to [0, 1] has a
    variance of at most m(1 - m) at mean m (the Bhatia-Davis inequality), the Bernoulli variance,
    so Wilson's score interval of the rescaled mean (``wilson``, which takes that variance at every
    candidate mean) covers as it does for 0/1 outcomes, the worst case, and more for any other
    spread. Used for Daydreamer pieces built per lost game (0 to 6). (nan, nan) for n = 0. (A normal
    interval with the variance at the estimated mean covered 93.6% in that worst case: tested.)"""
    if n <= 0:
        return (float("nan"), float("nan"))
    span = high - low
    lo, hi = wilson((total - n * low) / span, n, alpha=alpha)
    return (low + span * lo, low + span * hi)


def mean_interval(total: float, total_sq: float, n: int, alpha: float = 0.05):
    """The t interval of a mean from the sum and the sum of squares of n observations (scipy's t
    quantile; the sample variance with n - 1). (mean, lo, hi); the interval is nan for n < 2."""
    if n <= 0:
        return (float("nan"), float("nan"), float("nan"))
    m = total / n
    if n < 2:
        return (m, float("nan"), float("nan"))
    var = max(0.0, (total_sq - n * m * m) / (n - 1))
    half = float(_scipy_stats().t.ppf(1 - alpha / 2, n - 1)) * math.sqrt(var / n)
    return (m, m - half, m + half)


def weighted_mean_test(values, weights):
    """Mean of `values` counted `weights` times each (e.g. per-seed differences and how many
    seeds show each), with its t interval and the one-sample t-test of mean 0 (statsmodels
    DescrStatsW; the weights are frequencies). When every observation is the same value d the t
    interval is a point: then ``constant_mean_interval`` on [-2, 2] bounds it, and p is 1 for d
    = 0. Returns (mean, lo, hi, p)."""
    from statsmodels.stats.weightstats import DescrStatsW
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    keep = w > 0
    v, w = v[keep], w[keep]
    n = int(w.sum())
    if n < 2:
        return (float(v[0]) if n else float("nan"), float("nan"), float("nan"), 1.0)
    if np.all(v == v[0]):
        lo, hi = constant_mean_interval(float(v[0]), n, -2.0, 2.0)
        return (float(v[0]), lo, hi, 1.0 if v[0] == 0 else float(min(1.0, 2.0 * (1 + abs(v[0]) / 2) ** -n)))
    ds = DescrStatsW(v, weights=w)
    lo, hi = ds.tconfint_mean(alpha=0.05)
    return (float(ds.mean), float(lo), float(hi), float(ds.ttest_mean(0.0)[1]))


def plain_pct(x: float) -> str:
    """A rate as a designer says it: whole percent from 1% ("26%"), one decimal below ("0.4%"),
    "0%" and "100%" only for exactly 0 and 1 (99.97% prints as "99.97%", not "100%"). The report's front page and its first sentences use it; tables keep
    stats.pct."""
    if x is None or not np.isfinite(x):
        return "n/a"
    v = 100 * float(x)
    if v == 0 or v == 100:
        return f"{v:.0f}%"
    if 99.5 <= v < 100:   # not "100%" for a rate that is not 1: as many decimals as show it below 100
        for d in (1, 2, 3):
            if round(v, d) < 100:
                return f"{v:.{d}f}%"
        return f"{v:.4f}%"
    if abs(v) >= 0.95:
        return f"{v:.0f}%"
    return f"{v:.1f}%" if abs(v) >= 0.05 else f"{v:.2g}%"


def plain_pp(x: float, sign: bool = True) -> str:
    """A difference of rates in percentage points as a designer says it: "+6 pp", "-0.4 pp",
    "0 pp" when it rounds to zero (no sign claims a direction)."""
    v = 100 * float(x)
    s = f"{v:+.0f}" if abs(v) >= 0.95 else f"{v:+.1f}"
    if float(s) == 0:
        return "0 pp"
    return (s if sign else s.lstrip("+")) + " pp"
