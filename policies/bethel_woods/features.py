"""Bethel Woods: the features of a position at the end of a turn's moves (before `end turn`), the
input of the learned value (policies/value_model.py, policies/bethel_woods/learned.py).

They are what every player at the table sees: the board, the bag's counts, the hands of
knowledge, the Orphanage, the workers, the characters and the face-up critical effects
(``engine.effect_active``; a tile nobody has seen is not read). The first 24 are the heuristic's
own evaluation features (heuristic.THETA_NAMES), computed by the heuristic's own function
(``heuristic.evaluation_features``, whose weighted sum is ``heuristic.evaluate``); the rest describe the
race the heuristic's linear score cannot weigh: how many malfunctions the bag still holds against
the pieces still to build, each seat's closeness to the next piece in turn order, the effects
face up, the characters at the table.

``features(s, p, ws, out)`` needs the tables the planner makes once per plan (``heuristic.plan_turn``
makes W_SECB, W_ENDS and the risk table W_RISK) in ``ws``; it overwrites the scratch at W_USE
and W_HAVE as ``evaluate`` does. tests/test_bw_heuristic.py::test_features_equal_the_plain_reference
checks every feature, bit for bit, against the plain reference (tests/bw_heuristic_reference.py).
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.rules import N_CHARACTERS, N_EFFECTS

from . import heuristic as H

FEATURE_NAMES = (
    # the heuristic's evaluation features (heuristic.THETA_NAMES, the same definitions)
    "built", "critical", "exp_critical", "p_ge3", "p_ge4", "spies", "best_stack", "second_stack",
    "ready", "next_enter", "next2_enter", "concentration", "knowledge", "load", "entry_spots", "draws",
    "max_load", "progress", "spies_sq", "missing", "self_enter", "p_spy", "spread", "spy_loss",
    "bag",            # malfunctions left in the bag (the game is lost when a draw finds it empty)
    "tempo",          # bag / 3 - 2 x pieces left: the race between the bag and the Daydreamer
    "turn",           # player turns completed
    "cost",           # knowledge the next piece costs
    "four_critical",  # 4 or more machines critical at the end of the moves (lost at `end turn`)
    "unseen_spies",   # spies in the stack nobody has seen
    "close_0", "close_1", "close_2", "close_3",   # seat r after the current one (0: the current):
    "held_0", "held_1", "held_2", "held_3",       #   min(best usable stack, cost) / cost; knowledge kept
    "effect_0", "effect_1", "effect_2", "effect_3", "effect_4", "effect_5",   # critical effect e face up
    "char_0", "char_1", "char_2", "char_3", "char_4", "char_5", "char_6", "char_7",  # character c seated
    "p_ge2",          # P(2 or more machines critical after the next placement)
    "players",        # seats at the table
    "uncovered",      # a spy was uncovered this turn
    "ability_used",   # the current player used the ability this turn
    "violet",         # malfunctions fewer after this turn (Violet)
    "rone",           # Rone protects a machine after this turn
    "usable_types",   # worker types some open Orphanage section still accepts
    "third_stack",    # the third best usable stack against the piece after next
    "pieces_left",    # Orphanage sections still open
    "five_spies",     # five spies on the board (the sixth loses)
    "turns_left",     # bag / draws per turn
)
NF = len(FEATURE_NAMES)
assert NF == 63
F_CLOSE = FEATURE_NAMES.index("close_0")
F_HELD = FEATURE_NAMES.index("held_0")
F_EFFECT = FEATURE_NAMES.index("effect_0")
F_CHAR = FEATURE_NAMES.index("char_0")
F_FOUR = FEATURE_NAMES.index("four_critical")
N_EVAL = len(H.THETA_NAMES)   # the first N_EVAL are the evaluation's (feature i goes with the weight theta[i])
assert FEATURE_NAMES[:N_EVAL] == H.THETA_NAMES


@njit(cache=True, _nrt=False)
def features(s, p, ws, out):
    """out[:NF] = the features of s (the end of a turn's moves, not terminal); returns the machines
    critical. The first 24 are ``heuristic.evaluation_features``' (the evaluation's own
    computation, every one of them computed); the rest are made here from what it returns and
    leaves in ws (the seats' stacks after the discard at W_HAVE, the usable types at W_USE)."""
    f, p_ge2, b3, cost = H.evaluation_features(s, p, ws, True, True)
    (out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8], out[9], out[10], out[11], out[12],
     out[13], out[14], out[15], out[16], out[17], out[18], out[19], out[20], out[21], out[22], out[23]) = f
    for i in range(N_EVAL, NF):
        out[i] = 0.0
    np_ = s[E.NP]
    cur = s[E.CUR]
    bag_n = s[E.BAG_N]
    built = int(f[H.T_BUILT])
    ncrit = int(f[H.T_CRIT])
    spies = int(f[H.T_SPIES])
    draws = int(f[H.T_DRAWS])
    # each seat in turn order from the current one: its best usable stack against the next
    # piece's cost, its knowledge kept (after the end-of-turn discard)
    u0 = ws[H.W_USE] != 0
    u1 = ws[H.W_USE + 1] != 0
    u2 = ws[H.W_USE + 2] != 0
    u3 = ws[H.W_USE + 3] != 0
    for r in range(np_):
        b = H.W_HAVE + 4 * ((cur + r) % np_)
        h0 = ws[b]
        h1 = ws[b + 1]
        h2 = ws[b + 2]
        h3 = ws[b + 3]
        best = 0
        if u0 and h0 > best:
            best = h0
        if u1 and h1 > best:
            best = h1
        if u2 and h2 > best:
            best = h2
        if u3 and h3 > best:
            best = h3
        out[F_CLOSE + r] = min(best, cost) / cost
        out[F_HELD + r] = h0 + h1 + h2 + h3
    out[24] = bag_n
    out[25] = bag_n / 3.0 - (6 - built) * 2.0
    out[26] = s[E.TURN]
    out[27] = cost
    out[28] = 1.0 if ncrit >= E.CRITICAL_LOSS_AT else 0.0
    out[29] = s[E.UNSEEN]
    for e in range(N_EFFECTS):
        out[F_EFFECT + e] = E.effect_active(s, p, e)
    for q in range(np_):
        c = E.ability(s, p, q)  # a character whose ability is switched off (ability_off) reads as absent
        if 0 <= c < N_CHARACTERS:
            out[F_CHAR + c] = 1.0
    out[52] = p_ge2
    out[53] = np_
    out[54] = 1.0 if s[E.UNCOVERED] else 0.0
    out[55] = 1.0 if s[E.ABIL_USED] else 0.0
    out[56] = s[E.VIOLET_RED]
    out[57] = 1.0 if s[E.RONE_M] >= 0 else 0.0
    out[58] = ws[H.W_USE] + ws[H.W_USE + 1] + ws[H.W_USE + 2] + ws[H.W_USE + 3]
    out[59] = min(b3, cost + 2) / (cost + 2)
    out[60] = 6 - built
    out[61] = 1.0 if spies >= 5 else 0.0
    out[62] = bag_n / max(1, draws)
    return ncrit


def feature_vector(s, p, ws) -> np.ndarray:
    """The features of s as a new array (for tests and notebooks; the planners use ``features``)."""
    out = np.zeros(NF, dtype=np.float64)
    features(np.asarray(s, dtype=np.int32), p, ws, out)
    return out
