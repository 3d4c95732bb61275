"""How much each ambiguous reading and each assumed data table moves boardsim's answers.

``sensitivity(game, games, seed, policy, threads)`` plays every rules switch at its other
reading(s) and every named alternative data table (simcore/<game>/rules.py: SWITCHES,
ALTERNATIVES) against the default rules on common seeds: game i of a variant and game i of the
defaults share the seed, so they share every chance event whose history is the same (chance is
keyed by event), and the comparison is paired. Only the rules differ between the two cells.

- Bethel Woods: the win rate at 3 players for each spy difficulty 0-5; the difference variant -
  default with the paired 95% interval and McNemar's p (experiments/stats.paired_difference).
- Benevolent: the largest seat gap (highest seat win rate - lowest) for each player count 2-4 at
  the printed leaves; the difference variant - default with a paired 95% bootstrap interval
  (scipy.stats.bootstrap, paired=True: the same games resampled in both arms). When the variant
  changes no game the bootstrap has nothing to resample (it would print [0, 0]); the interval is
  then +-2u (``unchanged_gap_bound``). Its p-value is the one the percentile interval inverts
  (``bootstrap_pvalue``): twice the smaller share of the resampled differences on either side of
  0 (+1 in the counts), never below 2/(resamples + 1) ~ 1e-4; p < 0.05 implies that the 95%
  percentile interval excludes 0. 1 for a variant that changes no game. 20,000 resamples, not
  the 2,000 an interval alone needs: Holm's correction over 42 rows asks whether p is below
  about 0.05/42 = 0.0012, which 2,000 resamples resolve only to 0.001.

Both games' p-values are Holm-adjusted over every row of the table (``p_holm``): with 40 or more
comparisons some per-comparison intervals exclude 0 by chance alone.

It returns one row per (variant, setup), sorted by the size of the effect (|diff|, largest
first), with the counts it rests on (wins, or seat wins and timeouts, of both arms). The
signature (game, games, seed, policy, threads) is the one a study can call.

Each arm is the arena's cell ``arena.units.Cell(game, players, spies, policies=(policy,),
rules=..., seed=seed)`` (the arms differ only in ``rules``). The defaults and every variant of a
setup make one ``experiments.cells.StarCell``, played in units by the executor like every study's
cells (``experiments.run.execute``: in-process, kept in a results store and resumed, or on Dask):
a unit's counts are, per variant, the table of (variant outcome, default outcome) pairs of its
games, which holds every paired figure above; each arm's counts are exactly
``run_unit(cell, 0, games)``'s (tested). The paired bootstrap resamples the games of that table;
it lays them out in a fixed order (``cells.pairs_from_table``), not the order they were played in,
so its interval and p differ from those of the per-game arrays (before 2026-12-05) by resampling
noise only.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pandas as pd

from simcore.errors import UserError
from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW, game as game_of

from .cells import pairs_from_table
from .stats import adjust_pvalues, paired_difference, signed, spies_label

BW_PLAYERS = 3
BW_SPIES = tuple(range(6))
BV_PLAYERS = (2, 3, 4)
BOOTSTRAP_RESAMPLES = 20000   # resolves p to 1e-4 for Holm over the table (bootstrap_pvalue)


def strongest_policy(game: str) -> str:
    """The policy sensitivity plays by default: the game's study player (policies.STUDY_PLAYER)."""
    from policies import STUDY_PLAYER
    return STUDY_PLAYER[game]


def variants(game: str) -> list[tuple[str, str, object]]:
    """(name, kind, Rules) for every switch's other value(s) (kind "switch", name "switch=value")
    and every named alternative table (kind "table"), in a fixed order. A switch that asks a design
    question (the rules module's DESIGN_SWITCHES: Bethel Woods ``ability_off``) is not a reading
    and is left out."""
    rules_mod = _rules_module(game)
    out = []
    design = getattr(rules_mod, "DESIGN_SWITCHES", ())
    for name, values in rules_mod.SWITCHES.items():
        for v in values[1:] if name not in design else ():
            out.append((f"{name}={v}", "switch", rules_mod.load_rules(f"{name}={v}")))
    for name in rules_mod.ALTERNATIVES:
        out.append((name, "table", rules_mod.load_rules(name)))
    return out


def _rules_module(game):
    return game_of(game).rules_module   # UserError naming the allowed games for an unknown one


def _check(games, seed, threads=None):
    """Every input checked before anything is played or printed."""
    from arena.runner import check_run, check_threads
    if not isinstance(games, int) or games < 2:
        raise UserError(f"--games {games!r}: at least 2 games per cell are needed for a paired interval")
    check_run(games, seed)
    check_threads(threads)


def sensitivity(game: str, games: int = 2000, seed: int = 7, policy: str | None = None,
                threads: int | None = None, progress=None, only=None, backend=None) -> pd.DataFrame:
    """The sensitivity table (see the module doc). ``only``: a subset of variant names (for
    tests). ``progress`` (optional): a bar with add(games) and advance(games), as
    experiments.progress.StudyProgress: add() once with every arm's games before the first is
    played, advance() as units finish (the executor's protocol). ``backend``: the executor's
    store=/client=/workers=/scheduler= keywords (experiments.run.execute), as a study passes them:
    the units are kept in a results store and replayed from it, and run on Dask."""
    _check(games, seed, threads)
    from policies import canonical_policy, check_player
    policy = canonical_policy(policy, game) if policy else strongest_policy(game)
    check_player(policy, game)   # UserError for an unknown policy or the clairvoyant bound
    vs = variants(game)
    if only is not None:
        known = {v[0] for v in vs}
        bad = [x for x in only if x not in known]
        if bad:
            raise UserError(f"variant {bad[0]!r} is not known; allowed: {', '.join(sorted(known))}")
        vs = [v for v in vs if v[0] in only]
    from arena.units import Cell

    from .cells import StarCell, cell_unit
    from .run.execute import execute
    m = measure(game)
    # one StarCell per setup: the defaults and every variant on the same seeds, each variant
    # paired with the defaults (Bethel Woods: won or lost; Benevolent: the winner's seat + 1, 0 a
    # timeout), played as units by the executor (in-process, a results store, Dask)
    stars = []
    for setup in m.setups:
        base = m.base_cell(Cell, game, setup, policy, seed)
        stars.append((setup, StarCell(base, tuple(replace(base, rules=rules) for _, _, rules in vs), m.classes)))
    totals = execute([(sc, games) for _, sc in stars], threads=threads, progress=progress, unit_fn=cell_unit,
                     **(backend or {}))
    rows = []
    for (setup, sc), counts in zip(stars, totals):
        for i, (name, kind, _) in enumerate(vs):
            a, b = pairs_from_table(sc.pair_table(counts, i))
            head = {"game": game_of(game).name, "variant": name, "kind": kind}
            rows.append({**head, **m.row(a, b, setup, games, policy, seed)})
    df = pd.DataFrame(rows)
    df["p_holm"] = adjust_pvalues(df["pvalue"].to_numpy(), "holm")   # over every row of the table
    df["abs_diff"] = df["diff"].abs()
    df = df.sort_values(["abs_diff", "variant"], ascending=[False, True], kind="stable")
    return df.drop(columns="abs_diff").reset_index(drop=True)


def _bw_row(a, b, spies, games, policy, seed):
    """A Bethel Woods row's figures: the variant's (a) and the defaults' (b) wins on the same
    games, their paired difference with Newcombe's interval and McNemar's p (order-free)."""
    pd_ = paired_difference(a, b)
    return {"players": BW_PLAYERS, "spies": spies, "metric": "win rate", "games": games,
            "default_wins": int(b.sum()), "variant_wins": int(a.sum()),
            "default": pd_.rate_b, "value": pd_.rate_a, "diff": pd_.diff,
            "ci_low": pd_.ci_low, "ci_high": pd_.ci_high, "only_variant": pd_.only_a,
            "only_default": pd_.only_b, "pvalue": pd_.pvalue, "policy": policy, "seed": seed}


def seat_gap(winners, players: int, axis: int = -1):
    """The largest seat gap of games with these winners (seat index, -1 a timeout): the highest
    seat win rate minus the lowest, over the last axis (vectorized for the bootstrap)."""
    w = np.asarray(winners)
    rates = np.stack([(w == q).mean(axis=axis) for q in range(players)])
    return rates.max(axis=0) - rates.min(axis=0)


def bootstrap_pvalue(dist) -> float:
    """Two-sided p-value of "the difference is 0" from a bootstrap distribution of the difference:
    2 * (1 + the smaller of #(d <= 0), #(d >= 0)) / (resamples + 1), at most 1. It is the
    smallest level at which the percentile interval excludes 0 (the +1s keep it above 0 and make
    it slightly conservative; ties at 0 count on both sides). It is never below 2 / (resamples +
    1), about 1e-4 at BOOTSTRAP_RESAMPLES: when no resample reaches 0, the resamples can say no
    more than that. p < 0.05 implies that the 95% percentile interval excludes 0; the converse
    can miss at the very edge, by a resample (500 of 20,000 below 0: the interval may just
    exclude 0 while p = 0.0501)."""
    d = np.asarray(dist, dtype=float)
    k = min(int((d <= 0).sum()), int((d >= 0).sum()))
    return min(1.0, 2 * (1 + k) / (d.size + 1))


def unchanged_gap_bound(games: int) -> float:
    """The 95% bound on the change of the largest seat gap when a variant changed none of `games`
    paired games: the share of games it changes is at most u, the exact (Clopper-Pearson,
    statsmodels) upper bound for 0 of `games`; each changed game moves a seat's win rate by at
    most 1/games, so every seat's rate moves by at most u and the gap (a maximum minus a minimum)
    by at most 2u."""
    from statsmodels.stats.proportion import proportion_confint
    return 2 * float(proportion_confint(0, games, alpha=0.05, method="beta")[1])


def _bv_row(a, b, players, games, policy, seed):
    """A Benevolent row's figures from the variant's (a) and the defaults' (b) winners on the same
    games (seat index, -1 a timeout), in the canonical order of ``cells.pairs_from_table``: the
    largest seat gap of each, their difference with the paired bootstrap interval and p."""
    from scipy.stats import bootstrap

    def stat(x, y, axis=-1):
        return seat_gap(x, players, axis) - seat_gap(y, players, axis)

    diff = float(stat(a, b))
    if np.array_equal(a, b):  # nothing to resample: the bound on what an unseen changed game could do
        hi = unchanged_gap_bound(len(a))
        lo, p = -hi, 1.0
    else:
        res = bootstrap((a, b), stat, paired=True, vectorized=True, n_resamples=BOOTSTRAP_RESAMPLES,
                        batch=100, method="percentile", confidence_level=0.95,
                        random_state=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
        p = bootstrap_pvalue(res.bootstrap_distribution)
    row = {"players": players, "metric": "largest seat gap", "games": games, "default": float(seat_gap(b, players)),
           "value": float(seat_gap(a, players)), "diff": diff, "ci_low": lo, "ci_high": hi,
           "pvalue": p, "changed_games": int((a != b).sum()), "policy": policy, "seed": seed}
    for q in range(players):
        row[f"default_seat{q + 1}_wins"] = int((b == q).sum())
        row[f"variant_seat{q + 1}_wins"] = int((a == q).sum())
    row["default_timeouts"] = int((b < 0).sum())
    row["variant_timeouts"] = int((a < 0).sum())
    return row


@dataclass(frozen=True)
class Measure:
    """What a game's sensitivity table measures (its part of the game's adapter): the setups,
    each setup's arm of the defaults, the outcome classes a paired game falls in, a row's figures
    from the two arms' outcomes, and how the table names a setup."""
    setups: tuple
    base_cell: Callable      # (Cell, game, setup, policy, seed) -> the defaults' arm
    classes: int             # outcome classes of a game (cells.StarCell)
    row: Callable            # (variant outcomes, default outcomes, setup, games, policy, seed) -> figures
    setup_label: Callable    # a table row -> its setup in words
    headline: str            # what the table measures, for its title
    rates: bool              # True: win rates with their intervals; False: seat gaps


MEASURES = {
    BW.name: Measure(
        setups=BW_SPIES, base_cell=lambda Cell, g, spies, pol, seed: Cell(g, BW_PLAYERS, spies=spies, policies=(pol,),
                                                                           seed=seed),
        classes=2, row=_bw_row, setup_label=lambda r: spies_label(r.spies),
        headline="3 players, win rate by spies", rates=True),
    BV.name: Measure(
        setups=BV_PLAYERS, base_cell=lambda Cell, g, players, pol, seed: Cell(g, players, policies=(pol,), seed=seed),
        classes=1 + BV.max_players,
        row=lambda a, b, players, games, pol, seed: _bv_row(a - 1, b - 1, players, games, pol, seed),
        setup_label=lambda r: f"{r.players} pl.", headline="printed leaves, largest seat gap by players", rates=False),
}


def measure(game) -> Measure:
    """The game's sensitivity measure."""
    return MEASURES[game_of(game).name]


def table_text(df: pd.DataFrame) -> str:
    """The table as plain text, largest effects first. Bethel Woods win rates come with their 95%
    Wilson intervals; Benevolent's columns are seat gaps (their difference has the interval)."""
    if df.empty:
        return "(no rows)"
    m = measure(df["game"].iloc[0])
    rates = m.rates
    if rates:
        from .stats import pct, wilson

        def rate(k, n):   # as stats.pct prints rates: a bound near 0 keeps its digits
            lo, hi = wilson(int(k), int(n))
            return f"{pct(k / n)} ({pct(lo)} to {pct(hi)})"
        w = 30
    else:
        w = 8
    dh, vh = ("default (95% CI)", "variant (95% CI)") if rates else ("default", "variant")
    head = (f"{'variant':<28} {'kind':<6} {'setup':<9} {dh:>{w}} {vh:>{w}} {'diff':>8}  "
            f"{'95% CI':<19} {'p (Holm)':>8}" + ("" if rates else f" {'changed':>8}"))
    lines = [head, "-" * len(head)]
    for r in df.itertuples():
        setup = m.setup_label(r)
        last = f"{r.p_holm:8.3g}" + ("" if rates else f" {r.changed_games:8d}")
        if rates:
            cols = f"{rate(r.default_wins, r.games):>{w}} {rate(r.variant_wins, r.games):>{w}}"
        else:
            cols = f"{100 * r.default:7.2f}% {100 * r.value:7.2f}%"
        lines.append(f"{r.variant:<28} {r.kind:<6} {setup:<9} {cols} "
                     f"{signed(100 * r.diff):>7}  [{signed(100 * r.ci_low):>6}, {signed(100 * r.ci_high):>6}] {last}")
    return "\n".join(lines)


def run_command(game: str, games: int, seed: int, policy: str | None, threads: int | None, json_out: bool,
                chart, csv) -> str:
    """What `boardsim <game> sensitivity` does: the table (or JSON), and optionally the chart and
    a CSV of the rows. Output paths are checked before anything is played."""
    import json

    from arena.outfiles import check_writable, write_csv
    from simcore.errors import UserError
    if chart is not None:
        from pathlib import Path
        if Path(chart).suffix.lower() not in ("", ".png", ".svg"):
            raise UserError(f"--chart {str(chart)!r}: give a .png name (an .svg is written beside it)")
        from .charts import chart_paths
        for path in chart_paths(chart):
            check_writable(path, "the chart")
    if csv is not None:
        check_writable(csv, "the CSV")
    import sys

    from .progress import StudyProgress
    with StudyProgress("sensitivity", enabled=sys.stderr.isatty()) as bar:   # as report and experiment run
        df = sensitivity(game, games, seed, policy, threads, progress=bar)
    if chart is not None:   # the chart first: if it cannot be written, no CSV is left beside the error
        from .charts import sensitivity_forest
        try:
            sensitivity_forest(df, chart)
        except OSError as e:
            raise UserError(f"cannot write the chart {str(chart)!r}: {e.strerror or e}") from None
    if csv is not None:
        write_csv(df, csv)
    if json_out:
        return json.dumps({"game": game, "games": games, "seed": seed, "policy": df["policy"].iloc[0],
                           "rows": json.loads(df.to_json(orient="records"))})
    head = (f"{game_of(game).title} sensitivity: {measure(game).headline}; policy "
            f"{df['policy'].iloc[0]}, {games:,} games per arm and setup, seed {seed}; variant minus default, "
            f"largest effects first")
    return head + "\n" + table_text(df)
