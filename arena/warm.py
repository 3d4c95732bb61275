"""Compile the games' play loops in parallel processes before a run that plays several games.

Each game's play loop (``arena/<game>/batch.py``: ``play_chunk`` with every policy compiled into
it) is most of a first run's compile time, and the two games' loops share no code but a few small
helpers: measured by ``python -m benchmarks.compile`` (docs/benchmarks.md, "Compile time"), about
110 s of CPU for Bethel Woods and 90 s for Benevolent, one after the other on one core when the
report's first units compile them. ``warm_cache`` starts one process per game whose loop is not in
numba's cache yet, each compiling its loop by playing two games through ``arena.units.play_records``
(the same argument types as every later call), at most one process per core at a time, and waits;
the caller then loads the loops from the cache. The compiling also happens outside the caller's
process, so its peak memory is that of loading the compiled code, not of compiling it.

Two processes save into one cache at once: ``simcore.numbacache`` makes numba's saves take a lock
(where there is none, on a system without flock, the processes run one at a time). The cache
directory is the caller's: a child inherits ``NUMBA_CACHE_DIR`` and keys it as the caller did.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from simcore import numbacache
from simcore.games import GAMES, game as game_of

from .units import Cell, arena_module, play_records

ROOT = Path(__file__).resolve().parent.parent   # the folder holding simcore/, policies/, arena/


def is_cached(game) -> bool:
    """Whether numba's cache holds a compiled play loop of `game` (for the sources of this run:
    the cache directory is keyed by them). Reads numba's index of the loop (an internal of numba;
    if it cannot be read, the answer is False and the loop is compiled as before)."""
    disp = arena_module(game).play_chunk
    if not hasattr(disp, "signatures"):   # NUMBA_DISABLE_JIT: a plain function, nothing to compile
        return True
    if disp.signatures:
        return True
    try:
        return bool(disp._cache._cache_file._load_index())
    except Exception:   # noqa: BLE001 - another numba's internals: compile rather than guess
        return False


def compile_game(game) -> None:
    """Compile (or load) `game`'s play loop in this process: two games of random play through the
    one way games are played, so the signature is that of every later call."""
    import numpy as np
    g = game_of(game)
    cell = Cell(g.name, 2, policies=("random",), seed=1)
    play_records(cell, 0, 2, np.zeros((2, arena_module(g).N_REC), np.int32), 2)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def warm_cache(games=None, say=None, processes=None) -> dict:
    """Compile the play loops of `games` (names; None: every game) that the cache lacks, each in
    its own process, in parallel (at most `processes` at a time, by default one a core; one at a
    time without locked saves). Returns
    {game: seconds} of the processes run (empty if everything was cached; None for one that
    failed: its loop is then compiled by the caller's first call, as without a warm-up, and
    `say` is told the process's last line of error)."""
    names = [game_of(g).name for g in (games or GAMES)]
    cold = [g for g in dict.fromkeys(names) if not is_cached(g)]
    if not cold:
        return {}
    width = min(len(cold), processes or _cores()) if numbacache.LOCKED_SAVES else 1
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if say:
        say(f"compiling the play loops of {', '.join(cold)} (first run: numba's cache is empty), "
            f"{width} at a time")

    def one(g):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", f"from arena.warm import compile_game; compile_game({g!r})"],
                           cwd=str(ROOT), env=env, capture_output=True, text=True)
        if r.returncode != 0:
            if say:
                last = (r.stderr.strip().splitlines() or ["no message"])[-1]
                say(f"compiling the {g} play loop in a process of its own failed ({last}); it is compiled in this one")
            return g, None
        return g, time.perf_counter() - t0

    with ThreadPoolExecutor(max_workers=width) as pool:
        return dict(pool.map(one, cold))
