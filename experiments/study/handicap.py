"""The ``handicap`` study: Benevolent, every non-decreasing starting-leaves vector up to
max_leaves played on common random numbers; the fairest few confirmed on fresh seeds
(docs/studies.md)."""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd

from arena.units import Cell
from simcore.games import BENEVOLENT as BV

from .. import charts
from ..cells import JointCell
from ..run.execute import execute
from ..render import Section
from ..answers import pp_range
from ..stats import p_is, plain_pp, rate_text
from .spec import FRESH_SEED_OFFSET, Study
from .common import (Result, _leaves_tuple, _csv, _games, _run_checks, _skill_plan, _skill_row, _skill_show,
                     _skill_tables, _two_arm_bootstrap)
from .seats import (_config_table, _gap, _shares_table, _skill_per_players, assumed_components_note,
                    seat_frames, seats_from_cells)


def _printed(frame: pd.DataFrame) -> list[bool]:
    """For each row of a candidates frame: are its leaves the printed handicap of its player count?"""
    from simcore.benevolent.rules import DEFAULT_LEAVES
    return [_leaves_tuple(s) == DEFAULT_LEAVES[:p] for s, p in zip(frame["leaves"], frame["players"])]


def candidates(players: int, max_leaves: int) -> list[tuple]:
    """Every non-decreasing vector of starting leaves (0..max_leaves) for the seats: later seats
    never get fewer leaves than earlier ones, the direction every compensation for moving later
    takes (the printed 1,3,4,5 is one)."""
    return [c for c in itertools.combinations_with_replacement(range(max_leaves + 1), players)]


def fairest_order(cand: pd.DataFrame) -> pd.DataFrame:
    """The candidates of one player count, fairest first: the smallest largest seat gap in the
    search, compared exactly (the gap in games over the decided games, a fraction, so equal gaps
    tie), ties to the lower leaves."""
    from fractions import Fraction
    key = [(Fraction(int(g), int(d)) if d else Fraction(2), _leaves_tuple(lv))
           for g, d, lv in zip(cand["gap_games"], cand["decided"], cand["leaves"])]
    order = sorted(range(len(cand)), key=lambda i: key[i])
    return cand.iloc[order]


def run_handicap(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from simcore.benevolent.rules import DEFAULT_LEAVES
    o = st.opts
    n = _games(st)
    pol = o["policy"][0]
    search, confirm = [], []
    for pl in o["players"]:
        for lv in candidates(pl, o["max_leaves"]):
            search.append(Cell(BV.name, pl, leaves=lv, policies=(pol,), rules=st.rules,
                               seed=o["seed"]))
        printed = DEFAULT_LEAVES[:pl]
        if printed not in candidates(pl, o["max_leaves"]):
            search.append(Cell(BV.name, pl, leaves=printed, policies=(pol,),
                               rules=st.rules, seed=o["seed"]))
    # the search: every candidate on the same seeds (common random numbers)
    totals = execute([(c, n) for c in search], threads=threads, progress=progress,
                     **(backend or {}))
    named = [(",".join(map(str, c.leaves)), c) for c in search]
    cand, cand_seats = seat_frames(named, totals)
    cand["printed"] = _printed(cand)
    cand["stage"] = "search"
    # the gap in games: the most and the fewest seat wins apart (over the decided games)
    cand["gap_games"] = [max(int(r[f"seat{q + 1}_wins"]) for q in range(r.players))
                         - min(int(r[f"seat{q + 1}_wins"]) for q in range(r.players)) for _, r in cand.iterrows()]
    # confirmation: the top few of each player count and the printed one, on fresh seeds; the
    # fairest is the search's first, so its figure on the fresh seeds is not selected on them
    fresh = o["seed"] + FRESH_SEED_OFFSET
    best_search = set()
    for pl, g in cand.groupby("players", sort=True):
        top = fairest_order(g).head(o["confirm_top"])
        best_search.add((pl, top["leaves"].iloc[0]))
        keep = list(top["leaves"]) + [s for s in g[g["printed"]]["leaves"] if s not in set(top["leaves"])]
        for s in keep:
            confirm.append(Cell(BV.name, pl, leaves=_leaves_tuple(s),
                                policies=(pol,), rules=st.rules, seed=fresh))
    ctot = execute([(c, o["confirm_games"]) for c in confirm], threads=threads, progress=progress,
                   **(backend or {}))
    conf, conf_seats = seat_frames([(",".join(map(str, c.leaves)), c) for c in confirm], ctot)
    conf["printed"] = _printed(conf)
    conf["stage"] = "confirm"
    conf["best"] = [(p, s) in best_search for p, s in zip(conf["players"], conf["leaves"])]
    cand["best"] = [(p, s) in best_search for p, s in zip(cand["players"], cand["leaves"])]
    # how many candidates the search cannot tell from its fairest: their gap intervals overlap
    cand["overlaps_best"] = False
    for pl, g in cand.groupby("players"):
        b = g[g["best"]].iloc[0]
        cand.loc[g.index, "overlaps_best"] = (g["gap_low"] <= b.gap_high) & ~g["best"]
    skill_rows, counts, checks = _handicap_skill(st, conf, fresh, threads, progress, backend)
    skill_df = pd.DataFrame(skill_rows)
    figs = []
    if chart_dir is not None:
        figs = [("Dose and response: each seat's share of the decided games against its leaves above the "
                 "table's mean, for every candidate of the search (the same seeds for every candidate)",
                 charts.handicap_dose(seats_from_cells(cand).merge(cand[["players", "leaves", "printed"]],
                                                                   on=["players", "leaves"]),
                                      chart_dir / "handicap_dose")[0]),
                ("The confirmed candidates and the printed handicap on fresh seeds: each seat's share of the "
                 "decided games (simultaneous 95% intervals), and the timeouts",
                 charts.handicap_confirmed(seats_from_cells(conf).merge(conf[["players", "leaves", "printed", "best"]],
                                                                        on=["players", "leaves"]),
                                           chart_dir / "handicap_confirmed")[0])]
    show = _config_table(conf).drop(columns=["seat 1's edge (95% CI)"])
    show.insert(2, "role", ["fairest found" + (" = printed" if p else "") if b else ("printed" if p else "runner-up")
                            for b, p in zip(conf["best"], conf["printed"])])
    tables = [("Confirmation on fresh seeds: the search's fairest candidates and the printed handicap (shares "
               "of the decided games)", show, _csv(st, "confirm")),
              ("Confirmation: each seat's share of the decided games (simultaneous 95% Goodman intervals; "
               "wins of decided games)", _shares_table(conf_seats, conf), _csv(st, "confirm_seats")),
              ("The search: how many candidates it cannot tell from its fairest (their gap intervals overlap)",
               _search_table(cand, n), _csv(st, "candidates"))]
    if len(skill_df):
        tables.append((f"With stronger play: how much fairer the fairest candidate is than the printed handicap "
                       f"(its largest seat gap minus the printed one's), {skill_df['study_policy'].iloc[0]} and "
                       f"{skill_df['best_policy'].iloc[0]} on the same fresh seeds (paired bootstrap 95% intervals)",
                       _skill_show(skill_df, ["players", "fairest"], diff=True), _csv(st, "skill")))
    text = (handicap_summary(cand, conf) + "\n\n" + handicap_findings(cand, conf, n, o)
            + assumed_components_note(st.rules))
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"candidates": cand, "confirm": conf, "confirm_seats": conf_seats,
                       **_skill_tables(skill_rows, counts, checks)}, section,
                  answers=handicap_answers(st, cand, conf, skill_df))


def _search_table(cand: pd.DataFrame, n: int) -> pd.DataFrame:
    rows = []
    for pl, g in cand.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        rows.append({"players": pl, "candidates": len(g), "games each": n,
                     "fairest in the search": b.leaves,
                     "its gap (95% CI)": f"{plain_pp(b.max_gap, sign=False)}\n({pp_range(b.gap_low, b.gap_high).replace('+', '')})",
                     "candidates it cannot be told from": f"{int(g['overlaps_best'].sum())} of {len(g) - 1}"})
    return pd.DataFrame(rows)


def _handicap_skill(st: Study, conf: pd.DataFrame, fresh: int, threads, progress, backend):
    """Per player count: the fairest candidate and the printed handicap, played by both players
    on the same fresh seeds; the statistic is how much smaller the fairest's largest seat gap is
    than the printed one's, and its change with stronger play (paired bootstrap). When the fairest
    is the printed one, its gap and the change of the gap."""
    from ..skill import bootstrap_change, gap_of
    splan = _skill_plan(st)
    if splan is None:
        return [], [], []
    pol0, best, n = splan
    checks = []
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
        base = Cell(BV.name, pl, rules=st.rules, seed=fresh)
        fair = replace(base, leaves=_leaves_tuple(b.leaves))
        if len(pr) and not bool(pr.iloc[0].best):
            prn = replace(base, leaves=_leaves_tuple(pr.iloc[0].leaves))
            arms = tuple(replace(c, policies=(p,)) for p in (best, pol0) for c in (fair, prn))
        else:
            arms = tuple(replace(fair, policies=(p,)) for p in (best, pol0))
        checks.append(({"players": pl, "fairest": b.leaves, "printed": pr.iloc[0].leaves if len(pr) else ""},
                       JointCell(arms, 5)))
    counts = _run_checks(st, checks, n, threads, progress, backend)
    rows = []
    for (info, jc), cnt in zip(checks, counts):
        pl = info["players"]
        seed = st.opts["seed"]
        if len(jc.arms) == 4:
            stat = bootstrap_change(cnt, 4, lambda bf, bp, sf, sp, axis=-1: (gap_of(bf, pl, axis) - gap_of(bp, pl, axis))
                                    - (gap_of(sf, pl, axis) - gap_of(sp, pl, axis)), seed)
            from ..skill import per_game
            g = per_game(cnt, 5, 4) - 1
            for key, (i, j) in (("best", (0, 1)), ("study", (2, 3))):
                one = _two_arm_bootstrap(g[i], g[j], lambda f, p, axis=-1: gap_of(f, pl, axis) - gap_of(p, pl, axis), seed)
                stat.update({f"{key}_value": one["diff"], f"{key}_low": one["diff_low"], f"{key}_high": one["diff_high"]})
            q = f"fairest {info['fairest']} against printed {info['printed']}: gap difference, {pl} players"
        else:
            stat = bootstrap_change(cnt, 2, lambda b, s, axis=-1: gap_of(b, pl, axis) - gap_of(s, pl, axis), seed)
            from ..skill import per_game
            g = per_game(cnt, 5, 2) - 1
            for key, i in (("best", 0), ("study", 1)):
                wins = [int((g[i] == s).sum()) for s in range(pl)]
                gap, lo, hi = _gap(wins)
                stat.update({f"{key}_value": gap, f"{key}_low": lo, f"{key}_high": hi})
            q = f"printed {info['fairest']} (the fairest found): its gap, {pl} players"
        rows.append(_skill_row(info, jc, cnt, splan, q, stat))
    return rows, counts, checks


def _handicap_sides(b, pr) -> str:
    """What a designer must know before adopting a handicap beside its gap: which seat it leaves
    weakest and strongest, and how often its games time out (no winner) against the printed one."""
    seats = [(b[f"seat{q}_wins"], q) for q in range(1, int(b.players) + 1)]
    (lw, lq), (hw, hq) = min(seats), max(seats)
    n = int(b.decided)
    txt = (f"seat {lq} wins least, {rate_text(lw, n, 'per-seat 95% CI ')}, seat {hq} most, "
           f"{rate_text(hw, n, 'per-seat 95% CI ')} of the decided games; "
           f"timeouts {int(b.timeouts):,} of {int(b.games):,}")
    if len(pr) and not bool(pr.iloc[0].best):
        txt += f" (printed: {int(pr.iloc[0].timeouts):,} of {int(pr.iloc[0].games):,})"
    return txt


def _fairer(b, p) -> str:
    """Is the fairest candidate fairer than the printed handicap (fresh games)? established when
    their gap intervals do not overlap; suggested when one's estimate lies outside the other's
    interval; else too noisy to say."""
    from ..answers import ESTABLISHED, NOISY, SUGGESTED
    if b.gap_high < p.gap_low:
        return ESTABLISHED
    if p.max_gap > b.gap_high or b.max_gap < p.gap_low:
        return SUGGESTED
    return NOISY


def handicap_summary(cand, conf) -> str:
    parts = []
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
        if len(pr) and bool(pr.iloc[0].best):
            parts.append(f"{pl} players: the printed {b.leaves} is the fairest found (largest seat gap "
                         f"{plain_pp(b.max_gap, sign=False)}).")
        elif len(pr):
            p = pr.iloc[0]
            parts.append(f"{pl} players: {b.leaves} (largest seat gap {plain_pp(b.max_gap, sign=False)} on fresh "
                         f"games) against the printed {p.leaves} ({plain_pp(p.max_gap, sign=False)}): "
                         f"{'clearly fairer' if _fairer(b, p) == 'established' else 'not shown to be fairer'}.")
    return "In short: " + " ".join(parts)


def handicap_answers(st, cand, conf, skill_df) -> list:
    from ..answers import Answer, ESTABLISHED, SUGGESTED, grouped
    parts, verdicts, detect = [], {}, []
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
        k = int(cand[(cand["players"] == pl)]["overlaps_best"].sum())
        m = int((cand["players"] == pl).sum()) - 1
        gap = f"gap {plain_pp(b.max_gap, sign=False).replace(' pp', '')} ({b.gap_low * 100:.0f}–{b.gap_high * 100:.0f})"
        if len(pr) and bool(pr.iloc[0].best):
            parts.append(f"{pl} pl the printed {b.leaves}, {gap}, none fairer found")
            verdicts[pl] = ESTABLISHED if k == 0 else SUGGESTED
        elif len(pr):
            p = pr.iloc[0]
            parts.append(f"{pl} pl {b.leaves}, {gap}; printed {p.leaves} gap {plain_pp(p.max_gap, sign=False).replace(' pp', '')}")
            verdicts[pl] = _fairer(b, p)
        if verdicts.get(pl) != ESTABLISHED:
            detect.append(f"{pl} pl: the search can't separate {k} of {m}")
    mask = None if not len(skill_df) else skill_df["players"].notna()
    return [Answer(BV.name, "Fairest starting leaves (seat gap)",
                   "; ".join(parts) + " pp", grouped(verdicts), st.name,
                   skill=_skill_per_players(skill_df, mask), detect="; ".join(detect))]


def handicap_findings(cand, conf, n, o) -> str:
    parts = [f"The search played {len(cand)} candidate handicaps (non-decreasing, 0 to "
             f"{o['max_leaves']} leaves a seat) on the same {n:,} setups each; the "
             f"{o['confirm_top']} fairest of each player count and the printed handicap were "
             f"played again on {o['confirm_games']:,} fresh games each (the search's figures are "
             "biased towards looking fair; the fairest is the search's first, and its figures "
             "below are the fresh games', which are not). Every share is of the decided games."]
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
        c = cand[cand["players"] == pl]
        k, m = int(c["overlaps_best"].sum()), len(c) - 1
        equal = ("no game decided" if not np.isfinite(b.chi2_p) else
                 f"chi-square {p_is(b.chi2_p)}, " + ("so even it leaves the seats unequal"
                                                       if b.chi2_p < 0.05 else
                                                       "no evidence the seats differ"))
        txt = (f"{pl} players: the search's fairest {b.leaves} has a largest seat gap of "
               f"{100 * b.max_gap:.1f} pp on the fresh games (95% CI {100 * b.gap_low:.1f} to "
               f"{100 * b.gap_high:.1f}; equal seats: {equal}; {_handicap_sides(b, pr)})")
        if len(pr) and bool(pr.iloc[0].best):
            txt += "; this is the printed handicap itself: the search found none fairer"
        elif len(pr):
            p = pr.iloc[0]
            txt += (f"; printed {p.leaves}: {100 * p.max_gap:.1f} pp ({100 * p.gap_low:.1f} to "
                    f"{100 * p.gap_high:.1f})")
            txt += ("; the fairest is clearly fairer than the printed one" if b.gap_high < p.gap_low
                    else "; the intervals overlap, so the gain over the printed one is not established "
                    f"(intervals this wide stop overlapping only when the gaps differ by about "
                    f"{100 * ((b.gap_high - b.gap_low) + (p.gap_high - p.gap_low)) / 2:.1f} pp, the sum of their "
                    "half-widths)")
        txt += (f"; in the search, {k} of the other {m} candidates have a gap interval that overlaps the fairest's, "
                "so the search cannot tell them from it")
        parts.append(txt + ".")
    return " ".join(parts)
