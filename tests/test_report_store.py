"""`boardsim report` on a results store (issue 46): every unit recorded in --out/results.sqlite, a
run killed mid-study resumes playing only what is missing to byte-identical tables, a local Dask
cluster gives the same tables (a sensitivity study among them), `experiment status` and `verify` read a report folder, and a log
gets a line a minute per study."""
from pathlib import Path

import pytest
from typer.testing import CliRunner

import experiments.report as R
from boardsim.cli.root import app
from experiments.report import run_studies
from experiments.run.store import Store
from experiments.study import load_study

SMALL = {
    "difficulty": 'kind = "difficulty"\npolicy = ["heuristic"]\nplayers = [2]\nspies = [0, 3]\ngames = 90\n'
                  'seed = 11\nskill_games = 0\n',
    "seats": 'kind = "seats"\npolicy = ["heuristic"]\nplayers = [2, 3]\ngames = 90\nseed = 13\nskill_games = 0\n',
    # played in units like every study (its StarCells keep each arm's outcome paired with the
    # defaults' in the unit's counts), so it resumes and runs on Dask alike
    "sensitivity": 'kind = "sensitivity"\ngame = "benevolent"\npolicy = "random"\ngames = 30\nseed = 3\n'
                   'skill_games = 0\n',
}


def _studies(folder: Path):
    folder.mkdir(exist_ok=True)
    out = []
    for name, body in SMALL.items():
        (folder / f"{name}.toml").write_text(body)
        out.append(load_study(folder / f"{name}.toml"))
    return out


def _run(studies, out: Path, **backend):
    with Store(out / "results.sqlite") as store:
        return run_studies(studies, out, threads=1, show_progress=False, backend={"store": store, **backend})


def _tables(out: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted((out / "tables").glob("*.csv"))}


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted report of the two small studies, on a store."""
    d = tmp_path_factory.mktemp("whole")
    studies = _studies(d / "files")
    info = _run(studies, d / "out")
    return studies, d / "out", info


def test_a_report_killed_mid_study_resumes_to_the_same_tables_playing_only_what_is_missing(whole, tmp_path,
                                                                                              monkeypatch):
    studies, ref, info = whole
    out = tmp_path / "out"
    recorded = []
    real = Store.record

    def record_then_die(self, cell, start, count, counts, seconds=None):
        if len(recorded) == 3:            # the kill: in the second study (the first has two cells)
            raise KeyboardInterrupt
        recorded.append(count * getattr(cell, "games_per_seed", 1))
        return real(self, cell, start, count, counts, seconds)
    monkeypatch.setattr(Store, "record", record_then_die)
    with pytest.raises(KeyboardInterrupt):
        _run(studies, out)
    assert not (out / "report.md").exists() and (out / "results.sqlite").exists()
    monkeypatch.setattr(Store, "record", real)
    again = _run(studies, out)
    assert _tables(out) == _tables(ref)
    total = sum(s["games"] for s in info["studies"])
    played = sum(s["played"] for s in again["studies"])
    assert played == total - sum(recorded) and 0 < played < total
    # a finished report rebuilds from its store without playing
    third = _run(studies, out)
    assert sum(s["played"] for s in third["studies"]) == 0 and _tables(out) == _tables(ref)


def test_a_report_on_a_local_dask_cluster_gives_the_same_tables(whole, tmp_path):
    from experiments.run.cluster import dask_client
    studies, ref, _ = whole
    with dask_client(workers=2, threads_per_worker=1) as (client, _threads):
        _run(studies, tmp_path / "out", client=client)
    assert _tables(tmp_path / "out") == _tables(ref)


def test_status_and_verify_read_a_report_folder(whole):
    studies, ref, _ = whole
    runner = CliRunner()
    r = runner.invoke(app, ["experiment", "verify", "--out", str(ref), "--sample", "3"])
    assert r.exit_code == 0, r.output
    assert "no problem" in r.output and "3 matched" in r.output
    st = runner.invoke(app, ["experiment", "status", str(ref.parent / "files" / "seats.toml"), "--out", str(ref)])
    assert st.exit_code == 0, st.output
    assert "seats:" in st.output and "benevolent" in st.output and "bethel_woods" not in st.output


@pytest.mark.parametrize("args, says", [(["--connect-timeout", "5"], "only used with --scheduler"),
                                        (["--workers", "0"], "workers"),
                                        (["--bands", "easy=65-55"], "expected 0 <= LOW < HIGH <= 100"),
                                        (["--bands", "easy:55-65"], "is not name=LOW-HIGH")])
def test_report_options_are_checked_before_anything_plays(tmp_path, args, says):
    r = CliRunner().invoke(app, ["report", "--quick", "--out", str(tmp_path / "r"), *args])
    assert r.exit_code == 2 and says in r.output and not (tmp_path / "r").exists()
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_a_log_gets_a_line_a_minute_per_study():
    from experiments.progress import StudyProgress
    lines = []
    with StudyProgress("seats", enabled=False, say=lines.append, every=0.0) as bar:
        bar.add(1000)
        bar.advance(250)
        bar.advance(250)
    assert len(lines) == 2 and lines[-1].startswith("seats: 500 of 1,000 games, about ")
    done = []
    with StudyProgress("handicap", enabled=False, say=done.append, every=0.0) as bar:
        bar.add(1000)
        bar.advance(600)
        bar.advance(400)   # every game asked played: no "about -0 s left"
    assert done[-1] == "handicap: 1,000 of 1,000 games, finishing"
    quiet = []
    with StudyProgress("seats", enabled=False, say=quiet.append) as bar:   # the default: once a minute
        bar.add(10)
        bar.advance(10)
    assert quiet == []
    assert R.STANDARD[-2:] == ("skill_bethel_woods", "skill_benevolent")
