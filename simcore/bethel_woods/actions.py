"""Bethel Woods: the fixed action numbering, the phases, and their names.

This module is the interface contract shared by the compiled engine and the reference engine
(OpenSpiel/Pgx style): one global numbering of every decision the game can ever ask for, a phase
that says which decision is pending, and chance outcomes numbered apart. docs/bethel_woods.md
documents the same table.

Decision actions (188):
    0-11    PICK m,dir      pick up every worker of machine m (0-5); dir 0 clockwise, 1 anticlockwise
                            action = 2*m + dir
    12-15   DROP t          drop the worker of type t at the next machine along the direction
    16      ENTER           the last worker in hand enters the Orphanage section of the machine
                            where the group stands, paying the Daydreamer cost
    17      ENTER_NOVA      the same, with Nova's ability (one required knowledge may be substituted)
    18-41   FIX k           fix one malfunction of kind k (printed machine*4 + type) on this machine
    42      STOP_FIXING     fix no more with this worker
    43      UNCOVER         uncover the spy on the machine of the last worker
    44      UNCOVER_FENN    the same, with Fenn's substitution
    45      UNCOVER_FARE_CW   Fare: uncover the spy on the machine clockwise of the last worker
    46      UNCOVER_FARE_CCW  Fare: the same, anticlockwise
    47      END_TURN
    48-71   PAY k           pay (discard or give) one knowledge token of kind k
    72-95   SELECT i        a choice inside an ability: a machine (i = 0-5) for Harris, or a
                            malfunction (i = location*4 + type) for Linny
    96-99   HARRIS t        Harris: discard 1 knowledge of type t to move a worker of type t
    100-123 JUNAS t,n,off   Junas: discard 1 knowledge of type t and give n (1-2) more of type t
                            to the player off (1-3) seats to the left; action = 100 + 6t + 3(n-1) + off-1
    124-147 LINNY k         Linny: discard the knowledge token k to remove a malfunction of its number
    148-151 VIOLET t        Violet: discard 2 knowledge of type t: 2 fewer malfunctions after her turn
    152-187 RONE m,pair     Rone: discard 2 knowledge of different types (pair index into TYPE_PAIRS)
                            to protect machine m after his turn; action = 152 + 6m + pair

Chance outcomes are numbered apart: a malfunction drawn from the bag is its kind (0-23); a spy
revealed from the stack is its machine (0-5); a critical tile revealed is its effect (0-5, the
order of rules.CRITICAL_EFFECTS).
"""
from ..errors import UserError
from .rules import CHARACTERS, CRITICAL_EFFECTS, TYPES, WORKERS

A_PICK = 0
A_DROP = 12
A_ENTER = 16
A_ENTER_NOVA = 17
A_FIX = 18
A_STOP_FIXING = 42
A_UNCOVER = 43
A_UNCOVER_FENN = 44
A_UNCOVER_FARE_CW = 45
A_UNCOVER_FARE_CCW = 46
A_END_TURN = 47
A_PAY = 48
A_SELECT = 72
A_HARRIS = 96
A_JUNAS = 100
A_LINNY = 124
A_VIOLET = 148
A_RONE = 152
N_ACTIONS = 188

TYPE_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
N_TYPE_PAIRS = 6

# Phases: which decision (or chance event) is pending.
PH_PRE = 0          # turn start: pick up workers, or use an ability first
PH_MOVE = 1         # workers in hand: drop the next one (or enter the Orphanage with the last)
PH_FIX = 2          # the worker just dropped may fix malfunctions of its type
PH_POST = 3         # the last worker is placed: uncover a spy, use an ability, end the turn
PH_PAY = 4          # a payment of knowledge tokens is under way (the payer decides)
PH_HARRIS_FROM = 5  # Harris: choose the machine to take the worker from
PH_HARRIS_TO = 6    # Harris: choose the machine to put it on
PH_LINNY = 7        # Linny: choose the malfunction to remove
PH_CHANCE_MALF = 8  # chance: a malfunction is drawn from the bag
PH_CHANCE_SPY = 9   # chance: the top spy of the stack is revealed
PH_CHANCE_TILE = 10 # chance: a machine went critical for the first time; its tile is revealed
PH_TERMINAL = 11
PHASES = ("pre", "move", "fix", "post", "pay", "harris_from", "harris_to", "linny",
          "chance_malfunction", "chance_spy", "chance_tile", "terminal")

OUT_ONGOING, OUT_WIN, OUT_BAG_EMPTY, OUT_FOUR_CRITICAL, OUT_SIX_SPIES = range(5)
OUTCOMES = ("ongoing", "win", "bag_empty", "four_critical", "six_spies")


def kind_name(k: int) -> str:
    return f"M{k // 4 + 1} {TYPES[k % 4]}"


def action_name(a: int) -> str:
    """The human-readable name of a decision action."""
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} is outside 0..{N_ACTIONS - 1}")
    if a < A_DROP:
        return f"pick up Machine {a // 2 + 1} {'clockwise' if a % 2 == 0 else 'anticlockwise'}"
    if a < A_ENTER:
        return f"drop {WORKERS[a - A_DROP]}"
    if a == A_ENTER:
        return "enter Orphanage"
    if a == A_ENTER_NOVA:
        return "enter Orphanage (Nova)"
    if a < A_STOP_FIXING:
        return f"fix {kind_name(a - A_FIX)}"
    names = {A_STOP_FIXING: "stop fixing", A_UNCOVER: "uncover spy", A_UNCOVER_FENN: "uncover spy (Fenn)",
             A_UNCOVER_FARE_CW: "uncover spy clockwise (Fare)",
             A_UNCOVER_FARE_CCW: "uncover spy anticlockwise (Fare)", A_END_TURN: "end turn"}
    if a in names:
        return names[a]
    if a < A_SELECT:
        return f"pay {kind_name(a - A_PAY)}"
    if a < A_HARRIS:
        return f"select {a - A_SELECT}"
    if a < A_JUNAS:
        return f"Harris {TYPES[a - A_HARRIS]}"
    if a < A_LINNY:
        i = a - A_JUNAS
        return f"Junas {TYPES[i // 6]} give {(i % 6) // 3 + 1} to seat +{i % 3 + 1}"
    if a < A_VIOLET:
        return f"Linny {kind_name(a - A_LINNY)}"
    if a < A_RONE:
        return f"Violet {TYPES[a - A_VIOLET]}"
    i = a - A_RONE
    t1, t2 = TYPE_PAIRS[i % 6]
    return f"Rone protect Machine {i // 6 + 1} paying {TYPES[t1]}+{TYPES[t2]}"


ACTION_NAMES = tuple(action_name(a) for a in range(N_ACTIONS))


def action_from_name(name: str) -> int:
    try:
        return ACTION_NAMES.index(name)
    except ValueError:
        raise UserError(f"unknown action name {name!r}") from None


def chance_name(phase: int, outcome: int) -> str:
    if phase == PH_CHANCE_MALF:
        return f"draw {kind_name(outcome)}"
    if phase == PH_CHANCE_TILE:
        return f"reveal tile {CRITICAL_EFFECTS[outcome]}"
    return f"reveal spy {outcome + 1}"


__all__ = [n for n in dir() if n.isupper()] + ["action_name", "action_from_name", "kind_name",
                                              "chance_name", "CHARACTERS"]
