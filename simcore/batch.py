"""Shared machinery for batch runs: chunking, progress and thread control.

A run plays games 0..n-1. The compiled kernels of each game play a chunk of game indices at a
time, in parallel blocks; every random number is keyed by (seed, game index, stream), so the
results do not depend on the chunk size, the block size or the number of threads. Between chunks
control returns to Python, which aggregates the chunk's records (memory does not grow with the
number of games unless the records are kept) and reports progress.
"""
from __future__ import annotations

import sys
import time

import numba

DEFAULT_CHUNK = 1 << 16
BLOCK = 256  # games a parallel block plays with one set of scratch arrays


def max_threads() -> int:
    return numba.config.NUMBA_NUM_THREADS


def check_threads(threads):
    if threads is None:
        return max_threads()
    if not 1 <= threads <= max_threads():
        raise ValueError(f"threads {threads} is not allowed; this machine runs 1 to {max_threads()}")
    return threads


def run_chunks(n_games, play_chunk, on_chunk, chunk=DEFAULT_CHUNK, threads=None, progress=None):
    """Call play_chunk(start, count) for consecutive chunks and on_chunk(start, count, result).

    play_chunk(0, 0) is called first, untimed, so that compiling (first run only: the code is then
    cached) is not counted as play. progress(done, total, elapsed) is called after each chunk.
    Returns the wall time of the play in seconds."""
    threads = check_threads(threads)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    t_compile = time.perf_counter()
    play_chunk(0, 0)
    t_compile = time.perf_counter() - t_compile
    if t_compile > 1.0 and progress is not None:
        sys.stderr.write(f"compiled the engine in {t_compile:.1f} s (cached for later runs)\n")
    t0 = time.perf_counter()
    try:
        done = 0
        while done < n_games:
            count = min(chunk, n_games - done)
            on_chunk(done, count, play_chunk(done, count))
            done += count
            if progress is not None:
                progress(done, n_games, time.perf_counter() - t0)
    finally:
        numba.set_num_threads(old)
    return time.perf_counter() - t0
