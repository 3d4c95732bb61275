"""The ``targets`` study: the report's "to reach the targets" (issue 41, part 4). The targets are the
designer's bands of the skill study (``spec.DEFAULT_BANDS``: easy 55-65%, standard 30-40%, hard
10-20%), each at a difficulty (``levels``: a band name = spies); per band and player count, the
several-knob target search (``target_kind``; ``experiments.target_search.find_target_multi``) finds
the smallest change of the study's rules knobs that brings the study player's win rate into the band,
and confirms it, and the printed rules, on fresh games. One section: a summary (one row per band and
player count: where the printed rules are, the smallest change that gets there or the closest, its
interval and the rules it changes) and the Pareto sets; one front-page answer per band.
"""
from __future__ import annotations

import pandas as pd

from ..render import Section
from .common import Result, table_csv_path
from .spec import Study, target_problems
from .target_kind import run_target_study


def level_text(spies: int) -> str:
    """'0 spies (Normal)', '1 spy (Hard)', ...: the rulebook's levels (Normal is the report's name)."""
    name = {0: "Normal", 1: "Hard", 2: "Hard", 3: "Insane", 4: "Insane", 5: "Impossible"}[spies]
    return f"{spies} sp{'y' if spies == 1 else 'ies'} ({name})"


def _each(r, counts: int) -> str:
    """Every count's rate of a Pareto row of one change for several player counts ("" for one)."""
    if counts == 1:
        return ""
    return ", ".join(f"{100 * r[f'count{j}'] / r['games']:.0f}%" for j in range(counts))


def run_targets(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from ..answers import Answer, range_text, verdict_level
    o = st.opts
    player = o["policy"][0]
    rows: list[dict] = []
    paretos: list[pd.DataFrame] = []
    by_band: dict[str, list[dict]] = {}
    for band, sub in target_problems(st):
        res = run_target_study(sub, threads=threads, progress=progress, chart_dir=None, backend=backend)
        pls = sub.opts["players"]
        # a text column (parquet keeps one type): "3", or "all (2, 3, 4)" for one change for every count
        pl = str(pls[0]) if len(pls) == 1 else "all (" + ", ".join(map(str, pls)) + ")"
        p = res.tables["pareto"].copy()
        printed = p[p["changes"] == "no change (the printed rules)"].iloc[0]
        there = p[p["role"].str.startswith("smallest")]
        pick = there.iloc[0] if len(there) else p.iloc[(p["value"] - sum(sub.opts["band"]) / 2).abs().argmin()]
        rows.append({"band": band, "band_low": sub.opts["band"][0], "band_high": sub.opts["band"][1],
                     "spies": sub.opts["spies"][0], "players": pl,
                     "printed": printed["value"], "printed_low": printed["ci_low"], "printed_high": printed["ci_high"],
                     "answer": pick["changes"] if len(there) else f"none gets there; closest: {pick['changes']}",
                     "change": pick["changes"],
                     "rules_changed": int(pick["rules_changed"]), "value": pick["value"], "ci_low": pick["ci_low"],
                     "ci_high": pick["ci_high"], "gets_there": bool(len(there)), "games": int(pick["games"]),
                     "printed_each": _each(printed, len(pls)), "each": _each(pick, len(pls)), "player": player})
        p.insert(0, "players", pl)
        p.insert(0, "band", band)
        paretos.append(p)
        by_band.setdefault(band, []).append(rows[-1])
    summary = pd.DataFrame(rows)
    pareto = pd.concat(paretos, ignore_index=True)

    def pct(x):
        return f"{100 * x:.0f}%"

    def shown_rate(r, key="") -> str:
        """A row's rate with its interval; one change for several counts: every count's rate, then the
        farthest count's with its interval."""
        v, lo, hi = r[key or "value"], r[f"{key}_low" if key else "ci_low"], r[f"{key}_high" if key else "ci_high"]
        each = r[f"{key}_each" if key else "each"]
        return (f"{each}; farthest {pct(v)} ({pct(lo)}–{pct(hi)})" if each else f"{pct(v)} ({pct(lo)}–{pct(hi)})")
    answers, lines = [], []
    for band, rs in by_band.items():
        lo, hi = rs[0]["band_low"], rs[0]["band_high"]
        parts = []
        for r in rs:
            change = ("keep the printed rules" if r["rules_changed"] == 0 and r["gets_there"] else r["answer"])
            who = f"{r['players']} pl" if r["players"].isdigit() else f"one change for {r['players'][5:-1]} pl"
            parts.append(f"{who} {change}: {shown_rate(r)}" + ("" if r["gets_there"] else ", outside the band"))
        worst = max((r["ci_high"] - r["ci_low"]) / 2 for r in rs)
        level = level_text(rs[0]["spies"])
        answers.append(Answer(st.game, f"What rules change brings {level} into the {band} band "
                                       f"({range_text(lo, hi)})?", "; ".join(parts), verdict_level(worst), st.name))
        lines.append(f"The {band} band ({range_text(lo, hi)}) at {level}: " + "; ".join(
            (f"{r['players']} players" if r["players"].isdigit() else
             f"one change for {r['players'][5:-1]} players together")
            + f" printed {shown_rate(r, 'printed')}, "
            + (f"{'keep the printed rules' if r['rules_changed'] == 0 else r['answer']} "
               f"({r['rules_changed']} rule{'s' if r['rules_changed'] != 1 else ''} changed) gives "
               f"{shown_rate(r)}" if r["gets_there"] else
               f"no change of these knobs lands in the band on fresh games; the closest, {r['change']}, "
               f"gives {shown_rate(r)}")
            for r in rs) + ".")
    text = (f"The targets are the designer's bands of the skill study, each at a difficulty; for each band and "
            f"player count, and for all the player counts at once (one rules change for every count: each "
            f"count's rate, then the farthest from the band's middle with its interval), the smallest change of {', '.join(o['knobs'])} (within the ranges "
            + ", ".join(f"{k} {sp if isinstance(sp, str) else '-'.join(map(str, sp))}"
                        for k, sp in zip(o["knobs"], o["ranges"]))
            + f") that brings the win rate of {player} play (a bot, not people) into the band. The search plays "
              f"{o['games']:,} games a problem; every figure here is from {o['confirm_games']:,} fresh games "
              "that chose nothing (95% intervals), the printed rules among them. A change is named when its "
              "fresh games' rate lies in the band; the fewest rules changed wins. Method: docs/target.md.\n\n"
            + "\n\n".join(lines))
    shown = pd.DataFrame({
        "band": [f"{r['band']} {range_text(r['band_low'], r['band_high'])}" for r in rows],
        "difficulty": [level_text(r["spies"]) for r in rows], "players": [r["players"] for r in rows],
        "printed rules": [shown_rate(r, "printed") for r in rows],
        "the smallest change that gets there": [r["answer"] for r in rows],
        "rules changed": [r["rules_changed"] for r in rows],
        "its win rate": [shown_rate(r) for r in rows],
        "in the band": ["yes" if r["gets_there"] else "no" for r in rows],
        "wins": [round(r["value"] * r["games"]) for r in rows], "games": [r["games"] for r in rows],
        "player": [r["player"] for r in rows]})
    section = Section(st.title, text, tables=[
        ("To reach the targets: per band and player count, the printed rules and the smallest change that "
         "gets into the band (or the closest), on fresh games (95% intervals)", shown, table_csv_path(st, "summary")),
        ("Each problem's Pareto set (distance to the band's middle against rules changed), on the same fresh "
         "games", pareto, table_csv_path(st, "pareto"))], anchor=st.name)
    return Result(st, {"summary": summary, "pareto": pareto}, section, answers=answers)
