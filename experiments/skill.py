"""Skill robustness: each study's headline measured again with a stronger honest player.

A study's answers are its player's (policies.STUDY_PLAYER). Would they hold for better play? Each
study names its headline cells; for each, ``JointCell`` plays the study player and the stronger
player (``policies.BEST_PLAYER[game]`` unless the study file names ``skill_policy``) on the same
seeds, game i of every arm with the same chance key, through the same executor (units, store,
backends) as the study. A unit's counts are the joint histogram of the arms' per-game outcomes,
so every paired statistic can be computed from the counts, which the tables keep:

- a rate (Bethel Woods win, Benevolent "seat 1 won"): the paired difference stronger minus study
  player (Newcombe's square-and-add interval, McNemar's p: ``stats.paired_difference``);
- a contrast inside each player (the strongest character's teams against the weakest's, a
  variant against the defaults): the change of the contrast between the players, per seed
  (-2..2), its t interval and t-test (``stats.weighted_mean_test``);
- a Benevolent seat share or gap (over the decided games): a paired percentile bootstrap over the
  games (scipy.stats.bootstrap, paired=True, a fixed seed: the same counts give the same interval).

Each check ends in one word (``robustness``): "holds" when the paired difference's 95% interval
lies inside +-MARGIN, "changes" when it excludes 0, else "too few games to say". docs/studies.md
("Skill robustness") has the checks of every study.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from arena.units import arena_module

from .cells import JointCell, joint_unit
from .stats import paired_difference, weighted_mean_test

# A difference of rates smaller than this is one a designer would not act on: a check "holds" when
# its interval lies inside +-MARGIN, and a "no effect" answer is established when its interval does
# (experiments/answers.py uses the same margin for its verdicts).
MARGIN = 0.03
BOOTSTRAP_RESAMPLES = 4000   # a 95% percentile interval; the p-value resolves to 5e-4
HOLDS, CHANGES, NOISY = "holds", "changes", "too few games to say"


def robustness(lo: float, hi: float, margin: float = MARGIN) -> str:
    """'holds' when [lo, hi] lies inside (-margin, margin), 'changes' when it excludes 0, else
    'too few games to say'. A change smaller than the margin holds even when it is significant."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return NOISY
    if -margin < lo and hi < margin:
        return HOLDS
    if lo > 0 or hi < 0:
        return CHANGES
    return NOISY


def per_game(counts, levels: int, arms: int) -> np.ndarray:
    """The outcome codes of every game of a joint count vector, shape (arms, games), games in
    pattern order (every statistic here treats the games as exchangeable)."""
    hist = np.asarray(counts[1:], dtype=np.int64)
    pattern = np.repeat(np.arange(hist.size), hist)
    return np.stack([(pattern // levels ** i) % levels for i in range(arms)])


def play(checks, n: int, threads=None, progress=None, backend=None) -> list[np.ndarray]:
    """Play n seeds of every JointCell in `checks` (one execute call: one batch of the bar)."""
    from .run.execute import execute
    if not checks or n <= 0:
        return []
    return execute([(jc, n) for jc in checks], threads=threads, progress=progress,
                   unit_fn=joint_unit, **(backend or {}))


# ---------------------------------------------------------------------------------------------
# statistics of a joint count vector

def pair_rates(counts) -> dict:
    """Two binary arms (0: the stronger player, 1: the study player): each arm's wins, and the
    paired difference stronger minus study with its interval and McNemar's p."""
    g = per_game(counts, 2, 2)
    pd_ = paired_difference(g[0], g[1])
    return {"best_wins": int(g[0].sum()), "study_wins": int(g[1].sum()), "diff": pd_.diff,
            "diff_low": pd_.ci_low, "diff_high": pd_.ci_high, "p_value": pd_.pvalue}


def contrast_change(counts) -> dict:
    """Four binary arms: the stronger player's X and Y, the study player's X and Y (e.g. teams with
    the strongest and with the weakest character). Each player's contrast X - Y (paired by seed,
    ``paired_difference``) and its change between the players, (bX - bY) - (sX - sY) per seed,
    with its t interval and p (``weighted_mean_test``)."""
    g = per_game(counts, 2, 4)
    best = paired_difference(g[0], g[1])
    study = paired_difference(g[2], g[3])
    d = (g[0] - g[1]) - (g[2] - g[3])
    vals, ws = np.unique(d, return_counts=True)
    m, lo, hi, p = weighted_mean_test(vals, ws)
    return {"best_value": best.diff, "best_low": best.ci_low, "best_high": best.ci_high,
            "study_value": study.diff, "study_low": study.ci_low, "study_high": study.ci_high,
            "diff": m, "diff_low": lo, "diff_high": hi, "p_value": p,
            **{f"arm{i}_wins": int(g[i].sum()) for i in range(4)}}


def decided_shares(winners, players: int, axis: int = -1):
    """Each seat's share of the games some seat won (winners: seat index, -1 a timeout), over the
    last axis: shape (players, ...). A timeout counts in no seat's share (docs/studies.md)."""
    w = np.asarray(winners)
    decided = (w >= 0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([(w == q).sum(axis=axis) / decided for q in range(players)])


def gap_of(winners, players: int, axis: int = -1):
    """The largest seat gap over the decided games (highest share minus lowest)."""
    s = decided_shares(winners, players, axis)
    return s.max(axis=0) - s.min(axis=0)


def edge_of(winners, players: int, axis: int = -1):
    """Seat 1's share of the decided games minus the fair share 1/players."""
    return decided_shares(winners, players, axis)[0] - 1.0 / players


def bootstrap_change(counts, arms: int, stat, seed: int) -> dict:
    """A statistic of Benevolent arms (winners, 5 levels) and its paired percentile bootstrap:
    stat(*winners_per_arm, axis=-1) -> value. Returns value, low, high and the p-value the
    interval inverts (experiments.sensitivity.bootstrap_pvalue)."""
    from scipy.stats import bootstrap

    from .sensitivity import bootstrap_pvalue
    g = per_game(counts, 5, arms) - 1          # winner seat, -1 a timeout
    value = float(stat(*g, axis=-1))
    if g.shape[1] < 2 or all(np.array_equal(g[0], g[i]) for i in range(1, arms)):
        return {"diff": value, "diff_low": float("nan"), "diff_high": float("nan"), "p_value": 1.0}
    import warnings

    from scipy.stats._warnings_errors import DegenerateDataWarning
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        # a tiny sample can resample to the same value every time (or to no decided game): scipy
        # warns and the interval is degenerate or nan, which the check then calls too few games
        warnings.simplefilter("ignore", DegenerateDataWarning)
        res = bootstrap(tuple(g), stat, paired=True, vectorized=True, n_resamples=BOOTSTRAP_RESAMPLES,
                        batch=500, method="percentile", confidence_level=0.95,
                        random_state=np.random.default_rng(seed))
    dist = res.bootstrap_distribution
    dist = dist[np.isfinite(dist)]
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return {"diff": value, "diff_low": lo, "diff_high": hi,
            "p_value": bootstrap_pvalue(dist) if dist.size else 1.0}


def pair_table_shares(tables, players: int):
    """Each seat's share of the decided games on both sides of (..., 5, 5) Benevolent pair tables
    (code 0 a timeout, code q + 1 seat q won; rows one arm's codes, columns the other's):
    (the rows' shares, the columns' shares), each (..., players), nan where a side decided no game."""
    t = np.asarray(tables, dtype=float)
    out = []
    for wins in (t.sum(axis=-1)[..., 1:players + 1], t.sum(axis=-2)[..., 1:players + 1]):
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(wins / wins.sum(axis=-1)[..., None])
    return out[0], out[1]


def table_bootstrap(table, stat, seed: int, resamples: int = 20_000) -> dict:
    """A statistic of two arms played on the same games that depends only on their pair table
    (levels x levels counts of (arm a's outcome code, arm b's), e.g. ``cells.StarCell.pair_table``),
    with its paired percentile bootstrap 95% interval and the p-value the interval inverts
    (``sensitivity.bootstrap_pvalue``). Resampling n games with replacement and recounting the
    table is drawing the table from the multinomial of n games at the observed cell shares, so
    the bootstrap draws the tables (numpy's multinomial): the distribution of resampling the
    games (tested against scipy.stats.bootstrap), at a cost that does not grow with the games.
    stat(tables) takes an array (..., levels, levels) and returns the statistic per table. No
    interval (nan, p = 1) when fewer than 2 games or no game ended differently in the two arms."""
    from .sensitivity import bootstrap_pvalue
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    value = float(stat(t))
    row = {"diff": value, "games_paired": n, "changed_games": int(n - np.trace(t))}
    if n < 2 or row["changed_games"] == 0 or not np.isfinite(value):
        return {**row, "diff_low": float("nan"), "diff_high": float("nan"), "p_value": 1.0}
    draws = np.random.default_rng(seed).multinomial(n, t.reshape(-1) / n, size=resamples).reshape((-1,) + t.shape)
    dist = np.asarray(stat(draws), dtype=float)
    dist = dist[np.isfinite(dist)]
    lo, hi = np.percentile(dist, [2.5, 97.5]) if dist.size else (np.nan, np.nan)
    return {**row, "diff_low": float(lo), "diff_high": float(hi),
            "p_value": bootstrap_pvalue(dist) if dist.size else 1.0}


def patterns_frame(rows: list[dict], counts: list[np.ndarray], checks: list[JointCell]) -> pd.DataFrame:
    """The joint histograms as a long table: one row per check and outcome pattern that occurred
    (arm0..armK: each arm's outcome code), with its games: every skill statistic can be
    recomputed from it."""
    out = []
    for i, (r, c, jc) in enumerate(zip(rows, counts, checks)):
        hist = np.asarray(c[1:])
        for j in np.flatnonzero(hist):
            row = {"check": i, "question": r.get("question", "")}
            for a in range(len(jc.arms)):
                row[f"arm{a}"] = int((j // jc.levels ** a) % jc.levels)
            row["games"] = int(hist[j])
            out.append(row)
    return pd.DataFrame(out)


def describe_arms(jc: JointCell) -> dict:
    """Each arm of a check named in the rows (policy and setup), arm0, arm1, ..."""
    d = {}
    for i, a in enumerate(jc.arms):
        setup = (f"{a.players} players, {a.spies} spies" + (f", {'+'.join(a.characters)}" if a.characters else "")
                 if arena_module(a.game).HAS_SPIES else f"{a.players} players, leaves "
                 + (",".join(map(str, a.leaves)) if a.leaves is not None else "printed"))
        d[f"arm{i}"] = f"{a.seat_policies()[0]}: {setup}" + (" (variant rules)" if a.rules is not None else "")
    return d
