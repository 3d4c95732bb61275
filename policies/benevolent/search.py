"""Benevolent: flat Monte Carlo search over the heuristic's best turn plans.

Once per turn (like the heuristic, whose plan-replay it shares) the policy

1. runs the heuristic's whole-turn search and keeps its `candidates` best plans (by the
   heuristic's evaluation);
2. plays each candidate plan on a copy of the position, then continues the game for `horizon`
   turns (all seats) with the heuristic as rollout policy, each rollout turn scored with noise
   (`noise` x U[0,1) added to every end of turn the heuristic scores, drawn from the search's own
   key), so that rollouts of one plan differ;
3. values a rollout 1 if the searching seat has won, 0 if another seat has, 0.5 for a timeout,
   and otherwise the logistic of the heuristic's evaluation at the horizon, evaluate / 10 (ten
   points are about one gift kind);
4. plays the candidate with the highest mean value (ties: the heuristic's order).

`budget` rollouts per decision (per turn plan) are shared evenly by the candidates (at least one
each), and rollout r of every candidate uses the same key, number r of the decision's key
(common random numbers: the candidates are compared on the same noise). A winning plan, or a
single candidate, is played without rollouts.

Why flat Monte Carlo and not information-set MCTS: Benevolent hides nothing and has no chance
after setup (engine.py), so there is nothing to determinize: the one consistent world is the
position itself. The search's only randomness is the rollouts' noise, from its own key. Flat
Monte Carlo over a few strong candidates (the heuristic's best) spends the whole budget on
telling those apart, while a tree would spread it over the hundreds of plans of a turn.

theta: the heuristic's weights (THETA_NAMES of heuristic.py, used by the candidate search, the
rollouts and the horizon value), then budget, candidates, horizon, noise.
"""
import numpy as np
from numba import njit

from simcore.benevolent import engine as E
from simcore.benevolent.actions import OUT_WIN, PH_TERMINAL
from simcore.layout import EVEN, Layout
from simcore.rng import draw

from ..plan import contains
from . import heuristic as H

SEARCH_NAMES = ("budget", "candidates", "horizon", "noise")
THETA_NAMES = H.THETA_NAMES + SEARCH_NAMES
THETA_DEFAULT = np.concatenate([H.THETA_DEFAULT, np.array([32.0, 4.0, 8.0, 3.0])])
THETA_BOUNDS = np.concatenate([H.THETA_BOUNDS, np.array([[1.0, 4096.0], [1.0, H.K_MAX], [0.0, 400.0],
                                                          [0.0, 50.0]])])
T_BUDGET = H.N_THETA
T_CAND = H.N_THETA + 1
T_HORIZON = H.N_THETA + 2
T_NOISE = H.N_THETA + 3
N_THETA = len(THETA_NAMES)
VALUE_SCALE = 10.0   # the horizon value is 1 / (1 + exp(-evaluate / VALUE_SCALE))

# ---- workspace layout (int32): the heuristic's, then the search's ------------------------------------
# (a table as the heuristic's, simcore/layout.py; the rollouts' heuristic workspace starts at an
# even offset, so that its own float64/uint64 fields do)
WS = Layout(
    ("W_HEURISTIC", H.WS_SIZE, None, "the heuristic's workspace (the candidates' search, the plan)"),
    ("W_ROOT", E.S_SIZE, None, "the rollout position"),
    ("W_SUB", H.WS_SIZE, None, "the rollout policy's own heuristic workspace", EVEN),
)
globals().update(WS.offsets)   # W_HEURISTIC = 0, W_ROOT = H.WS_SIZE, W_SUB
WS_SIZE = WS.size

_WIN_Q = int(H.WIN_SCORE * H.SCORE_SCALE)   # a candidate scored this wins on the spot


@njit(cache=True, _nrt=False)
def rollout(st, p, theta, me, sub, horizon, noise, rkey):
    """Continue the game at st for `horizon` turns with the noisy heuristic for every seat; the
    value of the end for `me`."""
    t0 = st[E.TURN]
    while st[E.PHASE] != PH_TERMINAL and st[E.TURN] - t0 < horizon:
        x = st[E.CUR]
        if H.search_turn(st, p, theta, np.int64(x), sub, np.int64(1), noise, draw(rkey, st[E.TURN])) == 0:
            break
        for i in range(sub[H.W_CPL]):
            E.apply(st, p, np.int64(sub[H.W_CPATH + i]))
    if st[E.PHASE] == PH_TERMINAL:
        if st[E.OUTCOME] == OUT_WIN:
            return 1.0 if st[E.WINNER] == me else 0.0
        return 0.5
    return 1.0 / (1.0 + np.exp(-H.evaluate(st, p, theta, me) / VALUE_SCALE))


@njit(cache=True, _nrt=False)
def choose(s, p, theta, me, ws, key):
    """Search from s (me to play); return the index of the chosen candidate (or -1: none)."""
    k = int(theta[T_CAND])
    k = 1 if k < 1 else (H.K_MAX if k > H.K_MAX else k)
    nc = H.search_turn(s, p, theta, me, ws, k, 0.0, key)
    if nc <= 1 or ws[H.W_CSC] >= _WIN_Q:
        return nc - 1 if nc <= 1 else 0
    budget = int(theta[T_BUDGET])
    reps = budget // nc
    if reps < 1:
        reps = 1
    horizon = int(theta[T_HORIZON])
    noise = theta[T_NOISE]
    st = ws[W_ROOT: W_ROOT + E.S_SIZE]
    sub = ws[W_SUB: W_SUB + H.WS_SIZE]
    best = 0
    best_v = -1.0
    for c in range(nc):
        tot = 0.0
        for r in range(reps):
            E.copy_position(st, s)
            for i in range(ws[H.W_CPL + c]):
                E.apply(st, p, np.int64(ws[H.W_CPATH + c * H.DEPTH_MAX + i]))
            tot += rollout(st, p, theta, me, sub, horizon, noise, draw(key, r))
        if tot > best_v:
            best_v = tot
            best = c
    return best


@njit(cache=True, _nrt=False)
def search_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending); randomness only from `key`. `net`
    is unused (the search reads no network; the plug point's signature)."""
    a = H.planned_action(s, seat, acts, n, ws)
    if a >= 0:
        return a
    c = choose(s, p, theta, seat, ws, key)
    if c >= 0:
        H.store_plan(s, ws, c)
        a = H.play_plan(ws, c)
        if contains(acts, n, a):
            return a
    ws[H.W_VALID] = 0
    return acts[0]


@njit(cache=True, _nrt=False)
def search_reset(ws):
    H.heuristic_reset(ws)
