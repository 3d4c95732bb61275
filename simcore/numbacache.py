"""Where numba keeps compiled code: a directory keyed by a hash of the sources it was compiled from.

numba's on-disk cache checks only the timestamp of the file that defines a function, not of the
functions it calls in other modules: after a change to engine.py, the cached batch kernel in
arena/<game>/batch.py would otherwise keep running the old rules (seen here: a stale kernel kept
its old speed and old code until the cache was cleared). With a hash of the sources in the
directory's name, a change starts a fresh cache.

No layer names the layers above it: each compiled layer's package calls ``use_cache_for`` with
its own sources when it is imported, after importing the layers it calls (simcore: itself;
policies: + policies/; arena: + arena/; benchmarks/calibration.py calls only simcore.rng, and its
own file numba checks itself, so it names nothing). The directory is
keyed by every source named so far in this process, and numba reads ``numba.config.CACHE_DIR``
when a ``cache=True`` function is decorated, that is when its module is imported, which is after
its own package and the modules it calls: every function is cached under a key that covers its
own layer and every layer it calls. A change to arena/ leaves the engines' cache (imported alone)
as it was. The key only widens within a process, so a module first imported after a higher layer
is cached under the wider key: as correct, compiled once more than strictly needed.

An explicit NUMBA_CACHE_DIR (as the cold-compile benchmark sets) is respected: everything is cached
there. The directory chosen here is also put in NUMBA_CACHE_DIR (numba reads its settings from the
environment again when a NUMBA_ variable changes) and in BOARDSIM_NUMBA_CACHE_DIR, so that a child
process (a Dask worker, a test's subprocess) that inherits it keys its own cache, not the parent's.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

OURS = "BOARDSIM_NUMBA_CACHE_DIR"   # the NUMBA_CACHE_DIR this module set (not the user's)
CACHE_DIR_FROM = "environment"      # or "source hash": where numba's cache directory came from
SOURCES: list[pathlib.Path] = []    # the sources named so far (directories of a layer, or files)


def _files(paths) -> list[tuple[str, pathlib.Path]]:
    """(name, file) of every Python source under `paths`, sorted by name; a name is relative to
    the folder holding the layer (``simcore/rng.py``), so a copy of the tree hashes alike."""
    out = {}
    for p in map(pathlib.Path, paths):
        for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p]):
            if f.exists():
                out[f.relative_to(p.parent).as_posix() if p.is_dir() else f"{p.parent.name}/{f.name}"] = f
    return sorted(out.items())


def source_hash(paths) -> str:
    """A hash of every Python source under `paths` (layer directories or single files)."""
    h = hashlib.sha1()
    for name, f in _files(paths):
        h.update(name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir_for(paths, base=None) -> pathlib.Path:
    base = pathlib.Path(base or os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return base / "boardsim" / f"numba-{source_hash(paths)}"


def _from_environment() -> bool:
    d = os.environ.get("NUMBA_CACHE_DIR")
    return bool(d) and d != os.environ.get(OURS)


def use_cache_for(*paths) -> None:
    """Name a compiled layer's sources: numba caches what is decorated from now on in a directory
    keyed by these and every source named before (see the module's docstring)."""
    global CACHE_DIR_FROM
    for p in paths:
        p = pathlib.Path(p).resolve()
        if p not in SOURCES:
            SOURCES.append(p)
    if _from_environment():
        CACHE_DIR_FROM = "environment"
        return
    d = cache_dir_for(SOURCES)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        d = cache_dir_for(SOURCES, tempfile.gettempdir())
        d.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = os.environ[OURS] = str(d)
    CACHE_DIR_FROM = "source hash"
    import numba
    numba.config.CACHE_DIR = str(d)


# ---------------------------------------------------------------------------------------------
# Two processes writing one cache at once (the report's warm-up processes, Dask workers): numba's
# IndexDataCacheFile.save reads a function's index, picks the first free data file number and
# writes the index and the data file, with no lock. Two processes saving two signatures of one
# function can both pick number 1: the index of one then names the other's code, which numba
# loads without a check (wrong code for a signature). Each save is therefore done under an
# exclusive lock on a file of the cache directory (POSIX flock; elsewhere saves stay unlocked and
# the warm-up runs one process at a time, see arena/warm.py).
SAVE_LOCK = "boardsim-save.lock"
try:
    import fcntl
except ImportError:   # not POSIX
    fcntl = None
LOCKED_SAVES = False


def _lock_saves() -> None:
    global LOCKED_SAVES
    if fcntl is None or LOCKED_SAVES:
        return
    from numba.core import caching
    plain = caching.IndexDataCacheFile.save

    def save(self, key, data):
        with open(os.path.join(self._cache_path, SAVE_LOCK), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return plain(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    save.__wrapped__ = plain
    caching.IndexDataCacheFile.save = save
    LOCKED_SAVES = True


_lock_saves()


# ---------------------------------------------------------------------------------------------
# One template, a compiled function per game. A loop written once for every game (the arena's play
# loop, the policies' plug point) is a plain Python template that names a game's functions as
# globals; `specialise` makes one numba dispatcher per game of it: the template's code object with
# the game's names as its globals and a qualified name of its own (`play_chunk__bethel_woods`).
# numba names a cache file after the function's file and qualified name and keys the entry by the
# signature and the bytecode, so each game's compiled function has its own file and a new process
# finds it again (checked on numba 0.68.1: two specialisations of one template, two processes,
# every call of the second a cache hit). Nothing of the game is in a closure: a closure over a
# game's dispatchers misses the cache in every new process (numba issue #6264). What numba does
# not see, a change to a bound function in another file, the source-hashed directory above does.
def specialise(template, tag: str, names: dict, defaults=None, **options):
    """An ``njit(cache=True, **options)`` dispatcher of `template` with `names` bound as globals
    (over the template module's own) and the qualified name ``<template>__<tag>``; `defaults`
    replaces the template's default argument values."""
    import types

    from numba import njit
    g = dict(template.__globals__)
    g.update(names)
    fn = types.FunctionType(template.__code__, g, template.__name__,
                            template.__defaults__ if defaults is None else tuple(defaults))
    fn.__qualname__ = f"{template.__qualname__}__{tag}"
    fn.__module__ = template.__module__
    fn.__doc__ = template.__doc__
    return njit(cache=True, **options)(fn)


def bind(template_names, given: dict, what: str) -> dict:
    """`given`, checked to name exactly `template_names` (a TypeError naming what is missing or
    unknown otherwise): the names a game binds in a template."""
    if set(given) != set(template_names):
        raise TypeError(f"{what}: missing {sorted(set(template_names) - set(given))}, "
                        f"unknown {sorted(set(given) - set(template_names))}")
    return dict(given)
