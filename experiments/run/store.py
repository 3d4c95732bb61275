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
  to keep. The engine hash covers the installed learned models and tuned weights too
  (``arena.units.engine_hash``): a model installed by ``boardsim train`` since is another engine.

Only the client (the process that plans the study and collects results) writes; readers (a
``status`` from another shell) may read while it writes (WAL). Two writers are safe too
(``BEGIN IMMEDIATE`` serialises them; the overlap check and the insert are one transaction), but
the executor should not need that.

The store proves its counts. Opening it checks, before anything is written, that the file is a
results store boardsim created (SQLite's ``application_id`` in the file header; a file that is not
SQLite, or a SQLite file of anyone else, is refused and never written or deleted), its schema, and
every row (``Store.problems``): each unit's row against its checksum (sha256 over the cell's key,
the range and the counts), its counts against what every played unit satisfies, no overlaps, and
each cell's running totals against the sum of its units. The checksum catches accidents and naive
edits, not an editor who recomputes it: since a unit is a pure function of its key, replaying
units (``Store.replay_sample``, ``boardsim experiment verify``) catches everything, and each cell
keeps the recipe (rules and parameters in full) that rebuilds it for that.

Layout (schema version 2; ``PRAGMA application_id`` = APPLICATION_ID, ``user_version`` = 2):
  meta(key, value)                      schema, created
  cells(id, key UNIQUE, game, engine, rules, theta, recipe, label, asked, games, units, counts)
      ``counts`` the running total (int64 little-endian blob), updated in the unit's transaction;
      ``recipe`` the JSON that rebuilds the cell (``arena.units.cell_recipe``)
  units(cell_id, start, count, counts, digest, seconds, recorded)   UNIQUE(cell_id, start)
  asks(study, cell_id, games)           the games each study asked of each cell (``status``)

A store of schema 1 (main 5d46606 and before: no checksums, recipes or asks) is refused with a
one-line error asking for ``--fresh``: its units cannot be checked, and its engine hash is an
older engine's in any case.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import random
import secrets
import sqlite3
import stat
import time
from dataclasses import dataclass, field

import numpy as np

from arena.units import FIELDS, Cell, cell_dict, cell_from_recipe, cell_key, cell_recipe, count_problem, engine_hash
from simcore.errors import UserError

from ..cells import WON_LENGTH_BINS, LengthsCell, PairedCell, cell_unit

SCHEMA_VERSION = 2          # 1: main 5d46606 and before (no checksums, no recipes, no asks); refused, --fresh
APPLICATION_ID = 0x62735253  # 'bsRS': SQLite's application_id of a boardsim results store (header bytes 68-71)
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 60.0   # a second writer waits this long for the lock before failing

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cells (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    engine TEXT NOT NULL,
    rules TEXT NOT NULL,
    theta TEXT NOT NULL,
    recipe TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    asked INTEGER NOT NULL DEFAULT 0,
    games INTEGER NOT NULL DEFAULT 0,
    units INTEGER NOT NULL DEFAULT 0,
    counts BLOB NOT NULL
);
CREATE TABLE units (
    cell_id INTEGER NOT NULL REFERENCES cells(id),
    start INTEGER NOT NULL CHECK (start >= 0),
    count INTEGER NOT NULL CHECK (count > 0),
    counts BLOB NOT NULL,
    digest TEXT NOT NULL,
    seconds REAL,
    recorded REAL NOT NULL,
    UNIQUE (cell_id, start)
);
CREATE TABLE asks (
    study TEXT NOT NULL,
    cell_id INTEGER NOT NULL REFERENCES cells(id),
    games INTEGER NOT NULL CHECK (games >= 0),
    PRIMARY KEY (study, cell_id)
);
"""
TABLES = ("meta", "cells", "units", "asks")


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
# JSON-able key fields, with "rules" and "theta" content hashes), ``recipe()`` (what rebuilds it:
# ``from_recipe``) and ``fields`` (the names of its count vector, counts[0] the games): e.g. the
# variants study's PairedCell, two cells on one seed.

def _dict(cell) -> dict:
    return cell.store_dict() if hasattr(cell, "store_dict") else cell_dict(cell)


def key_of(cell) -> str:
    """The cell's key in a store: its fields and the engine hash, as JSON with sorted keys."""
    if not hasattr(cell, "store_dict"):
        return cell_key(cell)
    return json.dumps({**cell.store_dict(), "engine": engine_hash()}, sort_keys=True, separators=(",", ":"))


def fields_of(cell) -> tuple:
    return tuple(cell.fields) if hasattr(cell, "store_dict") else FIELDS[cell.game]


def recipe_of(cell) -> dict:
    """What builds the cell again (``from_recipe``): ``arena.units.cell_recipe``, or the cell's own."""
    return cell.recipe() if hasattr(cell, "recipe") else cell_recipe(cell)


def from_recipe(recipe: dict):
    """The cell a recipe describes: an ``arena.units.Cell``, the variants study's PairedCell, a skill
    check's JointCell (``"joint"``), the sensitivity tables' StarCell (``"star"``) or the difficulty
    study's LengthsCell (``"won_lengths"``)."""
    if "pair" in recipe:
        return PairedCell.from_recipe(recipe)
    if recipe.get("won_lengths"):
        return LengthsCell.from_recipe(recipe)
    return cell_from_recipe(recipe)


def replay(cell, start: int, count: int) -> np.ndarray:
    """Play a unit again: its counts, computed now (a pure function of the unit)."""
    return cell_unit(cell, start, count)


def _label(cell) -> str:
    return getattr(cell, "label", "") or ""


def _blob(counts) -> bytes:
    return np.ascontiguousarray(counts, dtype="<i8").tobytes()


def _vec(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<i8").astype(np.int64)


def digest(key: str, start: int, count: int, blob: bytes) -> str:
    """A unit row's checksum: sha256 over the cell's key, the range and the counts. It catches a
    row changed by accident or by hand (unless the editor recomputes it: only replaying the unit,
    ``experiment verify``, catches that)."""
    h = hashlib.sha256(f"boardsim unit\0{key}\0{start}\0{count}\0".encode())
    h.update(blob)
    return h.hexdigest()


def _json(text: str):
    """A key or recipe of the store as JSON (ValueError for anything else, also for JSON nested
    beyond ``simcore.limits.MAX_DEPTH``: the file may have been edited)."""
    from simcore.limits import parse_nested
    if not isinstance(text, str):
        raise ValueError("not text")
    return parse_nested(json.loads, text, "a key or recipe")


def _rebuild(key: str, recipe: str):
    """The cell a stored recipe builds, checked to be the cell its key names (field by field, the
    engine aside); ValueError saying what is wrong otherwise."""
    try:
        d = _json(key)
        cell = from_recipe(_json(recipe))
        rebuilt = json.loads(key_of(cell))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        why = str(e).splitlines()[0] if isinstance(e, UserError) and str(e) else type(e).__name__
        raise ValueError(f"its recipe does not build a cell ({why})") from None
    rebuilt["engine"] = d.get("engine") if isinstance(d, dict) else None
    if rebuilt != d:
        raise ValueError("its recipe builds another cell than its key names")
    return cell


def _width(d: dict) -> int | None:
    """The length of a cell's count vector from its key's fields (None: a game not known)."""
    if "pair" in d:   # a skill check's JointCell: the games and one count per outcome pattern
        if "star" in d:   # a StarCell: the games and a pair table per arm (the default is the first cell)
            own = len(d["pair"]) * len(FIELDS[d["game"]]) if d.get("counts") and d.get("game") in FIELDS else 0
            return 1 + (len(d["pair"]) - 1) * int(d["star"]) ** 2 + own   # + every cell's counts
        return 1 + int(d["joint"]) ** len(d["pair"]) if "joint" in d else 5
    if d.get("won_lengths") and d.get("game") in FIELDS:   # LengthsCell: + the won games' lengths
        return len(FIELDS[d["game"]]) + WON_LENGTH_BINS
    return len(FIELDS[d["game"]]) if d.get("game") in FIELDS else None


def _units(n: int) -> str:
    return f"{n:,} unit{'s' if n != 1 else ''}"


def _files(path: pathlib.Path):
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _what_to_do(path) -> str:
    return "move it away or give another --out (boardsim writes only into results stores it created)"


def _kind(path: pathlib.Path) -> str:
    """What is at path: "missing", "store" (a results store of this schema, by its SQLite header),
    "old" (a boardsim store of schema 1, which had no application id). UserError for anything
    else (a folder, a device, a file that is not SQLite, a SQLite file boardsim did not make),
    which boardsim neither writes nor deletes."""
    if not os.path.lexists(path):
        return "missing"
    if os.path.islink(path) and not os.path.exists(path):
        raise UserError(f"results store {str(path)!r} is a symbolic link to {os.readlink(path)!r}, which does not "
                        f"exist; {_what_to_do(path)}")
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise UserError(f"results store {str(path)!r} is a folder, not a results store; {_what_to_do(path)}")
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"results store {str(path)!r} is not a regular file; {_what_to_do(path)}")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise UserError(f"results store {str(path)!r} cannot be read: {e.strerror or e}") from None
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise UserError(f"results store {str(path)!r} is not a SQLite database ({st.st_size:,} bytes); "
                        f"{_what_to_do(path)}")
    app = int.from_bytes(head[68:72], "big")
    if app == APPLICATION_ID:
        return "store"
    if app == 0 and _schema_1(path):
        return "old"
    raise UserError(f"results store {str(path)!r} is a SQLite database that boardsim did not create; "
                    f"{_what_to_do(path)}")


def _schema_1(path) -> bool:
    """A store written by boardsim before schema 2 (main 5d46606): meta says schema 1, with the
    tables cells and units. Opened as immutable: a file that may be anyone's is read without locks
    and without the -wal/-shm files a reader of a WAL database would otherwise create beside it."""
    try:
        con = sqlite3.connect(f"{pathlib.Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True, timeout=5)
        try:
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "cells", "units"} <= names:
                return False
            row = con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            return row is not None and row[0] == "1"
        finally:
            con.close()
    except sqlite3.Error:
        return False


def _create(path: pathlib.Path) -> None:
    """Make an empty store at path, all at once: it is built under a temporary name beside it and
    linked into place, so a process killed while creating it leaves no half-made store (a later
    run would refuse it as a file boardsim did not create). If another process made one first,
    theirs is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(path)
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.executescript(_SCHEMA)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema", str(SCHEMA_VERSION)),
                                                              ("created", str(time.time()))])
            db.execute("PRAGMA journal_mode=WAL")    # kept in the file: every later connection uses WAL
        finally:
            db.close()                               # the last connection checkpoints and removes the WAL
        try:
            os.link(tmp, path)                       # fails if a store appeared meanwhile: keep that one
        except FileExistsError:
            pass
        except OSError:                              # no hard links here (some network file systems)
            if not os.path.exists(path):
                os.replace(tmp, path)
    finally:
        for f in _files(tmp):
            f.unlink(missing_ok=True)


def _remove_dead_temporaries(path: pathlib.Path) -> None:
    """Stores half-made by a process that was killed while making one (``_create``): their names
    hold the process id; those of processes that are gone are removed."""
    for f in path.parent.glob(f".{path.name}.new-*"):
        try:
            pid = int(f.name[len(f".{path.name}.new-"):].split("-")[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            f.unlink(missing_ok=True)
        except (ValueError, OSError):
            pass


def _connect_ro(path: pathlib.Path) -> sqlite3.Connection:
    """A connection that only reads the store and makes no file beside it. A store in WAL mode
    that no process has open has no -wal file (the last connection checkpoints it and removes
    it), and is opened as immutable: SQLite then reads the file alone, without locks and without
    making the -wal and -shm files a reader of a WAL database otherwise makes. With a -wal file
    there (a run is writing, or was killed) those files exist already, and the store is opened
    read-only in the usual way, so a reader sees what the writer committed. (A run that starts
    while an immutable reader reads writes into its new -wal file; it changes the store's own file
    only at a checkpoint, after 1,000 pages of units, far longer than a `status` takes.)"""
    uri = pathlib.Path(path).resolve().as_uri()
    wal = path.with_name(path.name + "-wal")
    if os.path.lexists(wal):
        return sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)


def _read_only_advice(path: pathlib.Path) -> str:
    return (f"`boardsim experiment status` and `experiment verify --out {path.parent}` read it as it is; to run "
            f"the study on, make it writable (chmod u+w) or copy the folder (cp -r {path.parent} COPY) and give "
            "--out COPY; its results are kept either way")


def _check_writable(path: pathlib.Path) -> None:
    """UserError (read-only, with advice that keeps its results) unless the store and its folder
    (where SQLite keeps its -wal and -shm files) can be written: checked before anything is
    written or played, by opening the file for writing (the only test that holds for root, a
    read-only mount and an immutable file alike) without changing it."""
    try:
        os.close(os.open(path, os.O_RDWR))
    except OSError as e:
        raise UserError(f"results store {str(path)!r} is read-only ({e.strerror or e}); "
                        f"{_read_only_advice(path)}") from None
    from arena.outfiles import takes_a_file
    try:
        takes_a_file(path.parent, "")
    except UserError:
        raise UserError(f"results store {str(path)!r} is in a folder that is read-only (SQLite keeps its -wal "
                        f"and -shm files beside it); {_read_only_advice(path)}") from None


def _unreadable(path: pathlib.Path, e: Exception) -> str:
    """The one line for a store SQLite cannot read: read-only (with advice that keeps it) or
    damaged (cut short, overwritten), with the command that keeps the damaged file aside; the
    study run again plays its games again (SQLite's `.recover` saved no row of a store cut in half,
    tried 2026-12-06), never a command that deletes it."""
    text = str(e)
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return f"results store {str(path)!r} cannot be opened (SQLite: {text}); {_read_only_advice(path)}"
    try:
        size = f"; {os.path.getsize(path):,} bytes"
    except OSError:
        size = ""
    return (f"results store {str(path)!r} is damaged (SQLite: {text}{size}): its results cannot be read; keep it "
            f"aside with `mv {path} {path}.damaged` and run the study again, which plays its games again "
            "(a unit is a pure function of its key: the same games give the same tables)")


@dataclass
class Replayed:
    """Units of a store played again and compared with what it holds (``Store.replay_sample``)."""
    units: int = 0                  # units the store holds (of the cells looked at)
    replayed: int = 0
    matched: int = 0
    differ: list = field(default_factory=list)   # one line per unit whose replay differs

    def as_dict(self) -> dict:
        return {"units": self.units, "replayed": self.replayed, "matched": self.matched, "differ": list(self.differ)}


class Store:
    """A study's results store. ``Store.open(path)`` creates or opens it; ``fresh=True`` deletes
    an existing one first. Use as a context manager or call ``close()``.

    Opening checks what it finds before writing anything (``problems``): a file that is not a
    boardsim results store (not SQLite, a SQLite file boardsim did not create, a folder), a store
    of schema 1 or of another engine, and a store whose rows fail their checks are each a one-line
    UserError naming the file; none is written (``--fresh`` deletes only a boardsim store).
    ``study``: the name of the study that asks for cells through this Store (``ask``), so that
    ``status(study=...)`` and ``replay_sample(study=...)`` see only that study's cells."""

    def __init__(self, path, *, fresh: bool = False, engine: str | None = None, readonly: bool = False,
                 study: str | None = None, check: bool = True):
        self.path = pathlib.Path(path)
        self.engine = engine or engine_hash()
        self.study = study
        self._cell_ids: dict[str, int] = {}
        self.played: set = set()     # (cell id, start) of the units recorded through this object
        kind = _kind(self.path)
        if fresh and not readonly and kind != "missing":
            for f in _files(self.path):
                try:
                    f.unlink(missing_ok=True)
                except OSError as e:
                    raise UserError(f"results store {str(self.path)!r} is read-only ({e.strerror or e} for {f.name}), "
                                    f"so it cannot be deleted to start over; {_read_only_advice(self.path)}") from None
            kind = "missing"
        if kind == "old":
            raise UserError(f"results store {str(self.path)!r} was written by an older boardsim (store schema 1, "
                            "without checksums); run the study with --fresh to start over (its results are deleted)")
        if readonly:
            if kind == "missing":
                raise UserError(f"results store {self.path}: no such file (run the study first)")
            try:
                self.db = _connect_ro(self.path)
            except sqlite3.DatabaseError as e:
                raise UserError(_unreadable(self.path, e)) from None
        else:
            if kind == "missing":
                _create(self.path)
            else:
                _check_writable(self.path)
            self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            if not readonly:
                self.db.execute("PRAGMA synchronous=FULL")
            self._check_header()
            self._check_engine()
            if check:
                for problem in self.problems(first=True):
                    raise UserError(f"results store {str(self.path)!r} fails its checks: {problem}; `boardsim "
                                    f"experiment verify --out {self.path.parent}` lists every problem, --fresh "
                                    "starts over (its results are deleted)")
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise UserError(_unreadable(self.path, e)) from None
        except BaseException:
            self.db.close()
            raise

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

    @contextlib.contextmanager
    def _snapshot(self):
        """A read transaction: every query inside sees one committed state (WAL), whatever a
        writer does meanwhile."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    # -- checks -------------------------------------------------------------------------------

    def _check_header(self):
        names = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = [t for t in TABLES if t not in names]
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        schema = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() if "meta" in names else None
        if missing or version != SCHEMA_VERSION or schema is None or schema[0] != str(SCHEMA_VERSION):
            what = f"its table {missing[0]} is missing" if missing else (
                f"it says schema {schema and schema[0]} (header {version}), not {SCHEMA_VERSION}")
            raise UserError(f"results store {str(self.path)!r}: {what}; run the study with --fresh to start over "
                            "(its results are deleted)")

    def _check_engine(self):
        other = self.db.execute("SELECT engine, COUNT(*), SUM(games) FROM cells WHERE engine != ? AND games > 0 "
                                "GROUP BY engine", (self.engine,)).fetchall()
        if other:
            eng, n, g = other[0]
            raise UserError(f"results store {self.path} holds {g:,} games of {n} cells from engine {eng}, not this "
                            f"engine {self.engine} (its sources and installed models); run with --fresh to start "
                            "over (the old results are deleted)")

    def problems(self, first: bool = False) -> list[str]:
        """Every way the store's rows break what boardsim writes, one line each ([] when sound):
        per cell, a key that is JSON naming a known game with the row's engine, rules and theta,
        a recipe that builds a cell of that key, and running totals (counts, games, units) equal to
        the sums over its units; per unit, a checksum (``digest``) that matches the row, counts of
        the right length whose first is the unit's games and that satisfy
        ``arena.units.count_problem``, and no overlap with the cell's other units; per ask, a cell
        that exists. ``first``: stop at the first problem (what opening a store does). An edit
        that keeps all of these (a unit changed with its checksum and its cell's totals
        recomputed) is caught only by replaying the unit (``replay_sample``)."""
        out: list[str] = []
        with self._snapshot():
            for p in self._problems():
                out.append(p)
                if first:
                    break
        return out

    def _problems(self):
        for cid, key, game, engine, rules, theta, recipe, label, games, units, blob in self.db.execute(
                "SELECT id, key, game, engine, rules, theta, recipe, label, games, units, counts FROM cells "
                "ORDER BY id").fetchall():
            name = f"cell {label or cid!r}"
            try:
                d = _json(key)
                width = _width(d)
            except (ValueError, TypeError, KeyError):
                yield f"{name}: its key is not a cell's key"
                continue
            if not isinstance(d, dict) or width is None:
                yield f"{name}: its key names no known game"
                continue
            name = f"cell {label or _short(d)!r}"
            row = {"engine": engine, "game": game, "rules": rules, "theta": theta}
            bad = [k for k, v in row.items() if d.get(k) != v]
            if bad:
                yield f"{name}: its row's {bad[0]} {row[bad[0]]!r} is not its key's {d.get(bad[0])!r}"
                continue
            if not isinstance(blob, bytes) or len(blob) != 8 * width:
                yield f"{name}: its running totals are not {width} counts"
                continue
            sums, n, g, end = np.zeros(width, np.int64), 0, 0, 0
            for start, count, ublob, dig in self.db.execute(
                    "SELECT start, count, counts, digest FROM units WHERE cell_id=? ORDER BY start", (cid,)):
                unit = f"unit {start}+{count} of {name}"
                if not isinstance(ublob, bytes) or len(ublob) != 8 * width:
                    yield f"{unit}: not {width} counts"
                    continue
                if dig != digest(key, start, count, ublob):
                    yield f"{unit}: its row does not match its checksum (changed outside boardsim)"
                v = _vec(ublob)
                why = self._count_problem(d, v, count)
                if why:
                    yield f"{unit}: {why}"
                if start < end:
                    yield f"{unit}: overlaps the unit before it (games up to {end})"
                end = max(end, start + count)
                sums += v
                n, g = n + 1, g + count
            if (n, g) != (units, games) or not np.array_equal(sums, _vec(blob)):
                other = "" if np.array_equal(sums[1:], _vec(blob)[1:]) else ", other counts"
                yield (f"{name}: its totals ({games:,} games in {_units(units)}) are not the sum of its units "
                       f"({g:,} games in {_units(n)}{other})")
            try:
                _rebuild(key, recipe)
            except ValueError as e:
                yield f"{name}: {e}"
        for study, cid in self.db.execute("SELECT study, cell_id FROM asks WHERE cell_id NOT IN "
                                          "(SELECT id FROM cells)").fetchall():
            yield f"study {study!r} asks for cell {cid}, which is not in the store"

    @staticmethod
    def _count_problem(d: dict, v: np.ndarray, count: int) -> str | None:
        if v[0] != count:
            return f"its counts say {int(v[0]):,} games in a unit of {count:,}"
        if "pair" in d:
            arms = len(d["pair"]) - 1 if "star" in d else 1   # a StarCell: a pair table per arm
            own = len(FIELDS[d["game"]]) if "star" in d and d.get("counts") else 0
            k = (v.size - 1 - (arms + 1) * own) // arms if arms else 0
            if (v < 0).any() or any(int(v[1 + i * k:1 + (i + 1) * k].sum()) != count for i in range(arms)):
                return "its paired counts do not add up to its games"
            for i in range(arms + 1 if own else 0):   # a StarCell that keeps each cell's counts
                at = 1 + arms * k + i * own
                problem = count_problem(d["game"], v[at:at + own])
                if problem or int(v[at]) != count:
                    return f"its cell {i}'s counts: {problem or 'another number of games'}"
            return None
        if d.get("won_lengths"):   # LengthsCell: the game's counts, then the won games' length histogram
            n = len(FIELDS[d["game"]])
            if (v[n:] < 0).any() or int(v[n:].sum()) != int(v[1]):
                return "its won games' lengths do not add up to its wins"
            return count_problem(d["game"], v[:n])
        return count_problem(d["game"], v)

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
            self.db.execute("INSERT OR IGNORE INTO cells (key, game, engine, rules, theta, recipe, label, counts) "
                            "VALUES (?,?,?,?,?,?,?,?)",
                            (key, cell.game, self.engine, d["rules"], d["theta"],
                             json.dumps(recipe_of(cell), sort_keys=True), _label(cell),
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
            if self.study is not None:
                self.db.execute("INSERT INTO asks VALUES (?, ?, ?) ON CONFLICT (study, cell_id) DO UPDATE "
                                "SET games=MAX(games, excluded.games)", (self.study, cid, games))

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
        blob = _blob(counts)
        self.db.execute("INSERT INTO units (cell_id, start, count, counts, digest, seconds, recorded) "
                        "VALUES (?,?,?,?,?,?,?)",
                        (cid, start, count, blob, digest(self._key(cell), start, count, blob), seconds, time.time()))
        self.played.add((cid, start))
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
        return [(r[0], r[1]) for r in out]

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

    def status(self, cells=None, study: str | None = None) -> list[CellStatus]:
        """Per cell: games recorded and games asked. ``cells`` (Cell objects) limits and orders
        the rows to those cells (cells not in the store yet show 0 games). ``study``: only the
        cells that study asked for, in the order it asked, each with the games it asked and the
        units and games recorded inside them (games 0 to asked - 1: another study's larger ask
        or a longer earlier run is not counted)."""
        if study is not None:
            out = []
            for key, label, game, engine, asked, cid in self.db.execute(
                    "SELECT c.key, c.label, c.game, c.engine, a.games, c.id FROM asks a JOIN cells c "
                    "ON c.id = a.cell_id WHERE a.study=? ORDER BY c.id", (study,)).fetchall():
                n, g = self.db.execute("SELECT COUNT(*), COALESCE(SUM(count), 0) FROM units WHERE cell_id=? "
                                       "AND start + count <= ?", (cid, asked)).fetchone()
                out.append(CellStatus(key, label, game, engine, g, asked, n))
            return out
        rows = {r[0]: CellStatus(*r) for r in self.db.execute(
            "SELECT key, label, game, engine, games, asked, units FROM cells ORDER BY id")}
        if cells is None:
            return list(rows.values())
        out = []
        for c in cells:
            k = key_of(c)
            out.append(rows.get(k) or CellStatus(k, _label(c), c.game, self.engine, 0, 0, 0))
        return out

    def studies(self) -> list[str]:
        """The names of the studies that asked for cells in this store."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT study FROM asks ORDER BY study")]

    # -- replay -------------------------------------------------------------------------------

    def replay_sample(self, k: int | None, study: str | None = None, threads: int | None = None,
                      avoid_played: bool = False) -> Replayed:
        """Play `k` units chosen at random (None: every unit) again and compare their counts with
        the stored ones; each unit that differs is a line in the result's ``differ``, naming it
        and the first counts that differ. ``study``: only units inside that study's asks.
        ``avoid_played``: draw from the units this object did not record (those read from the
        store rather than played now) while there are any. A unit is a pure function of its key,
        so any difference means the store was changed (or the engine is not deterministic).
        Replays on ``threads`` numba threads (None: all)."""
        if study is not None:
            rows = self.db.execute(
                "SELECT u.cell_id, u.start, u.count, u.counts FROM units u JOIN asks a ON a.cell_id = u.cell_id "
                "WHERE a.study=? AND u.start + u.count <= a.games ORDER BY u.cell_id, u.start", (study,)).fetchall()
        else:
            rows = self.db.execute("SELECT cell_id, start, count, counts FROM units ORDER BY cell_id, start").fetchall()
        res = Replayed(units=len(rows))
        pool = rows
        if avoid_played:
            older = [r for r in rows if (r[0], r[1]) not in self.played]
            pool = older or rows
        rng = random.SystemRandom()    # not predictable from anything in the store
        chosen = pool if k is None or k >= len(pool) else rng.sample(pool, k)
        chosen = sorted(chosen, key=lambda r: (r[0], r[1]))
        cells = {}
        import numba
        old = numba.get_num_threads()
        if threads:
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            for cid, start, count, blob in chosen:
                if cid not in cells:
                    key, recipe, label = self.db.execute("SELECT key, recipe, label FROM cells WHERE id=?",
                                                         (cid,)).fetchone()
                    try:
                        name = label or _short(key)
                    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
                        name = f"#{cid}"
                    try:
                        cells[cid] = (_rebuild(key, recipe), name)
                    except ValueError:
                        cells[cid] = (None, name)
                cell, name = cells[cid]
                try:
                    if cell is None:
                        raise ValueError("its cell cannot be built from the store")
                    got, want = replay(cell, start, count), _vec(blob)
                except ValueError as e:   # a UserError of the engine's checks too
                    res.differ.append(f"unit {start}+{count} of cell {name!r}: cannot be played again ({e})")
                    continue
                res.replayed += 1
                if np.array_equal(got, want):
                    res.matched += 1
                    continue
                names = fields_of(cell)
                diff = [f"{names[i]} {want[i]:,} stored, {got[i]:,} replayed"
                        for i in np.flatnonzero(got != want)[:3]]
                res.differ.append(f"unit {start}+{count} of cell {name!r}: " + "; ".join(diff))
        finally:
            numba.set_num_threads(old)
        return res

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
    """The arms of a paired cell's key (2: the variant and the defaults on each seed; a skill
    check's JointCell: its arms), else 1."""
    d = json.loads(key) if isinstance(key, str) else key
    return len(d["pair"]) if isinstance(d, dict) and "pair" in d else 1


def _short(key) -> str:
    d = json.loads(key) if isinstance(key, str) else key
    if "pair" in d and ("joint" in d or "star" in d):   # a skill check or a StarCell: every arm
        return " | ".join(_short(a) for a in d["pair"])
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


__all__ = ["Store", "CellStatus", "Replayed", "cut", "key_of", "fields_of", "recipe_of", "from_recipe", "replay",
           "digest", "OverlapError", "DeterminismError", "store_path_for", "format_status", "SCHEMA_VERSION",
           "APPLICATION_ID"]
