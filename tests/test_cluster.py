"""The Dask backend: a real LocalCluster of 2 worker processes gives exactly the local counts,
also when a worker process is SIGKILLed midway."""
import os
import signal

import numpy as np
import pytest

from arena.units import Cell, run_unit
from experiments.run import cluster
from experiments.run.cluster import EngineMismatch, dask_client, map_units, split
from experiments.run.runwork import run_work
from experiments.run.store import Store
from simcore.errors import UserError

BW = Cell("bethel_woods", 3, spies=2, seed=21)
BV = Cell("benevolent", 3, seed=8)


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2, threads_per_worker=1) as (c, threads):
        assert threads == 1
        c.wait_for_workers(2, timeout=120)
        yield c


def _totals(results):
    out = {}
    for r in results:
        out.setdefault(r.cell, []).append((r.start, r.count, r.counts))
    return out


def test_two_worker_processes_give_the_local_counts(client):
    units = split(BW, 0, 6000, 700) + split(BV, 0, 900, 200) + split(BV, 5000, 100, 100)
    got = _totals(map_units(units, client=client, threads_per_worker=1))
    assert sorted((c.game, s, n) for c, v in got.items() for s, n, _ in v) == sorted((c.game, s, n) for c, s, n in units)
    assert np.array_equal(sum(c for _, _, c in got[BW]), run_unit(BW, 0, 6000))
    assert np.array_equal(sum(c for _, _, c in got[BV]), run_unit(BV, 0, 900) + run_unit(BV, 5000, 100))
    pids = {pid for pid in client.run(os.getpid).values()}
    assert len(pids) == 2 and os.getpid() not in pids       # two processes, neither of them this one
    # each worker runs numba on the one thread it was given, and shares this install's cache dir
    import numba
    assert set(client.run(lambda: (os.environ["NUMBA_NUM_THREADS"], numba.config.NUMBA_NUM_THREADS,
                                   numba.config.CACHE_DIR)).values()) == {("1", 1, numba.config.CACHE_DIR)}


def test_a_worker_killed_midway_and_the_run_still_completes(client):
    units = split(BW, 0, 120_000, 10_000)
    pids = set(client.run(os.getpid).values())
    seen, killed = [], None
    for r in map_units(units, client=client, threads_per_worker=1):
        seen.append(r)
        if killed is None:
            killed = int(r.worker.rsplit(":", 1)[1])       # the worker that just finished has more in flight
            assert killed in pids
            os.kill(killed, signal.SIGKILL)
    assert len(seen) == len(units) and sorted(r.start for r in seen) == [s for _, s, _ in units]
    assert np.array_equal(sum(r.counts for r in seen), run_unit(BW, 0, 120_000))
    late = {int(r.worker.rsplit(":", 1)[1]) for r in seen[len(seen) // 2:]}
    assert killed not in late                                # the dead process played nothing after
    client.wait_for_workers(2, timeout=120)                 # and the nanny started a new one
    assert killed not in set(client.run(os.getpid).values())


def test_a_worker_of_another_engine_is_refused(client):
    with pytest.raises(EngineMismatch, match="runs engine [0-9a-f]+, this client 0+"):
        list(cluster.client_units(client, split(BW, 0, 10, 10), engine="0" * 16))


def test_local_backend_and_bad_options():
    units = split(BW, 100, 250, 100)
    got = list(map_units(units))
    assert [(r.start, r.count, r.worker) for r in got] == [(100, 100, "local"), (200, 100, "local"), (300, 50, "local")]
    assert np.array_equal(sum(r.counts for r in got), run_unit(BW, 100, 250))
    for kw, msg in [({"workers": 0}, "--workers 0"), ({"workers": 2, "scheduler": "tcp://x:1"}, "not both"),
                    ({"scheduler": "localhost"}, "--scheduler localhost"),
                    ({"workers": 1, "threads_per_worker": 0}, "threads per worker 0")]:
        with pytest.raises(UserError, match=msg):
            list(map_units(units, **kw))


def test_no_scheduler_at_the_address_is_a_user_error(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 2)
    with pytest.raises(UserError, match="--scheduler tcp://127.0.0.1:9: no Dask scheduler answered"):
        list(map_units(split(BW, 0, 10, 10), scheduler="tcp://127.0.0.1:9"))


def test_a_killed_study_resumes_on_the_cluster_to_the_same_counts(client, tmp_path):
    from test_runwork import BV as bv, BW as bw, WORK, start_and_kill
    p, _, _ = start_and_kill(tmp_path)                     # a local run SIGKILLed after 6 units
    with Store(p) as s:
        out = run_work(WORK, store=s, client=client, threads_per_worker=1, first_unit=2000, progress=False)
        assert s.problems() == []
        assert np.array_equal(out[bw], run_unit(bw, 0, 40_000)) and np.array_equal(out[bv], run_unit(bv, 0, 1_500))
        assert {r.units > 1 for r in s.status()} == {True}


def test_execute_units_on_the_cluster_equals_the_local_run(client, tmp_path):
    from experiments.run.runwork import aligned, execute_units
    work = [(BW, 5000), (BW, 2000, 4500), (BV, 300, 50)]
    local = execute_units(work, plan=aligned(1000))
    with Store(tmp_path / "s.sqlite") as s:
        remote = execute_units(work, plan=aligned(1000), store=s, client=client, threads=1)
        assert s.status([BW])[0].units == 8                  # 0..6500 cut at the 1000s and at 4500
    by_fn = execute_units(work, plan=aligned(1000), client=client, threads=1, unit_fn=run_unit)
    for a, b, c in zip(local, remote, by_fn):
        assert np.array_equal(a, b) and np.array_equal(a, c)


def test_warming_waits_for_the_machines_cache_lock():
    """One process per machine compiles: a second one waits on the lock in the cache dir."""
    import fcntl
    import threading

    import numba
    cell = Cell("benevolent", 4, seed=1)
    cluster._WARM.discard((cell.game, cell.seat_policies()))
    done = threading.Event()
    with open(os.path.join(numba.config.CACHE_DIR, ".boardsim-warm.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)                      # as if another worker were compiling
        t = threading.Thread(target=lambda: (cluster.warm(cell), done.set()))
        t.start()
        assert not done.wait(1.0)                          # warm() waits for the lock
        fcntl.flock(f, fcntl.LOCK_UN)
    assert done.wait(120)
    t.join()
    assert not cluster.warm(cell)                          # once per process


def test_an_existing_cluster_by_its_address(client):
    units = split(BV, 70, 130, 50)
    got = list(map_units(units, scheduler=client.scheduler.address))
    assert sorted(r.start for r in got) == [70, 120, 170]
    assert np.array_equal(sum(r.counts for r in got), run_unit(BV, 70, 130))
    assert {r.worker for r in got} <= {f"{h}:{p}" for h, p in
                                       client.run(lambda: (__import__("socket").gethostname(), os.getpid())).values()}


def test_stopping_early_cancels_the_units_in_flight_and_twice_the_same_unit_is_two_results(client):
    gen = map_units(split(BW, 0, 400_000, 20_000), client=client, threads_per_worker=1)
    next(gen)
    gen.close()                                              # the caller stops after one result
    import time
    t = time.monotonic()
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() - t < 30:
        time.sleep(0.2)
    assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0
    got = list(map_units([(BW, 0, 50), (BW, 0, 50)], client=client, threads_per_worker=1))
    assert len(got) == 2 and np.array_equal(got[0].counts, got[1].counts)
