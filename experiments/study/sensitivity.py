"""The ``sensitivity`` study: experiments/sensitivity.py's readings and assumed data of either
game, each against the defaults on the same seeds, as a study with tables, findings and a chart
(docs/studies.md)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from arena.units import Cell
from simcore.games import BETHEL_WOODS as BW, BENEVOLENT as BV

from .. import charts
from ..cells import JointCell
from ..render import Section
from ..answers import pp_range
from ..stats import detectable_from_interval, plain_pct, plain_pp, signed, spies_label
from .spec import Study
from .common import (Result, table_csv_path, diff_cell, play_checks, rungs_named, skill_plan, skill_row, skill_show,
                     skill_tables, weaker_rung, two_arm_bootstrap, weaker_cols)


# sensitivity: experiments/sensitivity.py as a study --------------------------------------------

def run_sensitivity(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from ..glossary import plain
    from ..sensitivity import sensitivity
    o = st.opts
    only = o.get("only")
    df = sensitivity(st.game, o["games"], o["seed"], o["policy"][0], threads, progress=progress,
                     only=only, backend=backend)
    bw = st.game == BW.name
    skill_rows, counts, checks, wcounts = _sensitivity_skill(st, df, threads, progress, backend)
    skill_df = pd.DataFrame(skill_rows)
    figs = []
    if chart_dir is not None:
        figs = [("Each reading against the defaults on the same seeds (paired 95% intervals); the legend "
                 "says what the markers mean",
                 charts.sensitivity_forest(df, chart_dir / f"sensitivity_{st.game}")[0])]
    setup = (lambda r: spies_label(r.spies)) if bw else (lambda r: f"{int(r.players)} players")
    # one row per reading: its largest effect (a significant row's when it has one), how many setups
    # exclude 0; every row of every setup is in the CSV
    rows = []
    for v, g in df.assign(a=df["diff"].abs(), sig=df["p_holm"] < 0.05,
                          excl=(df["ci_low"] > 0) | (df["ci_high"] < 0)).groupby("variant", sort=False):
        r = (g[g["sig"]] if g["sig"].any() else g).sort_values("a", ascending=False).iloc[0]
        row: dict = {"reading": plain(v), "kind": "rule reading" if r.kind == "switch" else "assumed table",
               "largest effect at": setup(r)}
        if bw:
            row["win rate: defaults, with it"] = (f"{plain_pct(r.default)}, {int(r.default_wins):,} of {int(r.games):,}\n"
                                                  f"{plain_pct(r.value)}, {int(r.variant_wins):,} of {int(r.games):,}")
        else:
            row["largest seat gap: defaults, with it"] = f"{plain_pp(r.default, sign=False)}, {plain_pp(r.value, sign=False)}"
            row["games"] = int(r.games)
            row["timeouts (defaults, with it)"] = f"{int(r.default_timeouts):,}, {int(r.variant_timeouts):,}"
        row["difference (95% CI)"] = diff_cell(r["diff"], r.ci_low, r.ci_high)
        row["p (Holm)"] = f"{r.p_holm:.2g}"
        row["setups whose interval excludes 0"] = f"{int(g['excl'].sum())} of {len(g)}"
        rows.append(row)
    show = pd.DataFrame(rows)
    metric = "win rate, 3 players" if bw else "largest seat gap, printed leaves"
    tables = [(f"Every reading against the defaults ({metric}): one row per reading, its largest effect "
               "(a Holm-significant setup's when it has one); every setup in the CSV", show, table_csv_path(st, "rows"))]
    if len(skill_df):
        tables.append((f"Across skill: the headline reading's effect with {rungs_named(st)} on the same seeds",
                       skill_show(skill_df, ["reading", "setup"], diff=True), table_csv_path(st, "skill")))
    section = Section(st.title, sensitivity_summary(df) + "\n\n" + sensitivity_findings(df),
                      tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"rows": df, **skill_tables(st, skill_rows, counts, checks, wcounts)}, section,
                  answers=sensitivity_answers(st, df, skill_df))


def _headline_reading(df: pd.DataFrame):
    """The row a sensitivity study's answer rests on: the largest significant effect after Holm's
    correction, else the largest effect."""
    sig = df[df["p_holm"] < 0.05]
    d = sig if len(sig) else df
    return d.loc[d["diff"].abs().idxmax()]


def _sensitivity_skill(st: Study, df: pd.DataFrame, threads, progress, backend):
    from ..sensitivity import seat_gap, variants
    from ..skill import bootstrap_change, contrast_change
    splan = skill_plan(st)
    if splan is None or not len(df):
        return [], [], [], []
    pol0, best, n = splan
    r = _headline_reading(df)
    rules = dict((name, ru) for name, _, ru in variants(st.game))[r.variant]
    bw = st.game == BW.name
    base = (Cell(BW.name, int(r.players), spies=int(r.spies), seed=st.opts["seed"]) if bw else
            Cell(BV.name, int(r.players), seed=st.opts["seed"]))
    arms = tuple(replace(base, policies=(p,), rules=ru) for p in (best, pol0) for ru in (rules, None))
    from ..glossary import plain
    info = {"variant": r.variant, "reading": plain(r.variant), "players": int(r.players),
            "setup": spies_label(r.spies) if bw else f"{int(r.players)} players"}
    if not bw:
        info["spies"] = -1
    checks = [(info, JointCell(arms, 2 if bw else 5))]
    counts, wcounts = play_checks(st, checks, n, threads, progress, backend)

    def statistic(c) -> dict:
        if bw:
            return contrast_change(c)
        pl = int(r.players)
        stat = bootstrap_change(c, 4, lambda bv, bd, sv, sd, axis=-1: (seat_gap(bv, pl, axis) - seat_gap(bd, pl, axis))
                                - (seat_gap(sv, pl, axis) - seat_gap(sd, pl, axis)), st.opts["seed"])
        from ..skill import per_game
        g = per_game(c, 5, 4) - 1
        for key, (i, j) in (("best", (0, 1)), ("study", (2, 3))):
            one = two_arm_bootstrap(g[i], g[j], lambda v, d, axis=-1: seat_gap(v, pl, axis) - seat_gap(d, pl, axis),
                                     st.opts["seed"])
            stat.update({f"{key}_value": one["diff"], f"{key}_low": one["diff_low"], f"{key}_high": one["diff_high"]})
        return stat
    stat = statistic(counts[0])
    if wcounts:
        stat.update(weaker_cols(statistic(wcounts[0]), weaker_rung(st)))
    q = f"{info['reading']}: its effect at {info['setup']}"
    return [skill_row(info, checks[0][1], counts[0], splan, q, stat)], counts, checks, wcounts


def sensitivity_summary(df: pd.DataFrame) -> str:
    from ..glossary import plain
    bw = df["game"].iloc[0] == BW.name
    sig = df[df["p_holm"] < 0.05]
    what = "the win rate (3 players)" if bw else "the largest seat gap (printed leaves)"
    if len(sig):
        names = list(dict.fromkeys(sig.sort_values("diff", key=abs, ascending=False)["variant"]))
        return (f"In short: {len(names)} reading{'s' if len(names) > 1 else ''} move{'' if len(names) > 1 else 's'} "
                f"{what} after Holm's correction: " + ", ".join(plain(v) for v in names) + ".")
    r = df.loc[df["diff"].abs().idxmax()]
    return (f"In short: no reading moves {what} significantly after Holm's correction at "
            f"{int(df['games'].iloc[0]):,} games per arm; the largest estimate is {plain(r.variant)}, "
            f"{plain_pp(r['diff'])} ({pp_range(r.ci_low, r.ci_high)}).")


def sensitivity_answers(st: Study, df: pd.DataFrame, skill_df: pd.DataFrame) -> list:
    from ..answers import Answer, ESTABLISHED, NOISY, SUGGESTED, pp_ci, skill_text
    from ..glossary import plain
    from ..skill import MARGIN
    bw = st.game == BW.name
    where = (lambda r: spies_label(r.spies)) if bw else (lambda r: f"{int(r.players)} players")
    sig = df[df["p_holm"] < 0.05]
    detect = ""
    if len(sig):
        best = sig.loc[sig.groupby("variant")["diff"].apply(lambda x: x.abs().idxmax())]
        best = best.sort_values("diff", key=abs, ascending=False)
        ans = "; ".join(f"{plain(r.variant)} {pp_ci(r.diff, r.ci_low, r.ci_high)} pp at {where(r)}"
                        for r in best.head(3).itertuples()) + (f"; {len(best) - 3} more" if len(best) > 3 else "")
        verdict = ESTABLISHED
    else:
        r = df.loc[df["diff"].abs().idxmax()]
        if ((df["ci_low"] > -MARGIN) & (df["ci_high"] < MARGIN)).all():
            ans, verdict = f"none moves it by {100 * MARGIN:.0f} pp or more", ESTABLISHED
        else:
            ans = f"none after Holm's correction; largest: {plain(r.variant)} {pp_ci(r['diff'], r.ci_low, r.ci_high)} pp at {where(r)}"
            excl = ((df["ci_low"] > 0) | (df["ci_high"] < 0)).any()
            verdict = SUGGESTED if excl else NOISY
            m = float(np.median([detectable_from_interval(a, b, alpha=0.05 / len(df))
                                 for a, b in zip(df["ci_low"], df["ci_high"])]))
            detect = f"a typical row could find {plain_pp(m, sign=False)} (Holm)"
    sk = ""
    if len(skill_df):
        s0 = skill_df.iloc[0]
        sk = f"{s0['setup']}: " + skill_text(s0, diff=True)
    q = ("Readings that move the win rate" if bw else "Readings that move the seat gap")
    return [Answer(st.game, q, ans, verdict, st.name, skill=sk, detect=detect)]


def sensitivity_findings(df: pd.DataFrame) -> str:
    """Which readings matter and which do not, largest effect first. Every row has a p-value
    (Bethel Woods: McNemar's; Benevolent: the paired bootstrap's), Holm-adjusted over the table:
    a reading moves the answer when some row of it is significant after the adjustment; one whose
    per-comparison interval excludes 0 without that is listed apart (among many comparisons some
    intervals exclude 0 by chance)."""
    from ..glossary import plain
    bw = df["game"].iloc[0] == BW.name
    metric = "the win rate (3 players)" if bw else "the largest seat gap (printed leaves)"
    test = "McNemar's p" if bw else "the paired bootstrap's p"
    d = df.assign(excl=(df["ci_low"] > 0) | (df["ci_high"] < 0), a=df["diff"].abs(),
                  sig=df["p_holm"] < 0.05)
    where = (lambda r: spies_label(r.spies)) if bw else (lambda r: f"{int(r.players)} players")
    moves: list = []
    chance: list = []
    dont: list = []
    for v, g in d.groupby("variant", sort=False):   # df is sorted largest |diff| first
        ex = g[g["excl"]]
        if len(ex):
            n_sig = int(g["sig"].sum())
            # the effect quoted is a significant row's when there is one (else the largest that excludes 0)
            r = (g[g["sig"]] if n_sig else ex).sort_values("a", ascending=False).iloc[0]
            txt = (f"{plain(v)} ({signed(100 * r['diff'], 1)} pp at {where(r)}, 95% CI {signed(100 * r.ci_low, 1)} to "
                   f"{signed(100 * r.ci_high, 1)}; the interval excludes 0 in {len(ex)} of {len(g)} setups"
                   + (f", significant after Holm's correction in {n_sig}" if n_sig else "") + ")")
            (moves if n_sig else chance).append((r.a, txt))
        else:
            r = g.sort_values("a", ascending=False).iloc[0]
            # games whose result the reading changed: the winning seat (Benevolent), won or lost
            # (Bethel Woods: the discordant games)
            if "changed_games" in g:
                changed = g["changed_games"].sum()
            elif "only_variant" in g:
                changed = (g["only_variant"] + g["only_default"]).sum()
            else:
                changed = None
            if changed == 0:
                dont.append((r.a, f"{plain(v)} (changed no game's {'result' if bw else 'winner'} in any setup)"))
            else:
                dont.append((r.a, f"{plain(v)} (largest difference {signed(100 * r['diff'], 1)} pp, at {where(r)})"))

    def listed(items):
        return "; ".join(t for _, t in sorted(items, key=lambda x: -x[0]))
    n = int(df["games"].iloc[0])
    parts = []
    if moves:
        parts.append(f"Readings that move {metric}, significant after Holm's correction of "
                     f"{test} over the {len(df)} comparisons, largest first: {listed(moves)}.")
    else:
        parts.append(f"No reading moves {metric} significantly after Holm's correction of "
                     f"{test} over the {len(df)} comparisons at {n:,} games per arm.")
    if chance:
        parts.append("Readings whose per-comparison interval excludes 0 in some setup but none of "
                     "whose rows is significant after the correction (among "
                     f"{len(df)} comparisons about {0.05 * len(df):.2g} intervals exclude 0 by "
                     f"chance alone), largest first: {listed(chance)}.")
    if dont:
        typical = float(np.median([detectable_from_interval(a, b, alpha=0.05 / len(df))
                                   for a, b in zip(df["ci_low"], df["ci_high"])]))
        parts.append(f"Readings whose intervals include 0 in every setup, largest first: {listed(dont)} (a typical "
                     f"row had an 80% chance to find an effect of {100 * typical:.1f} pp or more after Holm's "
                     "correction).")
    if not bw and "default_timeouts" in df:
        # a game that reaches the round limit has no winner: a variant that times out far more
        # often compares seat rates over far fewer decided games
        t = df[(df["variant_timeouts"] - df["default_timeouts"]).abs() >= 0.05 * df["games"]]
        if len(t):
            parts.append("Timeouts (no winner) differ between the arms by 5% of the games or more in: "
                         + "; ".join(f"{plain(r.variant)} at {int(r.players)} players, {int(r.variant_timeouts):,} "
                                     f"of {int(r.games):,} games against {int(r.default_timeouts):,} with "
                                     "the defaults" for r in t.itertuples())
                         + (". Its seat gap rests" if len(t) == 1 else ". Their seat gaps rest")
                         + " on fewer decided games.")
    parts.append(f"Each arm played the same {n:,} seeds (seed {int(df['seed'].iloc[0])}) with the "
                 f"{df['policy'].iloc[0]} policy; the intervals are per comparison (not corrected "
                 f"for the {len(df)} comparisons). An interval that includes 0 bounds an effect by "
                 "its width; it does not show that the effect is 0.")
    return "\n\n".join(parts)
