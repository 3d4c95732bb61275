"""The ``difficulty`` study: Bethel Woods win rate by spies added (0-5) x players x policy; losses
by reason, game length, Daydreamer pieces and spies uncovered in lost games (docs/studies.md)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from arena.units import Cell
from simcore.games import BETHEL_WOODS as BW

from .. import charts
from ..cells import JointCell, LengthsCell, cell_unit
from ..run.execute import execute
from ..render import Section
from ..stats import (bounded_mean_interval, detectable_difference, independent_difference, mean_interval,
                     p_is, prose_pct, plain_pct, plain_pp, rate_text, signed, spies_label, wilson)
from .spec import DIFFICULTY, Study, study_characters
from .common import (Result, bw_frame, bw_lengths, could_find, table_csv_path, level_header, pair_stat, pivot,
                     play_checks, rate_cell, rungs_named, seq_columns, skill_plan, skill_row, skill_show,
                     skill_tables, weaker_rung, weaker_cols, run_sequential)


# difficulty ------------------------------------------------------------------------------------

PIECES = 6   # the Daydreamer: six Orphanage sections, at most one filled a turn (docs/bethel_woods.md)


def run_difficulty(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    o = st.opts
    base = [Cell(BW.name, pl, spies=sp, policies=(pol,), characters=study_characters(st),
                 rules=st.rules, seed=o["seed"])
            for pol in o["policy"] for pl in o["players"] for sp in o["spies"]]
    cells = [LengthsCell(c) for c in base]
    seq = o.get("target_halfwidth")
    if seq:
        totals, looks, plan = run_sequential(
            cells, st, lambda c, t: [(int(t[1]), int(t[0]))], threads, progress, backend, unit_fn=cell_unit)
    else:
        totals = execute([(c, o["games"]) for c in cells], threads=threads, progress=progress,
                         unit_fn=cell_unit, **(backend or {}))
    df = bw_frame(base, totals)
    if seq:
        df = seq_columns(df, plan, looks)
    lengths = bw_lengths(base, totals)
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    df["win_rate"], df["ci_low"], df["ci_high"] = df["wins"] / df["games"], lo, hi
    df["lost"] = df["games"] - df["wins"]
    lost = df["lost"].replace(0, np.nan)
    df["mean_turns"] = df["turns"] / df["games"]
    # how close the lost games came: Daydreamer pieces built (0..6, at most one a turn, so a lost
    # game with k pieces was at least 6 - k turns from a win); the interval is conservative: only
    # the sum is counted, so it takes the largest spread a mean allows (stats.bounded_mean_interval)
    df["built_per_lost_game"] = df["built_in_losses"] / lost
    b = [bounded_mean_interval(t, n, 0, PIECES) for t, n in zip(df["built_in_losses"], df["lost"])]
    df["built_low"], df["built_high"] = [x[0] for x in b], [x[1] for x in b]
    df["turns_from_win"] = PIECES - df["built_per_lost_game"]
    df["uncovered_per_lost_game"] = df["uncovered_in_losses"] / lost
    # mean length of won and of lost games, with t intervals from their length histograms
    won_len, lost_len = _length_means(lengths, df)
    df["won_mean_turns"], df["won_turns_low"], df["won_turns_high"] = zip(*won_len)
    df["lost_mean_turns"], df["lost_turns_low"], df["lost_turns_high"] = zip(*lost_len)

    skill_rows: list = []
    checks: list = []
    counts: list = []
    wcounts: list = []
    splan = skill_plan(st)
    if splan is not None:
        pol0, best, n = splan
        for pl in o["players"]:
            for sp in o["spies"]:
                c = Cell(BW.name, pl, spies=sp, characters=study_characters(st), rules=st.rules, seed=o["seed"])
                checks.append(({"players": pl, "spies": sp}, JointCell((replace(c, policies=(best,)),
                                                                        replace(c, policies=(pol0,))), 2)))
        counts, wcounts = play_checks(st, checks, n, threads, progress, backend)
        weaker = weaker_rung(st)

        def stat(i):   # the check's statistic, with its weaker twin's beside it when that was played
            cnt = counts[i] if isinstance(i, int) else sum(counts[j] for j in i)
            out = pair_stat(cnt)
            if wcounts:
                out.update(weaker_cols(pair_stat(wcounts[i] if isinstance(i, int) else sum(wcounts[j] for j in i)),
                                        weaker))
            return cnt, out
        for i, (info, jc) in enumerate(checks):
            cnt, s_ = stat(i)
            skill_rows.append(skill_row({**info, "difficulty": level_header(info["spies"])}, jc, cnt, splan,
                                         f"win rate, {info['players']} players, {spies_label(info['spies'])}", s_))
        for pl in o["players"]:   # every level of the player count together: the row's answer
            mine = [i for i, (info, _) in enumerate(checks) if info["players"] == pl]
            pooled, s_ = stat(mine)
            skill_rows.append(skill_row({"players": pl, "spies": -1, "difficulty": "every level"}, checks[mine[0]][1],
                                         pooled, splan, f"win rate, {pl} players, every level", s_))
    skill_df = pd.DataFrame(skill_rows)

    figs = []
    if chart_dir is not None:
        figs = [("Win rate by difficulty (95% Wilson bands)",
                 charts.difficulty_curve(df, chart_dir / "difficulty_curve")[0]),
                ("Why games are lost, by difficulty",
                 charts.loss_reasons(df, chart_dir / "loss_reasons")[0]),
                ("How long won and lost games last",
                 charts.game_length(lengths, chart_dir / "game_length")[0])]
    ci = (lambda r: (r.seq_ci_low, r.seq_ci_high)) if seq else (lambda r: (r.ci_low, r.ci_high))
    rates = pivot(df, ["policy", "players"], "spies", lambda r: rate_cell(r.wins, r.games, *ci(r)),
                   level_header)
    close = pivot(df, ["policy", "players"], "spies",
                   lambda r: (f"{r.built_per_lost_game:.1f} ({r.built_low:.1f}–{r.built_high:.1f})\n"
                              f"{int(r.lost):,} lost" if r.lost else "no lost game"), level_header)
    tables = [(("Win rate by difficulty: each cell the win rate, its "
                + ("sequential 95% interval (valid under the looks)" if seq else "95% Wilson interval")
                + ", and wins of games"), rates, table_csv_path(st, "cells")),
              (f"How close the lost games came: Daydreamer pieces built per lost game, of {PIECES} (a lost "
               f"game with k pieces was at least {PIECES} − k turns from a win; a conservative 95% interval), "
               "and the lost games", close, table_csv_path(st, "cells"))]
    if len(skill_df):
        per = skill_df[skill_df["spies"] >= 0]
        tables.append((f"Across skill: {rungs_named(st)} on the same {splan[2]:,} seeds per cell (win rates; the "
                       "difference stronger minus study player, paired 95% interval)",
                       skill_show(per, ["players", "difficulty"]), table_csv_path(st, "skill")))
    text = (difficulty_summary(df, seq) + "\n\n" + difficulty_findings(df, seq)
            + first_turn_findings(lengths) + close_findings(df))
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    answers = difficulty_answers(st, df, seq, skill_df)
    return Result(st, {"cells": df, "lengths": lengths,
                       **skill_tables(st, skill_rows, counts, checks, wcounts)},
                  section, answers=answers)


def _length_means(lengths: pd.DataFrame, df: pd.DataFrame):
    """Per cell of df: (mean, low, high) of the won games' and of the lost games' length in turns
    (t intervals from the length histogram: exact sums and sums of squares)."""
    won: list = []
    lostm: list = []
    for r in df.itertuples():
        h = lengths[(lengths["policy"] == r.policy) & (lengths["players"] == r.players) & (lengths["spies"] == r.spies)]
        for col, acc in (("won", won), ("lost", lostm)):
            if col not in h or not len(h):
                acc.append((np.nan, np.nan, np.nan))
                continue
            n = int(h[col].sum())
            t = h["turns"].to_numpy(dtype=float)
            acc.append(mean_interval(float((t * h[col]).sum()), float((t * t * h[col]).sum()), n))
    return won, lostm


def difficulty_summary(df: pd.DataFrame, seq=False) -> str:
    """The section's first lines: per policy and player count, the win rate at every level as a
    designer says it, with the widest interval."""
    parts = []
    lo_col, hi_col = ("seq_ci_low", "seq_ci_high") if seq else ("ci_low", "ci_high")
    for (pol, pl), g in df.groupby(["policy", "players"], sort=True):
        g = g.sort_values("spies")
        hw = float(((g[hi_col] - g[lo_col]) / 2).max())
        parts.append(f"{pl} players, {pol}: {_levels_text(g)} (each within ±{plain_pp(hw, sign=False)}).")
    return "In short: " + " ".join(parts)


def _levels_text(g: pd.DataFrame) -> str:
    """"Normal (0 spies) 49%, Hard (1/2 spies) 38/32%, Insane (3/4 spies) 25/13%, Impossible (5
    spies) 0.3%": the rates of one player count by difficulty level, each level's spies named (a
    reader cannot know which of "Hard 38/32%" is 1 spy and which 2), in order."""
    by: dict = {}
    spies: dict = {}
    for r in g.sort_values("spies").itertuples():
        lvl = DIFFICULTY[int(r.spies)]
        by.setdefault(lvl, []).append(plain_pct(r.win_rate).rstrip("%"))
        spies.setdefault(lvl, []).append(str(int(r.spies)))
    return ", ".join(f"{lvl} ({'/'.join(spies[lvl])} {'spy' if spies[lvl] == ['1'] else 'spies'}) {'/'.join(v)}%"
                     for lvl, v in by.items())


def close_findings(df: pd.DataFrame) -> str:
    """How close the lost games came, per policy: the range of pieces built per lost game."""
    parts = []
    for pol, g in df[df["lost"] > 0].groupby("policy", sort=True):
        a, b = g.loc[g["built_per_lost_game"].idxmin()], g.loc[g["built_per_lost_game"].idxmax()]
        parts.append(f"With the {pol} player a lost game had built {a.built_per_lost_game:.1f} of the "
                     f"{PIECES} Daydreamer pieces on average at {a.players} players, {spies_label(a.spies)} "
                     f"(at least {PIECES - a.built_per_lost_game:.1f} turns from a win) to "
                     f"{b.built_per_lost_game:.1f} at {b.players} players, {spies_label(b.spies)}.")
    return (" " + " ".join(parts)) if parts else ""


def difficulty_answers(st: Study, df: pd.DataFrame, seq, skill_df: pd.DataFrame) -> list:
    """The front page's win-rate lines: one per player count, the study player's rates by level."""
    from ..answers import Answer, skills_text, verdict_level
    pol = st.policies[0]
    lo_col, hi_col = ("seq_ci_low", "seq_ci_high") if seq else ("ci_low", "ci_high")
    out = []
    for pl, g in df[df["policy"] == pol].groupby("players", sort=True):
        hw = float(((g[hi_col] - g[lo_col]) / 2).max())
        sk = None
        if len(skill_df):
            m = skill_df[(skill_df["players"] == pl) & (skill_df["spies"] == -1)]
            sk = m.iloc[0] if len(m) else None
        out.append(Answer(BW.name, f"Win rate, {pl} players",
                          f"{_levels_text(g)} (±{plain_pp(hw, sign=False)})",
                          verdict_level(hw), st.name, skill=skills_text([("all levels pooled,", sk)]),
                          playtests=_notice(g)))
    return out


def _notice(g: pd.DataFrame) -> str:
    """Playtests to notice one player count's levels: the games per level to tell the easiest
    from the hardest, and the range over adjacent levels (stats.games_to_notice)."""
    from ..stats import games_to_notice, notice_text
    g = g.sort_values("spies")
    r = list(g.itertuples())
    if len(r) < 2:
        return ""
    ends = games_to_notice(r[0].win_rate, r[-1].win_rate)
    steps = [games_to_notice(a.win_rate, b.win_rate) for a, b in zip(r, r[1:])]
    fin = [x for x in steps if np.isfinite(x)]
    txt = f"{spies_label(r[0].spies)} against {spies_label(r[-1].spies)}: {notice_text(ends)} games each"
    return txt + (f"; adjacent levels: {int(min(fin)):,} to {int(max(fin)):,}" if fin else "")


FIRST_TURN_SHARE = 0.10   # a cell where this share of games or more ends on the first turn is named


def first_turn_findings(lengths: pd.DataFrame) -> str:
    """The cells where 10% of the games or more are lost on the first turn, which a mean game
    length hides (at 5 spies the sixth spy can come with the first critical machine). Every game
    that ends on the first turn is a loss: the Daydreamer takes six turns at least, one worker a
    turn. '' when there is none."""
    if lengths is None or not len(lengths):
        return ""
    keys = ["policy", "players", "spies"]
    tot = lengths.groupby(keys)["games"].sum()
    first = lengths[lengths["turns"] == 1].groupby(keys)["games"].sum().reindex(tot.index, fill_value=0)
    named = (first >= FIRST_TURN_SHARE * tot)
    parts = []
    for pol, sel in named[named].groupby(level="policy"):
        parts.append(f"With the {pol} player, games lost on the first turn: "
                     + "; ".join(f"{pl} players, {spies_label(sp)}: {rate_text(first[k], tot[k])}"
                                 for k in sel.index for _, pl, sp in [k]) + ".")
    if not parts:
        return ""
    return (" " + " ".join(parts) + " A mean game length hides these (the game-length chart "
            "shows them); a game cannot be won on the first turn.")


def difficulty_findings(df: pd.DataFrame, seq=False) -> str:
    """Per policy and player count: the easiest and the hardest level's win rates with their
    intervals (the sequential ones when the cells stopped sequentially), the drop between them
    with Newcombe's interval and the chi-square p (both per comparison, on the final counts, and
    treating the two levels as independent samples: they share seeds, so with the positive
    correlation that brings both are conservative), then the loss findings."""
    parts = []
    lo_col, hi_col, ci_name = ("seq_ci_low", "seq_ci_high", "sequential 95% CI") if seq else ("ci_low", "ci_high", "95% CI")
    for (pol, pl), g in df.groupby(["policy", "players"], sort=True):
        g = g.sort_values("spies")
        first, last = g.iloc[0], g.iloc[-1]
        # is the drop from the easiest to the hardest level real? non-overlap of 95% intervals is
        # a conservative check; the two-proportion comparison is the chi-square below
        from scipy.stats import chi2_contingency
        tab = np.array([[first.wins, first.games - first.wins], [last.wins, last.games - last.wins]])
        p = chi2_contingency(tab)[1] if (tab.sum(axis=0) > 0).all() else 1.0
        mono = bool(np.all(np.diff(g["win_rate"].to_numpy()) <= 0))
        if g["wins"].sum() == 0:
            parts.append(f"With {pl} players the {pol} player won no game at any difficulty "
                         f"(at most {prose_pct(g[hi_col].max())} per level, the upper end of its {ci_name}).")
            continue
        drop, dlo, dhi = independent_difference(first.wins, first.games, last.wins, last.games)
        word = "a drop" if drop >= 0 else "a rise"
        if drop < 0:   # said as a rise: the estimate and its interval turned round
            drop, dlo, dhi = -drop, -dhi, -dlo
        num = (lambda x: signed(x, 1)) if dlo < 0 else (lambda x: f"{x:.1f}")   # signs only when the interval crosses 0
        parts.append(
            f"With {pl} players and the {pol} player the win rate goes from {prose_pct(first.win_rate)} "
            f"({spies_label(first.spies)}, {first.difficulty}; {ci_name} {prose_pct(first[lo_col])} to "
            f"{prose_pct(first[hi_col])}) to {prose_pct(last.win_rate)} ({spies_label(last.spies)}, "
            f"{last.difficulty}; {prose_pct(last[lo_col])} to {prose_pct(last[hi_col])}), {word} of "
            f"{100 * drop:.1f} pp (95% CI {num(100 * dlo)} to {num(100 * dhi)}); "
            + ("the difference is significant" if p < 0.05 else "the difference is NOT significant")
            + f" (chi-square {p_is(p)})"
            + ("" if p < 0.05 else could_find(detectable_difference(
                last.games, first.win_rate, first.games, direction=-1), "a drop"))
            + ("" if mono else "; the curve is not monotone at this sample size") + ".")
    parts += loss_findings(df)
    parts.append(f"The table rests on {int(df['games'].sum()):,} games.")
    return "\n\n".join(parts)


# the three ways to lose (charts.LOSS_REASONS) as they read inside a sentence
LOSS_PHRASES = {"bag_empty": "the malfunction bag running out",
                "four_critical": "four or more machines critical",
                "six_spies": "all 6 spies on the board"}


def loss_findings(df: pd.DataFrame) -> list[str]:
    """Per policy (random play's losses say little about skilled play, so they are not pooled
    with it): the most common way to lose over the policy's cells, and at its easiest and
    hardest difficulty."""
    reasons = list(charts.LOSS_REASONS)

    def top(g):
        r = g[reasons].sum()
        lost = int(r.sum())
        if not lost:
            return None
        lo, hi = wilson(int(r.max()), lost)
        return (f"{LOSS_PHRASES[r.idxmax()]} ({prose_pct(r.max() / lost)} of {lost:,} lost games, 95% CI "
                f"{prose_pct(lo)} to {prose_pct(hi)})")

    out = []
    for pol, g in df.groupby("policy", sort=True):
        overall = top(g)
        if overall is None:
            continue
        tops = [(sp, top(g[g["spies"] == sp])) for sp in (g["spies"].min(), g["spies"].max())]
        ends = [f"at {spies_label(sp)} {t}" for sp, t in dict(tops).items() if t is not None]
        out.append(f"With the {pol} player the most common end of a lost game is {overall}"
                   + (f"; {', '.join(ends)}" if len(ends) > 1 else "") + ".")
    return out
