"""Benevolent: the policy plug point (see policies/__init__.py).

Policies by id (the order of policies.POLICIES["benevolent"]):
    0 random      uniform over the legal actions
    1 heuristic   searches each turn whole and scores its ends with a linear evaluation
                  (policies/benevolent/heuristic.py; theta = its named weights)
    2 search      flat Monte Carlo over the heuristic's best turn plans, the heuristic as rollout
                  policy (policies/benevolent/search.py; theta = the heuristic's weights, then
                  budget, candidates, horizon, noise)
    3 tuned       the heuristic with the weights `boardsim tune benevolent` installed in
                  policies/benevolent/tuned.json (a one-line error while none is installed)
    4 learned     the heuristic's 8 best plans with distinct ends, the one a learned value rates
                  highest, less a repetition term (policies/benevolent/learned.py; the model is
                  learned.json, a one-line error while none is installed)
    5 expert      rollouts by the learned player over its 4 best plans (policies/benevolent/expert.py)
"""
import numpy as np
from numba import njit

from simcore.benevolent import GAME

from ..random import random_action
from . import expert as _x
from . import heuristic as _h
from . import learned as _l
from . import search as _s
from .expert import expert_action, expert_reset
from .learned import learned_action, learned_reset
from .heuristic import heuristic_action, heuristic_reset
from .search import search_action, search_reset

from .. import POLICIES

# the ids: positions in policies.POLICIES, the one table of names (compile-time constants here)
RANDOM, HEURISTIC, SEARCH, TUNED, LEARNED, EXPERT = (
    POLICIES[GAME.name].index(n) for n in ("random", "heuristic", "search", "tuned", "learned", "expert"))
THETA_SIZE = max(_s.N_THETA, _l.THETA_SIZE)   # the widest theta of any Benevolent policy
WS_SIZE = max(_s.WS_SIZE, _x.WS_SIZE)         # int32 scratch entries per seat (the widest)
# each policy's parameters by name, defaults and bounds (random has none)
# (tuned: the heuristic's names and bounds; its vector is read from tuned.json, see default_theta)
THETA_NAMES = {RANDOM: (), HEURISTIC: _h.THETA_NAMES, SEARCH: _s.THETA_NAMES, TUNED: _h.THETA_NAMES}
THETA_DEFAULTS = {RANDOM: np.zeros(0), HEURISTIC: _h.THETA_DEFAULT, SEARCH: _s.THETA_DEFAULT}
THETA_BOUNDS = {RANDOM: np.zeros((0, 2)), HEURISTIC: _h.THETA_BOUNDS, SEARCH: _s.THETA_BOUNDS, TUNED: _h.THETA_BOUNDS}


def default_theta(policy_id: int) -> np.ndarray:
    """The policy's default parameter vector, padded to THETA_SIZE (tuned: the installed tuned
    weights; a one-line UserError while none is installed)."""
    theta = np.zeros(THETA_SIZE, dtype=np.float64)
    if int(policy_id) == TUNED:
        from ..tuned import tuned_theta
        d = tuned_theta(GAME)
    elif int(policy_id) == LEARNED:
        d = _l.learned_theta()
    elif int(policy_id) == EXPERT:
        d = _x.expert_theta()
    else:
        d = THETA_DEFAULTS.get(int(policy_id), np.zeros(0))
    theta[:len(d)] = d
    return theta


# As in Bethel Woods (policies/bethel_woods/decide.py): the planning policies sit behind one call
# that LLVM does not inline (numba marks a function compiled with debug info `noinline`), so their
# code does not weigh on the play loop of every other policy.
@njit(cache=True, _nrt=False, debug=True, boundscheck=False, _dbg_extend_lifetimes=False)
def _planner(policy_id, s, p, theta, seat, acts, n, key, ws):
    if policy_id == SEARCH:
        return search_action(s, p, theta, seat, acts, n, key, ws)
    if policy_id == LEARNED:
        return learned_action(s, p, theta, seat, acts, n, key, ws)
    if policy_id == EXPERT:
        return expert_action(s, p, theta, seat, acts, n, key, ws)
    return heuristic_action(s, p, theta, seat, acts, n, key, ws)


@njit(cache=True, _nrt=False)
def decide(policy_id, s, p, theta, seat, acts, n, key, ws):
    """The action of policy `policy_id` for `seat` among acts[:n]."""
    if policy_id == RANDOM:
        return random_action(acts, n, key)
    return _planner(policy_id, s, p, theta, seat, acts, n, key, ws)


@njit(cache=True, _nrt=False)
def ws_size(pols):
    """The int32 scratch entries per seat that the policies in pols need (at least 1): a play
    loop of random players then allocates no search workspace (about 100 KB a seat)."""
    n = 1
    for pid in pols:
        if pid == HEURISTIC or pid == TUNED:
            n = max(n, _h.WS_SIZE)
        elif pid == SEARCH:
            n = max(n, _s.WS_SIZE)
        elif pid == LEARNED:
            n = max(n, _l.WS_SIZE)
        elif pid == EXPERT:
            n = max(n, _x.WS_SIZE)
    return n


@njit(cache=True, _nrt=False)
def reset(policy_id, theta, seat, ws):
    """Forget everything of the previous game (a new game starts)."""
    if policy_id == HEURISTIC or policy_id == TUNED:
        heuristic_reset(ws)
    elif policy_id == SEARCH:
        search_reset(ws)
    elif policy_id == LEARNED:
        learned_reset(ws)
    elif policy_id == EXPERT:
        expert_reset(ws)
    else:
        ws[0] = 0
