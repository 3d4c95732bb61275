"""Benevolent: the Python face of the compiled engine (positions as JSON, a checked apply)."""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..rng import STREAM_CHANCE, stream_key
from ..layout import Const, Derived, Index, Rows, read, shower
from . import engine as E
from .actions import ACTION_NAMES, N_ACTIONS, PHASES, action_from_name
from .engine import NEXT_NAMES  # noqa: F401 (the names, where they were)
from .rules import FOOTSTEPS_ON_FOREST, MAX_PLAYERS, N_SLOTS, PERMANENT, SINGLE_USE, Rules, parse_leaves  # noqa: F401 (MAX_PLAYERS: the game object reads it here)


def check_players(n):
    from . import GAME   # the package's game object (defined before any of its modules is used)
    GAME.check_players(n)


def setup_config(players, leaves):
    """The engine's cfg array (engine.CFG_*): players, then the starting leaves by seat."""
    cfg = np.zeros(E.CFG_SIZE, dtype=np.int64)
    cfg[E.CFG_PLAYERS] = players
    cfg[E.CFG_LEAVES: E.CFG_LEAVES + len(leaves)] = leaves
    return cfg


def _secret(s, i):
    tile = s[E.SLOT_TILE + i]
    return None if tile < 0 else (SINGLE_USE if s[E.SLOT_SIDE + i] == 0 else PERMANENT)[tile]


def _footsteps_on_card(s, q):
    at = E.PL + E.PS * q + E.L_FOOT
    return FOOTSTEPS_ON_FOREST - int((s[at: at + FOOTSTEPS_ON_FOREST] >= 0).sum())


def _check_on_card(x, s, q):
    if x != _footsteps_on_card(s, q):
        raise ValueError(f"seat {q}: {x} Footsteps on the card, but {_footsteps_on_card(s, q)} are not on the forest")


# The JSON position: keys in order and nesting; a string names a field of engine.STATE (or of a
# player's block, engine.PLAYER), shown and read back by the table's decode column (layout.show /
# layout.read). Explicit rules here: row numbers, the segments shown only where placed, and three
# values computed from the position (a slot's Secret by name, whether it can be taken, the
# Footsteps on the card).
POSITION = {
    "game": Const("benevolent"),
    "players": "NP",
    "current_player": "CUR",
    "turn": "TURN",
    "phase": "PHASE",
    "outcome": "OUTCOME",
    "winner": "WINNER",
    "supply": "SUPPLY",
    "gift_pool": "POOL",
    "forest": {
        "segments": Rows(E.N_SEGMENTS, {"segment": "SEG", "side": "SEG_SIDE"}, keep="SEG"),
        "hexes": Rows("N_HEX", {"hex": Index(), "type": "HEX_TYPE", "gray_footstep": "HEX_GRAY",
                                "neighbours": "HEX_ADJ"}, counted=True),
    },
    "triangle": Rows(N_SLOTS, {"slot": Index(), "tile": "SLOT_TILE", "side": "SLOT_SIDE",
                               "secret": Derived(_secret),
                               "available": Derived(lambda s, i: bool(E.slot_available(s, i)))}),
    "player_state": Rows("NP", {
        "seat": Index(),
        "leaves": "L_LEAVES",
        "starting_leaves": "START_LEAVES",
        "gifts": "L_GIFTS",
        "footsteps_on_forest": "L_FOOT",
        "footsteps_on_card": Derived(_footsteps_on_card, check=_check_on_card),
        "dream_position": "L_DREAM",
        "single_use": "L_SINGLE",
        "permanent": "L_PERM",
        "gather_tile_leaves": "L_TILE",
    }),
    "turn_state": {"entered_hex": "DEST", "return_to": "RET", "next": "NEXT", "pending_gift": "PEND"},
    "stats": {"decisions": "ST_DECISIONS"},
}

_show = shower(E.STATE, POSITION)


def to_dict(s) -> dict:
    return _show(np.asarray(s))


def from_dict(d) -> np.ndarray:
    try:
        return _from_dict(d)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise UserError(f"not a Benevolent position: {type(e).__name__} {e}") from None


def _from_dict(d):
    s = E.STATE.empty()
    read(E.STATE, POSITION, d, s)
    return s


class State:
    """One Benevolent game driven from Python."""

    def __init__(self, players=4, leaves=None, seed=0, game_index=0, rules: Rules | None = None):
        check_players(players)
        self.leaves = parse_leaves(leaves, players)
        self.rules = rules or Rules()
        self.params = self.rules.params
        self.state = np.zeros(E.S_SIZE, dtype=np.int32)
        E.setup(self.state, self.params, setup_config(players, self.leaves),
                np.uint64(stream_key(seed, game_index, STREAM_CHANCE)))
        self._mask = np.zeros(N_ACTIONS, dtype=np.bool_)

    @classmethod
    def from_position(cls, d, rules: Rules | None = None):
        g = cls.__new__(cls)
        g.rules = rules or Rules()
        g.params = g.rules.params
        g.state = from_dict(d)
        g._mask = np.zeros(N_ACTIONS, dtype=np.bool_)
        return g

    @property
    def phase(self):
        return PHASES[self.state[E.PHASE]]

    def is_terminal(self):
        return bool(E.is_terminal(self.state))

    def is_chance(self):
        return False

    def current_player(self):
        """The deciding seat, or engine PLAYER_TERMINAL."""
        return int(E.current_player(self.state))

    def legal_actions(self):
        E.legal_mask(self.state, self.params, self._mask)
        return [int(a) for a in np.flatnonzero(self._mask)]

    def legal_action_names(self):
        return [ACTION_NAMES[a] for a in self.legal_actions()]

    def to_dict(self):
        return to_dict(self.state)

    def apply(self, action):
        a = action_from_name(action) if isinstance(action, str) else int(action)
        legal = [] if self.is_terminal() else self.legal_actions()
        if a not in legal:
            name = ACTION_NAMES[a] if 0 <= a < N_ACTIONS else str(a)
            raise UserError(f"action {name!r} ({a}) is illegal here; legal: {', '.join(self.legal_action_names())}")
        E.apply(self.state, self.params, a)
        return a
