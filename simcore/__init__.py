"""boardsim's compiled core.

Importing simcore points numba's on-disk cache at a directory keyed by a hash of every compiled
source file (simcore/, policies/, arena/, benchmarks/calibration.py). numba's cache checks only the
timestamp of the file that defines a function, not of the functions it calls in other modules:
after a change to engine.py, the cached batch kernel in batch.py would otherwise keep running the
old rules (seen here: a stale kernel kept its old speed and old code until the cache was cleared).
With the hash in the path any change to the sources starts a fresh cache. An explicit
NUMBA_CACHE_DIR (as the cold-compile benchmark sets) is respected.
"""
import hashlib
import os
import pathlib
import tempfile


def source_hash(root) -> str:
    """A hash of every compiled source below root (simcore/, policies/, arena/, benchmarks/calibration.py)."""
    root = pathlib.Path(root)
    h = hashlib.sha1()
    files = [f for pkg in ("simcore", "policies", "arena") for f in sorted((root / pkg).rglob("*.py"))]
    files.append(root / "benchmarks" / "calibration.py")
    for f in files:
        if f.exists():
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir_for(root, base=None) -> pathlib.Path:
    base = pathlib.Path(base or os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return base / "boardsim" / f"numba-{source_hash(root)}"


CACHE_DIR_FROM = "environment"  # or "source hash": where NUMBA_CACHE_DIR came from


def _configure_numba_cache():
    global CACHE_DIR_FROM
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = pathlib.Path(__file__).resolve().parent.parent
    d = cache_dir_for(root)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        d = cache_dir_for(root, tempfile.gettempdir())
        d.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(d)
    CACHE_DIR_FROM = "source hash"
    import numba
    numba.config.CACHE_DIR = str(d)


_configure_numba_cache()
