"""Bethel Woods: the learned player (policy `learned`), the studies' player.

Once per turn (and whenever the position is not the one its plan expects) it

1. runs the heuristic's whole-turn planner (``heuristic.plan_turn``) keeping its K best plans with
   distinct end positions (W_TOPK = theta[T_K], default 16), each with its end position;
2. scores each end position with a learned value (``policies/value_model.py``: a network of one
   hidden layer over ``features.FEATURE_NAMES``, trained by ``boardsim train bethel-woods`` on
   rollout outcomes: an estimate of the probability that the players win from there);
3. plays the plan with the highest value: a plan that wins at once first, and a plan that leaves
   four machines critical at `end turn` (a certain loss) only when every plan does.

So the heuristic proposes and the learned value disposes: the planner's linear score keeps its
role of finding good plans fast (every pick-up and drop order), and the choice among the best of
them is made by what they are worth in the game (the heuristic prices a certain loss at about a
token, docs/policies.md). Payments outside the plan use the heuristic's canonical rule. Every
choice is deterministic (the key is not used), unless the skill dial is turned (theta[T_TEMP] > 0:
``choose_soft``, a softmax over the kept plans' values drawn from the decision's key).

theta: the heuristic's 24 weights (for the planner), T_K (plans kept, default 16), T_KTOP (the
planner's ability search after this many stage-1 positions, default 3 where the heuristic takes 6:
measured below), two fields the expert reads (T_M, T_BUDGET), the skill dial (T_TEMP) and the
expert's rollout depth (T_DEPTH). The network is an array of its own, ``net`` (``value_model.pack``;
all zeros: no network); its default (``learned_net``) reads the model file ``learned.json`` beside
this module; a missing, truncated or foreign file is a one-line error naming the command that
trains one.

Workspace (int32): [0, HWS) the heuristic's (candidates, their end positions, the plan), then
float64 scratch viewed over int32 pairs: the features and the hidden units, the kept plans'
values, their features (a padded row each, ``screen_values``); then each kept end's critical
machines.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simcore.bethel_woods import GAME, engine as E
from simcore.bethel_woods.actions import A_END_TURN, PH_PAY, PH_TERMINAL, OUT_WIN
from simcore.layout import Layout

from .. import value_model as VM
from ..plan import contains
from . import heuristic as H
from .features import FEATURE_NAMES, NF, features

# ---- parameter vector layout (float64; a table as the workspace's, simcore/layout.py) -----------------
# the skill dial (T_TEMP): 0 (the default) plays the plan of the highest value; T > 0 plays kept plan
# c with probability proportional to exp((value_c - best value) / T), the values being
# win-probability estimates, so T is in units of a chance of winning (docs/studies.md, "The skill
# dial"); drawn from the decision's key (the policy's own stream, never the game's chance)
THETA = Layout(
    ("T_WEIGHTS", len(H.THETA_DEFAULT), None, "the heuristic's weights, its planner's (heuristic.THETA_NAMES)"),
    ("T_K", 1, None, "plans the planner keeps for the value to choose from"),
    ("T_KTOP", 1, None, "stage-1 positions the planner's ability search starts from (heuristic: 6)"),
    ("T_M", 1, None, "expert: plans compared by rollouts"),
    ("T_BUDGET", 1, None, "expert: rollouts per decision"),
    ("T_TEMP", 1, None, "the skill dial's temperature (0: off)"),
    ("T_DEPTH", 1, None, "expert: turns a rollout plays before the learned value scores it (0: to the end)"),
)
globals().update(THETA.offsets)   # T_WEIGHTS = 0, T_K = 24, ...
THETA_SIZE = THETA.size
K_DEFAULT = 16
KTOP_DEFAULT = 3
MAX_HIDDEN = 128             # hidden units a model may have (the scratch below is sized for it)
NET_SIZE = VM.packed_size(NF, MAX_HIDDEN)   # the network's array (value_model.pack), any model up to MAX_HIDDEN
LOSS_VALUE = -1.0e6          # a plan that leaves four machines critical at `end turn`
WIN_VALUE = 1.0e6

MODEL_PATH = Path(__file__).with_name("learned.json")
COMMAND = "boardsim train bethel-woods"

# ---- workspace layout (int32) ---------------------------------------------------------------------------
# (a table as the heuristic's, simcore/layout.py; float64 fields take two int32 entries and start at
# an even offset, which tests/test_layout.py checks)
HWS = H.WS_SIZE + (H.WS_SIZE & 1)   # the heuristic's workspace, padded to an even size
NFS = VM.stride(NF)                 # a kept plan's features padded with zeros (value_model.values)
WS = Layout(
    ("L_HEURISTIC", HWS, None, "the heuristic's workspace (the planner's), padded to an even size"),
    ("L_FV", 2 * NF, None, "the features (float64)"),
    ("L_H", 2 * MAX_HIDDEN, None, "the hidden units (float64)"),
    ("L_V", 2 * H.K_CAND, None, "the kept plans' values (float64; the skill dial)"),
    ("L_X", 2 * H.K_CAND * NFS, None, "the kept plans' features, a row each (float64)"),
    ("L_NCRIT", H.K_CAND, None, "machines critical at each kept plan's end (-1: the game ends there)"),
)
globals().update(WS.offsets)   # L_HEURISTIC = 0, L_FV = HWS, ...
WS_SIZE = WS.size
FLOAT_FIELDS = ("L_FV", "L_H", "L_V", "L_X")


# the installed model file, read the one way (policies/value_model.py): model_record(path=None),
# model_label(path=None), learned_available(path=None)
MODEL = VM.ModelFile(MODEL_PATH, GAME.name, FEATURE_NAMES, COMMAND, MAX_HIDDEN)
model_record, model_label, learned_available = MODEL.record, MODEL.label, MODEL.available


def learned_net(net: dict | None = None) -> np.ndarray:
    """The learned player's network array (NET_SIZE): `net` (a model as ``model_record`` reads
    it; default: the installed model file's) packed."""
    return VM.net_array(model_record() if net is None else net, NET_SIZE, MAX_HIDDEN)


def learned_theta(k: int = K_DEFAULT, ktop: int = KTOP_DEFAULT) -> np.ndarray:
    """The learned player's parameter vector: the heuristic's default weights (its planner's), k
    and ktop. With a network of zeros (``value_model.no_net``) it plays the planner's best kept
    plan, the heuristic's choice but for ties (the first round of training)."""
    t = np.zeros(THETA_SIZE, dtype=np.float64)
    t[:T_K] = H.THETA_DEFAULT
    t[T_K] = k
    t[T_KTOP] = ktop
    return t


@njit(cache=True, _nrt=False)
def learned_reset(ws):
    H.heuristic_reset(ws)


@njit(cache=True, _nrt=False)
def candidate_value(st, p, net, ws):
    """The learned value of the end position st of a plan (ws: the planner's workspace of that
    plan, whose tables the features read). A win is WIN_VALUE; four machines critical (lost at
    `end turn`) add LOSS_VALUE."""
    if st[E.PHASE] == PH_TERMINAL:
        return WIN_VALUE if st[E.OUTCOME] == OUT_WIN else -WIN_VALUE
    fv = ws[L_FV: L_FV + 2 * NF].view(np.float64)
    hb = ws[L_H: L_H + 2 * MAX_HIDDEN].view(np.float64)
    ncrit = features(st, p, ws, fv)
    v = VM.value(fv, net, 0, hb)
    if ncrit >= E.CRITICAL_LOSS_AT:
        v += LOSS_VALUE
    return v


@njit(cache=True, _nrt=False)
def plan_value(p, net, ws, c):
    """The value of kept plan c (``candidate_value`` of its end); with no network (net[0] = 0),
    the planner's own score."""
    if net[0] == 0.0:
        return ws[H.W_TSC + c] / H.SCORE_SCALE
    return candidate_value(ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE], p, net, ws)


@njit(cache=True, _nrt=False)
def screen_values(p, net, ws, nc, vals):
    """vals[c] for c < nc: kept plan c's value (``plan_value``'s rules) to the last few bits, the
    network evaluated at all kept ends together (``value_model.values``, four at a time; vals
    needs room for nc rounded up to 4). Keeps each end's features (row c of L_X, padded with
    zeros) and critical machines (L_NCRIT + c; -1 where the game ends) for ``exact_value``."""
    for c in range(nc):
        st = ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE]
        if st[E.PHASE] == PH_TERMINAL:
            ws[L_NCRIT + c] = -1
            continue
        row = ws[L_X + 2 * NFS * c: L_X + 2 * NFS * (c + 1)].view(np.float64)
        ws[L_NCRIT + c] = features(st, p, ws, row)
        for i in range(NF, NFS):
            row[i] = 0.0
    VM.values(ws[L_X: L_X + 2 * NFS * H.K_CAND].view(np.float64), NFS, nc, net, 0, vals)
    for c in range(nc):
        k = ws[L_NCRIT + c]
        if k < 0:
            st = ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE]
            vals[c] = WIN_VALUE if st[E.OUTCOME] == OUT_WIN else -WIN_VALUE
        elif k >= E.CRITICAL_LOSS_AT:
            vals[c] += LOSS_VALUE


@njit(cache=True, _nrt=False)
def exact_value(p, net, ws, c):
    """``plan_value`` of kept plan c, bit for bit, from the features ``screen_values`` kept
    (``value_model.value`` at them, as ``candidate_value`` computes it)."""
    k = ws[L_NCRIT + c]
    if k < 0:
        st = ws[H.W_TST + c * H.S_SIZE: H.W_TST + (c + 1) * H.S_SIZE]
        return WIN_VALUE if st[E.OUTCOME] == OUT_WIN else -WIN_VALUE
    fv = ws[L_X + 2 * NFS * c: L_X + 2 * NFS * (c + 1)].view(np.float64)
    hb = ws[L_H: L_H + 2 * MAX_HIDDEN].view(np.float64)
    v = VM.value(fv, net, 0, hb)
    if k >= E.CRITICAL_LOSS_AT:
        v += LOSS_VALUE
    return v


@njit(cache=True, _nrt=False)
def best_plan(p, net, ws, nc):
    """The kept plan of the highest ``plan_value`` (ties: the first kept), as valuing every plan
    with it would find it: the kept plans are screened together (``screen_values``); a plan more
    than MARGIN below the screen's best cannot be the best (value_model.MARGIN), a plan whose
    features are those of an earlier one near the top has its value (and comes later), and the
    rest are valued exactly, unless only one is left."""
    if net[0] == 0.0:
        best = 0
        bv = -1.0e300
        for c in range(nc):
            v = ws[H.W_TSC + c] / H.SCORE_SCALE
            if v > bv:
                bv = v
                best = c
        return best
    vals = ws[L_V: L_V + 2 * H.K_CAND].view(np.float64)
    screen_values(p, net, ws, nc, vals)
    X = ws[L_X: L_X + 2 * NFS * H.K_CAND].view(np.float64)
    # bit c of live: plan c may be the best (near the top, not a copy of an earlier one; an end
    # where the game is over, L_NCRIT -1, is never taken for a copy)
    live, m, first = VM.near_top(vals, nc, X, NFS, ws[L_NCRIT: L_NCRIT + nc], False)
    if m == 1:
        return first
    best = 0
    bv = -1.0e300
    for c in range(nc):
        if (live >> c) & 1:
            v = exact_value(p, net, ws, c)
            if v > bv:
                bv = v
                best = c
    return best


@njit(cache=True, _nrt=False)
def plan_candidates(s, p, theta, ws):
    """The planner's theta[T_K] best distinct plans from s (at W_TPATH, their ends at W_TST), its
    ability search after the theta[T_KTOP] best stage-1 positions; their number."""
    ws[H.W_TOPK] = int(theta[T_K])
    ws[H.W_KTOP] = int(theta[T_KTOP])
    H.plan_turn(s, p, theta, ws)
    ws[H.W_TOPK] = 0
    ws[H.W_KTOP] = 0
    return ws[H.W_TN]


@njit(cache=True, _nrt=False)
def store_candidate(s, ws, c):
    """Make kept plan c (followed by `end turn`) the plan to play from s."""
    n = ws[H.W_TPL + c]
    for i in range(n):
        ws[H.W_PLAN + i] = ws[H.W_TPATH + c * H.PATH_MAX + i]
    if n < H.PATH_MAX:
        ws[H.W_PLAN + n] = A_END_TURN  # harmless when the plan ends the game
        n += 1
    ws[H.W_PLAN_N] = n
    ws[H.W_PLAN_I] = 0
    ws[H.W_TURN] = s[E.TURN]
    ws[H.W_DEC0] = s[E.ST_DECISIONS]
    ws[H.W_VALID] = 1


@njit(cache=True, _nrt=False)
def choose(s, p, theta, net, ws):
    """Plan the turn and store the kept plan of the highest value (ties: the first kept;
    ``best_plan``)."""
    nc = plan_candidates(s, p, theta, ws)
    if nc == 0:
        return  # the heuristic's own plan (plan_turn stored it) stays
    store_candidate(s, ws, best_plan(p, net, ws, nc))


def dial_theta(temperature: float, theta: np.ndarray | None = None) -> np.ndarray:
    """The learned player's vector (default: ``learned_theta()``) with the skill dial at
    `temperature` (``value_model.with_dial``)."""
    return VM.with_dial(learned_theta() if theta is None else theta, T_TEMP, temperature)


@njit(cache=True, _nrt=False)
def choose_soft(s, p, theta, net, ws, key):
    """Plan the turn and store a kept plan drawn by the skill dial (theta[T_TEMP] > 0): plan c with
    probability proportional to exp((value_c - the best value) / T), one number of the decision's
    key. A plan that wins at once has value WIN_VALUE, so it is always taken; a certain loss has
    about LOSS_VALUE, so it is taken only when every plan loses."""
    nc = plan_candidates(s, p, theta, ws)
    if nc == 0:
        return
    vals = ws[L_V: L_V + 2 * H.K_CAND].view(np.float64)
    bv = -1.0e300
    for c in range(nc):
        vals[c] = plan_value(p, net, ws, c)
        if vals[c] > bv:
            bv = vals[c]
    store_candidate(s, ws, VM.softmax_pick(vals, nc, bv, theta[T_TEMP], key))


@njit(cache=True, _nrt=False)
def learned_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending); `key` is used only by the skill
    dial (theta[T_TEMP] > 0)."""
    a = H.planned_step(s, seat, acts, n, ws)
    if a >= 0:
        return a
    if s[E.PHASE] == PH_PAY:
        a = H.pay_rule(s, p, ws)
        return a if contains(acts, n, a) else acts[0]
    if H.planning_turn(s, seat):
        if theta[T_TEMP] > 0.0:
            choose_soft(s, p, theta, net, ws, key)
        else:
            choose(s, p, theta, net, ws)
        a = ws[H.W_PLAN]
        if ws[H.W_PLAN_N] > 0 and contains(acts, n, a):
            ws[H.W_PLAN_I] = 1
            return a
        ws[H.W_VALID] = 0
    return acts[0]
