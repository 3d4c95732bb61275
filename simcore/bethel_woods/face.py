"""Bethel Woods: the Python face of the compiled engine.

``State`` wraps one position (the int32 array of engine.py) with readable action names, a checked
``apply`` and the JSON position format (``to_dict``/``from_dict``) documented in
docs/bethel_woods.md. The reference engine produces positions in the same format, which is what
the differential tests compare.
"""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..rng import STREAM_CHANCE, stream_key
from . import engine as E
from ..layout import Const, Derived, Index, Missing, Rows, When, read, shower
from .actions import (
    ACTION_NAMES, N_ACTIONS, OUTCOMES, PH_CHANCE_MALF, PH_CHANCE_SPY, PH_PAY, PHASES, action_from_name,
    chance_name,
)
from .engine import CONTINUATIONS, ROUND_THEN, TILE_REVEAL_THEN  # noqa: F401 (the names, where they were)
from .rules import (
    CHARACTERS, DEFAULT_CRITICAL_ABOVE, MAX_PLAYERS, MAX_SPIES_AT_SETUP, N_KINDS, N_MACHINES,  # noqa: F401 (MAX_PLAYERS: read here by the game object)
    N_SECTIONS, N_SPIES, Rules,
)

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
    from . import GAME   # the package's game object (defined before any of its modules is used)
    GAME.check_players(n_players)
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


def _critical_face_up(s, m):
    return bool(E.malfunctions_at(s, m) + s[E.SPY + m] > DEFAULT_CRITICAL_ABOVE)


# The JSON position: keys in order and nesting; a string names a field of engine.STATE, shown and
# read back by the table's decode column (layout.show / layout.read). What is not a field of its own
# is an explicit rule here: the machine numbers, the two values computed from the position, and
# when the payment, the discard round and the tile reveal are shown (null otherwise).
POSITION = {
    "game": Const("bethel_woods"),
    "players": "NP",
    "characters": Rows("NP", "CHAR"),
    "first_player": "FIRST",
    "current_player": "CUR",
    "turn": "TURN",
    "phase": "PHASE",
    "outcome": "OUTCOME",
    "machines": Rows(N_MACHINES, {
        "machine": Index(add=1),
        "workers": "WORK",
        "malfunctions": "BOARD",
        "spy": "SPY",
        "critical_tile": "TILE",
        "critical_face_up": Derived(_critical_face_up),
    }),
    "orphanage": Rows(N_SECTIONS, "ORPH"),
    "daydreamer_built": Derived(lambda s, _: int(E.orphanage_count(s))),
    "bag": "BAG",
    "discard": "DISCARD",
    "knowledge": Rows("NP", "KNOW"),
    "spy_stack": {"unseen": "UNSEEN", "returned": Rows("STACK_N", "STACK", counted=True),
                  "revealed_after_setup": "SPIES_REVEALED"},
    "turn_state": {
        "hand": "HAND",
        "position": "POS",
        "direction": "DIR",
        "last_type": "LAST_T",
        "fixes_left": "FIX_LEFT",
        "last_machine": "LASTM",
        "spy_uncovered": "UNCOVERED",
        "ability_used": "ABIL_USED",
        "violet_reduction": "VIOLET_RED",
        "rone_protects": "RONE_M",
        "window": "WINDOW",
        "drops": Missing("DROPS"),      # positions written before the switch long_group have none
    },
    "payment": When(lambda s: s[E.PHASE] == PH_PAY, {
        "payer": "PAYER", "need": "NEED", "any": "ANY_N", "substitute": "SUB", "to": "DEST", "paid": "PAID",
        "paid_count": "PAID_N", "then": "CONT",
    }),
    "ability_args": ["CARG", "CARG2"],
    "discard_round": When(lambda s: s[E.LIM_RET] >= 0,
                          {"limit": "LIM_L", "seats_checked": "LIM_IDX", "then": "LIM_RET"}),
    "placement": {"left": "PLACE_LEFT", "extra_added": "EXTRA_DONE", "went_critical": "WENT_CRIT",
                  "tile_reveal": When(lambda s: s[E.REVEAL_M] >= 0, {"machine": "REVEAL_M", "then": "REVEAL_THEN"})},
    "stats": {"malfunctions_fixed": "ST_FIXED", "spies_uncovered": "ST_UNCOV", "decisions": "ST_DECISIONS"},
}

_show = shower(E.STATE, POSITION)


def to_dict(s) -> dict:
    """The position as plain JSON data. The state holds only what the players know, so this is
    the players' view: a tile nobody has seen is None, the spy stack is a count of unseen spies
    above the known list of uncovered ones."""
    return _show(np.asarray(s))


def from_dict(d: dict) -> np.ndarray:
    """The engine array of a position in the format of ``to_dict``."""
    try:
        return _from_dict(d)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise UserError(f"not a Bethel Woods position: {type(e).__name__} {e}") from None


def _from_dict(d):
    s = E.STATE.empty()
    read(E.STATE, POSITION, d, s)
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


class State:
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


__all__ = ["State", "to_dict", "from_dict", "canonical_characters", "parse_characters", "check_setup_args", "setup_config",
           "PH_CHANCE_MALF", "PH_CHANCE_SPY"]
