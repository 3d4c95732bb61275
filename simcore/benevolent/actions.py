"""Benevolent: the fixed action numbering, the phases and their names (the interface shared by
the compiled engine and the reference engine; documented in docs/benevolent.md).

Decision actions (256):
    0-13     PLACE h          put a Footstep from your card on forest hex h
    14-209   MOVE f,h         move your Footstep from hex f to hex h: 14 + 14f + h
    210      GATHER           take 2 leaves from the supply
    211      GATHER_PUT       gather, and put 1 leaf from the supply on your gather tile
    212      GATHER_TAKE      gather, and take 1 leaf from your gather tile
    213-217  BUY g            Stone Altar: purchase gift g (in phase buy: a Secret's purchase)
    218      MEADOW           take a Clover
    219      NEST             take a Feather
    220-227  SLEEP k          Pond: move your Dream Path Footstep along arrow k (also a Secret's
                              sleep, and the repeat of the "sleep again" Secret)
    228-231  EXCHANGE g       Ring of Stones: exchange gift g for gift g+1 (also a Secret's, and
                              the repeat of "exchange again")
    232-240  TABLE i          Wooden Table: take the Secret tile at triangle slot i
    241-249  SECRET k         resolve your single-use Secret k
    250      DECLINE          do not repeat the sleep/exchange
    251-254  FROM q           take the gift from seat q (when the stack is empty and opponents tie)
    255      END_TURN
No chance steps after setup: the forest, the Secret tiles and their sides are dealt at setup.
"""
from ..errors import UserError
from .rules import GIFTS, SINGLE_USE

A_PLACE = 0
A_MOVE = 14
A_GATHER = 210
A_GATHER_PUT = 211
A_GATHER_TAKE = 212
A_BUY = 213
A_MEADOW = 218
A_NEST = 219
A_SLEEP = 220
A_EXCHANGE = 228
A_TABLE = 232
A_SECRET = 241
A_DECLINE = 250
A_FROM = 251
A_END_TURN = 255
N_ACTIONS = 256

PH_MOVE = 0            # movement (single-use Secrets may be resolved first)
PH_ACTION = 1          # the action on the hex just entered, or gather (Secrets too)
PH_SLEEP = 2           # a Secret's sleep: choose the arrow
PH_EXCHANGE = 3        # a Secret's exchange: choose the gift
PH_BUY = 4             # a Secret's purchase (3 less): choose the gift
PH_AGAIN_SLEEP = 5     # "sleep again": pay 3 leaves to sleep once more, or decline
PH_AGAIN_EXCHANGE = 6  # "exchange again": pay 2 leaves to exchange once more, or decline
PH_FROM = 7            # which tied opponent gives the gift
PH_END = 8             # after the action: resolve Secrets, or end the turn
PH_TERMINAL = 9
PHASES = ("move", "action", "sleep", "exchange", "buy", "again_sleep", "again_exchange", "from", "end",
          "terminal")
OUT_ONGOING, OUT_WIN, OUT_TIMEOUT = range(3)
OUTCOMES = ("ongoing", "win", "timeout")


def action_name(a: int) -> str:
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} is outside 0..{N_ACTIONS - 1}")
    if a < A_MOVE:
        return f"place Footstep on hex {a}"
    if a < A_GATHER:
        f, h = divmod(a - A_MOVE, 14)
        return f"move Footstep from hex {f} to hex {h}"
    if a == A_GATHER:
        return "gather leaves"
    if a == A_GATHER_PUT:
        return "gather leaves, put 1 on the gather tile"
    if a == A_GATHER_TAKE:
        return "gather leaves, take 1 from the gather tile"
    if a < A_MEADOW:
        return f"purchase {GIFTS[a - A_BUY]}"
    if a == A_MEADOW:
        return "Meadow: take a Clover"
    if a == A_NEST:
        return "Nest: take a Feather"
    if a < A_EXCHANGE:
        return f"sleep along arrow {a - A_SLEEP}"
    if a < A_TABLE:
        return f"exchange {GIFTS[a - A_EXCHANGE]}"
    if a < A_SECRET:
        return f"take Secret tile at slot {a - A_TABLE}"
    if a < A_DECLINE:
        return f"resolve Secret: {SINGLE_USE[a - A_SECRET]}"
    if a == A_DECLINE:
        return "decline"
    if a < A_END_TURN:
        return f"take it from seat {a - A_FROM}"
    return "end turn"


ACTION_NAMES = tuple(action_name(a) for a in range(N_ACTIONS))


def action_from_name(name: str) -> int:
    try:
        return ACTION_NAMES.index(name)
    except ValueError:
        raise UserError(f"unknown action name {name!r}") from None

