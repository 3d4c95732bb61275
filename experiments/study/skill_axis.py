"""The ``skill`` study: each headline answer across the skill range (docs/studies.md, "The skill
axis").

Every answer of the other studies is one player's. This study plays the same setups with every
rung of a ladder of honest players, weakest to strongest (``rungs``, default random, heuristic,
learned, expert), **on the same seeds**: one ``cells.StarCell`` per setup, the study player the
default arm and every other rung an arm paired with it game by game, each rung's own counts kept
(``counts=True``). What each rung is, is stated by what it measures (its win rate at each setup,
its seat edge), never as a claim about people: the rungs are bots.

- Bethel Woods: the win rate per player count x spies x rung, with its Wilson interval, each
  rung's paired difference from the study player (Newcombe's interval, McNemar's p), the share
  of games lost on the first turn and how close the lost games came (Daydreamer pieces built per
  lost game); whether the order of the difficulty levels holds at every rung; where each level
  sits among the designer's target bands (``bands``) at each rung; and how many playtest games a
  group would need to notice each step of difficulty (80% power, the measured rates).
- Benevolent: seat 1's edge over its fair share and the largest seat gap per player count x
  leaves x rung (self-play), with their intervals, each rung's paired difference from the study
  player (paired bootstrap), whether the sign of seat 1's edge holds at every rung, and the
  playtest games needed to notice the edge.

``run_skill`` is written once; what differs by game is its ``SkillMeasure`` (``SKILL_MEASURES``:
the setups, the outcome classes, a rung's figures and its paired difference, the playtests, the
chart, the table, the findings and the front-page answers).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pandas as pd

from arena.units import Cell, as_dict
from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW

from .. import charts
from ..answers import pp_range, range_text
from ..render import Section
from ..run.execute import execute
from ..stats import games_to_notice, games_to_notice_edge, plain_pct, plain_pp, spies_label, wilson
from .common import Result, table_csv_path, diff_cell, rate_cell
from .spec import DIFFICULTY, Study, leaves_name, leaves_for, rung_cell

PIECES = 6            # Daydreamer pieces: a won game built all six
ACROSS = "this row is every rung"   # the front page's stronger-play cell of a row across skill


def mixed_cell(setup: Cell, rung: str, others: str) -> Cell:
    """Benevolent's mixed table: seat 1 played by `rung`, every other seat by `others` (the study
    player); a dial rung's vector goes to seat 1 only."""
    from policies import dial_theta, parse_rung
    pol, temp = parse_rung(rung, setup.game)
    oth, otemp = parse_rung(others, setup.game)
    th = [None if temp is None else dial_theta(setup.game, temp)] + \
        [None if otemp is None else dial_theta(setup.game, otemp)] * (setup.players - 1)
    return replace(setup, policies=(pol,) + (oth,) * (setup.players - 1), theta=None,
                   seat_thetas=tuple(th) if any(t is not None for t in th) else None)


def rung_cells(st: Study, setup: Cell) -> tuple[Cell, list[str]]:
    """The setup played by each rung: (the study player's cell, the other rungs' names in order)."""
    base_pol = st.policies[0]
    return rung_cell(setup, base_pol), [r for r in st.opts["rungs"] if r != base_pol]


def _bw_setups(st: Study):
    o = st.opts
    for pl in o["players"]:
        for sp in o["spies"]:
            yield Cell(BW.name, pl, spies=sp, rules=st.rules, seed=o["seed"]), {"spies": sp}


def _bv_setups(st: Study):
    o = st.opts
    for pl in o["players"]:
        for spec in o["leaves"]:
            if isinstance(spec, list) and len(spec) != pl:
                continue
            lv = leaves_for(spec, pl)
            yield (Cell(BV.name, pl, leaves=lv, rules=st.rules, seed=o["seed"]),
                   {"leaves": leaves_name(spec, lv)})


def with_adopted(st: Study, adopted: dict) -> Study:
    """The Benevolent skill study with the handicaps a handicap study adopted ({players: leaves},
    ``handicap.adopted_handicaps``) added to its leaves for the player counts it plays: every rung
    then plays the prescribed handicap on the same seeds, so the report says whether the
    prescription holds from the weakest player to the strongest. Other studies: unchanged."""
    if st.kind != "skill" or st.game != BV.name or not adopted:
        return st
    extra = [lv for pl, lv in sorted(adopted.items()) if pl in st.opts["players"] and lv not in st.opts["leaves"]]
    if not extra:
        return st
    names = {int(pl): ",".join(map(str, lv)) for pl, lv in adopted.items() if pl in st.opts["players"]}
    return replace(st, opts={**st.opts, "leaves": [*st.opts["leaves"], *extra], "adopted": names})


def run_skill(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from ..cells import StarCell, cell_unit
    o = st.opts
    m = skill_measure(st.game)
    mixed = m.mixed and bool(o.get("mixed"))
    stars = []
    for setup, extra in m.setups(st):
        base, others = rung_cells(st, setup)
        arms = tuple(rung_cell(setup, r) for r in others)
        if mixed:   # each other rung in seat 1 against the study player elsewhere: more arms on the same seeds
            arms += tuple(mixed_cell(setup, r, st.policies[0]) for r in others)
        stars.append((setup, extra, [st.policies[0]] + others,
                      StarCell(base, arms, m.levels, counts=True)))
    totals = execute([(sc, o["games"]) for *_, sc in stars], threads=threads, progress=progress,
                     unit_fn=cell_unit, **(backend or {}))
    rank = {r: i for i, r in enumerate(o["rungs"])}
    rows = []
    for k, ((setup, extra, names, sc), t) in enumerate(zip(stars, totals)):
        for i, name in enumerate(names):
            own = sc.cell_counts(t, i)
            row = {"players": setup.players, **extra, "setup": k, "rung": name, "rung_order": rank[name],
                   "study_player": names[0], "seed": setup.seed}
            row.update(m.row(own, setup.players))
            row.update(_vs_study(sc, t, i, m, setup.players, o["seed"]))
            rows.append(row)
    df = pd.DataFrame(rows).sort_values(["setup", "rung_order"], kind="stable").reset_index(drop=True)
    mixed_df = _mixed_frame(stars, totals, rank, o["seed"]) if mixed else pd.DataFrame()
    bands = o["bands"]
    tests = m.finish(df, bands)
    figs = [m.chart(st, df, chart_dir, bands)] if chart_dir is not None else []
    tables = [(m.caption(st), m.show(df), table_csv_path(st, "rungs")),
              ("Playtests to notice: how many games a group would have to play at each of two setups to see the "
               "difference each rung measures (80% power, 5% level, independent games)", tests, table_csv_path(st, "playtests"))]
    extra_tables = {}
    if len(mixed_df):
        tables.insert(1, (f"Mixed tables: each rung in seat 1 against the study player ({st.policies[0]}) in every "
                          "other seat; seat 1's share of the decided games and its difference from the study player's "
                          "own seat-1 share on the same seeds (paired bootstrap)", _mixed_show(mixed_df),
                          table_csv_path(st, "mixed")))
        extra_tables["mixed"] = mixed_df
    text = skill_findings(st, df) + mixed_findings(st, mixed_df)
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"rungs": df, "playtests": tests, **extra_tables}, section,
                  answers=m.answers(st, df, tests))


def _mixed_frame(stars, totals, rank, seed) -> pd.DataFrame:
    """The mixed tables' rows: per setup and rung, seat 1's share of the decided games with that
    rung in seat 1 and the study player elsewhere, and its difference from the study player's
    self-play seat-1 share on the same games (the first row of each setup: the self-play). The
    mixed arms follow the rungs' arms in each setup's StarCell."""
    rows = []
    for k, ((setup, extra, names, sc), t) in enumerate(zip(stars, totals)):
        skip = len(names) - 1   # the rungs' own arms come first
        for i, name in enumerate(names):
            cell = 0 if i == 0 else skip + i
            d = as_dict(BV.name, sc.cell_counts(t, cell))
            dec = d["games"] - d["timeouts"]
            w1 = d.get("seat0_wins", 0)
            lo, hi = wilson(w1, dec) if dec else (np.nan, np.nan)
            row = {"players": setup.players, **extra, "setup": k, "seat1": name, "others": names[0],
                   "rung_order": rank[name], "games": d["games"], "timeouts": d["timeouts"], "decided": dec,
                   "seat1_wins": w1, "share": w1 / dec if dec else np.nan, "share_low": lo, "share_high": hi,
                   "fair_share": 1 / setup.players}
            if i == 0:
                row.update({"vs_selfplay": 0.0, "vs_selfplay_low": 0.0, "vs_selfplay_high": 0.0, "vs_selfplay_p": 1.0})
            else:
                from ..skill import table_bootstrap
                e = table_bootstrap(sc.pair_table(t, cell - 1), lambda x, pl=setup.players: _edge_of_tables(x, pl),
                                    seed + 100 + i)
                row.update({"vs_selfplay": e["diff"], "vs_selfplay_low": e["diff_low"],
                            "vs_selfplay_high": e["diff_high"], "vs_selfplay_p": e["p_value"]})
            rows.append(row)
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).sort_values(["setup", "rung_order"], kind="stable").reset_index(drop=True)


def _mixed_show(m: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "players": m["players"], "leaves": m["leaves"],
        "seat 1 / the others": [f"{a} / {b}" for a, b in zip(m["seat1"], m["others"])],
        "seat 1's share (95% CI)": [rate_cell(w, d) for w, d in zip(m["seat1_wins"], m["decided"])],
        "fair share": [plain_pct(f) for f in m["fair_share"]],
        "minus the study player's own": [diff_cell(d, lo, hi) if i else "—" for d, lo, hi, i in
                                         zip(m["vs_selfplay"], m["vs_selfplay_low"], m["vs_selfplay_high"],
                                             m["seat1"] != m["others"])]})


def mixed_findings(st: Study, m: pd.DataFrame) -> str:
    """Per setup: seat 1's share from the weakest rung in seat 1 to the strongest, the others
    played by the study player."""
    if not len(m):
        return ""
    parts = []
    for (pl, lv), g in m.groupby(["players", "leaves"], sort=False):
        g = g.sort_values("rung_order")
        parts.append(f"{pl} players, {lv} leaves, the {g.iloc[0].others} player in the other seats: seat 1's share "
                     "goes from " + ", ".join(f"{r.seat1} {plain_pct(r.share)}" for r in g.itertuples())
                     + f" (fair share {plain_pct(1 / pl)})")
    return " Mixed tables: " + "; ".join(parts) + "."


def _bw_finish(df: pd.DataFrame, bands: dict) -> pd.DataFrame:
    """Bethel Woods' columns after the rows (difficulty, target band) and its playtests table."""
    df["difficulty"] = [DIFFICULTY[int(s)] for s in df["spies"]]
    df["band"] = [band_of(r, bands) for r in df["win_rate"]]
    return bw_playtests(df)


def _bw_chart(st: Study, df: pd.DataFrame, chart_dir, bands: dict):
    return ("Win rate against player skill, one line per difficulty, one panel per player count: every "
            "rung on the same seeds; the shaded bands are the designer's targets",
            charts.skill_curve(df, chart_dir / f"{st.name}_curve", bands=bands)[0])


def _bv_chart(st: Study, df: pd.DataFrame, chart_dir, bands: dict):
    return ("Seat 1's edge over its fair share and the largest seat gap against player skill "
            "(self-play, every rung on the same seeds)",
            charts.skill_seats(df, chart_dir / f"{st.name}_seats", adopted=st.opts.get("adopted"))[0])


# ---------------------------------------------------------------------------------------------
# one rung at one setup

def _bw_row(own, players: int = 0) -> dict:
    d = as_dict(BW.name, own)
    g, w = d.get("games", 0), d.get("wins", 0)
    lo, hi = wilson(w, g)
    lost = g - w
    first = d.get("turns_1", 0)    # a game that ends on its first turn is a loss (six pieces take six turns)
    f_lo, f_hi = wilson(first, g)
    from ..stats import bounded_mean_interval
    built = d.get("built_in_losses", 0)
    b_lo, b_hi = bounded_mean_interval(built, lost, 0, PIECES) if lost else (np.nan, np.nan)
    return {"games": g, "wins": w, "win_rate": w / g if g else np.nan, "ci_low": lo, "ci_high": hi,
            "lost": lost, "first_turn_losses": first, "first_turn_rate": first / g if g else np.nan,
            "first_turn_low": f_lo, "first_turn_high": f_hi, "built_in_losses": built,
            "built_per_lost_game": built / lost if lost else np.nan, "built_low": b_lo, "built_high": b_hi}


def _bv_row(own, players: int) -> dict:
    from .seats import seat_share_gap
    d = as_dict(BV.name, own)
    g, to = d.get("games", 0), d.get("timeouts", 0)
    wins = [d.get(f"seat{q}_wins", 0) for q in range(players)]
    dec = g - to
    e_lo, e_hi = wilson(wins[0], dec) if dec else (np.nan, np.nan)
    gap, glo, ghi = seat_share_gap(wins)
    return {"games": g, "timeouts": to, "decided": dec, **{f"seat{q + 1}_wins": wins[q] for q in range(players)},
            "edge": (wins[0] / dec if dec else np.nan) - 1 / players, "edge_low": e_lo - 1 / players,
            "edge_high": e_hi - 1 / players, "max_gap": gap, "gap_low": glo, "gap_high": ghi}


def _vs_study(sc, counts, i: int, m: "SkillMeasure", players: int, seed: int) -> dict:
    """Rung i's paired difference from the study player on the same games (0: the study player
    itself), by the game's measure (``SkillMeasure.paired``)."""
    if i == 0:
        return {"vs_study": 0.0, "vs_study_low": 0.0, "vs_study_high": 0.0, "vs_study_p": 1.0}
    return m.paired(sc.pair_table(counts, i - 1), players, seed + i)


def _bw_paired(table, players: int, seed: int) -> dict:
    """Bethel Woods: the win rate's paired difference (``stats.paired_difference``)."""
    from ..cells import pairs_from_table
    from ..stats import paired_difference
    a, b = pairs_from_table(table)
    pd_ = paired_difference(a, b)
    return {"vs_study": pd_.diff, "vs_study_low": pd_.ci_low, "vs_study_high": pd_.ci_high, "vs_study_p": pd_.pvalue}


def _bv_paired(table, players: int, seed: int) -> dict:
    """Benevolent: seat 1's edge's paired difference (paired bootstrap of the pair table,
    ``skill.table_bootstrap``)."""
    from ..skill import table_bootstrap
    e = table_bootstrap(table, lambda t: _edge_of_tables(t, players), seed)
    return {"vs_study": e["diff"], "vs_study_low": e["diff_low"], "vs_study_high": e["diff_high"],
            "vs_study_p": e["p_value"]}


def _edge_of_tables(t, players: int):
    """Seat 1's edge of the rung minus the study player's, from (..., 5, 5) pair tables (rows the
    rung's outcome code, columns the study player's; ``skill.pair_table_shares``)."""
    from ..skill import pair_table_shares
    a, b = pair_table_shares(t, players)
    return a[..., 0] - b[..., 0]


# ---------------------------------------------------------------------------------------------
# bands, order, playtests

def band_of(rate: float, bands: dict) -> str:
    """The name of the target band a win rate lies in, or "" (between or outside the bands)."""
    for name, (lo, hi) in bands.items():
        if lo <= rate <= hi:
            return name
    return ""


def _games_text(n: float) -> str:
    if not np.isfinite(n):
        return "never (no difference measured)" if n == float("inf") else "n/a"
    return f"{int(n):,}"


def bw_playtests(df: pd.DataFrame) -> pd.DataFrame:
    """Per rung, player count and each step of spies (the easier level against the next harder
    one the study played): the two win rates and the games per level a playtest group needs to
    notice the step."""
    rows = []
    for (pl, rung), g in df.groupby(["players", "rung"], sort=False):
        g = g.sort_values("spies")
        for a, b in zip(g.itertuples(), list(g.itertuples())[1:]):
            n = games_to_notice(a.win_rate, b.win_rate)
            rows.append({"players": pl, "rung": rung, "from": f"{spies_label(a.spies)} ({a.difficulty})",
                         "to": f"{spies_label(b.spies)} ({b.difficulty})",
                         "win rates": f"{plain_pct(a.win_rate)} ({int(a.wins):,} of {int(a.games):,}) → "
                                      f"{plain_pct(b.win_rate)} ({int(b.wins):,} of {int(b.games):,})",
                         "games per level to notice": _games_text(n), "games_needed": n})
    return pd.DataFrame(rows, columns=["players", "rung", "from", "to", "win rates", "games per level to notice",
                                       "games_needed"]).astype({"games_needed": float})   # no rows at one spies level


def bv_playtests(df: pd.DataFrame) -> pd.DataFrame:
    """Per rung, player count and leaves: seat 1's share and the decided games a playtest group
    needs to notice its edge over the fair share."""
    rows = []
    for r in df.itertuples():
        share = r.edge + 1 / r.players
        n = games_to_notice_edge(share, 1 / r.players)
        rows.append({"players": r.players, "rung": r.rung, "leaves": r.leaves,
                     "seat 1's share": plain_pct(share), "fair share": plain_pct(1 / r.players),
                     "games to notice": _games_text(n), "games_needed": n})
    return pd.DataFrame(rows)


def order_changes(df: pd.DataFrame) -> list[str]:
    """Where the difficulty levels' order (more spies, fewer wins) breaks at some rung and player
    count: a harder level with a higher win rate, said with the two rates."""
    out = []
    for (pl, rung), g in df.groupby(["players", "rung"], sort=False):
        g = g.sort_values("spies")
        for a, b in zip(g.itertuples(), list(g.itertuples())[1:]):
            if b.win_rate > a.win_rate:
                out.append(f"{rung}, {pl} players: {spies_label(b.spies)} {plain_pct(b.win_rate)} above "
                           f"{spies_label(a.spies)} {plain_pct(a.win_rate)}")
    return out


# ---------------------------------------------------------------------------------------------
# what the report says

def _bw_caption(st: Study) -> str:
    return ("Win rate at every rung of skill on the same seeds (Wilson 95% intervals), the difference from the "
            f"study player ({st.policies[0]}) game by game, the games lost on the first turn and the Daydreamer "
            "pieces a lost game had built")


def _bv_caption(st: Study) -> str:
    return ("Seat 1's edge over its fair share and the largest seat gap at every rung of skill (self-play, the same "
            f"seeds), and seat 1's edge minus the study player's ({st.policies[0]}) game by game")


def _bw_show(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "players": df["players"], "difficulty": [f"{spies_label(s)}: {d}" for s, d in zip(df["spies"], df["difficulty"])],
        "rung": df["rung"],
        "win rate (95% CI)": [rate_cell(w, g) for w, g in zip(df["wins"], df["games"])],
        "minus the study player's": [diff_cell(d, lo, hi) if r != s else "—" for d, lo, hi, r, s in
                                     zip(df["vs_study"], df["vs_study_low"], df["vs_study_high"], df["rung"],
                                         df["study_player"])],
        "lost on the first turn": [rate_cell(f, g) for f, g in zip(df["first_turn_losses"], df["games"])],
        "pieces built per lost game (of 6)": [f"{b:.1f}\n({lo:.1f}–{hi:.1f})" if np.isfinite(b) else "no loss"
                                              for b, lo, hi in zip(df["built_per_lost_game"], df["built_low"],
                                                                   df["built_high"])],
        "target band": [b or "—" for b in df["band"]]})


def _bv_show(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "players": df["players"], "leaves": df["leaves"], "rung": df["rung"],
        "seat 1's edge (95% CI)": [diff_cell(e, lo, hi) for e, lo, hi in zip(df["edge"], df["edge_low"], df["edge_high"])],
        "minus the study player's": [diff_cell(d, lo, hi) if r != s else "—" for d, lo, hi, r, s in
                                     zip(df["vs_study"], df["vs_study_low"], df["vs_study_high"], df["rung"],
                                         df["study_player"])],
        "largest seat gap (95% CI)": [f"{plain_pp(g, sign=False)}\n({pp_range(lo, hi).replace('+', '')})"
                                      for g, lo, hi in zip(df["max_gap"], df["gap_low"], df["gap_high"])],
        "decided games": [f"{int(d):,} of {int(g):,}" for d, g in zip(df["decided"], df["games"])]})


def _bands_text(bands: dict) -> str:
    return ", ".join(f"{k} {range_text(lo, hi)}" for k, (lo, hi) in bands.items())


def _spies_short(sp) -> str:
    return f"{sp} spy" if int(sp) == 1 else f"{sp} spies"


def _never_won(g: pd.DataFrame) -> list[str]:
    """The rungs that won no game at any level (the random player: a floor, not a range)."""
    w = g.groupby("rung", sort=False)["wins"].sum()
    return [r for r in g.sort_values("rung_order")["rung"].unique() if w[r] == 0]


def _levels_over_skill(g: pd.DataFrame) -> list[str]:
    """Per spies level, from the weakest rung that won a game to the strongest: "0 spies
    (Normal) heuristic 26% to expert 72%"; then the rungs that won nothing."""
    out = []
    none = _never_won(g)
    for sp, h in g.groupby("spies", sort=True):
        h = h[~h["rung"].isin(none)].sort_values("rung_order") if len(none) < g["rung"].nunique() else h
        a, b = h.iloc[0], h.iloc[-1]
        out.append(f"{_spies_short(sp)} ({a.difficulty}) {a.rung} {plain_pct(a.win_rate)}"
                   + (f" to {b.rung} {plain_pct(b.win_rate)}" if b.rung != a.rung else ""))
    if none:
        out.append(f"{' and '.join(none)} won no game")
    return out


def _in_bands(g: pd.DataFrame, bands: dict) -> list[str]:
    """Per band, the rungs whose win rate lies in it and at which levels ("standard 30–40%:
    learned at 2, 3 spies; expert at 4 spies")."""
    out = []
    for name, (lo, hi) in bands.items():
        parts = []
        for rung, h in g[g["band"] == name].sort_values(["rung_order", "spies"]).groupby("rung", sort=False):
            sp = [int(x) for x in h["spies"]]
            parts.append(f"{rung} at {', '.join(map(str, sp))} {'spy' if sp == [1] else 'spies'}")
        if parts:
            out.append(f"{name} band ({range_text(lo, hi)}): " + "; ".join(parts))
    return out


def _adopted_gaps(df: pd.DataFrame, pl: int, lv: str) -> tuple[str, float]:
    """The adopted handicap's largest seat gap at each rung beside the printed handicap's on the
    same seeds ("random 3 (printed 5), ..."), and the largest half-width of its intervals."""
    g = df[(df["players"] == pl) & (df["leaves"] == lv)].sort_values("rung_order")
    pr = df[(df["players"] == pl) & (df["leaves"] == "printed")].set_index("rung")
    parts = []
    for r in g.itertuples():
        p_ = f" (printed {plain_pp(pr.loc[r.rung, 'max_gap'], sign=False).replace(' pp', '')})" if r.rung in pr.index else ""
        parts.append(f"{r.rung} {plain_pp(r.max_gap, sign=False).replace(' pp', '')}{p_}")
    hw = float(((g["gap_high"] - g["gap_low"]) / 2).max())
    return ", ".join(parts) + " pp", hw


def _adopted_answer(st: Study, df: pd.DataFrame, pl: int, lv: str):
    from ..answers import Answer, verdict_level
    text, hw = _adopted_gaps(df, pl, lv)
    return Answer(BV.name, f"The adopted handicap across skill, {pl} players",
                  f"largest seat gap with {lv}: {text} (±{plain_pp(hw, sign=False)})", verdict_level(hw), st.name,
                  skill=ACROSS, first=True)


def _first_turn(g: pd.DataFrame) -> str:
    """Games lost on the first turn at the hardest level played, per rung."""
    sp = int(g["spies"].max())
    h = g[g["spies"] == sp].sort_values("rung_order")
    return (f"lost on the first turn at {_spies_short(sp)}: "
            + ", ".join(f"{r.rung} {plain_pct(r.first_turn_rate)}" for r in h.itertuples()))


def skill_findings(st: Study, df: pd.DataFrame) -> str:
    o = st.opts
    rungs = ", ".join(o["rungs"])
    parts = [f"Every setup was played by each rung of skill, weakest to strongest ({rungs}), on the same "
             f"{o['games']:,} seeds, so the rungs differ by their play, not their luck. The rungs are bots: "
             "what they say about a group of people depends on where the group sits among them (docs/studies.md, "
             "\"The skill axis\")."]
    return "\n\n".join(parts + skill_measure(st.game).findings(st, df))


def _bw_findings(st: Study, df: pd.DataFrame) -> list[str]:
    o = st.opts
    parts = []
    for pl, g in df.groupby("players", sort=True):
        parts.append(f"{pl} players: " + "; ".join(_levels_over_skill(g)) + ".")
        inb = _in_bands(g, o["bands"])
        parts.append(f"Target bands ({_bands_text(o['bands'])}): "
                     + (". ".join(inb) if inb else "no level lies in a band at any rung") + ".")
        parts.append(_first_turn(g)[0].upper() + _first_turn(g)[1:] + " (the table has every level, with "
                     "intervals).")
    ch = order_changes(df)
    parts.append("The order of the difficulty levels (more spies, fewer wins) " +
                 ("holds at every rung and player count." if not ch else
                  "breaks at: " + "; ".join(ch) + " (estimates; their intervals are in the table)."))
    return parts


def _bv_findings(st: Study, df: pd.DataFrame) -> list[str]:
    parts = []
    for (pl, lv), g in df.groupby(["players", "leaves"], sort=False):
        g = g.sort_values("rung_order")
        signs = {int(np.sign(r.edge_low)) if r.edge_low > 0 else (-1 if r.edge_high < 0 else 0)
                 for r in g.itertuples()}
        word = ("seat 1 is ahead at every rung" if signs == {1} else "seat 1 is behind at every rung"
                if signs == {-1} else "the sign of seat 1's edge is not the same at every rung (or not "
                "established at some)")
        parts.append(f"{pl} players, {lv} leaves: seat 1's edge goes from {g.iloc[0].rung} "
                     f"{plain_pp(g.iloc[0].edge)} to {g.iloc[-1].rung} {plain_pp(g.iloc[-1].edge)}; {word}.")
        if (st.opts.get("adopted") or {}).get(pl) == lv:
            text, _ = _adopted_gaps(df, pl, lv)
            parts.append(f"{lv} is the handicap the report's handicap study adopts at {pl} players (on its "
                         f"holdout games, played by {st.policies[0]}); played again by every rung on the same "
                         f"seeds as the printed one, its largest seat gap: {text}.")
    return parts


def _bw_answers(st: Study, df: pd.DataFrame, tests: pd.DataFrame) -> list:
    from ..answers import Answer, verdict_level
    out = []
    for pl, g in df.groupby("players", sort=True):
        hw = float(((g["ci_high"] - g["ci_low"]) / 2).max())
        inb = _in_bands(g, st.opts["bands"])
        t = tests[tests["players"] == pl]
        fin = t[np.isfinite(t["games_needed"])]
        notice = (f"a step of spies: {int(fin['games_needed'].min()):,} to "
                  f"{int(fin['games_needed'].max()):,} games per level" if len(fin) else "")
        out.append(Answer(BW.name, f"Win rate across skill, {pl} players",
                          "; ".join(_levels_over_skill(g)) + f" (±{plain_pp(hw, sign=False)})"
                          + "".join(f". In the {b}" for b in inb) + ". " + _first_turn(g)[0].upper()
                          + _first_turn(g)[1:],
                          verdict_level(hw), st.name, skill=ACROSS, first=True, playtests=notice))
    return out


def _bv_answers(st: Study, df: pd.DataFrame, tests: pd.DataFrame) -> list:
    from ..answers import Answer, verdict_level
    out = []
    adopted = st.opts.get("adopted") or {}
    for (pl, lv), g in df.groupby(["players", "leaves"], sort=False):
        g = g.sort_values("rung_order")
        if adopted.get(pl) == lv:
            out.append(_adopted_answer(st, df, pl, lv))
            continue
        hw = float(((g["edge_high"] - g["edge_low"]) / 2).max())
        t = tests[(tests["players"] == pl) & (tests["leaves"] == lv)]
        fin = t[np.isfinite(t["games_needed"])]
        notice = (f"the edge: {int(fin['games_needed'].min()):,} to "
                  f"{int(fin['games_needed'].max()):,} decided games" if len(fin) else "")
        out.append(Answer(BV.name, f"Seat 1's edge across skill, {pl} players, {lv} leaves",
                          "; ".join(f"{r.rung} {plain_pp(r.edge)}" for r in g.itertuples())
                          + f" (±{plain_pp(hw, sign=False)})", verdict_level(hw), st.name, skill=ACROSS,
                          first=True, playtests=notice))
    return out


# ---------------------------------------------------------------------------------------------
# what differs by game

@dataclass(frozen=True)
class SkillMeasure:
    """What the skill study measures of one game (its part of the game's adapter); ``run_skill``
    is the one driver over it."""
    setups: Callable      # study -> (setup cell, its table columns) for every setup
    levels: int           # outcome classes of a game (cells.StarCell)
    mixed: bool           # whether the study's ``mixed`` tables apply (a seat can be played by another rung)
    row: Callable         # (a rung's counts, players) -> its figures
    paired: Callable      # (pair table, players, seed) -> the paired difference from the study player
    finish: Callable      # (rows, bands) -> the playtests table (adding the game's columns to the rows)
    chart: Callable       # (study, rows, chart folder, bands) -> (caption, path)
    caption: Callable     # study -> the rows table's caption
    show: Callable        # rows -> the table as the report shows it
    findings: Callable    # (study, rows) -> paragraphs
    answers: Callable     # (study, rows, playtests) -> front-page answers


SKILL_MEASURES = {
    BW.name: SkillMeasure(setups=_bw_setups, levels=2, mixed=False, row=_bw_row, paired=_bw_paired,
                          finish=_bw_finish, chart=_bw_chart, caption=_bw_caption, show=_bw_show,
                          findings=_bw_findings, answers=_bw_answers),
    BV.name: SkillMeasure(setups=_bv_setups, levels=1 + BV.max_players, mixed=True, row=_bv_row, paired=_bv_paired,
                          finish=lambda df, bands: bv_playtests(df), chart=_bv_chart, caption=_bv_caption,
                          show=_bv_show, findings=_bv_findings, answers=_bv_answers),
}


def skill_measure(game) -> SkillMeasure:
    """The game's skill measure."""
    from simcore.games import game as game_of
    return SKILL_MEASURES[game_of(game).name]
