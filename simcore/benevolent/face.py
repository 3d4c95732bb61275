"""Benevolent: the Python face of the compiled engine (positions as JSON, a checked apply)."""
from __future__ import annotations

import numpy as np

from ..errors import UserError
from ..rng import STREAM_CHANCE, stream_key
from . import engine as E
from .actions import ACTION_NAMES, N_ACTIONS, OUTCOMES, PHASES, action_from_name
from .rules import GIFTS, HEX_TYPES, MAX_PLAYERS, MIN_PLAYERS, PERMANENT, SINGLE_USE, Rules, parse_leaves

NEXT_NAMES = ("return", "again_sleep", "again_exchange")


def check_players(n):
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise UserError(f"players {n} is not allowed; Benevolent takes {MIN_PLAYERS} to {MAX_PLAYERS}")


def setup_config(players, leaves):
    """The engine's cfg array (engine.CFG_*): players, then the starting leaves by seat."""
    cfg = np.zeros(E.CFG_SIZE, dtype=np.int64)
    cfg[E.CFG_PLAYERS] = players
    cfg[E.CFG_LEAVES: E.CFG_LEAVES + len(leaves)] = leaves
    return cfg


def _opt(x, f=lambda v: v):
    return None if x < 0 else f(int(x))


def to_dict(s) -> dict:
    s = np.asarray(s)
    n = int(s[E.NP])
    nh = int(s[E.N_HEX])
    players = []
    for q in range(n):
        b = E.pl(q)
        feet = sorted(int(f) for f in s[b + E.L_FOOT: b + E.L_FOOT + 4] if f >= 0)
        players.append({
            "seat": q, "leaves": int(s[b + E.L_LEAVES]), "starting_leaves": int(s[E.START_LEAVES + q]),
            "gifts": {GIFTS[g]: int(s[b + E.L_GIFTS + g]) for g in range(5)},
            "footsteps_on_forest": feet, "footsteps_on_card": 4 - len(feet),
            "dream_position": int(s[b + E.L_DREAM]),
            "single_use": [SINGLE_USE[k] for k in range(9) if s[b + E.L_SINGLE + k]],
            "permanent": [PERMANENT[k] for k in range(9) if s[b + E.L_PERM + k]],
            "gather_tile_leaves": int(s[b + E.L_TILE]),
        })
    return {
        "game": "benevolent", "players": n, "current_player": int(s[E.CUR]), "turn": int(s[E.TURN]),
        "phase": PHASES[s[E.PHASE]], "outcome": OUTCOMES[s[E.OUTCOME]], "winner": _opt(s[E.WINNER]),
        "supply": int(s[E.SUPPLY]), "gift_pool": {GIFTS[g]: int(s[E.POOL + g]) for g in range(5)},
        "forest": {
            "segments": [{"segment": int(s[E.SEG + i]), "side": int(s[E.SEG_SIDE + i])}
                         for i in range(3) if s[E.SEG + i] >= 0],
            "hexes": [{"hex": h, "type": HEX_TYPES[s[E.HEX_TYPE + h]], "gray_footstep": bool(s[E.HEX_GRAY + h]),
                       "neighbours": [j for j in range(nh) if (int(s[E.HEX_ADJ + h]) >> j) & 1]}
                      for h in range(nh)],
        },
        "triangle": [{"slot": i, "tile": _opt(s[E.SLOT_TILE + i]),
                      "side": "single-use" if s[E.SLOT_SIDE + i] == 0 else "permanent",
                      "secret": None if s[E.SLOT_TILE + i] < 0 else
                      (SINGLE_USE if s[E.SLOT_SIDE + i] == 0 else PERMANENT)[s[E.SLOT_TILE + i]],
                      "available": bool(E.slot_available(s, i))} for i in range(9)],
        "player_state": players,
        "turn_state": {"entered_hex": _opt(s[E.DEST]), "return_to": _opt(s[E.RET], lambda x: PHASES[x]),
                       "next": NEXT_NAMES[s[E.NEXT]], "pending_gift": _opt(s[E.PEND], lambda g: GIFTS[g])},
        "stats": {"decisions": int(s[E.ST_DECISIONS])},
    }


def from_dict(d) -> np.ndarray:
    try:
        return _from_dict(d)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise UserError(f"not a Benevolent position: {type(e).__name__} {e}") from None


def _from_dict(d):
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    n = d["players"]
    s[E.NP] = n
    s[E.CUR] = d["current_player"]
    s[E.TURN] = d["turn"]
    s[E.PHASE] = PHASES.index(d["phase"])
    s[E.OUTCOME] = OUTCOMES.index(d["outcome"])
    s[E.WINNER] = -1 if d["winner"] is None else d["winner"]
    s[E.SUPPLY] = d["supply"]
    for g in range(5):
        s[E.POOL + g] = d["gift_pool"][GIFTS[g]]
    s[E.SEG:E.SEG + 3] = -1
    for i, seg in enumerate(d["forest"]["segments"]):
        s[E.SEG + i] = seg["segment"]
        s[E.SEG_SIDE + i] = seg["side"]
    hexes = d["forest"]["hexes"]
    s[E.N_HEX] = len(hexes)
    s[E.HEX_TYPE:E.HEX_TYPE + 14] = -1
    for h, hx in enumerate(hexes):
        s[E.HEX_TYPE + h] = HEX_TYPES.index(hx["type"])
        s[E.HEX_GRAY + h] = int(hx["gray_footstep"])
        s[E.HEX_ADJ + h] = sum(1 << j for j in hx["neighbours"])
    for i, t in enumerate(d["triangle"]):
        s[E.SLOT_TILE + i] = -1 if t["tile"] is None else t["tile"]
        s[E.SLOT_SIDE + i] = 0 if t["side"] == "single-use" else 1
    for q, pd in enumerate(d["player_state"]):
        b = E.pl(q)
        s[b + E.L_LEAVES] = pd["leaves"]
        s[E.START_LEAVES + q] = pd["starting_leaves"]
        for g in range(5):
            s[b + E.L_GIFTS + g] = pd["gifts"][GIFTS[g]]
        feet = list(pd["footsteps_on_forest"]) + [-1] * pd["footsteps_on_card"]
        s[b + E.L_FOOT: b + E.L_FOOT + 4] = feet
        s[b + E.L_DREAM] = pd["dream_position"]
        for name in pd["single_use"]:
            s[b + E.L_SINGLE + SINGLE_USE.index(name)] = 1
        for name in pd["permanent"]:
            s[b + E.L_PERM + PERMANENT.index(name)] = 1
        s[b + E.L_TILE] = pd["gather_tile_leaves"]
    for q in range(n, 4):
        s[E.pl(q) + E.L_FOOT: E.pl(q) + E.L_FOOT + 4] = -1
    ts = d["turn_state"]
    s[E.DEST] = -1 if ts["entered_hex"] is None else ts["entered_hex"]
    s[E.RET] = -1 if ts["return_to"] is None else PHASES.index(ts["return_to"])
    s[E.NEXT] = NEXT_NAMES.index(ts["next"])
    s[E.PEND] = -1 if ts["pending_gift"] is None else GIFTS.index(ts["pending_gift"])
    s[E.ST_DECISIONS] = d["stats"]["decisions"]
    return s


class Game:
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
