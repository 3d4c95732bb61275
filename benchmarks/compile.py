"""Where the first run's compile time goes: per module, per compiled function, per signature.

    python -m benchmarks.compile                      # the engines' workload (a few games of each policy)
    python -m benchmarks.compile --workload report    # `boardsim report --quick` itself (long)
    python -m benchmarks.compile --json rows.jsonl    # also every compile as one JSON line

The workload runs in a child process with an empty numba cache (a fresh NUMBA_CACHE_DIR, or
--cache DIR to reuse one); the child listens to numba's ``numba:compile`` events
(``numba.core.event``), which fire once per dispatcher and signature actually compiled (not for
one loaded from the cache). Compiling a function compiles the functions it calls inside its own
event, so each event's *self* time is its duration less that of the compiles nested in it; the
self times add up to the time spent compiling. The table sums them per function (with its number
of signatures: more than one means the same code was compiled again for other argument types) and
per module.

``compile_seconds`` (the sum) is what `boardsim bench` reports as the ``compile`` row (full run).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Compiled:
    module: str
    function: str
    signature: str
    seconds: float        # self time (CPU of the compiling thread): this compile less the compiles nested in it
    total: float          # with the nested compiles (CPU)
    wall: float           # self time by the wall clock (longer on a loaded machine)
    start: float          # seconds since the recorder started
    depth: int            # 0: compiled from Python; 1 and more: compiled while compiling a caller


class Recorder:
    """Records every numba compile while installed (``with Recorder() as r: ...; r.rows``)."""

    def __init__(self):
        from numba.core import event
        self._event = event
        self.rows: list[Compiled] = []
        self._stack = []          # [start wall, start CPU, nested wall, nested CPU]
        self._t0 = time.perf_counter()

        rec = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                rec._stack.append([time.perf_counter(), time.thread_time(), 0.0, 0.0])

            def on_end(self, ev):
                t1, c1 = time.perf_counter(), time.thread_time()
                start, cstart, nested, cnested = rec._stack.pop()
                total, ctotal = t1 - start, c1 - cstart
                if rec._stack:
                    rec._stack[-1][2] += total
                    rec._stack[-1][3] += ctotal
                d = ev.data["dispatcher"]
                fn = getattr(d, "py_func", None)
                rec.rows.append(Compiled(
                    module=getattr(fn, "__module__", "?") or "?",
                    function=getattr(fn, "__qualname__", repr(d)),
                    signature="(" + ", ".join(str(a) for a in ev.data["args"]) + ")",
                    seconds=ctotal - cnested, total=ctotal, wall=total - nested, start=start - rec._t0,
                    depth=len(rec._stack)))

        self._listener = _Listener()

    def __enter__(self):
        self._event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        self._event.unregister("numba:compile", self._listener)


def by_function(rows):
    """[(module, function, signatures, seconds)] sorted by seconds, largest first."""
    acc = collections.defaultdict(lambda: [set(), 0.0])
    for r in rows:
        a = acc[(r.module, r.function)]
        a[0].add(r.signature)
        a[1] += r.seconds
    return sorted(((m, f, len(s), t) for (m, f), (s, t) in acc.items()), key=lambda x: -x[3])


def by_module(rows):
    """[(module, functions, compiles, seconds)] sorted by seconds, largest first."""
    acc = collections.defaultdict(lambda: [set(), 0, 0.0])
    for r in rows:
        a = acc[r.module]
        a[0].add(r.function)
        a[1] += 1
        a[2] += r.seconds
    return sorted(((m, len(f), n, t) for m, (f, n, t) in acc.items()), key=lambda x: -x[3])


# ---------------------------------------------------------------------------------------------
# workloads: what the child process runs with the recorder installed

def _workload_engines():
    """A few games of each game, through the one way games are played (arena.units.play_records):
    the play loop of each game with every policy compiled into it, as the report's first unit
    compiles it."""
    import numpy as np

    from arena.units import Cell, arena_module, play_records
    from simcore.games import GAMES
    for g in GAMES.values():
        cell = Cell(g.name, 2, policies=("random",), seed=1)
        play_records(cell, 0, 2, np.zeros((2, arena_module(g).N_REC), np.int32), 2)
    return {"games": sorted(GAMES)}


def _workload_rng():
    """The random-number helpers alone (simcore.rng): a few seconds, for the tool's tests."""
    import numpy as np

    from simcore import rng
    k = rng.stream_key(np.uint64(1), 2, 3)
    return {"draw": int(rng.below(k, 0, 10))}


def _workload_report(out=None):
    """The quick report's studies (what `boardsim report --quick` plays, through
    experiments.report; this layer does not call the CLI above it) into a temporary folder (or
    `out`), without the CLI's warm-up processes: every compile is this process's."""
    from experiments.report import run_studies, standard_studies
    with tempfile.TemporaryDirectory() as tmp:
        info = run_studies(standard_studies(quick=True), Path(out or os.path.join(tmp, "report")),
                           show_progress=False)
    return {"games": sum(s["games"] for s in info["studies"])}


def _workload_game(name):
    def run_():
        from arena.warm import compile_game
        compile_game(name)
        return {"game": name}
    run_.__doc__ = f"The {name} play loop alone (arena.warm.compile_game): what the report's warm-up compiles for it."
    return run_


def _game_names():
    from simcore.games import GAMES   # the games by their objects' names (no game named by a string here)
    return list(GAMES)


WORKLOADS = {"engines": _workload_engines, "report": _workload_report, "rng": _workload_rng,
             **{name: _workload_game(name) for name in _game_names()}}
OWN = ("simcore.", "policies.", "arena.")   # boardsim's modules (numba's own helpers vary with its version)


def own_compiles(rows) -> int:
    """The specialisations of boardsim's own functions compiled (each function once per signature)."""
    return sum(1 for r in rows if r.module.startswith(OWN))


def bench_row(game, known=None):
    """`boardsim bench`'s compile row of a game (full run): its play loop compiled in a child with
    an empty cache, CPU seconds compiling (the figure; wall clock beside it), peak memory, and the
    number of boardsim's specialisations compiled, checked: more than the known-good number
    (`known`, from benchmarks/baseline.json) raises CompileCheck, since a new specialisation
    (another argument type, a literal) costs compile time in every first run."""
    summary, rows = measure(game)
    n = own_compiles(rows)
    if known is not None and n > known:
        top = ", ".join(f"{m}.{f} x{k}" for m, f, k, _ in by_function(rows)[:5] if k > 1)
        top = f" (compiled more than once: {top})" if top else ""
        raise CompileCheck(f"{game}: {n} specialisations of boardsim's functions compiled, more than the "
                           f"known-good {known}{top}; `python -m benchmarks.compile --workload {game}` "
                           f"lists them; if intended, run `boardsim bench --update-baseline`")
    return ({"id": f"{game}/compile", "game": game, "engine": "compiled", "seconds": summary["compile_seconds"],
             "wall_seconds": summary["compile_wall_seconds"], "compiles": n, "peak_rss_mb": summary["peak_rss_mb"]},
            n)


class CompileCheck(RuntimeError):
    """More specialisations compiled than the known-good number."""


def _child(workload: str, json_path: str):
    t0 = time.perf_counter()
    with Recorder() as rec:
        info = WORKLOADS[workload]()
    wall = time.perf_counter() - t0
    import resource
    summary = {"workload": workload, "wall_seconds": wall, "compile_seconds": sum(r.seconds for r in rec.rows),
               "compile_wall_seconds": sum(r.wall for r in rec.rows),
               "compiles": len(rec.rows), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               "cpu_seconds": time.process_time(), "info": info}
    with open(json_path, "w") as f:
        f.write(json.dumps(summary) + "\n")
        for r in rec.rows:
            f.write(json.dumps(asdict(r)) + "\n")


def measure(workload="engines", cache: str | None = None, env=None, cwd=None, timeout=7200):
    """Run `workload` in a child process with an empty numba cache (or `cache`); returns
    (summary, rows). `cwd` and `env` choose the code measured (the working tree by default)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "compiles.jsonl")
        env = dict(env if env is not None else os.environ)
        env["NUMBA_CACHE_DIR"] = cache or os.path.join(tmp, "numba-cache")
        env.pop("BOARDSIM_NUMBA_CACHE_DIR", None)
        here = str(cwd or ROOT)
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        r = subprocess.run([sys.executable, "-m", "benchmarks.compile", "--child", workload, "--child-out", out],
                           cwd=here, env=env, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"compile measurement failed: {r.stderr.strip().splitlines()[-3:]}")
        lines = Path(out).read_text().splitlines()
    summary = json.loads(lines[0])
    return summary, [Compiled(**json.loads(x)) for x in lines[1:]]


def table(summary, rows, top=25) -> str:
    lines = [f"workload {summary['workload']}: {summary['wall_seconds']:.1f} s wall, "
             f"{summary['cpu_seconds']:.1f} s CPU, {summary['compile_seconds']:.1f} s CPU compiling "
             f"({summary['compile_wall_seconds']:.1f} s wall) "
             f"({summary['compiles']} compiles), peak RSS {summary['peak_rss_mb']:.0f} MB", "",
             f"{'module':<44} {'functions':>9} {'compiles':>8} {'seconds':>8}"]
    for m, nf, n, t in by_module(rows):
        lines.append(f"{m:<44} {nf:>9} {n:>8} {t:>8.1f}")
    lines += ["", f"{'module':<36} {'function':<36} {'signatures':>10} {'seconds':>8}"]
    for m, f, ns, t in by_function(rows)[:top]:
        lines.append(f"{m:<36} {f:<36} {ns:>10} {t:>8.1f}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.compile", description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", choices=sorted(WORKLOADS), default="engines")
    p.add_argument("--cache", help="NUMBA_CACHE_DIR to use (default: a fresh, empty one)")
    p.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    p.add_argument("--json", help="write the summary and every compile, one JSON object a line, to this file")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--child-out", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        _child(a.child, a.child_out)
        return 0
    summary, rows = measure(a.workload, a.cache)
    print(table(summary, rows, a.top))
    if a.json:
        with open(a.json, "w") as f:
            f.write(json.dumps(summary) + "\n")
            for r in rows:
                f.write(json.dumps(asdict(r)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
