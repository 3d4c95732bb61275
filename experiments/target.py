"""`boardsim target`: one knob of a game tuned until an outcome hits a designer's target, for a
chosen player (docs/target.md).

The search is ``target_search.find_target`` (game-free); this module is the games' side of it:
which knobs a game has, what outcome is measured, and ``measure(x, games, seed)``, the outcome's
successes in `games` games of the arena's cell with the knob at x (chance keyed by the seed and
the game index, so every knob value faces the same draws: common random numbers).

Knobs: every whole-number key of the game's rules data (Bethel Woods `knowledge_limit`,
`critical_knowledge_limit`, `malfunctions_per_turn`; Benevolent `timeout_rounds`) and the setup's
own numbers (Bethel Woods `spies`; Benevolent `seatK_leaves`, seat K's starting leaves, the others
printed). Outcomes: Bethel Woods the win rate; Benevolent seat K's win rate (`--seat`, default 1;
of all games: a timeout is a game it did not win). The knob's range is the user's; the search
assumes the outcome moves one way along it (it tells which from the two ends).

Categorical knobs (searched as several knobs, ``find_target_multi``, even alone): every switch of
the rules data (Bethel Woods `four_critical`, `rone_redirect`, ...; Benevolent `gather_tile`,
`empty_gift`), its values the rules data's, the default first; and every component table that has
named alternatives (Bethel Woods `machine_types`, `malfunction_counts` (the malfunction mix),
`orphanage_types`; Benevolent `layouts`, `sides`, `gray`, `dream_path`, `secret_pairs`), its values
`printed` and the alternatives' names. Outcomes beyond one rate (``outcome_of``): Bethel Woods
`gap:Q`, the gap between the win rates at the players asked and at Q players; Benevolent
`seat-gap:J`, the gap between seat K's and seat J's win rates in the same games; Bethel Woods
`edge:CHARACTER`, the win rate of teams with the character minus teams without (every team of
the player count once, each side's games spread evenly over its teams, on one seed). A target is
a value to hit, or (``at_most``) a bound.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from simcore.errors import UserError
from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW, game as game_of

from .target_search import (MULTI_TOL, RATE, Infeasible, MultiTargetResult, Outcome, ParetoPoint, TargetResult, find_target,
                            find_target_multi)

SETUP_KNOBS = {BW.name: {"spies": (0, 5)}, BV.name: {}}
LEAVES_RANGE = (0, 9)        # a seat's starting leaves as a knob (the printed handicap is 1, 3, 4, 5)
PRINTED_LEAVES = (1, 3, 4, 5)


def rules_knobs(game) -> dict:
    """{key: default} of the game's whole-number rules keys."""
    d = game_of(game).default_rules().to_dict()
    return {k: v for k, v in d.items() if isinstance(v, int) and not isinstance(v, bool)}


PRINTED = "printed"


def categorical_knobs(game) -> dict[str, tuple[str, ...]]:
    """{knob: its values, the printed game's first} of the game's categorical knobs: every switch
    (the rules data's values) and every component table with named alternatives ("printed" and
    the alternatives that change it)."""
    rm = game_of(game).rules_module
    out: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in rm.SWITCHES.items()}
    for alt, mapping in rm.ALTERNATIVES.items():
        if len(mapping) == 1:
            (key,) = mapping
            out[key] = out.get(key, (PRINTED,)) + (alt,)
    return out


def knobs(game, players: int) -> list[str]:
    """Every knob of the game at this player count: whole-number ones, then categorical ones."""
    g = game_of(game)
    out = list(rules_knobs(g)) + list(SETUP_KNOBS[g.name])
    if not g.cooperative:
        out += [f"seat{k}_leaves" for k in range(1, players + 1)]
    return out + list(categorical_knobs(g))


def is_categorical(game, knob: str) -> bool:
    return knob in categorical_knobs(game)


def outcome_of(game, spec: str, players: int, at_most: bool = False) -> tuple[Outcome, int | None]:
    """The outcome named by `spec` ("win" / "seat-win", "gap:Q" / "seat-gap:J") as a search
    Outcome and its other side (Q players, or seat J; None for a rate); one-line UserErrors."""
    g = game_of(game)
    rate_name, gap_name = ("win", "gap") if g.cooperative else ("seat-win", "seat-gap")
    allowed = f"{rate_name}, {gap_name}:{'Q (other players, 2 to 4)' if g.cooperative else 'J (another seat)'}"
    chars = characters_of(g)
    if chars:
        allowed += f", edge:CHARACTER ({', '.join(chars)})"
    spec = str(spec).strip()
    goal = "at most" if at_most else "at"
    if spec == rate_name:
        return Outcome(goal=goal), None
    name, _, arg = spec.partition(":")
    if chars and name == "edge":
        if arg.strip() not in chars:
            raise UserError(f"outcome {spec!r}: character {arg.strip()!r} is not known; allowed: {', '.join(chars)}")
        return Outcome("difference", paired=False, absolute=False, goal=goal), None
    if name != gap_name or not arg.strip().isdigit():
        raise UserError(f"outcome {spec!r} is not known for {g.title}; allowed: {allowed}")
    other = int(arg)
    if g.cooperative:
        g.check_players(other)
        if other == players:
            raise UserError(f"outcome {spec!r}: Q must differ from --players {players}")
        return Outcome("difference", paired=False, absolute=True, goal=goal), other
    if not 1 <= other <= players:
        raise UserError(f"outcome {spec!r}: seat {other} is not allowed at {players} players; allowed: 1 to {players}")
    return Outcome("difference", paired=True, absolute=True, goal=goal), other


def characters_of(game) -> tuple[str, ...]:
    """The game's characters (dealt to the seats), () for a game without them."""
    return tuple(getattr(game_of(game).rules_module, "CHARACTERS", ()))


@functools.lru_cache(maxsize=32)
def edge_teams(chars: tuple[str, ...], who: str, players: int) -> tuple[tuple, tuple]:
    """The teams of an edge outcome: (every team with `who`, every team without), each team a
    tuple of character names by seat (made once per game, character and player count, and
    immutable: every trial's cells, work and counts read the same tuples). Every set of `players`
    characters once; the seat order rotates with the team's index, so `who` (and each character)
    sits in every seat about equally often, as a random deal seats it."""
    from itertools import combinations

    def seated(team, i):
        team = sorted(team, key=chars.index)
        return tuple(team[(q + i) % players] for q in range(players))
    others = [c for c in chars if c != who]
    with_ = tuple(seated((who,) + rest, i) for i, rest in enumerate(combinations(others, players - 1)))
    without = tuple(seated(team, i) for i, team in enumerate(combinations(others, players)))
    return with_, without


def split_games(games: int, teams: int) -> list[int]:
    """`games` games spread over `teams` teams as evenly as whole numbers allow (the first ones one
    more), so each side of an edge plays exactly `games` games."""
    return [games // teams + (1 if j < games % teams else 0) for j in range(teams)]


@dataclass(frozen=True)
class Problem:
    """A target problem of one game: the knob, the outcome, the player, the setup."""
    game: str
    knob: str
    players: int
    spies: int | None
    seat: int | None
    player: str
    cell: Callable         # (knob value, seed) -> the arena's cell
    success: Callable      # a unit's counts as a dict -> the outcome's successes
    outcome: str           # the outcome in words, naming the player
    printed: int | None = None   # the knob's value in the printed game (None for spies: a difficulty, not a rule)

    def measure(self, x, games: int, seed: int) -> int:
        """The outcome's successes in games 0..games-1 of the cell with the knob at x (in-process)."""
        from arena.units import as_dict, run_unit
        return int(self.success(as_dict(self.game, run_unit(self.cell(int(x), seed), 0, games))))


def problem(game, knob: str, players: int, player: str, spies: int = 0, seat: int = 1) -> Problem:
    """The game's target problem (one-line UserErrors naming the allowed knobs, players, seats)."""
    from policies import canonical_policy, check_player
    g = game_of(game)
    g.check_players(players)
    player = canonical_policy(player, g.name)
    check_player(player, g.name, "player")
    allowed = knobs(g, players)
    if knob not in allowed:
        raise UserError(f"knob {knob!r} is not known for {g.title} at {players} players; allowed: {', '.join(allowed)}")
    if is_categorical(g, knob):
        raise UserError(f"knob {knob!r} is categorical: it has no order to bisect; search it as several knobs "
                        "(problem_multi)")
    cell, success, what = _cells(g, [knob], players, player, spies, seat)
    return Problem(g.name, knob, players, spies if g.cooperative else None, None if g.cooperative else seat,
                   player, lambda x, seed: cell({knob: x}, seed), success, what, _printed(g, knob))


def _printed(g, knob: str) -> int | None:
    """A whole-number knob's value in the printed game: a rules key's default, a seat's printed
    starting leaves; None for spies (the difficulty a group picks, not a printed rule)."""
    base = g.default_rules().to_dict()
    if knob in base:
        return int(base[knob])
    if knob.endswith("_leaves"):
        return PRINTED_LEAVES[int(knob[4:-7]) - 1]
    return None


def _cells(g, knob_names: list[str], players: int, player: str, spies: int, seat: int):
    """(cell(setting, seed), success, outcome words) for a setting {knob: value} of several knobs:
    rules keys merged into one rules mapping (None when none is set), setup knobs applied to the
    setup, every other knob at its default."""
    from arena.units import Cell
    base = g.default_rules().to_dict()
    cats = categorical_knobs(g)
    rm = g.rules_module

    def rules_of(setting: dict):
        """The rules of a setting: whole-number keys as given; a categorical knob's value is an index
        into its values (a switch's value, or a component table's alternative; 0 the printed)."""
        keys = {k: v for k, v in setting.items() if k in base and k not in cats}
        switches = {k: cats[k][v] for k, v in setting.items() if k in rm.SWITCHES and v != 0}
        tables = {k: cats[k][v] for k, v in setting.items() if k in cats and k not in rm.SWITCHES and v != 0}
        if not keys and not switches and not tables:
            return None
        d = {**base, **keys}
        for alt in tables.values():
            d.update(rm.ALTERNATIVES[alt])
        if switches:
            d["switches"] = {**base.get("switches", {}), **switches}
        said = [f"{k}={v}" for k, v in keys.items()] + [f"{k}={v}" for k, v in {**switches, **tables}.items()]
        try:
            return g.rules_from_mapping(d, source=", ".join(said))
        except UserError as e:    # a setting the rules do not allow: the search skips it
            raise Infeasible(str(e)) from None

    if g.cooperative:
        if not 0 <= spies <= 5:
            raise UserError(f"spies {spies} is not allowed; allowed: 0 to 5")

        def cell(setting: dict, seed: int, characters: tuple | None = None):
            return Cell(g.name, players, spies=setting.get("spies", spies), policies=(player,),
                        rules=rules_of(setting), seed=seed, characters=characters)

        what = (f"the win rate of {player} play, {players} players"
                + ("" if "spies" in knob_names else f", {spies} spies"))
        return cell, (lambda d: d.get("wins", 0)), what
    if not 1 <= seat <= players:
        raise UserError(f"seat {seat} is not allowed at {players} players; allowed: 1 to {players}")

    def bv_cell(setting: dict, seed: int):
        leaves = list(PRINTED_LEAVES[:players])
        for k, v in setting.items():
            if k.endswith("_leaves"):
                leaves[int(k[4:-7]) - 1] = v
        return Cell(g.name, players, leaves=tuple(leaves), policies=(player,), rules=rules_of(setting), seed=seed)

    what = f"seat {seat}'s win rate (of all games) in {player} self-play, {players} players"
    return bv_cell, (lambda d: d.get(f"seat{seat - 1}_wins", 0)), what


@dataclass(frozen=True)
class MultiProblem:
    """A target problem with several knobs at once: their defaults, the outcome, the player.
    A categorical knob's values are indices into ``labels[knob]`` (0 the printed game's)."""
    game: str
    knobs: tuple[str, ...]
    defaults: dict           # {knob: its value in the printed game (Bethel Woods spies: the --spies setup)}
    players: int
    spies: int | None
    seat: int | None
    player: str
    cell: Callable           # (setting {knob: value}, seed) -> the arena's cell
    success: Callable        # a unit's counts as a dict -> the outcome's success count(s)
    outcome: str             # the outcome in words, naming the player
    search_outcome: Outcome = RATE
    labels: dict | None = None      # {categorical knob: its values' names}
    other_cell: Callable | None = None   # Bethel Woods gap: the cell at the other player count
    other: int | None = None             # a gap's other side: Q players (Bethel Woods), seat J (Benevolent)
    edge: str | None = None              # Bethel Woods edge:NAME: the character whose edge is measured
    player_counts: tuple | None = None   # one change for several player counts: the counts, in order
    count_cells: tuple = ()              # ... and the cell at each of them

    def short(self) -> str:
        """The outcome in a few words, for a question on the front page."""
        k = self.search_outcome.keep
        kept = "" if k is None else f" (keeping the first rate in {100 * k[0]:g}-{100 * k[1]:g}%)"
        if self.edge is not None:
            return f"{self.edge}'s edge (teams with {self.edge} minus teams without){kept}"
        if self.player_counts is not None:
            return (("the win rate" if self.seat is None else f"seat {self.seat}'s win rate")
                    + f" at every player count ({', '.join(map(str, self.player_counts))})")
        if self.other is None:
            return "the win rate" if self.seat is None else f"seat {self.seat}'s win rate"
        return (f"the win-rate gap to {self.other} players" if self.seat is None
                else f"the win-rate gap between seats {self.seat} and {self.other}") + kept

    def measure(self, setting: dict, games: int, seed: int):
        """The outcome's count(s) in games 0..games-1 of the cell at this setting (in-process): one
        int for a rate, a pair for a gap or an edge."""
        from arena.units import run_unit
        return self.counts_from([run_unit(c, 0, n) for c, n in self.work(setting, games, seed)], games)

    def counts_from(self, units: list, games: int):
        """The outcome's count(s) from the summed counts of the units of ``work(.., games, ..)``,
        in order."""
        from arena.units import as_dict
        got = [self.success(as_dict(self.game, u)) for u in units]
        if self.edge is not None:    # the teams with the character, then the teams without
            with_, _ = edge_teams(characters_of(self.game), self.edge, self.players)
            k = sum(1 for n in split_games(games, len(with_)) if n)
            return int(sum(got[:k])), int(sum(got[k:]))
        if self.other_cell is not None:
            return int(got[0]), int(got[1])
        if self.player_counts is not None:
            return tuple(int(v) for v in got)
        return tuple(int(v) for v in got[0]) if isinstance(got[0], tuple) else int(got[0])

    def cells(self, setting: dict, seed: int) -> list:
        """The arena's cells one trial plays (two for a gap between player counts; an edge: every
        team with the character, then every team without)."""
        if self.edge is not None:
            with_, without = edge_teams(characters_of(self.game), self.edge, self.players)
            return [self.cell(setting, seed, team) for team in with_ + without]
        if self.player_counts is not None:
            return [c(setting, seed) for c in self.count_cells]
        return [self.cell(setting, seed)] + ([self.other_cell(setting, seed)] if self.other_cell else [])

    def work(self, setting: dict, games: int, seed: int) -> list[tuple]:
        """The (cell, games) items of one trial of `games` games: each cell of ``cells`` plays them
        all; an edge's two sides play `games` each, spread over their teams (a team given none is
        left out)."""
        cells = self.cells(setting, seed)
        if self.edge is None:
            return [(c, games) for c in cells]
        with_, without = edge_teams(characters_of(self.game), self.edge, self.players)
        counts = split_games(games, len(with_)) + split_games(games, len(without))
        return [(c, n) for c, n in zip(cells, counts) if n]

    def label(self, knob: str, v) -> str:
        """A knob's value as a designer reads it (a categorical knob's name, a number as itself)."""
        return str(self.labels[knob][v]) if self.labels and knob in self.labels else str(v)


def problem_multi(game, knob_names: list[str], players, player: str, spies: int = 0,
                  seat: int = 1, outcome: str | None = None, at_most: bool = False,
                  keep: tuple[float, float] | None = None) -> MultiProblem:
    """The game's target problem over several knobs (one-line UserErrors as `problem`, and for a
    knob named twice); `outcome` one of the game's outcomes (``outcome_of``; None: its rate).
    `players` one count, or several (a sequence): then one change for all of them, the game's rate
    at each count (outcome kind "rates": the goal holds at every count)."""
    from policies import canonical_policy, check_player
    g = game_of(game)
    counts = tuple(players) if isinstance(players, (list, tuple)) else (players,)
    if not counts or len(set(counts)) != len(counts):
        raise UserError(f"players {', '.join(map(str, counts)) or '(none)'}: give each player count once")
    for n in counts:
        g.check_players(n)
    players = counts[0]
    player = canonical_policy(player, g.name)
    check_player(player, g.name, "player")
    for n in counts:
        allowed = knobs(g, n)
        for k in knob_names:
            if k not in allowed:
                raise UserError(f"knob {k!r} is not known for {g.title} at {n} players; allowed: {', '.join(allowed)}")
    if len(set(knob_names)) != len(knob_names) or not knob_names:
        raise UserError(f"knobs {', '.join(knob_names) or '(none)'}: give each knob once")
    if len(counts) > 1:
        return _problem_counts(g, list(knob_names), counts, player, spies, seat, outcome, at_most, keep)
    search_outcome, other = outcome_of(g, outcome or ("win" if g.cooperative else "seat-win"), players, at_most)
    edge = str(outcome).strip().partition(":")[2].strip() if str(outcome).strip().startswith("edge:") else None
    if keep is not None:     # the first rate (at --players, or seat --seat's) kept in a range
        lo, hi = keep
        if other is None and edge is None:
            raise UserError("a kept rate is for a gap or edge outcome (gap:Q, seat-gap:J, edge:CHARACTER): it keeps "
                            "the first rate in a range while the gap closes")
        if not 0.0 <= lo < hi <= 1.0:
            raise UserError(f"kept rate {100 * lo:g}-{100 * hi:g}% is not allowed: give 0 <= LOW < HIGH <= 100")
        from dataclasses import replace
        search_outcome = replace(search_outcome, keep=(float(lo), float(hi)))
    defaults, cats = _defaults(g, knob_names, spies)
    cell, success, what = _cells(g, list(knob_names), players, player, spies, seat)
    other_cell = None
    if other is not None and g.cooperative:
        other_cell = _cells(g, list(knob_names), other, player, spies, seat)[0]
        what = (f"the gap between the win rates of {player} play at {players} and at {other} players"
                + ("" if "spies" in knob_names else f", {spies} spies"))
    elif edge is not None:
        what = (f"{edge}'s edge: the win rate of {player} play of teams with {edge} minus teams without (every "
                f"team of {players} equally often), {players} players" + ("" if "spies" in knob_names else f", {spies} spies"))
    elif other is not None:
        k_seat, j_seat = seat, other
        if k_seat == j_seat:
            raise UserError(f"outcome seat-gap:{other}: seat J must differ from --seat {seat}")
        success = (lambda d: (d.get(f"seat{k_seat - 1}_wins", 0), d.get(f"seat{j_seat - 1}_wins", 0)))
        what = (f"the gap between seat {k_seat}'s and seat {j_seat}'s win rates (of all games) in {player} "
                f"self-play, {players} players")
    return MultiProblem(g.name, tuple(knob_names), defaults, players, spies if g.cooperative else None,
                        None if g.cooperative else seat, player, cell, success, what, search_outcome,
                        {k: cats[k] for k in knob_names if k in cats} or None, other_cell, other, edge)


def _defaults(g, knob_names, spies: int) -> tuple[dict, dict]:
    """({knob: its value in the printed game (spies: the setup's)}, the game's categorical knobs)."""
    base = g.default_rules().to_dict()
    cats = categorical_knobs(g)
    return ({k: (0 if k in cats else base[k] if k in base else spies if k == "spies"
                 else PRINTED_LEAVES[int(k[4:-7]) - 1]) for k in knob_names}, cats)


def _problem_counts(g, knob_names: list[str], counts: tuple, player: str, spies: int, seat: int,
                    outcome: str | None, at_most: bool, keep) -> MultiProblem:
    """One change for several player counts: the game's rate at each count, each count's cell on the
    same seed, the goal holding at every count (``Outcome(kind="rates")``)."""
    rate_name = "win" if g.cooperative else "seat-win"
    if outcome is not None and str(outcome).strip() != rate_name:
        raise UserError(f"outcome {outcome!r} is for one player count; with several ({', '.join(map(str, counts))}) "
                        f"the outcome is the rate at each ({rate_name})")
    if keep is not None:
        raise UserError("a kept rate is for a gap or edge outcome at one player count, not for several counts")
    built = [_cells(g, knob_names, n, player, spies, seat) for n in counts]
    defaults, cats = _defaults(g, knob_names, spies)
    at = f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} players"
    what = (f"the win rate of {player} play at {at}, each" if g.cooperative
            else f"seat {seat}'s win rate (of all games) in {player} self-play at {at}, each")
    what += "" if "spies" in knob_names or not g.cooperative else f", {spies} spies"
    return MultiProblem(g.name, tuple(knob_names), defaults, counts[0], spies if g.cooperative else None,
                        None if g.cooperative else seat, player, built[0][0], built[0][1], what,
                        Outcome("rates", goal="at most" if at_most else "at", k=len(counts)),
                        {k: cats[k] for k in knob_names if k in cats} or None,
                        player_counts=counts, count_cells=tuple(b[0] for b in built))


def knob_values(game, knob: str, spec) -> list[int]:
    """A categorical knob's values to search: "all", or names separated by commas (a list in a study
    file), as indices into its values; a one-line UserError naming the allowed values."""
    vals = categorical_knobs(game)[knob]
    names = list(vals) if str(spec).strip() == "all" else (
        [str(v).strip() for v in spec] if isinstance(spec, (list, tuple)) else [v.strip() for v in str(spec).split(",")])
    for v in names:
        if v not in vals:
            raise UserError(f"value {v!r} of {knob} is not known; allowed: all, or some of {', '.join(vals)}")
    if not names or len(set(names)) != len(names):
        raise UserError(f"range {spec!r} for {knob}: give each value once, e.g. {','.join(vals[:2])}, or all")
    return [vals.index(v) for v in names]


def knob_span(game, knob: str, spec, check: bool = True):
    """A knob's search span: (lo, hi) for a whole-number knob ('LO-HI'), or the value indices of a
    categorical one (``knob_values``)."""
    return knob_values(game, knob, spec) if is_categorical(game, knob) else knob_range(game, knob, spec, check)


def check_spans(game, spans: dict) -> None:
    """Several knobs' whole-number rules keys, checked together: each end of each span must be
    allowed with some choice of the other keys' ends (a critical knowledge limit of 8 is allowed
    with a knowledge limit of 9); a one-line UserError naming the end that never is. Settings
    inside the spans that the rules do not allow are skipped by the search (``Infeasible``)."""
    import itertools as it
    g = game_of(game)
    base = g.default_rules().to_dict()
    keys = [k for k in spans if k in base and not is_categorical(g, k)]
    for k in keys:
        for v in spans[k]:
            others = [k2 for k2 in keys if k2 != k]
            errors = []
            for ends in it.product(*(sorted(set(spans[k2])) for k2 in others)):
                try:
                    g.rules_from_mapping({**base, k: v, **dict(zip(others, ends))}, source="range")
                    break
                except UserError as e:
                    errors.append(str(e))
            else:
                raise UserError(f"range {spans[k][0]}-{spans[k][1]}: {k} = {v} is not allowed "
                                f"({errors[-1] if errors else 'by the rules'})")


def knob_range(game, knob: str, spec: str, check: bool = True) -> tuple[int, int]:
    """'LO-HI' (or one number) as whole numbers; a one-line UserError for an empty or bad range.
    `check`: a rules key's ends are checked with the other rules at their defaults (several knobs
    check them together, ``check_spans``)."""
    try:
        lo_s, _, hi_s = str(spec).partition("-")
        lo, hi = int(lo_s), int(hi_s or lo_s)
    except ValueError:
        raise UserError(f"range {spec!r}: give whole numbers LO-HI, e.g. 4-9") from None
    if lo > hi:
        raise UserError(f"range {spec!r} is empty: LO must be at most HI")
    g = game_of(game)
    bounds = SETUP_KNOBS[g.name].get(knob) or (LEAVES_RANGE if knob.endswith("_leaves") else None)
    if bounds is not None and not (bounds[0] <= lo and hi <= bounds[1]):
        raise UserError(f"range {spec!r} for {knob} is not allowed; allowed: within {bounds[0]}-{bounds[1]}")
    if bounds is None and check:   # a rules key: the rules data says which values it takes (checked at the ends)
        base = g.default_rules().to_dict()
        for v in (lo, hi):
            try:
                g.rules_from_mapping({**base, knob: v}, source="range")
            except Exception as e:   # the rules data's own one-line error
                raise UserError(f"range {spec!r}: {knob} = {v} is not allowed ({e})") from None
    return lo, hi


def run_target(pr: Problem, lo: int, hi: int, target: float, budget_games: int, confirm_games: int,
               seed: int, measure: Callable | None = None) -> TargetResult:
    """The search on the problem (whole-number knob values lo..hi); `measure` plays a batch
    (default in-process, ``Problem.measure``; a study passes one through its executor)."""
    return find_target(measure or pr.measure, target, lo, hi, integer=True, budget_games=budget_games,
                       confirm_games=confirm_games, seed=seed, printed=pr.printed)


def result_text(pr: Problem, res: TargetResult, game_title: str) -> str:
    """The answer as a designer reads it: the knob value, its confirmed rate and interval, the
    alternative, the games, and the player that produced them."""
    c = res.confirmed

    def rate(x):
        return f"{100 * x:.1f}%"
    lines = [f"{game_title}: {pr.knob} for {pr.outcome} to reach {rate(res.target)}",
             f"  recommendation: {pr.knob} = {int(res.recommendation)}: {rate(c.rate)} "
             f"(95% CI {rate(c.low)} to {rate(c.high)}; {c.wins:,} of {c.games:,} fresh games)"
             + ("; the target is inside the interval" if c.covers_target else "; the target is outside the interval")]
    if res.alternative is not None:
        a = res.alternative
        lines.append(f"  on the other side: {pr.knob} = {int(a.value)}: {rate(a.rate)} (95% CI {rate(a.low)} to "
                     f"{rate(a.high)}; {a.wins:,} of {a.games:,} fresh games)")
    if res.printed is not None:
        p = res.printed
        lines.append(f"  the printed {pr.knob} = {int(p.value)}: {rate(p.rate)} (95% CI {rate(p.low)} to "
                     f"{rate(p.high)}; {p.wins:,} of {p.games:,} fresh games, the same games)")
        gets = p.covers_target or abs(p.rate - res.target) <= res.tol
        lines.append((f"  answer: keep the printed {pr.knob} = {int(p.value)}: its fresh games already get there "
                      f"(the interval holds the target, or within {100 * res.tol:g} pp)" if gets else
                      f"  answer: keep the printed {pr.knob} = {int(p.value)}: no value searched is closer to the "
                      f"target on the same fresh games") if res.keep_printed else
                     f"  answer: {pr.knob} = {int(res.recommendation)}"
                     + ("" if res.recommendation != p.value else " (the printed value)")
                     + ("" if res.recommendation == p.value else
                        "; the printed value's fresh games miss the target (95% interval without it)"))
    if res.not_monotone:
        lines.append(f"  caution: on the fresh games the outcome does not {'rise' if res.increasing else 'fall'} "
                     f"with {pr.knob} everywhere (by more than 1 pp): the search assumes it does; search the "
                     f"knob as one of several (--at-most, --band or a second --knob), which assumes no order")
    lines.append(f"  the outcome {'rises' if res.increasing else 'falls'} with {pr.knob}; search: "
                 f"{res.search_games:,} games over {len({s.value for s in res.path})} values ({res.stopped}); "
                 f"confirmation: {res.confirm_games:,} games that did not choose the value")
    lines.append(f"  played by {pr.player} (a bot, not people); the other rules at their defaults")
    return "\n".join(lines)


def run_target_multi(pr: MultiProblem, ranges: dict, target: float, budget_games: int, games_per_trial: int,
                     confirm_games: int, seed: int, measure: Callable | None = None,
                     band: tuple[float, float] | None = None) -> MultiTargetResult:
    """The several-knob search on the problem: ranges {knob: (lo, hi)}, every knob's default the
    printed game's (it need not lie in the range: then every setting changes that knob). `band`
    (low, high): aim at its middle, and a setting gets there when its fresh games' rate lies in the
    band (the tolerance is the band's half-width); `target` is then ignored."""
    tol = MULTI_TOL
    if band is not None:
        lo, hi = band
        if not 0.0 <= lo < hi <= 1.0:
            raise UserError(f"band {lo:g}-{hi:g} is not allowed: give 0 <= low < high <= 1")
        target, tol = (lo + hi) / 2, (hi - lo) / 2
        from dataclasses import replace
        pr = replace(pr, search_outcome=replace(pr.search_outcome, goal="band"))
    spec = {k: ((list(r), pr.defaults[k]) if isinstance(r, list) else (r[0], r[1], pr.defaults[k]))
            for k, r in ranges.items()}
    return find_target_multi(measure or pr.measure, target, spec, budget_games=budget_games,
                             games_per_trial=games_per_trial, confirm_games=confirm_games, seed=seed,
                             outcome=pr.search_outcome, tol=tol)


def changes_text(p: ParetoPoint, defaults: dict, label: Callable = lambda k, v: str(v)) -> str:
    """'knowledge_limit 7→8, four_critical end_of_turn→immediate', or 'no change (the printed rules)'."""
    return (", ".join(f"{k} {label(k, defaults[k])}→{label(k, p.setting[k])}" for k in p.changed)
            or "no change (the printed rules)")


def value_text(outcome: Outcome, x: float) -> str:
    """A rate as a percentage, a gap in percentage points."""
    return f"{100 * x:.1f}%" if outcome.kind in ("rate", "rates") else f"{100 * x:.1f} pp"


def goal_text(outcome: Outcome, target: float, tol: float = MULTI_TOL) -> str:
    if outcome.goal == "band":     # its middle is the target, its half-width the tolerance
        return f"to lie in {value_text(outcome, target - tol)}–{value_text(outcome, target + tol)}"
    return ("to be at most " if outcome.goal == "at most" else "to reach ") + value_text(outcome, target)


def result_text_multi(pr: MultiProblem, res: MultiTargetResult, game_title: str) -> str:
    """The several-knob answer: the Pareto set (each point's changes, confirmed rate and interval,
    rules changed), the smallest change that gets there, the diverse alternative, the player."""
    o = res.outcome

    def rate(x):
        return value_text(o, x)

    def point(p: ParetoPoint) -> str:
        c = p.confirmed
        if o.kind == "rate":
            of = f"{c.wins:,} of {c.games:,} fresh games"
        elif o.kind == "rates":
            of = (f"the farthest of {', '.join(rate(k / c.games) for k in c.counts)} at "
                  f"{', '.join(map(str, pr.player_counts or ()))} players, {c.games:,} fresh games each")
        else:
            of = (f"the two win rates {100 * c.counts[0] / c.games:.1f}% and {100 * c.counts[1] / c.games:.1f}% "
                  f"of {c.games:,} fresh games")
        return (f"{changes_text(p, res.defaults, pr.label)}: {rate(c.rate)} (95% CI {rate(c.low)} to {rate(c.high)}; "
                f"{of}); {p.n_changed} rule{'s' if p.n_changed != 1 else ''} changed")
    who = f"played by {pr.player} (a bot, not people)"
    kept = "" if o.keep is None else f", keeping the first rate in {100 * o.keep[0]:g}-{100 * o.keep[1]:g}%"
    lines = [f"{game_title}: {', '.join(pr.knobs)} for {pr.outcome} {goal_text(o, res.target, res.tol)}{kept}",
             f"  Pareto set (distance to the target against rules changed; rates from fresh games, {who}):"]
    lines += [f"    {point(p)}" for p in res.pareto]
    if res.smallest is not None:
        lines.append(f"  the smallest change that gets there: {point(res.smallest)}, {who}")
    lines.append(f"  rule: {res.rule}")
    if res.alternative is not None:
        lines.append(f"  a different change: {point(res.alternative)}, {who}")
    lines.append(f"  search: {res.search_games:,} games in {len(res.trials)} trials of {res.games_per_trial:,} "
                 f"(Optuna TPE, or every setting when they fit) over {len({tuple(t.setting.values()) for t in res.trials})} "
                 f"settings; confirmation: {res.confirm_games:,} games that chose nothing; {who}; "
                 f"the other rules at their defaults")
    return "\n".join(lines)
