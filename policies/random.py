"""The random policy: uniform over the legal actions, one draw of the decision's key."""
from numba import njit

from simcore.rng import below


@njit(cache=True, _nrt=False)
def random_action(acts, n_legal, key):
    """The r-th legal action in ascending order (acts[:n_legal]), r uniform in [0, n_legal)."""
    return acts[below(key, 0, n_legal)]
