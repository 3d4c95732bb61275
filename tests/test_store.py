"""The results store: each unit once, overlaps refused, other engines refused, concurrent writers
safe, and a SIGKILLed run resumed to the same totals as an uninterrupted one."""
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from arena.units import FIELDS, Cell, run_unit
from experiments.run.store import CellStatus, DeterminismError, OverlapError, Store, format_status, store_path_for
from simcore.errors import UserError

BW = Cell("bethel_woods", 3, spies=1, seed=11, label="bw3")
BV = Cell("benevolent", 2, seed=4)


def test_record_totals_ranges_and_missing(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        assert s.missing(BW, 100) == [(0, 100)] and s.done_ranges(BW) == []
        assert s.record(BW, 0, 30, run_unit(BW, 0, 30))
        assert s.record(BW, 60, 40, run_unit(BW, 60, 40))
        assert s.record(BW, 30, 10, run_unit(BW, 30, 10))
        assert s.done_ranges(BW) == [(0, 40), (60, 100)]
        assert s.missing(BW, 150) == [(40, 20), (100, 50)]
        assert s.missing(BW, 50) == [(40, 10)]
        assert s.missing(BW, 90, start=20) == [(40, 20), (100, 10)] and s.missing(BW, 10, start=60) == []
        assert s.missing(BW, 230, unit=50) == [(40, 10), (50, 10), (100, 50), (150, 50), (200, 30)]
        assert np.array_equal(s.range_totals(BW, 60, 40), run_unit(BW, 60, 40))
        assert np.array_equal(s.unit(BW, 60, 40), run_unit(BW, 60, 40)) and s.unit(BW, 60, 30) is None
        with pytest.raises(ValueError, match="crosses the edge"):
            s.range_totals(BW, 70, 30)
        with pytest.raises(ValueError, match="20 games not recorded"):
            s.range_totals(BW, 0, 100)
        s.record(BW, 40, 20, run_unit(BW, 40, 20))
        assert s.missing(BW, 100) == []
        assert np.array_equal(s.totals(BW), run_unit(BW, 0, 100))
        # another game's cell is apart and has its own field layout
        s.record(BV, 0, 25, run_unit(BV, 0, 25))
        assert s.totals(BV).shape == (len(FIELDS["benevolent"]),) and s.totals(BV)[0] == 25
        assert s.totals(BW)[0] == 100
        assert s.problems() == []


def test_a_unit_counts_once_and_overlaps_are_refused(tmp_path):
    c = run_unit(BW, 10, 20)
    with Store(tmp_path / "s.sqlite") as s:
        assert s.record(BW, 10, 20, c)
        assert not s.record(BW, 10, 20, c)               # the same unit again: a no-op
        assert s.totals(BW)[0] == 20 and s.status()[0].units == 1
        bad = c.copy()
        bad[1] += 1
        with pytest.raises(DeterminismError):
            s.record(BW, 10, 20, bad)
        for start, count in [(0, 11), (29, 5), (15, 2), (10, 5), (10, 40), (0, 100)]:
            with pytest.raises(OverlapError):
                s.record(BW, start, count, run_unit(BW, start, count))
        assert s.record(BW, 0, 10, run_unit(BW, 0, 10))   # touching is not overlapping
        assert s.record(BW, 30, 5, run_unit(BW, 30, 5))
        with pytest.raises(ValueError, match="counts say"):
            s.record(BW, 40, 3, run_unit(BW, 40, 2))
        assert s.totals(BW)[0] == 35
        assert s.problems() == []


def test_other_rules_params_or_seed_are_other_cells(tmp_path):
    from simcore.bethel_woods.rules import Rules
    other_rules = Rules(knowledge_limit=Rules().knowledge_limit + 1)
    cells = [BW, Cell("bethel_woods", 3, spies=1, seed=12), Cell("bethel_woods", 3, spies=1, seed=11, theta=(1.0,)),
             Cell("bethel_woods", 3, spies=1, seed=11, rules=other_rules)]
    with Store(tmp_path / "s.sqlite") as s:
        for c in cells:
            s.record(c, 0, 10, np.r_[10, np.zeros(len(FIELDS["bethel_woods"]) - 1, np.int64)])
        assert len(s.status()) == 4 and all(r.games == 10 for r in s.status())


def test_another_engine_is_refused_and_fresh_starts_over(tmp_path):
    p = tmp_path / "s.sqlite"
    with Store(p) as s:
        s.ask(BW, 100)
        s.record(BW, 0, 10, run_unit(BW, 0, 10))
    with pytest.raises(UserError, match=r"holds 10 games of 1 cells from engine \w+, not this engine 0+1 \(its "
                                        r"sources and installed models\); run with --fresh"):
        Store(p, engine="0000000000000001")
    with Store(p) as s:                                   # this engine still opens it, nothing lost
        assert s.totals(BW)[0] == 10
    with Store(p, fresh=True) as s:
        assert s.status() == [] and s.missing(BW, 10) == [(0, 10)]


def test_status_and_its_table(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.ask(BW, 200)
        s.ask(BW, 100)                                    # a shorter ask never lowers it
        s.record(BW, 0, 50, run_unit(BW, 0, 50))
        rows = s.status([BW, BV])
        assert [(r.games, r.asked, r.units) for r in rows] == [(50, 200, 1), (0, 0, 0)]
        assert rows[0].fraction == 0.25
        table = format_status(rows)
        assert "bw3" in table and "25.0%" in table and "benevolent 2p" in table
        lines = table.splitlines()
        assert lines[0].split() == ["cell", "games", "asked", "done", "units"]
        assert lines[-1].split() == ["total", "50", "200", "25.0%", "1"]
        assert len({len(line) for line in lines}) == 1   # the columns line up
        long = [CellStatus(rows[0].key, "x" * 90, "bethel_woods", "e", 5, 10, 1)]
        assert "x" * 90 in format_status(long)   # a long label is not cut short
    with Store(tmp_path / "s.sqlite", readonly=True) as r:
        assert r.status()[0].games == 50
    with pytest.raises(UserError, match="no such file"):
        Store(tmp_path / "none.sqlite", readonly=True)
    assert store_path_for("studies/balance.toml").name == "balance.results.sqlite"


def _writer(path, units, order_seed, q):
    rng = np.random.default_rng(order_seed)
    s = Store(path)
    recorded = 0
    for i in rng.permutation(len(units)):
        start, count, counts = units[i]
        recorded += s.record(BW, start, count, counts)
    s.close()
    q.put(recorded)


def test_two_writers_at_once_count_each_unit_once(tmp_path):
    p = str(tmp_path / "s.sqlite")
    units = [(s, 7, run_unit(BW, s, 7)) for s in range(0, 7 * 40, 7)]
    Store(p).close()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(p, units, k, q)) for k in range(2)]
    for pr in procs:
        pr.start()
    got = [q.get(timeout=120) for _ in procs]
    for pr in procs:
        pr.join(timeout=60)
        assert pr.exitcode == 0
    assert sum(got) == len(units)                          # each unit recorded by exactly one writer
    with Store(p) as s:
        assert np.array_equal(s.totals(BW), run_unit(BW, 0, 7 * 40))
        assert s.problems() == []


def test_a_reader_reads_while_a_writer_holds_the_lock(tmp_path):
    p = tmp_path / "s.sqlite"
    w = Store(p)
    w.record(BW, 0, 5, run_unit(BW, 0, 5))
    w.db.execute("BEGIN IMMEDIATE")
    w.db.execute("UPDATE cells SET games=999")
    with Store(p, readonly=True) as r:                   # WAL: sees the last commit, not the open write
        assert r.status()[0].games == 5
    w.db.execute("ROLLBACK")
    w.close()


CRASH_SCRIPT = textwrap.dedent("""
    import sys
    from arena.units import Cell, run_unit
    from experiments.run.store import Store
    cell = Cell("bethel_woods", 3, spies=1, seed=11)
    s = Store(sys.argv[1])
    for start, count in s.missing(cell, int(sys.argv[2])):
        for a in range(start, start + count, int(sys.argv[3])):
            n = min(int(sys.argv[3]), start + count - a)
            s.record(cell, a, n, run_unit(cell, a, n))
            print(a, flush=True)
    print("done", flush=True)
""")


def test_sigkill_midway_then_resume_gives_the_uninterrupted_totals(tmp_path):
    games, unit = 12_000, 400
    p = tmp_path / "s.sqlite"
    script = tmp_path / "run.py"
    script.write_text(CRASH_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.getcwd(), NUMBA_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script), str(p), str(games), str(unit)], stdout=subprocess.PIPE,
                            text=True, env=env, cwd=os.getcwd())
    seen = [proc.stdout.readline() for _ in range(5)]     # five units recorded, more on their way
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL and "done\n" not in seen
    with Store(p) as s:
        assert s.problems() == []
        before = s.totals(BW)[0]
        assert 5 * unit <= before < games                 # the recorded units survived; some are missing
        gaps = s.missing(BW, games)
        assert sum(c for _, c in gaps) == games - before
    out = subprocess.run([sys.executable, str(script), str(p), str(games), str(unit)], capture_output=True,
                         text=True, env=env, cwd=os.getcwd(), timeout=300)
    assert out.returncode == 0 and out.stdout.endswith("done\n")
    with Store(p) as s:
        assert s.problems() == []
        assert s.missing(BW, games) == []
        assert np.array_equal(s.totals(BW), run_unit(BW, 0, games))
        assert s.status()[0].units == games // unit       # nothing recorded twice


def test_record_many_is_one_transaction_all_or_none(tmp_path):
    new = Cell("benevolent", 3, seed=99)
    units = [(new, a, 20, run_unit(new, a, 20), 0.01) for a in (0, 20, 40)]
    with Store(tmp_path / "s.sqlite") as s:
        s.record(BW, 0, 10, run_unit(BW, 0, 10))
        with pytest.raises(OverlapError):                     # the last unit overlaps: nothing recorded
            s.record_many(units + [(BW, 5, 10, run_unit(BW, 5, 10))])
        assert s.totals(new)[0] == 0 and s.status([new])[0].units == 0 and s.totals(BW)[0] == 10
        assert s.record_many(units + [(BW, 0, 10, run_unit(BW, 0, 10))]) == 3   # the BW unit: already there
        assert np.array_equal(s.totals(new), run_unit(new, 0, 60))
        assert s.problems() == []


def test_the_report_table_comes_from_the_store(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.ask(BW, 500)
        s.record(BW, 0, 300, run_unit(BW, 0, 300))
        s.record(BW, 300, 200, run_unit(BW, 300, 200))
        s.record(BV, 0, 40, run_unit(BV, 0, 40))
        t = s.table("bethel_woods")
        assert len(t) == 1 and t.loc[0, "label"] == "bw3" and t.loc[0, "spies"] == 1 and t.loc[0, "units"] == 2
        assert list(t.loc[0, list(FIELDS["bethel_woods"])]) == list(run_unit(BW, 0, 500))
        assert list(s.table("benevolent")["games"]) == [40]
