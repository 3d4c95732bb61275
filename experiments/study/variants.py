"""The ``variants`` study: any rules file(s) of either game against its default rules on the same
seeds: paired difference of the win rate (Bethel Woods) or seat 1's win rate (Benevolent), with its
interval and McNemar's test (docs/studies.md)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from arena.units import Cell
from simcore.games import BETHEL_WOODS as BW, BENEVOLENT as BV

from .. import charts
from ..glossary import GAME_NAMES
from ..cells import JointCell, PairedCell, paired_unit
from ..run.execute import execute
from ..render import Section
from ..stats import (adjust_pvalues, detectable_from_interval, paired_difference, p_is, plain_pp, rate_text,
                     signed, spies_label)
from .spec import Study, leaves_name, leaves_for
from .common import (Result, could_find, table_csv_path, diff_cell, study_games, play_checks, rate_cell, rungs_named,
                     skill_plan, skill_row, skill_show, skill_tables, weaker_rung, weaker_cols)


def run_variants(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from ..glossary import rules_file_title
    o = st.opts
    n = study_games(st)
    titles = {Path(f).stem: rules_file_title(f) for f in st.files}
    pairs = []
    for name, rules in st.variants:
        for pol in o["policy"]:
            for pl in o["players"]:
                if st.game == BW.name:
                    for sp in o["spies"]:
                        base = Cell(BW.name, pl, spies=sp, policies=(pol,), seed=o["seed"],
                                    rules=st.rules)
                        pairs.append(({"variant": name, "policy": pol, "players": pl, "spies": sp},
                                      PairedCell(replace(base, rules=rules), base)))
                else:
                    for spec in o["leaves"]:
                        lv = leaves_for(spec, pl)
                        base = Cell(BV.name, pl, leaves=lv, policies=(pol,), seed=o["seed"],
                                    rules=st.rules)
                        pairs.append(({"variant": name, "policy": pol, "players": pl,
                                       "leaves": leaves_name(spec, lv)},
                                      PairedCell(replace(base, rules=rules), base)))
    totals = execute([(pc, n) for _, pc in pairs], threads=threads, progress=progress,
                     unit_fn=paired_unit, **(backend or {}))
    rows = []
    for (info, _), t in zip(pairs, totals):
        games, both, only_a, only_b, neither = (int(x) for x in t)
        a = np.r_[np.ones(both + only_a, bool), np.zeros(only_b + neither, bool)]
        b = np.r_[np.ones(both, bool), np.zeros(only_a, bool), np.ones(only_b, bool),
                  np.zeros(neither, bool)]
        pd_ = paired_difference(a, b)
        rows.append({**info, "games": games, "wins_variant": both + only_a,
                     "wins_default": both + only_b, "both_won": both, "only_variant_won": only_a,
                     "only_default_won": only_b, "neither_won": neither, "diff": pd_.diff,
                     "diff_low": pd_.ci_low, "diff_high": pd_.ci_high, "mcnemar_p": pd_.pvalue})
    df = pd.DataFrame(rows)
    df["p_holm"] = adjust_pvalues(df["mcnemar_p"].to_numpy())
    outcome = "win rate" if st.game == BW.name else "seat 1's win rate"
    df["title"] = [titles.get(v, v) for v in df["variant"]]
    df["label"] = [f"{r.players} players, " + (spies_label(r.spies) if st.game == BW.name
                   else f"leaves {r.leaves}") + (f", {r.policy}" if len(o["policy"]) > 1 else "")
                   for r in df.itertuples()]
    df["significant"] = df["p_holm"] < 0.05
    # what each comparison could detect at Holm's first level (0.05 / the comparisons)
    df["detectable"] = [detectable_from_interval(lo, hi, alpha=0.05 / len(df))
                        for lo, hi in zip(df["diff_low"], df["diff_high"])]

    # skill check: each variant against the defaults, played by both players on the same seeds
    skill_rows: list = []
    checks: list = []
    counts: list = []
    wcounts: list = []
    splan = skill_plan(st)
    if splan is not None:
        from ..skill import contrast_change
        pol0, best, n_skill = splan
        for (info, pc) in pairs:
            if info["policy"] != pol0:
                continue
            arms = tuple(replace(c, policies=(p,)) for p in (best, pol0) for c in (pc.a, pc.b))
            checks.append(({k: v for k, v in info.items() if k != "policy"}, JointCell(arms, 2)))
        counts, wcounts = play_checks(st, checks, n_skill, threads, progress, backend)
        weaker = weaker_rung(st)
        for i, ((info, jc), c) in enumerate(zip(checks, counts)):
            setting = spies_label(info["spies"]) if "spies" in info else f"leaves {info['leaves']}"
            stat = contrast_change(c)
            if wcounts:
                stat.update(weaker_cols(contrast_change(wcounts[i]), weaker))
            skill_rows.append(skill_row({**info, "setting": f"{info['players']} players, {setting}",
                                          "title": titles.get(info["variant"], info["variant"])}, jc, c, splan,
                                         f"{titles.get(info['variant'], info['variant'])}: change of the {outcome}, "
                                         f"{info['players']} players, {setting}", stat))
    skill_df = pd.DataFrame(skill_rows)

    figs = []
    if chart_dir is not None:
        figs = [("Each variant against the defaults on the same seeds (paired 95% intervals; the defaults' "
                 "rate beside each row)",
                 charts.paired_differences(df, chart_dir / "variants_paired", outcome=outcome,
                                           title=f"{GAME_NAMES[st.game]}: rule variants against "
                                                 "the defaults")[0])]
    show = pd.DataFrame({
        "variant": df["title"], "setting": df["label"],
        f"defaults: {outcome} (95% CI)": [rate_cell(w, g) for w, g in zip(df["wins_default"], df["games"])],
        "with the variant (95% CI)": [rate_cell(w, g) for w, g in zip(df["wins_variant"], df["games"])],
        "difference (95% CI)": [diff_cell(d, lo, hi) for d, lo, hi in zip(df["diff"], df["diff_low"], df["diff_high"])],
        "significant? (Holm)": [("yes" if s_ else "no") + f", p = {p:.2g}"
                                + ("" if s_ else f"; could find {plain_pp(m, sign=False)}")
                                for s_, p, m in zip(df["significant"], df["p_holm"], df["detectable"])]})
    tables = [(f"Rule variants against the defaults on the same {n:,} seeds ({outcome}; the difference "
               "variant minus defaults, paired; 'could find': the smallest difference the sample had an 80% "
               "chance to find after Holm's correction)", show, table_csv_path(st, "pairs"))]
    if len(skill_df):
        tables.append((f"Across skill: each variant's effect with {rungs_named(st)} on the same "
                       f"{splan[2]:,} seeds (the change of the effect: t interval over the seeds)",
                       skill_show(skill_df, ["title", "setting"], diff=True).rename(columns={"title": "variant"}),
                       table_csv_path(st, "skill")))
    parts = []
    for _, r in df.iterrows():
        where = (f"{r.players} players, {spies_label(r.spies)}" if st.game == BW.name
                 else f"{r.players} players, leaves {r.leaves}")
        parts.append(f"{r.title} ({where}, {r.policy}): {outcome} {rate_text(r.wins_variant, r.games)} "
                     f"against {rate_text(r.wins_default, r.games)} with the defaults, a difference of "
                     f"{signed(100 * r['diff'])} pp (95% CI {signed(100 * r.diff_low)} to "
                     f"{signed(100 * r.diff_high)}); "
                     + ("significant" if r.p_holm < 0.05 else "not significant")
                     + f" after Holm's correction over the {len(df)} comparisons (McNemar, "
                     f"adjusted {p_is(r.p_holm)})"
                     + ("" if r.p_holm < 0.05 else could_find(r.detectable, "a difference")) + ".")
    parts.append(f"Each variant played the same {n:,} seeds as the defaults (paired); the "
                 "intervals are per comparison, the significance calls are Holm-adjusted.")
    summary = "In short: " + " ".join(
        f"{t}: {', '.join(plain_pp(d) + ' at ' + lab for d, lab in zip(g['diff'], g['label']))}."
        for t, g in df.groupby("title", sort=False))
    section = Section(st.title, summary + "\n\n" + "\n\n".join(parts), tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"pairs": df, **skill_tables(st, skill_rows, counts, checks, wcounts)}, section,
                  answers=variants_answers(st, df, skill_df, outcome))


def variants_answers(st, df, skill_df, outcome) -> list:
    """One front-page line per variant: its effect at every setting, Holm-corrected verdicts."""
    from ..answers import Answer, grouped, pp_ci, skills_text, verdict_effect
    out = []
    d0 = df[df["policy"] == st.policies[0]]
    one_count = d0["players"].nunique() == 1
    for name, g in d0.groupby("variant", sort=False):
        verdicts, parts, detect, skills, notice = {}, [], [], [], []
        from ..stats import games_to_notice, notice_text
        for r in g.itertuples():
            v, null = verdict_effect(r.diff_low, r.diff_high, r.mcnemar_p, significant=r.significant)
            lab = spies_label(r.spies) if st.game == BW.name else f"leaves {r.leaves}"
            key = lab if one_count else f"{r.players} pl, {lab}"
            verdicts[key] = v
            notice.append(f"{key} {notice_text(games_to_notice(r.wins_default / r.games, r.wins_variant / r.games))}")
            parts.append(f"{key} {pp_ci(r.diff, r.diff_low, r.diff_high)}" + (" (none to act on)" if null else ""))
            if v != "established":
                detect.append(f"{key}: could find {plain_pp(r.detectable, sign=False)}")
            if len(skill_df):
                m = skill_df[(skill_df["variant"] == name) & (skill_df["players"] == r.players)
                             & ((skill_df["spies"] == r.spies) if "spies" in skill_df else
                                (skill_df["leaves"].astype(str) == str(r.leaves)))]
                if len(m):
                    skills.append((key, m.iloc[0]))
        where = f", {g['players'].iloc[0]} pl" if one_count else ""
        out.append(Answer(st.game, f"{g['title'].iloc[0]}", f"{outcome}{where}: " + "; ".join(parts) + " pp",
                          grouped(verdicts, unit=""), st.name, skill=skills_text(skills, diff=True), detect="; ".join(detect),
                          playtests="; ".join(notice) + " games per rule set"))
    return out
