"""The hostile cases of issue 34, each through the command line: a results store that is not one,
is another program's, is of an older schema or was edited; a scheduler address that never speaks
Dask; a trace that is a device or a pipe; files nested thousands of levels deep; an output that is
an input of the same run; the folders of killed runs; paths in a study file that lead elsewhere.
Each is one line `error: ...` with exit code 2 (for `experiment verify`, the tampered unit named
and exit 1), nothing written, and every input file unchanged."""
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from boardsim.cli import main
from test_cli_inputs import one_line_error as one_line, run

# 2 cells of random Bethel Woods, 2 units each (256 + 344 games): a second to play
STUDY = 'kind = "difficulty"\npolicy = ["random"]\nplayers = [2]\nspies = [0, 5]\ngames = 600\nseed = 12\n'


def snapshot(*roots, sqlite_side_files=False) -> dict:
    """Every file, folder and link under the roots (hidden ones too) with its content's hash: two
    snapshots are equal when nothing was written, made or removed. sqlite_side_files=False leaves
    out the -wal and -shm files that SQLite keeps beside a boardsim store in WAL mode (any reader
    of such a database makes them; the store's own file is compared)."""
    out = {}
    for root in map(Path, roots):
        if not os.path.lexists(root):
            out[str(root)] = None
            continue
        for p in [root, *sorted(root.rglob("*"))] if root.is_dir() and not root.is_symlink() else [root]:
            if not sqlite_side_files and p.name.endswith(("results.sqlite-wal", "results.sqlite-shm")):
                continue
            if p.is_symlink():
                out[str(p)] = ("link", os.readlink(p))
            elif p.is_dir():
                out[str(p)] = "dir"
            else:
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def study(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text(STUDY)
    return f


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished run's folder (its store holds 4 units), copied by the tests that change it."""
    d = tmp_path_factory.mktemp("played")
    (d / "d.toml").write_text(STUDY)
    assert main(["experiment", "run", str(d / "d.toml"), "--out", str(d / "o")]) == 0
    return d / "o"


def copy_of(played, tmp_path) -> Path:
    import shutil
    out = tmp_path / "o"
    shutil.copytree(played, out)
    return out


# ---------------------------------------------------------------------------------------------
# the results store

def _foreign(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.execute("INSERT INTO notes VALUES ('mine')")
    con.commit()
    con.close()


def _foreign_wal(path):
    """Another program's database in WAL mode, whose readers make -wal and -shm files."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE notes (x)")
    con.commit()
    con.close()


def _schema_1(path):
    """A store as main 5d46606 wrote it (schema 1: no application id, no checksums)."""
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); "
                      "CREATE TABLE cells (id INTEGER PRIMARY KEY, key TEXT); CREATE TABLE units (cell_id INTEGER); "
                      "INSERT INTO meta VALUES ('schema', '1');")
    con.close()


@pytest.mark.parametrize("make, says", [
    (lambda p: p.write_bytes(np.random.default_rng(1).bytes(5000)), "is not a SQLite database (5,000 bytes)"),
    (lambda p: p.write_bytes(b""), "is not a SQLite database (0 bytes)"),
    (lambda p: p.mkdir(), "is a folder, not a results store"),
    (_foreign, "is a SQLite database that boardsim did not create"),
    (_foreign_wal, "is a SQLite database that boardsim did not create"),
    (lambda p: p.symlink_to(p.parent / "nowhere" / "x.sqlite"), "is a symbolic link to"),
], ids=["random-bytes", "empty", "folder", "foreign-sqlite", "foreign-wal", "dangling-link"])
def test_what_is_not_a_store_is_refused_and_left_alone(capsys, tmp_path, study, make, says):
    out = tmp_path / "o"
    out.mkdir()
    make(out / "results.sqlite")
    before = snapshot(out, study, sqlite_side_files=True)
    for args in (["experiment", "run", study, "--out", out], ["experiment", "run", study, "--out", out, "--fresh"],
                 ["experiment", "status", study, "--out", out], ["experiment", "verify", "--out", out]):
        code, so, err = run(capsys, *args)
        one_line(code, err, says)
        assert "move it away or give another --out" in err and so == ""
        assert snapshot(out, study, sqlite_side_files=True) == before   # untouched, not deleted by --fresh


def test_a_store_of_schema_1_asks_for_fresh_and_fresh_replaces_it(capsys, tmp_path, study):
    out = tmp_path / "o"
    out.mkdir()
    _schema_1(out / "results.sqlite")
    before = snapshot(out, study)
    for args in (["experiment", "run", study, "--out", out], ["experiment", "status", study, "--out", out]):
        code, _, err = run(capsys, *args)
        one_line(code, err, "was written by an older boardsim (store schema 1")
        assert "--fresh" in err and snapshot(out, study) == before
    code, so, err = run(capsys, "experiment", "run", study, "--out", out, "--fresh")
    assert code == 0 and "1,200 games (all played now)" in so, err


def _edit_unit(db, careful):
    """Add 100 wins to the second unit and take 100 from its commonest loss: the games still add
    up. careful: also recompute its checksum and its cell's totals, and (a difficulty cell counts
    its won games' lengths after the game's counts) give the 100 wins a length, as an editor who
    read experiments/run/store.py would."""
    from arena.units import FIELDS
    con = sqlite3.connect(db)
    cid, start, count, blob, key = con.execute(
        "SELECT u.cell_id, u.start, u.count, u.counts, c.key FROM units u JOIN cells c ON c.id = u.cell_id "
        "ORDER BY u.cell_id, u.start LIMIT 1 OFFSET 1").fetchone()
    v = np.frombuffer(blob, "<i8").copy()
    r = 2 + int(np.argmax(v[2:5]))
    assert v[1] == 0 and v[r] >= 100          # random play wins nothing here; the edit makes 100 wins
    n = len(FIELDS["bethel_woods"])   # the played fixture's study: Bethel Woods difficulty
    won_at = [n + 29] if careful and len(v) > n else []   # 100 games won on turn 30
    v[1] += 100
    v[r] -= 100
    v[won_at] += 100
    new = v.astype("<i8").tobytes()
    if careful:
        from experiments.run.store import digest
        con.execute("UPDATE units SET counts=?, digest=? WHERE cell_id=? AND start=?",
                    (new, digest(key, start, count, new), cid, start))
        tot = np.frombuffer(con.execute("SELECT counts FROM cells WHERE id=?", (cid,)).fetchone()[0], "<i8").copy()
        tot[1] += 100
        tot[r] -= 100
        tot[won_at] += 100
        con.execute("UPDATE cells SET counts=? WHERE id=?", (tot.astype("<i8").tobytes(), cid))
    else:
        con.execute("UPDATE units SET counts=? WHERE cell_id=? AND start=?", (new, cid, start))
    con.commit()
    con.close()
    return f"unit {start}+{count} of cell"


def test_a_unit_edited_by_hand_fails_the_checks_on_open(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    unit = _edit_unit(out / "results.sqlite", careful=False)
    before = snapshot(out, study)
    for args in (["experiment", "run", study, "--out", out], ["experiment", "status", study, "--out", out]):
        code, _, err = run(capsys, *args)
        one_line(code, err, f"fails its checks: {unit}")
        assert "does not match its checksum" in err and "experiment verify" in err
        assert snapshot(out, study) == before


def test_a_damaged_store_is_one_line(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    db = out / "results.sqlite"
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    data = bytearray(db.read_bytes())
    data[4096:] = np.random.default_rng(2).bytes(len(data) - 4096)   # boardsim's header, garbage after it
    db.write_bytes(bytes(data))
    before = snapshot(out, study)
    for args in (["experiment", "run", study, "--out", out], ["experiment", "verify", "--out", out]):
        code, _, err = run(capsys, *args)
        one_line(code, err, "is damaged (SQLite: ")
        assert snapshot(out, study) == before


def test_an_edited_recipe_is_found_and_its_units_are_not_replayed(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    con = sqlite3.connect(out / "results.sqlite")
    con.execute("UPDATE cells SET recipe=? WHERE id=1", ("[" * 5000 + "]" * 5000,))
    con.execute("UPDATE cells SET recipe=replace(recipe, '\"seed\": 12', '\"seed\": 13') WHERE id=2")
    con.commit()
    con.close()
    code, _, err = run(capsys, "experiment", "run", study, "--out", out)
    one_line(code, err, "its recipe does not build a cell (a key or recipe is nested more than 32 levels")
    code, so, err = run(capsys, "experiment", "verify", "--out", out, "--sample", "all")
    assert code == 1, err
    failed = [line for line in so.splitlines() if line.startswith("FAILED")]
    assert "its recipe builds another cell than its key names" in failed[1]
    assert sum("cannot be played again (its cell cannot be built from the store)" in x for x in failed) == 4
    assert "0 units played again (all): 0 matched; 4 failed" in so


def test_a_deleted_unit_fails_the_checks_on_open(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    con = sqlite3.connect(out / "results.sqlite")
    con.execute("DELETE FROM units WHERE rowid = (SELECT MAX(rowid) FROM units)")
    con.commit()
    con.close()
    before = snapshot(out, study)
    code, _, err = run(capsys, "experiment", "status", study, "--out", out)
    one_line(code, err, "its totals (600 games in 2 units) are not the sum of its units (256 games in 1 unit, ")
    code, _, err = run(capsys, "experiment", "run", study, "--out", out)
    one_line(code, err, "fails its checks")
    assert snapshot(out, study) == before


def test_verify_replays_and_names_a_unit_edited_with_its_checksum(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    code, so, err = run(capsys, "experiment", "verify", "--out", out, "--sample", "all")
    assert code == 0 and "4 units played again (all): 4 matched" in so and "no problem" in so, err
    unit = _edit_unit(out / "results.sqlite", careful=True)
    before = snapshot(out, study)
    code, so, err = run(capsys, "experiment", "verify", "--out", out, "--sample", "all")
    assert code == 1, err
    failed = [line for line in so.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and unit in failed[0] and "wins 100 stored, 0 replayed" in failed[0]
    assert "4 units played again (all): 3 matched; 1 failed" in so and "no problem" in so
    assert snapshot(out, study) == before         # verify only reads
    # the checks on open cannot see this edit; a run replays 2 of the 4 units at random and
    # refuses to write a report when it draws the edited one
    seen = set()
    for _ in range(30):   # each run misses the edited unit with probability 1/2
        code, so, err = run(capsys, "experiment", "run", study, "--out", out)
        seen.add(code)
        if code == 2:
            one_line(code, err, unit)
            assert "changed outside boardsim" in err and "--sample all" in err
        else:
            assert code == 0 and "2 of 2 units replayed from the store matched" in so
        if seen == {0, 2}:
            break
    assert 2 in seen


@pytest.mark.parametrize("k, says", [("0", "--sample 0"), ("some", "--sample some")])
def test_verify_sample_must_be_a_count_or_all(capsys, played, k, says):
    code, _, err = run(capsys, "experiment", "verify", "--out", played, "--sample", k)
    one_line(code, err, says)


def test_a_run_records_what_its_replay_found(played):
    info = json.loads((played / "run.json").read_text())
    assert info["replayed"] == {"units": 4, "replayed": 2, "matched": 2, "differ": []}
    md = (played / "report.md").read_text()
    assert "2 of the 4 units of the results store played again at random after the run and compared: 2 matched" in md


def test_status_counts_only_the_study_s_own_cells(capsys, tmp_path, played):
    out = copy_of(played, tmp_path)
    other = tmp_path / "other.toml"
    other.write_text(STUDY.replace("players = [2]", "players = [3]").replace("games = 600", "games = 300"))
    assert run(capsys, "experiment", "run", other, "--out", out)[0] == 0
    mine = tmp_path / "d.toml"
    mine.write_text(STUDY)
    code, so, _ = run(capsys, "experiment", "status", mine, "--out", out)
    rows = [line for line in so.splitlines() if line.startswith("bethel_woods")]
    assert code == 0 and len(rows) == 2 and all(" 2p " in r for r in rows)
    assert next(line for line in so.splitlines() if line.startswith("total")).split()[1:3] == ["1,200", "1,200"]
    code, so, _ = run(capsys, "experiment", "status", other, "--out", out)
    assert [line.split()[1] for line in so.splitlines() if line.startswith("bethel_woods")] == ["3p", "3p"]


# ---------------------------------------------------------------------------------------------
# the scheduler

class Listener:
    """A TCP listener on 127.0.0.1 that accepts connections and then either says nothing or answers
    every connection with an HTTP 400 at once; stopped by the test."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.reply, self.conns, self.stop = reply, [], False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(c)
            if self.reply is not None:
                c.sendall(self.reply)

    def close(self):
        self.stop = True
        self.thread.join(5)
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.mark.parametrize("reply, says", [
    (None, "no Dask scheduler answered within 2 s (--connect-timeout)"),
    (b"HTTP/1.0 400 Bad Request\r\nContent-Length: 11\r\n\r\nBad request", "something answered, but not a Dask scheduler"),
], ids=["silent", "http-400"])
def test_a_scheduler_address_that_never_speaks_dask_fails_within_the_timeout(capsys, tmp_path, study, reply, says):
    srv = Listener(reply)
    try:
        out = tmp_path / "o"
        t0 = time.monotonic()
        code, _, err = run(capsys, "experiment", "run", study, "--out", out,
                           "--scheduler", f"tcp://127.0.0.1:{srv.port}", "--connect-timeout", "2")
        took = time.monotonic() - t0
    finally:
        srv.close()
    one_line(code, err, says)
    assert srv.conns, "the listener was never reached"
    assert took < 10 and not out.exists()


@pytest.mark.parametrize("address, says", [
    ("foo://bar", "the scheme 'foo' is not one Dask speaks"), ("tcp://:8786", "no host"),
    ("tcp://127.0.0.1:99999", "port 99999 is not from 1 to 65535"), ("inproc://x", "inside one process"),
])
def test_every_kind_of_wrong_address_is_one_line(capsys, tmp_path, study, address, says):
    out = tmp_path / "o"
    code, _, err = run(capsys, "experiment", "run", study, "--out", out, "--scheduler", address)
    one_line(code, err, says)
    assert not out.exists()


def test_connect_timeout_needs_a_scheduler_and_a_sane_value(capsys, tmp_path, study):
    code, _, err = run(capsys, "experiment", "run", study, "--out", tmp_path / "o", "--connect-timeout", "5")
    one_line(code, err, "only used with --scheduler")
    code, _, err = run(capsys, "experiment", "run", study, "--out", tmp_path / "o", "--scheduler",
                       "tcp://127.0.0.1:1", "--connect-timeout", "0")
    one_line(code, err, "--connect-timeout 0: must be more than 0")


# ---------------------------------------------------------------------------------------------
# bounded inputs

def test_replay_refuses_devices_pipes_folders_and_oversized_lines(capsys, tmp_path):
    t0 = time.monotonic()
    code, _, err = run(capsys, "replay", "/dev/zero")
    one_line(code, err, "'/dev/zero' is not a regular file")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)                                  # no writer: opening it must not wait for one
    code, _, err = run(capsys, "replay", fifo)
    one_line(code, err, "is not a regular file")
    code, _, err = run(capsys, "replay", tmp_path)
    one_line(code, err, "is a folder")
    assert time.monotonic() - t0 < 10
    long = tmp_path / "long.jsonl"
    long.write_text('{"type": "setup", "pad": "' + "x" * (1 << 20) + '"}\n')
    code, _, err = run(capsys, "replay", long)
    one_line(code, err, "line 1: longer than 1,048,576 bytes (the limit for a line)")
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = run(capsys, "replay", deep)
    one_line(code, err, "line 1 is nested more than 32 levels deep (the limit)")


def test_deep_nesting_in_a_rules_file_and_a_study_file(capsys, tmp_path):
    rules = tmp_path / "r.toml"
    rules.write_text("[bethel_woods]\nknowledge_limit = " + "[" * 2000 + "]" * 2000 + "\n")
    code, out, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--rules", rules)
    one_line(code, err, f"rules file '{rules}' is nested more than 32 levels deep (the limit)")
    st = tmp_path / "s.toml"
    st.write_text('kind = "difficulty"\ngames = ' + "[" * 5000 + "]" * 5000 + "\n")
    out = tmp_path / "o"
    code, _, err = run(capsys, "experiment", "run", st, "--out", out)
    one_line(code, err, f"study file '{st}' is nested more than 32 levels deep")
    assert not out.exists()
    ok = tmp_path / "ok.toml"                         # 32 levels (2 tables, 30 arrays): the limit is accepted
    ok.write_text("[bethel_woods]\nknowledge_limit = " + "[" * 30 + "]" * 30 + "\n")
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--rules", ok)
    assert code == 2 and "nested" not in err and "knowledge_limit" in err


def test_a_rules_file_that_is_a_device_is_refused(capsys):
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--rules", "/dev/zero")
    one_line(code, err, "rules file '/dev/zero' is not a regular file")


@pytest.mark.parametrize("game, table", [("bethel-woods", "bethel_woods"), ("benevolent", "benevolent")])
def test_an_output_that_is_an_input_of_the_run_is_refused(capsys, tmp_path, game, table):
    rules = tmp_path / "r.toml"
    rules.write_text(f"[{table}]\n")
    (tmp_path / "link.csv").symlink_to(rules)
    os.link(rules, tmp_path / "hard.csv")
    before = snapshot(tmp_path)
    for opt, target in [("--records", rules), ("--records", tmp_path / "link.csv"),
                        ("--records", tmp_path / "hard.csv")]:
        code, out, err = run(capsys, game, "simulate", "--games", "5", "--rules", rules, opt, target)
        one_line(code, err, "is also the rules file of this run")
        assert out == ""
    code, _, err = run(capsys, game, "play", "--rules", rules, "--trace", rules)
    one_line(code, err, f"the trace '{rules}' is also the rules file of this run")
    assert snapshot(tmp_path) == before


def test_a_study_run_whose_output_folder_holds_its_inputs_is_refused(capsys, tmp_path):
    out = tmp_path / "o"
    (out / "tables").mkdir(parents=True)
    st = out / "report.md"                              # a study file named like the report it writes
    st.write_text(STUDY)
    (out / "tables" / "k6.toml").write_text("[bethel_woods]\nknowledge_limit = 6\n")
    v = out / "v.toml"
    v.write_text('kind = "variants"\nvariants = ["tables/k6.toml"]\npolicy = ["random"]\nplayers = [3]\n'
                 'spies = [0]\ngames = 10\n')
    (out / ".partial-old").mkdir()                        # a killed run's folder (its marker) holding a rules file
    (out / ".partial-old" / ".boardsim-run").write_text(MARKED)
    (out / ".partial-old" / "k6.toml").write_text("[bethel_woods]\nknowledge_limit = 6\n")
    r = tmp_path / "r.toml"
    r.write_text('kind = "difficulty"\nrules = "o/.partial-old/k6.toml"\npolicy = ["random"]\nplayers = [2]\n'
                 'spies = [0]\ngames = 10\n')
    before = snapshot(tmp_path)
    code, _, err = run(capsys, "experiment", "run", st, "--out", out)
    one_line(code, err, f"the study file '{st}' is among the files the run writes")
    code, _, err = run(capsys, "experiment", "run", v, "--out", out)
    one_line(code, err, "the rules file")
    assert "tables/k6.toml" in err
    code, _, err = run(capsys, "experiment", "run", r, "--out", out)
    one_line(code, err, "the rules file")
    assert ".partial-old/k6.toml" in err
    assert snapshot(tmp_path) == before


# ---------------------------------------------------------------------------------------------
# leftovers, paths in study files, titles, words

def test_a_run_removes_the_folders_of_killed_runs_but_not_a_live_one(capsys, tmp_path, played, study):
    import fcntl
    from experiments.report import MARKER, MARKER_TEXT
    out = copy_of(played, tmp_path)
    for name in (".partial-old1", ".partial-old2"):
        (out / name / "charts").mkdir(parents=True)
        (out / name / "charts" / "half.png").write_bytes(b"\x89PNG")
        (out / name / MARKER).write_text(MARKER_TEXT)     # as every run's folder holds
    live = out / ".partial-live"
    live.mkdir()
    (live / MARKER).write_text(MARKER_TEXT)
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)                    # as a run still going in another shell holds it
    try:
        code, _, err = run(capsys, "experiment", "run", study, "--out", out)
    finally:
        os.close(fd)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".partial-live"]
    code, _, err = run(capsys, "experiment", "run", study, "--out", out)
    assert code == 0 and not [p for p in out.iterdir() if p.name.startswith(".")]


def test_a_killed_run_leaves_a_folder_that_the_next_run_removes(tmp_path):
    """A real SIGKILL while the report is being written leaves `.partial-*` (no `finally` runs)."""
    import signal
    import subprocess
    import sys
    st = tmp_path / "d.toml"
    st.write_text(STUDY)
    out = tmp_path / "o"
    script = ("import os, signal, sys\n"
              "import experiments.render as r\n"
              "def die(*a, **k): os.kill(os.getpid(), signal.SIGKILL)\n"
              "r.write_report = die\n"
              "import experiments.report as rep\n"
              "rep.write_report = die\n"
              "from boardsim.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    p = subprocess.run([sys.executable, "-c", script, "experiment", "run", str(st), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == -signal.SIGKILL
    left = [x for x in out.iterdir() if x.name.startswith(".partial-")]
    assert len(left) == 1 and any(left[0].rglob("*.png"))       # its charts were drawn, half a report
    assert main(["experiment", "run", str(st), "--out", str(out)]) == 0
    assert not [x for x in out.iterdir() if x.name.startswith(".")]


@pytest.mark.parametrize("value", ["../../../../../../../../etc/passwd", "/etc/passwd", "escape.toml"])
def test_a_path_in_a_study_file_must_stay_in_its_folder(capsys, tmp_path, value):
    d = tmp_path / "a" / "b"
    d.mkdir(parents=True)
    outside = tmp_path / "outside.toml"
    outside.write_text("[bethel_woods]\nknowledge_limit = 6\n")
    (d / "escape.toml").symlink_to(outside)             # a link inside that leads outside
    st = d / "s.toml"
    st.write_text(f'kind = "difficulty"\nrules = "{value}"\npolicy = ["random"]\nplayers = [2]\nspies = [0]\n'
                  'games = 10\n')
    out = tmp_path / "o"
    code, _, err = run(capsys, "experiment", "run", st, "--out", out)
    one_line(code, err, f"rules = '{value}' leads outside the study file's folder")
    assert "--allow" in err and not out.exists()
    if value == "escape.toml":                          # named on the command line, it is read
        code, so, err = run(capsys, "experiment", "run", st, "--out", out, "--allow", outside)
        assert code == 0, err


def test_relative_paths_are_found_beside_the_study_file(capsys, tmp_path, monkeypatch):
    d = tmp_path / "studies"
    (d / "rules").mkdir(parents=True)
    (d / "rules" / "k6.toml").write_text("[bethel_woods]\nknowledge_limit = 6\n")
    (d / "s.toml").write_text('kind = "difficulty"\nrules = "rules/k6.toml"\npolicy = ["random"]\nplayers = [2]\n'
                              'spies = [0]\ngames = 10\n')
    monkeypatch.chdir(tmp_path)                         # not the study's folder
    code, so, err = run(capsys, "experiment", "run", "studies/s.toml", "--out", tmp_path / "o")
    assert code == 0, err


def test_a_title_with_html_is_escaped_in_report_md(capsys, tmp_path):
    st = tmp_path / "t.toml"
    st.write_text('kind = "difficulty"\ntitle = "<script>alert(1)</script> [x](javascript:y) *b*"\n'
                  'policy = ["random"]\nplayers = [2]\nspies = [0]\ngames = 10\n')
    code, _, err = run(capsys, "experiment", "run", st, "--out", tmp_path / "o")
    assert code == 0, err
    md = (tmp_path / "o" / "report.md").read_text()
    html = (tmp_path / "o" / "report.html").read_text()
    import re
    assert "<script>" not in md and not re.search(r"(?<!\\)\]\(javascript", md) and "<script>" not in html
    assert "# \\<script\\>alert(1)\\</script\\> \\[x\\](javascript:y) \\*b\\*" in md


def test_the_three_messages_say_what_is_wrong(capsys, tmp_path):
    dangling = tmp_path / "r.csv"
    dangling.symlink_to(tmp_path / "no" / "such" / "r.csv")
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--records", dangling)
    one_line(code, err, f"it is a symbolic link to '{tmp_path}/no/such/r.csv', whose folder "
                        f"'{tmp_path}/no/such' does not exist")
    (tmp_path / "rules").mkdir()
    st = tmp_path / "s.toml"
    st.write_text('kind = "difficulty"\nrules = "rules"\n')
    code, _, err = run(capsys, "experiment", "run", st, "--out", tmp_path / "o")
    one_line(code, err, "rules file")
    assert "is a folder; give a .toml file" in err
    code, _, err = run(capsys, "bench", "--baseline", tmp_path)
    one_line(code, err, f"--baseline '{tmp_path}' is a folder; give a baseline JSON file")


# ---------------------------------------------------------------------------------------------
# issue 45: nothing a user owns is deleted or overwritten; the last hostile inputs are one line

MARKED = "a folder that a boardsim run made for its files; a later run removes it if that run was killed\n"


def _old(path):
    t = time.time() - 7200
    os.utime(path, (t, t))


def seed_user_files(out: Path) -> dict:
    """A user's files in an output folder, some named as a run's own: notes in `.partial-notes`
    and an old `.starting-mine` (no marker), a `.partial-fake` whose marker says something else,
    and files beside the report. Returns the paths that must survive every command."""
    (out / ".partial-notes").mkdir(parents=True)
    (out / ".partial-notes" / "notes.txt").write_text("my notes\n")
    (out / ".starting-mine").mkdir()
    (out / ".starting-mine" / "draft.toml").write_text(STUDY)
    _old(out / ".starting-mine")
    (out / ".partial-fake").mkdir()
    (out / ".partial-fake" / ".boardsim-run").write_text("not the marker\n")
    (out / "mine.txt").write_text("beside the report\n")
    return {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_the_leftover_cleaner_removes_only_folders_a_run_made(capsys, tmp_path, study):
    out = tmp_path / "o"
    out.mkdir()
    mine = seed_user_files(out)
    for name in (".partial-killed", ".starting-killed"):     # what killed runs leave: the marker first
        (out / name / "charts").mkdir(parents=True)
        (out / name / ".boardsim-run").write_text(MARKED)
        (out / name / "charts" / "half.png").write_bytes(b"\x89PNG")
    _old(out / ".starting-killed")
    before = snapshot(study)
    code, so, err = run(capsys, "experiment", "run", study, "--out", out)
    assert code == 0, err
    assert not (out / ".partial-killed").exists() and not (out / ".starting-killed").exists()
    assert {p: p.read_bytes() for p in mine} == mine                # byte for byte
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [
        ".partial-fake", ".partial-notes", ".starting-mine"]
    assert snapshot(study) == before


@pytest.mark.parametrize("where", ["results.sqlite-wal", "results.sqlite-shm", "results.sqlite-journal",
                                   ".partial-x/d.toml", ".starting-x/d.toml", ".results.sqlite.new-1-ab"])
def test_an_input_where_the_run_writes_or_cleans_is_refused(capsys, tmp_path, where):
    """The study file (or a link to it) named like the store's side files, a half-made store, or
    put in a run's working folder (marked as a killed run's): refused, nothing changed."""
    out = tmp_path / "o"
    out.mkdir()
    f = out / where
    f.parent.mkdir(exist_ok=True)
    f.write_text(STUDY)
    if where.startswith("."):
        (f.parent / ".boardsim-run").write_text(MARKED)
        _old(f.parent)
    link = tmp_path / "link.toml"
    link.symlink_to(f)
    before = snapshot(tmp_path, sqlite_side_files=True)
    for st in (f, link):
        code, so, err = run(capsys, "experiment", "run", st, "--out", out)
        one_line(code, err, "is among the files the run writes")
        assert so == ""
    assert snapshot(tmp_path, sqlite_side_files=True) == before


def test_the_cleaner_never_removes_a_folder_that_holds_an_input(tmp_path):
    from experiments.report import remove_leftovers
    out = tmp_path / "o"
    for name in (".partial-a", ".partial-b"):
        (out / name).mkdir(parents=True)
        (out / name / ".boardsim-run").write_text(MARKED)
    (out / ".partial-a" / "r.toml").write_text("[bethel_woods]\n")
    gone = remove_leftovers(out, inputs=[out / ".partial-a" / "r.toml"])
    assert gone == [out / ".partial-b"] and (out / ".partial-a" / "r.toml").exists()


def test_a_killed_run_s_folder_carries_the_marker_and_a_finished_run_leaves_none(played):
    assert not [p for p in played.rglob(".boardsim-run")]


# -- train: the installed model is replaced only by a confirmed model; bounds before any game

def _installed(game):
    from policies.registry import modules
    return modules(game).learned.MODEL_PATH


@pytest.mark.parametrize("game", ["bethel-woods", "benevolent"])
def test_train_never_writes_its_record_or_model_over_the_installed_model_or_each_other(capsys, tmp_path, game):
    installed = _installed(game)
    link = tmp_path / "installed.json"
    link.symlink_to(installed)
    before = snapshot(installed, tmp_path)
    cases = [(["--record", installed], "is the installed model"),
             (["--record", link], "is the installed model"),
             (["--record", tmp_path / "x.json", "--model", tmp_path / "x.json"], "are the same file"),
             (["--record", tmp_path / "r.json", "--model", link], "is the installed model"),
             (["--record", tmp_path / "r.json", "--model", installed, "--no-install"], "is the installed model")]
    for args, says in cases:
        t0 = time.monotonic()
        code, so, err = run(capsys, "train", game, *args)
        one_line(code, err, says)
        assert so == "" and time.monotonic() - t0 < 10          # refused before any game
    assert snapshot(installed, tmp_path) == before


@pytest.mark.parametrize("args, says", [
    (["--games", str(10 ** 20)], "games 100000000000000000000: allowed 1 to 100,000"),
    (["--games", str(2 ** 63 - 1)], "allowed 1 to 100,000 self-play games a round"),
    (["--validate-games", "1"], "validate-games 1: allowed 2 to 1,000,000"),
    (["--confirm-games", "1"], "confirm-games 1: allowed 2 to 1,000,000"),
    (["--confirm-games", str(10 ** 20)], "confirm-games 100000000000000000000: allowed 2"),
    (["--threads", "0"], "threads 0 is not allowed"),
], ids=["games-1e20", "games-2^63-1", "validate-1", "confirm-1", "confirm-1e20", "threads-0"])
def test_train_bounds_are_checked_before_any_game(capsys, tmp_path, args, says):
    rec = tmp_path / "r.json"
    t0 = time.monotonic()
    code, so, err = run(capsys, "train", "bethel-woods", "--record", rec, *args)
    one_line(code, err, says)
    assert so == "" and time.monotonic() - t0 < 10 and not rec.exists()


def test_a_study_kind_that_is_not_a_string_is_one_line(capsys, tmp_path):
    st = tmp_path / "k.toml"
    st.write_text('kind = ["difficulty"]\n')
    code, _, err = run(capsys, "experiment", "run", st, "--out", tmp_path / "o")
    one_line(code, err, "kind = ['difficulty'] is not known")
    assert not (tmp_path / "o").exists()


# -- --out that cannot be a folder

def test_an_out_that_loops_leads_nowhere_or_cannot_be_entered_is_one_line(capsys, tmp_path, study, monkeypatch):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "dangling").symlink_to(tmp_path / "no" / "such")
    before = snapshot(tmp_path)
    for cmd in (["experiment", "run", study], ["report", "--quick"]):
        code, _, err = run(capsys, *cmd, "--out", tmp_path / "a")
        one_line(code, err, "it is a symbolic link that loops")
        code, _, err = run(capsys, *cmd, "--out", tmp_path / "dangling")
        one_line(code, err, f"it is a symbolic link to '{tmp_path / 'no' / 'such'}', which does not exist")
    assert snapshot(tmp_path) == before
    # a folder the user cannot enter: the suite runs as root, which enters any folder, so the
    # kernel's answer to a user without the right is given by hand
    shut = tmp_path / "shut"
    shut.mkdir()
    real_listdir = os.listdir

    def listdir(p="."):
        if os.path.realpath(p) == str(shut):
            raise PermissionError(13, "Permission denied", str(p))
        return real_listdir(p)
    monkeypatch.setattr(os, "listdir", listdir)
    code, _, err = run(capsys, "experiment", "run", study, "--out", shut)
    one_line(code, err, f"cannot write '{shut}': Permission denied")
    assert real_listdir(shut) == []


# -- read-only and damaged stores

def _read_only(*paths):
    """Make paths read-only for this process: chattr +i for root (whom file modes do not stop),
    chmod a-w otherwise. Returns the undo."""
    import subprocess
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", *map(str, paths)], check=True)
        return lambda: subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
    modes = {p: os.stat(p).st_mode for p in paths}
    for p in paths:
        os.chmod(p, modes[p] & ~0o222)
    return lambda: [os.chmod(p, m) for p, m in modes.items()]


def test_a_read_only_store_is_read_and_reported_read_only_with_advice_that_keeps_it(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    db = out / "results.sqlite"
    assert not os.path.lexists(str(db) + "-wal")
    undo = _read_only(db)
    try:
        with pytest.raises(OSError):
            os.close(os.open(db, os.O_RDWR))                    # it really is read-only
        before = snapshot(out, study, sqlite_side_files=True)
        for args in (["experiment", "run", study, "--out", out], ["experiment", "run", study, "--out", out, "--seed", "3"],
                     ["experiment", "run", study, "--out", out, "--fresh"]):
            code, so, err = run(capsys, *args)
            one_line(code, err, f"results store '{db}' ")
            assert "is read-only" in err
            assert "cp -r" in err and "kept" in err and "--fresh" not in err and so == ""
        code, so, err = run(capsys, "experiment", "status", study, "--out", out)
        assert code == 0 and "1,200" in so, err
        code, so, err = run(capsys, "experiment", "verify", "--out", out, "--sample", "1")
        assert code == 0 and "no problem" in so and "1 matched" in so, err
        assert snapshot(out, study, sqlite_side_files=True) == before      # no -wal, no -shm made
    finally:
        undo()


def test_a_store_in_a_read_only_folder_is_read_without_side_files(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    undo = _read_only(out / "results.sqlite", out)
    try:
        before = snapshot(out, study, sqlite_side_files=True)
        code, so, err = run(capsys, "experiment", "verify", "--out", out, "--sample", "1")
        assert code == 0 and "no problem" in so, err
        code, so, err = run(capsys, "experiment", "status", study, "--out", out)
        assert code == 0, err
        code, so, err = run(capsys, "experiment", "run", study, "--out", out)
        one_line(code, err, f"cannot write '{out}'")
        assert "--fresh" not in err
        assert snapshot(out, study, sqlite_side_files=True) == before
    finally:
        undo()


def test_a_store_cut_in_half_is_named_damaged_with_the_command_that_keeps_it(capsys, tmp_path, played, study):
    out = copy_of(played, tmp_path)
    db = out / "results.sqlite"
    data = db.read_bytes()
    db.write_bytes(data[:len(data) // 2])
    before = snapshot(out, study, sqlite_side_files=True)
    for args in (["experiment", "run", study, "--out", out], ["experiment", "status", study, "--out", out],
                 ["experiment", "verify", "--out", out]):
        code, so, err = run(capsys, *args)
        one_line(code, err, f"results store '{db}' is damaged (SQLite: ")
        assert f"`mv {db} {db}.damaged`" in err and "--fresh" not in err and so == ""
        assert snapshot(out, study, sqlite_side_files=True) == before      # no -wal, no -shm made


# -- one writer per output folder

def test_a_second_run_into_a_folder_in_use_is_refused_at_once(capsys, tmp_path, played, study):
    import fcntl
    out = copy_of(played, tmp_path)
    before = snapshot(out, study, sqlite_side_files=True)
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)           # as a run going on in another shell holds it
    try:
        for args in (["experiment", "run", study, "--out", out], ["experiment", "run", study, "--out", out, "--fresh"],
                     ["report", "--quick", "--out", out]):
            t0 = time.monotonic()
            code, so, err = run(capsys, *args)
            one_line(code, err, f"'{out}' is in use by another boardsim run")
            assert so == "" and time.monotonic() - t0 < 10
        assert snapshot(out, study, sqlite_side_files=True) == before    # --fresh deleted nothing
        code, so, err = run(capsys, "experiment", "status", study, "--out", out)   # readers are welcome
        assert code == 0, err
    finally:
        os.close(fd)
    code, so, err = run(capsys, "experiment", "run", study, "--out", out)  # and once it is free, it runs
    assert code == 0 and "all read from" in so, err


# -- ladder: bounds on budgets before any game; a damaged model is named

@pytest.mark.parametrize("game", ["bethel-woods", "benevolent"])
def test_ladder_budgets_beyond_the_bound_are_refused_before_any_game(capsys, game):
    t0 = time.monotonic()
    code, so, err = run(capsys, "ladder", game, "--games", "2", "--budgets", "8,100001")
    one_line(code, err, "budgets must be 0 to 100,000 rollouts per decision")
    assert so == "" and time.monotonic() - t0 < 10


# -- model files: --model PATH, and a damaged model named wherever it is used

def _model_with(game, tmp_path, name, **change):
    """A sound model file of `game` (the installed one's network with `change` applied, its sha256
    recomputed), as `boardsim train --model` writes it."""
    from policies.registry import modules
    from policies.value_model import model_text
    L = modules(game).learned
    net = L.model_record()
    net = {k: net[k] for k in ("mean", "scale", "W1", "b1", "W2", "b2")} | change
    p = tmp_path / name
    p.write_text(model_text(game, L.FEATURE_NAMES, net, {"date": "2026-12-06"}))
    return p


def _digest_of(path):
    return json.loads(Path(path).read_text())["sha256"][:8]


def test_simulate_plays_the_model_it_is_given_and_names_it(capsys, tmp_path):
    import shutil
    same = tmp_path / "same.json"
    shutil.copy(_installed("bethel-woods"), same)
    other = _model_with("bethel_woods", tmp_path, "other.json", b2=5.0)
    common = ["bethel-woods", "simulate", "--policy", "learned", "--games", "6", "--threads", "1", "--json"]
    code, so, err = run(capsys, *common)
    plain = json.loads(so)
    code, so, err = run(capsys, *common, "--model", same)
    assert code == 0, err
    d = json.loads(so)
    assert d["theta_hash"] == plain["theta_hash"] and plain["model"] is None
    assert d["model"].startswith(f"model {_digest_of(same)}") and str(same) in d["model"]
    code, so, err = run(capsys, *common, "--model", other)
    d = json.loads(so)
    assert code == 0 and d["theta_hash"] != plain["theta_hash"] and _digest_of(other) in d["model"], err
    code, so, err = run(capsys, "benevolent", "simulate", "--players", "2", "--policies", "learned,heuristic",
                        "--games", "4", "--threads", "1", "--model", _model_with("benevolent", tmp_path, "b.json", b2=3.0))
    assert code == 0 and f"model        model {_digest_of(tmp_path / 'b.json')}" in so, err


def _deep(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    return p, "is nested more than 32 levels deep"


def _wide(tmp_path):
    from policies.bethel_woods.features import NF
    rng = np.random.default_rng(3)
    p = _model_with("bethel_woods", tmp_path, "wide.json", W1=rng.normal(size=(NF, 200)), b1=np.zeros(200),
                    W2=rng.normal(size=200))
    return p, "has 200 hidden units; this boardsim plays at most 128"


def _cut(tmp_path):
    p = tmp_path / "cut.json"
    p.write_bytes(_installed("bethel-woods").read_bytes()[:5000])
    return p, "is not complete JSON"


def _edited(tmp_path):
    p = tmp_path / "edited.json"
    obj = json.loads(_installed("bethel-woods").read_text())
    obj["b2"] += 1.0
    p.write_text(json.dumps(obj))
    return p, "does not match its sha256"


@pytest.mark.parametrize("make", [_deep, _wide, _cut, _edited], ids=["nested-100k", "200-hidden", "cut", "edited"])
def test_a_damaged_model_is_one_line_wherever_it_is_used(capsys, tmp_path, monkeypatch, make):
    import policies.bethel_woods.learned as L
    bad, says = make(tmp_path)
    before = snapshot(tmp_path)
    for args in (["bethel-woods", "simulate", "--policy", "learned", "--games", "4", "--model", bad],
                 ["bethel-woods", "simulate", "--policy", "expert", "--games", "4", "--model", bad],
                 ["ladder", "bethel-woods", "--games", "4", "--model", bad]):
        t0 = time.monotonic()
        code, so, err = run(capsys, *args)
        one_line(code, err, says)
        assert str(bad) in err and so == "" and time.monotonic() - t0 < 10
    monkeypatch.setattr(L.MODEL, "path", bad)            # the installed model damaged: the ladder says so
    code, so, err = run(capsys, "ladder", "bethel-woods", "--games", "4", "--budgets", "1")
    one_line(code, err, says)
    assert so == ""
    assert snapshot(tmp_path) == before


def test_model_is_for_the_learned_and_expert_players_and_never_an_output(capsys, tmp_path):
    m = _model_with("bethel_woods", tmp_path, "m.json")
    code, so, err = run(capsys, "bethel-woods", "simulate", "--policy", "heuristic", "--games", "4", "--model", m)
    one_line(code, err, "--model")
    assert "for the learned and expert players only" in err
    before = snapshot(tmp_path)
    code, so, err = run(capsys, "bethel-woods", "simulate", "--policy", "learned", "--games", "4", "--model", m,
                        "--records", m)
    one_line(code, err, "is also the model file of this run")
    assert snapshot(tmp_path) == before


def test_ladder_with_a_model_plays_and_names_it(capsys, tmp_path):
    m = _model_with("benevolent", tmp_path, "b.json", b2=2.0)
    code, so, err = run(capsys, "ladder", "benevolent", "--games", "2", "--budgets", "1", "--threads", "1",
                        "--json", "--model", m)
    assert code == 0, err
    rows = [json.loads(x) for x in so.splitlines()]
    named = {r["policy"]: r["model"] for r in rows}
    assert named["heuristic"] is None and named["learned"].startswith(f"model {_digest_of(m)}")
    assert named["expert"] == named["learned"]


def test_every_command_kind_keeps_a_user_s_files_in_its_folder_byte_for_byte(capsys, tmp_path, study):
    out = tmp_path / "o"
    out.mkdir()
    mine = seed_user_files(out)
    rules = out / "r.toml"                                   # an input of the runs, in the same folder
    rules.write_text("[bethel_woods]\n")
    mine[rules] = rules.read_bytes()
    for args in (["experiment", "run", study, "--out", out],
                 ["experiment", "status", study, "--out", out],
                 ["experiment", "verify", "--out", out, "--sample", "1"],
                 ["bethel-woods", "simulate", "--games", "20", "--rules", rules, "--records", out / "r.csv"],
                 ["bethel-woods", "play", "--rules", rules, "--trace", out / "t.jsonl"],
                 ["replay", out / "t.jsonl"],
                 ["benevolent", "simulate", "--games", "20", "--records", out / "b.csv"],
                 ["ladder", "benevolent", "--games", "2", "--budgets", "1", "--threads", "1"]):
        code, so, err = run(capsys, *args)
        assert code == 0, (args, err)
        assert {p: p.read_bytes() for p in mine} == mine, args
        assert not [p for p in out.rglob("*.tmp")]
        assert not [p for p in out.rglob(".boardsim-run") if p.read_text() == MARKED]   # no run's folder left


def test_a_temporary_file_of_a_killed_write_is_removed_and_a_user_s_look_alike_kept(capsys, tmp_path):
    import subprocess
    import sys
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()                  # a process id that has ended
    left = tmp_path / f".r.csv.{dead}.boardsim.abcd1234.tmp"     # what SIGKILL during a write leaves
    left.write_text("half")
    alike = [tmp_path / ".r.csv.notes.tmp", tmp_path / f".r.csv.{os.getpid()}.boardsim.live0000.tmp",
             tmp_path / f".r.csv.{dead}.mine.x.tmp"]
    for p in alike:
        p.write_text("mine")
    code, so, err = run(capsys, "bethel-woods", "simulate", "--games", "20", "--records", tmp_path / "r.csv")
    assert code == 0, err
    assert not left.exists() and all(p.read_text() == "mine" for p in alike)


@pytest.mark.parametrize("game", ["bethel-woods", "benevolent"])
def test_a_ladder_of_one_game_is_refused_before_any_game(capsys, game):
    t0 = time.monotonic()
    code, so, err = run(capsys, "ladder", game, "--games", "1", "--budgets", "1", "--threads", "1")
    one_line(code, err, "--games 1: the ladder's paired intervals need 2 games at least")
    assert so == "" and time.monotonic() - t0 < 10


@pytest.mark.parametrize("game, args", [("bethel_woods", ["--policy", "learned", "--players", "2"]),
                                        ("benevolent", ["--players", "2", "--policies", "learned,heuristic"])])
def test_play_records_the_model_and_replay_needs_the_same_model(capsys, tmp_path, game, args):
    from policies.registry import modules
    net = modules(game).learned.model_record()
    m = _model_with(game, tmp_path, "m.json", W2=-net["W2"])        # another player: its values reversed
    trace = tmp_path / "t.jsonl"
    code, so, err = run(capsys, game.replace("_", "-"), "play", *args, "--trace", trace, "--model", m)
    assert code == 0, err
    head = json.loads(trace.read_text().splitlines()[0])
    assert head["model"].startswith(f"model {_digest_of(m)}") and str(m) in head["model"]
    code, so, err = run(capsys, "replay", trace, "--model", m)
    assert code == 0 and so, err
    code, so, err = run(capsys, "replay", trace)                   # the installed model plays other weights
    one_line(code, err, f"it names the model it was played with, model {_digest_of(m)}")
    before = snapshot(tmp_path)
    code, so, err = run(capsys, game.replace("_", "-"), "play", *args, "--trace", m, "--model", m)
    one_line(code, err, "is also the model file of this run")
    assert snapshot(tmp_path) == before


# -- --model on `experiment run` and `report`: every study cell that plays the learned or expert
# players plays the user's model (the dial's rungs at their temperature), named on the first screen

SKILL_STUDY = ('kind = "skill"\ngame = "bethel_woods"\nrungs = ["heuristic", "learned@0.05", "learned"]\n'
               'policy = ["learned"]\nplayers = [2]\nspies = [0]\ngames = 40\nseed = 3\n')


def test_experiment_run_plays_the_model_it_is_given_in_every_rung(capsys, tmp_path):
    import shutil

    import pandas as pd
    study = tmp_path / "sk.toml"
    study.write_text(SKILL_STUDY)
    same = tmp_path / "same.json"
    shutil.copy(_installed("bethel-woods"), same)
    W2 = np.asarray(json.loads(same.read_text())["W2"])
    worse = _model_with("bethel_woods", tmp_path, "worse.json", W2=-W2)   # prefers what the installed one avoids

    def rungs(out, *extra):
        code, so, err = run(capsys, "experiment", "run", study, "--out", out, "--threads", "1", *extra)
        assert code == 0, err
        return pd.read_csv(out / "tables" / "sk_rungs.csv").set_index("rung")
    plain = rungs(tmp_path / "a")
    copy = rungs(tmp_path / "b", "--model", same)
    other = rungs(tmp_path / "c", "--model", worse)
    cols = ["games", "wins", "first_turn_losses"]
    # the installed network under another name: the same games, the same decisions, every rung
    assert copy[cols].equals(plain[cols])
    # another network: the heuristic rung is untouched, the learned rungs (the dial's too) play it
    assert other.loc["heuristic", cols].equals(plain.loc["heuristic", cols])
    assert other.loc["learned", "wins"] != plain.loc["learned", "wins"]
    assert other.loc["learned@0.05", "wins"] != plain.loc["learned@0.05", "wins"]
    run_json = json.loads((tmp_path / "c" / "run.json").read_text())
    assert run_json["models"]["bethel_woods"].startswith(f"model {_digest_of(worse)}")
    assert f"--model {worse}" in run_json["command"]
    assert f"model {_digest_of(worse)}" in (tmp_path / "c" / "report.md").read_text()
    # the store keeps each model's units apart: the same folder with another model reads none of them back
    code, so, err = run(capsys, "experiment", "run", study, "--out", tmp_path / "c", "--threads", "1",
                        "--model", same)
    assert code == 0 and "all played now" in so, (so, err)


def test_model_on_a_study_or_report_is_checked_before_anything_plays(capsys, tmp_path):
    study = tmp_path / "sk.toml"
    study.write_text(SKILL_STUDY)
    heur = tmp_path / "h.toml"
    heur.write_text(STUDY.replace('["random"]', '["heuristic"]'))
    bw = _model_with("bethel_woods", tmp_path, "bw.json")
    bv = _model_with("benevolent", tmp_path, "bv.json")
    inside = tmp_path / "o2" / "tables" / "m.json"
    inside.parent.mkdir(parents=True)
    inside.write_bytes(bw.read_bytes())
    before = snapshot(tmp_path)
    for args, says in (
            (["experiment", "run", study, "--model", bv], "is a Benevolent model; this run plays Bethel Woods"),
            (["experiment", "run", heur, "--model", bw], "for the learned and expert players only"),
            (["experiment", "run", study, "--model", bw, "--model", bw], "a second Bethel Woods model"),
            (["experiment", "run", study, "--model", tmp_path / "nothing.json"], "no learned model at"),
            (["report", "--quick", "--model", bw, "--model", bv, "--model", bv], "a second Benevolent model")):
        code, so, err = run(capsys, *args, "--out", tmp_path / "o")
        one_line(code, err, says)
    code, so, err = run(capsys, "experiment", "run", study, "--out", tmp_path / "o2", "--model", inside)
    one_line(code, err, "among the files the run writes")
    assert snapshot(tmp_path) == before   # nothing written, made or removed; the model files as they were


def test_with_model_maps_every_arm_and_seat():
    """--model in a study: every cell (every arm of a star) with a seat that reads a network plays
    the model's network as its own array (``Cell.net``); the seats' vectors, the skill dial's
    included, stay as they are; a cell of no such seat is itself; a cell that already carries a
    network is the one-line error."""
    from arena.units import Cell
    from boardsim.cli.models import model_net
    from experiments.cells import StarCell, with_model
    from policies import dial_temperature, dial_theta
    from simcore.errors import UserError
    m, label = model_net("benevolent", _installed("benevolent"), ["learned", "expert"])
    from policies.benevolent.learned import NET_SIZE, learned_net
    assert np.array_equal(m, learned_net()) and len(m) == NET_SIZE and label.startswith("model ")
    model = {"benevolent": m}
    mixed = Cell("benevolent", 3, policies=("expert", "learned", "heuristic"), seed=1)
    dial = Cell("benevolent", 2, policies=("learned",), theta=dial_theta("benevolent", 0.04), seed=1)
    star = StarCell(Cell("benevolent", 2, policies=("learned",), seed=1), (mixed, dial), 5)
    got = with_model(star, model)
    assert got.base.net == tuple(m) and got.base.theta is None and got.base.policies == ("learned",)
    assert got.arms[0].net == tuple(m) and got.arms[0].seat_thetas is None
    assert got.arms[1].net == tuple(m) and got.arms[1].theta == dial.theta
    assert dial_temperature("benevolent", got.arms[1].theta) == 0.04
    heur = Cell("bethel_woods", 2, policies=("heuristic",), seed=1)
    assert with_model(heur, {"bethel_woods": (0.0,)}) is heur and with_model(mixed, {}) is mixed
    own = Cell("benevolent", 2, policies=("learned",), net=(1.0, 2.0), seed=1)
    with pytest.raises(UserError, match="carries a network of its own"):
        with_model(own, model)
