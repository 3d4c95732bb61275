"""Scaling figures for docs/scaling.md: the local backend against 1 and 2 local Dask worker
processes on the same units, the overhead per unit, and the unit size that keeps it under 5%.

    python -m benchmarks.scaling [--units 15] [--unit-games 20000] [--rounds 3] [--tiny 300]

The machine may be shared, so the backends are timed side by side in rotating order, round after
round, and the figures that matter are ratios within a round and CPU seconds (of this process and
of the worker processes, from psutil), which other load disturbs less than wall time. Cluster start
and warm-up are timed apart and not counted in throughput.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from arena.units import Cell, run_unit
from experiments.run.cluster import dask_client, local_units, map_units, split
from simcore.games import BETHEL_WOODS as BW

CELL = Cell(BW.name, 3, spies=1, seed=7)   # random play: the cheapest games, the hardest case for overhead


def _cpu(pids):
    import psutil
    t = 0.0
    for pid in pids:
        c = psutil.Process(pid).cpu_times()
        t += c.user + c.system
    return t


def _timed(run, pids):
    c0, w0 = _cpu(pids), time.perf_counter()
    out = run()
    return time.perf_counter() - w0, _cpu(pids) - c0, out


def store_rate(n: int, path, batch: int = 1) -> dict:
    """Units recorded per second by experiments.run.store (one transaction and fsync per `batch`
    units), and the file's bytes per unit."""
    from experiments.run.store import Store
    counts = run_unit(CELL, 0, 1)
    with Store(path, fresh=True) as s:
        t = time.perf_counter()
        for k in range(0, n, batch):
            if batch == 1:
                s.record(CELL, k, 1, counts)
            else:
                s.record_many([(CELL, j, 1, counts) for j in range(k, min(n, k + batch))])
        dt = time.perf_counter() - t
        size = s.stats()["bytes"]
        t = time.perf_counter()
        s.status()
        s.totals(CELL)
        s.missing(CELL, n + 10)
        q = time.perf_counter() - t
    t = time.perf_counter()
    Store(path).close()          # opening checks every row: checksums, invariants, totals (Store.problems)
    opened = time.perf_counter() - t
    return {"units": n, "per_s": n / dt, "bytes_per_unit": size / n, "status_totals_missing_s": q, "open_s": opened}


def overhead_split(n: int) -> dict:
    """Per 1-game unit through one Dask worker: wall ms, CPU ms in this process (client and
    LocalCluster scheduler) and in the worker; and each one's CPU ms per idle second."""
    import psutil
    with dask_client(workers=1, threads_per_worker=1) as (c, _):
        c.wait_for_workers(1)
        me, w = psutil.Process(), psutil.Process(list(c.run(os.getpid).values())[0])
        cpu = lambda p: sum(p.cpu_times()[:2])   # noqa: E731
        list(map_units(split(CELL, 0, 4, 1), client=c, threads_per_worker=1))
        a, b, t = cpu(me), cpu(w), time.perf_counter()
        list(map_units(split(CELL, 10**6, n, 1), client=c, threads_per_worker=1))
        out = {"wall_ms": (time.perf_counter() - t) / n * 1e3, "client_ms": (cpu(me) - a) / n * 1e3,
               "worker_ms": (cpu(w) - b) / n * 1e3}
        a, b = cpu(me), cpu(w)
        time.sleep(2)
        out.update(client_idle_ms_per_s=(cpu(me) - a) / 2 * 1e3, worker_idle_ms_per_s=(cpu(w) - b) / 2 * 1e3)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=15)
    ap.add_argument("--unit-games", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tiny", type=int, default=300, help="1-game units for the overhead per unit")
    ap.add_argument("--json", default=None, help="write the raw figures here")
    ap.add_argument("--store", type=int, default=0, metavar="N",
                    help="only time N units recorded in a results store (in a temporary directory)")
    ap.add_argument("--batch", type=int, default=1, help="with --store: units per transaction")
    ap.add_argument("--split", type=int, default=0, metavar="N",
                    help="only split the overhead of N 1-game units between client and worker")
    a = ap.parse_args(argv)
    if a.split:
        r = overhead_split(a.split)
        print(f"per 1-game unit through 1 worker: {r['wall_ms']:.2f} ms wall, CPU {r['client_ms']:.2f} ms in the "
              f"client (with the scheduler) and {r['worker_ms']:.2f} ms in the worker; idle: "
              f"{r['client_idle_ms_per_s']:.0f} ms/s client, {r['worker_idle_ms_per_s']:.0f} ms/s worker")
        return
    if a.store:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            r = store_rate(a.store, os.path.join(d, "s.sqlite"), a.batch)
        print(f"results store: {r['units']:,} units recorded at {r['per_s']:,.0f} units/s (a transaction and "
              f"fsync per {a.batch} unit{'s' if a.batch > 1 else ''}), {r['bytes_per_unit']:,.0f} bytes per unit; status + totals + missing of a cell "
              f"of {r['units']:,} units in {r['status_totals_missing_s'] * 1e3:.0f} ms; opening it again (the checks "
              f"of every row) {r['open_s'] * 1e3:.0f} ms")
        return
    units = split(CELL, 0, a.units * a.unit_games, a.unit_games)
    tiny = split(CELL, 10**9, a.tiny, 1)
    games = a.units * a.unit_games
    expect = sum(run_unit(*u) for u in units)          # also warms this process
    me = [os.getpid()]
    rows = {"local": [], "dask1": [], "dask2": []}
    over = {"local1": [], "dask1x1": []}
    t0 = time.perf_counter()
    with dask_client(workers=1) as (c1, th1), dask_client(workers=2) as (c2, th2):
        c1.wait_for_workers(1)
        c2.wait_for_workers(2)
        pids1 = list(c1.run(os.getpid).values())
        pids2 = list(c2.run(os.getpid).values())
        list(map_units(units[:1] + tiny[:2], client=c1, threads_per_worker=th1))   # warm every worker
        list(map_units(units[:2] + tiny[:4], client=c2, threads_per_worker=th2))
        startup = time.perf_counter() - t0
        backends = {
            "local": (lambda: list(local_units(units)), me),
            "dask1": (lambda: list(map_units(units, client=c1, threads_per_worker=th1)), me + pids1),
            "dask2": (lambda: list(map_units(units, client=c2, threads_per_worker=th2)), me + pids2),
        }
        for r in range(a.rounds):
            names = list(backends)
            names = names[r % 3:] + names[:r % 3]
            for name in names:
                run, pids = backends[name]
                wall, cpu, out = _timed(run, pids)
                assert np.array_equal(sum(x.counts for x in out), expect), name   # timed only when right
                rows[name].append((wall, cpu))
            # overhead per unit: 1-game units on one numba thread, here and through one worker
            w, c, _ = _timed(lambda: list(local_units(tiny, threads=1)), me)
            over["local1"].append((w, c))
            w, c, _ = _timed(lambda: list(map_units(tiny, client=c1, threads_per_worker=1)), me + pids1)
            over["dask1x1"].append((w, c))
    res = {"games": games, "units": a.units, "unit_games": a.unit_games, "threads": {"dask1": th1, "dask2": th2},
           "startup_s": startup, "rows": rows, "overhead": over, "tiny": a.tiny}
    print(f"{games:,} games of {CELL.game} {CELL.players}p random play in {a.units} units of {a.unit_games:,}; "
          f"{a.rounds} rounds side by side; clusters started and warmed in {startup:.1f} s")
    print(f"{'backend':<28} {'games/s (median)':>18} {'vs local':>9} {'games/CPU-s':>12} {'vs local':>9}")
    base_w = [games / w for w, _ in rows["local"]]
    base_c = [games / c for _, c in rows["local"]]
    labels = {"local": "local (2 numba threads)", "dask1": f"Dask 1 worker x {th1} threads",
              "dask2": f"Dask 2 workers x {th2} thread"}
    for name, v in rows.items():
        gw = [games / w for w, _ in v]
        gc = [games / c for _, c in v]
        print(f"{labels[name]:<28} {statistics.median(gw):>18,.0f} "
              f"{statistics.median([x / y for x, y in zip(gw, base_w)]):>9.2f} {statistics.median(gc):>12,.0f} "
              f"{statistics.median([x / y for x, y in zip(gc, base_c)]):>9.2f}")
    per_w = [(d[0] - l[0]) / a.tiny for d, l in zip(over["dask1x1"], over["local1"])]
    per_c = [(d[1] - l[1]) / a.tiny for d, l in zip(over["dask1x1"], over["local1"])]
    ow, oc = statistics.median(per_w), statistics.median(per_c)
    # a unit of n games costs n / rate seconds of play; overhead under 5% needs n >= 19 * overhead * rate
    rate1 = statistics.median([games / c for _, c in rows["local"]])   # games per CPU second
    print(f"overhead per unit through Dask (1-game units, {a.tiny} a round): {ow * 1e3:.2f} ms wall, "
          f"{oc * 1e3:.2f} ms CPU (client + worker) (median of {a.rounds})")
    n5 = 19 * max(ow, oc) * rate1
    print(f"unit size for overhead under 5% at {rate1:,.0f} games per CPU-s: {n5:,.0f} games "
          f"({19 * max(ow, oc):.2f} s of play on one core)")
    res.update(overhead_wall_s=ow, overhead_cpu_s=oc, games_per_cpu_s=rate1, unit_for_5pct=n5)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
