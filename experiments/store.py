"""The durable results store of a study: every finished unit, once, in one SQLite file.

A study's games are split into *units* (``arena.units``: a cell and a range of game indices);
each unit's result is a fixed int64 count vector. The store records every finished unit with
its key and its counts, in a transaction of its own, so that

- a unit is recorded once: the key (cell, start) is UNIQUE, recording the same unit again is a
  no-op (a resume or a re-run never counts it twice), and a range that overlaps a recorded range
  of the same cell is refused (``OverlapError``): counts of one game never enter twice;
- a crash (SIGKILL, power loss) loses at most the units in flight: a unit is either recorded with
  its counts and the cell's running totals, or not at all (one transaction; WAL journal;
  ``synchronous=FULL``, so a committed unit survives an OS crash too);
- results of another engine version, rules file or policy parameters are never mixed: a cell's
  key (``arena.units.cell_key``) holds the engine source hash, the rules content hash and the
  theta hash, so other rules or parameters are other cells, kept apart; and a store holding
  units of another *engine* version is refused as a whole when opened (``UserError`` asking for
  ``--fresh``), because a study half on one engine and half on another is a mistake to flag, not
  to keep.

Only the client (the process that plans the study and collects results) writes; readers (a
``status`` from another shell) may read while it writes (WAL). Two writers are safe too
(``BEGIN IMMEDIATE`` serialises them; the overlap check and the insert are one transaction), but
the executor should not need that.

Layout (schema version 1):
  meta(key, value)                      schema, engine hash of the units, created
  cells(id, key UNIQUE, game, engine, rules, theta, label, asked, games, units, counts)
      ``counts`` the running total (int64 little-endian blob), updated in the unit's transaction
  units(cell_id, start, count, counts, seconds, recorded)   UNIQUE(cell_id, start)
"""
from __future__ import annotations

import contextlib
import json
import pathlib
import sqlite3
import time
from dataclasses import dataclass

import numpy as np

from arena.units import FIELDS, Cell, cell_dict, cell_key, engine_hash
from simcore.errors import UserError

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 60.0   # a second writer waits this long for the lock before failing

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    engine TEXT NOT NULL,
    rules TEXT NOT NULL,
    theta TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    asked INTEGER NOT NULL DEFAULT 0,
    games INTEGER NOT NULL DEFAULT 0,
    units INTEGER NOT NULL DEFAULT 0,
    counts BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
    cell_id INTEGER NOT NULL REFERENCES cells(id),
    start INTEGER NOT NULL CHECK (start >= 0),
    count INTEGER NOT NULL CHECK (count > 0),
    counts BLOB NOT NULL,
    seconds REAL,
    recorded REAL NOT NULL,
    UNIQUE (cell_id, start)
);
"""


class OverlapError(ValueError):
    """A unit overlaps a recorded unit of the same cell without being the same unit (a bug in the
    executor's planning: the same games would be counted twice)."""


class DeterminismError(RuntimeError):
    """The same unit came back with other counts than the ones recorded (the engine is not a pure
    function of the unit's key: a bug to investigate, never to paper over)."""


@dataclass(frozen=True)
class CellStatus:
    key: str
    label: str
    game: str
    engine: str
    games: int      # games recorded
    asked: int      # games the study asks for (0: not said)
    units: int

    @property
    def fraction(self) -> float:
        return min(1.0, self.games / self.asked) if self.asked else 0.0


# A cell is an ``arena.units.Cell``, or any hashable object with ``game``, ``store_dict()`` (its
# JSON-able key fields, with "rules" and "theta" content hashes) and ``fields`` (the names of its
# count vector, counts[0] the games): e.g. the variants study's PairedCell, two cells on one seed.

def _dict(cell) -> dict:
    return cell.store_dict() if hasattr(cell, "store_dict") else cell_dict(cell)


def key_of(cell) -> str:
    """The cell's key in a store: its fields and the engine hash, as JSON with sorted keys."""
    if not hasattr(cell, "store_dict"):
        return cell_key(cell)
    return json.dumps({**cell.store_dict(), "engine": engine_hash()}, sort_keys=True, separators=(",", ":"))


def fields_of(cell) -> tuple:
    return tuple(cell.fields) if hasattr(cell, "store_dict") else FIELDS[cell.game]


def _label(cell) -> str:
    return getattr(cell, "label", "") or ""


def _blob(counts) -> bytes:
    return np.ascontiguousarray(counts, dtype="<i8").tobytes()


def _vec(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<i8").astype(np.int64)


def _files(path: pathlib.Path):
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


class Store:
    """A study's results store. ``Store.open(path)`` creates or opens it; ``fresh=True`` deletes
    an existing one first. Use as a context manager or call ``close()``."""

    def __init__(self, path, *, fresh: bool = False, engine: str | None = None, readonly: bool = False):
        self.path = pathlib.Path(path)
        self.engine = engine or engine_hash()
        self._cell_ids: dict[str, int] = {}
        if fresh and not readonly:
            for f in _files(self.path):
                f.unlink(missing_ok=True)
        if readonly:
            if not self.path.exists():
                raise UserError(f"results store {self.path}: no such file (run the study first)")
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S,
                                      isolation_level=None)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            with self._tx():
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('created', ?)", (str(time.time()),))
        self._check()

    @classmethod
    def open(cls, path, **kw) -> "Store":
        return cls(path, **kw)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.db.close()

    # -- transactions -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _tx(self):
        self.db.execute("BEGIN IMMEDIATE")   # take the write lock now: check-then-insert is atomic
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            self._cell_ids.clear()           # a cell row made in this transaction is gone again
            raise
        self.db.execute("COMMIT")

    def _check(self):
        schema = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if schema is None or int(schema[0]) != SCHEMA_VERSION:
            raise UserError(f"results store {self.path}: schema {schema and schema[0]} is not {SCHEMA_VERSION}; "
                            "run with --fresh to start over")
        other = self.db.execute("SELECT engine, COUNT(*), SUM(games) FROM cells WHERE engine != ? AND games > 0 "
                                "GROUP BY engine", (self.engine,)).fetchall()
        if other:
            eng, n, g = other[0]
            raise UserError(f"results store {self.path} holds {g:,} games of {n} cells from engine {eng}, not this "
                            f"engine {self.engine}; run with --fresh to start over (the old results are deleted)")

    # -- cells --------------------------------------------------------------------------------

    def _key(self, cell) -> str:
        key = key_of(cell)
        engine = json.loads(key)["engine"]
        if engine != self.engine:
            raise UserError(f"a cell of engine {engine} given to a store of engine {self.engine}")
        return key

    def _cell_id(self, cell: Cell, create: bool) -> int | None:
        key = self._key(cell)
        cid = self._cell_ids.get(key)
        if cid is not None:
            return cid
        row = self.db.execute("SELECT id FROM cells WHERE key=?", (key,)).fetchone()
        if row is None:
            if not create:
                return None
            d = _dict(cell)
            self.db.execute("INSERT OR IGNORE INTO cells (key, game, engine, rules, theta, label, counts) "
                            "VALUES (?,?,?,?,?,?,?)",
                            (key, cell.game, self.engine, d["rules"], d["theta"], _label(cell),
                             _blob(np.zeros(len(fields_of(cell)), np.int64))))
            row = self.db.execute("SELECT id FROM cells WHERE key=?", (key,)).fetchone()
        self._cell_ids[key] = row[0]
        return row[0]

    def ask(self, cell: Cell, games: int) -> None:
        """Say how many games the study asks of a cell (for ``status``; the largest asked wins, so
        a study can be extended but a shorter ask never forgets recorded games)."""
        if games < 0:
            raise UserError(f"games {games}: must be 0 or more")
        with self._tx():
            cid = self._cell_id(cell, create=True)
            self.db.execute("UPDATE cells SET asked=MAX(asked, ?), label=? WHERE id=?", (games, _label(cell), cid))

    # -- units --------------------------------------------------------------------------------

    def record(self, cell: Cell, start: int, count: int, counts, seconds: float | None = None) -> bool:
        """Record a finished unit. Returns True if recorded, False if this very unit (same cell,
        start and count, same counts) was recorded already. Raises OverlapError if the range
        overlaps another recorded unit of the cell, DeterminismError if the same unit was
        recorded with other counts."""
        counts = self._checked(cell, start, count, counts)
        with self._tx():
            return self._insert(cell, start, count, counts, seconds)

    def record_many(self, units) -> int:
        """Record (cell, start, count, counts[, seconds]) units in ONE transaction (one fsync): for
        write rates beyond what one commit per unit allows. All or none are recorded (an overlap
        or determinism error rolls the batch back); returns how many were new."""
        units = [(u[0], u[1], u[2], self._checked(*u[:4]), u[4] if len(u) > 4 else None) for u in units]
        with self._tx():
            return sum(self._insert(*u) for u in units)

    @staticmethod
    def _checked(cell, start, count, counts) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.int64)
        if start < 0 or count <= 0:
            raise ValueError(f"unit {start}+{count}: start must be >= 0 and count > 0")
        if counts.shape != (len(fields_of(cell)),):
            raise ValueError(f"counts of shape {counts.shape}, not ({len(fields_of(cell))},) for {cell.game}")
        if counts[0] != count:
            raise ValueError(f"counts say {counts[0]} games for a unit of {count}")
        return counts

    def _insert(self, cell, start, count, counts, seconds) -> bool:
        """The body of record, inside a write transaction."""
        end = start + count
        cid = self._cell_id(cell, create=True)
        prev = self.db.execute("SELECT start, count, counts FROM units WHERE cell_id=? AND start<=? "
                               "ORDER BY start DESC LIMIT 1", (cid, start)).fetchone()
        if prev is not None and prev[0] == start and prev[1] == count:
            if not np.array_equal(_vec(prev[2]), counts):
                raise DeterminismError(f"unit {start}+{count} of {key_of(cell)} came back with other counts "
                                       "than recorded")
            return False
        if prev is not None and prev[0] + prev[1] > start:
            raise OverlapError(f"unit {start}+{count} overlaps recorded unit {prev[0]}+{prev[1]}")
        nxt = self.db.execute("SELECT start, count FROM units WHERE cell_id=? AND start>? AND start<? "
                              "ORDER BY start LIMIT 1", (cid, start, end)).fetchone()
        if nxt is not None:
            raise OverlapError(f"unit {start}+{count} overlaps recorded unit {nxt[0]}+{nxt[1]}")
        self.db.execute("INSERT INTO units VALUES (?,?,?,?,?,?)",
                        (cid, start, count, _blob(counts), seconds, time.time()))
        total = _vec(self.db.execute("SELECT counts FROM cells WHERE id=?", (cid,)).fetchone()[0]) + counts
        self.db.execute("UPDATE cells SET counts=?, games=games+?, units=units+1 WHERE id=?",
                        (_blob(total), count, cid))
        return True

    def done_ranges(self, cell: Cell) -> list[tuple[int, int]]:
        """Recorded game ranges of the cell as sorted, merged [start, end) pairs."""
        cid = self._cell_id(cell, create=False)
        if cid is None:
            return []
        out: list[list[int]] = []
        for s, c in self.db.execute("SELECT start, count FROM units WHERE cell_id=? ORDER BY start", (cid,)):
            if out and out[-1][1] == s:
                out[-1][1] = s + c
            else:
                out.append([s, s + c])
        return [tuple(r) for r in out]

    def missing(self, cell: Cell, games: int, start: int = 0, unit: int | None = None) -> list[tuple[int, int]]:
        """The ranges of games start..start+games-1 of the cell not recorded yet, as (start, count);
        with `unit`, cut into units at the multiples of `unit` (``cut``)."""
        if unit is not None:
            return [u for a, n in self.missing(cell, games, start) for u in cut(a, n, unit)]
        stop = start + games
        gaps, at = [], start
        for s, e in self.done_ranges(cell):
            if s >= stop:
                break
            if s > at:
                gaps.append((at, s - at))
            at = max(at, e)
        if at < stop:
            gaps.append((at, stop - at))
        return gaps

    def unit(self, cell: Cell, start: int, count: int) -> np.ndarray | None:
        """The counts recorded for exactly this unit, or None."""
        cid = self._cell_id(cell, create=False)
        row = cid is not None and self.db.execute("SELECT counts FROM units WHERE cell_id=? AND start=? AND count=?",
                                                  (cid, start, count)).fetchone()
        return _vec(row[0]) if row else None

    def range_totals(self, cell: Cell, start: int, games: int) -> np.ndarray:
        """The counts of games start..start+games-1 of the cell, summed over the recorded units
        inside the range. ValueError if a game of the range is not recorded or a recorded unit
        crosses the range's edge (its counts cannot be split)."""
        stop = start + games
        total = np.zeros(len(fields_of(cell)), np.int64)
        cid = self._cell_id(cell, create=False)
        got = 0
        if cid is not None:
            for s, c, b in self.db.execute("SELECT start, count, counts FROM units WHERE cell_id=? AND start<? "
                                           "AND start+count>? ORDER BY start", (cid, stop, start)):
                if s < start or s + c > stop:
                    raise ValueError(f"recorded unit {s}+{c} crosses the edge of range {start}+{games}")
                total += _vec(b)
                got += c
        if got != games:
            raise ValueError(f"range {start}+{games}: {games - got} games not recorded")
        return total

    def totals(self, cell: Cell) -> np.ndarray:
        """The cell's count vector summed over every recorded unit (zeros if none)."""
        cid = self._cell_id(cell, create=False)
        if cid is None:
            return np.zeros(len(fields_of(cell)), np.int64)
        return _vec(self.db.execute("SELECT counts FROM cells WHERE id=?", (cid,)).fetchone()[0])

    def table(self, game: str):
        """The game's cells as a pandas DataFrame, one row per cell: the cell's fields (as in
        ``arena.units.cell_dict``), label, engine, games asked, units, and every count field
        (``FIELDS[game]``) summed over the cell's units: what a report is built from, with no game
        replayed."""
        import pandas as pd
        rows = []
        for key, label, engine, asked, units, blob in self.db.execute(
                "SELECT key, label, engine, asked, units, counts FROM cells WHERE game=? ORDER BY id", (game,)):
            d = json.loads(key)
            d.pop("engine")
            if "pair" in d:   # a paired cell: other count fields, not one of the game's cells
                continue
            rows.append({**d, "label": label, "engine": engine, "asked": asked, "units": units,
                         **dict(zip(FIELDS[game], _vec(blob).tolist()))})
        return pd.DataFrame(rows)

    def verify(self) -> None:
        """Check that every cell's running total equals the sum of its units (AssertionError if
        not) and that SQLite finds the file sound."""
        assert self.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for cid, key, blob, games, units in self.db.execute("SELECT id, key, counts, games, units FROM cells").fetchall():
            s = np.zeros_like(_vec(blob))
            n = g = 0
            for (b, c) in self.db.execute("SELECT counts, count FROM units WHERE cell_id=?", (cid,)):
                s += _vec(b)
                n, g = n + 1, g + c
            assert np.array_equal(s, _vec(blob)) and (n, g) == (units, games), f"totals of {key} disagree with units"

    def status(self, cells=None) -> list[CellStatus]:
        """Per cell: games recorded and games asked. ``cells`` (Cell objects) limits and orders
        the rows to a study's cells (cells not in the store yet show 0 games)."""
        rows = {r[0]: CellStatus(*r) for r in self.db.execute(
            "SELECT key, label, game, engine, games, asked, units FROM cells ORDER BY id")}
        if cells is None:
            return list(rows.values())
        out = []
        for c in cells:
            k = key_of(c)
            out.append(rows.get(k) or CellStatus(k, _label(c), c.game, self.engine, 0, 0, 0))
        return out

    def stats(self) -> dict:
        """Store-wide figures: cells, units, games, file size in bytes."""
        cells, games = self.db.execute("SELECT COUNT(*), COALESCE(SUM(games), 0) FROM cells").fetchone()
        units = self.db.execute("SELECT COUNT(*) FROM units").fetchone()[0]
        size = sum(f.stat().st_size for f in _files(self.path) if f.exists())
        return {"cells": cells, "units": units, "games": games, "bytes": size}


def cut(start: int, games: int, size: int) -> list[tuple[int, int]]:
    """Games start..start+games-1 as (start, count) units cut at the multiples of `size`: the same
    range gives the same units in every run, so a resume meets the units it recorded."""
    if size < 1:
        raise ValueError(f"unit size {size}: must be 1 or more")
    edges = [start, *range((start // size + 1) * size, start + games, size), start + games]
    return [(a, b - a) for a, b in zip(edges, edges[1:]) if b > a]


def store_path_for(study_file) -> pathlib.Path:
    """Where a study file's results live by default: beside it, ``<name>.results.sqlite``."""
    p = pathlib.Path(study_file)
    return p.with_name(p.stem + ".results.sqlite")


def format_status(rows: list[CellStatus]) -> str:
    """A plain table of a study's progress (the ``experiment status`` output), by tabulate; each
    cell's label in full."""
    if not rows:
        return "no cells"
    from tabulate import tabulate
    table = []
    g = a = 0
    for r in rows:
        k = _games_per_seed(r.key)   # games, as `experiment run` counts them: a pair plays 2 a seed
        table.append([r.label or _short(r.key), f"{k * r.games:,}", f"{k * r.asked:,}",
                      f"{r.fraction:.1%}" if r.asked else "-", f"{r.units:,}"])
        g, a = g + k * r.games, a + k * r.asked
    table.append(["total", f"{g:,}", f"{a:,}", f"{min(1, g / a):.1%}" if a else "-",
                  f"{sum(r.units for r in rows):,}"])
    return tabulate(table, headers=["cell", "games", "asked", "done", "units"], tablefmt="simple",
                    disable_numparse=True, colalign=("left", "right", "right", "right", "right"))


def _games_per_seed(key) -> int:
    """2 for a paired cell's key (the variant and the defaults on each seed), else 1."""
    d = json.loads(key) if isinstance(key, str) else key
    return 2 if isinstance(d, dict) and "pair" in d else 1


def _short(key) -> str:
    d = json.loads(key) if isinstance(key, str) else key
    if "pair" in d:
        a, b = d["pair"]
        return f"{_short(a)}, rules {a['rules'][:6]} vs {b['rules'][:6]}"
    bits = [d["game"], f"{len(d['policies'])}p"]
    if d.get("spies") is not None:
        bits.append(f"{d['spies']} {'spy' if d['spies'] == 1 else 'spies'}")
    if d.get("characters"):
        bits.append("+".join(map(str, d["characters"])))
    if d.get("leaves"):
        bits.append("leaves " + ",".join(map(str, d["leaves"])))
    bits += [",".join(sorted(set(d["policies"]))), f"seed {d['seed']}"]
    return " ".join(bits)


__all__ = ["Store", "CellStatus", "cut", "key_of", "fields_of", "OverlapError", "DeterminismError", "store_path_for", "format_status",
           "SCHEMA_VERSION"]
