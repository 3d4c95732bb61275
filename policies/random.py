"""The random policy: uniform over the legal actions, one draw of its own stream per decision."""
from numba import njit

from simcore.rng import below


@njit(cache=True)
def random_action(mask, n_legal, key, counter):
    """The r-th legal action, r uniform in [0, n_legal)."""
    r = below(key, counter, n_legal)
    for a in range(mask.shape[0]):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1
