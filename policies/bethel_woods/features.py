"""Bethel Woods: the features of a position at the end of a turn's moves (before `end turn`), the
input of the learned value (policies/value_model.py, policies/bethel_woods/learned.py).

They are what every player at the table sees: the board, the bag's counts, the hands of
knowledge, the Orphanage, the workers, the characters and the face-up critical effects
(``engine.effect_active``; a tile nobody has seen is not read). The first 24 are the heuristic's
own evaluation features (heuristic.THETA_NAMES, computed the same way); the rest describe the
race the heuristic's linear score cannot weigh: how many malfunctions the bag still holds against
the pieces still to build, each seat's closeness to the next piece in turn order, the effects
face up, the characters at the table.

``features(s, p, ws, out)`` needs the tables the planner makes once per plan (``heuristic._plan``
through ``_risk_table``: W_SECB, W_ENDS, W_RISK) in ``ws``; it overwrites the scratch at W_USE
and W_HAVE as ``evaluate`` does.
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.rules import N_CHARACTERS, N_EFFECTS, NOVA, P_CRIT_ABOVE

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


@njit(cache=True, _nrt=False)
def features(s, p, ws, out):
    """out[:NF] = the features of s (the end of a turn's moves, not terminal)."""
    for i in range(NF):
        out[i] = 0.0
    np_ = s[E.NP]
    cur = s[E.CUR]
    above = p[P_CRIT_ABOVE]
    # the Orphanage and the workers (as heuristic.evaluate: one pass each)
    built = 0
    open4 = 0
    acc = 0
    for i in range(6):
        if E.section(s, i) >= 0:
            built += 1
        else:
            open4 |= 15 << (4 * i)
            acc |= ws[H.W_SECB + i]
    outm = ((1 if E.hand(s, 0) > 0 else 0) | (2 if E.hand(s, 1) > 0 else 0)
            | (4 if E.hand(s, 2) > 0 else 0) | (8 if E.hand(s, 3) > 0 else 0))
    mask = 0
    spread = 0
    for j in range(6):
        g = E.group(s, j)
        if g == 0:
            continue
        spread += 1
        tm = ((1 if E.workers(s, j, 0) > 0 else 0) | (2 if E.workers(s, j, 1) > 0 else 0)
              | (4 if E.workers(s, j, 2) > 0 else 0) | (8 if E.workers(s, j, 3) > 0 else 0))
        outm |= tm
        mask |= (tm * 0x111111) & ws[H.W_ENDS + 6 * j + (g - 1) % 6]
    mask &= open4
    use = acc & outm
    for t in range(4):
        ws[H.W_USE + t] = (use >> t) & 1
    spots, reach = H._entry_bits(mask)
    cost = E.piece_cost(s, p, built)
    lim = E.knowledge_limit(s, p)
    # the hands after the end-of-turn discard, by seat in turn order from the current one
    know = 0
    b1 = 0
    b2 = 0
    b3 = 0
    ready = 0
    conc = 0
    for r in range(np_):
        q = (cur + r) % np_
        tot = 0
        for t in range(4):
            ws[H.W_HAVE + 4 * q + t] = E.held(s, q, t)
            tot += E.held(s, q, t)
        if tot > lim:
            tot = H._discard_to_limit(ws, H.W_HAVE + 4 * q, tot, lim, use)
        know += tot
        best = 0
        for t in range(4):
            if (use >> t) & 1 and ws[H.W_HAVE + 4 * q + t] > best:
                best = ws[H.W_HAVE + 4 * q + t]
        conc += best
        if best >= cost:
            ready += 1
        if best > b1:
            b3 = b2
            b2 = b1
            b1 = best
        elif best > b2:
            b3 = b2
            b2 = best
        elif best > b3:
            b3 = best
        out[F_CLOSE + r] = min(best, cost) / cost
        out[F_HELD + r] = tot
    # the next placement (as heuristic.evaluate, with the turn's risk table where it applies)
    draws = E.draws_next(s, p)
    bag_n = s[E.BAG_N]
    table = draws == ws[H.W_RDRAWS]
    rone = s[E.RONE_M]
    ncrit = 0
    load = 0
    maxload = 0
    spies = 0
    d0 = 1.0
    d1 = 0.0
    d2 = 0.0
    d3 = 0.0
    d4 = 0.0
    expc = 0.0
    quiet = 1.0
    for m in range(6):
        sp = E.spy_at(s, m)
        lm = E.load(s, m) + sp
        spies += sp
        load += lm
        if lm > above:
            ncrit += 1
            r = 1.0
        else:
            if lm > maxload:
                maxload = lm
            if rone == m or bag_n == 0:
                continue
            elif table and lm < 4:
                r = ws[H.W_RISK + 4 * m + lm] / H.RISK_SCALE
            else:
                bm = 0
                for t in range(4):
                    bm += E.bag(s, m, t)
                r = H._binom_tail(draws, bm / bag_n, above + 1 - lm)
            if r == 0.0:
                continue
            quiet *= 1.0 - r
        expc += r
        d4 = d4 + d3 * r
        d3 = d3 * (1.0 - r) + d2 * r
        d2 = d2 * (1.0 - r) + d1 * r
        d1 = d1 * (1.0 - r) + d0 * r
        d0 = d0 * (1.0 - r)
    q1 = (cur + 1) % np_
    q2 = (cur + 2) % np_
    nxt = H._enters(ws, q1, cost, E.ability(s, p, q1) == NOVA, reach)
    nxt2 = H._enters(ws, q2, cost, E.ability(s, p, q2) == NOVA, reach) if q2 != cur else 0
    selfe = H._enters(ws, cur, cost, E.ability(s, p, cur) == NOVA, reach)
    prog = min(b1, cost) / cost
    if cost + 1 <= 6 + (cost - built - 1):
        prog += min(b2, cost + 1) / (cost + 1)
    if cost + 2 <= 6 + (cost - built - 1) and np_ > 2:
        prog += min(b3, cost + 2) / (cost + 2)
    out[0] = built
    out[1] = ncrit
    out[2] = expc
    out[3] = d3 + d4
    out[4] = d4
    out[5] = spies
    out[6] = min(b1, cost) / cost
    out[7] = min(b2, cost + 1) / (cost + 1)
    out[8] = ready
    out[9] = nxt
    out[10] = nxt2
    out[11] = conc
    out[12] = know
    out[13] = load
    out[14] = spots
    out[15] = draws
    out[16] = maxload
    out[17] = prog
    out[18] = spies * spies
    out[19] = max(0, cost - b1)
    out[20] = selfe
    out[21] = 1.0 - quiet
    out[22] = spread
    out[23] = (1.0 - quiet) if spies >= 5 else 0.0
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
    out[52] = d2 + d3 + d4
    out[53] = np_
    out[54] = 1.0 if s[E.UNCOVERED] else 0.0
    out[55] = 1.0 if s[E.ABIL_USED] else 0.0
    out[56] = s[E.VIOLET_RED]
    out[57] = 1.0 if rone >= 0 else 0.0
    out[58] = (use & 1) + ((use >> 1) & 1) + ((use >> 2) & 1) + ((use >> 3) & 1)
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
