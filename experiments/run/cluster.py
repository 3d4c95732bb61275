"""Where units are played: here (numba threads in this process) or on a Dask distributed cluster.

``map_units(units, ...)`` takes an iterable of units ``(cell, start, count)`` and yields a
``UnitResult`` for each as it finishes (in any order). Counts depend only on the unit
(``arena.units.run_unit``), so every backend gives bit-identical totals.

- no option: the local backend, ``run_unit`` in this process on numba's threads;
- ``workers=N``: a ``distributed.LocalCluster`` of N worker processes on this machine, each with
  one Dask thread (one unit at a time) and ``threads_per_worker`` numba threads (default: the
  cores this process may use divided by N, at least 1), set as ``NUMBA_NUM_THREADS`` in the
  worker's environment before numba is imported and with ``numba.set_num_threads`` in each task
  (numba's thread count is per calling thread, and Dask runs tasks on a thread of its own);
- ``scheduler="tcp://HOST:PORT"``: an existing cluster; its workers decide their own numba thread
  count (``NUMBA_NUM_THREADS`` where they are started) unless ``threads_per_worker`` is given.

Warm compile caches. numba's on-disk cache is keyed by the source file's path and timestamp;
``simcore`` puts it under ``~/.cache/boardsim/numba-<hash of the compiled sources>``. A worker
imports ``arena``/``simcore`` from ITS OWN install (tasks are pickled by reference: module and
name; a ``Cell`` travels as plain data), so its cache is that of its own install path and engine
hash, wherever the client's is. The first task of each game in a worker process takes a file lock
in that cache directory and plays one game, so on one machine one process compiles (or loads)
and the others wait and then load the cached machine code instead of compiling the same kernels
side by side. A machine compiles once per engine version (a minute or two), then every worker
process on it starts warm in seconds.

Engine versions never mix: each task returns its worker's engine hash, and a result whose hash
differs from the client's (another checkout on a remote machine) raises ``EngineMismatch``.

Failures: when a worker process dies (killed, out of memory, machine lost) the scheduler hands
its units in flight to other workers (Dask's own retry: a unit may be tried on
``distributed.scheduler.allowed-failures`` + 1 workers, 3 + 1 by default, before ``KilledWorker``
is raised), and a ``LocalCluster``'s nanny starts a new worker process. A unit's result is a pure
function of the unit, so a retried unit gives the same counts.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import pathlib
import time
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from arena.units import Cell, engine_hash, run_unit, unit_key
from simcore.errors import UserError

CONNECT_TIMEOUT_S = 15      # a --scheduler that does not connect and complete Dask's handshake in this time: UserError
MAX_CONNECT_TIMEOUT_S = 3600
IN_FLIGHT_PER_THREAD = 2    # units submitted ahead per Dask worker thread: keeps workers busy, the client small


@dataclass
class UnitResult:
    cell: Cell
    start: int
    count: int
    counts: np.ndarray
    seconds: float          # time the worker spent playing the unit
    worker: str = "local"


class EngineMismatch(RuntimeError):
    """A worker runs another engine version than the client."""


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover - not Linux
        return os.cpu_count() or 1


# ---------------------------------------------------------------------------------------------
# in the worker

_WARM: set = set()


@contextlib.contextmanager
def _cache_lock():
    """An exclusive lock on this machine's numba cache directory (a no-op where flock is not)."""
    try:
        import fcntl
    except ImportError:   # pragma: no cover - not POSIX
        yield
        return
    import numba
    d = pathlib.Path(numba.config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR") or ".")
    d.mkdir(parents=True, exist_ok=True)
    with open(d / ".boardsim-warm.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def warm(cell: Cell) -> bool:
    """Compile or load the cell's kernels in this process once, one process per machine at a
    time. True if this call did the warming."""
    k = (cell.game, cell.seat_policies())
    if k in _WARM:
        return False
    with _cache_lock():
        run_unit(cell, 0, 1)
    _WARM.add(k)
    return True


def play(cell: Cell, start: int, count: int, threads: int | None = None, unit_fn=None):
    """A unit on this worker: (counts, seconds, engine hash, worker name). Runs in the worker,
    imported from the worker's own install. ``unit_fn(cell, start, count) -> counts`` replaces
    ``run_unit`` (a module-level function, so that it pickles by name)."""
    import socket

    import numba
    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    t = time.perf_counter()
    if unit_fn is None:
        warm(cell)
        t = time.perf_counter()
        counts = run_unit(cell, start, count)
    else:
        counts = unit_fn(cell, start, count)
    return counts, time.perf_counter() - t, engine_hash(), f"{socket.gethostname()}:{os.getpid()}"


# ---------------------------------------------------------------------------------------------
# the client

def local_units(units: Iterable, threads: int | None = None, unit_fn=None) -> Iterator[UnitResult]:
    """The local backend: each unit in this process, in order, on numba's threads (`threads`:
    that many for the run, then numba's count as it was)."""
    import numba
    old = numba.get_num_threads()
    try:
        for cell, start, count in units:
            counts, seconds, _, _ = play(cell, start, count, threads, unit_fn)
            yield UnitResult(cell, start, count, counts, seconds)
    finally:
        numba.set_num_threads(old)


def check_options(workers=None, scheduler=None, client=None, threads_per_worker=None,
                  connect_timeout=None) -> None:
    """UserError for a bad --workers / --scheduler / thread count / timeout (call before playing)."""
    if sum(x is not None for x in (workers, scheduler, client)) > 1:
        raise UserError("--workers and --scheduler: give one of them, not both")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise UserError(f"--workers {workers}: must be a whole number, 1 or more")
    if threads_per_worker is not None and threads_per_worker < 1:
        raise UserError(f"threads per worker {threads_per_worker}: must be 1 or more")
    if connect_timeout is not None and not 0 < connect_timeout <= MAX_CONNECT_TIMEOUT_S:
        raise UserError(f"--connect-timeout {connect_timeout:g}: must be more than 0 and at most "
                        f"{MAX_CONNECT_TIMEOUT_S} seconds")
    if scheduler is not None:
        check_address(scheduler)


def check_address(address: str) -> None:
    """UserError unless `address` is one Dask can connect to: a known scheme (tcp, tls, ...; Dask's
    own registry) with a host and a port from 1 to 65535."""
    if "://" not in address:
        raise UserError(f"--scheduler {address}: must be an address like tcp://HOST:8786")
    scheme, _, loc = address.partition("://")
    from distributed.comm import registry
    from distributed.comm.addressing import parse_host_port
    try:
        registry.get_backend(scheme)
    except ValueError:
        raise UserError(f"--scheduler {address}: the scheme {scheme!r} is not one Dask speaks; "
                        f"allowed: {', '.join(s for s in sorted(registry.backends) if s != 'inproc')}") from None
    if scheme == "inproc":
        raise UserError(f"--scheduler {address}: an inproc address is inside one process; give "
                        "tcp://HOST:PORT")
    try:
        host, port = parse_host_port(loc)
    except (ValueError, TypeError) as e:
        raise UserError(f"--scheduler {address}: not HOST:PORT ({e})") from None
    if not host:
        raise UserError(f"--scheduler {address}: no host; give an address like tcp://HOST:8786")
    if not 1 <= int(port) <= 65535:
        raise UserError(f"--scheduler {address}: port {port} is not from 1 to 65535")


def _probe(address: str, timeout: float) -> None:
    """Connect to `address` and complete Dask's handshake, all within `timeout` seconds, or a
    UserError. ``distributed.comm.connect`` bounds its TCP connect (and retries) by its timeout,
    but not the handshake that follows (2026.8: an address that accepts and never answers, or
    answers something else, such as an HTTP server, held the client forever or failed on what
    it read), so the whole exchange runs under ``asyncio.wait_for``."""
    import asyncio

    from distributed.comm import connect

    async def exchange():
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()

    failed: list = []

    def run():   # an event loop of its own, on a thread of its own (the caller may be inside a loop)
        try:
            asyncio.run(exchange())
        except BaseException as e:   # noqa: BLE001 - handed to the caller below
            failed.append(e)

    import threading
    t = threading.Thread(target=run, name="boardsim-scheduler-probe", daemon=True)
    t.start()
    t.join(timeout + 5)   # wait_for ends the exchange at `timeout`; the margin is for the loop's own close
    if t.is_alive():
        failed.append(TimeoutError())
    try:
        if failed:
            raise failed[0]
    except (asyncio.TimeoutError, TimeoutError, OSError) as e:
        if not isinstance(e, TimeoutError) and "Timed out" not in str(e):   # refused, unreachable, reset
            raise UserError(f"--scheduler {address}: no Dask scheduler there ({type(e).__name__}"
                            f"{': ' + str(e).splitlines()[0][:120] if str(e) else ''})") from None
        raise UserError(f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s "
                        "(--connect-timeout)") from None
    except Exception:   # noqa: BLE001 - e.g. an HTTP reply read as a Dask frame: a MemoryError of exbibytes
        raise UserError(f"--scheduler {address}: something answered, but not a Dask scheduler (its reply is "
                        "not Dask's handshake)") from None


@contextlib.contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None, threads_per_worker: int | None = None,
                connect_timeout: float | None = None):
    """A Dask client: on a new LocalCluster of `workers` processes, or on the cluster at
    `scheduler`. Yields (client, threads per task or None). A scheduler that does not complete
    Dask's handshake within `connect_timeout` seconds (default CONNECT_TIMEOUT_S) is a UserError,
    and so is any address where something else answers."""
    import logging

    from distributed import Client, LocalCluster
    check_options(workers, scheduler, None, threads_per_worker, connect_timeout)
    if scheduler is not None:
        timeout = connect_timeout or CONNECT_TIMEOUT_S
        t0 = time.monotonic()
        _probe(scheduler, timeout)   # connect and handshake, bounded: this is where a wrong address hangs
        try:
            client = Client(scheduler, timeout=max(1.0, timeout - (time.monotonic() - t0)))
        except (OSError, TimeoutError) as e:
            raise UserError(f"--scheduler {scheduler}: no Dask scheduler answered ({type(e).__name__})") from None
        with client:
            yield client, threads_per_worker
        return
    assert workers is not None, "dask_client: give workers or scheduler"
    threads = threads_per_worker or max(1, cores() // workers)
    # Dask's statistical profiler samples each worker's threads every 10 ms; a unit is one long
    # compiled call with nothing to learn from its Python stack, so it is switched off (measured:
    # a worker's idle CPU 35 -> 15 ms/s, docs/scaling.md)
    env = {"NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    # NUMBA_CACHE_DIR (set by simcore.numbacache from the source hash) is inherited and marked as not the
    # user's: each worker keys its cache by the layers it imports, as this process does
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR, env=env) as cluster, Client(cluster) as client:
        yield client, threads


def client_units(client, units: Iterable, threads: int | None = None, engine: str | None = None,
                 unit_fn=None) -> Iterator[UnitResult]:
    """Units on a Dask client's cluster, yielded as they finish; a few per worker thread are in
    flight at a time, so `units` may be a long lazy iterator. A result from a worker whose engine
    hash is not `engine` (default: this client's) raises EngineMismatch."""
    from distributed import as_completed
    engine = engine or engine_hash()
    it = iter(units)
    pending: dict = {}
    ac = as_completed()

    threads_seen = [0, -1.0]   # worker threads in the cluster, when last asked (an RPC: once a second at most)
    serial = iter(range(1 << 62))

    def submit_more():
        now = time.monotonic()
        if now - threads_seen[1] > 1.0:
            threads_seen[:] = [max(1, sum(client.nthreads().values())), now]
        while len(pending) < IN_FLIGHT_PER_THREAD * threads_seen[0]:
            try:
                cell, start, count = next(it)
            except StopIteration:
                return
            try:
                name = unit_key(cell, start, count)
            except (AttributeError, KeyError, TypeError):   # a unit_fn's own kind of cell
                name = repr((cell, start, count))
            # the unit's hash names it on the dashboard; the serial keeps two submissions of one unit apart
            key = f"boardsim-unit-{hashlib.sha1(name.encode()).hexdigest()[:16]}-{next(serial)}"
            fut = client.submit(play, cell, start, count, threads, unit_fn, key=key, pure=False)
            pending[fut.key] = (fut, (cell, start, count))
            ac.add(fut)

    try:
        submit_more()
        while pending:
            fut = next(ac)
            _, (cell, start, count) = pending.pop(fut.key)
            counts, seconds, worker_engine, worker = fut.result()
            fut.release()
            if worker_engine != engine:
                raise EngineMismatch(f"worker {worker} runs engine {worker_engine}, this client {engine}: install "
                                     "the same boardsim sources on every worker")
            submit_more()
            yield UnitResult(cell, start, count, np.asarray(counts, dtype=np.int64), seconds, worker)
    finally:
        if pending:   # stopped early (an error, Ctrl-C, the caller closed us): the cluster stops these units
            client.cancel([f for f, _ in pending.values()])


def map_units(units: Iterable, *, workers: int | None = None, scheduler: str | None = None, client=None,
              threads_per_worker: int | None = None, unit_fn=None) -> Iterator[UnitResult]:
    """Play units and yield each result as it finishes: locally (no option; `threads_per_worker`
    is then numba's thread count), on a new LocalCluster of `workers` processes, on the cluster
    at `scheduler`, or on an open Dask `client`."""
    check_options(workers, scheduler, client, threads_per_worker)
    if client is not None:
        yield from client_units(client, units, threads_per_worker, unit_fn=unit_fn)
    elif workers is None and scheduler is None:
        yield from local_units(units, threads_per_worker, unit_fn)
    else:
        with dask_client(workers, scheduler, threads_per_worker) as (c, threads):
            yield from client_units(c, units, threads, unit_fn=unit_fn)


def split(cell: Cell, start: int, count: int, unit: int) -> list[tuple]:
    """A range of a cell's games as units of at most `unit` games."""
    return [(cell, a, min(unit, start + count - a)) for a in range(start, start + count, unit)]
