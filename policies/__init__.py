"""Policies: who chooses among the legal actions.

Every policy is compiled and sits behind one plug point per game, dispatched by a small integer
id (passing a jitted function as an argument would defeat numba's on-disk cache in every new
process):

    decide(policy_id, s, p, theta, net, seat, acts, n, key, ws) -> action   (one of acts[:n])
    reset(policy_id, theta, seat, ws)                                        at the start of every game

``s`` is the position (it holds only what the players know), ``p`` the rules data, ``theta`` the
policy's float64 parameter vector, ``net`` the seat's network (a float64 array of its own, read
by the learned and expert players only; ``seat_nets``), ``seat`` the deciding seat, ``acts[:n]`` the legal actions in
ascending order, ``key`` a fresh key for this one decision (number d of the seat's policy
stream, so a policy that draws many numbers shifts nothing else), ``ws`` the seat's int32 scratch
memory. No policy ever receives the game's chance key.

``policies.bethel_woods.decide`` and ``policies.benevolent.decide`` hold each game's table of
policies and its dispatchers, made from one template (``policies/plug.py``); this module holds
the names, and ``modules(game)`` (policies/registry.py) hands out a game's player
modules (its heuristic, learned and expert players) without a module name made from a string. Bethel Woods: random, heuristic (plans each turn whole), search (flat
Monte Carlo over the heuristic's best turn plans), clairvoyant (the search handed the chance key:
a measuring stick, not a player; the one exception to "no policy receives the chance key", made
explicitly by the arena), tuned (the heuristic with the weights `boardsim tune` installed in
policies/bethel_woods/tuned.json; a one-line error while none is installed);
Benevolent: random, heuristic (searches each turn whole), search (flat Monte Carlo over the
heuristic's best turn plans), tuned (the heuristic with the weights `boardsim tune benevolent`
installed in policies/benevolent/tuned.json; a one-line error while none is installed).
"""
import pathlib

from simcore.benevolent import GAME as _BV
from simcore.bethel_woods import GAME as _BW
from simcore.errors import UserError
from simcore.games import game as _game
from simcore.numbacache import use_cache_for

# the policies call the engines: their compiled code is cached under a key of both (simcore/numbacache.py)
use_cache_for(pathlib.Path(__file__).resolve().parent)

from .random import random_action  # noqa: E402,F401
# each game's player modules (heuristic, learned, expert) by explicit imports: policies/registry.py
from .registry import modules  # noqa: E402

GAMES = (_BW.name, _BV.name)
# the policies of each game (by the game object's name), by id (the id is the index); the
# dispatchers (policies/<game>/decide.py) take their ids from here
POLICIES = {
    _BW.name: ("random", "heuristic", "search", "clairvoyant", "tuned", "learned", "expert"),
    _BV.name: ("random", "heuristic", "search", "tuned", "learned", "expert"),
}
RANDOM = 0
# policies that are not players (they see what players cannot): tables label them
NOT_PLAYERS = {_BW.name: ("clairvoyant",), _BV.name: ()}
# the policies that are players: what the studies (difficulty, seats, variants, sensitivity) play
PLAYERS = {g: tuple(p for p in POLICIES[g] if p not in NOT_PLAYERS[g]) for g in POLICIES}
# the study player of each game: what a study plays when it names no policy, and the report's
# player (strong and fast: the learned value over the heuristic's best plans, docs/policies.md)
STUDY_PLAYER = {_BW.name: "learned", _BV.name: "learned"}
# the best honest player of each game (slow: seconds a game at most): what a study's headline is
# measured again with, to say whether it holds for stronger play
BEST_PLAYER = {_BW.name: "expert", _BV.name: "expert"}


# the skill dial (docs/studies.md, "The skill dial"): the player it turns, and the dial's vector
DIAL_PLAYER = "learned"


def dial_theta(game, temperature: float):
    """The parameter vector of the learned player with the skill dial at `temperature` (0: the
    learned player itself; larger: plans drawn by a softmax over their values, weaker play), as a
    tuple for ``arena.units.Cell(theta=...)``."""
    f = modules(game).learned.dial_theta
    return tuple(float(x) for x in f(float(temperature)))


def dial_temperature(game, theta) -> float | None:
    """The skill dial's temperature of a learned player's vector (``dial_theta``), or None when
    the vector is not the learned player's own at some temperature (then it is someone else's
    vector). The network is not in the vector: a dial rung plays the cell's ``net``."""
    T_TEMP = modules(game).learned.T_TEMP
    if theta is None or len(theta) <= T_TEMP:
        return None
    t = float(theta[T_TEMP])
    return t if tuple(float(x) for x in theta) == dial_theta(game, t) else None


def parse_rung(name: str, game) -> tuple[str, float | None]:
    """A skill study's rung: a player's name, or ``learned@T`` (the learned player with the skill
    dial at temperature T >= 0). Returns (policy, temperature or None); UserError naming the
    allowed forms."""
    text = str(name).strip()
    if "@" not in text:
        return canonical_policy(text, game), None
    pol, _, t = text.partition("@")
    pol = canonical_policy(pol, game)
    try:
        temp = float(t)
    except ValueError:
        temp = float("nan")
    if pol != DIAL_PLAYER or not temp >= 0 or temp == float("inf"):
        raise UserError(f"rung {text!r}: the skill dial is written {DIAL_PLAYER}@T with T a number >= 0 "
                        f"(e.g. {DIAL_PLAYER}@0.03); other rungs are players: {', '.join(PLAYERS[_game(game).name])}")
    return pol, temp


def check_player(name: str, game, where: str = "policy", game_name: str = "") -> None:
    """UserError unless `name` is a known policy that is a player (a study measures players; the
    clairvoyant bound sees the coming draws, so it is a row of the ladder, not a study's player).
    `game`: a game object or its name, as in every function here."""
    game = _game(game).name
    if name in NOT_PLAYERS[game]:
        raise UserError(f"{where} {name!r} is an upper bound that sees the coming draws, not a player; "
                        f"a study plays players; allowed: {', '.join(PLAYERS[game])}")
    if name not in POLICIES[game]:
        raise UserError(f"{where} {name!r} is not known{' for ' + game_name if game_name else ''}; "
                        f"allowed: {', '.join(PLAYERS[game])}")


def policy_id(name: str, game) -> int:
    """The id of a policy by name; UserError naming the known ones."""
    game = _game(game).name
    known = POLICIES[game]
    if name not in known:
        raise UserError(f"unknown policy {name!r}; allowed: {', '.join(known)}")
    return known.index(name)


def canonical_policy(name: str, game) -> str:
    """A policy name as typed on the command line, in any case (``Search``), as the known name;
    a name that is not known comes back as typed, for ``policy_id``'s error to name."""
    game = _game(game).name
    t = str(name).strip()
    for known in POLICIES[game]:
        if t.lower() == known:
            return known
    return t
