"""The calibration kernel: a small compiled loop of work like a game step (an RNG draw, clearing
and scanning a 188-entry mask, scattered updates of a 388-entry int32 state), timed in the same
process right before each figure. Figures are reported as ratios to it, so that a machine that is
busy or slower today moves both and the ratio stays put, while a slowdown of the engine alone
moves only the engine."""
import time

import numba
import numpy as np
from numba import njit, prange

from simcore.rng import below, stream_key


@njit(cache=True)
def _kernel(n_steps, seed):
    s = np.zeros(388, np.int32)
    mask = np.zeros(188, np.bool_)
    key = stream_key(seed, 0, 0)
    acc = 0
    for i in range(n_steps):
        r = below(key, i, 188)
        mask[:] = False
        for j in range(0, 188, 7):
            mask[(j + r) % 188] = True
        cnt = 0
        for j in range(188):
            if mask[j]:
                cnt += 1
                s[(j * 3 + cnt) % 388] += 1
        acc += cnt + s[r]
    return acc


@njit(cache=True, parallel=True)
def _kernel_parallel(n_blocks, n_steps, seed):
    out = np.zeros(n_blocks, np.int64)
    for b in prange(n_blocks):
        out[b] = _kernel(n_steps, seed + b)
    return out.sum()


def calibrate(threads=1, steps=400_000):
    """Calibration steps per second on `threads` threads (median of 3)."""
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        _kernel(10, 0)
        _kernel_parallel(threads, 10, 0)
        rates = []
        for _ in range(3):
            t0 = time.perf_counter()
            if threads == 1:
                _kernel(steps, 1)
            else:
                _kernel_parallel(threads * 4, steps // 4, 1)
            rates.append(steps * threads / (time.perf_counter() - t0))
        return float(np.median(rates))
    finally:
        numba.set_num_threads(old)
