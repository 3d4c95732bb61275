"""Run a study's work through a backend into the results store: the glue between the studies
executor (``experiments/execute.py``), ``experiments.store`` and ``experiments.cluster``.

``run_work(work, store=..., workers=... | scheduler=...)`` takes ``work`` as (cell, games) pairs,
plays every game of every cell that the store does not hold yet, in units sized by time, records
each finished unit in the store as it arrives (one transaction per unit), shows one progress bar
and returns each cell's totals read back from the store. A study killed midway and run again
plays only what is missing; ``fresh=True`` deletes the store first.

Units are sized by time like ``arena.runner``'s chunks: a cell's first units are small
(``FIRST_UNIT`` games) and each next one is about ``target_seconds`` of one worker's time at the
cell's measured rate, growing at most 4x at a time, so random play (microseconds a game) and a
search policy (seconds a game) both record a unit every few seconds.
"""
from __future__ import annotations

import pathlib
from typing import Callable, Iterable

import numpy as np

from arena.units import FIELDS, Cell, check_cell
from simcore.errors import UserError

from .cluster import map_units
from .store import Store, format_status
from .study_progress import StudyProgress

UNIT_SECONDS = 5.0     # aim for units of about this much worker time (docs/scaling.md: overhead < 1%)
FIRST_UNIT = 16        # games in a cell's first units, before anything is known of their cost
MAX_UNIT = 1 << 24     # games in a unit at most (random play: a few minutes on one core)


class Planner:
    """Lazily yields units (cell, start, count) covering the given ranges of every cell,
    round-robin over the cells, sized from the rates ``observe`` has seen."""

    def __init__(self, todo: list[tuple[Cell, list[tuple[int, int]]]], target_seconds: float = UNIT_SECONDS,
                 first: int = FIRST_UNIT, max_unit: int = MAX_UNIT):
        self.todo = [(c, list(gaps)) for c, gaps in todo if gaps]
        self.target, self.first, self.max_unit = target_seconds, first, max_unit
        self.games: dict = {}       # cell -> games observed
        self.seconds: dict = {}     # cell -> worker seconds observed
        self.largest: dict = {}     # cell -> largest unit handed out

    def size(self, cell: Cell) -> int:
        big = self.largest.get(cell, 0)
        if not self.games.get(cell):
            return max(self.first, big)
        rate = self.games[cell] / max(self.seconds[cell], 1e-6)
        want = int(rate * self.target)
        return int(max(1, min(self.max_unit, 4 * max(big, self.first), want)))

    def observe(self, cell: Cell, count: int, seconds: float) -> None:
        self.games[cell] = self.games.get(cell, 0) + count
        self.seconds[cell] = self.seconds.get(cell, 0.0) + seconds

    def __iter__(self):
        live = [[c, gaps] for c, gaps in self.todo]
        while live:
            for item in list(live):
                cell, gaps = item
                start, count = gaps[0]
                n = min(count, self.size(cell))
                self.largest[cell] = max(self.largest.get(cell, 0), n)
                if n == count:
                    gaps.pop(0)
                else:
                    gaps[0] = (start + n, count - n)
                if not gaps:
                    live.remove(item)
                yield cell, start, n


def run_work(work: Iterable[tuple[Cell, int]], *, store: Store | None = None, workers: int | None = None,
             scheduler: str | None = None, client=None, threads_per_worker: int | None = None,
             target_seconds: float = UNIT_SECONDS, first_unit: int = FIRST_UNIT, progress: bool | None = None,
             on_unit: Callable | None = None) -> dict:
    """Play every missing game of every (cell, games) pair and return {cell: totals}.

    ``store``: record each finished unit there and skip what it holds (None: keep totals in
    memory only). Backend: local (default), ``workers=N`` (a LocalCluster), ``scheduler=ADDR``
    or an open Dask ``client``. ``on_unit(cell, start, count, counts)`` is called after each unit
    is recorded. ``progress``: None shows a bar on a terminal, False never."""
    work = list(work)
    seen = {}
    for cell, games in work:
        check_cell(cell)
        if not isinstance(games, (int, np.integer)) or games < 0:
            raise UserError(f"games {games}: must be a whole number, 0 or more")
        if cell in seen and seen[cell] != games:
            raise UserError(f"cell {cell.label or cell} asked twice, for {seen[cell]} and {games} games")
        seen[cell] = games
    work = list(seen.items())
    todo, done = [], 0
    mem = {}
    for cell, games in work:
        if store is not None:
            store.ask(cell, games)
            gaps = store.missing(cell, games)
        else:
            gaps = [(0, games)] if games else []
            mem[cell] = np.zeros(len(FIELDS[cell.game]), np.int64)
        done += games - sum(c for _, c in gaps)
        todo.append((cell, gaps))
    total = sum(g for _, g in work)
    planner = Planner(todo, target_seconds, first_unit)
    with StudyProgress(total, done, disable=None if progress is None else not progress) as bar:
        for r in map_units(planner, workers=workers, scheduler=scheduler, client=client,
                           threads_per_worker=threads_per_worker):
            planner.observe(r.cell, r.count, r.seconds)
            if store is not None:
                store.record(r.cell, r.start, r.count, r.counts, r.seconds)
            else:
                mem[r.cell] += r.counts
            bar.on_unit(r.cell, r.start, r.count, r.counts)
            if on_unit is not None:
                on_unit(r.cell, r.start, r.count, r.counts)
    return {cell: (store.totals(cell) if store is not None else mem[cell]) for cell, _ in work}


def study_status(store_path, work: Iterable[tuple[Cell, int]] | None = None) -> str:
    """The ``experiment status`` text: per cell games recorded of games asked (read-only; a run
    may be writing at the same time)."""
    path = pathlib.Path(store_path)
    if not path.exists():
        return f"{path}: nothing recorded yet"
    with Store(path, readonly=True) as s:
        rows = s.status([c for c, _ in work] if work is not None else None)
        if work is not None:
            rows = [r if r.asked else type(r)(r.key, r.label, r.game, r.engine, r.games, g, r.units)
                    for r, (_, g) in zip(rows, work)]
        st = s.stats()
    return format_status(rows) + f"\n{st['units']:,} units, {st['bytes'] / 1e6:.1f} MB in {path}"


__all__ = ["run_work", "study_status", "Planner", "UNIT_SECONDS", "FIRST_UNIT", "MAX_UNIT"]
