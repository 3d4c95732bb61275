"""Bethel Woods: the best honest player (policy `expert`): successive halving over the learned
player's best plans, with the learned player as rollout policy.

Once per turn (the plan is replayed like the heuristic's) it

1. lets the planner keep its K best distinct plans and ranks them by the learned value
   (``learned.candidate_value``), as the learned player does;
2. compares the M best (theta[T_M], default 4) by rollouts: each plan is played on a copy of the
   position, the turn ended, and the game played out to the end by the learned player in every
   seat, the chance events drawn by ``engine.chance_outcome`` from a key of its own (a future
   consistent with everything the players know: the determinization of search.py);
3. successive halving (Karnin, Koren and Somekh 2013): the budget (theta[T_BUDGET] rollouts per
   decision, default 16) is split over ceil(log2 M) rounds; each round plays every plan still in
   on the same sampled futures (common random numbers: rollout r of every plan uses key number r
   of this decision's key) and keeps the better half (ties: the value's order), so the last
   rollouts go to the closest plans;
4. plays the survivor (with no budget, or a single plan: the learned player's own choice).

It never sees the game's chance key: its keys are this decision's key, from the seat's policy
stream. theta is the learned player's vector (``learned.T_M`` and ``learned.T_BUDGET`` set), net
the learned player's network.

Workspace (int32): [0, LWS) the learned player's (the candidates), [LWS, 2 LWS) the rollouts'
(every seat of a rollout plans with it afresh), then the search's own fields (below).
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import A_END_TURN, N_ACTIONS, OUT_WIN, PH_PAY, PH_POST
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL
from simcore.layout import Layout
from simcore.rng import draw

from ..plan import contains
from . import heuristic as H
from . import learned as L

M_DEFAULT = 4
BUDGET_DEFAULT = 16
DEPTH_DEFAULT = 2     # turns a rollout plays, then the learned value scores it (0: to the end; docs/policies.md)

# ---- workspace layout (int32) ---------------------------------------------------------------------------
# (a table as the heuristic's, simcore/layout.py; float64 fields start at an even offset)
LWS = L.WS_SIZE
X0 = 2 * LWS
WS = Layout(
    ("X_LEARNED", X0, None, "two learned workspaces: the expert's own decision, and its rollouts' player"),
    ("X_NROLL", 1, None, "statistics: rollouts played (wraps around)"),
    ("X_PAD", 1, None, "unused: keeps the float64 fields below at even offsets"),
    ("X_IDX", H.K_CAND, None, "kept plans, by value then by rollouts"),
    ("X_WINS", 2 * H.K_CAND, None, "rollouts won (float64: a truncated rollout scores its end's value, a "
                                   "chance of winning; in X_IDX's order)"),
    ("X_VAL", 2 * H.K_CAND, None, "the plans' values (float64, by kept index)"),
    ("X_ACTS", N_ACTIONS, None, "legal actions in a rollout"),
    ("X_S", E.S_SIZE, None, "the rollout's position"),
)
globals().update(WS.offsets)   # X_LEARNED = 0, X_NROLL = X0, ...
WS_SIZE = WS.size
FLOAT_FIELDS = ("X_WINS", "X_VAL")


def expert_theta(m: int = M_DEFAULT, budget: int = BUDGET_DEFAULT, depth: int = DEPTH_DEFAULT) -> np.ndarray:
    """The expert's parameter vector: the learned player's with m, budget and depth set (its
    network is the learned player's, ``learned.learned_net``)."""
    t = L.learned_theta()
    t[L.T_M] = m
    t[L.T_BUDGET] = budget
    t[L.T_DEPTH] = depth
    return t


@njit(cache=True, _nrt=False)
def expert_reset(ws):
    L.learned_reset(ws[0:LWS])
    L.learned_reset(ws[LWS:2 * LWS])


@njit(cache=True, _nrt=False)
def _end_value(s, p, theta, net, rws):
    """What a truncated rollout scores at s (a seat about to plan its turn): the learned value of
    the plan the learned player would play there (``learned.best_plan``: the highest value of the
    planner's kept plans), as a chance of winning in [0, 1]: a plan that wins at once 1, a
    certain loss 0."""
    nc = L.plan_candidates(s, p, theta, rws)
    if nc == 0:
        return -1.0
    return min(1.0, max(0.0, L.plan_value(p, net, rws, L.best_plan(p, net, rws, nc))))


@njit(cache=True, _nrt=False)
def rollout(s, p, theta, net, ws, rk):
    """Play the game at s (the end of a plan) out with the learned player for every seat, chance
    drawn from rk; 1.0 if the players win, 0.0 if they lose. With theta[T_DEPTH] = d > 0 the
    rollout stops when a seat is about to plan the d-th turn after this one and scores the
    learned value there (``_end_value``): the same futures, a fraction of the play, and a score
    of less variance than a single win or loss."""
    rws = ws[LWS:2 * LWS]
    acts = ws[X_ACTS:X_ACTS + N_ACTIONS]
    depth = int(theta[L.T_DEPTH])
    if s[E.PHASE] == PH_POST:
        E.apply(s, p, np.int64(A_END_TURN))
    stop = s[E.TURN] + depth
    L.learned_reset(rws)
    while True:
        q = E.current_player(s)
        if q == PLAYER_TERMINAL:
            break
        if q == PLAYER_CHANCE:
            E.apply_chance_inlined(s, p, E.chance_outcome_inlined(s, p, rk))
        else:
            if depth > 0 and s[E.TURN] >= stop and H.planning_turn(s, q):
                v = _end_value(s, p, theta, net, rws)
                if v >= 0.0:
                    ws[X_NROLL] = (ws[X_NROLL] + 1) & 0x3FFFFFFF
                    return v
            n = E.legal_actions(s, p, acts)
            E.apply(s, p, np.int64(L.learned_action(s, p, theta, net, q, acts, n, rk, rws)))
    ws[X_NROLL] = (ws[X_NROLL] + 1) & 0x3FFFFFFF
    return 1.0 if s[E.OUTCOME] == OUT_WIN else 0.0


@njit(cache=True, _nrt=False)
def _choose(s, p, theta, net, ws, key):
    """Store the plan to play from s (L.store_candidate) in the learned workspace."""
    lws = ws[0:LWS]
    nc = L.plan_candidates(s, p, theta, lws)
    if nc == 0:
        return
    idx = ws[X_IDX:X_IDX + H.K_CAND]
    wins = ws[X_WINS:X_WINS + 2 * H.K_CAND].view(np.float64)
    val = ws[X_VAL:X_VAL + 2 * H.K_CAND].view(np.float64)
    for c in range(nc):
        val[c] = L.plan_value(p, net, lws, c)
        idx[c] = c
    for i in range(1, nc):  # by value, best first (ties keep the kept order)
        j = i
        while j > 0 and val[idx[j]] > val[idx[j - 1]]:
            t = idx[j]
            idx[j] = idx[j - 1]
            idx[j - 1] = t
            j -= 1
    live = min(int(theta[L.T_M]), nc)
    budget = int(theta[L.T_BUDGET])
    if live >= 2 and budget > 0 and val[idx[0]] < L.WIN_VALUE:
        rounds = 0
        t = live
        while t > 1:
            rounds += 1
            t = (t + 1) // 2
        for i in range(live):
            wins[i] = 0.0
        left = budget
        r0 = 0
        st = ws[X_S:X_S + E.S_SIZE]
        for rd in range(rounds):
            per = left // ((rounds - rd) * live)
            if per < 1:
                per = 1
            for r in range(per):
                rk = draw(key, r0 + r)
                for i in range(live):
                    c = idx[i]
                    for z in range(E.S_SIZE):
                        st[z] = lws[H.W_TST + c * H.S_SIZE + z]
                    wins[i] += rollout(st, p, theta, net, ws, rk)
            left -= per * live
            r0 += per
            for i in range(1, live):  # by rollouts won, best first (ties keep the value's order)
                j = i
                while j > 0 and wins[j] > wins[j - 1]:
                    t = idx[j]
                    idx[j] = idx[j - 1]
                    idx[j - 1] = t
                    w = wins[j]
                    wins[j] = wins[j - 1]
                    wins[j - 1] = w
                    j -= 1
            live = (live + 1) // 2
    L.store_candidate(s, lws, idx[0])


@njit(cache=True, _nrt=False)
def expert_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending); `key`: this decision's key from the
    seat's policy stream (the rollouts' futures are drawn from it)."""
    lws = ws[0:LWS]
    a = H.planned_step(s, seat, acts, n, lws)
    if a >= 0:
        return a
    if s[E.PHASE] == PH_PAY:
        a = H.pay_rule(s, p, lws)
        return a if contains(acts, n, a) else acts[0]
    if H.planning_turn(s, seat):
        _choose(s, p, theta, net, ws, key)
        a = lws[H.W_PLAN]
        if lws[H.W_PLAN_N] > 0 and contains(acts, n, a):
            lws[H.W_PLAN_I] = 1
            return a
        lws[H.W_VALID] = 0
    return acts[0]
