"""Bethel Woods: the Python face of the compiled engine.

``Game`` wraps one position (the int32 array of engine.py) with readable action names, a checked
``apply`` and the JSON position format (``to_dict``/``from_dict``) documented in
docs/bethel_woods.md. The reference engine produces positions in the same format, which is what
the differential tests compare.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..rng import STREAM_CHANCE, stream_key
from . import engine as E
from .actions import (
    ACTION_NAMES, N_ACTIONS, OUTCOMES, PH_CHANCE_MALF, PH_CHANCE_SPY, PH_PAY, PHASES, action_from_name,
    chance_name, kind_name,
)
from .rules import (
    CHARACTERS, CRITICAL_EFFECTS, DEFAULT_CRITICAL_ABOVE, MAX_PLAYERS, MAX_SPIES_AT_SETUP, MIN_PLAYERS, N_KINDS,
    N_MACHINES, N_SPIES, TYPES, WORKERS, Rules,
)

CONTINUATIONS = ("enter", "uncover", "harris", "junas_give", "junas_discard", "linny", "violet", "rone",
                 "return", "discard_round")
ROUND_THEN = ("begin_placement", "continue_placement", "next_turn")
TILE_REVEAL_THEN = ("placement", "spy")   # engine.T_PLACEMENT, engine.T_SPY


def canonical_characters(names):
    """The names as the rulebook spells them, matched without regard to case ('harris' is
    Harris); a name that is no character is left as it was typed (for the error that names it)."""
    canon = {c.lower(): c for c in CHARACTERS}
    return [canon.get(str(n).strip().lower(), n) for n in names]


def parse_characters(spec, n_players):
    """'Nova,Harris,Fenn' -> character indices; None -> None (dealt at random per game). Names
    are matched without regard to case (``canonical_characters``)."""
    if spec is None:
        return None
    typed = [str(x).strip() for x in (spec.split(",") if isinstance(spec, str) else spec)]
    if "" in typed:   # 'Fenn,Fare,' or 'Fenn,,Fare': a name left out, not a name to ignore
        shown = spec if isinstance(spec, str) else ",".join(map(str, spec))
        raise UserError(f"--characters {shown!r} has an empty name; give {n_players} names "
                        f"separated by commas, from: {', '.join(CHARACTERS)}")
    names = canonical_characters(typed)
    for t, n in zip(typed, names):
        if n not in CHARACTERS:
            raise UserError(f"unknown character {t!r}; allowed: {', '.join(CHARACTERS)}")
    if len(names) != n_players:
        raise UserError(f"--characters names {len(names)} characters for {n_players} players; give exactly {n_players}")
    if len(set(names)) != len(names):
        raise UserError(f"--characters {','.join(names)}: each character can be dealt only once")
    return [CHARACTERS.index(n) for n in names]


def check_setup_args(n_players, n_spies):
    if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise UserError(f"players {n_players} is not allowed; Bethel Woods takes {MIN_PLAYERS} to {MAX_PLAYERS}")
    if not 0 <= n_spies <= MAX_SPIES_AT_SETUP:
        raise UserError(f"spies {n_spies} is not allowed; choose 0 to {MAX_SPIES_AT_SETUP} spies added at setup")


def setup_config(players, spies, chars=None):
    """The engine's cfg array (engine.CFG_*): players, spies, characters by seat (-1: dealt)."""
    cfg = np.full(E.CFG_SIZE, -1, dtype=np.int64)
    cfg[E.CFG_PLAYERS] = players
    cfg[E.CFG_SPIES] = spies
    if chars is not None:
        cfg[E.CFG_CHARS: E.CFG_CHARS + len(chars)] = chars
    return cfg


def _counts(arr):
    return {kind_name(k): int(arr[k]) for k in range(N_KINDS) if arr[k]}


def _uncounts(d, out):
    out[:] = 0
    names = [kind_name(k) for k in range(N_KINDS)]
    for name, n in d.items():
        out[names.index(name)] = n


def _opt(x, f=lambda v: v):
    return None if x < 0 else f(x)


def to_dict(s) -> dict:
    """The position as plain JSON data. The state holds only what the players know, so this is
    the players' view: a tile nobody has seen is None, the spy stack is a count of unseen spies
    above the known list of uncovered ones."""
    s = np.asarray(s)
    n = int(s[E.NP])
    pay = None
    if s[E.PHASE] == PH_PAY:
        pay = {
            "payer": int(s[E.PAYER]),
            "need": {TYPES[t]: int(s[E.NEED + t]) for t in range(4)},
            "any": int(s[E.ANY_N]),
            "substitute": bool(s[E.SUB]),
            "to": _opt(int(s[E.DEST])),
            "paid": {TYPES[t]: int(s[E.PAID + t]) for t in range(4)},
            "paid_count": int(s[E.PAID_N]),
            "then": CONTINUATIONS[s[E.CONT]],
        }
    rnd = None
    if s[E.LIM_RET] >= 0:
        rnd = {"limit": int(s[E.LIM_L]), "seats_checked": int(s[E.LIM_IDX]), "then": ROUND_THEN[s[E.LIM_RET]]}
    return {
        "game": "bethel_woods",
        "players": n,
        "characters": [CHARACTERS[s[E.CHAR + q]] for q in range(n)],
        "first_player": int(s[E.FIRST]),
        "current_player": int(s[E.CUR]),
        "turn": int(s[E.TURN]),
        "phase": PHASES[s[E.PHASE]],
        "outcome": OUTCOMES[s[E.OUTCOME]],
        "machines": [
            {
                "machine": m + 1,
                "workers": {WORKERS[t]: int(s[E.WORK + 4 * m + t]) for t in range(4)},
                "malfunctions": _counts(s[E.BOARD + 24 * m: E.BOARD + 24 * m + 24]),
                "spy": bool(s[E.SPY + m]),
                "critical_tile": _opt(int(s[E.TILE + m]), lambda e: CRITICAL_EFFECTS[e]),
                "critical_face_up": bool(E.malfunctions_at(s, m) + s[E.SPY + m] > DEFAULT_CRITICAL_ABOVE),
            }
            for m in range(6)
        ],
        "orphanage": [_opt(int(s[E.ORPH + i]), lambda t: WORKERS[t]) for i in range(6)],
        "daydreamer_built": int(E.orphanage_count(s)),
        "bag": _counts(s[E.BAG: E.BAG + 24]),
        "discard": _counts(s[E.DISCARD: E.DISCARD + 24]),
        "knowledge": [_counts(s[E.KNOW + 24 * q: E.KNOW + 24 * q + 24]) for q in range(n)],
        "spy_stack": {"unseen": int(s[E.UNSEEN]),
                      "returned": [int(s[E.STACK + i]) + 1 for i in range(int(s[E.STACK_N]))],
                      "revealed_after_setup": int(s[E.SPIES_REVEALED])},
        "turn_state": {
            "hand": {WORKERS[t]: int(s[E.HAND + t]) for t in range(4)},
            "position": _opt(int(s[E.POS]), lambda m: m + 1),
            "direction": {1: "clockwise", -1: "anticlockwise", 0: None}[int(s[E.DIR])],
            "last_type": _opt(int(s[E.LAST_T]), lambda t: TYPES[t]),
            "fixes_left": int(s[E.FIX_LEFT]),
            "last_machine": _opt(int(s[E.LASTM]), lambda m: m + 1),
            "spy_uncovered": bool(s[E.UNCOVERED]),
            "ability_used": bool(s[E.ABIL_USED]),
            "violet_reduction": int(s[E.VIOLET_RED]),
            "rone_protects": _opt(int(s[E.RONE_M]), lambda m: m + 1),
            "window": _opt(int(s[E.WINDOW]), lambda ph: PHASES[ph]),
            "drops": int(s[E.DROPS]),
        },
        "payment": pay,
        "ability_args": [int(s[E.CARG]), int(s[E.CARG2])],
        "discard_round": rnd,
        "placement": {"left": int(s[E.PLACE_LEFT]), "extra_added": bool(s[E.EXTRA_DONE]),
                      "went_critical": bool(s[E.WENT_CRIT]),
                      "tile_reveal": None if s[E.REVEAL_M] < 0 else {"machine": int(s[E.REVEAL_M]) + 1,
                                                                    "then": TILE_REVEAL_THEN[s[E.REVEAL_THEN]]}},
        "stats": {"malfunctions_fixed": int(s[E.ST_FIXED]), "spies_uncovered": int(s[E.ST_UNCOV]),
                  "decisions": int(s[E.ST_DECISIONS])},
    }


def from_dict(d: dict) -> np.ndarray:
    """The engine array of a position in the format of ``to_dict``."""
    try:
        return _from_dict(d)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise UserError(f"not a Bethel Woods position: {type(e).__name__} {e}") from None


def _from_dict(d):
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    n = d["players"]
    s[E.NP] = n
    s[E.CHAR: E.CHAR + 4] = -1
    for q, c in enumerate(d["characters"]):
        s[E.CHAR + q] = CHARACTERS.index(c)
    s[E.FIRST] = d["first_player"]
    s[E.CUR] = d["current_player"]
    s[E.TURN] = d["turn"]
    s[E.PHASE] = PHASES.index(d["phase"])
    s[E.OUTCOME] = OUTCOMES.index(d["outcome"])
    for m, md in enumerate(d["machines"]):
        for t in range(4):
            s[E.WORK + 4 * m + t] = md["workers"][WORKERS[t]]
        _uncounts(md["malfunctions"], s[E.BOARD + 24 * m: E.BOARD + 24 * m + 24])
        s[E.SPY + m] = int(md["spy"])
        s[E.TILE + m] = -1 if md["critical_tile"] is None else CRITICAL_EFFECTS.index(md["critical_tile"])
    for i, w in enumerate(d["orphanage"]):
        s[E.ORPH + i] = -1 if w is None else WORKERS.index(w)
    _uncounts(d["bag"], s[E.BAG: E.BAG + 24])
    _uncounts(d["discard"], s[E.DISCARD: E.DISCARD + 24])
    for q, kd in enumerate(d["knowledge"]):
        _uncounts(kd, s[E.KNOW + 24 * q: E.KNOW + 24 * q + 24])
    st = d["spy_stack"]
    s[E.STACK: E.STACK + N_SPIES] = -1
    for i, m in enumerate(st["returned"]):
        s[E.STACK + i] = m - 1
    s[E.STACK_N] = len(st["returned"])
    s[E.UNSEEN] = st["unseen"]
    s[E.SPIES_REVEALED] = st["revealed_after_setup"]
    ts = d["turn_state"]
    for t in range(4):
        s[E.HAND + t] = ts["hand"][WORKERS[t]]
    s[E.POS] = -1 if ts["position"] is None else ts["position"] - 1
    s[E.DIR] = {"clockwise": 1, "anticlockwise": -1, None: 0}[ts["direction"]]
    s[E.LAST_T] = -1 if ts["last_type"] is None else TYPES.index(ts["last_type"])
    s[E.FIX_LEFT] = ts["fixes_left"]
    s[E.LASTM] = -1 if ts["last_machine"] is None else ts["last_machine"] - 1
    s[E.UNCOVERED] = int(ts["spy_uncovered"])
    s[E.ABIL_USED] = int(ts["ability_used"])
    s[E.VIOLET_RED] = ts["violet_reduction"]
    s[E.RONE_M] = -1 if ts["rone_protects"] is None else ts["rone_protects"] - 1
    s[E.WINDOW] = -1 if ts["window"] is None else PHASES.index(ts["window"])
    s[E.DROPS] = ts.get("drops", 0)
    pay = d["payment"]
    s[E.PAYER], s[E.DEST], s[E.CONT] = -1, -1, -1
    if pay is not None:
        s[E.PAYER] = pay["payer"]
        for t in range(4):
            s[E.NEED + t] = pay["need"][TYPES[t]]
            s[E.PAID + t] = pay["paid"][TYPES[t]]
        s[E.ANY_N] = pay["any"]
        s[E.SUB] = int(pay["substitute"])
        s[E.DEST] = -1 if pay["to"] is None else pay["to"]
        s[E.PAID_N] = pay["paid_count"]
        s[E.CONT] = CONTINUATIONS.index(pay["then"])
    s[E.CARG], s[E.CARG2] = d["ability_args"]
    rnd = d["discard_round"]
    s[E.LIM_RET] = -1
    if rnd is not None:
        s[E.LIM_L] = rnd["limit"]
        s[E.LIM_IDX] = rnd["seats_checked"]
        s[E.LIM_RET] = ROUND_THEN.index(rnd["then"])
    pl = d["placement"]
    s[E.PLACE_LEFT] = pl["left"]
    s[E.EXTRA_DONE] = int(pl["extra_added"])
    s[E.WENT_CRIT] = int(pl["went_critical"])
    rv = pl["tile_reveal"]
    s[E.REVEAL_M] = -1 if rv is None else rv["machine"] - 1
    s[E.REVEAL_THEN] = -1 if rv is None else TILE_REVEAL_THEN.index(rv["then"])
    st = d["stats"]
    s[E.ST_FIXED] = st["malfunctions_fixed"]
    s[E.ST_UNCOV] = st["spies_uncovered"]
    s[E.ST_DECISIONS] = st["decisions"]
    known = [int(e) for e in s[E.TILE:E.TILE + N_MACHINES] if e >= 0]
    if len(set(known)) != len(known):
        raise ValueError("a critical effect is shown by two tiles")
    for m in range(N_MACHINES):
        crit = sum(d["machines"][m]["malfunctions"].values()) + d["machines"][m]["spy"] > DEFAULT_CRITICAL_ABOVE
        if crit and s[E.TILE + m] < 0 and s[E.REVEAL_M] != m:
            raise ValueError(f"Machine {m + 1} is critical, so its tile is face up and must be named")
    on_board = int(s[E.SPY:E.SPY + N_SPIES].sum())
    if on_board + s[E.UNSEEN] + s[E.STACK_N] != N_SPIES:
        raise ValueError("the spies on the board, unseen and returned must add up to 6")
    E.recount(s)
    return s


class Game:
    """One Bethel Woods game driven from Python (tests, traces, the CLI's play command).

    Chance events are drawn from the run's chance stream, or supplied with ``apply_chance``."""

    def __init__(self, players=3, spies=0, characters=None, seed=0, game_index=0, rules: Rules | None = None):
        check_setup_args(players, spies)
        if characters is not None and not isinstance(characters, str) and all(isinstance(c, int) for c in characters):
            chars = parse_characters([CHARACTERS[c] for c in characters], players)
        else:
            chars = parse_characters(characters, players)
        self.rules = rules or Rules()
        self.params = self.rules.params
        self.key = np.uint64(stream_key(seed, game_index, STREAM_CHANCE))
        self.state = np.zeros(E.S_SIZE, dtype=np.int32)
        E.setup(self.state, self.params, setup_config(players, spies, chars), self.key)
        self._mask = np.zeros(N_ACTIONS, dtype=np.bool_)

    @classmethod
    def from_position(cls, d, rules: Rules | None = None, seed=0, game_index=0):
        g = cls.__new__(cls)
        g.rules = rules or Rules()
        g.params = g.rules.params
        g.key = np.uint64(stream_key(seed, game_index, STREAM_CHANCE))
        g.state = from_dict(d)
        g._mask = np.zeros(N_ACTIONS, dtype=np.bool_)
        return g

    # queries
    @property
    def phase(self):
        return PHASES[self.state[E.PHASE]]

    @property
    def outcome(self):
        return OUTCOMES[self.state[E.OUTCOME]]

    def is_terminal(self):
        return bool(E.is_terminal(self.state))

    def is_chance(self):
        return bool(E.is_chance(self.state))

    def current_player(self):
        """The deciding seat, or engine PLAYER_CHANCE / PLAYER_TERMINAL."""
        return int(E.current_player(self.state))

    def legal_actions(self):
        E.legal_mask(self.state, self.params, self._mask)
        return [int(a) for a in np.flatnonzero(self._mask)]

    def legal_action_names(self):
        return [ACTION_NAMES[a] for a in self.legal_actions()]

    def to_dict(self):
        return to_dict(self.state)

    # steps
    def apply(self, action):
        """Apply a decision given by number or name; an illegal one raises ValueError naming it and
        leaves the position unchanged."""
        a = action_from_name(action) if isinstance(action, str) else int(action)
        if self.is_terminal() or self.is_chance():
            raise UserError(f"action {ACTION_NAMES[a] if 0 <= a < N_ACTIONS else a!r} is illegal: "
                             f"the game is at a {self.phase} step")
        if not 0 <= a < N_ACTIONS or not self.legal_actions().count(a):
            name = ACTION_NAMES[a] if 0 <= a < N_ACTIONS else str(a)
            raise UserError(f"action {name!r} ({a}) is illegal here; legal: {', '.join(self.legal_action_names())}")
        E.apply(self.state, self.params, a)
        return a

    def chance_probabilities(self):
        out = np.zeros(N_KINDS, dtype=np.float64)
        E.chance_probabilities(self.state, self.params, out)
        return out

    def sample_chance(self):
        """The outcome of the pending chance event drawn from this game's chance key (keyed by
        event: the same whatever happened before, given the same position)."""
        return int(E.chance_outcome(self.state, self.params, self.key))

    def apply_chance(self, outcome=None):
        """Resolve the pending chance event with the given outcome, or one drawn from the stream."""
        if not self.is_chance():
            raise UserError(f"no chance event is pending (phase {self.phase})")
        if outcome is None:
            outcome = self.sample_chance()
        if self.chance_probabilities()[outcome] <= 0:
            raise UserError(f"chance outcome {outcome} is impossible here")
        name = chance_name(self.state[E.PHASE], outcome)
        E.apply_chance(self.state, self.params, outcome)
        return outcome, name


__all__ = ["Game", "to_dict", "from_dict", "canonical_characters", "parse_characters", "check_setup_args", "setup_config",
           "PH_CHANCE_MALF", "PH_CHANCE_SPY"]
