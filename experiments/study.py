"""Balance studies: a declarative TOML file names what to play; this module checks it, plays it
through experiments.execute, and turns the counts into tables (pandas), charts and findings.

Five kinds of study (docs/studies.md has the file format and the statistics):

- ``difficulty``  Bethel Woods win rate by spies added (0-5) x players x policy; losses by reason,
                  game length, Daydreamer pieces and spies uncovered in lost games.
- ``characters``  Bethel Woods: every character set of each player count on common deals (one
                  seed for every set); logistic regression of win on characters, spies, players;
                  sets that differ from the rest flagged after Holm's correction.
- ``seats``       Benevolent seat win rates with the printed and equal leaves: simultaneous
                  (Goodman) intervals, chi-square against equal seats, Balance, first-seat edge.
- ``handicap``    Benevolent: every non-decreasing starting-leaves vector up to max_leaves played
                  on common random numbers; the fairest few confirmed on fresh seeds.
- ``variants``    any rules file(s) against the default rules on the same seeds: paired difference
                  of the win rate with its interval and McNemar's test.

Every cell is an arena.units.Cell and every table row carries the counts it rests on.
"""
from __future__ import annotations

import itertools
import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from arena.units import FIELDS, Cell, as_dict, check_cell
from simcore.errors import UserError

from . import charts
from .glossary import GAME_NAMES
from .cells import JointCell, LengthsCell, PairedCell, cell_unit, paired_unit
from .execute import execute
from policies import STUDY_PLAYER

from .render import Section, rate_table
from .answers import pp_range, range_text
from .stats import (Z95, adjust_pvalues, against_rest, balance, bounded_mean_interval, detectable_difference,
                    detectable_from_interval, independent_difference, mean_interval, paired_difference, p_is, pct,
                    plain_pct, plain_pp, rate_text, seat_fairness, seat_intervals, seats_verdict, SEATS_ALIKE, sequential_plan,
                    signed, spies_label, wilson)

# The policy a study plays when it names none: the game's study player (policies.STUDY_PLAYER).
DEFAULT_POLICY = dict(STUDY_PLAYER)

KINDS = {"difficulty": "bethel_woods", "characters": "bethel_woods", "seats": "benevolent",
         "handicap": "benevolent", "variants": None, "sensitivity": None}
# The rulebook's "Increasing the Difficulty" table: Hard 1-2 spies, Insane 3-4, Impossible 5;
# it names no level for 0 spies (the base game), which we call Normal.
DIFFICULTY = charts.DIFFICULTY
FRESH_SEED_OFFSET = 1_000_003   # confirmation seeds: seed + this (never a search seed)


# ---------------------------------------------------------------------------------------------
# the study file

def _int(lo, hi):
    def check(key, v):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise UserError(f"{key} = {v!r}: expected a whole number from {lo} to {hi}")
        return v
    return check


def _ints(lo, hi, allowed_text=None):
    def check(key, v):
        if not isinstance(v, list) or not v:
            raise UserError(f"{key} = {v!r}: expected a non-empty list of whole numbers "
                            f"from {lo} to {hi}")
        for x in v:
            if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
                raise UserError(f"{key} = {v!r}: {x!r} is not allowed; "
                                f"{allowed_text or f'whole numbers from {lo} to {hi}'}")
        if len(set(v)) != len(v):
            raise UserError(f"{key} = {v!r}: a value is repeated")
        return list(v)
    return check


def _float(lo, hi):
    def check(key, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo < v < hi:
            raise UserError(f"{key} = {v!r}: expected a number between {lo} and {hi}")
        return float(v)
    return check


def _str(key, v):
    if not isinstance(v, str) or not v.strip():
        raise UserError(f"{key} = {v!r}: expected a non-empty string")
    return v


def _strs(key, v):
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        raise UserError(f"{key} = {v!r}: expected a string or a non-empty list of strings")
    return list(v)


def _leaves_spec(key, v):
    allowed = "'printed', 'equal' or a list of leaves per seat like [1, 3, 4, 5]"
    if not isinstance(v, list) or not v:
        raise UserError(f"{key} = {v!r}: expected a non-empty list; each entry {allowed}")
    for x in v:
        if not (x in ("printed", "equal") or (isinstance(x, list) and all(
                isinstance(y, int) and not isinstance(y, bool) and y >= 0 for y in x))):
            raise UserError(f"{key}: {x!r} is not allowed; each entry {allowed}")
    return list(v)


COMMON = {
    "kind": _str, "title": _str, "policy": _strs, "players": _ints(2, 4, "players 2 to 4"),
    "games": _int(1, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "rules": _str,
    "target_halfwidth": _float(0.0, 0.5), "sequential_n0": _int(10, 10 ** 9),
    # skill robustness (experiments/skill.py): games per headline cell of the stronger player (0:
    # no check) and who plays them (default policies.BEST_PLAYER[game])
    "skill_games": _int(0, 10 ** 7), "skill_policy": _str,
}
KEYS = {
    "difficulty": {**COMMON, "spies": _ints(0, 5, "spies 0 to 5"), "characters": _strs},
    "characters": {**COMMON, "spies": _ints(0, 5, "spies 0 to 5")},
    "seats": {**COMMON, "leaves": _leaves_spec},
    "handicap": {**COMMON, "max_leaves": _int(1, 16), "confirm_top": _int(1, 20),
                 "confirm_games": _int(1, 10 ** 9)},
    "variants": {**COMMON, "game": _str, "spies": _ints(0, 5, "spies 0 to 5"),
                 "variants": _strs, "leaves": _leaves_spec},
    "sensitivity": {"kind": _str, "title": _str, "game": _str, "policy": _strs,
                    "games": _int(2, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "only": _strs,
                    "skill_games": _int(0, 10 ** 7), "skill_policy": _str},
}
DEFAULTS = {
    "difficulty": {"players": [2, 3, 4], "spies": [0, 1, 2, 3, 4, 5], "games": 10_000},
    "characters": {"players": [2, 3, 4], "spies": [0, 2], "games": 1_000},
    "seats": {"players": [2, 3, 4], "leaves": ["printed", "equal"], "games": 100_000},
    "handicap": {"players": [2, 3, 4], "max_leaves": 6, "games": 4_000, "confirm_top": 3,
                 "confirm_games": 100_000},
    "variants": {"game": "bethel_woods", "players": [3], "spies": [0, 2], "games": 10_000,
                 "leaves": ["printed"]},
    "sensitivity": {"game": "bethel_woods", "games": 2_000},
}


@dataclass
class Study:
    """A checked study file: `kind`, `game`, the settings (`opts`, quick overrides applied) and
    the loaded rules objects."""
    kind: str
    game: str
    name: str
    title: str
    opts: dict
    path: Path | None = None
    rules: object = None                       # the study's rules (None: defaults)
    variants: list = field(default_factory=list)   # (name, Rules) for the variants study
    files: list = field(default_factory=list)      # the rules and variants files it read (Paths)

    @property
    def policies(self) -> list[str]:
        return self.opts["policy"]


def _check_table(where: str, table: dict, kind: str) -> dict:
    allowed = KEYS[kind]
    out = {}
    for key, v in table.items():
        if key == "quick":
            continue
        if key not in allowed:
            raise UserError(f"{where}: key {key!r} is not known for a {kind} study; allowed: "
                            f"{', '.join(sorted(allowed))}, quick")
        try:
            out[key] = allowed[key](key, v)
        except UserError as e:
            raise UserError(f"{where}: {e}") from None
    return out


def load_study(path, quick: bool = False, seed: int | None = None, allow=()) -> Study:
    """Read and check a study file (UserError with one line naming the bad key or value).

    The files it names (rules, variants) are found relative to the study file and must lie inside
    its folder once links are followed, or inside a file or folder of `allow` (``--allow`` on the
    command line): a study file from elsewhere cannot make boardsim read any file on the machine."""
    from simcore.limits import parse_nested, read_regular
    path = Path(path)
    what = f"study file {str(path)!r}"
    try:
        raw = parse_nested(lambda b: tomllib.loads(b.decode("utf-8")), read_regular(path, what), what)
    except FileNotFoundError:
        raise UserError(f"{what} does not exist") from None
    except UserError:
        raise                  # a folder, a device or pipe, too large or too deeply nested
    except UnicodeDecodeError:
        raise UserError(f"{what} cannot be read: it is not UTF-8 text (TOML must be)") from None
    except OSError as e:
        raise UserError(f"{what} cannot be read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{what} is not valid TOML: {e}") from None
    return study_from_dict(raw, path.stem, base=path.parent, quick=quick, seed=seed,
                           where=str(path), confine=True, allow=allow)


def study_path(base, value: str, key: str, where: str, confine: bool = True, allow=()) -> Path:
    """The file a study file names (``rules = ...``, ``variants = [...]``): relative to the study
    file's folder `base`. With `confine`, the file (links followed) must be inside `base` or inside
    a path of `allow`; else a UserError naming the key, the value and what to do."""
    p = Path(base) / value
    if not confine:
        return p
    real = p.resolve()
    inside = [Path(base).resolve(), *(Path(a).resolve() for a in allow)]
    if any(real == d or real.is_relative_to(d) for d in inside):
        return p
    raise UserError(f"{where}: {key} = {value!r} leads outside the study file's folder ({real}); put the file "
                    "beside the study file, or name it (or its folder) with --allow")


def study_from_dict(raw: dict, name: str, base=None, quick=False, seed=None,
                    where="study", confine: bool = False, allow=()) -> Study:
    kind = raw.get("kind")
    if kind is None:
        raise UserError(f"{where}: no kind = \"...\" line; allowed kinds: {', '.join(KINDS)}")
    if kind not in KINDS:
        raise UserError(f"{where}: kind = {kind!r} is not known; allowed: {', '.join(KINDS)}")
    opts = dict(DEFAULTS[kind])
    opts.update(_check_table(where, raw, kind))
    q = raw.get("quick", {})
    if not isinstance(q, dict):
        raise UserError(f"{where}: quick must be a table of overrides, got {q!r}")
    if quick:
        opts.update(_check_table(f"{where} [quick]", q, kind))
    else:
        _check_table(f"{where} [quick]", q, kind)
    if seed is not None:
        opts["seed"] = _int(0, 2 ** 63 - 1)("seed", seed)
    opts.setdefault("seed", 1)
    game = KINDS[kind] or opts["game"]
    if game not in GAME_NAMES:
        raise UserError(f"{where}: game = {game!r} is not known; allowed: {', '.join(GAME_NAMES)}")
    from policies import check_player
    opts["policy"] = opts.get("policy") or [DEFAULT_POLICY[game]]
    for p in opts["policy"]:
        check_player(p, game, f"{where}: policy", GAME_NAMES[game])
    if "skill_policy" in opts:
        from policies import canonical_policy
        opts["skill_policy"] = canonical_policy(opts["skill_policy"], game)
        check_player(opts["skill_policy"], game, f"{where}: skill_policy", GAME_NAMES[game])
        if opts["skill_policy"] == opts["policy"][0]:
            raise UserError(f"{where}: skill_policy = {opts['skill_policy']!r} is the study's own player; "
                            "name a stronger one (default: the game's best player, policies.BEST_PLAYER)")
    base = Path(base) if base is not None else Path(".")
    st = Study(kind, game, name, opts.get("title") or _default_title(kind, game), opts,
               path=None)
    if "rules" in opts:
        st.files.append(study_path(base, opts["rules"], "rules", where, confine, allow))
        st.rules = _load_rules(game, st.files[-1])
    if kind == "variants":
        if "variants" not in opts:
            raise UserError(f"{where}: a variants study needs variants = [\"rules.toml\", ...]")
        for v in opts["variants"]:
            st.files.append(study_path(base, v, "variants", where, confine, allow))
            st.variants.append((Path(v).stem, _load_rules(game, st.files[-1])))
    if kind in ("seats", "variants") and game == "benevolent":
        for pl in opts["players"]:
            for spec in opts["leaves"]:
                leaves_for(spec, pl)
    if kind == "variants" and game == "benevolent" and "spies" in raw:
        raise UserError(f"{where}: key 'spies' is for Bethel Woods; a Benevolent variants study "
                        "takes players and leaves")
    if kind == "sensitivity":
        if len(opts["policy"]) != 1:
            raise UserError(f"{where}: policy = {opts['policy']!r}: a sensitivity study plays one "
                            "policy; name exactly one")
        if "only" in opts:
            from .sensitivity import variants as sens_variants
            known = [v[0] for v in sens_variants(game)]
            for v in opts["only"]:
                if v not in known:
                    raise UserError(f"{where}: only: variant {v!r} is not known for "
                                    f"{GAME_NAMES[game]}; allowed: {', '.join(known)}")
        return st
    if "characters" in opts:
        from simcore.bethel_woods.face import canonical_characters
        opts["characters"] = canonical_characters(opts["characters"])  # 'nova' is Nova (one cell key)
    if "characters" in opts and len(opts["players"]) != 1:
        raise UserError(f"{where}: characters = {opts['characters']!r} needs exactly one player "
                        f"count in players, got {opts['players']}")
    # every cell checked before anything is played or written
    for cell in _cells_to_check(st):
        check_cell(cell)
    return st


def _load_rules(game, path):
    if game == "bethel_woods":
        from simcore.bethel_woods.rules import load_rules
    else:
        from simcore.benevolent.rules import load_rules
    if Path(path).is_dir():
        raise UserError(f"rules file {str(path)!r} is a folder; give a .toml file")
    if not Path(path).exists():
        raise UserError(f"rules file {str(path)!r} does not exist")
    return load_rules(path)


def _default_title(kind, game):
    return {"difficulty": "Bethel Woods: win rate by difficulty",
            "characters": "Bethel Woods: characters and character sets",
            "seats": "Benevolent: seat order",
            "handicap": "Benevolent: the fairest starting-leaves handicap",
            "variants": f"{GAME_NAMES[game]}: rule variants against the defaults",
            "sensitivity": f"{GAME_NAMES[game]}: which readings and assumed data move the answers"}[kind]


def leaves_for(spec, players) -> tuple:
    """'printed' -> the rulebook's 1,3,4,5 cut to the players; 'equal' -> every seat the printed
    mean rounded (2 players 2,2; 3 players 3,3,3; 4 players 3,3,3,3); a list -> itself."""
    from simcore.benevolent.rules import DEFAULT_LEAVES, parse_leaves
    if spec == "printed":
        return tuple(DEFAULT_LEAVES[:players])
    if spec == "equal":
        m = int(round(sum(DEFAULT_LEAVES[:players]) / players))
        return (m,) * players
    if len(spec) != players:
        raise UserError(f"leaves {spec!r} has {len(spec)} seats; a {players}-player entry needs "
                        f"{players}")
    return tuple(parse_leaves(list(spec), players))


def _leaves_name(spec, leaves) -> str:
    return spec if isinstance(spec, str) else ",".join(map(str, leaves))


def _cells_to_check(st: Study):
    o = st.opts
    for pol in o["policy"]:
        for pl in o["players"]:
            if st.game == "bethel_woods":
                yield Cell("bethel_woods", pl, spies=o.get("spies", [0])[0], policies=(pol,),
                           characters=_chars(st), rules=st.rules, seed=o["seed"])
            else:
                specs = o.get("leaves", ["printed"])
                ok = [s for s in specs if not isinstance(s, list) or len(s) == pl]
                for spec in ok[:1]:
                    yield Cell("benevolent", pl, leaves=leaves_for(spec, pl), policies=(pol,),
                               rules=st.rules, seed=o["seed"])


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


def _games(st: Study) -> int:
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


def _seq_columns(df, plan, looks, wins_col="wins", games_col="games"):
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


def _skill_plan(st: Study):
    """(study player, stronger player, games per headline cell) of a study's skill check, or None
    when its file asks for none (skill_games = 0 or absent). The stronger player is the study
    file's skill_policy, else the game's best honest player (policies.BEST_PLAYER)."""
    n = int(st.opts.get("skill_games") or 0)
    if n <= 0:
        return None
    from policies import BEST_PLAYER
    return st.opts["policy"][0], st.opts.get("skill_policy") or BEST_PLAYER[st.game], n


def _bw_frame(cells, totals, extra=None) -> pd.DataFrame:
    """One row per Bethel Woods cell: its settings and every scalar count."""
    rows = []
    for i, (c, t) in enumerate(zip(cells, totals)):
        d = as_dict("bethel_woods", t)
        row = {"players": c.players, "spies": c.spies, "difficulty": DIFFICULTY[c.spies],
               "policy": c.seat_policies()[0],
               "characters": ",".join(c.characters) if c.characters else "random",
               "seed": c.seed}
        if extra is not None:
            row.update(extra[i])
        row.update({k: d.get(k, 0) for k in FIELDS["bethel_woods"][:14]})
        rows.append(row)
    df = pd.DataFrame(rows)
    return df.rename(columns={"loss_bag_empty": "bag_empty", "loss_four_critical": "four_critical",
                              "loss_six_spies": "six_spies"})


def _bw_lengths(cells, totals, extra=None) -> pd.DataFrame:
    """One row per cell and game length in turns that occurred: games, and (when the counts carry
    the won games' histogram, LengthsCell) won and lost games of that length."""
    n0 = 14
    nf = len(FIELDS["bethel_woods"])
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


def _chars(st):
    c = st.opts.get("characters")
    return tuple(c) if c else None


# report-table cells and skill checks shared by the studies -----------------------------------------

def _rate_cell(k, n, lo=None, hi=None) -> str:
    """A rate in a report table: the rate, its 95% interval (Wilson unless lo/hi are given) and
    the counts: "49% (45–53)" over "294 of 600"."""
    if not n:
        return "no games"
    if lo is None:
        lo, hi = wilson(int(k), int(n))
    return f"{plain_pct(k / n)} ({range_text(lo, hi)})\n{int(k):,} of {int(n):,}"


def _diff_cell(d, lo, hi) -> str:
    """A difference of rates in a report table: "+6 pp" over "(+3 to +9)"."""
    if not np.isfinite(lo):
        return plain_pp(d)
    return f"{plain_pp(d)}\n({pp_range(lo, hi)})"


def _pivot(df: pd.DataFrame, rows: list, col: str, value, header) -> pd.DataFrame:
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


def _level_header(sp) -> str:
    return f"{spies_label(sp)}: {DIFFICULTY[int(sp)]}"


def _csv(st: Study, table: str) -> str:
    """The path of a study table's CSV inside the report folder (report.md and report.html link it)."""
    return f"tables/{st.name}_{table}.csv"


def _run_checks(st: Study, checks: list, n: int, threads, progress, backend) -> list[np.ndarray]:
    """Play n seeds of every skill check (a list of (info, JointCell)) in one batch."""
    from .skill import play
    return play([jc for _, jc in checks], n, threads=threads, progress=progress, backend=backend)


def _skill_row(info: dict, jc, counts, plan, question: str, stat: dict) -> dict:
    """One row of a study's skill table: the check's setting, both players, the games per arm, each
    arm's description, the statistic (values, paired difference, interval, p) and the word."""
    from .skill import describe_arms, robustness
    row = {**info, "question": question, "study_policy": plan[0], "best_policy": plan[1],
           "games": int(counts[0]), **describe_arms(jc), **stat}
    row["robust"] = robustness(row["diff_low"], row["diff_high"])
    return row


def _pair_stat(counts) -> dict:
    """The two-arm binary check (stronger player, study player) as a skill row's statistic."""
    from .skill import pair_rates
    r = pair_rates(counts)
    n = int(counts[0])
    b = wilson(r["best_wins"], n)
    a = wilson(r["study_wins"], n)
    return {"study_wins": r["study_wins"], "best_wins": r["best_wins"],
            "study_value": r["study_wins"] / n, "study_low": a[0], "study_high": a[1],
            "best_value": r["best_wins"] / n, "best_low": b[0], "best_high": b[1],
            "diff": r["diff"], "diff_low": r["diff_low"], "diff_high": r["diff_high"],
            "p_value": r["p_value"]}


def _skill_tables(rows: list[dict], counts: list, checks: list) -> dict:
    """The skill check's tables for save_tables: one row per check, and its outcome patterns."""
    from .skill import patterns_frame
    if not rows:
        return {}
    return {"skill": pd.DataFrame(rows), "skill_patterns": patterns_frame(rows, counts, [jc for _, jc in checks])}


def _skill_show(rows: pd.DataFrame, keys: list, diff: bool = False) -> pd.DataFrame:
    """A skill table as the report prints it: the setting, each player's value on the same seeds
    (a rate, or with diff=True a difference in points), the paired difference and the word."""
    show = rows[keys].copy()
    show["games"] = rows["games"]
    show["study player"] = [f"{p}: {_value_text(v, lo, hi, diff)}" for p, v, lo, hi in
                            zip(rows["study_policy"], rows["study_value"], rows["study_low"], rows["study_high"])]
    show["stronger player"] = [f"{p}: {_value_text(v, lo, hi, diff)}" for p, v, lo, hi in
                               zip(rows["best_policy"], rows["best_value"], rows["best_low"], rows["best_high"])]
    show["difference"] = [_diff_cell(d, lo, hi) for d, lo, hi in zip(rows["diff"], rows["diff_low"], rows["diff_high"])]
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


# difficulty ------------------------------------------------------------------------------------

PIECES = 6   # the Daydreamer: six Orphanage sections, at most one filled a turn (docs/bethel_woods.md)


def run_difficulty(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    o = st.opts
    base = [Cell("bethel_woods", pl, spies=sp, policies=(pol,), characters=_chars(st),
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
    df = _bw_frame(base, totals)
    if seq:
        df = _seq_columns(df, plan, looks)
    lengths = _bw_lengths(base, totals)
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

    skill_rows, checks, counts = [], [], []
    splan = _skill_plan(st)
    if splan is not None:
        pol0, best, n = splan
        for pl in o["players"]:
            for sp in o["spies"]:
                c = Cell("bethel_woods", pl, spies=sp, characters=_chars(st), rules=st.rules, seed=o["seed"])
                checks.append(({"players": pl, "spies": sp}, JointCell((replace(c, policies=(best,)),
                                                                        replace(c, policies=(pol0,))), 2)))
        counts = _run_checks(st, checks, n, threads, progress, backend)
        for (info, jc), c in zip(checks, counts):
            skill_rows.append(_skill_row({**info, "difficulty": _level_header(info["spies"])}, jc, c, splan,
                                         f"win rate, {info['players']} players, {spies_label(info['spies'])}",
                                         _pair_stat(c)))
        for pl in o["players"]:   # every level of the player count together: the row's answer
            pooled = sum(c for (info, _), c in zip(checks, counts) if info["players"] == pl)
            jc = next(jc for info, jc in checks if info["players"] == pl)
            skill_rows.append(_skill_row({"players": pl, "spies": -1, "difficulty": "every level"}, jc, pooled,
                                         splan, f"win rate, {pl} players, every level", _pair_stat(pooled)))
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
    rates = _pivot(df, ["policy", "players"], "spies", lambda r: _rate_cell(r.wins, r.games, *ci(r)),
                   _level_header)
    close = _pivot(df, ["policy", "players"], "spies",
                   lambda r: (f"{r.built_per_lost_game:.1f} ({r.built_low:.1f}–{r.built_high:.1f})\n"
                              f"{int(r.lost):,} lost" if r.lost else "no lost game"), _level_header)
    tables = [(("Win rate by difficulty: each cell the win rate, its "
                + ("sequential 95% interval (valid under the looks)" if seq else "95% Wilson interval")
                + ", and wins of games"), rates, _csv(st, "cells")),
              (f"How close the lost games came: Daydreamer pieces built per lost game, of {PIECES} (a lost "
               f"game with k pieces was at least {PIECES} − k turns from a win; a conservative 95% interval), "
               "and the lost games", close, _csv(st, "cells"))]
    if len(skill_df):
        per = skill_df[skill_df["spies"] >= 0]
        tables.append((f"With stronger play: the {splan[0]} and the {splan[1]} player on the same "
                       f"{splan[2]:,} seeds per cell (win rates; the difference stronger minus study player, "
                       "paired 95% interval)", _skill_show(per, ["players", "difficulty"]), _csv(st, "skill")))
    text = (difficulty_summary(df, seq) + "\n\n" + difficulty_findings(df, seq)
            + first_turn_findings(lengths) + close_findings(df))
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    answers = difficulty_answers(st, df, seq, skill_df)
    return Result(st, {"cells": df, "lengths": lengths, **_skill_tables(skill_rows, counts, checks)},
                  section, answers=answers)


def _length_means(lengths: pd.DataFrame, df: pd.DataFrame):
    """Per cell of df: (mean, low, high) of the won games' and of the lost games' length in turns
    (t intervals from the length histogram: exact sums and sums of squares)."""
    won, lostm = [], []
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
    """"Normal 49%, Hard 38/32%, Insane 25/13%, Impossible 0.3%": the rates of one player count by
    difficulty level, the spies of a level in order."""
    by = {}
    for r in g.sort_values("spies").itertuples():
        by.setdefault(DIFFICULTY[int(r.spies)], []).append(plain_pct(r.win_rate).rstrip("%"))
    return ", ".join(f"{lvl} {'/'.join(v)}%" for lvl, v in by.items())


def close_findings(df: pd.DataFrame) -> str:
    """How close the lost games came, per policy: the range of pieces built per lost game."""
    parts = []
    for pol, g in df[df["lost"] > 0].groupby("policy", sort=True):
        a, b = g.loc[g["built_per_lost_game"].idxmin()], g.loc[g["built_per_lost_game"].idxmax()]
        parts.append(f"With the {pol} policy a lost game had built {a.built_per_lost_game:.1f} of the "
                     f"{PIECES} Daydreamer pieces on average at {a.players} players, {spies_label(a.spies)} "
                     f"(at least {PIECES - a.built_per_lost_game:.1f} turns from a win) to "
                     f"{b.built_per_lost_game:.1f} at {b.players} players, {spies_label(b.spies)}.")
    return (" " + " ".join(parts)) if parts else ""


def difficulty_answers(st: Study, df: pd.DataFrame, seq, skill_df: pd.DataFrame) -> list:
    """The front page's win-rate lines: one per player count, the study player's rates by level."""
    from .answers import Answer, skill_text, verdict_level
    pol = st.policies[0]
    lo_col, hi_col = ("seq_ci_low", "seq_ci_high") if seq else ("ci_low", "ci_high")
    out = []
    for pl, g in df[df["policy"] == pol].groupby("players", sort=True):
        hw = float(((g[hi_col] - g[lo_col]) / 2).max())
        sk = None
        if len(skill_df):
            m = skill_df[(skill_df["players"] == pl) & (skill_df["spies"] == -1)]
            sk = m.iloc[0] if len(m) else None
        out.append(Answer("bethel_woods", f"Win rate, {pl} players",
                          f"{_levels_text(g)} (±{plain_pp(hw, sign=False)})",
                          verdict_level(hw), st.name, skill=skill_text(sk)))
    return out


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
        parts.append(f"With the {pol} policy, games lost on the first turn: "
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
            parts.append(f"With {pl} players the {pol} policy won no game at any difficulty "
                         f"(at most {pct(g[hi_col].max())} per level, the upper end of its {ci_name}).")
            continue
        drop, dlo, dhi = independent_difference(first.wins, first.games, last.wins, last.games)
        word = "a drop" if drop >= 0 else "a rise"
        if drop < 0:   # said as a rise: the estimate and its interval turned round
            drop, dlo, dhi = -drop, -dhi, -dlo
        num = signed if dlo < 0 else (lambda x: f"{x:.2f}")   # signs only when the interval crosses 0
        parts.append(
            f"With {pl} players and the {pol} policy the win rate goes from {pct(first.win_rate)} "
            f"({spies_label(first.spies)}, {first.difficulty}; {ci_name} {pct(first[lo_col])} to "
            f"{pct(first[hi_col])}) to {pct(last.win_rate)} ({spies_label(last.spies)}, "
            f"{last.difficulty}; {pct(last[lo_col])} to {pct(last[hi_col])}), {word} of "
            f"{100 * drop:.2f} pp (95% CI {num(100 * dlo)} to {num(100 * dhi)}); "
            + ("the difference is significant" if p < 0.05 else "the difference is NOT significant")
            + f" (chi-square {p_is(p)})"
            + ("" if p < 0.05 else _could_find(detectable_difference(
                last.games, first.win_rate, first.games, direction=-1), "a drop"))
            + ("" if mono else "; the curve is not monotone at this sample size") + ".")
    parts += loss_findings(df)
    parts.append(f"The table rests on {int(df['games'].sum()):,} games.")
    return " ".join(parts)


def _could_find(effect: float, what: str = "an effect") -> str:
    """"; the sample had an 80% chance to find a drop of 9 pp or more" (a not-significant finding
    says what its sample could detect; stats.detectable_difference / detectable_from_interval)."""
    if not np.isfinite(effect):
        return "; the sample is too small to find any such difference with an 80% chance"
    return f"; the sample had an 80% chance to find {what} of {plain_pp(effect, sign=False)} or more"


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
        return (f"{LOSS_PHRASES[r.idxmax()]} ({pct(r.max() / lost)} of {lost:,} lost games, 95% CI "
                f"{pct(lo)} to {pct(hi)})")

    out = []
    for pol, g in df.groupby("policy", sort=True):
        overall = top(g)
        if overall is None:
            continue
        ends = [(sp, top(g[g["spies"] == sp])) for sp in (g["spies"].min(), g["spies"].max())]
        ends = [f"at {spies_label(sp)} {t}" for sp, t in dict(ends).items() if t is not None]
        out.append(f"With the {pol} policy the most common end of a lost game is {overall}"
                   + (f"; {', '.join(ends)}" if len(ends) > 1 else "") + ".")
    return out


def _effects_fit(sets: pd.DataFrame):
    """The logistic regression of ``character_effects``: (fit, character names in the fit, the
    has-character matrix, the frame)."""
    import statsmodels.api as sm

    from simcore.bethel_woods.rules import CHARACTERS
    d = sets.reset_index(drop=True)
    names = [c for c in CHARACTERS if d["characters"].str.split(",").apply(lambda cs: c in cs).any()]
    has = np.array([[c in s.split(",") for c in names] for s in d["characters"]], dtype=float)
    # effect coding: column c is x_c - x_last, so that sum_c b_c x_c with b_last = -sum b_c
    z = has[:, :-1] - has[:, -1:]
    X = pd.DataFrame(z, columns=names[:-1])
    for col, vals in (("players", d["players"]), ("spies", d["spies"])):
        levels = sorted(vals.unique())
        for lv in levels[1:]:
            X[f"{col}={lv}"] = (vals == lv).astype(float).to_numpy()
    X = sm.add_constant(X, has_constant="add")
    y = np.column_stack([d["wins"], d["games"] - d["wins"]])
    fit = sm.GLM(y, X, family=sm.families.Binomial()).fit()
    return fit, names, has, d


def _effect_vector(fit, names, c) -> np.ndarray:
    """The contrast vector of character c's effect (the last one: minus the sum of the others)."""
    L = np.zeros(len(fit.params))
    cols = list(fit.params.index)
    for k in ([c] if c != names[-1] else names[:-1]):
        L[cols.index(k)] = 1.0 if c != names[-1] else -1.0
    return L


def _wald(fit, L):
    """statsmodels' Wald test of the contrast L: (estimate, low, high, p)."""
    t = fit.t_test(L)
    b, se = float(np.squeeze(t.effect)), float(np.squeeze(t.sd))
    lo, hi = (float(v) for v in np.squeeze(t.conf_int(alpha=0.05)))
    return b, lo, hi, (float(np.squeeze(t.pvalue)) if se > 0 else 1.0)


def character_effects(sets: pd.DataFrame) -> pd.DataFrame:
    """Logistic regression of win on characters (sum-to-zero coding), spies and players
    (statsmodels GLM, Binomial, one row per set with wins and games). A character's effect is
    the log odds of winning with it in the team relative to an average character; the 8 effects
    add up to 0 (the last one and its interval come from the fit's covariance). The study fits it
    per player count (a character's effect differs between them), where players is constant."""
    fit, names, has, d = _effects_fit(sets)
    rows = []
    for c in names:
        # the effect as a contrast of the fit's parameters; statsmodels' Wald test of it (normal, as
        # the GLM's own intervals) gives its interval and p
        b, lo, hi, p = _wald(fit, _effect_vector(fit, names, c))
        rows.append({"term": c, "coef": b, "ci_low": lo, "ci_high": hi, "p_value": p})
    e = pd.DataFrame(rows)
    e["p_holm"] = adjust_pvalues(e["p_value"].to_numpy())
    e["odds_ratio"], e["or_low"], e["or_high"] = np.exp(e["coef"]), np.exp(e["ci_low"]), np.exp(e["ci_high"])
    # each character's own record: the games and wins of the sets it is in (the fit uses them all)
    e["games"] = (has.T @ d["games"].to_numpy()).astype(int)
    e["wins"] = (has.T @ d["wins"].to_numpy()).astype(int)
    return e


def effect_contrast(sets: pd.DataFrame, a: str, b: str):
    """Character a's effect minus character b's in the same fit (log odds; the Wald test of the
    contrast): (odds ratio a over b, low, high, p). Used to say whether the strongest character is
    clearly ahead of the runner-up."""
    fit, names, _, _ = _effects_fit(sets)
    d, lo, hi, p = _wald(fit, _effect_vector(fit, names, a) - _effect_vector(fit, names, b))
    return float(np.exp(d)), float(np.exp(lo)), float(np.exp(hi)), p


def flag_sets(sets: pd.DataFrame) -> pd.DataFrame:
    """Each set against the other sets of its (players, spies): Fisher's exact test of the 2x2
    table (stats.against_rest; a set plays few games, so expected counts fall below the
    chi-square's 5), Holm-adjusted within the (players, spies) block (see docs/studies.md for
    why Holm)."""
    out = []
    for _, g in sets.groupby(["policy", "players", "spies"], sort=False):
        g = g.copy()
        tg, tw = g["games"].sum(), g["wins"].sum()
        ps = []
        for w, n in zip(g["wins"], g["games"]):
            ps.append(against_rest(int(w), int(n), int(tw - w), int(tg - n)))
        g["p_value"] = ps
        g["p_holm"] = adjust_pvalues(np.array(ps))
        g["significant"] = g["p_holm"] < 0.05
        g["vs_rest"] = np.where(~g["significant"], "", np.where(
            g["wins"] / g["games"] > (tw - g["wins"]) / (tg - g["games"]), "better", "worse"))
        out.append(g)
    return pd.concat(out, ignore_index=True)


def pick_sets(sets: pd.DataFrame) -> pd.DataFrame:
    """The weakest and the strongest set of each policy, player count and difficulty: the lowest
    and the highest win rate, a tie going to the set listed first (the sets' order in the table,
    the rulebook's order of characters); `ties` counts the sets at that rate. The report and the
    notebook both call this, so they name the same sets."""
    rows = []
    for (pol, pl, sp), g in sets.groupby(["policy", "players", "spies"], sort=True):
        g = g.reset_index(drop=True)
        for which, idx in (("weakest", int(g["win_rate"].idxmin())), ("strongest", int(g["win_rate"].idxmax()))):
            r = g.iloc[idx]   # idxmin / idxmax: the first row at the extreme
            rows.append({"policy": pol, "players": pl, "spies": sp, "which": which,
                         "characters": r.characters, "games": int(r.games), "wins": int(r.wins),
                         "ties": int((g["win_rate"] == r.win_rate).sum()), "p_holm": float(r.p_holm),
                         "significant": bool(r.significant), "family": len(g),
                         "rest_games": int(g["games"].sum() - r.games), "rest_wins": int(g["wins"].sum() - r.wins)})
    return pd.DataFrame(rows)


def fit_effects(sets: pd.DataFrame) -> pd.DataFrame:
    """Character effects per policy and player count (a character's effect differs between player
    counts: its odds ratio is not one number), Holm-adjusted within each fit; a policy and player
    count whose sets won no game, or every game, has none."""
    fitted = [character_effects(g).assign(policy=pol, players=pl)
              for (pol, pl), g in sets.groupby(["policy", "players"], sort=True)
              if 0 < g["wins"].sum() < g["games"].sum()]
    return (pd.concat(fitted, ignore_index=True) if fitted else
            pd.DataFrame(columns=["policy", "players", "term", "coef", "ci_low", "ci_high", "games", "wins",
                                  "odds_ratio", "or_low", "or_high", "p_value", "p_holm"]))


def run_characters(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from simcore.bethel_woods.rules import CHARACTERS
    o = st.opts
    n = _games(st)
    cells = [Cell("bethel_woods", pl, spies=sp, characters=tuple(cs), policies=(pol,),
                  rules=st.rules, seed=o["seed"])
             for pol in o["policy"] for pl in o["players"] for sp in o["spies"]
             for cs in itertools.combinations(CHARACTERS, pl)]
    totals = execute([(c, n) for c in cells], threads=threads, progress=progress,
                     **(backend or {}))
    sets = _bw_frame(cells, totals)
    sets["win_rate"] = sets["wins"] / sets["games"]
    sets = flag_sets(sets)
    effects = fit_effects(sets)
    top = _top_characters(sets, effects)
    picks = pick_sets(sets)

    # skill check: per player count, teams with the strongest and with the weakest character (the
    # same partners), played by both players on the same seeds
    skill_rows, checks, counts = [], [], []
    splan = _skill_plan(st)
    pol0 = st.policies[0]
    if splan is not None and len(top):
        from .skill import contrast_change
        _, best, n_skill = splan
        sp0 = o["spies"][0]
        groups = []
        for r in top[top["policy"] == pol0].itertuples():
            others = [c for c in CHARACTERS if c not in (r.strongest, r.weakest)]
            partners = list(itertools.combinations(others, r.players - 1))
            base = Cell("bethel_woods", r.players, spies=sp0, rules=st.rules, seed=o["seed"])
            mine = []
            for ps in partners:
                s_team = tuple(c for c in CHARACTERS if c in (r.strongest, *ps))
                w_team = tuple(c for c in CHARACTERS if c in (r.weakest, *ps))
                arms = tuple(replace(base, characters=t, policies=(p,))
                             for p in (best, pol0) for t in (s_team, w_team))
                mine.append(len(checks))
                checks.append(({"players": r.players, "spies": sp0}, JointCell(arms, 2)))
            groups.append((r, mine))
        counts = [None] * len(checks)
        for r, mine in groups:   # about n_skill seeds per arm and player count, spread over its partner sets
            per = max(1, -(-n_skill // len(mine)))
            for i, c in zip(mine, _run_checks(st, [checks[i] for i in mine], per, threads, progress, backend)):
                counts[i] = c
        pooled_counts, pooled_checks = [], []   # per player count: every partner set's games together
        for r, mine in groups:
            pooled = sum(counts[i] for i in mine)
            stat = contrast_change(pooled)
            row = _skill_row(
                {"players": r.players, "spies": sp0, "strongest": r.strongest, "weakest": r.weakest,
                 "partner_sets": len(mine)}, checks[mine[0]][1], pooled, splan,
                f"{r.strongest}'s teams against {r.weakest}'s, {r.players} players", stat)
            for k, (pol, ch) in enumerate((p, ch) for p in (best, pol0) for ch in (r.strongest, r.weakest)):
                row[f"arm{k}"] = (f"{pol}: {r.players} players, {spies_label(sp0)}, {ch} with each of the "
                                  f"{len(mine)} partner sets")
            skill_rows.append(row)
            pooled_counts.append(pooled)
            pooled_checks.append(checks[mine[0]])
        checks, counts = pooled_checks, pooled_counts   # the patterns table: the pooled histograms
    skill_df = pd.DataFrame(skill_rows)

    figs = []
    if chart_dir is not None:
        for pol, g in sets.groupby("policy", sort=False):
            figs.append((f"Win rate by pair of characters ({pol}): lower triangle; each cell the rate and its "
                         "95% interval",
                         charts.character_heatmap(g, chart_dir / f"character_heatmap_{pol}")[0]))
            e = effects[effects["policy"] == pol]
            if e.empty:
                continue
            figs.append((f"Character effects per player count ({pol}): odds of winning with the character "
                         "against an average character; filled: Holm-adjusted p < 0.05",
                         forest_chart(e, g, chart_dir / f"character_forest_{pol}")[0]))
    tables = []
    if len(effects):
        eff = _pivot(effects, ["policy", "term"], "players",
                     lambda r: (f"×{r.odds_ratio:.2f} ({r.or_low:.2f}–{r.or_high:.2f})"
                                + (" *" if r.p_holm < 0.05 else "") + f"\n{int(r.wins):,} of {int(r.games):,}"),
                     lambda pl: f"{pl} players")
        order = effects.groupby(["policy", "term"])["coef"].mean()
        eff["_o"] = [-order[(a, b)] for a, b in zip(eff["policy"], eff["term"])]
        eff = eff.sort_values(["policy", "_o"]).drop(columns="_o").rename(columns={"term": "character"})
        tables.append(("Character effects: odds of winning with the character against an average character "
                       "(95% interval; * Holm-adjusted p < 0.05), and the wins of the games its sets played",
                       eff, _csv(st, "effects")))
    pk = picks.copy()
    pk["difficulty"] = [DIFFICULTY[int(x)] for x in pk["spies"]]
    pk["set"] = [c.replace(",", ", ") + (f" (one of {t} tied)" if t > 1 else "") for c, t in zip(pk["characters"], pk["ties"])]
    pk["win rate (95% CI)"] = [_rate_cell(w, g) for w, g in zip(pk["wins"], pk["games"])]
    pk["against the rest"] = [_set_vs_rest(r) for r in picks.itertuples()]
    tables.append(("Weakest and strongest set per player count and difficulty (against the other sets of "
                   "its player count and difficulty: Fisher's exact test, Holm-adjusted)",
                   pk[["policy", "players", "difficulty", "which", "set", "win rate (95% CI)", "against the rest"]],
                   _csv(st, "sets")))
    flagged = sets[sets["significant"]]
    if len(flagged):
        fl = flagged.head(FLAGGED_SHOWN)
        tables.append((f"Sets that differ from the rest after Holm's correction ({len(flagged)}"
                       + (f"; the first {FLAGGED_SHOWN} shown" if len(flagged) > FLAGGED_SHOWN else "") + ")",
                       pd.DataFrame({"policy": fl["policy"], "players": fl["players"],
                                     "difficulty": [DIFFICULTY[int(x)] for x in fl["spies"]],
                                     "set": fl["characters"].str.replace(",", ", "),
                                     "win rate (95% CI)": [_rate_cell(w, g) for w, g in zip(fl["wins"], fl["games"])],
                                     "than the rest": fl["vs_rest"], "p (Holm)": fl["p_holm"]}),
                       _csv(st, "sets")))
    if len(skill_df):
        tables.append((f"With stronger play: teams with the strongest character against the same teams with the "
                       f"weakest, {splan[0]} and {splan[1]} on the same seeds ({spies_label(o['spies'][0])}; "
                       "differences of win rates, paired 95% intervals)",
                       _skill_show(skill_df, ["players", "strongest", "weakest"], diff=True), _csv(st, "skill")))
    text = characters_summary(top) + "\n\n" + characters_findings(sets, effects, picks)
    section = Section(st.title, text, tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"sets": sets, "effects": effects, **_skill_tables(skill_rows, counts, checks)}, section,
                  answers=characters_answers(st, top, skill_df))


FLAGGED_SHOWN = 12   # rows of the flagged sets the report shows; every set is in the CSV


def forest_chart(effects: pd.DataFrame, sets: pd.DataFrame, out):
    """The character forest of one policy as the report draws it (the notebook calls this too):
    filled markers where Holm's adjusted p is below 0.05, the games of that policy's sets."""
    pol = str(effects["policy"].iloc[0])
    return charts.character_forest(effects.assign(p_value=effects["p_holm"]), out, policy=pol,
                                   games=int(sets[sets["policy"] == pol]["games"].sum()), p_name="Holm-adjusted p")


def _set_vs_rest(r) -> str:
    """A picked set against the rest: Holm's p and, when not significant, the smallest difference
    the sample had an 80% chance to find at Holm's first level (0.05 / the sets in the family)."""
    rest = r.rest_wins / r.rest_games if r.rest_games else np.nan
    if r.significant:
        return f"{'below' if r.wins / r.games < rest else 'above'} (Holm p = {r.p_holm:.2g})"
    d = detectable_difference(r.games, rest, r.rest_games, alpha=0.05 / r.family,
                              direction=-1 if r.which == "weakest" else 1)
    return (f"not different (Holm p = {r.p_holm:.2g}); could find "
            + (f"{plain_pp(d, sign=False)} or more" if np.isfinite(d) else "no difference") + " with 80% chance")


def _top_characters(sets, effects) -> pd.DataFrame:
    """Per policy and player count: the strongest and the weakest character (largest and smallest
    effect), each against its runner-up (the Wald test of the difference of their effects in the
    same fit) and against an average character (Holm-adjusted)."""
    rows = []
    for (pol, pl), e in effects.groupby(["policy", "players"], sort=True):
        e = e.sort_values("coef").reset_index(drop=True)
        g = sets[(sets["policy"] == pol) & (sets["players"] == pl)]
        hi, hi2, lo, lo2 = e.iloc[-1], e.iloc[-2], e.iloc[0], e.iloc[1]
        s_or, s_lo, s_hi, s_p = effect_contrast(g, hi.term, hi2.term)
        w_or, w_lo, w_hi, w_p = effect_contrast(g, lo2.term, lo.term)
        rows.append({"policy": pol, "players": pl, "strongest": hi.term, "s_or": hi.odds_ratio, "s_low": hi.or_low,
                     "s_high": hi.or_high, "s_holm": hi.p_holm, "runner_up": hi2.term, "s_vs_next": s_or,
                     "s_vs_next_low": s_lo, "s_vs_next_high": s_hi, "s_vs_next_p": s_p,
                     "weakest": lo.term, "w_or": lo.odds_ratio, "w_low": lo.or_low, "w_high": lo.or_high,
                     "w_holm": lo.p_holm, "next_weakest": lo2.term, "w_vs_next": w_or, "w_vs_next_low": w_lo,
                     "w_vs_next_high": w_hi, "w_vs_next_p": w_p})
    return pd.DataFrame(rows, columns=["policy", "players", "strongest", "s_or", "s_low", "s_high", "s_holm",
                                       "runner_up", "s_vs_next", "s_vs_next_low", "s_vs_next_high", "s_vs_next_p",
                                       "weakest", "w_or", "w_low", "w_high", "w_holm", "next_weakest", "w_vs_next",
                                       "w_vs_next_low", "w_vs_next_high", "w_vs_next_p"])


def _order_verdict(holm: float, vs_next_p: float, lo: float, hi: float) -> tuple[str, str]:
    """(verdict, what the sample could find) for "the strongest / weakest character": established
    when its effect differs from an average character's after Holm's correction and from the
    runner-up's (the Wald test of the two effects, p < 0.05); suggested when one of them holds or
    the runner-up test leans (p < 0.2); else too noisy to say, with the odds ratio between the two
    that the sample had an 80% chance to find."""
    from .answers import ESTABLISHED, NOISY, SUGGESTED, SUGGEST_P
    if holm < 0.05 and vs_next_p < 0.05:
        return ESTABLISHED, ""
    if holm < 0.05 or vs_next_p < SUGGEST_P:
        return SUGGESTED, ""
    d = detectable_from_interval(np.log(lo), np.log(hi))
    return NOISY, f"could find odds ×{np.exp(d):.2f} between it and the runner-up"


def characters_summary(top: pd.DataFrame) -> str:
    if not len(top):
        return "In short: no character effect could be estimated (no policy both won and lost games)."
    parts = []
    for r in top.itertuples():
        parts.append(f"{r.players} players ({r.policy}): {r.strongest} helps most (odds ×{r.s_or:.2f} against an "
                     f"average character), {r.weakest} least (×{r.w_or:.2f}).")
    return "In short: " + " ".join(parts)


def characters_answers(st: Study, top: pd.DataFrame, skill_df: pd.DataFrame) -> list:
    """The front page's character line: per player count, the strongest and the weakest character
    with their odds ratios against an average character (one row for every player count)."""
    from .answers import Answer, ESTABLISHED, grouped, skills_text
    parts, verdicts, detect, skills = [], {}, [], []
    for r in top[top["policy"] == st.policies[0]].itertuples():
        vs, ds = _order_verdict(r.s_holm, r.s_vs_next_p, r.s_vs_next_low, r.s_vs_next_high)
        vw, dw = _order_verdict(r.w_holm, r.w_vs_next_p, r.w_vs_next_low, r.w_vs_next_high)
        verdicts[r.players] = vs if vs == vw else ("suggested" if ESTABLISHED in (vs, vw) else vs)
        parts.append(f"{r.players} pl {r.strongest} ×{r.s_or:.2f} ({r.s_low:.2f}–{r.s_high:.2f}), "
                     f"{r.weakest} ×{r.w_or:.2f} ({r.w_low:.2f}–{r.w_high:.2f})")
        if ds or dw:
            detect.append(f"{r.players} pl: " + " and ".join(x for x in (ds and "strongest " + ds.split(" between")[0],
                                                                           dw and "weakest " + dw.split(" between")[0]) if x)
                          + " against the runner-up")
        if len(skill_df):
            m = skill_df[skill_df["players"] == r.players]
            if len(m):
                skills.append((f"{r.players} pl", m.iloc[0]))
    if not parts:
        return []
    return [Answer("bethel_woods", "Strongest, weakest character (odds)",
                   "; ".join(parts), grouped(verdicts), st.name, skill=skills_text(skills),
                   detect="; ".join(detect))]


def _could_find_odds(e: pd.DataFrame) -> str:
    """"; the fit had an 80% chance to find an odds ratio of 1.25 (or 0.80) or more": for a set of
    character effects none of which is significant, at Holm's first level (0.05 / the effects),
    from the median width of their intervals (log odds; stats.detectable_from_interval)."""
    if "ci_low" not in e or not len(e):
        return ""
    d = float(np.median([detectable_from_interval(a, b, alpha=0.05 / len(e)) for a, b in zip(e["ci_low"], e["ci_high"])]))
    return (f" (at Holm's first level the fit had an 80% chance to find an odds ratio of {np.exp(d):.2f}, or "
            f"{np.exp(-d):.2f}, against an average character)")


def characters_findings(sets, effects, picks=None) -> str:
    parts = []
    for pol, g in sets.groupby("policy", sort=False):
        if pol not in set(effects["policy"]):
            parts.append(f"With the {pol} policy the sets won {int(g['wins'].sum()):,} of "
                         f"{int(g['games'].sum()):,} games: no character effect can be estimated.")
    keys = ["policy", "players"] if "players" in effects.columns else ["policy"]
    for key, e in effects.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        pol = key[0]
        where = f"With the {pol} policy" + (f" at {key[1]} players" if len(key) > 1 else "")
        e = e.sort_values("odds_ratio")
        hi, lo = e.iloc[-1], e.iloc[0]
        sig = e[e["p_holm"] < 0.05]

        def close(r, others):   # the runners-up whose estimate lies inside r's interval: no clear order
            near = [f"{o.term} {o.odds_ratio:.2f}" for o in others.itertuples()
                    if r.or_low <= o.odds_ratio <= r.or_high]
            return f"; {', '.join(near)} within its interval" if near else ""
        parts.append(
            f"{where}, {hi.term} helps most (odds ratio {hi.odds_ratio:.2f} against "
            f"an average character, 95% CI {hi.or_low:.2f} to {hi.or_high:.2f}{close(hi, e.iloc[-2:-1])}) "
            f"and {lo.term} least ({lo.odds_ratio:.2f}, {lo.or_low:.2f} to {lo.or_high:.2f}"
            f"{close(lo, e.iloc[1:2])}); "
            + (f"{len(sig)} of {len(e)} character effects differ from the average after Holm's "
               f"correction ({', '.join(sig['term'])})." if len(sig) else
               "no character's effect differs from the average after Holm's correction"
               + _could_find_odds(e) + "."))
    if picks is None:
        picks = pick_sets(sets)
    for w in (picks[picks["which"] == "weakest"] if len(picks) else picks).itertuples():
        parts.append(f"{w.players} players, {spies_label(w.spies)}: weakest set {w.characters} "
                     + (f"(one of {w.ties} sets at " if w.ties > 1 else "(")
                     + f"{rate_text(w.wins, w.games)} of {int(w.games):,} games, "
                     + ("significantly below the rest" if w.significant else
                        "not significantly different from the rest"
                        + _could_find(detectable_difference(w.games, w.rest_wins / w.rest_games, w.rest_games,
                                                            alpha=0.05 / w.family, direction=-1),
                                      "a weakness")
                        + f" at Holm's first level, 0.05/{w.family}") + ").")
    n_sig = int(sets["significant"].sum())
    parts.append(f"{n_sig} of {len(sets)} sets differ from the rest of their player count and "
                 f"difficulty after Holm's correction; {int(sets['games'].sum()):,} games, every "
                 "set on the same deals.")
    return " ".join(parts)


def _seat_counts(t, players):
    d = as_dict("benevolent", t)
    return [d.get(f"seat{q}_wins", 0) for q in range(players)], d.get("timeouts", 0)


def _gap(counts):
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
                out.append((_leaves_name(spec, lv), Cell("benevolent", pl, leaves=lv,
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
        d = as_dict("benevolent", t)
        g = int(t[0])
        decided = g - to
        fair = seat_fairness(wins)
        ci, chi, rates = fair.ci, fair.chi2, fair.shares
        gap, glo, ghi = _gap(wins)
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


def _config_table(cdf: pd.DataFrame) -> pd.DataFrame:
    """The per-configuration outcome table: seat 1's edge, the gap, Balance, completion, duration,
    the chi-square: key columns first, counts inside the cells."""
    return pd.DataFrame({
        "players": cdf["players"],
        "leaves": [_leaves_text(n, b) for n, b in zip(cdf["leaves"], cdf["leaves_by_seat"])],
        "seat 1's edge (95% CI)": [_diff_cell(e, lo, hi) if d else "no decided game" for e, lo, hi, d in
                                   zip(cdf["first_seat_edge"], cdf["first_seat_edge_low"],
                                       cdf["first_seat_edge_high"], cdf["decided"])],
        "largest seat gap (95% CI)": [f"{plain_pp(g, sign=False)}\n({pp_range(lo, hi).replace('+', '')})"
                                      if np.isfinite(g) else "n/a"
                                      for g, lo, hi in zip(cdf["max_gap"], cdf["gap_low"], cdf["gap_high"])],
        "Balance (95% CI)": [f"{b:.2f}\n({lo:.2f}–{hi:.2f})" if np.isfinite(b) else "n/a"
                             for b, lo, hi in zip(cdf["balance"], cdf["balance_low"], cdf["balance_high"])],
        "completion (95% CI)": [_rate_cell(d, g, lo, hi) for d, g, lo, hi in
                                zip(cdf["decided"], cdf["games"], cdf["completion_low"], cdf["completion_high"])],
        "duration, turns (95% CI)": [f"{m:.1f}\n({lo:.1f}–{hi:.1f})" if np.isfinite(lo) else f"{m:.1f}"
                                     for m, lo, hi in zip(cdf["mean_turns"], cdf["mean_turns_low"], cdf["mean_turns_high"])],
        "equal seats? chi-square p": [p_is(p).replace("p = ", "").replace("p ", "") if np.isfinite(p) else "n/a"
                                      for p in cdf["chi2_p"]]})


def _shares_table(sdf: pd.DataFrame, cdf: pd.DataFrame, seq: bool = False) -> pd.DataFrame:
    """The seats' shares of the decided games, one row per configuration, one column per seat:
    the share, its interval (simultaneous Goodman, or the sequential one) and the wins."""
    lo_col, hi_col = ("seq_ci_low", "seq_ci_high") if seq else ("ci_low", "ci_high")
    by = {(r.players, str(r.leaves)): _leaves_text(r.leaves, r.leaves_by_seat) for r in cdf.itertuples()}
    d = sdf.assign(config=[by[(p, str(lv))] for p, lv in zip(sdf["players"], sdf["leaves"])])
    return _pivot(d, ["players", "config"], "seat",
                  lambda r: _rate_cell(r.wins, r.decided, r[lo_col], r[hi_col]) if r.decided else "n/a",
                  lambda q: f"seat {q}").rename(columns={"config": "leaves"})


def _seat_skill(st: Study, named, threads, progress, backend, fresh_seed=None) -> tuple[list, list, list]:
    """The seats study's check: each configuration's seat 1 edge, played by both players on the
    same seeds (5-level outcomes: the winner's seat), its change by the paired bootstrap."""
    from .skill import bootstrap_change, edge_of
    splan = _skill_plan(st)
    if splan is None:
        return [], [], []
    pol0, best, n = splan
    checks = []
    for name, c in named:
        if c.seat_policies()[0] != pol0:
            continue
        checks.append(({"players": c.players, "leaves": name, "leaves_by_seat": ",".join(map(str, c.leaves))},
                       JointCell((replace(c, policies=(best,)), replace(c, policies=(pol0,))), 5)))
    counts = _run_checks(st, checks, n, threads, progress, backend)
    rows = []
    for (info, jc), cnt in zip(checks, counts):
        pl = info["players"]
        stat = bootstrap_change(cnt, 2, lambda b, s, axis=-1: edge_of(b, pl, axis) - edge_of(s, pl, axis),
                                st.opts["seed"])
        from .skill import per_game
        g = per_game(cnt, 5, 2) - 1
        for arm, key in ((0, "best"), (1, "study")):
            dec = int((g[arm] >= 0).sum())
            w1 = int((g[arm] == 0).sum())
            lo, hi = wilson(w1, dec) if dec else (np.nan, np.nan)
            stat.update({f"{key}_value": (w1 / dec if dec else np.nan) - 1 / pl,
                         f"{key}_low": lo - 1 / pl, f"{key}_high": hi - 1 / pl,
                         f"{key}_seat1_wins": w1, f"{key}_decided": dec})
        rows.append(_skill_row(info, jc, cnt, splan, f"seat 1's edge, {pl} players, {info['leaves']} leaves", stat))
    return rows, counts, checks


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
        sdf = _seq_columns(sdf, plan, np.repeat(np.asarray(looks), [c.players for c in cells]),
                           games_col="decided")
    skill_rows, counts, checks = _seat_skill(st, named, threads, progress, backend)
    skill_df = pd.DataFrame(skill_rows)
    figs = []
    if chart_dir is not None:
        figs = [("Each seat's share of the decided games, with simultaneous 95% (Goodman) intervals; "
                 "dashed: the fair share",
                 charts.seat_bars(sdf, chart_dir / "seat_bars")[0])]
    tables = [("Per configuration: seat 1's edge over the fair share, the largest seat gap and Balance (all "
               "of the decided games), completion (games some seat won, of all games), duration (turns of all "
               "players, all games) and the chi-square test of equal seats", _config_table(cdf), _csv(st, "cells")),
              ("Each seat's share of the decided games ("
               + ("sequential 95% interval per seat, valid under the looks" if seq else
                  "simultaneous 95% Goodman intervals") + "; wins of decided games)",
               _shares_table(sdf, cdf, bool(seq)), _csv(st, "seats"))]
    if len(skill_df):
        tables.append((f"With stronger play: seat 1's edge with the {skill_df['study_policy'].iloc[0]} and the "
                       f"{skill_df['best_policy'].iloc[0]} player on the same seeds (the difference: paired "
                       "bootstrap 95% interval)", _skill_show(skill_df, ["players", "leaves"], diff=True), _csv(st, "skill")))
    section = Section(st.title, seats_summary(cdf) + "\n\n" + seats_findings(cdf, sdf) + assumed_components_note(st.rules),
                      tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"cells": cdf, "seats": sdf, **_skill_tables(skill_rows, counts, checks)}, section,
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
    """(answer, verdict, detect) of seat 1's edge at every player count of one leaves setting."""
    from .answers import grouped, pp_ci, verdict_effect
    parts, verdicts, detect = [], {}, []
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
        if v != "established":
            d = detectable_difference(r.decided, 1 / r.players, None, direction=1)
            detect.append(f"{r.players} pl: could find {plain_pp(d, sign=False)}")
    return "; ".join(parts) + " pp", grouped(verdicts), "; ".join(detect)


def _skill_per_players(skill_df, mask) -> str:
    """The stronger-play cell of a row that covers several player counts."""
    from .answers import skills_text
    if not len(skill_df):
        return ""
    rows = skill_df[mask]
    return skills_text([(f"{r['players']} pl", r) for _, r in rows.sort_values("players").iterrows()])


def seats_answers(st: Study, cdf: pd.DataFrame, skill_df: pd.DataFrame) -> list:
    from .answers import Answer
    out = []
    c = cdf[cdf["policy"] == st.policies[0]]
    for name, g in c.groupby("leaves", sort=False):
        ans, verdict, detect = _edge_answer(g)
        mask = (skill_df["leaves"].astype(str) == str(name)) if len(skill_df) else None
        out.append(Answer("benevolent", f"Seat 1's edge, {name} leaves",
                          ans, verdict, st.name, skill=_skill_per_players(skill_df, mask), detect=detect))
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
            return f"{pct(s.rate)}, {pct(s[lo_col])} to {pct(s[hi_col])}"
        equal = seats_verdict(r.chi2_p)
        if equal == SEATS_ALIKE:
            equal += _could_find(detectable_difference(r.decided, 1 / r.players, None, direction=1),
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
    return " ".join(parts)


def _leaves_tuple(s) -> tuple:
    """A leaves name as the tables hold it ("1,3,4,5") as the vector (1, 3, 4, 5)."""
    return tuple(map(int, str(s).split(",")))


def _printed(frame: pd.DataFrame) -> list[bool]:
    """For each row of a candidates frame: are its leaves the printed handicap of its player count?"""
    from simcore.benevolent.rules import DEFAULT_LEAVES
    return [_leaves_tuple(s) == DEFAULT_LEAVES[:p] for s, p in zip(frame["leaves"], frame["players"])]


def leaves_order(col: pd.Series) -> pd.Series:
    """A sort key for DataFrame.sort_values: a "leaves" column ("0,9", "0,10") sorts by its
    numbers, not as text; any other column as it is."""
    return col.map(_leaves_tuple) if col.name == "leaves" else col


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
            search.append(Cell("benevolent", pl, leaves=lv, policies=(pol,), rules=st.rules,
                               seed=o["seed"]))
        printed = DEFAULT_LEAVES[:pl]
        if printed not in candidates(pl, o["max_leaves"]):
            search.append(Cell("benevolent", pl, leaves=printed, policies=(pol,),
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
            confirm.append(Cell("benevolent", pl, leaves=_leaves_tuple(s),
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
    from .skill import bootstrap_change, gap_of
    splan = _skill_plan(st)
    if splan is None:
        return [], [], []
    pol0, best, n = splan
    checks = []
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
        base = Cell("benevolent", pl, rules=st.rules, seed=fresh)
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
            from .skill import per_game
            g = per_game(cnt, 5, 4) - 1
            for key, (i, j) in (("best", (0, 1)), ("study", (2, 3))):
                one = _two_arm_bootstrap(g[i], g[j], lambda f, p, axis=-1: gap_of(f, pl, axis) - gap_of(p, pl, axis), seed)
                stat.update({f"{key}_value": one["diff"], f"{key}_low": one["diff_low"], f"{key}_high": one["diff_high"]})
            q = f"fairest {info['fairest']} against printed {info['printed']}: gap difference, {pl} players"
        else:
            stat = bootstrap_change(cnt, 2, lambda b, s, axis=-1: gap_of(b, pl, axis) - gap_of(s, pl, axis), seed)
            from .skill import per_game
            g = per_game(cnt, 5, 2) - 1
            for key, i in (("best", 0), ("study", 1)):
                wins = [int((g[i] == s).sum()) for s in range(pl)]
                gap, lo, hi = _gap(wins)
                stat.update({f"{key}_value": gap, f"{key}_low": lo, f"{key}_high": hi})
            q = f"printed {info['fairest']} (the fairest found): its gap, {pl} players"
        rows.append(_skill_row(info, jc, cnt, splan, q, stat))
    return rows, counts, checks


def _two_arm_bootstrap(a, b, stat, seed) -> dict:
    """One player's contrast of two Benevolent arms (winners, -1 a timeout) on the same seeds, with
    the paired bootstrap interval (skill.bootstrap_change on the two arms' joint counts)."""
    from .skill import bootstrap_change
    counts = np.zeros(1 + 25, dtype=np.int64)
    counts[0] = len(a)
    np.add.at(counts, 1 + (np.asarray(a) + 1) + 5 * (np.asarray(b) + 1), 1)
    return bootstrap_change(counts, 2, stat, seed)


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
    from .answers import ESTABLISHED, NOISY, SUGGESTED
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
    from .answers import Answer, ESTABLISHED, SUGGESTED, grouped
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
    return [Answer("benevolent", "Fairest starting leaves (seat gap)",
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


def run_variants(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from .glossary import rules_file_title
    o = st.opts
    n = _games(st)
    titles = {Path(f).stem: rules_file_title(f) for f in st.files}
    pairs = []
    for name, rules in st.variants:
        for pol in o["policy"]:
            for pl in o["players"]:
                if st.game == "bethel_woods":
                    for sp in o["spies"]:
                        base = Cell("bethel_woods", pl, spies=sp, policies=(pol,), seed=o["seed"],
                                    rules=st.rules)
                        pairs.append(({"variant": name, "policy": pol, "players": pl, "spies": sp},
                                      PairedCell(replace(base, rules=rules), base)))
                else:
                    for spec in o["leaves"]:
                        lv = leaves_for(spec, pl)
                        base = Cell("benevolent", pl, leaves=lv, policies=(pol,), seed=o["seed"],
                                    rules=st.rules)
                        pairs.append(({"variant": name, "policy": pol, "players": pl,
                                       "leaves": _leaves_name(spec, lv)},
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
    outcome = "win rate" if st.game == "bethel_woods" else "seat 1's win rate"
    df["title"] = [titles.get(v, v) for v in df["variant"]]
    df["label"] = [f"{r.players} players, " + (spies_label(r.spies) if st.game == "bethel_woods"
                   else f"leaves {r.leaves}") + (f", {r.policy}" if len(o["policy"]) > 1 else "")
                   for r in df.itertuples()]
    df["significant"] = df["p_holm"] < 0.05
    # what each comparison could detect at Holm's first level (0.05 / the comparisons)
    df["detectable"] = [detectable_from_interval(lo, hi, alpha=0.05 / len(df))
                        for lo, hi in zip(df["diff_low"], df["diff_high"])]

    # skill check: each variant against the defaults, played by both players on the same seeds
    skill_rows, checks, counts = [], [], []
    splan = _skill_plan(st)
    if splan is not None:
        from .skill import contrast_change
        pol0, best, n_skill = splan
        for (info, pc) in pairs:
            if info["policy"] != pol0:
                continue
            arms = tuple(replace(c, policies=(p,)) for p in (best, pol0) for c in (pc.a, pc.b))
            checks.append(({k: v for k, v in info.items() if k != "policy"}, JointCell(arms, 2)))
        counts = _run_checks(st, checks, n_skill, threads, progress, backend)
        for (info, jc), c in zip(checks, counts):
            setting = spies_label(info["spies"]) if "spies" in info else f"leaves {info['leaves']}"
            skill_rows.append(_skill_row({**info, "setting": f"{info['players']} players, {setting}",
                                          "title": titles.get(info["variant"], info["variant"])}, jc, c, splan,
                                         f"{titles.get(info['variant'], info['variant'])}: change of the {outcome}, "
                                         f"{info['players']} players, {setting}", contrast_change(c)))
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
        f"defaults: {outcome} (95% CI)": [_rate_cell(w, g) for w, g in zip(df["wins_default"], df["games"])],
        f"with the variant (95% CI)": [_rate_cell(w, g) for w, g in zip(df["wins_variant"], df["games"])],
        "difference (95% CI)": [_diff_cell(d, lo, hi) for d, lo, hi in zip(df["diff"], df["diff_low"], df["diff_high"])],
        "significant? (Holm)": [("yes" if s_ else "no") + f", p = {p:.2g}"
                                + ("" if s_ else f"; could find {plain_pp(m, sign=False)}")
                                for s_, p, m in zip(df["significant"], df["p_holm"], df["detectable"])]})
    tables = [(f"Rule variants against the defaults on the same {n:,} seeds ({outcome}; the difference "
               "variant minus defaults, paired; 'could find': the smallest difference the sample had an 80% "
               "chance to find after Holm's correction)", show, _csv(st, "pairs"))]
    if len(skill_df):
        tables.append((f"With stronger play: each variant's effect with {splan[0]} and {splan[1]} on the same "
                       f"{splan[2]:,} seeds (the change of the effect: t interval over the seeds)",
                       _skill_show(skill_df, ["title", "setting"], diff=True).rename(columns={"title": "variant"}),
                       _csv(st, "skill")))
    parts = []
    for _, r in df.iterrows():
        where = (f"{r.players} players, {spies_label(r.spies)}" if st.game == "bethel_woods"
                 else f"{r.players} players, leaves {r.leaves}")
        parts.append(f"{r.title} ({where}, {r.policy}): {outcome} {rate_text(r.wins_variant, r.games)} "
                     f"against {rate_text(r.wins_default, r.games)} with the defaults, a difference of "
                     f"{signed(100 * r['diff'])} pp (95% CI {signed(100 * r.diff_low)} to "
                     f"{signed(100 * r.diff_high)}); "
                     + ("significant" if r.p_holm < 0.05 else "not significant")
                     + f" after Holm's correction over the {len(df)} comparisons (McNemar, "
                     f"adjusted {p_is(r.p_holm)})"
                     + ("" if r.p_holm < 0.05 else _could_find(r.detectable, "a difference")) + ".")
    parts.append(f"Each variant played the same {n:,} seeds as the defaults (paired); the "
                 "intervals are per comparison, the significance calls are Holm-adjusted.")
    summary = "In short: " + " ".join(
        f"{t}: {', '.join(plain_pp(d) + ' at ' + lab for d, lab in zip(g['diff'], g['label']))}."
        for t, g in df.groupby("title", sort=False))
    section = Section(st.title, summary + "\n\n" + " ".join(parts), tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"pairs": df, **_skill_tables(skill_rows, counts, checks)}, section,
                  answers=variants_answers(st, df, skill_df, outcome))


def variants_answers(st, df, skill_df, outcome) -> list:
    """One front-page line per variant: its effect at every setting, Holm-corrected verdicts."""
    from .answers import Answer, grouped, pp_ci, skills_text, verdict_effect
    out = []
    d0 = df[df["policy"] == st.policies[0]]
    one_count = d0["players"].nunique() == 1
    for name, g in d0.groupby("variant", sort=False):
        verdicts, parts, detect, skills = {}, [], [], []
        for r in g.itertuples():
            v, null = verdict_effect(r.diff_low, r.diff_high, r.mcnemar_p, significant=r.significant)
            lab = spies_label(r.spies) if st.game == "bethel_woods" else f"leaves {r.leaves}"
            key = lab if one_count else f"{r.players} pl, {lab}"
            verdicts[key] = v
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
                          grouped(verdicts, unit=""), st.name, skill=skills_text(skills), detect="; ".join(detect)))
    return out


# sensitivity: experiments/sensitivity.py as a study --------------------------------------------

def run_sensitivity(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from .glossary import plain
    from .sensitivity import sensitivity
    o = st.opts
    only = o.get("only")
    df = sensitivity(st.game, o["games"], o["seed"], o["policy"][0], threads, progress=progress,
                     only=only)
    bw = st.game == "bethel_woods"
    skill_rows, counts, checks = _sensitivity_skill(st, df, threads, progress, backend)
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
        row = {"reading": plain(v), "kind": "rule reading" if r.kind == "switch" else "assumed table",
               "largest effect at": setup(r)}
        if bw:
            row["win rate: defaults, with it"] = (f"{plain_pct(r.default)}, {int(r.default_wins):,} of {int(r.games):,}\n"
                                                  f"{plain_pct(r.value)}, {int(r.variant_wins):,} of {int(r.games):,}")
        else:
            row["largest seat gap: defaults, with it"] = f"{plain_pp(r.default, sign=False)}, {plain_pp(r.value, sign=False)}"
            row["games"] = int(r.games)
            row["timeouts (defaults, with it)"] = f"{int(r.default_timeouts):,}, {int(r.variant_timeouts):,}"
        row["difference (95% CI)"] = _diff_cell(r["diff"], r.ci_low, r.ci_high)
        row["p (Holm)"] = f"{r.p_holm:.2g}"
        row["setups whose interval excludes 0"] = f"{int(g['excl'].sum())} of {len(g)}"
        rows.append(row)
    show = pd.DataFrame(rows)
    metric = "win rate, 3 players" if bw else "largest seat gap, printed leaves"
    tables = [(f"Every reading against the defaults ({metric}): one row per reading, its largest effect "
               "(a Holm-significant setup's when it has one); every setup in the CSV", show, _csv(st, "rows"))]
    if len(skill_df):
        tables.append((f"With stronger play: the headline reading's effect with {skill_df['study_policy'].iloc[0]} "
                       f"and {skill_df['best_policy'].iloc[0]} on the same seeds",
                       _skill_show(skill_df, ["reading", "setup"], diff=True), _csv(st, "skill")))
    section = Section(st.title, sensitivity_summary(df) + "\n\n" + sensitivity_findings(df),
                      tables=tables, charts=figs, anchor=st.name)
    return Result(st, {"rows": df, **_skill_tables(skill_rows, counts, checks)}, section,
                  answers=sensitivity_answers(st, df, skill_df))


def _headline_reading(df: pd.DataFrame):
    """The row a sensitivity study's answer rests on: the largest significant effect after Holm's
    correction, else the largest effect."""
    sig = df[df["p_holm"] < 0.05]
    d = sig if len(sig) else df
    return d.loc[d["diff"].abs().idxmax()]


def _sensitivity_skill(st: Study, df: pd.DataFrame, threads, progress, backend):
    from .sensitivity import seat_gap, variants
    from .skill import bootstrap_change, contrast_change
    splan = _skill_plan(st)
    if splan is None or not len(df):
        return [], [], []
    pol0, best, n = splan
    r = _headline_reading(df)
    rules = dict((name, ru) for name, _, ru in variants(st.game))[r.variant]
    bw = st.game == "bethel_woods"
    base = (Cell("bethel_woods", int(r.players), spies=int(r.spies), seed=st.opts["seed"]) if bw else
            Cell("benevolent", int(r.players), seed=st.opts["seed"]))
    arms = tuple(replace(base, policies=(p,), rules=ru) for p in (best, pol0) for ru in (rules, None))
    from .glossary import plain
    info = {"variant": r.variant, "reading": plain(r.variant), "players": int(r.players),
            "setup": spies_label(r.spies) if bw else f"{int(r.players)} players"}
    if not bw:
        info["spies"] = -1
    checks = [(info, JointCell(arms, 2 if bw else 5))]
    counts = _run_checks(st, checks, n, threads, progress, backend)
    c = counts[0]
    if bw:
        stat = contrast_change(c)
    else:
        pl = int(r.players)
        stat = bootstrap_change(c, 4, lambda bv, bd, sv, sd, axis=-1: (seat_gap(bv, pl, axis) - seat_gap(bd, pl, axis))
                                - (seat_gap(sv, pl, axis) - seat_gap(sd, pl, axis)), st.opts["seed"])
        from .skill import per_game
        g = per_game(c, 5, 4) - 1
        for key, (i, j) in (("best", (0, 1)), ("study", (2, 3))):
            one = _two_arm_bootstrap(g[i], g[j], lambda v, d, axis=-1: seat_gap(v, pl, axis) - seat_gap(d, pl, axis),
                                     st.opts["seed"])
            stat.update({f"{key}_value": one["diff"], f"{key}_low": one["diff_low"], f"{key}_high": one["diff_high"]})
    q = f"{info['reading']}: its effect at {info['setup']}"
    return [_skill_row(info, checks[0][1], c, splan, q, stat)], counts, checks


def sensitivity_summary(df: pd.DataFrame) -> str:
    from .glossary import plain
    bw = df["game"].iloc[0] == "bethel_woods"
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
    from .answers import Answer, ESTABLISHED, NOISY, SUGGESTED, pp_ci, skill_text
    from .glossary import plain
    from .skill import MARGIN
    bw = st.game == "bethel_woods"
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
        sk = f"{s0['setup']}: " + skill_text(s0)
    q = ("Readings that move the win rate" if bw else "Readings that move the seat gap")
    return [Answer(st.game, q, ans, verdict, st.name, skill=sk, detect=detect)]


def sensitivity_findings(df: pd.DataFrame) -> str:
    """Which readings matter and which do not, largest effect first. Every row has a p-value
    (Bethel Woods: McNemar's; Benevolent: the paired bootstrap's), Holm-adjusted over the table:
    a reading moves the answer when some row of it is significant after the adjustment; one whose
    per-comparison interval excludes 0 without that is listed apart (among many comparisons some
    intervals exclude 0 by chance)."""
    from .glossary import plain
    bw = df["game"].iloc[0] == "bethel_woods"
    metric = "the win rate (3 players)" if bw else "the largest seat gap (printed leaves)"
    test = "McNemar's p" if bw else "the paired bootstrap's p"
    d = df.assign(excl=(df["ci_low"] > 0) | (df["ci_high"] < 0), a=df["diff"].abs(),
                  sig=df["p_holm"] < 0.05)
    where = (lambda r: spies_label(r.spies)) if bw else (lambda r: f"{int(r.players)} players")
    moves, chance, dont = [], [], []
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
    return " ".join(parts)


RUNNERS = {"difficulty": run_difficulty, "characters": run_characters, "seats": run_seats,
           "handicap": run_handicap, "variants": run_variants, "sensitivity": run_sensitivity}


def run_study(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    """Play a study. backend: execute's store=/client=/workers=/scheduler= keywords, passed
    to every execute call of the study (a results store; a Dask client opened once)."""
    res = RUNNERS[st.kind](st, threads=threads, progress=progress,
                           chart_dir=Path(chart_dir) if chart_dir is not None else None,
                           backend=backend)
    res.meta = {"study": st.name, "kind": st.kind, "policy": ",".join(st.policies),
                "seed": st.opts["seed"], "games per cell": _games(st)}
    return res


def save_tables(res: Result, out_dir) -> list[Path]:
    """Every table as CSV and Parquet: out_dir/<study>_<table>.csv/.parquet."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, df in res.tables.items():
        stem = out / f"{res.study.name}_{name}"
        df.to_csv(stem.with_suffix(".csv"), index=False)
        df.to_parquet(stem.with_suffix(".parquet"), index=False)
        paths += [stem.with_suffix(".csv"), stem.with_suffix(".parquet")]
    return paths
