"""Shared machinery for batch runs: chunks sized by time, progress and thread control.

A run plays games 0..n-1. Each game's compiled kernel plays a chunk of game indices at a time, in
parallel blocks; every random number is keyed by (seed, game index, stream), so the results do not
depend on the chunk size, the block size or the number of threads. Between chunks control returns
to Python, which aggregates the chunk's records (memory does not grow with the number of games
unless the records are kept) and reports progress.

Chunks are sized by time, not by count: a random-play game costs microseconds and a search
policy's game seconds. The first chunks are small and grow (at most 4x each) until a chunk takes
about TARGET_SECONDS, so progress is reported (and a caller could checkpoint) every second or so
whatever the policy. Blocks are sized from the chunk so that every thread has several blocks.
"""
from __future__ import annotations

import sys
import time

import numba
import numpy as np
import pandas as pd

from simcore.errors import UserError

TARGET_SECONDS = 1.0   # aim for chunks of about this long
FIRST_CHUNK = 8        # games in the first chunk (before anything is known about their cost)
MAX_CHUNK = 1 << 18    # games in a chunk at most (bounds the memory of one chunk's records)
MAX_BLOCK = 256        # games a parallel block plays with one set of scratch arrays
BLOCKS_PER_THREAD = 4  # small chunks: split so that no thread idles while another plays
MAX_GAMES = 2 ** 62    # a game index must fit in int64 with room to spare


def max_threads() -> int:
    return numba.config.NUMBA_NUM_THREADS


def check_threads(threads):
    if threads is None:
        return max_threads()
    if not 1 <= threads <= max_threads():
        raise UserError(f"threads {threads} is not allowed; this machine runs 1 to {max_threads()}")
    return threads


def check_run(games, seed):
    if not 1 <= games <= MAX_GAMES:
        raise UserError(f"games {games} is not allowed; play 1 to 2**62 games")
    if seed < 0 or seed >= 2 ** 63:
        raise UserError(f"seed {seed} is not allowed; use 0 to 2**63-1")


def check_game_index(game_index, seed):
    """`play --game-index`: one game of a run with this seed, so the index of a game a run can
    play (0 to 2**62 - 1), and the seed as `check_run` takes it."""
    check_run(1, seed)
    if not 0 <= game_index < MAX_GAMES:
        raise UserError(f"game-index {game_index} is not allowed; use 0 to 2**62-1")


def block_size(count, threads):
    """Games per parallel block for a chunk of `count` games on `threads` threads."""
    return int(max(1, min(MAX_BLOCK, count // (threads * BLOCKS_PER_THREAD))))


def next_chunk(done_count, seconds, previous, target=TARGET_SECONDS, max_chunk=MAX_CHUNK):
    """The size of the next chunk after `previous` games took `seconds`: about `target` seconds
    of play at the measured rate, growing at most 4x at a time."""
    if seconds <= 0:
        return min(max_chunk, previous * 4)
    want = int(previous * target / seconds)
    return int(max(1, min(max_chunk, previous * 4, want)))


def run_chunks(n_games, play_range, on_chunk, chunk=None, threads=None, progress=None):
    """Call play_range(start, count) for consecutive chunks and on_chunk(start, count, result).

    chunk=None sizes chunks by time (see the module docstring); an integer fixes the size (the
    tests use it to show that results do not depend on it). play_range(0, 0) is called first,
    untimed, so that compiling (first run only: the code is then cached) is not counted as play.
    progress(done, total, elapsed) is called after each chunk, and progress.close(), if it has
    one, when the run ends, also by an error. Returns the wall time of the play
    in seconds."""
    threads = check_threads(threads)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    t_compile = time.perf_counter()
    play_range(0, 0)
    t_compile = time.perf_counter() - t_compile
    if t_compile > 1.0 and progress is not None:
        sys.stderr.write(f"compiled the engine in {t_compile:.1f} s (cached for later runs)\n")
    t0 = time.perf_counter()
    size = chunk or FIRST_CHUNK
    try:
        done = 0
        while done < n_games:
            count = min(size, n_games - done)
            t1 = time.perf_counter()
            result = play_range(done, count)
            dt = time.perf_counter() - t1
            on_chunk(done, count, result)
            done += count
            if chunk is None:
                size = next_chunk(done, dt, count)
            if progress is not None:
                progress(done, n_games, time.perf_counter() - t0)
    finally:
        numba.set_num_threads(old)
        close = getattr(progress, "close", None)
        if close is not None:   # a drawn bar (experiments.progress.ProgressBar) stops, also on an error or Ctrl-C
            close()
    return time.perf_counter() - t0


class Rates:
    """Throughput of a run, for summaries holding games, decisions and seconds."""

    @property
    def games_per_second(self):
        return self.games / self.seconds if self.seconds > 0 else float("nan")

    @property
    def decisions_per_second(self):
        return self.decisions / self.seconds if self.seconds > 0 else float("nan")


def run_batch(games, kernel, n_rec, summary, frame=None, chunk=None, threads=None, progress=None):
    """Play games 0..games-1 with kernel(start, count, block, out), which fills out[count, n_rec]
    with one int32 record per game; summary.add(records) for every chunk; with frame(records,
    start) the per-game records are kept and returned as one DataFrame. Returns (seconds,
    DataFrame or None)."""
    frames = []
    nthreads = check_threads(threads)
    buf = np.zeros((min(chunk or MAX_CHUNK, games), n_rec), dtype=np.int32)

    def play(start, count):
        out = buf[:count]
        kernel(start, count, block_size(count, nthreads), out)
        return out

    def collect(start, count, rec):
        summary.add(rec)
        if frame is not None:
            frames.append(frame(rec, start))

    seconds = run_chunks(games, play, collect, chunk=chunk, threads=threads, progress=progress)
    return seconds, (pd.concat(frames, ignore_index=True) if frame is not None else None)
