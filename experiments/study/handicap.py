"""The ``handicap`` study: Benevolent, every non-decreasing starting-leaves vector up to
max_leaves played on common random numbers; the fairest few, the smallest change to the printed
handicap and the printed one confirmed on fresh seeds, each paired with the printed one; the
confirmation's challenger against the printed handicap on holdout seeds, which alone decide:
adopt it when it is shown fairer there, else keep the printed handicap (docs/studies.md)."""
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
from .common import (Result, could_find, table_csv_path, diff_cell, study_games, leaves_tuple, play_checks, rungs_named,
                     skill_plan, skill_row, skill_show, skill_tables, weaker_rung, two_arm_bootstrap,
                     weaker_cols, leaves_order)
from .seats import (config_table, shares_table, skill_per_players, assumed_components_note,
                    seat_frames, seats_from_cells)


def _printed(frame: pd.DataFrame) -> list[bool]:
    """For each row of a candidates frame: are its leaves the printed handicap of its player count?"""
    from simcore.benevolent.rules import DEFAULT_LEAVES
    return [leaves_tuple(s) == DEFAULT_LEAVES[:p] for s, p in zip(frame["leaves"], frame["players"])]


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
    key = [(Fraction(int(g), int(d)) if d else Fraction(2), leaves_tuple(lv))
           for g, d, lv in zip(cand["gap_games"], cand["decided"], cand["leaves"])]
    order = sorted(range(len(cand)), key=lambda i: key[i])
    return cand.iloc[order]


# where the confirmation and the holdout play: never a search seed, and never each other's
HOLDOUT_SEED_OFFSET = 2 * FRESH_SEED_OFFSET
GAP_RESAMPLES = 20_000   # the paired gap bootstrap's resamples (p resolves to 1e-4)
KEEP, ADOPT = "keep the printed", "adopt"


def neighbours(printed: tuple, leaves: list) -> list:
    """The candidates one leaf away from the printed handicap: one seat given one leaf more or
    fewer (the smallest change a designer can make to it)."""
    return [lv for lv in leaves if len(lv) == len(printed)
            and sum(abs(a - b) for a, b in zip(lv, printed)) == 1]


def _name(leaves) -> str:
    """A leaves vector as the tables name it: "1,3,4,5"."""
    return ",".join(map(str, leaves))


def changed(leaves: tuple, printed: tuple) -> int:
    """How many leaves a handicap changes from the printed one (the sum over the seats of the
    leaves added or taken away)."""
    return int(sum(abs(a - b) for a, b in zip(leaves, printed)))


def _table_gaps(tables: np.ndarray, players: int):
    """The largest seat gap over the decided games of each side of (..., 5, 5) pair tables (rows
    the candidate, columns the printed; ``skill.pair_table_shares``): (candidate's gaps, printed's
    gaps), nan where a side has no decided game."""
    from ..skill import pair_table_shares
    a, b = pair_table_shares(tables, players)
    return a.max(axis=-1) - a.min(axis=-1), b.max(axis=-1) - b.min(axis=-1)


def gap_difference(table, players: int, seed: int, resamples: int = GAP_RESAMPLES) -> dict:
    """A candidate's largest seat gap minus the printed handicap's on the same games (a 5 x 5 pair
    table of outcome codes, rows the candidate's), with the paired percentile bootstrap 95%
    interval and its p-value (``skill.table_bootstrap``: the games resampled by drawing the table
    from its multinomial), each side's gap and the games the two ended differently."""
    from ..skill import table_bootstrap
    t = np.asarray(table, dtype=np.int64).reshape(5, 5)
    a, b = _table_gaps(t, players)
    res = table_bootstrap(t, lambda x: np.subtract(*_table_gaps(x, players)), seed, resamples)
    return {"gap": float(a), "printed_gap": float(b), **res}


def choose(rows: list[dict]) -> dict:
    """The confirmation's choice among its arms (dicts with leaves, diff = the arm's gap minus
    the printed one's on the confirmation games, changed = leaves changed from the printed one;
    the printed handicap is a row with diff 0 and changed 0): the smallest paired difference, ties
    to the fewer leaves changed, then the lower leaves. The printed handicap wins unless some
    candidate's gap was smaller on these games."""
    ok = [r for r in rows if np.isfinite(r["diff"])]
    return min(ok, key=lambda r: (r["diff"], r["changed"], tuple(r["leaves"])))


def holdout_decision(h: dict) -> tuple[str, str]:
    """The recommendation and its verdict from the holdout's paired difference (the challenger's
    gap minus the printed one's, on games that chose nothing): adopt the challenger only when its
    interval lies below 0; otherwise keep the printed handicap. The verdict is answers'
    verdict_effect's: established when the interval excludes 0 (either way) or lies inside the
    margin (no difference a designer would act on)."""
    from ..answers import verdict_effect
    verdict, _ = verdict_effect(h["diff_low"], h["diff_high"], h["p_value"])
    return (ADOPT if h["diff_high"] < 0 else KEEP), verdict


def _star_frames(sc, totals, names):
    """The descriptive frames (``seat_frames``) of a StarCell with counts=True: the printed
    handicap first, then its arms, from the cells' own counts."""
    cells = (sc.base,) + tuple(sc.arms)
    return seat_frames([(nm, c) for nm, c in zip(names, cells)],
                       [sc.cell_counts(totals, i) for i in range(len(cells))])


def confirm_frame(sc, counts, names: list, seed: int):
    """One player count's confirmation from its StarCell's counts (the printed handicap the
    default, each candidate an arm): ``seat_frames``' rows and seat rows, each row's paired
    difference from the printed one (``vs_printed_diff`` and its interval and p; the printed's own
    row 0), ``leaves_changed`` and ``chosen`` (``choose``: exactly one row)."""
    f, fs = _star_frames(sc, counts, names)
    printed = leaves_tuple(names[0])
    pairs = [{"leaves": printed, "diff": 0.0, "diff_low": 0.0, "diff_high": 0.0, "p_value": 1.0, "changed": 0}]
    for i, s in enumerate(names[1:]):
        pairs.append({**gap_difference(sc.pair_table(counts, i), sc.base.players, seed + i),
                      "leaves": leaves_tuple(s), "changed": changed(leaves_tuple(s), printed)})
    pick = tuple(choose(pairs)["leaves"])
    for col in ("diff", "diff_low", "diff_high", "p_value"):
        f[f"vs_printed_{col}"] = [r[col] for r in pairs]
    f["leaves_changed"] = [r["changed"] for r in pairs]
    f["printed"] = _printed(f)
    f["stage"] = "confirm"
    f["chosen"] = [leaves_tuple(s) == pick for s in f["leaves"]]
    return f, fs


def challenger(conf_rows: pd.DataFrame) -> str:
    """The leaves the holdout plays against the printed handicap: the confirmation's choice, or,
    when it chose the printed one, its closest rival there (the smallest paired difference, ties
    to the fewer leaves changed, then the lower leaves)."""
    ch = conf_rows[conf_rows["chosen"] & ~conf_rows["printed"]]
    if not len(ch):
        ch = conf_rows[~conf_rows["printed"]].sort_values(["vs_printed_diff", "leaves_changed", "leaves"],
                                                          key=leaves_order)
    return str(ch.iloc[0].leaves)


def holdout_frame(sc, counts, names: list, seed: int) -> pd.DataFrame:
    """One player count's holdout from its StarCell's counts (the printed handicap the default,
    the challenger its one arm): ``seat_frames``' rows of both, the challenger's paired
    difference from the printed one with its interval and p, the decision (``holdout_decision``:
    "adopt" or "keep the printed") and its verdict, and which row is recommended."""
    f, _ = _star_frames(sc, counts, names)
    h = gap_difference(sc.pair_table(counts, 0), sc.base.players, seed)
    rec, verdict = holdout_decision(h)
    for col in ("diff", "diff_low", "diff_high", "p_value"):
        f[f"vs_printed_{col}"] = [1.0 if col == "p_value" else 0.0, h[col]]
    f["changed_games"] = h["changed_games"]
    f["printed"] = [True, False]
    f["challenger"] = [False, True]
    f["role"] = ["printed", "challenger"]
    f["stage"] = "holdout"
    f["decision"] = rec
    f["verdict"] = verdict
    f["recommended"] = [rec == KEEP, rec == ADOPT]
    return f


def run_handicap(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from ..cells import StarCell, cell_unit
    from simcore.benevolent.rules import DEFAULT_LEAVES
    o = st.opts
    n = study_games(st)
    pol = o["policy"][0]
    holdout_games = int(o.get("holdout_games") or o["confirm_games"])
    search = []
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
    named = [(",".join(map(str, c.leaves or ())), c) for c in search]   # every candidate has its leaves
    cand, cand_seats = seat_frames(named, totals)
    cand["printed"] = _printed(cand)
    cand["stage"] = "search"
    # the gap in games: the most and the fewest seat wins apart (over the decided games)
    cand["gap_games"] = [max(int(r[f"seat{q + 1}_wins"]) for q in range(r.players))
                         - min(int(r[f"seat{q + 1}_wins"]) for q in range(r.players)) for _, r in cand.iterrows()]
    # confirmation: the search's top few, the search's fairest of the smallest changes to the
    # printed handicap, and the printed one, on the same fresh seeds (one StarCell per player
    # count: each candidate paired with the printed handicap game by game)
    fresh = o["seed"] + FRESH_SEED_OFFSET
    held = o["seed"] + HOLDOUT_SEED_OFFSET
    best_search: set = set()
    smallest: set = set()
    roles: dict = {}
    stars: list = []
    for pl, g in cand.groupby("players", sort=True):
        printed = DEFAULT_LEAVES[:pl]
        order = fairest_order(g)
        top = list(order.head(o["confirm_top"])["leaves"])
        best_search.add((pl, top[0]))
        near = set(map(_name, neighbours(printed, [leaves_tuple(s) for s in g["leaves"]])))
        small = [s for s in order["leaves"] if s in near][:1]
        smallest.update((pl, s) for s in small)
        keep = [s for s in dict.fromkeys(top + small) if leaves_tuple(s) != printed]
        for i, s in enumerate(keep):
            roles[(pl, s)] = ("search's fairest" if i == 0 and s == top[0] else
                              "runner-up" if s in top else "smallest change")
        roles[(pl, _name(printed))] = "printed" + (" = search's fairest" if _name(printed) == top[0] else "")
        base = Cell(BV.name, pl, leaves=printed, policies=(pol,), rules=st.rules, seed=fresh)
        stars.append((pl, [_name(printed)] + keep,
                      StarCell(base, tuple(replace(base, leaves=leaves_tuple(s)) for s in keep), 5, counts=True)))
    ctot = execute([(sc, o["confirm_games"]) for _, _, sc in stars], threads=threads, progress=progress,
                   unit_fn=cell_unit, **(backend or {}))
    confs, conf_seats = [], []
    for (pl, names, sc), t in zip(stars, ctot):
        f, fs = confirm_frame(sc, t, names, o["seed"])
        confs.append(f)
        conf_seats.append(fs)
    conf, conf_seats = pd.concat(confs, ignore_index=True), pd.concat(conf_seats, ignore_index=True)
    conf["role"] = [roles[(p, s)] for p, s in zip(conf["players"], conf["leaves"])]
    conf["best"] = [(p, s) in best_search for p, s in zip(conf["players"], conf["leaves"])]
    cand["best"] = [(p, s) in best_search for p, s in zip(cand["players"], cand["leaves"])]
    cand["smallest_change"] = [(p, s) in smallest for p, s in zip(cand["players"], cand["leaves"])]
    # how many candidates the search cannot tell from its fairest: their gap intervals overlap
    cand["overlaps_best"] = False
    for pl, g in cand.groupby("players"):
        b = g[g["best"]].iloc[0]
        cand.loc[g.index, "overlaps_best"] = (g["gap_low"] <= b.gap_high) & ~g["best"]
    # the holdout: the challenger (the confirmation's choice, or when it chose the printed
    # handicap its closest rival there) against the printed one, on games that chose nothing
    hstars = []
    for pl, g in conf.groupby("players", sort=True):
        ch = challenger(g)
        base = Cell(BV.name, pl, leaves=DEFAULT_LEAVES[:pl], policies=(pol,), rules=st.rules, seed=held)
        hstars.append((pl, [_name(DEFAULT_LEAVES[:pl]), ch],
                       StarCell(base, (replace(base, leaves=leaves_tuple(ch)),), 5, counts=True)))
    htot = execute([(sc, holdout_games) for _, _, sc in hstars], threads=threads, progress=progress,
                   unit_fn=cell_unit, **(backend or {}))
    hold = pd.concat([holdout_frame(sc, t, names, held) for (_, names, sc), t in zip(hstars, htot)],
                     ignore_index=True)
    skill_rows, counts, checks, wcounts = _handicap_skill(st, hold, held, threads, progress, backend)
    skill_df = pd.DataFrame(skill_rows)
    figs = []
    if chart_dir is not None:
        figs = [("Dose and response: each seat's share of the decided games against its leaves above the "
                 "table's mean, for every candidate of the search (the same seeds for every candidate)",
                 charts.handicap_dose(seats_from_cells(cand).merge(cand[["players", "leaves", "printed"]],
                                                                   on=["players", "leaves"]),
                                      chart_dir / "handicap_dose")[0]),
                ("The decision: each confirmed candidate's largest seat gap minus the printed handicap's on the "
                 "same fresh games (the games that chose), and the challenger's on the holdout games (which did "
                 "not choose it), paired 95% bootstrap intervals",
                 charts.handicap_decision(conf, hold, chart_dir / "handicap_decision")[0]),
                ("The confirmed candidates and the printed handicap on fresh seeds: each seat's share of the "
                 "decided games (simultaneous 95% intervals), and the timeouts",
                 charts.handicap_confirmed(seats_from_cells(conf).merge(conf[["players", "leaves", "printed", "role"]],
                                                                        on=["players", "leaves"]),
                                           chart_dir / "handicap_confirmed")[0])]
    show = config_table(conf).drop(columns=["seat 1's edge (95% CI)"])
    show.insert(2, "role", [r + (" (chosen)" if c else "") for r, c in zip(conf["role"], conf["chosen"])])
    show.insert(3, "gap minus the printed's (95% CI)",
                [diff_cell(d, lo, hi) if not p else "—" for d, lo, hi, p in
                 zip(conf["vs_printed_diff"], conf["vs_printed_diff_low"], conf["vs_printed_diff_high"], conf["printed"])])
    tables = [("The decision on the holdout games (fresh seeds that chose nothing): the challenger against the "
               "printed handicap, paired game by game", _holdout_table(hold), table_csv_path(st, "holdout")),
              ("Confirmation on fresh seeds: the search's fairest candidates, the smallest change to the printed "
               "handicap and the printed one, each paired with the printed game by game (shares of the decided "
               "games; these games choose the challenger)", show, table_csv_path(st, "confirm")),
              ("Confirmation: each seat's share of the decided games (simultaneous 95% Goodman intervals; "
               "wins of decided games)", shares_table(conf_seats, conf), table_csv_path(st, "confirm_seats")),
              ("The search: how many candidates it cannot tell from its fairest (their gap intervals overlap)",
               _search_table(cand, n), table_csv_path(st, "candidates"))]
    if len(skill_df):
        tables.append((f"Across skill: the challenger's largest seat gap minus the printed handicap's, "
                       f"played by {rungs_named(st)} on the same holdout seeds (paired bootstrap 95% intervals)",
                       skill_show(skill_df, ["players", "candidate"], diff=True), table_csv_path(st, "skill")))
    text = (handicap_summary(hold) + "\n\n" + handicap_findings(cand, conf, hold, n, o)
            + assumed_components_note(st.rules))
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"candidates": cand, "confirm": conf, "confirm_seats": conf_seats, "holdout": hold,
                       **skill_tables(st, skill_rows, counts, checks, wcounts)}, section,
                  answers=handicap_answers(st, cand, hold, skill_df))


def _search_table(cand: pd.DataFrame, n: int) -> pd.DataFrame:
    rows = []
    for pl, g in cand.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        rows.append({"players": pl, "candidates": len(g), "games each": n,
                     "fairest in the search": b.leaves,
                     "its gap (95% CI)": f"{plain_pp(b.max_gap, sign=False)}\n({pp_range(b.gap_low, b.gap_high).replace('+', '')})",
                     "candidates it cannot be told from": f"{int(g['overlaps_best'].sum())} of {len(g) - 1}"})
    return pd.DataFrame(rows)


def _holdout_table(hold: pd.DataFrame) -> pd.DataFrame:
    """Per player count: the printed handicap's and the challenger's largest seat gap on the
    holdout games, their paired difference, and the decision."""
    rows = []
    for pl, g in hold.groupby("players", sort=True):
        p, c = g[g["printed"]].iloc[0], g[g["challenger"]].iloc[0]
        rows.append({"players": pl,
                     "printed": f"{p.leaves}\n{_gap_text(p)}",
                     "challenger": f"{c.leaves}\n{_gap_text(c)}",
                     "challenger minus printed (95% CI)": diff_cell(c.vs_printed_diff, c.vs_printed_diff_low,
                                                                     c.vs_printed_diff_high),
                     "p": p_is(c.vs_printed_p_value).replace("p = ", "").replace("p < ", "< "),
                     "games": f"{int(c.games):,}",
                     "decision": _decision_words(c), "verdict": c.verdict})
    return pd.DataFrame(rows)


def _gap_text(r) -> str:
    """A configuration's largest seat gap with its interval: "gap 4.6 pp (2.0 to 7.3)"."""
    return f"gap {plain_pp(r.max_gap, sign=False)} ({pp_range(r.gap_low, r.gap_high).replace('+', '')})"


def _decision_words(c) -> str:
    """The holdout's decision in words, from the challenger's row."""
    if c.decision == ADOPT:
        return f"adopt {c.leaves}: fairer than the printed handicap"
    if c.vs_printed_diff_low > 0:
        return "keep the printed handicap: the best alternative found is less fair"
    return "keep the printed handicap: no candidate is shown fairer"


def _handicap_skill(st: Study, hold: pd.DataFrame, held: int, threads, progress, backend):
    """Per player count: the holdout's challenger and the printed handicap, played by both players
    on the same holdout seeds; the statistic is how much smaller the challenger's largest seat
    gap is than the printed one's, and its change with stronger play (paired bootstrap)."""
    from ..skill import bootstrap_change, gap_of, per_game
    splan = skill_plan(st)
    if splan is None:
        return [], [], [], []
    pol0, best, n = splan
    checks = []
    for pl, g in hold.groupby("players", sort=True):
        c, p = g[g["challenger"]].iloc[0], g[g["printed"]].iloc[0]
        base = Cell(BV.name, pl, rules=st.rules, seed=held)
        fair, prn = replace(base, leaves=leaves_tuple(c.leaves)), replace(base, leaves=leaves_tuple(p.leaves))
        arms = tuple(replace(x, policies=(q,)) for q in (best, pol0) for x in (fair, prn))
        checks.append(({"players": pl, "candidate": c.leaves, "printed": p.leaves}, JointCell(arms, 5)))
    counts, wcounts = play_checks(st, checks, n, threads, progress, backend)
    weaker = weaker_rung(st)
    rows = []
    seed = st.opts["seed"]

    def statistic(cnt, pl: int) -> dict:
        stat = bootstrap_change(cnt, 4, lambda bf, bp, sf, sp, axis=-1: (gap_of(bf, pl, axis) - gap_of(bp, pl, axis))
                                - (gap_of(sf, pl, axis) - gap_of(sp, pl, axis)), seed)
        g = per_game(cnt, 5, 4) - 1
        for key, (i, j) in (("best", (0, 1)), ("study", (2, 3))):
            one = two_arm_bootstrap(g[i], g[j], lambda f, p, axis=-1: gap_of(f, pl, axis) - gap_of(p, pl, axis), seed)
            stat.update({f"{key}_value": one["diff"], f"{key}_low": one["diff_low"], f"{key}_high": one["diff_high"]})
        return stat
    for k, ((info, jc), cnt) in enumerate(zip(checks, counts)):
        pl = info["players"]
        stat = statistic(cnt, pl)
        if wcounts:
            stat.update(weaker_cols(statistic(wcounts[k], pl), weaker))
        q = f"challenger {info['candidate']} against printed {info['printed']}: gap difference, {pl} players"
        rows.append(skill_row(info, jc, cnt, splan, q, stat))
    return rows, counts, checks, wcounts


def _handicap_sides(b, p) -> str:
    """What a designer must know before adopting a handicap beside its gap: which seat it leaves
    weakest and strongest, and how often its games time out (no winner) against the printed one."""
    seats = [(b[f"seat{q}_wins"], q) for q in range(1, int(b.players) + 1)]
    (lw, lq), (hw, hq) = min(seats), max(seats)
    n = int(b.decided)
    return (f"seat {lq} wins least, {rate_text(lw, n, 'per-seat 95% CI ')}, seat {hq} most, "
            f"{rate_text(hw, n, 'per-seat 95% CI ')} of the decided games; "
            f"timeouts {int(b.timeouts):,} of {int(b.games):,} (printed: {int(p.timeouts):,} of {int(p.games):,})")


def _pair(g):
    """(challenger row, printed row) of one player count's holdout rows."""
    return g[g["challenger"]].iloc[0], g[g["printed"]].iloc[0]


def _diff_words(c) -> str:
    return f"{plain_pp(c.vs_printed_diff)} ({pp_range(c.vs_printed_diff_low, c.vs_printed_diff_high)})"


def handicap_summary(hold) -> str:
    parts = []
    for pl, g in hold.groupby("players", sort=True):
        c, p = _pair(g)
        n = f"{int(c.games):,} holdout games"
        if c.decision == ADOPT:
            parts.append(f"{pl} players: adopt {c.leaves}, largest seat gap {plain_pp(c.max_gap, sign=False)} "
                         f"against the printed {p.leaves}'s {plain_pp(p.max_gap, sign=False)} on {n}, "
                         f"{_diff_words(c)}.")
        elif c.vs_printed_diff_low > 0:
            parts.append(f"{pl} players: keep the printed {p.leaves} (largest seat gap "
                         f"{plain_pp(p.max_gap, sign=False)}): the best alternative found, {c.leaves}, is less "
                         f"fair on {n}, {_diff_words(c)}.")
        else:
            parts.append(f"{pl} players: keep the printed {p.leaves} (largest seat gap "
                         f"{plain_pp(p.max_gap, sign=False)}): no candidate is shown fairer (the best "
                         f"alternative found, {c.leaves}, {_diff_words(c)} on {n}).")
    return "In short: " + " ".join(parts)


def handicap_answers(st, cand, hold, skill_df) -> list:
    from ..answers import Answer, ESTABLISHED, grouped, pp_ci
    from ..stats import detectable_from_interval
    parts, verdicts, detect = [], {}, []
    for pl, g in hold.groupby("players", sort=True):
        c, p = _pair(g)
        d = pp_ci(c.vs_printed_diff, c.vs_printed_diff_low, c.vs_printed_diff_high)
        pgap = plain_pp(p.max_gap, sign=False).replace(" pp", "")
        if c.decision == ADOPT:
            parts.append(f"{pl} pl adopt {c.leaves} (gap {plain_pp(c.max_gap, sign=False).replace(' pp', '')}; "
                         f"printed {p.leaves} {pgap}): {d}")
        else:
            parts.append(f"{pl} pl keep the printed {p.leaves} (gap {pgap}); best alternative {c.leaves} {d}")
        verdicts[pl] = c.verdict
        if c.verdict != ESTABLISHED:
            eff = detectable_from_interval(c.vs_printed_diff_low, c.vs_printed_diff_high)
            detect.append(f"{pl} pl: could find a gap difference of {plain_pp(eff, sign=False)}")
    mask = None if not len(skill_df) else skill_df["players"].notna()
    return [Answer(BV.name, "Fairest starting leaves (seat gap)",
                   "; ".join(parts) + " pp", grouped(verdicts), st.name,
                   skill=skill_per_players(skill_df, mask), detect="; ".join(detect))]


def handicap_findings(cand, conf, hold, n, o) -> str:
    parts = [f"The search played {len(cand)} candidate handicaps (non-decreasing, 0 to "
             f"{o['max_leaves']} leaves a seat) on the same {n:,} setups each. The "
             f"{o['confirm_top']} fairest of each player count in the search, the search's fairest of the "
             f"handicaps one leaf away from the printed one (the smallest change) and the printed handicap were "
             f"played again on {o['confirm_games']:,} fresh games each, every candidate paired with the printed "
             "one game by game; the candidate whose largest seat gap beat the printed one's by the most there is the "
             "challenger (the printed handicap itself when none beat it, and then its closest rival). The challenger "
             f"and the printed handicap were then played on {int(hold['games'].max()):,} holdout games, fresh seeds "
             "that chose nothing, and only these games decide: adopt the challenger when its gap minus the printed "
             "one's has a 95% interval below 0 (paired bootstrap), else keep the printed handicap. Every share is of "
             "the decided games."]
    for pl, g in hold.groupby("players", sort=True):
        c, p = _pair(g)
        cf = conf[conf["players"] == pl]
        k = int((cf["vs_printed_diff"] < 0).sum())
        chosen = cf[cf["chosen"]].iloc[0]
        s = cand[cand["players"] == pl]
        overl, m = int(s["overlaps_best"].sum()), len(s) - 1
        equal = ("no game decided" if not np.isfinite(c.chi2_p) else
                 f"chi-square {p_is(c.chi2_p)}, " + ("so even it leaves the seats unequal"
                                                       if c.chi2_p < 0.05 else "no evidence the seats differ"))
        txt = (f"{pl} players: on the confirmation games {k} of the {len(cf) - 1} candidates had a smaller gap "
               f"than the printed {p.leaves}, and "
               + (f"{chosen.leaves} the smallest ({plain_pp(chosen.vs_printed_diff)} against it)"
                  if not chosen.printed else "so the printed handicap was the confirmation's choice")
               + f"; on the holdout games the challenger {c.leaves} has a largest seat gap of "
               f"{100 * c.max_gap:.1f} pp (95% CI {100 * c.gap_low:.1f} to {100 * c.gap_high:.1f}; equal seats: "
               f"{equal}; {_handicap_sides(c, p)}) and the printed one {100 * p.max_gap:.1f} pp "
               f"({100 * p.gap_low:.1f} to {100 * p.gap_high:.1f}); the paired difference is "
               f"{_diff_words(c)}, {p_is(c.vs_printed_p_value)}, so: {_decision_words(c)}")
        if c.decision != ADOPT and not c.vs_printed_diff_low > 0:
            from ..stats import detectable_from_interval
            txt += could_find(detectable_from_interval(c.vs_printed_diff_low, c.vs_printed_diff_high),
                               "a gap difference")
        txt += (f"; in the search, {overl} of the other {m} candidates have a gap interval that overlaps its "
                "fairest's, so the search alone cannot tell them from it")
        parts.append(txt + ".")
    return "\n\n".join(parts)


def adopted_handicaps(res) -> dict:
    """{players: the handicap (list of leaves by seat)} the study adopts on its holdout games (a
    player count that keeps the printed handicap is not listed): what the report's Benevolent skill
    study plays again at every rung (``skill_axis.with_adopted``)."""
    hold = res.tables.get("holdout")
    if hold is None or not len(hold):
        return {}
    got = hold[hold["challenger"].astype(bool) & (hold["decision"] == ADOPT)]
    return {int(r.players): [int(x) for x in str(r.leaves).split(",")] for r in got.itertuples()}
