"""Benevolent: the policy plug point (see policies/__init__.py)."""
import numpy as np
from numba import njit

from ..random import random_action

RANDOM = 0
THETA_SIZE = 1   # the widest theta of any Benevolent policy (random has none)
WS_SIZE = 1      # int32 scratch entries per seat


def default_theta(policy_id: int) -> np.ndarray:
    """The policy's default parameter vector, padded to THETA_SIZE."""
    return np.zeros(THETA_SIZE, dtype=np.float64)


@njit(cache=True, _nrt=False)
def decide(policy_id, s, p, theta, seat, acts, n, key, ws):
    """The action of policy `policy_id` for `seat` among acts[:n]."""
    return random_action(acts, n, key)


@njit(cache=True, _nrt=False)
def reset(policy_id, theta, seat, ws):
    """Forget everything of the previous game (a new game starts)."""
    ws[:] = 0
