"""The local executor: play a study's cells as work units and add up their counts.

    totals = execute([(cell_a, 20_000), (cell_b, 20_000)], threads=2, progress=bar)
    totals[0]   # the int64 count vector (arena.units.FIELDS[game]) of games 0..19,999 of cell_a

``work`` is a list of (cell, games) or (cell, games, start): games start..start+games-1 of the cell
(start 0 by default). Each item's range is cut into units (``units``), every unit is played with
``arena.units.run_unit`` on numba's threads, and the unit's counts are added to the item's total.
Every finished unit passes through ONE callback, ``on_unit(cell, start, count, counts)``: a
results store (issue 12) records it there, and a remote backend would call the same callback
when a unit comes back. Since counts add and do not depend on the split, the totals are
bit-identical whatever the executor, the thread count or the order of the units.

Unit boundaries are deterministic: they depend only on the cell's game and policies and on the
range, never on a timing probe, so a resumable store sees the same unit keys in every run. From
the cell's game index 0 the units follow a fixed grid whose sizes double from FIRST_UNIT up to a
cap per (game, policy), ``UNIT_CAP``, chosen from the policy's nominal speed so that a capped
unit takes a few seconds on this project's 2-core machine (a few seconds, not one: a unit has a
fixed Python cost, and a store writes one row per unit). A range that does not start or end on
the grid is cut at the grid points inside it, so the same range always gives the same units.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from arena.units import FIELDS, run_unit

from simcore.games import BENEVOLENT as BV, BETHEL_WOODS as BW

from ..cells import games_per_seed

FIRST_UNIT = 256   # games in a cell's first unit; later units double up to the cap
# Nominal games per second on 2 threads of the project machine (docs/performance.md, docs/policies.md), by
# (game, policy): they fix the unit cap (about UNIT_SECONDS a unit) and weigh the progress bar's
# time estimate when cells of cheap and costly policies are mixed. A policy not named here is
# taken as slow (small units: more progress, more rows, never a unit of minutes).
NOMINAL_SPEED = {
    (BW.name, "random"): 150_000.0,
    (BW.name, "heuristic"): 1_500.0,
    (BV.name, "random"): 12_000.0,
    (BV.name, "heuristic"): 1_500.0,
    (BW.name, "tuned"): 1_500.0,
    (BV.name, "tuned"): 1_500.0,
    (BW.name, "search"): 10.0,        # budget 8 (docs/policies.md); a unit of a few minutes
    (BW.name, "clairvoyant"): 10.0,
    (BV.name, "search"): 4.0,
    # the study players and the skill checks' expert: run_unit on 2 threads, 2026-12-06, 2,000
    # games (learned) and 60 (expert) a setup (docs/studies.md, "Sizes and times"): Bethel Woods
    # learned 1,160-3,130 games/s (2-4 players, 0-5 spies), expert 34-80; Benevolent learned
    # 345-765, expert 6-13 (2-4 players)
    (BW.name, "learned"): 1_300.0,
    (BV.name, "learned"): 500.0,
    (BW.name, "expert"): 40.0,
    (BV.name, "expert"): 8.0,
}
SLOW_SPEED = 500.0
UNIT_SECONDS = 3.0
MAX_UNIT = 1 << 18   # bounds a unit whatever the speed (memory of one compiled call's records)


def speed(cell) -> float:
    """Nominal games/s of a cell (the slowest seat's policy)."""
    return min(NOMINAL_SPEED.get((cell.game, p), SLOW_SPEED) for p in set(cell.seat_policies()))


def unit_cap(cell) -> int:
    """The largest unit of the cell: the power of two nearest below UNIT_SECONDS of play."""
    want = speed(cell) * UNIT_SECONDS
    cap = FIRST_UNIT
    while cap * 2 <= min(want, MAX_UNIT):
        cap *= 2
    return cap


def grid(cell, stop: int) -> list[int]:
    """The cell's unit grid up to `stop`: 0, 256, 768, 1792, ... (doubling, then steps of the cap)."""
    cap = unit_cap(cell)
    points, size = [0], FIRST_UNIT
    while points[-1] < stop:
        points.append(points[-1] + size)
        size = min(cap, size * 2)
    return points


def units(cell, games: int, start: int = 0) -> list[tuple[int, int]]:
    """The (start, count) units of games start..start+games-1 of the cell, cut at its grid."""
    stop = start + games
    cuts = [p for p in grid(cell, stop) if start < p < stop]
    edges = [start, *cuts, stop]
    return [(a, b - a) for a, b in zip(edges, edges[1:]) if b > a]


OnUnit = Callable[[object, int, int, np.ndarray], None]


def execute(work: Sequence[tuple], threads: int | None = None, progress=None,
            on_unit: OnUnit | None = None, unit_fn=None, *, store=None, workers: int | None = None,
            scheduler: str | None = None, client=None, model: dict | None = None) -> list[np.ndarray]:
    """Play every item of `work` and return one summed count vector per item, in order.

    work: (cell, games) or (cell, games, start) items. threads: numba threads (default: all).
    progress: an object with add(total_games, total_cost) and advance(games, cost), e.g.
    ``experiments.progress.StudyProgress`` (cost is nominal seconds, so the time left is right
    when cheap and costly cells are mixed); its owner closes it.
    on_unit(cell, start, count, counts): called once per finished unit, in order; a results
    store records the unit there (``arena.units.unit_key(cell, start, count)`` names it).
    unit_fn(cell, start, count) -> counts plays a unit (default arena.units.run_unit; the
    paired variants study passes its own, with a PairedCell that has no unit_key).

    Units run one after another, each on all `threads` (numba's parallel blocks inside the
    unit). With a results store or a backend, the same plan (``units``) goes through
    ``experiments.run.runwork.execute_units`` instead (docs/scaling.md), same result:
    store: an ``experiments.run.store.Store``; units it holds are not played again, every unit played
    is recorded there, and the totals are read back from it (a finished study replays nothing).
    workers=N (a new LocalCluster), scheduler="tcp://HOST:PORT" or an open Dask client: where
    units are played; `threads` is then numba's threads per unit on a worker. A study opens one
    client for all its execute calls (``experiments.run.cluster.dask_client``) and passes client=.
    model: {game: network array}, a user's model (``--model``) played
    in place of the installed one in every cell (``experiments.cells.with_model``); the cells
    played, recorded and keyed are the mapped ones, so a store keeps such units apart.
    """
    if model:
        from ..cells import with_model
        work = [(with_model(w[0], model), *w[1:]) for w in work]
    if store is not None or workers is not None or scheduler is not None or client is not None:
        from .runwork import execute_units
        return execute_units(work, threads, progress, on_unit, unit_fn, plan=units, store=store,
                             workers=workers, scheduler=scheduler, client=client, speed=speed)
    import numba

    from arena.runner import check_threads
    run = unit_fn or run_unit
    items = [(w[0], int(w[1]), int(w[2]) if len(w) > 2 else 0) for w in work]
    plan = [(i, cell, a, n) for i, (cell, games, start) in enumerate(items)
            for a, n in units(cell, games, start)]
    totals: list[np.ndarray | None] = [None] * len(items)
    if progress is not None:
        progress.add(sum(g * games_per_seed(c) for c, g, _ in items),
                     sum(g * games_per_seed(c) / speed(c) for c, g, _ in items))
    nthreads = check_threads(threads)
    old = numba.get_num_threads()
    numba.set_num_threads(nthreads)
    try:
        for i, cell, a, n in plan:
            counts = run(cell, a, n)
            totals[i] = counts.copy() if totals[i] is None else totals[i] + counts
            if on_unit is not None:
                on_unit(cell, a, n, counts)
            if progress is not None:
                k = games_per_seed(cell)
                progress.advance(n * k, n * k / speed(cell))
    finally:
        numba.set_num_threads(old)
    out = []
    for (cell, games, _), t in zip(items, totals):
        if t is None:   # games == 0
            width = len(FIELDS[cell.game]) if cell.game in FIELDS else 0
            t = np.zeros(width, dtype=np.int64)
        out.append(t)
    return out
