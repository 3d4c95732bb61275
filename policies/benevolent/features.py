"""Benevolent: the learned value's features of a position at the end of a turn, from the view of
the seat that just moved (``features(s, p, theta, me, out)``, FEATURE_NAMES).

Per player, from `me` on in turn order (4 blocks of 21; absent players are 0): gift kinds held, the
heuristic's tempo (eta: turns to every missing kind), leaves, spare tokens, single-use and
permanent Secrets, kinds reachable next turn (hexes, Secrets, both), able to win next turn, gifts
an opponent can take, each of the five gift counts, the Dream Path position, Footsteps on the
board, the exchange tile, kinds missing whose stack is empty and which of those cannot be had;
then the permanent Secrets of `me` and of the next seat; then the supply, the five stacks, the
rounds played, the player count, the Wooden Table's free slots, the heuristic's own evaluation
(``heuristic.evaluate`` of the position for `me`, which is ``h_eval``: combined from the blocks'
counts, ``heuristic.player_sum`` and ``heuristic.opponents_term``, bit for bit), the Stone Altars and which
special hexes are out. A won position has only the last feature set (+1 `me` won, -1 another).
Every feature is read from the position through the engine's named accessors and forecasts
(simcore/benevolent/engine.py) and the heuristic's own functions.
"""
import numpy as np
from numba import njit

from simcore.benevolent import engine as E
from simcore.benevolent.actions import OUT_WIN, PH_TERMINAL
from . import heuristic as H

PB = 21            # per-player block
NPB = 4
O_PERM = PB * NPB  # 84: permanent Secrets of me (9) and of the next seat (9)
O_G = O_PERM + 18  # 102: global
NF = O_G + 18      # 120


@njit(cache=True, _nrt=False)
def _pblock(s, p, theta, x, types, allfeet, out, o):
    lv = E.leaves(s, x)
    miss = 0
    kinds = 0
    spare = 0
    blocked = 0
    empty = 0
    for g in range(5):
        c = E.gifts(s, x, g)
        out[o + 9 + g] = c
        if c > 0:
            kinds += 1
        else:
            miss |= 1 << g
            if E.pool(s, g) == 0:
                empty += 1
                if not E.obtainable(s, x, g):
                    blocked += 1
        if g < 4 and c > 1:
            spare += c - 1
    n_single = 0
    n_perm = 0
    for k in range(9):
        n_single += E.single(s, x, k)
        n_perm += E.permanent(s, x, k)
    want = miss & E.obtainable_mask(s, x)
    hm = H.hex_reach(s, p, x, lv, allfeet) & want
    sm, scnt = H.secret_gifts(s, p, x, lv)
    sm &= want
    reach = H.popcount(hm | sm)
    n_miss = H.popcount(miss)
    win_next = n_miss > 0 and (miss & ~(hm | sm)) == 0 and n_miss <= (1 if hm else 0) + min(scnt, H.popcount(sm))
    eta = H.eta_turns(s, p, x, np.int64(miss), lv, types, H.pond_turns(p, E.dream(s, x)), sm)
    vuln = 0
    for g in range(5):
        if E.gifts(s, x, g) == 1 and E.pool(s, g) == 0:
            for o2 in range(s[E.NP]):
                if o2 != x and E.gifts(s, o2, g) == 0:
                    vuln += 1
                    break
    nf = 0
    for i in range(4):
        if E.foot(s, x, i) >= 0:
            nf += 1
    out[o + 0] = kinds
    out[o + 1] = eta
    out[o + 2] = lv
    out[o + 3] = spare
    out[o + 4] = n_single
    out[o + 5] = n_perm
    out[o + 6] = reach
    out[o + 7] = 1.0 if win_next else 0.0
    out[o + 8] = vuln
    out[o + 14] = E.dream(s, x)
    out[o + 15] = nf
    out[o + 16] = E.tile_leaves(s, x)
    out[o + 17] = H.popcount(sm)
    out[o + 18] = H.popcount(hm)
    out[o + 19] = blocked
    out[o + 20] = empty
    return H.player_sum(theta, kinds, spare, lv, n_single, n_perm, reach, win_next, eta, vuln), reach, win_next


@njit(cache=True, _nrt=False)
def features(s, p, theta, me, out):
    """out[:NF]: features of s for seat `me` (s: the end of me's turn)."""
    for i in range(NF):
        out[i] = 0.0
    if s[E.PHASE] == PH_TERMINAL and s[E.OUTCOME] == OUT_WIN:
        out[NF - 1] = 1.0 if s[E.WINNER] == me else -1.0
        return
    n = s[E.NP]
    types = E.hex_types(s)
    allfeet = E.all_feet_packed(s)
    # each player's block, and from its counts that player's ``heuristic.player_value``: the
    # heuristic's evaluation (h_eval) is combined from them as ``heuristic.evaluate`` combines its
    # own (the opponents in seat order), the same numbers without counting everything twice
    v = 0.0
    best_o = -1e300
    opp_reach = 0
    opp_win = False
    for x in range(n):
        vo, ro, wo = _pblock(s, p, theta, np.int64(x), types, allfeet, out, PB * ((x - me + n) % n))
        if x == me:
            v = vo
            continue
        if vo > best_o:
            best_o = vo
        opp_reach = max(opp_reach, min(ro, H.REACH_CAP))
        opp_win = opp_win or wo
    nx = (me + 1) % n
    for k in range(9):
        out[O_PERM + k] = E.permanent(s, me, k)
        out[O_PERM + 9 + k] = E.permanent(s, nx, k)
    g0 = O_G
    out[g0 + 0] = s[E.SUPPLY]
    for g in range(5):
        out[g0 + 1 + g] = E.pool(s, g)
    out[g0 + 6] = s[E.TURN] / n          # rounds so far
    out[g0 + 7] = 1.0 if n == 3 else 0.0
    out[g0 + 8] = 1.0 if n == 4 else 0.0
    avail = 0
    for i in range(9):
        if E.slot_available(s, i):
            avail += 1
    out[g0 + 9] = avail
    out[g0 + 10] = H.opponents_term(v, theta, best_o, opp_reach, opp_win)   # H.evaluate(s, p, theta, me)
    cnt = 0
    for h in range(s[E.N_HEX]):
        t = E.hex_type(s, h)
        if t == 0:
            cnt += 1
    out[g0 + 11] = cnt                     # Stone Altars
    out[g0 + 12] = 1.0 if types & (1 << 3) else 0.0   # a Pond
    out[g0 + 13] = 1.0 if types & (1 << 4) else 0.0   # a Ring of Stones
    out[g0 + 14] = 1.0 if types & (1 << 5) else 0.0   # a Wooden Table
    out[g0 + 15] = 1.0 if types & 3 == 3 else 0.0     # Meadow and Nest
    out[g0 + 16] = 0.0                     # (unused: always 0)
    out[NF - 1] = 0.0                      # terminal: +1 my win, -1 a loss


FEATURE_NAMES = []
for r in range(NPB):
    for nm in ("kinds", "eta", "leaves", "spare", "single", "perm", "reach", "win_next", "vuln",
               "clover", "feather", "crystal", "amber", "figurine", "dream", "feet", "tile",
               "sec_reach", "hex_reach", "blocked", "empty_missing"):
        FEATURE_NAMES.append(f"p{r}_{nm}")
FEATURE_NAMES += [f"me_perm{k}" for k in range(9)] + [f"next_perm{k}" for k in range(9)]
FEATURE_NAMES += ["supply", "pool0", "pool1", "pool2", "pool3", "pool4", "rounds", "np3", "np4", "table_slots",
               "h_eval", "n_altar", "has_pond", "has_ring", "has_table", "has_meadow_nest", "unused", "terminal"]
assert len(FEATURE_NAMES) == NF, len(FEATURE_NAMES)
