"""The ``seats`` study: Benevolent seat win rates with the printed and equal leaves: simultaneous
(Goodman) intervals, chi-square against equal seats, Balance, first-seat edge (docs/studies.md)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from arena.units import Cell, as_dict
from simcore.games import BENEVOLENT as BV

from .. import charts
from ..cells import JointCell
from ..run.execute import execute
from ..render import Section
from ..answers import pp_range
from ..stats import (balance, detectable_difference, mean_interval, p_is, prose_pct, plain_pct, plain_pp, rate_text,
                     seat_fairness, seat_intervals, seats_verdict, SEATS_ALIKE, wilson)
from .spec import Study, leaves_name, leaves_for
from .common import (Result, could_find, table_csv_path, diff_cell, pivot, play_checks, rate_cell, rungs_named,
                     seq_columns, skill_plan, skill_row, skill_show, skill_tables, weaker_rung, weaker_cols,
                     run_sequential)


def _seat_counts(t, players):
    d = as_dict(BV.name, t)
    return [d.get(f"seat{q}_wins", 0) for q in range(players)], d.get("timeouts", 0)


def seat_share_gap(counts):
    """Largest seat gap over the decided games (the games some seat won) and a 95% interval from
    the simultaneous (Goodman) intervals of the seats' shares of them: the intervals hold
    together, so max_i hi_i - min_j lo_j bounds the gap from above and max(0, max_i lo_i - min_j
    hi_j) from below. A timeout is in no seat's share (docs/studies.md: before 2026-12-03 the
    shares were of all games, so timeouts shrank the gap). nan for no decided game."""
    n = sum(counts)
    if n == 0:
        return (np.nan, np.nan, np.nan)
    rates = np.array(counts) / n
    ci = seat_intervals(list(counts))
    return (float(rates.max() - rates.min()), float(max(0.0, ci[:, 0].max() - ci[:, 1].min())),
            float(ci[:, 1].max() - ci[:, 0].min()))


def _bv_cells(st, specs=None):
    o = st.opts
    out = []
    for pol in o["policy"]:
        for pl in o["players"]:
            for spec in specs or o["leaves"]:
                if isinstance(spec, list) and len(spec) != pl:
                    continue
                lv = leaves_for(spec, pl)
                out.append((leaves_name(spec, lv), Cell(BV.name, pl, leaves=lv,
                                                         policies=(pol,), rules=st.rules,
                                                         seed=o["seed"])))
    return out


def seat_frames(named_cells, totals):
    """Per configuration (cells) and per seat (seats) of Benevolent counts. Every share is of the
    decided games, the games some seat won: the seats' rates, the gap, Balance, seat 1's edge over
    the fair share 1/players and the chi-square; completion (the decided share of all games) and
    duration (mean turns, all games) say how often and after how long a game ends. The seat
    intervals are Goodman's, simultaneous, on the decided games."""
    cells_rows, seat_rows = [], []
    for (name, c), t in zip(named_cells, totals):
        wins, to = _seat_counts(t, c.players)
        d = as_dict(BV.name, t)
        g = int(t[0])
        decided = g - to
        fair = seat_fairness(wins)
        ci, chi, rates = fair.ci, fair.chi2, fair.shares
        gap, glo, ghi = seat_share_gap(wins)
        e_lo, e_hi = wilson(wins[0], decided) if decided else (np.nan, np.nan)
        c_lo, c_hi = wilson(decided, g) if g else (np.nan, np.nan)
        mt, mt_lo, mt_hi = mean_interval(d.get("turns", 0), d.get("turns_sq", 0), g)
        row = {"players": c.players, "leaves": name, "leaves_by_seat": ",".join(map(str, c.leaves)),
               "policy": c.seat_policies()[0], "seed": c.seed, "games": g,
               **{f"seat{q + 1}_wins": wins[q] for q in range(4) if q < c.players},
               "timeouts": to, "winner_had_extra_turn": d.get("winner_had_extra_turn", 0),
               "decided": decided, "turns": d.get("turns", 0), "turns_sq": d.get("turns_sq", 0),
               "chi2": chi.statistic, "chi2_p": chi.pvalue,
               "balance": balance(rates) if decided else np.nan, "balance_low": 1 - ghi, "balance_high": 1 - glo,
               "first_seat_edge": (wins[0] / decided if decided else np.nan) - 1 / c.players,
               "first_seat_edge_low": e_lo - 1 / c.players, "first_seat_edge_high": e_hi - 1 / c.players,
               "completion": decided / g if g else np.nan, "completion_low": c_lo, "completion_high": c_hi,
               "mean_turns": mt, "mean_turns_low": mt_lo, "mean_turns_high": mt_hi,
               "max_gap": gap, "gap_low": glo, "gap_high": ghi}
        cells_rows.append(row)
        for q in range(c.players):
            seat_rows.append({"players": c.players, "leaves": name, "policy": row["policy"],
                              "games": g, "timeouts": to, "decided": decided, "seat": q + 1, "wins": wins[q],
                              "rate": rates[q], "ci_low": ci[q, 0], "ci_high": ci[q, 1]})
    return pd.DataFrame(cells_rows), pd.DataFrame(seat_rows)


def seats_from_cells(cdf: pd.DataFrame) -> pd.DataFrame:
    """The per-seat rows of seat_frames from a configurations table (seats_cells, handicap_candidates
    or handicap_confirm, as saved): each seat's share of the decided games and its simultaneous
    (Goodman) interval. The report draws its seat charts from these rows and the notebooks call
    this on the saved tables, so both show the same numbers."""
    rows = []
    for r in cdf.itertuples():
        wins = [int(getattr(r, f"seat{q + 1}_wins")) for q in range(r.players)]
        decided = sum(wins)
        ci = seat_intervals(wins) if decided else np.full((r.players, 2), np.nan)
        for q in range(r.players):
            rows.append({"players": r.players, "leaves": r.leaves, "policy": r.policy, "games": int(r.games),
                         "timeouts": int(r.timeouts), "decided": decided, "seat": q + 1, "wins": wins[q],
                         "rate": wins[q] / decided if decided else np.nan, "ci_low": ci[q, 0], "ci_high": ci[q, 1]})
    return pd.DataFrame(rows)


def _leaves_text(name, by_seat) -> str:
    """A configuration's leaves as the report names them: "printed (1,3,4)", "equal (3,3,3)" or
    the vector."""
    return f"{name} ({by_seat})" if name in ("printed", "equal") else str(by_seat)


def _edge_p(wins1: int, decided: int, players: int) -> float:
    """The exact binomial test of seat 1's share of the decided games against 1/players (scipy)."""
    from scipy.stats import binomtest
    return float(binomtest(int(wins1), int(decided), 1.0 / players).pvalue) if decided else 1.0


def config_table(cdf: pd.DataFrame) -> pd.DataFrame:
    """The per-configuration outcome table: seat 1's edge, the gap, Balance, completion, duration,
    the chi-square: key columns first, counts inside the cells."""
    return pd.DataFrame({
        "players": cdf["players"],
        "leaves": [_leaves_text(n, b) for n, b in zip(cdf["leaves"], cdf["leaves_by_seat"])],
        "seat 1's edge (95% CI)": [diff_cell(e, lo, hi) if d else "no decided game" for e, lo, hi, d in
                                   zip(cdf["first_seat_edge"], cdf["first_seat_edge_low"],
                                       cdf["first_seat_edge_high"], cdf["decided"])],
        "largest seat gap (95% CI)": [f"{plain_pp(g, sign=False)}\n({pp_range(lo, hi).replace('+', '')})"
                                      if np.isfinite(g) else "n/a"
                                      for g, lo, hi in zip(cdf["max_gap"], cdf["gap_low"], cdf["gap_high"])],
        "Balance (95% CI)": [f"{b:.2f}\n({lo:.2f}–{hi:.2f})" if np.isfinite(b) else "n/a"
                             for b, lo, hi in zip(cdf["balance"], cdf["balance_low"], cdf["balance_high"])],
        "completion (95% CI)": [rate_cell(d, g, lo, hi) for d, g, lo, hi in
                                zip(cdf["decided"], cdf["games"], cdf["completion_low"], cdf["completion_high"])],
        "duration, turns (95% CI)": [f"{m:.1f}\n({lo:.1f}–{hi:.1f})" if np.isfinite(lo) else f"{m:.1f}"
                                     for m, lo, hi in zip(cdf["mean_turns"], cdf["mean_turns_low"], cdf["mean_turns_high"])],
        "equal seats? chi-square p": [p_is(p).replace("p = ", "").replace("p ", "") if np.isfinite(p) else "n/a"
                                      for p in cdf["chi2_p"]]})


def shares_table(sdf: pd.DataFrame, cdf: pd.DataFrame, seq: bool = False) -> pd.DataFrame:
    """The seats' shares of the decided games, one row per configuration, one column per seat:
    the share, its interval (simultaneous Goodman, or the sequential one) and the wins."""
    lo_col, hi_col = ("seq_ci_low", "seq_ci_high") if seq else ("ci_low", "ci_high")
    by = {(r.players, str(r.leaves)): _leaves_text(r.leaves, r.leaves_by_seat) for r in cdf.itertuples()}
    d = sdf.assign(config=[by[(p, str(lv))] for p, lv in zip(sdf["players"], sdf["leaves"])])
    return pivot(d, ["players", "config"], "seat",
                  lambda r: rate_cell(r.wins, r.decided, r[lo_col], r[hi_col]) if r.decided else "n/a",
                  lambda q: f"seat {q}").rename(columns={"config": "leaves"})


def _seat_skill(st: Study, named, threads, progress, backend, fresh_seed=None) -> tuple[list, list, list, list]:
    """The seats study's check: each configuration's seat 1 edge, played by both players on the
    same seeds (5-level outcomes: the winner's seat), its change by the paired bootstrap."""
    from ..skill import bootstrap_change, edge_of
    splan = skill_plan(st)
    if splan is None:
        return [], [], [], []
    pol0, best, n = splan
    checks = []
    for name, c in named:
        if c.seat_policies()[0] != pol0:
            continue
        checks.append(({"players": c.players, "leaves": name, "leaves_by_seat": ",".join(map(str, c.leaves))},
                       JointCell((replace(c, policies=(best,)), replace(c, policies=(pol0,))), 5)))
    counts, wcounts = play_checks(st, checks, n, threads, progress, backend)
    weaker = weaker_rung(st)

    def statistic(cnt, pl: int) -> dict:
        stat = bootstrap_change(cnt, 2, lambda b, s, axis=-1: edge_of(b, pl, axis) - edge_of(s, pl, axis),
                                st.opts["seed"])
        from ..skill import per_game
        g = per_game(cnt, 5, 2) - 1
        for arm, key in ((0, "best"), (1, "study")):
            dec = int((g[arm] >= 0).sum())
            w1 = int((g[arm] == 0).sum())
            lo, hi = wilson(w1, dec) if dec else (np.nan, np.nan)
            stat.update({f"{key}_value": (w1 / dec if dec else np.nan) - 1 / pl,
                         f"{key}_low": lo - 1 / pl, f"{key}_high": hi - 1 / pl,
                         f"{key}_seat1_wins": w1, f"{key}_decided": dec})
        return stat
    rows = []
    for i, ((info, jc), cnt) in enumerate(zip(checks, counts)):
        pl = info["players"]
        stat = statistic(cnt, pl)
        if wcounts:
            stat.update(weaker_cols(statistic(wcounts[i], pl), weaker))
        rows.append(skill_row(info, jc, cnt, splan, f"seat 1's edge, {pl} players, {info['leaves']} leaves", stat))
    return rows, counts, checks, wcounts


def run_seats(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    named = _bv_cells(st)
    cells = [c for _, c in named]
    seq = st.opts.get("target_halfwidth")
    if seq:   # every seat's share of the decided games known to the target
        totals, looks, plan = run_sequential(
            cells, st, lambda c, t: [(int(w), int(t[0] - t[5])) for w in t[1:1 + c.players]], threads,
            progress, backend)
    else:
        totals = execute([(c, st.opts["games"]) for c in cells], threads=threads,
                         progress=progress, **(backend or {}))
    cdf, sdf = seat_frames(named, totals)
    if seq:
        cdf["look"] = looks
        # each seat's interval at its cell's stopping look (the level the stopping rule spent
        # there), valid however the stopping depended on the data; the Goodman columns are not
        sdf = seq_columns(sdf, plan, np.repeat(np.asarray(looks), [c.players for c in cells]),
                           games_col="decided")
    skill_rows, counts, checks, wcounts = _seat_skill(st, named, threads, progress, backend)
    skill_df = pd.DataFrame(skill_rows)
    figs = []
    if chart_dir is not None:
        figs = [("Each seat's share of the decided games, with simultaneous 95% (Goodman) intervals; "
                 "dashed: the fair share",
                 charts.seat_bars(sdf, chart_dir / "seat_bars")[0])]
    tables = [("Per configuration: seat 1's edge over the fair share, the largest seat gap and Balance (all "
               "of the decided games), completion (games some seat won, of all games), duration (turns of all "
               "players, all games) and the chi-square test of equal seats", config_table(cdf), table_csv_path(st, "cells")),
              ("Each seat's share of the decided games ("
               + ("sequential 95% interval per seat, valid under the looks" if seq else
                  "simultaneous 95% Goodman intervals") + "; wins of decided games)",
               shares_table(sdf, cdf, bool(seq)), table_csv_path(st, "seats"))]
    if len(skill_df):
        tables.append((f"Across skill: seat 1's edge with {rungs_named(st)} on the same seeds (the difference: paired "
                       "bootstrap 95% interval)", skill_show(skill_df, ["players", "leaves"], diff=True), table_csv_path(st, "skill")))
    section = Section(st.title, seats_summary(cdf) + "\n\n" + seats_findings(cdf, sdf) + assumed_components_note(st.rules),
                      tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"cells": cdf, "seats": sdf, **skill_tables(st, skill_rows, counts, checks, wcounts)}, section,
                  answers=seats_answers(st, cdf, skill_df))


def _per_players(items) -> str:
    """"2 players: …; 3 players: …" from (players, text) pairs."""
    return "; ".join(f"{pl} pl: {t}" for pl, t in items)


def seats_summary(cdf: pd.DataFrame) -> str:
    parts = []
    for (pol, name), g in cdf.groupby(["policy", "leaves"], sort=False):
        parts.append(f"{name} leaves ({pol}): seat 1's edge over its fair share "
                     + ", ".join(f"{plain_pp(r.first_seat_edge)} at {r.players} players" for r in g.itertuples())
                     + "; games that end with a winner " + ", ".join(plain_pct(r.completion) for r in g.itertuples()) + ".")
    return "In short: " + " ".join(parts)


def _edge_answer(g: pd.DataFrame):
    """(answer, verdict, detect, playtests) of seat 1's edge at every player count of one leaves
    setting."""
    from ..answers import grouped, pp_ci, verdict_effect
    from ..stats import games_to_notice_edge, notice_text
    parts, verdicts, detect, notice = [], {}, [], []
    for r in g.sort_values("players").itertuples():
        if not r.decided:
            parts.append(f"{r.players} pl no decided game")
            verdicts[r.players] = "too noisy to say"
            continue
        p = _edge_p(r.seat1_wins, r.decided, r.players)
        v, null = verdict_effect(r.first_seat_edge_low, r.first_seat_edge_high, p)
        verdicts[r.players] = v
        parts.append(f"{r.players} pl {pp_ci(r.first_seat_edge, r.first_seat_edge_low, r.first_seat_edge_high)}"
                     + (" (none to act on)" if null else ""))
        notice.append(f"{r.players} pl {notice_text(games_to_notice_edge(r.seat1_wins / r.decided, 1 / r.players))}")
        if v != "established":
            d = detectable_difference(r.decided, 1 / r.players, None, direction=1)
            detect.append(f"{r.players} pl: could find {plain_pp(d, sign=False)}")
    return "; ".join(parts) + " pp", grouped(verdicts), "; ".join(detect), "; ".join(notice) + " decided games"


def skill_per_players(skill_df, mask) -> str:
    """The stronger-play cell of a row that covers several player counts."""
    from ..answers import skills_text
    if not len(skill_df):
        return ""
    rows = skill_df[mask]
    return skills_text([(f"{r['players']} pl", r) for _, r in rows.sort_values("players").iterrows()], diff=True)


def seats_answers(st: Study, cdf: pd.DataFrame, skill_df: pd.DataFrame) -> list:
    from ..answers import Answer
    out = []
    c = cdf[cdf["policy"] == st.policies[0]]
    for name, g in c.groupby("leaves", sort=False):
        ans, verdict, detect, notice = _edge_answer(g)
        mask = (skill_df["leaves"].astype(str) == str(name)) if len(skill_df) else None
        out.append(Answer(BV.name, f"Seat 1's edge, {name} leaves",
                          ans, verdict, st.name, skill=skill_per_players(skill_df, mask), detect=detect,
                          playtests=notice))
    return out


# Benevolent component data the rulebook's missing pictures leave assumed (simcore/benevolent/rules.py)
ASSUMED_COMPONENTS = (("sides", "segment sides"), ("gray", "gray Footsteps"), ("layouts", "forest layouts"),
                      ("arrows", "Dream Path"), ("secret_pairs", "Secret tiles"))


def assumed_components_note(rules) -> str:
    """A sentence for Benevolent seat and handicap findings: which assumed component tables the
    figures rest on ('' when a rules file replaced them all). Under the heuristic those tables
    move the largest seat gap by up to 9.3 points in 20,000 games per arm (docs/sensitivity.md)."""
    from simcore.benevolent.rules import Rules
    d = Rules()
    r = d if rules is None else rules
    kept = [label for attr, label in ASSUMED_COMPONENTS if getattr(r, attr) == getattr(d, attr)]
    if not kept:
        return ""
    return (f" These figures rest on assumed component data ({', '.join(kept)}; the rulebook's "
            "pictures are missing). Under the heuristic, the alternatives to these tables move the "
            "largest seat gap by up to 9.3 points (docs/sensitivity.md, 20,000 games per arm; a "
            "quick report's own sensitivity study is too small to show it): confirm a fairness "
            "conclusion with the real components in a rules file.")


def seats_findings(cdf, sdf) -> str:
    """Per configuration: the chi-square against equal seats, the best and worst seats with the
    intervals of the seat rows in sdf (simultaneous Goodman; the sequential ones at the stopping
    look when the cells stopped sequentially, the Goodman ones then not being valid), the
    largest gap and Balance, completion. Every share is of the decided games. The gap and
    Balance intervals are per-comparison figures on the final counts."""
    seq = "seq_ci_low" in sdf
    lo_col, hi_col, ci_name = (("seq_ci_low", "seq_ci_high", "sequential 95% intervals per seat") if seq else
                               ("ci_low", "ci_high", "simultaneous 95% intervals"))
    parts = []
    for _, r in cdf.sort_values(["policy", "players", "leaves"]).iterrows():
        if not r.decided:
            parts.append(f"{r.players} players, {r.leaves} leaves ({r.leaves_by_seat}): no game of "
                         f"{r.games:,} was decided.")
            continue
        rows = sdf[(sdf["policy"] == r.policy) & (sdf["players"] == r.players)
                   & (sdf["leaves"].astype(str) == str(r.leaves))].sort_values("seat")
        rates = rows["rate"].to_numpy()
        best, worst = int(np.argmax(rates)) + 1, int(np.argmin(rates)) + 1

        def seat_rate(q):
            s = rows.iloc[q - 1]
            return f"{prose_pct(s.rate)}, {prose_pct(s[lo_col])} to {prose_pct(s[hi_col])}"
        equal = seats_verdict(r.chi2_p)
        if equal == SEATS_ALIKE:
            equal += could_find(detectable_difference(r.decided, 1 / r.players, None, direction=1),
                                 "an edge of seat 1")
        parts.append(
            f"{r.players} players, {r.leaves} leaves ({r.leaves_by_seat}): {equal} "
            f"(chi-square {p_is(r.chi2_p)}); seat {best} wins most ({seat_rate(best)}), "
            f"seat {worst} least ({seat_rate(worst)}; {ci_name}; shares of the {r.decided:,} decided games); "
            f"largest gap {100 * r.max_gap:.1f} pp (95% CI {100 * r.gap_low:.1f} to {100 * r.gap_high:.1f}), "
            f"Balance {r.balance:.3f} ({r.balance_low:.3f} to {r.balance_high:.3f}); "
            f"{rate_text(r.decided, r.games)} of the games ended with a winner.")
    parts.append("Balance is 1 minus the largest seat gap: 1 when every seat wins equally often. Every share "
                 "is of the decided games (a timeout is won by no seat), so the fair share is 1/players.")
    if seq:
        parts.append("The cells stopped sequentially: the seat intervals quoted are those valid under "
                     "the looks; the gap and Balance intervals are per-comparison figures on "
                     "the final counts, not adjusted for the looks.")
    parts.append(f"{int(cdf['games'].sum()):,} games in all.")
    return "\n\n".join(parts)
