"""The study file: its keys and their checks (one-line UserErrors naming the bad key or value),
the defaults of each kind, and the checked ``Study`` that a kind's runner plays (docs/studies.md,
"The study file"). Which kind belongs to which game is ``KINDS``; the runners are registered in
``experiments.study.RUNNERS``."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.units import Cell, check_cell
from simcore.errors import UserError
from policies import STUDY_PLAYER
from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW, GAMES

from .. import charts
from ..glossary import GAME_NAMES


# The policy a study plays when it names none: the game's study player (policies.STUDY_PLAYER).
DEFAULT_POLICY = dict(STUDY_PLAYER)
# Each kind of study and the game it is of (None: the file's ``game`` key names it); the runners
# are in the kind's own module (experiments/study/<kind>.py), registered in experiments.study.RUNNERS.
KINDS = {"difficulty": BW.name, "characters": BW.name, "seats": BV.name,
         "handicap": BV.name, "variants": None, "sensitivity": None, "skill": None, "target": None,
         "targets": BW.name}
# The rulebook's "Increasing the Difficulty" table: Hard 1-2 spies, Insane 3-4, Impossible 5;
# it names no level for 0 spies (the base game), which we call Normal.
DIFFICULTY = charts.DIFFICULTY
FRESH_SEED_OFFSET = 1_000_003   # confirmation seeds: seed + this (never a search seed)


# the rungs a skill study plays when its file names none: weakest to strongest
DEFAULT_RUNGS = ("random", "heuristic", "learned", "expert")
# Designer target bands for a cooperative game's win rate (the study file's ``bands`` replaces
# them): published co-op targets are about 60% at an easy level, 30-40% at a standard one and
# 10-20% at a hard one (docs/studies.md, "The skill axis", names the sources); the easy band is
# taken as 55-65% around the quoted 60%.
DEFAULT_BANDS = {"easy": (0.55, 0.65), "standard": (0.30, 0.40), "hard": (0.10, 0.20)}


BANDS_EXAMPLE = "easy=55-65,standard=30-40,hard=10-20"


def parse_bands(text: str, what: str = "--bands") -> dict:
    """Target bands as a command line gives them: comma-separated name=LOW-HIGH, in percent
    ("easy=55-65,standard=30-40,hard=10-20"); the same table as a study file's ``bands`` (win rates
    as fractions). A one-line UserError names the bad part and what is allowed."""
    import re
    allowed = f"expected name=LOW-HIGH in percent, comma-separated, e.g. {BANDS_EXAMPLE}"
    out = {}
    for part in str(text).split(","):
        m = re.fullmatch(r"\s*([A-Za-z][\w ]*?)\s*=\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*%?\s*", part)
        if not m:
            raise UserError(f"{what} {text!r}: {part.strip()!r} is not name=LOW-HIGH; {allowed}")
        name, lo, hi = m.group(1), float(m.group(2)), float(m.group(3))
        if not lo < hi <= 100:
            raise UserError(f"{what} {text!r}: {name} = {m.group(2)}-{m.group(3)}: expected 0 <= LOW < HIGH <= 100")
        if name in out:
            raise UserError(f"{what} {text!r}: the band {name!r} is given twice")
        out[name] = (lo / 100, hi / 100)
    return out


def rung_name(policy: str, temperature: float | None) -> str:
    """A rung as the tables name it: the player, or ``learned@0.03`` for the skill dial."""
    return policy if temperature is None else f"{policy}@{temperature:g}"


def rung_cell(setup: Cell, rung: str) -> Cell:
    """The setup played by a rung in every seat: a player by name, or the learned player with the
    skill dial at T (``learned@T``: its parameter vector with the temperature, ``policies.dial_theta``)."""
    from policies import dial_theta, parse_rung
    pol, temp = parse_rung(rung, setup.game)
    return replace(setup, policies=(pol,), theta=None if temp is None else dial_theta(setup.game, temp))


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


def _span(key, v):
    """One knob's span in a target study: [lo, hi] whole numbers, or for a categorical knob "all"
    or a list of its values' names."""
    allowed = "[lo, hi] whole numbers, or for a switch or component table \"all\" or a list of its values"
    if v == "all" or (isinstance(v, list) and v and all(isinstance(x, str) and x for x in v)):
        return v
    if (isinstance(v, list) and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        return list(v)
    raise UserError(f"{key} = {v!r}: expected {allowed}")


def _spans(key, v):
    if not isinstance(v, list) or not v:
        raise UserError(f"{key} = {v!r}: expected a list, one span per knob ([lo, hi], \"all\" or a list of names)")
    return [_span(f"{key}[{i}]", x) for i, x in enumerate(v)]


def _band(key, v):
    if (not isinstance(v, list) or len(v) != 2 or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in v)
            or not 0 <= v[0] < v[1] <= 1):
        raise UserError(f"{key} = {v!r}: expected [low, high] win rates with 0 <= low < high <= 1")
    return [float(v[0]), float(v[1])]


def _levels(key, v):
    """Which difficulty each band is for: a table of band name = spies (0 to 5)."""
    if not isinstance(v, dict) or not v or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 5
                                                   for x in v.values()):
        raise UserError(f"{key} = {v!r}: expected a table of band name = spies (0 to 5), e.g. {{ standard = 0, hard = 1 }}")
    return {str(k): int(x) for k, x in v.items()}


def _bool(key, v):
    if not isinstance(v, bool):
        raise UserError(f"{key} = {v!r}: expected true or false")
    return v


def _bands(key, v):
    """Designer target bands: a table of name = [low, high] win rates (0 <= low < high <= 1)."""
    allowed = "a table of name = [low, high] win rates, e.g. { standard = [0.30, 0.40] }"
    if not isinstance(v, dict) or not v:
        raise UserError(f"{key} = {v!r}: expected {allowed}")
    out = {}
    for name, b in v.items():
        if (not isinstance(b, list) or len(b) != 2 or any(isinstance(x, bool) or not isinstance(x, (int, float))
                                                          for x in b) or not 0 <= b[0] < b[1] <= 1):
            raise UserError(f"{key}.{name} = {b!r}: expected [low, high] with 0 <= low < high <= 1")
        out[str(name)] = (float(b[0]), float(b[1]))
    return out


COMMON = {
    "kind": _str, "title": _str, "policy": _strs, "players": _ints(2, 4, "players 2 to 4"),
    "games": _int(1, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "rules": _str,
    "target_halfwidth": _float(0.0, 0.5), "sequential_n0": _int(10, 10 ** 9),
    # skill robustness (experiments/skill.py): games per headline cell of the stronger player (0:
    # no check) and who plays them (default policies.BEST_PLAYER[game]); the weaker rung played on
    # the same seeds (default common.WEAKER_PLAYER, the heuristic; "none" for none)
    "skill_games": _int(0, 10 ** 7), "skill_policy": _str, "skill_weaker": _str,
}
KEYS = {
    "difficulty": {**COMMON, "spies": _ints(0, 5, "spies 0 to 5"), "characters": _strs},
    "characters": {**COMMON, "spies": _ints(0, 5, "spies 0 to 5")},
    "seats": {**COMMON, "leaves": _leaves_spec},
    "handicap": {**COMMON, "max_leaves": _int(1, 16), "confirm_top": _int(1, 20),
                 "confirm_games": _int(1, 10 ** 9), "holdout_games": _int(1, 10 ** 9)},
    "variants": {**COMMON, "game": _str, "spies": _ints(0, 5, "spies 0 to 5"),
                 "variants": _strs, "leaves": _leaves_spec},
    "skill": {"kind": _str, "title": _str, "game": _str, "policy": _strs, "rungs": _strs,
              "players": _ints(2, 4, "players 2 to 4"), "spies": _ints(0, 5, "spies 0 to 5"),
              "leaves": _leaves_spec, "games": _int(2, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "rules": _str,
              "bands": _bands, "mixed": _bool},
    "sensitivity": {"kind": _str, "title": _str, "game": _str, "policy": _strs,
                    "games": _int(2, 10 ** 9), "seed": _int(0, 2 ** 63 - 1), "only": _strs,
                    "skill_games": _int(0, 10 ** 7), "skill_policy": _str, "skill_weaker": _str},
    "target": {"kind": _str, "title": _str, "game": _str, "policy": _strs, "players": _ints(2, 4, "players 2 to 4"),
               "spies": _ints(0, 5, "spies 0 to 5"), "seat": _int(1, 4), "knob": _str, "range": _span,
               "knobs": _strs, "ranges": _spans, "outcome": _str, "at_most": _float(0.0, 1.0), "band": _band, "keep_rate": _band,
               "games_per_trial": _int(1, 10 ** 9),
               "target": _float(-1.0, 1.0), "games": _int(1, 10 ** 9), "confirm_games": _int(2, 10 ** 9),
               "seed": _int(0, 2 ** 63 - 1)},
    # the report's "to reach the targets": each band of `bands` at its difficulty (`levels`) and each
    # player count, the smallest change of `knobs` that brings the study player's win rate into it
    "targets": {"kind": _str, "title": _str, "policy": _strs, "players": _ints(2, 4, "players 2 to 4"),
                "knobs": _strs, "ranges": _spans, "bands": _bands, "levels": _levels, "games": _int(1, 10 ** 9),
                "games_per_trial": _int(1, 10 ** 9), "confirm_games": _int(2, 10 ** 9), "seed": _int(0, 2 ** 63 - 1)},
}
DEFAULTS = {
    "difficulty": {"players": [2, 3, 4], "spies": [0, 1, 2, 3, 4, 5], "games": 10_000},
    "characters": {"players": [2, 3, 4], "spies": [0, 2], "games": 1_000},
    "seats": {"players": [2, 3, 4], "leaves": ["printed", "equal"], "games": 100_000},
    "handicap": {"players": [2, 3, 4], "max_leaves": 6, "games": 4_000, "confirm_top": 3,
                 "confirm_games": 100_000},
    "variants": {"game": BW.name, "players": [3], "spies": [0, 2], "games": 10_000,
                 "leaves": ["printed"]},
    "sensitivity": {"game": BW.name, "games": 2_000},
    "skill": {"game": BW.name, "players": [2, 3, 4], "spies": [0, 1, 2, 3, 4, 5], "leaves": ["printed"],
              "games": 1_000},
    "target": {"game": BW.name, "players": [3], "spies": [0], "seat": 1, "games": 6_000, "confirm_games": 2_000,
               "games_per_trial": 500},
    "targets": {"players": [2, 3, 4], "levels": {"standard": 0, "hard": 1}, "games": 12_000, "games_per_trial": 500,
                "confirm_games": 2_000},
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
    if not isinstance(kind, str) or kind not in KINDS:
        raise UserError(f"{where}: kind = {kind!r} is not known; allowed: {', '.join(KINDS)}")
    opts: dict[str, Any] = dict(DEFAULTS[kind])
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
    if str(opts.get("skill_weaker", "")).strip().lower() == "none":
        opts["skill_weaker"] = "none"
    elif "skill_weaker" in opts:
        from policies import canonical_policy
        opts["skill_weaker"] = canonical_policy(opts["skill_weaker"], game)
        check_player(opts["skill_weaker"], game, f"{where}: skill_weaker", GAME_NAMES[game])
        if opts["skill_weaker"] in (opts["policy"][0], opts.get("skill_policy")):
            raise UserError(f"{where}: skill_weaker = {opts['skill_weaker']!r} is the study's own player or its "
                            "stronger one; name a weaker one (default: the heuristic), or \"none\"")
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
    if kind in ("seats", "variants") and game == BV.name:   # leaves are a Benevolent setup
        for pl in opts["players"]:
            for spec in opts["leaves"]:
                leaves_for(spec, pl)
    if kind == "variants" and game == BV.name and "spies" in raw:
        raise UserError(f"{where}: key 'spies' is for Bethel Woods; a Benevolent variants study "
                        "takes players and leaves")
    if kind == "skill":
        _check_skill(st, raw, where)
        return st
    if kind == "target":
        _check_target(st, where)
        return st
    if kind == "targets":
        _check_targets(st, where)
        return st
    if kind == "sensitivity":
        if len(opts["policy"]) != 1:
            raise UserError(f"{where}: policy = {opts['policy']!r}: a sensitivity study plays one "
                            "policy; name exactly one")
        if "only" in opts:
            from ..sensitivity import variants as sens_variants
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


def _check_skill(st: Study, raw: dict, where: str) -> None:
    """A skill study: rungs are players of the game, named once each, weakest to strongest, the
    study player (policy, one) among them; spies for Bethel Woods, leaves for Benevolent; bands
    default to ``DEFAULT_BANDS``. Every cell checked before anything is played."""
    from policies import check_player, parse_rung
    o = st.opts
    game = st.game
    rungs = []
    for r in o.get("rungs") or DEFAULT_RUNGS:
        try:
            pol, temp = parse_rung(r, game)
        except UserError as e:
            raise UserError(f"{where}: rungs: {e}") from None
        check_player(pol, game, f"{where}: rungs", GAME_NAMES[game])
        rungs.append(rung_name(pol, temp))
    o["rungs"] = rungs
    if len(set(o["rungs"])) != len(o["rungs"]) or len(o["rungs"]) < 2:
        raise UserError(f"{where}: rungs = {o['rungs']!r}: expected two or more players, each named once, "
                        "weakest to strongest")
    if len(o["policy"]) != 1 or o["policy"][0] not in o["rungs"]:
        raise UserError(f"{where}: policy = {o['policy']!r}: a skill study's study player is one of its rungs "
                        f"({', '.join(o['rungs'])})")
    if game == BW.name and "leaves" in raw:
        raise UserError(f"{where}: key 'leaves' is for Benevolent; a Bethel Woods skill study takes spies")
    if game == BV.name and "spies" in raw:
        raise UserError(f"{where}: key 'spies' is for Bethel Woods; a Benevolent skill study takes leaves")
    if game == BW.name and o.get("mixed"):
        raise UserError(f"{where}: mixed = true is for Benevolent (a player in seat 1 against others); "
                        "Bethel Woods is cooperative")
    o.setdefault("bands", dict(DEFAULT_BANDS))
    if game == BV.name:
        for pl in o["players"]:
            for spec in o["leaves"]:
                leaves_for(spec, pl)
    for r in o["rungs"]:
        for pl in o["players"]:
            if game == BW.name:
                check_cell(rung_cell(Cell(BW.name, pl, spies=o["spies"][0], rules=st.rules, seed=o["seed"]), r))
            else:
                spec = next((s for s in o["leaves"] if not isinstance(s, list) or len(s) == pl), "printed")
                check_cell(rung_cell(Cell(game, pl, leaves=leaves_for(spec, pl), rules=st.rules, seed=o["seed"]), r))


def players_arg(o: dict):
    """A target study's player count(s) as ``problem_multi`` takes them: one int, or a tuple for
    one change for several counts."""
    return o["players"][0] if len(o["players"]) == 1 else tuple(o["players"])


def _check_target(st: Study, where: str) -> None:
    """A target study: one player, one player count (with knobs: several, one change for all of
    them), one spies count; one knob (knob, range) or several (knobs, ranges: one span each); a
    target (a value to hit) or at_most (a bound); an outcome (default the game's rate). Checked by ``experiments.target`` as the command checks
    them. One whole-number knob with a rate to hit is bisected (``opts["multi"]`` false); every
    other problem is the several-knob search (``opts["multi"]`` true, ``knobs`` and ``ranges`` set)."""
    from ..target import check_spans, is_categorical, knob_range, knob_span, problem, problem_multi
    o = st.opts
    one, several = "knob" in o, "knobs" in o
    if one == several:
        raise UserError(f"{where}: a target study needs knob (with range) or knobs (with ranges), one of them "
                        "(e.g. knob = \"spies\", range = [0, 5], target = 0.40)")
    if sum(k in o for k in ("target", "at_most", "band")) != 1:
        raise UserError(f"{where}: a target study needs exactly one of target (a value to hit, e.g. 0.40), "
                        "at_most (a bound, e.g. 0.03) and band (a range to land in, e.g. [0.30, 0.40])")
    spans_key = "range" if one else "ranges"
    if spans_key not in o:
        raise UserError(f"{where}: a target study with {'knob' if one else 'knobs'} needs {spans_key}")
    for key in ("policy", "players", "spies"):
        if len(o[key]) != 1 and not (key == "players" and several):
            raise UserError(f"{where}: {key} = {o[key]!r}: a target study takes exactly one"
                            + (" (several player counts: with knobs, one change for all of them)" if key == "players" else ""))
    names = [o["knob"]] if one else list(o["knobs"])
    spans = [o["range"]] if one else list(o["ranges"])
    if len(spans) != len(names):
        raise UserError(f"{where}: {len(names)} knobs and {len(spans)} ranges: give one span per knob, in order")
    o.setdefault("outcome", None)
    try:
        multi = (several or "at_most" in o or "band" in o or "keep_rate" in o or o["outcome"] is not None
                 or is_categorical(st.game, names[0]))
        if not multi:
            if not 0 < o["target"] < 1:
                raise UserError(f"target = {o['target']!r}: expected a rate strictly between 0 and 1")
            problem(st.game, o["knob"], o["players"][0], o["policy"][0], spies=o["spies"][0], seat=o["seat"])
            if not (isinstance(o["range"], list) and len(o["range"]) == 2 and all(isinstance(x, int) for x in o["range"])):
                raise UserError(f"range = {o['range']!r}: expected [lo, hi]")
            o["range"] = list(knob_range(st.game, o["knob"], f"{o['range'][0]}-{o['range'][1]}"))
        else:
            pr = problem_multi(st.game, names, players_arg(o), o["policy"][0], spies=o["spies"][0], seat=o["seat"],
                               outcome=o["outcome"], at_most="at_most" in o,
                               keep=tuple(o["keep_rate"]) if "keep_rate" in o else None)
            if "band" not in o:
                pr.search_outcome.check(o["at_most"] if "at_most" in o else o["target"])
            elif pr.search_outcome.kind not in ("rate", "rates"):
                raise UserError(f"band = {o['band']!r} is for a rate; outcome {o['outcome']!r} takes target or at_most")
            o["knobs"] = names
            o["ranges"] = [knob_span(st.game, k, (sp if isinstance(sp, str) else ",".join(sp))
                                     if is_categorical(st.game, k) else
                                     (f"{sp[0]}-{sp[1]}" if isinstance(sp, list) and len(sp) == 2
                                      and all(isinstance(x, int) for x in sp) else str(sp)), check=False)
                           for k, sp in zip(names, spans)]
            check_spans(st.game, dict(zip(names, o["ranges"])))
        o["multi"] = bool(multi)
    except UserError as e:
        raise UserError(f"{where}: {e}") from None


def target_problems(st: Study) -> list[tuple[str, Study]]:
    """A targets study's problems as (band, a checked target study): per band of ``levels`` and player
    count, the band at its difficulty (spies) for the study player, the study's knobs and ranges;
    named <study>_<band>_<players>p, seeded from the study's seed; and with several player counts, per
    band one more: one change for every count at once (named <study>_<band>_all)."""
    o = st.opts
    out = []
    for i, (band, spies) in enumerate(o["levels"].items()):
        groups = [[pl] for pl in o["players"]] + ([list(o["players"])] if len(o["players"]) > 1 else [])
        for j, pls in enumerate(groups):
            one = len(pls) == 1
            raw = {"kind": "target", "game": st.game, "policy": o["policy"][:1], "players": pls, "spies": [spies],
                   "knobs": o["knobs"], "ranges": o["ranges"], "band": list(o["bands"][band]),
                   "games": o["games"], "games_per_trial": o["games_per_trial"],
                   "confirm_games": o["confirm_games"], "seed": o["seed"] + 1000 * i + (j if one else 999),
                   "title": f"{band} band at {spies} spies, "
                            + (f"{pls[0]} players" if one else f"one change for {', '.join(map(str, pls))} players")}
            name = f"{st.name}_{band}_{pls[0]}p" if one else f"{st.name}_{band}_all"
            sub = study_from_dict(raw, name, where=f"{st.name}: {band}, {raw['title'].split(', ', 1)[1]}")
            out.append((band, sub))
    return out


def _check_targets(st: Study, where: str) -> None:
    o = st.opts
    for key in ("knobs", "ranges"):
        if key not in o:
            raise UserError(f"{where}: a targets study needs {key} (e.g. knobs = [\"knowledge_limit\"], "
                            "ranges = [[6, 9]])")
    o.setdefault("bands", dict(DEFAULT_BANDS))
    for band in o["levels"]:
        if band not in o["bands"]:
            raise UserError(f"{where}: levels names the band {band!r}, which bands does not have; "
                            f"bands: {', '.join(o['bands'])}")
    if len(o["policy"]) != 1:
        raise UserError(f"{where}: policy = {o['policy']!r}: a targets study takes exactly one player")
    target_problems(st)      # each problem checked as a target study


def _load_rules(game, path):
    if Path(path).is_dir():
        raise UserError(f"rules file {str(path)!r} is a folder; give a .toml file")
    if not Path(path).exists():
        raise UserError(f"rules file {str(path)!r} does not exist")
    return GAMES[game].load_rules(path)


def _default_title(kind, game):
    return {"difficulty": "Bethel Woods: win rate by difficulty",
            "characters": "Bethel Woods: characters and character sets",
            "seats": "Benevolent: seat order",
            "handicap": "Benevolent: the fairest starting-leaves handicap",
            "variants": f"{GAME_NAMES[game]}: rule variants against the defaults",
            "sensitivity": f"{GAME_NAMES[game]}: which readings and assumed data move the answers",
            "skill": f"{GAME_NAMES[game]}: the answers across the skill range",
            "target": f"{GAME_NAMES[game]}: a rules knob tuned to a target",
            "targets": f"{GAME_NAMES[game]}: to reach the targets"}[kind]


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


def leaves_name(spec, leaves) -> str:
    return spec if isinstance(spec, str) else ",".join(map(str, leaves))


def _cells_to_check(st: Study):
    o = st.opts
    for pol in o["policy"]:
        for pl in o["players"]:
            if st.game == BW.name:
                yield Cell(BW.name, pl, spies=o.get("spies", [0])[0], policies=(pol,),
                           characters=study_characters(st), rules=st.rules, seed=o["seed"])
            else:
                specs = o.get("leaves", ["printed"])
                ok = [s for s in specs if not isinstance(s, list) or len(s) == pl]
                for spec in ok[:1]:
                    yield Cell(st.game, pl, leaves=leaves_for(spec, pl), policies=(pol,),
                               rules=st.rules, seed=o["seed"])


def study_characters(st):
    c = st.opts.get("characters")
    return tuple(c) if c else None
