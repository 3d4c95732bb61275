"""Benevolent: the best honest player (policy `expert`): rollouts over the learned player's best plans.

Once per turn (the plan is replayed like the heuristic's) it

1. lets the heuristic keep its K best plans with distinct ends (theta[T_K], default 16) and ranks
   them by the learned value (``learned.plan_value``, the repetition term included);
2. plays each of the M best (theta[T_M], default 4) on a copy of the position and then the game on
   to its end (at most theta[T_HMAX] turns, default 400; a rollout that does not end counts as
   not won), every seat played by the learned player keeping theta[T_RK] plans (default 8), each of
   them playing its second-best plan with probability theta[T_RNOISE] / 10 (default 0.15) so that
   the rollouts of one plan differ; theta[T_REPS] rollouts per plan (default 4), rollout r of every
   plan on the same random numbers (number r of this decision's key: common random numbers);
3. plays the plan that won the most rollouts (ties: the value's order). A plan that wins at once
   is played without rollouts.

Benevolent hides nothing and has no chance after setup, so the only randomness is the rollouts'
own, from the seat's policy stream. Each rollout starts from the repetition table the seat has
seen (``learned.hist_copy``), so its players avoid the loops the seat would.

theta: the learned player's vector with T_K = 16; net: the learned player's network. Workspace (int32): [0, LWS) the learned
player's, [LWS, 2 LWS) the rollouts' learned player's, then the rollout position and the plans'
order and scores.
"""
import numpy as np
from numba import njit

from simcore.benevolent import engine as E
from simcore.benevolent.actions import OUT_WIN, PH_TERMINAL
from simcore.layout import EVEN, Layout
from simcore.rng import below, draw

from . import heuristic as H
from . import learned as L

K_DEFAULT = 16
M_DEFAULT = 4
REPS_DEFAULT = 4
RK_DEFAULT = 8
RNOISE_DEFAULT = 1.5
HMAX_DEFAULT = 400
DEPTH_DEFAULT = 2     # about this many turns a rollout plays, then the learned value scores it (0: to the end; docs/policies.md)

# ---- workspace layout (int32) ---------------------------------------------------------------------------
# (a table as the heuristic's, simcore/layout.py; float64 fields marked EVEN start at an even offset)
LWS = L.WS_SIZE + (L.WS_SIZE & 1)  # a learned workspace, padded to an even size (the second starts even)
WS = Layout(
    ("X_LEARNED", 2 * LWS, None, "two learned workspaces: the expert's own decision's, and its rollouts' player's"),
    ("X_S", E.S_SIZE, None, "the rollout's position"),
    ("X_IDX", H.K_MAX, None, "kept plans by value"),
    ("X_VAL", 2 * H.K_MAX, None, "their values (float64, by kept index)", EVEN),
)
globals().update(WS.offsets)   # X_LEARNED = 0, X_S = 2 LWS, ...
WS_SIZE = WS.size


def expert_theta(m: int = M_DEFAULT, reps: int = REPS_DEFAULT, depth: int = DEPTH_DEFAULT) -> np.ndarray:
    """The expert's parameter vector: the learned player's with k = 16 and the rollouts' settings
    (its network is the learned player's, ``learned.learned_net``)."""
    t = L.learned_theta(k=K_DEFAULT)
    t[L.T_DEPTH] = depth
    t[L.T_M] = m
    t[L.T_REPS] = reps
    t[L.T_RK] = RK_DEFAULT
    t[L.T_RNOISE] = RNOISE_DEFAULT
    t[L.T_HMAX] = HMAX_DEFAULT
    return t


@njit(cache=True, _nrt=False)
def expert_reset(ws):
    L.learned_reset(ws[0:LWS])


@njit(cache=True, _nrt=False)
def _end_value(st, p, theta, net, me, rws, k):
    """What a truncated rollout scores at st (`me` about to plan): the learned value of the plan the
    learned player would play there (``learned.choose``: the highest value of its k kept plans, its
    repetition term included), as a chance of winning in [0, 1] (a plan that wins at once: 1).
    -1 when `me` has no plan."""
    c = L.choose(st, p, theta, net, me, rws, k)
    if c < 0:
        return -1.0
    return min(1.0, max(0.0, L.plan_value(st, p, theta, net, me, rws, c)))


@njit(cache=True, _nrt=False)
def rollout(st, p, theta, net, me, ws, rk):
    """Play the game at st (the end of a plan) on with the learned player in every seat (keeping
    theta[T_RK] plans, the second plan with probability theta[T_RNOISE] / 10 drawn from rk) for at
    most theta[T_HMAX] turns; 1.0 if `me` wins, else 0.0. With theta[T_DEPTH] = d > 0 it stops at
    `me`'s first turn at least d turns on and scores the learned value there (``_end_value``)."""
    rws = ws[LWS:2 * LWS]
    k = int(theta[L.T_RK])
    hmax = int(theta[L.T_HMAX])
    noise = theta[L.T_RNOISE]
    depth = int(theta[L.T_DEPTH])
    t0 = st[E.TURN]
    while st[E.PHASE] != PH_TERMINAL and st[E.TURN] - t0 < hmax:
        x = st[E.CUR]
        if depth > 0 and x == me and st[E.TURN] - t0 >= depth:
            v = _end_value(st, p, theta, net, me, rws, k)
            if v >= 0.0:
                return v
        c = L.choose(st, p, theta, net, np.int64(x), rws, k)
        if c < 0:
            break
        if noise > 0.0 and rws[H.W_CN] > 1 and below(rk, st[E.TURN], 1000) < noise * 100.0:
            c = 1 if c == 0 else 0
            L.plan_end(st, p, rws, np.int64(c))   # its end's hash and whether it ends the game
        end_terminal = rws[L.L_CT]
        h = rws[L.L_CH:L.L_CH + 2].view(np.uint64)[0]
        for i in range(rws[H.W_CPL + c]):
            E.apply(st, p, np.int64(rws[H.W_CPATH + c * H.DEPTH_MAX + i]))
        if end_terminal == 0:
            L.hist_add(rws, h)
    if st[E.PHASE] == PH_TERMINAL and st[E.OUTCOME] == OUT_WIN and st[E.WINNER] == me:
        return 1.0
    return 0.0


@njit(cache=True, _nrt=False)
def choose(s, p, theta, net, me, ws, key):
    """The index of the kept plan to play from s (-1: none), the learned workspace's L_CH and L_CT
    set for it."""
    lws = ws[0:LWS]
    nc = L.plan_candidates(s, p, theta, me, lws, int(theta[L.T_K]))
    if nc <= 1:
        if nc == 1:
            L.plan_end(s, p, lws, np.int64(0))
        return nc - 1
    idx = ws[X_IDX:X_IDX + H.K_MAX]
    val = ws[X_VAL:X_VAL + 2 * H.K_MAX].view(np.float64)
    for c in range(nc):
        val[c] = L.plan_value(s, p, theta, net, me, lws, np.int64(c))
        idx[c] = c
        if val[c] >= 1.0e6:
            return c
    for i in range(1, nc):   # by value, best first (ties keep the heuristic's order)
        j = i
        while j > 0 and val[idx[j]] > val[idx[j - 1]]:
            t = idx[j]
            idx[j] = idx[j - 1]
            idx[j - 1] = t
            j -= 1
    m = min(int(theta[L.T_M]), nc)
    reps = int(theta[L.T_REPS])
    best = idx[0]
    if m >= 2 and reps > 0:
        st = ws[X_S:X_S + E.S_SIZE]
        rws = ws[LWS:2 * LWS]
        bsc = -1.0
        for i in range(m):
            c = idx[i]
            tot = 0.0
            for r in range(reps):
                H.end_of(s, p, lws, np.int64(c), st)
                L.hist_copy(rws, lws)
                if st[E.PHASE] != PH_TERMINAL:
                    L.hist_add(rws, E.position_hash(st))
                tot += rollout(st, p, theta, net, me, ws, draw(key, r))
            if tot > bsc:
                bsc = tot
                best = c
    L.plan_end(s, p, lws, np.int64(best))
    return best


@njit(cache=True, _nrt=False)
def expert_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending); randomness only from `key`."""
    lws = ws[0:LWS]
    a = H.planned_action(s, seat, acts, n, lws)
    if a >= 0:
        return a
    L.note_turn(s, lws)
    c = choose(s, p, theta, net, seat, ws, key)
    if c >= 0:
        a = L.play_chosen(s, lws, c, acts, n)
        if a >= 0:
            return a
    lws[H.W_VALID] = 0
    return acts[0]
