"""What the kinds of study share: the number of games (fixed from a target half-width, or
sequential looks), the ``Result`` of a study, the report-table cells (a rate with its interval and
counts, a difference), the Bethel Woods count frames, and the skill check's rows and tables."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from arena.units import FIELDS, as_dict
from simcore.games import BETHEL_WOODS as BW

from ..run.execute import execute
from ..render import Section
from ..answers import pp_range, range_text
from ..stats import Z95, plain_pct, plain_pp, sequential_plan, spies_label, wilson
from .spec import DIFFICULTY, Study


# ---------------------------------------------------------------------------------------------
# sizes

def fixed_games(target: float) -> int:
    """The fewest games that give a 95% Wilson half-width <= target at the worst rate (50%): the
    sample size fixed up front from the target (no looks at the data, so no correction needed).
    At a rate of 1/2 the half-width is z / (2 sqrt(n + z^2)), so the search starts just below
    (z / 2h)^2 - z^2 and steps by one game (before 2026-12-01 it stepped by n/200 and could
    return up to 0.5% more: 9,643 for h = 0.01 where 9,600 suffice)."""
    z = Z95
    n = max(2, int(math.floor((z / (2 * target)) ** 2 - z * z)) - 2)
    while True:
        lo, hi = wilson(n // 2, n)
        if (hi - lo) / 2 <= target:
            return n
        n += 1


def study_games(st: Study) -> int:
    t = st.opts.get("target_halfwidth")
    return fixed_games(t) if t and st.kind in ("characters", "handicap", "variants") else st.opts["games"]


def run_sequential(cells, st: Study, rate_fn, threads, progress, backend=None, unit_fn=None):
    """Play each cell in looks of n0 * 2**k games (stats.SequentialPlan: Bonferroni alpha
    spending, valid under repeated looks) until every rate rate_fn(counts) names has a half-width
    <= the target at that look's level, or `games` (the cap) is reached. Returns (totals, looks)."""
    plan = sequential_plan(st.opts["target_halfwidth"], n0=st.opts.get("sequential_n0", 1000))
    cap = st.opts["games"]
    totals = [np.zeros(len(getattr(c, "fields", FIELDS[c.game])), dtype=np.int64) for c in cells]
    looks = [0] * len(cells)
    active = list(range(len(cells)))
    done = [0] * len(cells)
    k = 0
    while active:
        n_k = min(cap, plan.games_at(k))
        work = [(cells[i], n_k - done[i], done[i]) for i in active]
        res = execute(work, threads=threads, progress=progress, unit_fn=unit_fn, **(backend or {}))
        still = []
        for i, r in zip(active, res):
            totals[i] += r
            done[i] = n_k
            looks[i] = k
            rates = rate_fn(cells[i], totals[i])   # [(wins, n), ...]
            stop = n_k >= cap or all(plan.should_stop(w, n, k) for w, n in rates)
            if not stop:
                still.append(i)
        active = still
        k += 1
    return totals, looks, plan


def seq_columns(df, plan, looks, wins_col="wins", games_col="games"):
    lo, hi = [], []
    for w, n, k in zip(df[wins_col], df[games_col], looks):
        a, b = plan.interval(int(w), int(n), int(k))
        lo.append(a)
        hi.append(b)
    df["look"] = looks
    df["seq_ci_low"] = lo
    df["seq_ci_high"] = hi
    return df


# ---------------------------------------------------------------------------------------------
# results

@dataclass
class Result:
    study: Study
    tables: dict                      # name -> DataFrame (saved as CSV and Parquet)
    section: Section
    meta: dict = field(default_factory=dict)
    answers: list = field(default_factory=list)   # experiments.answers.Answer: the front page's lines


def skill_plan(st: Study):
    """(study player, stronger player, games per headline cell) of a study's skill check, or None
    when its file asks for none (skill_games = 0 or absent). The stronger player is the study
    file's skill_policy, else the game's best honest player (policies.BEST_PLAYER)."""
    n = int(st.opts.get("skill_games") or 0)
    if n <= 0:
        return None
    from policies import BEST_PLAYER
    return st.opts["policy"][0], st.opts.get("skill_policy") or BEST_PLAYER[st.game], n


# the weaker rung of every skill check (a study file's skill_weaker): fast (thousands of games a
# second), so playing it on the check's seeds costs little beside the stronger player
WEAKER_PLAYER = "heuristic"


def weaker_rung(st: Study) -> str | None:
    """The weaker rung a study's skill check plays on the same seeds: the file's skill_weaker, else
    WEAKER_PLAYER; None when the study has no check, the file says "none", or the default is the
    study player or the stronger one (a file that names either is refused when it is loaded)."""
    plan = skill_plan(st)
    if plan is None:
        return None
    w = st.opts.get("skill_weaker") or WEAKER_PLAYER
    return None if w == "none" or w in plan[:2] else w


def study_players(st: Study) -> list[str]:
    """Every player a study plays: its players (``policy``), its rungs (the dial's as the learned
    player) and its skill check's stronger and weaker players, each once."""
    from policies import parse_rung
    names = list(st.opts.get("policy") or [])
    names += [parse_rung(r, st.game)[0] for r in st.opts.get("rungs") or []]
    plan = skill_plan(st)
    if plan:
        names.append(plan[1])
    weaker = weaker_rung(st)
    if weaker:
        names.append(weaker)
    return list(dict.fromkeys(names))


def bw_frame(cells, totals, extra=None) -> pd.DataFrame:
    """One row per Bethel Woods cell: its settings and every scalar count."""
    rows = []
    for i, (c, t) in enumerate(zip(cells, totals)):
        d = as_dict(BW.name, t)
        row = {"players": c.players, "spies": c.spies, "difficulty": DIFFICULTY[c.spies],
               "policy": c.seat_policies()[0],
               "characters": ",".join(c.characters) if c.characters else "random",
               "seed": c.seed}
        if extra is not None:
            row.update(extra[i])
        row.update({k: d.get(k, 0) for k in FIELDS[BW.name][:14]})
        rows.append(row)
    df = pd.DataFrame(rows)
    return df.rename(columns={"loss_bag_empty": "bag_empty", "loss_four_critical": "four_critical",
                              "loss_six_spies": "six_spies"})


def bw_lengths(cells, totals, extra=None) -> pd.DataFrame:
    """One row per cell and game length in turns that occurred: games, and (when the counts carry
    the won games' histogram, LengthsCell) won and lost games of that length."""
    n0 = 14
    nf = len(FIELDS[BW.name])
    rows = []
    for i, (c, t) in enumerate(zip(cells, totals)):
        won = t[nf:] if len(t) > nf else None
        for b, g in enumerate(t[n0:nf]):
            if g:
                row = {"players": c.players, "spies": c.spies, "policy": c.seat_policies()[0]}
                if extra is not None:
                    row.update(extra[i])
                row.update({"turns": b + 1, "games": int(g)})
                if won is not None:
                    row.update({"won": int(won[b]), "lost": int(g - won[b])})
                rows.append(row)
    return pd.DataFrame(rows)


# report-table cells and skill checks shared by the studies -----------------------------------------

def rate_cell(k, n, lo=None, hi=None) -> str:
    """A rate in a report table: the rate, its 95% interval (Wilson unless lo/hi are given) and
    the counts: "49% (45–53)" over "294 of 600"."""
    if not n:
        return "no games"
    if lo is None:
        lo, hi = wilson(int(k), int(n))
    return f"{plain_pct(k / n)} ({range_text(lo, hi)})\n{int(k):,} of {int(n):,}"


def diff_cell(d, lo, hi) -> str:
    """A difference of rates in a report table: "+6 pp" over "(+3 to +9)"."""
    if not np.isfinite(lo):
        return plain_pp(d)
    return f"{plain_pp(d)}\n({pp_range(lo, hi)})"


def pivot(df: pd.DataFrame, rows: list, col: str, value, header) -> pd.DataFrame:
    """A wide table: one row per value of `rows`, one column per value of `col` (named
    header(value)), cells value(row) (rows sorted, columns in order)."""
    out = []
    for key, g in df.groupby(rows, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        r = dict(zip(rows, key))
        for _, x in g.sort_values(col, key=leaves_order).iterrows():
            r[header(x[col])] = value(x)
        out.append(r)
    return pd.DataFrame(out)


def level_header(sp) -> str:
    return f"{spies_label(sp)}: {DIFFICULTY[int(sp)]}"


def table_csv_path(st: Study, table: str) -> str:
    """The path of a study table's CSV inside the report folder (report.md and report.html link it)."""
    return f"tables/{st.name}_{table}.csv"


def _run_checks(st: Study, checks: list, n: int, threads, progress, backend) -> list[np.ndarray]:
    """Play n seeds of every skill check (a list of (info, JointCell)) in one batch."""
    from ..skill import play
    return play([jc for _, jc in checks], n, threads=threads, progress=progress, backend=backend)


def _weaker_twin(jc, best: str, weaker: str):
    """A skill check with the stronger player's arms played by the weaker rung: the same cells
    and seeds otherwise, so game i of every arm draws the same chance (chance is keyed by event,
    whoever plays) and the study player's arms are the check's own games again."""
    return replace(jc, arms=tuple(replace(a, policies=(weaker,)) if tuple(a.policies) == (best,) else a
                                  for a in jc.arms))


def play_checks(st: Study, checks: list, n: int, threads, progress, backend) -> tuple[list, list]:
    """(counts, weaker counts): n seeds of every skill check and, when the study has a weaker rung
    (``weaker_rung``), of each check's weaker twin (``_weaker_twin``), all in one batch. The
    checks' own counts are those ``_run_checks`` plays (the same cells, seeds and units: a store
    resumes them); weaker counts is [] without a weaker rung."""
    twins = _weaker_twins(st, checks)
    out = _run_checks(st, checks + twins, n, threads, progress, backend)
    return out[:len(checks)], out[len(checks):]


def _weaker_twins(st: Study, checks: list) -> list:
    """The weaker twins of a study's checks (for their patterns table), [] without a weaker rung."""
    weaker = weaker_rung(st)
    if weaker is None:
        return []
    best = skill_plan(st)[1]
    return [(info, _weaker_twin(jc, best, weaker)) for info, jc in checks]


def rungs_named(st: Study) -> str:
    """The players of a study's skill check, weakest first: "the heuristic, the learned and the
    expert player" (the weaker rung only when it is played)."""
    plan = skill_plan(st)
    if plan is None:
        return ""
    names = [n for n in (weaker_rung(st), plan[0], plan[1]) if n]
    return "the " + (", the ".join(names[:-1]) + " and the " + names[-1]) + " player"


def weaker_cols(stat: dict, weaker: str | None) -> dict:
    """A weaker twin's statistic (the same function as the check's, its "best" arms now the weaker
    rung's) as the skill row's weaker_ columns: the weaker rung's value and interval (and wins,
    where the statistic counts them), and its paired difference weaker minus study player."""
    out: dict = {"weaker_policy": weaker}
    for k, v in stat.items():
        if k.startswith("best_"):
            out["weaker_" + k[5:]] = v
    for k in ("diff", "diff_low", "diff_high", "p_value"):
        out[f"weaker_{k}"] = stat[k]
    return out


def skill_row(info: dict, jc, counts, plan, question: str, stat: dict) -> dict:
    """One row of a study's skill table: the check's setting, both players, the games per arm, each
    arm's description, the statistic (values, paired difference, interval, p) and the word."""
    from ..skill import describe_arms, robustness
    row = {**info, "question": question, "study_policy": plan[0], "best_policy": plan[1],
           "games": int(counts[0]), **describe_arms(jc), **stat}
    row["robust"] = robustness(row["diff_low"], row["diff_high"])
    return row


def pair_stat(counts) -> dict:
    """The two-arm binary check (stronger player, study player) as a skill row's statistic."""
    from ..skill import pair_rates
    r = pair_rates(counts)
    n = int(counts[0])
    b = wilson(r["best_wins"], n)
    a = wilson(r["study_wins"], n)
    return {"study_wins": r["study_wins"], "best_wins": r["best_wins"],
            "study_value": r["study_wins"] / n, "study_low": a[0], "study_high": a[1],
            "best_value": r["best_wins"] / n, "best_low": b[0], "best_high": b[1],
            "diff": r["diff"], "diff_low": r["diff_low"], "diff_high": r["diff_high"],
            "p_value": r["p_value"]}


def skill_tables(st: Study, rows: list[dict], counts: list, checks: list, weaker_counts=()) -> dict:
    """The skill check's tables for save_tables: one row per check, and its outcome patterns (and
    the weaker twins' patterns, check i's twin under check i, when the weaker rung was played:
    ``play_checks``' weaker counts)."""
    from ..skill import patterns_frame
    if not rows:
        return {}
    out = {"skill": pd.DataFrame(rows), "skill_patterns": patterns_frame(rows, counts, [jc for _, jc in checks])}
    if len(weaker_counts):
        out["skill_weaker_patterns"] = patterns_frame(rows, list(weaker_counts),
                                                      [jc for _, jc in _weaker_twins(st, checks)])
    return out


def skill_show(rows: pd.DataFrame, keys: list, diff: bool = False) -> pd.DataFrame:
    """A skill table as the report prints it: the setting, each player's value on the same seeds
    (the weaker rung's when it was played, the study player's, the stronger player's: a rate, or
    with diff=True a difference in points), the paired difference stronger minus study player and
    its word."""
    show = rows[keys].copy()
    show["games"] = rows["games"]
    if "weaker_policy" in rows:
        show["weaker player"] = [f"{p}: {_value_text(v, lo, hi, diff)}" if isinstance(p, str) else "not played"
                                 for p, v, lo, hi in zip(rows["weaker_policy"], rows["weaker_value"],
                                                         rows["weaker_low"], rows["weaker_high"])]
    show["study player"] = [f"{p}: {_value_text(v, lo, hi, diff)}" for p, v, lo, hi in
                            zip(rows["study_policy"], rows["study_value"], rows["study_low"], rows["study_high"])]
    show["stronger player"] = [f"{p}: {_value_text(v, lo, hi, diff)}" for p, v, lo, hi in
                               zip(rows["best_policy"], rows["best_value"], rows["best_low"], rows["best_high"])]
    show["difference"] = [diff_cell(d, lo, hi) for d, lo, hi in zip(rows["diff"], rows["diff_low"], rows["diff_high"])]
    show["with stronger play"] = rows["robust"]
    return show


def _value_text(v, lo, hi, diff: bool = False) -> str:
    """A skill check's value: a rate (0..1) as "49% (45–53%)", or (diff) a difference of rates in
    points, "+6 pp (+2 to +9 pp)"."""
    if diff:
        return plain_pp(v) if not np.isfinite(lo) else f"{plain_pp(v)} ({pp_range(lo, hi)})"
    if not np.isfinite(lo):
        return plain_pct(v)
    return f"{plain_pct(v)} ({range_text(lo, hi)})"


def could_find(effect: float, what: str = "an effect") -> str:
    """"; the sample had an 80% chance to find a drop of 9 pp or more" (a not-significant finding
    says what its sample could detect; stats.detectable_difference / detectable_from_interval)."""
    if not np.isfinite(effect):
        return "; the sample is too small to find any such difference with an 80% chance"
    return f"; the sample had an 80% chance to find {what} of {plain_pp(effect, sign=False)} or more"


def leaves_order(col: pd.Series) -> pd.Series:
    """A sort key for DataFrame.sort_values: a "leaves" column ("0,9", "0,10") sorts by its
    numbers, not as text; any other column as it is."""
    return col.map(leaves_tuple) if col.name == "leaves" else col


def two_arm_bootstrap(a, b, stat, seed) -> dict:
    """One player's contrast of two Benevolent arms (winners, -1 a timeout) on the same seeds, with
    the paired bootstrap interval (skill.bootstrap_change on the two arms' joint counts)."""
    from ..skill import bootstrap_change
    counts = np.zeros(1 + 25, dtype=np.int64)
    counts[0] = len(a)
    np.add.at(counts, 1 + (np.asarray(a) + 1) + 5 * (np.asarray(b) + 1), 1)
    return bootstrap_change(counts, 2, stat, seed)


def leaves_tuple(s) -> tuple:
    """A leaves name as the tables hold it ("1,3,4,5") as the vector (1, 3, 4, 5)."""
    return tuple(map(int, str(s).split(",")))
