"""The compile-time tool (benchmarks/compile.py), the warm-up of the play loops (arena/warm.py)
and the lock on numba's cache saves (simcore/numbacache.py). No timing is asserted: what is
checked is what is recorded and what a process finds in the cache another one left."""
import os
import subprocess
import sys
import textwrap
import time

import pytest
from numba import njit

from benchmarks import compile as C
from simcore import numbacache

ROOT = C.ROOT


def test_the_recorder_gives_each_compile_its_self_time_and_its_callers_nesting():
    @njit
    def inner(x):
        return x + 1

    @njit
    def outer(x):
        return inner(x) * 2

    with C.Recorder() as rec:
        assert outer(3) == 8
        outer(3.5)                      # a second signature of both
    names = [(r.function.split(".")[-1], r.signature, r.depth) for r in rec.rows]
    assert ("inner", "(int64)", 1) in names and ("outer", "(int64)", 0) in names
    assert ("inner", "(float64)", 1) in names and ("outer", "(float64)", 0) in names
    for r in rec.rows:
        assert 0 <= r.seconds <= r.total + 1e-9
    fn = {f.split(".")[-1]: n for _, f, n, _ in C.by_function(rec.rows)}
    assert fn == {"inner": 2, "outer": 2}
    outer(4)                            # compiled already: nothing recorded after the recorder is removed
    assert len(rec.rows) == 4


def test_the_tool_measures_a_workload_in_a_child_with_an_empty_cache(tmp_path):
    summary, rows = C.measure("rng")
    assert summary["workload"] == "rng" and summary["compiles"] == len(rows) > 0
    assert {m for m, *_ in C.by_module(rows)} >= {"simcore.rng"}
    assert "simcore.rng" in C.table(summary, rows)
    # the same workload with a cache left by the first run compiles nothing
    cache = tmp_path / "cache"
    C.measure("rng", cache=str(cache))
    again, rows = C.measure("rng", cache=str(cache))
    assert again["compiles"] == 0 and rows == []


_MODULE = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def twice(x):
        return x + x
""")


def _env(cache, tmp_path):
    return dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")


@pytest.mark.skipif(numbacache.fcntl is None, reason="no flock on this system: saves are not locked")
def test_a_cache_save_waits_for_the_lock_of_the_cache_directory(tmp_path):
    import fcntl
    (tmp_path / "twicemod.py").write_text(_MODULE)
    cache = tmp_path / "cache"
    code = "import simcore, twicemod; print(twicemod.twice(21))"
    # where numba keeps twicemod's cache (its locator's folder under NUMBA_CACHE_DIR)
    where = subprocess.run([sys.executable, "-c", "import twicemod; print(twicemod.twice._cache._cache_path)"],
                           env=_env(cache, tmp_path), capture_output=True, text=True, check=True).stdout.strip()
    for f in os.listdir(where):
        os.remove(os.path.join(where, f))           # the call above saved; start empty again
    with open(os.path.join(where, numbacache.SAVE_LOCK), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        child = subprocess.Popen([sys.executable, "-c", code], env=_env(cache, tmp_path),
                                 stdout=subprocess.PIPE, text=True)
        time.sleep(8)
        blocked = child.poll() is None              # compiled, and waiting to save
        fcntl.flock(lock, fcntl.LOCK_UN)
    out, _ = child.communicate(timeout=120)
    assert blocked and out.strip() == "42"
    assert any(f.endswith(".nbi") for f in os.listdir(where))


def test_processes_compiling_signatures_at_once_leave_a_cache_the_next_reads_without_compiling(tmp_path):
    (tmp_path / "twicemod.py").write_text(_MODULE)
    cache = tmp_path / "cache"
    args = ["7", "2.5", "True", "3j"]
    kids = [subprocess.Popen([sys.executable, "-c", f"import simcore, twicemod; twicemod.twice({a})"],
                             env=_env(cache, tmp_path)) for a in args]
    assert [k.wait(timeout=300) for k in kids] == [0] * len(args)
    check = ("import simcore, twicemod\n"
             "from benchmarks.compile import Recorder\n"
             "with Recorder() as r:\n"
             f"    out = [twicemod.twice(a) for a in ({', '.join(args)})]\n"
             "print(out, len(r.rows), sorted(twicemod.twice.stats.cache_hits.values()))")
    out = subprocess.run([sys.executable, "-c", check], env=_env(cache, tmp_path), capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[14, 5.0, 2, 6j] 0 [1, 1, 1, 1]"


def test_a_cache_without_the_play_loops_is_cold_and_nothing_is_started_when_they_are_cached(tmp_path, monkeypatch):
    """With an empty cache each game's loop is reported missing (warm_cache would compile it in a
    process of its own); when every loop is cached, warm_cache starts no process. (Compiling the
    loops takes minutes: `python -m benchmarks.compile --workload report` measures that path.)"""
    code = "from arena.warm import is_cached; print(is_cached('bethel_woods'), is_cached('benevolent'))"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty"))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    from arena import warm
    monkeypatch.setattr(warm, "is_cached", lambda g: True)
    monkeypatch.setattr(warm.subprocess, "run", lambda *a, **k: pytest.fail("a process was started"))
    assert warm.warm_cache() == {}


def test_the_bench_row_fails_on_more_specialisations_than_the_known_good_number():
    row, n = C.bench_row("rng")
    assert n > 0 and row["compiles"] == n and row["id"] == "rng/compile" and row["seconds"] > 0
    assert C.bench_row("rng", known=n)[1] == n
    with pytest.raises(C.CompileCheck, match=f"{n} specialisations.*known-good {n - 1}"):
        C.bench_row("rng", known=n - 1)


def test_a_warm_up_process_that_fails_leaves_the_loop_to_the_caller(monkeypatch):
    from arena import warm
    said = []
    monkeypatch.setattr(warm, "is_cached", lambda g: g == "benevolent")
    monkeypatch.setattr(warm.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", "boom\nKeyError: x"))
    assert warm.warm_cache(say=said.append) == {"bethel_woods": None}
    assert "bethel_woods" in said[0] and "1 at a time" in said[0] and "KeyError: x" in said[1]
