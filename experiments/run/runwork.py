"""Run a study's work through a backend into the results store: the glue between the studies
executor (``experiments/run/execute.py``), ``experiments.run.store`` and ``experiments.run.cluster``.

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
from ..cells import games_per_seed
from .store import Store, cut, format_status
from ..progress import StudyProgress

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
    seen: dict = {}
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
    with StudyProgress("games", total=total, done=done,
                       disable=None if progress is None else not progress) as bar:
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


def aligned(size: int):
    """A plan that cuts a range at the multiples of `size` (the same range gives the same units
    in every run, so a resume finds the very units it recorded)."""
    def plan(cell, games, start):
        return cut(start, games, size)
    return plan


def execute_units(work, threads: int | None = None, progress=None, on_unit: Callable | None = None,
                  unit_fn=None, *, plan=None, store: Store | None = None, workers: int | None = None,
                  scheduler: str | None = None, client=None, speed: Callable | None = None) -> list[np.ndarray]:
    """``experiments.run.execute.execute`` with a results store and any backend: the same arguments
    and result (one summed count vector per work item, in order), plus

    - ``plan(cell, games, start) -> [(start, count), ...]``: how a range is cut into units
      (``experiments.run.execute.units``; default ``aligned(4096)``);
    - ``store``: units it holds are not played again; every unit played is recorded there before
      ``on_unit`` sees it; the totals are read back from it;
    - ``workers`` / ``scheduler`` / ``client``: the backend (``experiments.run.cluster.map_units``),
      ``threads``: numba threads per unit (locally: this process's; on a cluster: per worker);
    - ``progress``: an object with ``add(games, cost)`` and ``advance(games, cost)``
      (``experiments.progress.StudyProgress``); cost is games / ``speed(cell)`` when ``speed`` is
      given, else games. The games still to play are added (``add``), those the store holds
      are passed to ``resumed(games, cost)`` if the bar has it (it starts part full; its rate is
      this run's).

    A work item is (cell, games) or (cell, games, start). Every item's range is cut at the edges
    of every other item of the same cell too, so each unit lies inside or outside each item."""
    if store is not None and unit_fn is not None and not all(hasattr(w[0], "store_dict") for w in work):
        raise ValueError("a results store keys units by arena.units.Cell or a cell with store_dict() "
                         "(experiments.run.store): run a unit_fn on other cells without a store")
    plan = plan or aligned(4096)
    items = [(w[0], int(w[1]), int(w[2]) if len(w) > 2 else 0) for w in work]
    by_cell: dict = {}
    for cell, games, start in items:
        if isinstance(cell, Cell):
            check_cell(cell)
        if games < 0 or start < 0:
            raise UserError(f"games {games} from {start}: both must be 0 or more")
        if games:
            by_cell.setdefault(cell, set()).update((start, start + games))
    if store is not None:
        for cell, games, start in items:
            store.ask(cell, start + games)                 # for status: the largest asked wins
    units, asked = [], []
    for cell, edges in by_cell.items():
        edges = sorted(edges)
        for a, b in zip(edges, edges[1:]):
            if not any(s <= a and b <= s + g for c, g, s in items if c == cell):
                continue                                       # between two items: not asked
            asked.append((cell, b - a))
            for ga, gn in (store.missing(cell, b - a, a) if store is not None else [(a, b - a)]):
                units += [(cell, ua, un) for ua, un in plan(cell, gn, ga)]
    # progress counts games played: n seeds of a paired cell are 2n games
    k = games_per_seed
    cost = (lambda c, n: n * k(c) / speed(c)) if speed else (lambda c, n: float(n * k(c)))
    if progress is not None and hasattr(progress, "add"):
        todo, todo_cost = sum(n * k(c) for c, _, n in units), sum(cost(c, n) for c, _, n in units)
        done = sum(n * k(c) for c, n in asked) - todo
        done_cost = sum(cost(c, n) for c, n in asked) - todo_cost
        progress.add(todo, todo_cost)
        if done and hasattr(progress, "resumed"):   # games the store holds: done, not in the rate
            progress.resumed(done, done_cost)
    mem: dict = {}   # without a store: counts by unit
    for r in map_units(units, workers=workers, scheduler=scheduler, client=client, threads_per_worker=threads,
                       unit_fn=unit_fn):
        if store is not None:
            store.record(r.cell, r.start, r.count, r.counts, r.seconds)
        else:
            mem.setdefault(r.cell, []).append((r.start, r.count, r.counts))
        if on_unit is not None:
            on_unit(r.cell, r.start, r.count, r.counts)
        if progress is not None:
            progress.advance(r.count * k(r.cell), cost(r.cell, r.count))
    out = []
    for cell, games, start in items:
        if store is not None:
            try:
                out.append(store.range_totals(cell, start, games))
            except ValueError as e:
                raise UserError(f"results store {store.path}: {e} (recorded by a run with other unit edges); "
                                "run with --fresh") from None
            continue
        tot = None
        for a, n, counts in mem.get(cell, ()):
            if start <= a and a + n <= start + games:
                tot = counts.copy() if tot is None else tot + counts
        if tot is None:
            tot = np.zeros(len(FIELDS[cell.game]) if getattr(cell, "game", None) in FIELDS else 0, np.int64)
        out.append(tot)
    return out


def study_status(store_path, work: Iterable[tuple[Cell, int]] | None = None, study: str | None = None) -> str:
    """The ``experiment status`` text: per cell games recorded of games asked (read-only; a run
    may be writing at the same time). ``study``: only the cells that study asked for, and only the
    games inside what it asked (``Store.status``); ``work``: these (cell, games) pairs; neither:
    every cell of the store."""
    path = pathlib.Path(store_path)
    if not path.exists() and not path.is_symlink():
        return f"{path}: nothing recorded yet"
    with Store(path, readonly=True) as s:
        if study is not None:
            rows = s.status(study=study)
            if not rows:
                others = s.studies()
                return (f"nothing asked by study {study!r} yet" + (
                    f" (the store holds cells of {', '.join(map(repr, others))})" if others else ""))
        else:
            rows = s.status([c for c, _ in work] if work is not None else None)
            if work is not None:
                rows = [r if r.asked else type(r)(r.key, r.label, r.game, r.engine, r.games, g, r.units)
                        for r, (_, g) in zip(rows, work)]
        st = s.stats()
    return format_status(rows) + (f"\nthe store holds {st['units']:,} units of {st['cells']:,} cells in all, "
                                  f"{st['bytes'] / 1e6:.1f} MB: {path}")


__all__ = ["run_work", "execute_units", "aligned", "study_status", "Planner", "UNIT_SECONDS", "FIRST_UNIT", "MAX_UNIT"]
