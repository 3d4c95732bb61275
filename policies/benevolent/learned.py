"""Benevolent: the learned player (policy `learned`), the studies' player.

Once per turn (and whenever the position is not the one its plan expects) it

1. runs the heuristic's whole-turn search (``heuristic.search_turn``) keeping its K best plans
   with distinct end positions (theta[T_K], default 8; ``heuristic.W_DISTINCT``);
2. scores each plan's end with a learned value (``policies/value_model.py``: a network of one
   hidden layer over ``features.FEATURE_NAMES``, trained on rollout outcomes: an estimate of the
   share of games the seat wins from there), less theta[T_LAM] (default 10) for every time that
   position has been seen before in this game (the repetition table below);
3. plays the plan with the highest value (a plan that wins at once first; ties: the heuristic's
   order).

The heuristic proposes and the learned value disposes, as in Bethel Woods (docs/policies.md). The
repetition term is what ends the heuristic's gift loops (two players handing the same gift back
and forth forever, docs/policies.md): a position that has come back is worth less each time.

The repetition table is what the seat has seen of this game, as any player at the table could
note it: the position at the start of each of its turns and the end of each plan it played (in a
2-player game, every turn's end), counted by a 64-bit hash (``engine.position_hash``) in an open
addressing table of HT slots. Every choice is deterministic (the key is not used).

theta: the heuristic's weights (THETA_NAMES of heuristic.py), T_K, T_LAM, the expert's fields
(T_M, T_REPS, T_RK, T_RNOISE, T_HMAX; policies/benevolent/expert.py), the skill dial (T_TEMP)
and the expert's rollout depth (T_DEPTH). The network is an array of its own, ``net``
(``value_model.pack``; all zeros: no network); its default (``learned_net``) reads the model
file ``learned.json`` beside this module; a missing, truncated or foreign file is a one-line error
naming the command that trains one.

Workspace (int32): [0, HWS) the heuristic's (candidates, the plan), an end position, float64
scratch viewed over int32 pairs (features, hidden units), then the repetition table (uint64
hashes viewed over int32 pairs, int32 counts) and its bookkeeping, the kept plans' values, their
features (a padded row each, ``screen_values``) and each kept end's earlier occurrences.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simcore.benevolent import GAME, engine as E
from simcore.benevolent.actions import OUT_WIN, PH_TERMINAL
from simcore.layout import EVEN, Layout

from .. import value_model as VM
from ..plan import contains
from . import heuristic as H
from .features import FEATURE_NAMES, NF, features

# ---- parameter vector layout (float64; a table as the workspace's, simcore/layout.py) -----------------
# the skill dial (T_TEMP): 0 (the default) plays the plan of the highest value; T > 0 plays kept plan
# c with probability proportional to exp((value_c - best value) / T), in the value's units (an
# estimate of the chance of winning, less the repetition penalty), drawn from the decision's key
# (the policy's own stream); docs/studies.md, "The skill dial"
THETA = Layout(
    ("T_WEIGHTS", H.N_THETA, None, "the heuristic's weights (heuristic.THETA_NAMES)"),
    ("T_K", 1, None, "plans kept for the value to choose from"),
    ("T_LAM", 1, None, "the value lost per earlier occurrence of a plan's end in this game"),
    ("T_M", 1, None, "expert: plans compared by rollouts"),
    ("T_REPS", 1, None, "expert: rollouts per compared plan"),
    ("T_RK", 1, None, "expert: plans kept by the rollouts' learned players"),
    ("T_RNOISE", 1, None, "expert: the rollouts' players play their second plan with probability T_RNOISE / 10"),
    ("T_HMAX", 1, None, "expert: turns a rollout may last (then it counts as not won)"),
    ("T_TEMP", 1, None, "the skill dial's temperature (0: off)"),
    ("T_DEPTH", 1, None, "expert: turns a rollout plays before the learned value scores it (0: to the end)"),
)
globals().update(THETA.offsets)   # T_WEIGHTS = 0, T_K = H.N_THETA, ...
THETA_SIZE = THETA.size
K_DEFAULT = 8
LAM_DEFAULT = 10.0
MAX_HIDDEN = 128
NET_SIZE = VM.packed_size(NF, MAX_HIDDEN)   # the network's array (value_model.pack), any model up to MAX_HIDDEN
HT = 2048                # repetition table slots (power of two; a game has at most 800 turns)

MODEL_PATH = Path(__file__).with_name("learned.json")
COMMAND = "boardsim train benevolent"

# ---- workspace layout (int32) ---------------------------------------------------------------------------
# (a table as the heuristic's, simcore/layout.py; the fields of float64 or uint64 values, two int32
# entries a value read through a view, are marked EVEN: they start at an even offset)
HWS = H.WS_SIZE + (H.WS_SIZE & 1)   # the heuristic's workspace, padded to an even size
NFS = VM.stride(NF)                 # a kept plan's features padded with zeros (value_model.values)
WS = Layout(
    ("L_HEURISTIC", HWS, None, "the heuristic's workspace (its candidates, the plan), padded to an even size"),
    ("L_ST", E.S_SIZE, None, "a plan's end position"),
    ("L_FV", 2 * NF, None, "the features (float64)", EVEN),
    ("L_H", 2 * MAX_HIDDEN, None, "the hidden units (float64)", EVEN),
    ("L_TAB", 2 * HT, None, "the repetition table: the hashes seen (uint64; 0 = free)", EVEN),
    ("L_CNT", HT, None, "how often each was seen"),
    ("L_NTAB", 1, None, "entries in the table"),
    ("L_LAST", 1, None, "the turn whose start was last entered"),
    ("L_CT", 1, None, "the chosen plan's end is the game's end (1) or not (0)"),
    ("L_CH", 2, None, "the hash of the chosen plan's end (uint64)", EVEN),
    ("L_V", 2 * H.K_MAX, None, "the kept plans' values (float64; the skill dial)", EVEN),
    ("L_X", 2 * H.K_MAX * NFS, None, "the kept plans' features, a row each (float64)", EVEN),
    ("L_REP", H.K_MAX, None, "earlier occurrences of each kept plan's end (-1: won by another seat)"),
    ("L_WM", 2 * VM.meta_size(), None, "which network L_WT holds (float64; value_model.transposed)", EVEN),
    ("L_WT", 2 * NF * MAX_HIDDEN, None, "the network's first layer, feature by feature (float64)", EVEN),
    ("L_ACC", 2 * (2 * MAX_HIDDEN + 2 * NF), None, "values_sparse's scratch (float64)", EVEN),
)
globals().update(WS.offsets)   # L_HEURISTIC = 0, L_ST = HWS, ...
WS_SIZE = WS.size


# the installed model file, read the one way (policies/value_model.py): model_record(path=None),
# model_label(path=None), learned_available(path=None)
MODEL = VM.ModelFile(MODEL_PATH, GAME.name, FEATURE_NAMES, COMMAND, MAX_HIDDEN)
model_record, model_label, learned_available = MODEL.record, MODEL.label, MODEL.available


def learned_theta(k: int = K_DEFAULT, lam: float = LAM_DEFAULT, theta_h=None) -> np.ndarray:
    """The learned player's parameter vector: the heuristic's weights (default: its defaults), k
    and lam. With a network of zeros (``value_model.no_net``) it plays the heuristic's best plan,
    less the repetition term."""
    t = np.zeros(THETA_SIZE, dtype=np.float64)
    t[:T_K] = H.THETA_DEFAULT if theta_h is None else theta_h
    t[T_K] = k
    t[T_LAM] = lam
    return t


def learned_net(net: dict | None = None) -> np.ndarray:
    """The learned player's network array (NET_SIZE): `net` (a model as ``model_record`` reads
    it; default: the installed model file's) packed."""
    return VM.net_array(model_record() if net is None else net, NET_SIZE, MAX_HIDDEN)


@njit(cache=True, _nrt=False)
def hist_clear(ws):
    tab = ws[L_TAB:L_TAB + 2 * HT].view(np.uint64)
    for i in range(HT):
        tab[i] = 0
        ws[L_CNT + i] = 0
    ws[L_NTAB] = 0
    ws[L_LAST] = -1


@njit(cache=True, _nrt=False)
def _slot(tab, h):
    i = np.int64(h & np.uint64(HT - 1))
    while tab[i] != 0 and tab[i] != h:
        i = (i + 1) & (HT - 1)
    return i


@njit(cache=True, _nrt=False)
def hist_add(ws, h):
    """Count position hash h once more (a full table keeps its counts and adds nothing new)."""
    if h == 0:
        h = np.uint64(1)
    tab = ws[L_TAB:L_TAB + 2 * HT].view(np.uint64)
    i = _slot(tab, h) if ws[L_NTAB] < HT - 1 else -1
    if i < 0:
        return
    if tab[i] == 0:
        tab[i] = h
        ws[L_NTAB] += 1
    ws[L_CNT + i] += 1


@njit(cache=True, _nrt=False)
def hist_count(ws, h):
    if h == 0:
        h = np.uint64(1)
    tab = ws[L_TAB:L_TAB + 2 * HT].view(np.uint64)
    i = _slot(tab, h)
    return ws[L_CNT + i] if tab[i] == h else 0


@njit(cache=True, _nrt=False)
def hist_copy(dst, src):
    """dst's table := src's (a rollout starts from what the deciding seat has seen)."""
    for i in range(L_TAB, L_CH):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def learned_reset(ws):
    H.heuristic_reset(ws)
    hist_clear(ws)


# ---- the choice ------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def plan_candidates(s, p, theta, me, ws, k):
    """The heuristic's k best plans from s with distinct ends (W_CN of them, best first)."""
    ws[H.W_DISTINCT] = 1
    nc = H.search_turn(s, p, theta, me, ws, k, 0.0, np.uint64(0))
    ws[H.W_DISTINCT] = 0
    return nc


@njit(cache=True, _nrt=False)
def plan_end(s, p, ws, c):
    """Put kept plan c's end position at ws[L_ST], its hash at ws[L_CH] and whether the game ends
    there at ws[L_CT]; returns the hash. c is a plan kept by ``plan_candidates`` on this ws."""
    st = ws[L_ST:L_ST + E.S_SIZE]
    H.end_of(s, p, ws, c, st)
    hc = H.kept_hash(ws, c)   # E.position_hash(st), kept by the search
    ws[L_CH:L_CH + 2].view(np.uint64)[0] = hc
    ws[L_CT] = 1 if st[E.PHASE] == PH_TERMINAL else 0
    return hc


@njit(cache=True, _nrt=False)
def plan_value(s, p, theta, net, me, ws, c):
    """The value of kept plan c from s for `me`: a win for `me` 1e6; otherwise the network's value
    of its end (no network: the heuristic's score), less theta[T_LAM] per earlier occurrence of the
    end. Leaves what ``plan_end`` leaves."""
    hc = plan_end(s, p, ws, c)
    st = ws[L_ST:L_ST + E.S_SIZE]
    if st[E.PHASE] == PH_TERMINAL and st[E.OUTCOME] == OUT_WIN:
        return 1.0e6 if st[E.WINNER] == me else -1.0e6
    if net[0] == 0.0:
        v = ws[H.W_CSC + c] / H.SCORE_SCALE
    else:
        fv = ws[L_FV:L_FV + 2 * NF].view(np.float64)
        features(st, p, theta, me, fv)
        v = VM.value(fv, net, 0, ws[L_H:L_H + 2 * MAX_HIDDEN].view(np.float64))
    lam = theta[T_LAM]
    if lam > 0.0:
        v -= lam * hist_count(ws, hc)
    return v


@njit(cache=True, _nrt=False)
def screen_values(s, p, theta, net, me, ws, nc, vals):
    """vals[c] for c < nc: ``plan_value`` of kept plan c to the last few bits, the network
    evaluated at all kept ends together (``value_model.values_sparse``: row 0 over its non-zero
    features, the others from it over the features where they differ); a theta with a network
    only. Keeps each end's features (row c of L_X, padded with zeros) and earlier occurrences
    (L_REP + c; -1: another seat wins there) for ``exact_value``. Stops at the first plan that
    wins for `me` at once and returns its index (its end left by ``plan_end``), as the
    plan-by-plan loop did; otherwise -1 (the last plan's end left)."""
    lam = theta[T_LAM]
    for c in range(nc):
        hc = plan_end(s, p, ws, np.int64(c))
        st = ws[L_ST:L_ST + E.S_SIZE]
        if st[E.PHASE] == PH_TERMINAL and st[E.OUTCOME] == OUT_WIN:
            if st[E.WINNER] == me:
                vals[c] = 1.0e6
                return c
            ws[L_REP + c] = -1
            continue
        ws[L_REP + c] = hist_count(ws, hc) if lam > 0.0 else 0
        row = ws[L_X + 2 * NFS * c: L_X + 2 * NFS * (c + 1)].view(np.float64)
        features(st, p, theta, me, row)
        for i in range(NF, NFS):
            row[i] = 0.0
    WT = ws[L_WT:L_WT + 2 * NF * MAX_HIDDEN].view(np.float64)
    VM.transposed(net, 0, WT, ws[L_WM:L_WT].view(np.float64))
    VM.values_sparse(ws[L_X:L_X + 2 * NFS * H.K_MAX].view(np.float64), NFS, nc, net, 0, WT,
                     ws[L_ACC:WS_SIZE].view(np.float64), vals)
    for c in range(nc):
        if ws[L_REP + c] < 0:
            vals[c] = -1.0e6
        elif lam > 0.0:
            vals[c] -= lam * ws[L_REP + c]
    return -1


@njit(cache=True, _nrt=False)
def exact_value(theta, net, ws, c):
    """``plan_value`` of kept plan c (not won by `me` at once), bit for bit, from what
    ``screen_values`` kept (``value_model.value`` at its features, less the repetition term)."""
    if ws[L_REP + c] < 0:
        return -1.0e6
    fv = ws[L_X + 2 * NFS * c: L_X + 2 * NFS * (c + 1)].view(np.float64)
    v = VM.value(fv, net, 0, ws[L_H:L_H + 2 * MAX_HIDDEN].view(np.float64))
    lam = theta[T_LAM]
    if lam > 0.0:
        v -= lam * ws[L_REP + c]
    return v


@njit(cache=True, _nrt=False)
def choose(s, p, theta, net, me, ws, k):
    """The index of the kept plan to play from s (-1: none); its end's hash at ws[L_CH] and
    whether the game ends there at ws[L_CT]. The plan of the highest ``plan_value`` (a win at once
    first; ties: the heuristic's order), as valuing every plan with it would find it: with a
    network, the kept plans are screened together (``screen_values``); a plan more than MARGIN
    below the screen's best cannot be the best (value_model.MARGIN), a plan whose features and
    repetitions are those of an earlier one near the top has its value (and comes later), and
    the rest are valued exactly, unless only one is left."""
    nc = plan_candidates(s, p, theta, me, ws, k)
    if nc <= 1:
        if nc == 1:
            plan_end(s, p, ws, np.int64(0))
        return nc - 1
    best = 0
    bv = -1.0e300
    if net[0] == 0.0:
        for c in range(nc):
            v = plan_value(s, p, theta, net, me, ws, np.int64(c))
            if v >= 1.0e6:
                return c
            if v > bv:
                bv = v
                best = c
    else:
        vals = ws[L_V:L_V + 2 * H.K_MAX].view(np.float64)
        w = screen_values(s, p, theta, net, me, ws, nc, vals)
        if w >= 0:
            return w
        X = ws[L_X:L_X + 2 * NFS * H.K_MAX].view(np.float64)
        # bit c of live: plan c may be the best (near the top, not a copy of an earlier one with
        # the same repetitions)
        live, m, first = VM.near_top(vals, nc, X, NFS, ws[L_REP:L_REP + nc], True)
        best = first
        if m > 1:
            for c in range(nc):
                if (live >> c) & 1:
                    v = exact_value(theta, net, ws, c)
                    if v >= 1.0e6:
                        if c != nc - 1:
                            plan_end(s, p, ws, np.int64(c))
                        return c
                    if v > bv:
                        bv = v
                        best = c
    if best != nc - 1:
        plan_end(s, p, ws, np.int64(best))
    return best


@njit(cache=True, _nrt=False)
def note_turn(s, ws):
    """Enter the position at the start of this turn in the table (once a turn)."""
    if ws[L_LAST] != s[E.TURN]:
        ws[L_LAST] = s[E.TURN]
        hist_add(ws, E.position_hash(s))


@njit(cache=True, _nrt=False)
def play_chosen(s, ws, c, acts, n):
    """Store plan c, enter its end in the table (unless the game ends there) and return its first
    step (-1 if it is not legal)."""
    H.store_plan(s, ws, c)
    if ws[L_CT] == 0:
        hist_add(ws, ws[L_CH:L_CH + 2].view(np.uint64)[0])
    a = H.play_plan(ws, c)
    return a if contains(acts, n, a) else -1


def dial_theta(temperature: float, theta: np.ndarray | None = None) -> np.ndarray:
    """The learned player's vector (default: ``learned_theta()``) with the skill dial at
    `temperature` (``value_model.with_dial``)."""
    return VM.with_dial(learned_theta() if theta is None else theta, T_TEMP, temperature)


@njit(cache=True, _nrt=False)
def choose_soft(s, p, theta, net, me, ws, k, key):
    """``choose`` with the skill dial (theta[T_TEMP] > 0): kept plan c drawn with probability
    proportional to exp((value_c - the best value) / T), one number of the decision's key. A plan
    that wins for `me` at once is still taken at once."""
    nc = plan_candidates(s, p, theta, me, ws, k)
    if nc <= 1:
        if nc == 1:
            plan_end(s, p, ws, np.int64(0))
        return nc - 1
    vals = ws[L_V:L_V + 2 * H.K_MAX].view(np.float64)
    bv = -1.0e300
    for c in range(nc):
        v = plan_value(s, p, theta, net, me, ws, np.int64(c))
        if v >= 1.0e6:
            return c
        vals[c] = v
        if v > bv:
            bv = v
    pick = VM.softmax_pick(vals, nc, bv, theta[T_TEMP], key)
    if pick != nc - 1:
        plan_end(s, p, ws, np.int64(pick))
    return pick


@njit(cache=True, _nrt=False)
def learned_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending); `key` is used only by the skill
    dial (theta[T_TEMP] > 0)."""
    a = H.planned_action(s, seat, acts, n, ws)
    if a >= 0:
        return a
    note_turn(s, ws)
    if theta[T_TEMP] > 0.0:
        c = choose_soft(s, p, theta, net, seat, ws, int(theta[T_K]), key)
    else:
        c = choose(s, p, theta, net, seat, ws, int(theta[T_K]))
    if c >= 0:
        a = play_chosen(s, ws, c, acts, n)
        if a >= 0:
            return a
    ws[H.W_VALID] = 0
    return acts[0]
