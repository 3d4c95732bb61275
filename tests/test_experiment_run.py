"""`boardsim experiment run` with a results store (resume after SIGKILL, re-run replays nothing),
on a local Dask cluster, and `experiment status`; through the real CLI in subprocesses."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from boardsim.cli import main

ROOT = Path(__file__).resolve().parent.parent
# 18 cells of random Bethel Woods, 7 units each (256, 512, ..., 8192, 3872 games): a few seconds
STUDY = ('kind = "difficulty"\npolicy = ["random"]\nplayers = [2, 3, 4]\nspies = [0, 1, 2, 3, 4, 5]\n'
         'games = 20000\nseed = 12\n')
CELLS, GAMES, UNITS = 18, 20_000, 7


def cli(*args, **kw):
    return subprocess.Popen([sys.executable, "-c", "from boardsim.cli import cli_entry; cli_entry()", *map(str, args)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def finish(p, timeout=300):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def recorded(db: Path) -> tuple[int, int]:
    """(units, games) in a results store, read-only (the run may be writing)."""
    if not db.exists():
        return 0, 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            n, g = con.execute("SELECT COUNT(*), COALESCE(SUM(count), 0) FROM units").fetchone()
        finally:
            con.close()
        return n, g
    except sqlite3.OperationalError:   # the schema is not created yet
        return 0, 0


def tables(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "tables" / "d_cells.csv")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    f = d / "d.toml"
    f.write_text(STUDY)
    return f


@pytest.fixture(scope="module")
def whole(study):
    """An uninterrupted run, then the same command again."""
    out = study.parent / "whole"
    rc, so, err = finish(cli("experiment", "run", study, "--out", out))
    assert rc == 0, err
    assert recorded(out / "results.sqlite") == (CELLS * UNITS, CELLS * GAMES)
    assert f"{CELLS * GAMES:,} games (all played now" in so
    first = tables(out)
    rc, so2, err = finish(cli("experiment", "run", study, "--out", out))
    assert rc == 0, err
    return out, first, so2


def test_the_table_file_is_what_the_tests_compare(whole):
    out, first, _ = whole
    assert len(first) == CELLS and (first["games"] == GAMES).all()
    assert (first["turns"] > 0).all() and first["six_spies"].sum() > 0


def test_a_rerun_of_a_finished_study_plays_nothing_and_writes_the_same_tables(whole):
    out, first, so2 = whole
    assert f"{CELLS * GAMES:,} games (all read from" in so2
    assert recorded(out / "results.sqlite") == (CELLS * UNITS, CELLS * GAMES)
    pd.testing.assert_frame_equal(tables(out), first)


def test_killed_midway_then_resumed_gives_the_uninterrupted_tables(study, whole):
    out = study.parent / "killed"
    db = out / "results.sqlite"
    p = cli("experiment", "run", study, "--out", out)
    t0 = time.monotonic()
    while recorded(db)[0] < 3 and p.poll() is None and time.monotonic() - t0 < 240:
        time.sleep(0.01)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    units, games = recorded(db)
    assert p.returncode == -signal.SIGKILL
    assert 3 <= units < CELLS * UNITS, "the run was not killed midway"
    # status reads the partial store: the total line says games recorded of games asked
    rc, so, err = finish(cli("experiment", "status", study, "--out", out))
    assert rc == 0, err
    total = next(line for line in so.splitlines() if line.startswith("total"))
    assert total.split()[1:3] == [f"{games:,}", f"{CELLS * GAMES:,}"]
    assert f"{units:,} units" in so
    # resume: only the missing games are played, and the tables are the uninterrupted run's
    rc, so, err = finish(cli("experiment", "run", study, "--out", out))
    assert rc == 0, err
    assert f"{CELLS * GAMES:,} games ({CELLS * GAMES - games:,} played now" in so
    assert recorded(db) == (CELLS * UNITS, CELLS * GAMES)
    pd.testing.assert_frame_equal(tables(out), whole[1])


def test_two_dask_workers_give_the_local_tables(study, whole):
    out = study.parent / "dask"
    t0 = time.monotonic()
    rc, so, err = finish(cli("experiment", "run", study, "--out", out, "--workers", 2, "--threads", 1))
    assert rc == 0, err
    assert recorded(out / "results.sqlite") == (CELLS * UNITS, CELLS * GAMES)
    pd.testing.assert_frame_equal(tables(out), whole[1])
    assert time.monotonic() - t0 < 120


@pytest.mark.parametrize("args, says", [
    (["--workers", "0"], "--workers 0: must be a whole number, 1 or more"),
    (["--workers", "2", "--scheduler", "tcp://h:8786"], "give one of them, not both"),
    (["--scheduler", "localhost:8786"], "must be an address like tcp://HOST:8786"),
])
def test_bad_backend_options_are_one_line_errors_and_write_nothing(study, tmp_path, capsys, args, says):
    out = tmp_path / "o"
    assert main(["experiment", "run", str(study), "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and says in err and "\n" not in err
    assert not out.exists()


def test_a_sensitivity_study_runs_on_a_cluster_and_resumes_from_its_store(tmp_path, capsys):
    """Played in units like every study since its tables became StarCells (each unit's counts keep
    every arm's outcome paired with the defaults'): a local cluster gives the local run's tables,
    and the same command again reads every game from the store."""
    f = tmp_path / "s.toml"
    f.write_text('kind = "sensitivity"\ngame = "benevolent"\npolicy = "random"\ngames = 20\nseed = 5\n'
                 'only = ["empty_gift=offered", "dream-b"]\nskill_games = 0\n')
    here, there = tmp_path / "here", tmp_path / "there"
    assert main(["experiment", "run", str(f), "--out", str(here), "--threads", "1"]) == 0
    assert main(["experiment", "run", str(f), "--out", str(there), "--workers", "1", "--threads", "1"]) == 0
    capsys.readouterr()
    assert (here / "tables" / "s_rows.csv").read_bytes() == (there / "tables" / "s_rows.csv").read_bytes()
    assert main(["experiment", "run", str(f), "--out", str(here), "--threads", "1"]) == 0
    assert "(all read from" in capsys.readouterr().out


def test_a_store_of_another_engine_asks_for_fresh(study, tmp_path, capsys):
    out = tmp_path / "o"
    small = tmp_path / "small.toml"
    small.write_text(STUDY.replace("games = 20000", "games = 300").replace("players = [2, 3, 4]", "players = [2]"))
    assert main(["experiment", "run", str(small), "--out", str(out)]) == 0
    con = sqlite3.connect(out / "results.sqlite")
    con.execute("UPDATE cells SET engine='0123456789ab'")
    con.commit()
    con.close()
    capsys.readouterr()
    assert main(["experiment", "run", str(small), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "engine 0123456789ab" in err and "--fresh" in err and "\n" not in err
    assert main(["experiment", "status", str(small), "--out", str(out)]) == 2
    capsys.readouterr()
    assert main(["experiment", "run", str(small), "--out", str(out), "--fresh"]) == 0
    assert "1,800 games (all played now" in capsys.readouterr().out
    assert recorded(out / "results.sqlite")[1] == 6 * 300


def test_status_before_any_run_is_a_one_line_error(study, tmp_path, capsys):
    assert main(["experiment", "status", str(study), "--out", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no results store" in err and "\n" not in err


def test_the_variants_study_records_its_paired_units_and_a_rerun_replays_none(tmp_path, capsys):
    (tmp_path / "k6.toml").write_text("[bethel_woods]\nknowledge_limit = 6\n")
    f = tmp_path / "v.toml"
    f.write_text('kind = "variants"\nvariants = ["k6.toml"]\npolicy = ["random"]\nplayers = [3]\n'
                 'spies = [0, 2]\ngames = 700\nseed = 15\n')
    out = tmp_path / "o"
    assert main(["experiment", "run", str(f), "--out", str(out)]) == 0
    # 700 seeds x 2 difficulties, each seed played twice (the variant and the defaults)
    assert "2,800 games (all played now" in capsys.readouterr().out
    assert json.loads((out / "run.json").read_text())["studies"][0]["games"] == 2800
    first = pd.read_csv(out / "tables" / "v_pairs.csv")
    # the paired units are in the store (units 256 + 444 per pair), keyed by both cells
    assert recorded(out / "results.sqlite") == (4, 1400)
    assert main(["experiment", "run", str(f), "--out", str(out)]) == 0
    assert "2,800 games (all read from" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_csv(out / "tables" / "v_pairs.csv"), first)
    assert (first["games"] == 700).all() and (first["both_won"] + first["only_variant_won"]
                                              + first["only_default_won"] + first["neither_won"] == 700).all()
    assert main(["experiment", "status", str(f), "--out", str(out)]) == 0
    so = capsys.readouterr().out
    # per pair 700 seeds, 1,400 games; the total as `experiment run` counts it
    pairs = [line.split() for line in so.splitlines() if " vs " in line]
    assert len(pairs) == 2 and all(p[-4:-1] == ["1,400", "1,400", "100.0%"] for p in pairs)
    total = [line.split() for line in so.splitlines() if line.startswith("total")]
    assert total and total[0][1:4] == ["2,800", "2,800", "100.0%"]


def test_a_paired_cell_in_the_store_is_kept_apart_from_its_cells(tmp_path):
    from arena.units import Cell
    from experiments.run.store import Store
    from experiments.cells import PairedCell, paired_unit
    a = Cell("bethel_woods", 2, spies=1, seed=3)
    pc = PairedCell(a, a)
    with Store(tmp_path / "s.sqlite") as s:
        s.record(pc, 0, 100, paired_unit(pc, 0, 100))
        s.record(pc, 100, 50, paired_unit(pc, 100, 50))
        got = s.range_totals(pc, 0, 150)
        # the same cell twice: every game is both won or neither won, and the unit sums add up
        assert got[0] == 150 and got[2] == got[3] == 0 and got[1] + got[4] == 150
        assert (got == paired_unit(pc, 0, 150)).all()
        assert s.totals(a)[0] == 0 and s.missing(a, 10) == [(0, 10)]   # not a's games
        assert s.table("bethel_woods").empty                          # not a row of the game's table
        assert s.problems() == []
