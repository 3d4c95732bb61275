"""The random policy: uniform over the legal actions, from the decision's key."""
import numpy as np
from numba import njit

_S32 = np.uint64(32)


@njit(cache=True, _nrt=False)
def random_action(acts, n_legal, key):
    """The r-th legal action in ascending order (acts[:n_legal]), r uniform in [0, n_legal).

    The decision's key is itself a splitmix64 output (simcore.rng.draw), so its top 32 bits serve
    as the one number this policy needs (Lemire's multiply-shift, as simcore.rng.below): one hash
    less per decision than drawing number 0 of the key's stream."""
    return acts[np.int64(((np.uint64(key) >> _S32) * np.uint64(n_legal)) >> _S32)]
