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
import numpy as np
import pandas as pd

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


class Rates:
    """Throughput of a run, for summaries holding games, decisions and seconds."""

    @property
    def games_per_second(self):
        return self.games / self.seconds if self.seconds > 0 else float("nan")

    @property
    def decisions_per_second(self):
        return self.decisions / self.seconds if self.seconds > 0 else float("nan")


@numba.njit(cache=True, _nrt=False)
def push(acts, n, a):
    """Append action a to the legal-action list acts[:n]; return the new length."""
    acts[n] = a
    return n + 1


@numba.njit(cache=True)
def fill_mask(acts, n, mask):
    """The boolean legal-action mask of the list acts[:n] (the games' Python-facing legal_mask)."""
    mask[:] = False
    for i in range(n):
        mask[acts[i]] = True
    return n


def check_run(games, seed):
    if games < 1:
        raise ValueError(f"games {games} is not allowed; play at least 1")
    if seed < 0 or seed >= 2 ** 63:
        raise ValueError(f"seed {seed} is not allowed; use 0 to 2**63-1")


def run_batch(games, kernel, n_rec, summary, frame=None, chunk=DEFAULT_CHUNK, threads=None, progress=None):
    """Play games 0..games-1 with kernel(start, count, out), which fills out[count, n_rec] with one
    int32 record per game; summary.add(records) for every chunk; with frame(records, start) the
    per-game records are kept and returned as one DataFrame. Returns (seconds, DataFrame or None)."""
    frames = []
    buf = np.zeros((min(chunk, games), n_rec), dtype=np.int32)

    def play(start, count):
        out = buf[:count]
        kernel(start, count, out)
        return out

    def collect(start, count, rec):
        summary.add(rec)
        if frame is not None:
            frames.append(frame(rec, start))

    seconds = run_chunks(games, play, collect, chunk=chunk, threads=threads, progress=progress)
    return seconds, (pd.concat(frames, ignore_index=True) if frame is not None else None)
