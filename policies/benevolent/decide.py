"""Benevolent: the policy plug point (see policies/__init__.py).

Policies by id (the order of policies.POLICIES["benevolent"]):
    0 random      uniform over the legal actions
    1 heuristic   searches each turn whole and scores its ends with a linear evaluation
                  (policies/benevolent/heuristic.py; theta = its named weights)
"""
import numpy as np
from numba import njit

from ..random import random_action
from .heuristic import N_THETA as HEURISTIC_N, THETA_DEFAULT as HEURISTIC_THETA, WS_SIZE as HEURISTIC_WS
from .heuristic import heuristic_action, heuristic_reset

RANDOM = 0
HEURISTIC = 1
THETA_SIZE = HEURISTIC_N   # the widest theta of any Benevolent policy
WS_SIZE = HEURISTIC_WS     # int32 scratch entries per seat


def default_theta(policy_id: int) -> np.ndarray:
    """The policy's default parameter vector, padded to THETA_SIZE."""
    theta = np.zeros(THETA_SIZE, dtype=np.float64)
    if policy_id == HEURISTIC:
        theta[:HEURISTIC_N] = HEURISTIC_THETA
    return theta


@njit(cache=True, _nrt=False)
def decide(policy_id, s, p, theta, seat, acts, n, key, ws):
    """The action of policy `policy_id` for `seat` among acts[:n]."""
    if policy_id == HEURISTIC:
        return heuristic_action(s, p, theta, seat, acts, n, key, ws)
    return random_action(acts, n, key)


@njit(cache=True, _nrt=False)
def reset(policy_id, theta, seat, ws):
    """Forget everything of the previous game (a new game starts)."""
    if policy_id == HEURISTIC:
        heuristic_reset(ws)
    else:
        ws[0] = 0
