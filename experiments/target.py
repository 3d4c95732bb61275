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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from simcore.errors import UserError
from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW, game as game_of

from .target_search import MultiTargetResult, ParetoPoint, TargetResult, find_target, find_target_multi

SETUP_KNOBS = {BW.name: {"spies": (0, 5)}, BV.name: {}}
LEAVES_RANGE = (0, 9)        # a seat's starting leaves as a knob (the printed handicap is 1, 3, 4, 5)
PRINTED_LEAVES = (1, 3, 4, 5)


def rules_knobs(game) -> dict:
    """{key: default} of the game's whole-number rules keys."""
    d = game_of(game).default_rules().to_dict()
    return {k: v for k, v in d.items() if isinstance(v, int) and not isinstance(v, bool)}


def knobs(game, players: int) -> list[str]:
    """Every knob of the game at this player count."""
    g = game_of(game)
    out = list(rules_knobs(g)) + list(SETUP_KNOBS[g.name])
    if not g.cooperative:
        out += [f"seat{k}_leaves" for k in range(1, players + 1)]
    return out


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
    cell, success, what = _cells(g, [knob], players, player, spies, seat)
    return Problem(g.name, knob, players, spies if g.cooperative else None, None if g.cooperative else seat,
                   player, lambda x, seed: cell({knob: x}, seed), success, what)


def _cells(g, knob_names: list[str], players: int, player: str, spies: int, seat: int):
    """(cell(setting, seed), success, outcome words) for a setting {knob: value} of several knobs:
    rules keys merged into one rules mapping (None when none is set), setup knobs applied to the
    setup, every other knob at its default."""
    from arena.units import Cell
    base = g.default_rules().to_dict()

    def rules_of(setting: dict):
        keys = {k: v for k, v in setting.items() if k in base}
        if not keys:
            return None
        return g.rules_from_mapping({**base, **keys}, source=", ".join(f"{k}={v}" for k, v in keys.items()))

    if g.cooperative:
        if not 0 <= spies <= 5:
            raise UserError(f"spies {spies} is not allowed; allowed: 0 to 5")

        def cell(setting: dict, seed: int):
            return Cell(g.name, players, spies=setting.get("spies", spies), policies=(player,),
                        rules=rules_of(setting), seed=seed)

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
    """A target problem with several knobs at once: their defaults, the outcome, the player."""
    game: str
    knobs: tuple[str, ...]
    defaults: dict           # {knob: its value in the printed game (Bethel Woods spies: the --spies setup)}
    players: int
    spies: int | None
    seat: int | None
    player: str
    cell: Callable           # (setting {knob: value}, seed) -> the arena's cell
    success: Callable
    outcome: str

    def measure(self, setting: dict, games: int, seed: int) -> int:
        """The outcome's successes in games 0..games-1 of the cell at this setting (in-process)."""
        from arena.units import as_dict, run_unit
        return int(self.success(as_dict(self.game, run_unit(self.cell(setting, seed), 0, games))))


def problem_multi(game, knob_names: list[str], players: int, player: str, spies: int = 0,
                  seat: int = 1) -> MultiProblem:
    """The game's target problem over several knobs (one-line UserErrors as `problem`, and for a
    knob named twice)."""
    from policies import canonical_policy, check_player
    g = game_of(game)
    g.check_players(players)
    player = canonical_policy(player, g.name)
    check_player(player, g.name, "player")
    allowed = knobs(g, players)
    for k in knob_names:
        if k not in allowed:
            raise UserError(f"knob {k!r} is not known for {g.title} at {players} players; allowed: {', '.join(allowed)}")
    if len(set(knob_names)) != len(knob_names) or not knob_names:
        raise UserError(f"knobs {', '.join(knob_names) or '(none)'}: give each knob once")
    base = g.default_rules().to_dict()
    defaults = {k: (base[k] if k in base else spies if k == "spies" else PRINTED_LEAVES[int(k[4:-7]) - 1])
                for k in knob_names}
    cell, success, what = _cells(g, list(knob_names), players, player, spies, seat)
    return MultiProblem(g.name, tuple(knob_names), defaults, players, spies if g.cooperative else None,
                        None if g.cooperative else seat, player, cell, success, what)


def knob_range(game, knob: str, spec: str) -> tuple[int, int]:
    """'LO-HI' (or one number) as whole numbers; a one-line UserError for an empty or bad range."""
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
    if bounds is None:   # a rules key: the rules data says which values it takes (checked at the ends)
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
                       confirm_games=confirm_games, seed=seed)


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
    lines.append(f"  the outcome {'rises' if res.increasing else 'falls'} with {pr.knob}; search: "
                 f"{res.search_games:,} games over {len({s.value for s in res.path})} values ({res.stopped}); "
                 f"confirmation: {res.confirm_games:,} games that did not choose the value")
    lines.append(f"  played by {pr.player} (a bot, not people); the other rules at their defaults")
    return "\n".join(lines)


def run_target_multi(pr: MultiProblem, ranges: dict, target: float, budget_games: int, games_per_trial: int,
                     confirm_games: int, seed: int, measure: Callable | None = None) -> MultiTargetResult:
    """The several-knob search on the problem: ranges {knob: (lo, hi)}, every knob's default the
    printed game's (it need not lie in the range: then every setting changes that knob)."""
    spec = {k: (lo, hi, pr.defaults[k]) for k, (lo, hi) in ranges.items()}
    return find_target_multi(measure or pr.measure, target, spec, budget_games=budget_games,
                             games_per_trial=games_per_trial, confirm_games=confirm_games, seed=seed)


def changes_text(p: ParetoPoint, defaults: dict) -> str:
    """'knowledge_limit 7→8, malfunctions_per_turn 3→2', or 'no change (the printed rules)'."""
    return ", ".join(f"{k} {defaults[k]}→{p.setting[k]}" for k in p.changed) or "no change (the printed rules)"


def result_text_multi(pr: MultiProblem, res: MultiTargetResult, game_title: str) -> str:
    """The several-knob answer: the Pareto set (each point's changes, confirmed rate and interval,
    rules changed), the smallest change that gets there, the diverse alternative, the player."""
    def rate(x):
        return f"{100 * x:.1f}%"

    def point(p: ParetoPoint) -> str:
        c = p.confirmed
        return (f"{changes_text(p, res.defaults)}: {rate(c.rate)} (95% CI {rate(c.low)} to {rate(c.high)}; "
                f"{c.wins:,} of {c.games:,} fresh games); {p.n_changed} rule{'s' if p.n_changed != 1 else ''} changed")
    who = f"played by {pr.player} (a bot, not people)"
    lines = [f"{game_title}: {', '.join(pr.knobs)} for {pr.outcome} to reach {rate(res.target)}",
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
