"""run_work: the glue of store, backend and progress; resumes after a SIGKILL of the client."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from arena.units import Cell, run_unit
from experiments.run.runwork import Planner, run_work, study_status
from experiments.run.store import Store
from simcore.errors import UserError

BW = Cell("bethel_woods", 2, spies=0, seed=3, label="bw2")
BV = Cell("benevolent", 2, seed=5, label="bv2")


def test_planner_covers_the_gaps_and_sizes_units_by_time():
    p = Planner([(BW, [(0, 100), (500, 10_000)]), (BV, [(7, 3)])], target_seconds=1.0, first=10)
    it = iter(p)
    units = [next(it) for _ in range(4)]
    assert units == [(BW, 0, 10), (BV, 7, 3), (BW, 10, 10), (BW, 20, 10)]
    p.observe(BW, 10, 0.001)                              # 10,000 games/s: grow, at most 4x a step
    units += list(it)
    sizes = [n for c, _, n in units if c is BW]
    assert sizes[3:6] == [40, 30, 160] and max(sizes) <= 10_000
    cover = sorted((s, n) for c, s, n in units if c is BW)
    spans = []
    for s, n in cover:
        if spans and spans[-1][1] == s:
            spans[-1][1] = s + n
        else:
            spans.append([s, s + n])
    assert spans == [[0, 100], [500, 10_500]]


def test_run_work_records_and_a_rerun_plays_nothing(tmp_path):
    calls = []
    with Store(tmp_path / "s.sqlite") as s:
        out = run_work([(BW, 3000), (BV, 300)], store=s, first_unit=100, progress=False,
                       on_unit=lambda c, a, n, counts: calls.append((c.label, a, n)))
        assert np.array_equal(out[BW], run_unit(BW, 0, 3000)) and np.array_equal(out[BV], run_unit(BV, 0, 300))
        assert sum(n for lab, _, n in calls if lab == "bw2") == 3000
        k = len(calls)
        again = run_work([(BW, 3000), (BV, 300)], store=s, progress=False, on_unit=lambda *a: calls.append(a))
        assert len(calls) == k and np.array_equal(again[BW], out[BW])
        more = run_work([(BW, 3500)], store=s, first_unit=1000, progress=False)   # extending plays the rest
        assert np.array_equal(more[BW], run_unit(BW, 0, 3500))
        assert s.problems() == []
    text = study_status(tmp_path / "s.sqlite", [(BW, 3500), (BV, 300), (Cell("benevolent", 3), 50)])
    assert "bw2" in text and "3,500" in text and "100.0%" in text and "benevolent 3p" in text
    assert study_status(tmp_path / "none.sqlite").endswith("nothing recorded yet")


def test_run_work_without_a_store_and_bad_work():
    out = run_work([(BV, 120)], first_unit=50, progress=False)
    assert np.array_equal(out[BV], run_unit(BV, 0, 120))
    with pytest.raises(UserError, match="games -1"):
        run_work([(BV, -1)], progress=False)
    with pytest.raises(UserError, match="asked twice"):
        run_work([(BV, 1), (BV, 2)], progress=False)
    with pytest.raises(UserError, match="players 7"):
        run_work([(Cell("benevolent", 7), 2)], progress=False)


SCRIPT = textwrap.dedent("""
    import sys
    from arena.units import Cell
    from experiments.run.runwork import run_work
    from experiments.run.store import Store
    work = [(Cell("bethel_woods", 2, spies=0, seed=3), 40_000), (Cell("benevolent", 2, seed=5), 1_500)]
    if __name__ == "__main__":
        with Store(sys.argv[1]) as s:
            run_work(work, store=s, target_seconds=0.05, first_unit=200, progress=False,
                     on_unit=lambda c, a, n, counts: print(c.game, a, n, flush=True))
        print("done", flush=True)
""")
WORK = [(BW, 40_000), (BV, 1_500)]


def start_and_kill(tmp_path, after=6):
    """Run the study in a new process and SIGKILL it after `after` recorded units: the store."""
    p, script = tmp_path / "s.sqlite", tmp_path / "study.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.getcwd(), NUMBA_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script), str(p)], stdout=subprocess.PIPE, text=True, env=env,
                            cwd=os.getcwd())
    seen = [proc.stdout.readline() for _ in range(after)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert "done\n" not in seen and all(seen)
    with Store(p) as s:
        assert s.problems() == []
        assert after * 200 <= sum(r.games for r in s.status()) < 41_500
    return p, script, env


def test_a_study_killed_midway_resumes_to_the_uninterrupted_totals(tmp_path):
    p, script, env = start_and_kill(tmp_path)
    with Store(p) as s:
        first = sum(r.games for r in s.status())
    out = subprocess.run([sys.executable, str(script), str(p)], capture_output=True, text=True, env=env,
                         cwd=os.getcwd(), timeout=300)
    assert out.returncode == 0 and out.stdout.endswith("done\n"), out.stderr[-2000:]
    replayed = sum(int(line.split()[2]) for line in out.stdout.splitlines()[:-1])
    assert replayed == 41_500 - first                      # only the missing games were played
    with Store(p) as s:
        assert s.problems() == []
        assert np.array_equal(s.totals(BW), run_unit(BW, 0, 40_000))
        assert np.array_equal(s.totals(BV), run_unit(BV, 0, 1_500))


# ---------------------------------------------------------------------------------------------
# execute_units: experiments.run.execute's interface with a store and a backend

from experiments.run.runwork import aligned, execute_units   # noqa: E402


def test_plans_are_aligned_and_items_get_their_own_ranges():
    assert aligned(100)(BW, 250, 30) == [(30, 70), (100, 100), (200, 80)]
    assert aligned(100)(BW, 50, 100) == [(100, 50)]
    work = [(BW, 1000), (BW, 500, 800), (BV, 50, 300), (BV, 0)]
    out = execute_units(work, plan=aligned(128))
    assert np.array_equal(out[0], run_unit(BW, 0, 1000)) and np.array_equal(out[1], run_unit(BW, 800, 500))
    assert np.array_equal(out[2], run_unit(BV, 300, 50)) and out[3].sum() == 0 and len(out[3]) == len(out[2])


class Progress:
    def __init__(self):
        self.added, self.advanced = [], 0

    def add(self, games, cost):
        self.added.append((games, cost))

    def advance(self, games, cost):
        self.advanced += games


def test_a_stopped_run_resumes_from_the_store(tmp_path):
    work = [(BW, 3000), (BV, 200, 100)]
    seen = []

    def stop_after_3(cell, a, n, counts):
        seen.append((cell, a, n))
        if len(seen) == 3:
            raise KeyboardInterrupt

    with Store(tmp_path / "s.sqlite") as s:
        with pytest.raises(KeyboardInterrupt):
            execute_units(work, store=s, plan=aligned(500), on_unit=stop_after_3)
        assert sum(r.units for r in s.status()) == 3           # recorded before on_unit saw them
        bar, more = Progress(), []
        out = execute_units(work, store=s, plan=aligned(500), progress=bar, speed=lambda c: 1000.0,
                            on_unit=lambda *a: more.append(a[:3]))
        assert not set(more) & set(seen) and len(seen) + len(more) == 6 + 1
        left = 3200 - sum(n for _, _, n in seen)
        assert bar.added == [(left, left / 1000.0)] and bar.advanced == left
        assert np.array_equal(out[0], run_unit(BW, 0, 3000)) and np.array_equal(out[1], run_unit(BV, 100, 200))
        assert [(r.games, r.asked) for r in s.status([BW, BV])] == [(3000, 3000), (200, 300)]
        with pytest.raises(UserError, match="crosses the edge of range 0\\+700.*--fresh"):
            execute_units([(BW, 700)], store=s, plan=aligned(500))
        with pytest.raises(ValueError, match="without a store"):
            execute_units(work, store=s, unit_fn=run_unit)
