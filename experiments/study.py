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
from .execute import execute
from policies import STUDY_PLAYER

from .render import Section, rate_table
from .stats import (Z95, adjust_pvalues, against_rest, balance, chi2_equal, independent_difference, paired_difference, p_is, pct, rate_text,
                    seat_intervals, sequential_plan, signed, spies_label, wilson)

# The policy a study plays when it names none: the game's study player (policies.STUDY_PLAYER).
DEFAULT_POLICY = dict(STUDY_PLAYER)

KINDS = {"difficulty": "bethel_woods", "characters": "bethel_woods", "seats": "benevolent",
         "handicap": "benevolent", "variants": None, "sensitivity": None}
GAME_NAMES = {"bethel_woods": "Bethel Woods", "benevolent": "Benevolent"}
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
                    "games": _int(2, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "only": _strs},
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


def run_sequential(cells, st: Study, rate_fn, threads, progress, backend=None):
    """Play each cell in looks of n0 * 2**k games (stats.SequentialPlan: Bonferroni alpha
    spending, valid under repeated looks) until every rate rate_fn(counts) names has a half-width
    <= the target at that look's level, or `games` (the cap) is reached. Returns (totals, looks)."""
    plan = sequential_plan(st.opts["target_halfwidth"], n0=st.opts.get("sequential_n0", 1000))
    cap = st.opts["games"]
    totals = [np.zeros(len(FIELDS[c.game]), dtype=np.int64) for c in cells]
    looks = [0] * len(cells)
    active = list(range(len(cells)))
    done = [0] * len(cells)
    k = 0
    while active:
        n_k = min(cap, plan.games_at(k))
        work = [(cells[i], n_k - done[i], done[i]) for i in active]
        res = execute(work, threads=threads, progress=progress, **(backend or {}))
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
    n0 = 14
    rows = []
    for i, (c, t) in enumerate(zip(cells, totals)):
        for b, g in enumerate(t[n0:]):
            if g:
                row = {"players": c.players, "spies": c.spies, "policy": c.seat_policies()[0]}
                if extra is not None:
                    row.update(extra[i])
                row.update({"turns": b + 1, "games": int(g)})
                rows.append(row)
    return pd.DataFrame(rows)


def _chars(st):
    c = st.opts.get("characters")
    return tuple(c) if c else None


def run_difficulty(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    o = st.opts
    cells = [Cell("bethel_woods", pl, spies=sp, policies=(pol,), characters=_chars(st),
                  rules=st.rules, seed=o["seed"])
             for pol in o["policy"] for pl in o["players"] for sp in o["spies"]]
    seq = o.get("target_halfwidth")
    if seq:
        totals, looks, plan = run_sequential(
            cells, st, lambda c, t: [(int(t[1]), int(t[0]))], threads, progress, backend)
    else:
        totals = execute([(c, o["games"]) for c in cells], threads=threads, progress=progress,
                     **(backend or {}))
    df = _bw_frame(cells, totals)
    if seq:
        df = _seq_columns(df, plan, looks)
    lengths = _bw_lengths(cells, totals)
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    df["win_rate"], df["ci_low"], df["ci_high"] = df["wins"] / df["games"], lo, hi
    lost = (df["games"] - df["wins"]).replace(0, np.nan)
    df["mean_turns"] = df["turns"] / df["games"]
    df["built_per_lost_game"] = df["built_in_losses"] / lost
    df["uncovered_per_lost_game"] = df["uncovered_in_losses"] / lost

    figs = []
    if chart_dir is not None:
        figs = [("Win rate by difficulty (95% Wilson bands)",
                 charts.difficulty_curve(df, chart_dir / "difficulty_curve")[0]),
                ("Why games are lost, by difficulty",
                 charts.loss_reasons(df, chart_dir / "loss_reasons")[0]),
                ("Game length by difficulty",
                 charts.game_length(lengths, chart_dir / "game_length")[0])]
    show = df[["policy", "players", "spies", "difficulty", "games", "wins"]].copy()
    show = rate_table(show)
    for r in ("bag_empty", "four_critical", "six_spies"):
        show[f"lost: {r}"] = df[r]
    show["mean turns"] = df["mean_turns"].round(1)
    show["pieces built per lost game"] = df["built_per_lost_game"].round(2)
    show["spies uncovered per lost game"] = df["uncovered_per_lost_game"].round(2)
    if seq:
        show["look"] = df["look"]
        show[f"sequential CI ({pct(1 - plan.alpha)} overall)"] = [
            f"{pct(a)} to {pct(b)}" for a, b in zip(df["seq_ci_low"], df["seq_ci_high"])]
    section = Section(st.title, difficulty_findings(df, seq) + first_turn_findings(lengths), tables=[
        ("Win rate by difficulty: one row per cell (policy x players x spies)", show)],
        charts=figs)
    return Result(st, {"cells": df, "lengths": lengths}, section)


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
            + ("" if mono else "; the curve is not monotone at this sample size") + ".")
    parts += loss_findings(df)
    parts.append(f"The table rests on {int(df['games'].sum()):,} games.")
    return " ".join(parts)


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


def character_effects(sets: pd.DataFrame) -> pd.DataFrame:
    """Logistic regression of win on characters (sum-to-zero coding), spies and players
    (statsmodels GLM, Binomial, one row per set with wins and games). A character's effect is
    the log odds of winning with it in the team relative to an average character; the 8 effects
    add up to 0 (the last one and its interval come from the fit's covariance)."""
    import statsmodels.api as sm

    from simcore.bethel_woods.rules import CHARACTERS
    d = sets.reset_index(drop=True)
    names = [c for c in CHARACTERS if d["characters"].str.contains(c).any()]
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
    rows = []
    for c in names:
        # the effect as a contrast of the fit's parameters (the last: minus the sum of the others);
        # statsmodels' Wald test of it (normal, as the GLM's own intervals) gives its interval and p
        L = np.zeros(len(fit.params))
        cols = list(fit.params.index)
        for k in ([c] if c != names[-1] else names[:-1]):
            L[cols.index(k)] = 1.0 if c != names[-1] else -1.0
        t = fit.t_test(L)
        b, se = float(np.squeeze(t.effect)), float(np.squeeze(t.sd))
        lo, hi = (float(v) for v in np.squeeze(t.conf_int(alpha=0.05)))
        p = float(np.squeeze(t.pvalue)) if se > 0 else 1.0
        rows.append({"term": c, "coef": b, "ci_low": lo, "ci_high": hi, "p_value": p})
    e = pd.DataFrame(rows)
    e["p_holm"] = adjust_pvalues(e["p_value"].to_numpy())
    e["odds_ratio"], e["or_low"], e["or_high"] = np.exp(e["coef"]), np.exp(e["ci_low"]), np.exp(e["ci_high"])
    # each character's own record: the games and wins of the sets it is in (the fit uses them all)
    e["games"] = (has.T @ d["games"].to_numpy()).astype(int)
    e["wins"] = (has.T @ d["wins"].to_numpy()).astype(int)
    return e


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
    # a policy that won no game (or every game) has no character effects to estimate
    fitted = [character_effects(g).assign(policy=pol) for pol, g in sets.groupby("policy", sort=False)
              if 0 < g["wins"].sum() < g["games"].sum()]
    effects = (pd.concat(fitted, ignore_index=True) if fitted else
               pd.DataFrame(columns=["policy", "term", "games", "wins", "odds_ratio", "or_low", "or_high",
                                     "p_value", "p_holm"]))
    figs = []
    if chart_dir is not None:
        for pol, g in sets.groupby("policy", sort=False):
            figs.append((f"Win rate by pair of characters ({pol})",
                         charts.character_heatmap(g, chart_dir / f"character_heatmap_{pol}")[0]))
            e = effects[effects["policy"] == pol]
            if e.empty:
                continue
            figs.append((f"Character effects, odds ratio vs an average character ({pol}); "
                         "filled dots: Holm-adjusted p < 0.05",
                         charts.character_forest(e.assign(p_value=e["p_holm"]),
                                                 chart_dir / f"character_forest_{pol}",
                                                 policy=pol, games=int(g["games"].sum()),
                                                 p_name="Holm-adjusted p")[0]))
    eff_show = effects[["policy", "term", "games", "wins", "odds_ratio", "or_low", "or_high",
                        "p_value", "p_holm"]].rename(columns={"term": "character"})
    best_worst = []
    for (pol, pl, sp), g in sets.groupby(["policy", "players", "spies"], sort=True):
        g = g.sort_values("win_rate")
        for which, r in (("weakest", g.iloc[0]), ("strongest", g.iloc[-1])):
            best_worst.append({"policy": pol, "players": pl, "spies": sp, "which": which,
                               "characters": r.characters, "games": r.games, "wins": r.wins,
                               "p_holm": r.p_holm, "significant": bool(r.significant)})
    bw = rate_table(pd.DataFrame(best_worst))
    flagged = rate_table(sets[sets["significant"]][["policy", "players", "spies", "characters",
                                                    "games", "wins", "vs_rest", "p_holm"]])
    section = Section(st.title, characters_findings(sets, effects), tables=[
        ("Character effects (logistic regression over every set; odds ratio against an average "
         "character; games and wins: the sets with that character)", eff_show),
        ("Weakest and strongest set per player count and difficulty", bw),
        ("Sets that differ from the rest after Holm's correction", flagged)], charts=figs)
    return Result(st, {"sets": sets, "effects": effects}, section)


def characters_findings(sets, effects) -> str:
    parts = []
    for pol, g in sets.groupby("policy", sort=False):
        if pol not in set(effects["policy"]):
            parts.append(f"With the {pol} policy the sets won {int(g['wins'].sum()):,} of "
                         f"{int(g['games'].sum()):,} games: no character effect can be estimated.")
    for pol, e in effects.groupby("policy", sort=False):
        e = e.sort_values("odds_ratio")
        hi, lo = e.iloc[-1], e.iloc[0]
        sig = e[e["p_holm"] < 0.05]

        def close(r, others):   # the runners-up whose estimate lies inside r's interval: no clear order
            near = [f"{o.term} {o.odds_ratio:.2f}" for o in others.itertuples()
                    if r.or_low <= o.odds_ratio <= r.or_high]
            return f"; {', '.join(near)} within its interval" if near else ""
        parts.append(
            f"With the {pol} policy, {hi.term} helps most (odds ratio {hi.odds_ratio:.2f} against "
            f"an average character, 95% CI {hi.or_low:.2f} to {hi.or_high:.2f}{close(hi, e.iloc[-2:-1])}) "
            f"and {lo.term} least ({lo.odds_ratio:.2f}, {lo.or_low:.2f} to {lo.or_high:.2f}"
            f"{close(lo, e.iloc[1:2])}); "
            + (f"{len(sig)} of {len(e)} character effects differ from the average after Holm's "
               f"correction ({', '.join(sig['term'])})." if len(sig) else
               "no character's effect differs from the average after Holm's correction."))
    for (pol, pl), g in sets.groupby(["policy", "players"], sort=True):
        for sp, gs in g.groupby("spies"):
            w = gs.sort_values("win_rate").iloc[0]
            ties = int((gs["win_rate"] == w.win_rate).sum())
            parts.append(f"{pl} players, {spies_label(sp)}: weakest set {w.characters} "
                         + (f"(one of {ties} sets at " if ties > 1 else "(")
                         + f"{rate_text(w.wins, w.games)} of {int(w.games):,} games, "
                         + ("significantly below the rest" if w.significant else
                            "not significantly different from the rest") + ").")
    n_sig = int(sets["significant"].sum())
    parts.append(f"{n_sig} of {len(sets)} sets differ from the rest of their player count and "
                 f"difficulty after Holm's correction; {int(sets['games'].sum()):,} games, every "
                 "set on the same deals.")
    return " ".join(parts)


def _seat_counts(t, players):
    d = as_dict("benevolent", t)
    return [d.get(f"seat{q}_wins", 0) for q in range(players)], d.get("timeouts", 0)


def _gap(counts, timeouts):
    """Largest seat gap and a 95% interval from the simultaneous (Goodman) seat intervals: the
    intervals hold together, so max_i hi_i - min_j lo_j bounds the gap from above and
    max(0, max_i lo_i - min_j hi_j) from below."""
    n = sum(counts) + timeouts
    rates = np.array(counts) / n
    ci = seat_intervals(list(counts) + ([timeouts] if timeouts else []))[:len(counts)]
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
    cells_rows, seat_rows = [], []
    for (name, c), t in zip(named_cells, totals):
        wins, to = _seat_counts(t, c.players)
        d = as_dict("benevolent", t)
        g = int(t[0])
        ci = seat_intervals(list(wins) + ([to] if to else []))
        chi = chi2_equal(wins) if sum(wins) > 0 else None
        rates = np.array(wins) / g
        gap, glo, ghi = _gap(wins, to)
        decided = g - to
        # seat 1's share of the decided games and the winner's extra turn, with Wilson intervals
        e_lo, e_hi = wilson(wins[0], decided) if decided else (np.nan, np.nan)
        x_lo, x_hi = wilson(d.get("winner_had_extra_turn", 0), decided) if decided else (np.nan, np.nan)
        row = {"players": c.players, "leaves": name, "leaves_by_seat": ",".join(map(str, c.leaves)),
               "policy": c.seat_policies()[0], "seed": c.seed, "games": g,
               **{f"seat{q + 1}_wins": wins[q] for q in range(4) if q < c.players},
               "timeouts": to, "winner_had_extra_turn": d.get("winner_had_extra_turn", 0),
               "decided": decided, "turns": d.get("turns", 0),
               "chi2": chi.statistic if chi else np.nan, "chi2_p": chi.pvalue if chi else np.nan,
               "balance": balance(rates), "balance_low": 1 - ghi, "balance_high": 1 - glo,
               "first_seat_edge": (wins[0] / decided if decided else np.nan) - 1 / c.players,
               "first_seat_edge_low": e_lo - 1 / c.players, "first_seat_edge_high": e_hi - 1 / c.players,
               "extra_turn_low": x_lo, "extra_turn_high": x_hi,
               "max_gap": gap, "gap_low": glo, "gap_high": ghi}
        cells_rows.append(row)
        for q in range(c.players):
            seat_rows.append({"players": c.players, "leaves": name, "policy": row["policy"],
                              "games": g, "timeouts": to, "seat": q + 1, "wins": wins[q],
                              "rate": wins[q] / g,
                              "ci_low": ci[q, 0], "ci_high": ci[q, 1]})
    return pd.DataFrame(cells_rows), pd.DataFrame(seat_rows)


def run_seats(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    named = _bv_cells(st)
    cells = [c for _, c in named]
    seq = st.opts.get("target_halfwidth")
    if seq:
        totals, looks, plan = run_sequential(
            cells, st, lambda c, t: [(int(w), int(t[0])) for w in t[1:1 + c.players]], threads,
            progress, backend)
    else:
        totals = execute([(c, st.opts["games"]) for c in cells], threads=threads,
                         progress=progress, **(backend or {}))
    cdf, sdf = seat_frames(named, totals)
    if seq:
        cdf["look"] = looks
        # each seat's interval at its cell's stopping look (the level the stopping rule spent
        # there), valid however the stopping depended on the data; the Goodman columns are not
        sdf = _seq_columns(sdf, plan, np.repeat(np.asarray(looks), [c.players for c in cells]))
    figs = []
    if chart_dir is not None:
        figs = [("Win rate by seat with simultaneous 95% (Goodman) intervals",
                 charts.seat_bars(sdf, chart_dir / "seat_bars")[0])]
    show = _seat_table(sdf, ["policy", "players", "leaves"])
    summ = cdf[["policy", "players", "leaves", "leaves_by_seat", "games", "timeouts", "decided",
                "chi2", "chi2_p"]].copy()
    summ = summ.rename(columns={"decided": "wins"})   # decided games: wins of some seat
    summ["Balance (95% CI)"] = _balance_text(cdf)
    summ["first seat's edge, pp (95% CI)"] = [
        f"{signed(100 * e)} ({signed(100 * lo)} to {signed(100 * hi)})" if d else "n/a"
        for e, lo, hi, d in zip(cdf["first_seat_edge"], cdf["first_seat_edge_low"], cdf["first_seat_edge_high"],
                                cdf["decided"])]
    summ = pd.concat([summ, _gap_columns(cdf)], axis=1)
    summ["winner had an extra turn (95% CI)"] = [
        rate_text(w, d, "") if d else "n/a" for w, d in zip(cdf["winner_had_extra_turn"], cdf["decided"])]
    section = Section(st.title, seats_findings(cdf, sdf) + assumed_components_note(st.rules), tables=[
        ("Seat win rates (Goodman simultaneous 95% intervals)", show),
        ("Per configuration: chi-square against equal seats, Balance, first seat's edge over the "
         "fair share of the decided games, largest seat gap (95% interval), share of decided games the winner had an "
         "extra turn (wins = decided games)", summ)],
        charts=figs)
    return Result(st, {"cells": cdf, "seats": sdf}, section)


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


def _seat_table(sdf, keys) -> pd.DataFrame:
    """The seat rows as the report prints them (seats numbered from 1, as in the tables): the
    rate and its simultaneous (Goodman) interval as percentages beside the counts."""
    show = sdf[[*keys, "seat", "games", "wins"]].copy()
    show["win rate"] = [pct(r) for r in sdf["rate"]]
    show["simultaneous 95% CI"] = [f"{pct(a)} to {pct(b)}" for a, b in zip(sdf["ci_low"], sdf["ci_high"])]
    if "seq_ci_low" in sdf:   # stopped sequentially: the interval valid under the repeated looks
        show["look"] = sdf["look"]
        show["sequential 95% CI (per seat)"] = [f"{pct(a)} to {pct(b)}" for a, b in zip(sdf["seq_ci_low"], sdf["seq_ci_high"])]
    return show


def _gap_columns(df) -> pd.DataFrame:
    """The largest seat gap and its 95% interval, in percentage points, as the report prints them."""
    return pd.DataFrame({"largest gap (pp)": (100 * df["max_gap"]).round(2),
                         "95% CI (pp)": [f"{100 * a:.2f} to {100 * b:.2f}"
                                         for a, b in zip(df["gap_low"], df["gap_high"])]},
                        index=df.index)


def _balance_text(df) -> list[str]:
    """Balance (1 - the largest seat gap) with its 95% interval, 1 - the gap's interval."""
    return [f"{b:.3f} ({lo:.3f} to {hi:.3f})" for b, lo, hi in zip(df["balance"], df["balance_low"], df["balance_high"])]


def seats_findings(cdf, sdf) -> str:
    """Per configuration: the chi-square against equal seats, the best and worst seats with the
    intervals of the seat rows in sdf (simultaneous Goodman; the sequential ones at the stopping
    look when the cells stopped sequentially, the Goodman ones then not being valid), the
    largest gap and Balance, and the winner's extra turn. The gap, Balance and extra-turn
    intervals are per-comparison figures on the final counts."""
    seq = "seq_ci_low" in sdf
    lo_col, hi_col, ci_name = (("seq_ci_low", "seq_ci_high", "sequential 95% intervals per seat") if seq else
                               ("ci_low", "ci_high", "simultaneous 95% intervals"))
    parts = []
    for _, r in cdf.sort_values(["policy", "players", "leaves"]).iterrows():
        rows = sdf[(sdf["policy"] == r.policy) & (sdf["players"] == r.players)
                   & (sdf["leaves"].astype(str) == str(r.leaves))].sort_values("seat")
        rates = rows["rate"].to_numpy()
        best, worst = int(np.argmax(rates)) + 1, int(np.argmin(rates)) + 1

        def seat_rate(q):
            s = rows.iloc[q - 1]
            return f"{pct(s.rate)}, {pct(s[lo_col])} to {pct(s[hi_col])}"
        extra = (f"{rate_text(r.winner_had_extra_turn, r.decided)} of decided games" if r.decided
                 else "no decided game")
        parts.append(
            f"{r.players} players, {r.leaves} leaves ({r.leaves_by_seat}): "
            + ("the seats are NOT equal" if r.chi2_p < 0.05 else "no evidence the seats differ")
            + f" (chi-square {p_is(r.chi2_p)}); seat {best} wins most ({seat_rate(best)}), "
            f"seat {worst} least ({seat_rate(worst)}; {ci_name}); largest gap "
            f"{100 * r.max_gap:.1f} pp (95% CI {100 * r.gap_low:.1f} to {100 * r.gap_high:.1f}), Balance "
            f"{r.balance:.3f} ({r.balance_low:.3f} to {r.balance_high:.3f}); "
            f"the winner had one more turn than some opponent (so sat anywhere but last: the game "
            f"ends at once when a player wins) in {extra}, against {pct((r.players - 1) / r.players)} "
            f"if every seat were equally likely to win.")
    parts.append("Balance is 1 minus the largest seat gap: 1 when every seat wins equally often.")
    if seq:
        parts.append("The cells stopped sequentially: the seat intervals quoted are those valid under "
                     "the looks; the gap, Balance and extra-turn intervals are per-comparison figures on "
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
    cand, _ = seat_frames(named, totals)
    cand["printed"] = _printed(cand)
    cand["stage"] = "search"
    # the gap in games (every candidate plays n games), so that equal gaps tie exactly and the
    # order on leaves breaks the tie, not the floats' last bits
    cand["gap_games"] = np.rint(cand["max_gap"] * cand["games"]).astype(int)
    # confirmation: the top few of each player count and the printed one, on fresh seeds; the
    # fairest is the search's first, so its figure on the fresh seeds is not selected on them
    fresh = o["seed"] + FRESH_SEED_OFFSET
    best_search = set()
    for pl, g in cand.groupby("players", sort=True):
        top = g.sort_values(["gap_games", "leaves"], key=leaves_order).head(o["confirm_top"])
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
    figs = []
    if chart_dir is not None:
        figs = [("Every candidate handicap on common random numbers, ranked by its largest seat gap in the "
                 "search (best: the search's fairest, confirmed on fresh seeds)",
                 charts.handicap_landscape(cand, chart_dir / "handicap_landscape")[0])]
    show = conf[["policy", "players", "leaves", "printed", "best", "games", "decided"]].copy()
    show = show.rename(columns={"decided": "wins"})   # decided games: wins of some seat
    show = pd.concat([show, _gap_columns(conf), conf[["chi2_p"]]], axis=1)
    show["Balance (95% CI)"] = _balance_text(conf)
    seats_show = _seat_table(conf_seats, ["players", "leaves"])
    section = Section(st.title, handicap_findings(cand, conf, n, o) + assumed_components_note(st.rules),
                      tables=[
        ("Confirmation on fresh seeds: the fairest candidates of the search and the printed "
         "handicap (wins = decided games)", show),
        ("Confirmation: seat win rates (Goodman simultaneous 95% intervals)", seats_show)],
        charts=figs)
    return Result(st, {"candidates": cand, "confirm": conf, "confirm_seats": conf_seats}, section)


def _handicap_sides(b, pr) -> str:
    """What a designer must know before adopting a handicap beside its gap: which seat it leaves
    weakest and strongest, and how often its games time out (no winner) against the printed one."""
    seats = [(b[f"seat{q}_wins"], q) for q in range(1, int(b.players) + 1)]
    (lw, lq), (hw, hq) = min(seats), max(seats)
    n = int(b.games)
    txt = (f"seat {lq} wins least, {rate_text(lw, n, 'per-seat 95% CI ')}, seat {hq} most, "
           f"{rate_text(hw, n, 'per-seat 95% CI ')}; "
           f"timeouts {int(b.timeouts):,} of {n:,}")
    if len(pr) and not bool(pr.iloc[0].best):
        txt += f" (printed: {int(pr.iloc[0].timeouts):,} of {int(pr.iloc[0].games):,})"
    return txt


def handicap_findings(cand, conf, n, o) -> str:
    parts = [f"The search played {len(cand)} candidate handicaps (non-decreasing, 0 to "
             f"{o['max_leaves']} leaves a seat) on the same {n:,} setups each; the "
             f"{o['confirm_top']} fairest of each player count and the printed handicap were "
             f"played again on {o['confirm_games']:,} fresh games each (the search's figures are "
             "biased towards looking fair; the fairest is the search's first, and its figures "
             "below are the fresh games', which are not)."]
    for pl, g in conf.groupby("players", sort=True):
        b = g[g["best"]].iloc[0]
        pr = g[g["printed"]]
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
                    else "; the intervals overlap, so the gain over the printed one is not established")
        parts.append(txt + ".")
    return " ".join(parts)


# variants: paired units -----------------------------------------------------------------------

@dataclass(frozen=True)
class PairedCell:
    """Two cells on the same seeds (a rules variant and the defaults). Its unit counts are
    [games, both won, only a won, only b won, neither]; for Benevolent "won" is seat 1 winning."""
    a: Cell
    b: Cell

    @property
    def game(self):
        return self.a.game

    def seat_policies(self):
        return self.a.seat_policies() + self.b.seat_policies()

    fields = ("games", "both_won", "only_a_won", "only_b_won", "neither_won")
    label = ""
    games_per_seed = 2   # each seed is played twice: the variant and the defaults

    def store_dict(self) -> dict:
        """Its key in a results store (experiments.store): both cells' keys, rules and theta."""
        from arena.units import cell_dict
        a, b = cell_dict(self.a), cell_dict(self.b)
        return {"pair": [a, b], "game": self.game, "rules": f"{a['rules']}|{b['rules']}",
                "theta": f"{a['theta']}|{b['theta']}"}

    def recipe(self) -> dict:
        """What builds the pair again (a results store replays its units from it)."""
        from arena.units import cell_recipe
        return {"pair": [cell_recipe(self.a), cell_recipe(self.b)]}

    @classmethod
    def from_recipe(cls, d: dict) -> "PairedCell":
        from arena.units import cell_from_recipe
        a, b = d["pair"]
        return cls(cell_from_recipe(a), cell_from_recipe(b))

    def unit_counts(self, start: int, count: int) -> np.ndarray:
        """The counts of games start..start+count-1 (``paired_unit``)."""
        return paired_unit(self, start, count)


def _outcomes(cell: Cell, start: int, count: int) -> np.ndarray:
    import numba

    from arena.runner import block_size
    from arena.units import _prepared
    play_chunk, p, cfg, pols, thetas, n_rec, _ = _prepared(cell)
    rec = np.zeros((count, n_rec), dtype=np.int32)
    seed = np.uint64(cell.seed)
    pseed = np.uint64(cell.seed if cell.policy_seed is None else cell.policy_seed)
    play_chunk(p, cfg, seed, pseed, start, count, pols, thetas,
               block_size(count, numba.get_num_threads()), rec)
    if cell.game == "bethel_woods":
        from arena.bethel_woods.batch import R_OUTCOME
        from simcore.bethel_woods.actions import OUT_WIN
        return rec[:, R_OUTCOME] == OUT_WIN
    from arena.benevolent.batch import R_WINNER
    return rec[:, R_WINNER] == 0


def paired_unit(pc: PairedCell, start: int, count: int) -> np.ndarray:
    a, b = _outcomes(pc.a, start, count), _outcomes(pc.b, start, count)
    return np.array([count, np.sum(a & b), np.sum(a & ~b), np.sum(~a & b), np.sum(~a & ~b)],
                    dtype=np.int64)


def run_variants(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    o = st.opts
    n = _games(st)
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
    df["label"] = [f"{r.players} players, " + (spies_label(r.spies) if st.game == "bethel_woods"
                   else f"leaves {r.leaves}") + (f", {r.policy}" if len(o["policy"]) > 1 else "")
                   for r in df.itertuples()]
    df["significant"] = df["p_holm"] < 0.05
    figs = []
    if chart_dir is not None:
        figs = [("Each variant against the defaults on the same seeds (paired 95% intervals)",
                 charts.paired_differences(df, chart_dir / "variants_paired", outcome=outcome,
                                           title=f"{GAME_NAMES[st.game]}: rule variants against "
                                                 "the defaults")[0])]
    show = df.copy()
    show["wins"] = show["wins_variant"]
    show["difference (pp)"] = (100 * show["diff"]).round(2)
    show["95% CI (pp)"] = [f"{100 * a:.2f} to {100 * b:.2f}" for a, b in zip(df["diff_low"], df["diff_high"])]
    show = show.drop(columns=["diff", "diff_low", "diff_high", "label"])
    parts = []
    for _, r in df.iterrows():
        where = (f"{r.players} players, {spies_label(r.spies)}" if st.game == "bethel_woods"
                 else f"{r.players} players, leaves {r.leaves}")
        parts.append(f"{r.variant} ({where}, {r.policy}): {outcome} {rate_text(r.wins_variant, r.games)} "
                     f"against {rate_text(r.wins_default, r.games)} with the defaults, a difference of "
                     f"{signed(100 * r['diff'])} pp (95% CI {signed(100 * r.diff_low)} to "
                     f"{signed(100 * r.diff_high)}); "
                     + ("significant" if r.p_holm < 0.05 else "not significant")
                     + f" after Holm's correction over the {len(df)} comparisons (McNemar, "
                     f"adjusted {p_is(r.p_holm)}).")
    parts.append(f"Each variant played the same {n:,} seeds as the defaults (paired); the "
                 "intervals are per comparison, the significance calls are Holm-adjusted.")
    section = Section(st.title, " ".join(parts), tables=[
        (f"Rule variants against the defaults on the same seeds ({outcome}; wins = the variant's)",
         show)], charts=figs)
    return Result(st, {"pairs": df}, section)


# sensitivity: experiments/sensitivity.py as a study --------------------------------------------

def run_sensitivity(st: Study, threads=None, progress=None, chart_dir=None, backend=None) -> Result:
    from .sensitivity import sensitivity
    o = st.opts
    only = o.get("only")
    df = sensitivity(st.game, o["games"], o["seed"], o["policy"][0], threads, progress=progress,
                     only=only)
    figs = []
    if chart_dir is not None:
        figs = [("Each reading against the defaults on the same seeds (paired 95% intervals; "
                 "filled dots: the interval excludes 0; ringed: significant after Holm's correction)",
                 charts.sensitivity_forest(df, chart_dir / f"sensitivity_{st.game}")[0])]
    bw = st.game == "bethel_woods"
    show = df.copy()
    show["setup"] = [spies_label(s) if bw else f"{int(p)} players"
                     for s, p in zip(df["spies"] if bw else df["players"], df["players"])]
    if bw:   # the two win rates, each with its Wilson interval
        show["default (95% CI)"] = [rate_text(w, n, "") for w, n in zip(df["default_wins"], df["games"])]
        show["with the variant (95% CI)"] = [rate_text(w, n, "") for w, n in zip(df["variant_wins"], df["games"])]
    else:    # largest seat gaps, in points: the difference's interval is the one the bootstrap gives
        show["default gap (pp)"] = (100 * df["default"]).round(2)
        show["gap with the variant (pp)"] = (100 * df["value"]).round(2)
        if "default_timeouts" in df:   # a game that times out has no winner: it lowers every seat's rate
            show["timeouts (default, variant)"] = [f"{int(a):,}, {int(b):,}" for a, b in
                                                   zip(df["default_timeouts"], df["variant_timeouts"])]
    show["variant"] = df["variant"]
    show["difference (pp)"] = (100 * df["diff"]).round(2)
    show["95% CI (pp)"] = [f"{signed(100 * a)} to {signed(100 * b)}" for a, b in zip(df["ci_low"], df["ci_high"])]
    if bw:
        show["wins"] = df["variant_wins"]
        cols = ["variant", "kind", "setup", "games", "default_wins", "wins", "default (95% CI)",
                "with the variant (95% CI)", "difference (pp)", "95% CI (pp)", "p_holm"]
    else:
        cols = (["variant", "kind", "setup", "games", "changed_games", "default gap (pp)",
                 "gap with the variant (pp)"] + (["timeouts (default, variant)"] if "default_timeouts" in df else [])
                + ["difference (pp)", "95% CI (pp)", "p_holm"])
    metric = "win rate" if bw else "largest seat gap"
    section = Section(st.title, sensitivity_findings(df), tables=[
        (f"Every reading against the defaults ({metric}; variant minus default, largest effect "
         "first" + ("; wins = the variant's)" if bw else
                    "; a positive difference puts the seats further apart, less fair)"),
         show[cols].rename(columns={"p_holm": "p (Holm)"}))], charts=figs)
    return Result(st, {"rows": df}, section)


def sensitivity_findings(df: pd.DataFrame) -> str:
    """Which readings matter and which do not, largest effect first. Every row has a p-value
    (Bethel Woods: McNemar's; Benevolent: the paired bootstrap's), Holm-adjusted over the table:
    a reading moves the answer when some row of it is significant after the adjustment; one whose
    per-comparison interval excludes 0 without that is listed apart (among many comparisons some
    intervals exclude 0 by chance)."""
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
            txt = (f"{v} ({signed(100 * r['diff'], 1)} pp at {where(r)}, 95% CI {signed(100 * r.ci_low, 1)} to "
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
                dont.append((r.a, f"{v} (changed no game's {'result' if bw else 'winner'} in any setup)"))
            else:
                dont.append((r.a, f"{v} (largest difference {signed(100 * r['diff'], 1)} pp, at {where(r)})"))

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
        parts.append(f"Readings whose intervals include 0 in every setup, largest first: {listed(dont)}.")
    if not bw and "default_timeouts" in df:
        # a game that reaches the round limit has no winner: a variant that times out far more
        # often compares seat rates over far fewer decided games
        t = df[(df["variant_timeouts"] - df["default_timeouts"]).abs() >= 0.05 * df["games"]]
        if len(t):
            parts.append("Timeouts (no winner) differ between the arms by 5% of the games or more in: "
                         + "; ".join(f"{r.variant} at {int(r.players)} players, {int(r.variant_timeouts):,} "
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
