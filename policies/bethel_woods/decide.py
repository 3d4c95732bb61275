"""Bethel Woods: the policy plug point (see policies/__init__.py).

Policies by id (the order of policies.POLICIES["bethel_woods"]):
    0 random       uniform over the legal actions
    1 heuristic    plans each turn whole and scores the positions with a linear evaluation
                   (policies/bethel_woods/heuristic.py; theta = its named weights)
    2 search       determinized flat Monte Carlo over the heuristic's best few turn plans, heuristic
                   rollouts (policies/bethel_woods/search.py; theta = the weights, budget, candidates)
    3 clairvoyant  the same search handed the game's chance key: NOT A PLAYER, a measuring stick.
                   The arena passes it the chance key in place of its decision key (this policy only)
    4 tuned        the heuristic with the weights tuned by `boardsim tune` (policies/bethel_woods/tuned.json)
    5 learned      the heuristic's best plans chosen by a learned value (policies/bethel_woods/learned.py;
                   the model `boardsim train bethel-woods` installs in learned.json): the studies' player
    6 expert       successive halving over the learned player's best plans, learned rollouts
                   (policies/bethel_woods/expert.py): the best honest player, slow
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import GAME

from ..random import random_action
from .heuristic import THETA_DEFAULT as HEURISTIC_THETA, WS_SIZE as HEURISTIC_WS, heuristic_action, heuristic_reset
from .search import THETA_SIZE as SEARCH_THETA, WS_SIZE as SEARCH_WS, default_theta as search_theta
from .search import search_action, search_reset
from . import expert as _x
from . import learned as _l

from .. import POLICIES

# the ids: positions in policies.POLICIES, the one table of names (compile-time constants here)
RANDOM, HEURISTIC, SEARCH, CLAIRVOYANT, TUNED, LEARNED, EXPERT = (
    POLICIES[GAME.name].index(n) for n in ("random", "heuristic", "search", "clairvoyant", "tuned", "learned", "expert"))
THETA_SIZE = max(len(HEURISTIC_THETA), SEARCH_THETA, _l.THETA_SIZE)   # the widest theta of any Bethel Woods policy
WS_SIZE = max(SEARCH_WS, _x.WS_SIZE)                                   # int32 scratch entries per seat (the widest)


def default_theta(policy_id: int) -> np.ndarray:
    """The policy's default parameter vector, padded to THETA_SIZE."""
    theta = np.zeros(THETA_SIZE, dtype=np.float64)
    if policy_id == HEURISTIC:
        theta[:len(HEURISTIC_THETA)] = HEURISTIC_THETA
    elif policy_id == SEARCH or policy_id == CLAIRVOYANT:
        t = search_theta()
        theta[:len(t)] = t
    elif policy_id == TUNED:
        from ..tuned import tuned_theta
        t = tuned_theta(GAME)
        theta[:len(t)] = t
    elif policy_id == LEARNED:
        t = _l.learned_theta()
        theta[:len(t)] = t
    elif policy_id == EXPERT:
        t = _x.expert_theta()
        theta[:len(t)] = t
    return theta


# The planning policies are reached through one call that LLVM must not inline (numba marks a
# function compiled with debug info `noinline`): inlined, their code made the play loop itself
# slower for every policy, random play included (callgrind: 84.3 M instructions for 2000 random
# games against 71.8 M with the random rule alone in the loop).
@njit(cache=True, _nrt=False, debug=True, boundscheck=False, _dbg_extend_lifetimes=False)
def _planner(policy_id, s, p, theta, seat, acts, n, key, ws):
    if policy_id == HEURISTIC or policy_id == TUNED:
        return heuristic_action(s, p, theta, seat, acts, n, key, ws)
    if policy_id == SEARCH:
        return search_action(s, p, theta, seat, acts, n, key, ws, np.bool_(False))
    if policy_id == LEARNED:
        return _l.learned_action(s, p, theta, seat, acts, n, key, ws)
    if policy_id == EXPERT:
        return _x.expert_action(s, p, theta, seat, acts, n, key, ws)
    return search_action(s, p, theta, seat, acts, n, key, ws, np.bool_(True))


@njit(cache=True, _nrt=False)
def decide(policy_id, s, p, theta, seat, acts, n, key, ws):
    """The action of policy `policy_id` for `seat` among acts[:n]."""
    if policy_id == RANDOM:
        return random_action(acts, n, key)
    return _planner(policy_id, s, p, theta, seat, acts, n, key, ws)


@njit(cache=True, _nrt=False)
def ws_size(pols):
    """The int32 scratch entries per seat that the policies in pols need (at least 1): a play
    loop of random players then allocates no search workspace (120 KB a seat, cleared per block)."""
    n = 1
    for pid in pols:
        if pid == HEURISTIC or pid == TUNED:
            n = max(n, HEURISTIC_WS)
        elif pid == SEARCH or pid == CLAIRVOYANT:
            n = max(n, SEARCH_WS)
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
    elif policy_id == SEARCH or policy_id == CLAIRVOYANT:
        search_reset(ws)
    elif policy_id == LEARNED:
        _l.learned_reset(ws)
    elif policy_id == EXPERT:
        _x.expert_reset(ws)
    else:
        ws[0] = 0
