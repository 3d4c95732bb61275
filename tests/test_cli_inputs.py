"""Bad input at the command line: one line naming the bad value, exit code 2, no traceback and no
file half-written; output files written through links, never replaced by them. (An audit of the
CLI found each of these cases giving a traceback or being ignored.)"""
import json
import os

import pandas as pd
import pytest

from boardsim.cli import main


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, needle):
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and needle in err, err


@pytest.mark.parametrize("game", ["bethel-woods", "benevolent"])
@pytest.mark.parametrize("index, needle", [("-1", "game-index -1 is not allowed"),
                                           ("99999999999999999999", "game-index 99999999999999999999")])
def test_play_game_index_out_of_range(capsys, tmp_path, game, index, needle):
    trace = tmp_path / "g.jsonl"
    code, _, err = run(capsys, game, "play", "--game-index", index, "--trace", trace)
    one_line_error(code, err, needle)
    assert not trace.exists()


@pytest.mark.parametrize("game", ["bethel-woods", "benevolent"])
def test_play_trace_that_is_a_folder(capsys, tmp_path, game):
    code, _, err = run(capsys, game, "play", "--trace", tmp_path)
    one_line_error(code, err, "it is a folder")
    assert os.listdir(tmp_path) == []


def test_records_through_a_link_and_into_a_folder(capsys, tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    code, _, _ = run(capsys, "bethel-woods", "simulate", "--games", "50", "--threads", "1", "--records", link)
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == str(real)   # the link stays a link...
    assert len(pd.read_csv(real)) == 50                            # ...and its target holds the rows
    assert sorted(os.listdir(tmp_path)) == ["link.csv", "real.csv"]  # no temporary file left
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "50", "--records", tmp_path)
    one_line_error(code, err, "it is a folder")


def test_records_through_a_file_descriptor(capsys, tmp_path):
    """/dev/fd/N and /dev/stdout are written through the descriptor the process holds: a pipe
    (whose /proc link leads nowhere on disk) gets the rows, and a file the shell redirected stdout
    to is written in order, not replaced (a new inode would lose what stdout prints after)."""
    import subprocess
    import sys
    r, w = os.pipe()
    try:
        code, out, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--threads", "1",
                             "--records", f"/dev/fd/{w}")
    finally:
        os.close(w)
    with os.fdopen(r) as f:
        rows = f.read().splitlines()
    assert code == 0, err
    assert rows[0].startswith("game,won,outcome") and len(rows) == 6 and "games" in out
    target = tmp_path / "out.txt"
    target.write_text("")
    inode = target.stat().st_ino
    with open(target, "w") as f:
        proc = subprocess.run([sys.executable, "-c", "import sys; from boardsim.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "bethel-woods", "simulate", "--games", "5",
                               "--threads", "1", "--records", "/dev/stdout"],
                              stdout=f, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = target.read_text().splitlines()
    assert target.stat().st_ino == inode                      # the same file, written through
    assert lines[0].startswith("game,won,outcome") and len([x for x in lines if x[:1].isdigit()]) == 5
    assert any(x.startswith("games") for x in lines[6:])       # the summary follows the rows
    link = tmp_path / "rows.csv"                               # a link to /dev/stdout is /dev/stdout
    link.symlink_to("/dev/stdout")
    with open(target, "w") as f:
        proc = subprocess.run([sys.executable, "-c", "import sys; from boardsim.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "bethel-woods", "simulate", "--games", "5",
                               "--threads", "1", "--records", str(link)],
                              stdout=f, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = target.read_text().splitlines()
    assert target.stat().st_ino == inode and link.is_symlink()
    assert lines[0].startswith("game,won,outcome") and any(x.startswith("games") for x in lines[6:])
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--records", "/dev/fd/987")
    one_line_error(code, err, "file descriptor 987 is not open")
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--records", "/dev/fd/" + "9" * 20)
    one_line_error(code, err, "is not open")                   # too large for a descriptor: no traceback
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--records", "/dev/fd/\u00b2")
    one_line_error(code, err, "cannot write the records")      # not an ASCII number: an ordinary path
    r, w = os.pipe()
    try:
        code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "5", "--records", f"/dev/fd/{r}")
    finally:
        os.close(r)
        os.close(w)
    one_line_error(code, err, "not open for writing")


def test_records_into_a_folder_that_takes_no_file(capsys):
    # /proc takes no new file, even for root: refused before a game is played
    code, out, err = run(capsys, "bethel-woods", "simulate", "--games", "50", "--records", "/proc/g.csv")
    one_line_error(code, err, "cannot write the records '/proc/g.csv'")
    assert out == ""


def test_rules_file_errors(capsys, tmp_path):
    sim = ("bethel-woods", "simulate", "--games", "20", "--threads", "1", "--rules")
    bad = tmp_path / "latin1.toml"
    bad.write_bytes("[bethel_woods]\n# caf\xe9\n".encode("latin-1"))
    code, _, err = run(capsys, *sim, bad)
    one_line_error(code, err, "is not UTF-8 text")
    typo = tmp_path / "typo.toml"
    typo.write_text("[bethel_wood]\nknowledge_limit = 7\n")
    code, _, err = run(capsys, *sim, typo)
    one_line_error(code, err, "unknown table or key 'bethel_wood'")
    top = tmp_path / "top.toml"
    top.write_text("knowledge_limit = 7\n")
    code, _, err = run(capsys, *sim, top)
    one_line_error(code, err, "unknown table or key 'knowledge_limit'")
    other = tmp_path / "other.toml"
    other.write_text("[benevolent]\ntimeout_rounds = 50\n")
    code, _, err = run(capsys, *sim, other)
    one_line_error(code, err, "has no [bethel_woods] table")
    ok = tmp_path / "ok.toml"
    ok.write_text("[bethel_woods]\nknowledge_limit = 7\n")
    code, out, _ = run(capsys, *sim, ok, "--json")
    assert code == 0 and json.loads(out)["rules"] == str(ok)
    for spec in (f"{ok},machines-b", f"machines-b,{ok}"):
        code, _, err = run(capsys, *sim, spec)
        one_line_error(code, err, "a rules file cannot be combined with named rules")
    code, _, err = run(capsys, *sim, tmp_path)
    one_line_error(code, err, "is a folder")


def test_benevolent_rules_malformed_value_names_the_key(capsys, tmp_path):
    f = tmp_path / "bv.toml"
    f.write_text('[benevolent]\ndream_path = "x"\n')
    code, _, err = run(capsys, "benevolent", "simulate", "--games", "4", "--rules", f)
    one_line_error(code, err, "[benevolent] dream_path = 'x': malformed; expected a list of arrows")


@pytest.mark.parametrize("line, needle", [
    ('dream_path = [[0, 1.7, "Clover"]]', "dream_path: 1.7 is not a whole number"),
    ('dream_path = [[0, "1", "Clover"]]', "dream_path: '1' is not a whole number"),
    ('dream_path = [[0, 1, 0]]', "dream_path: gift 0; allowed: Clover"),
    ('layouts = {"2" = [[0, 0], [0.6, -1.2]]}', "layouts.2: 0.6 is not a whole number"),
    ('gray = [[1.0, 0, 1, 0, 0]]', "gray[0]: 1.0 is not a whole number")])
def test_benevolent_rules_whole_numbers(capsys, tmp_path, line, needle):
    """A decimal or a string where the rules file needs a whole number is refused, never read as
    the whole number below it (int() did: 0.6 became 0, a layout equal to the default)."""
    f = tmp_path / "bv.toml"
    f.write_text(f"[benevolent]\n{line}\n")
    code, _, err = run(capsys, "benevolent", "simulate", "--games", "4", "--rules", f)
    one_line_error(code, err, needle)
    assert f"rules file {str(f)!r}: " in err        # the file is named too


def test_a_bad_value_names_its_rules_file(capsys, tmp_path):
    f = tmp_path / "bw.toml"
    f.write_text("[bethel_woods]\nknowledge_limit = -4\n")
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "4", "--rules", f)
    one_line_error(code, err, f"rules file {str(f)!r}: knowledge_limit: -4 is not an integer from 1 to 40")
    f.write_text("[bethel_woods]\nknowledge_limit = true\n")   # spelled as in the file, not True
    code, _, err = run(capsys, "bethel-woods", "simulate", "--games", "4", "--rules", f)
    one_line_error(code, err, "knowledge_limit: true is not an integer from 1 to 40")


def test_policy_names_and_conflicts(capsys):
    code, out, _ = run(capsys, "bethel-woods", "simulate", "--games", "30", "--threads", "1", "--policy", "RANDOM",
                       "--json")
    assert code == 0 and json.loads(out)["policy"] == "random"
    code, _, err = run(capsys, "bethel-woods", "simulate", "--policy", "Oracle")
    one_line_error(code, err, "unknown policy 'Oracle'; allowed: random, heuristic")
    code, _, err = run(capsys, "benevolent", "simulate", "--players", "2", "--policy", "heuristic",
                       "--policies", "random,random")
    one_line_error(code, err, "give one of them, not both")
    code, out, _ = run(capsys, "benevolent", "simulate", "--players", "2", "--games", "20", "--threads", "1",
                       "--policies", "Random,RANDOM", "--json")
    assert code == 0 and json.loads(out)["policies"] == ["random", "random"]


def test_experiment_run_refuses_before_writing(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('kind = "difficulty"\nplayers = [2]\nspies = [0]\ngames = 20\n')
    out = tmp_path / "out"
    code, _, err = run(capsys, "experiment", "run", study, "--out", out, "--threads", "0")
    one_line_error(code, err, "threads 0 is not allowed")
    assert not out.exists()
    code, _, err = run(capsys, "experiment", "run", study, "--out", "/proc/boardsim-out")
    one_line_error(code, err, "cannot write '/proc/boardsim-out'")
    code, _, err = run(capsys, "report", "--quick", "--out", "/proc/boardsim-report")
    one_line_error(code, err, "cannot write '/proc/boardsim-report'")


def test_study_file_errors_name_the_file(capsys, tmp_path):
    nokind = tmp_path / "nokind.toml"
    nokind.write_text("players = [3]\n")
    code, _, err = run(capsys, "experiment", "run", nokind, "--out", tmp_path / "o")
    one_line_error(code, err, "no kind = ")
    assert str(nokind) in err
    five = tmp_path / "five.toml"
    five.write_text('kind = "difficulty"\nplayers = [5]\n')
    code, _, err = run(capsys, "experiment", "run", five, "--out", tmp_path / "o")
    one_line_error(code, err, f"{five}: players = [5]: 5 is not allowed")


def test_tune_arguments(capsys, tmp_path):
    rec = tmp_path / "r.json"
    code, _, err = run(capsys, "tune", "bethel-woods", "--seed", "-1", "--record", rec)
    one_line_error(code, err, "seed -1 is not allowed")
    code, _, err = run(capsys, "tune", "bethel-woods", "--games-per-candidate", "0", "--record", rec)
    one_line_error(code, err, "games per candidate 0")
    code, _, err = run(capsys, "tune", "bethel-woods", "--record", tmp_path)
    one_line_error(code, err, "it is a folder")
    assert not rec.exists()


def test_bench_baseline_errors(capsys, tmp_path):
    code, _, err = run(capsys, "bench", "--quick", "--baseline", tmp_path / "missing.json")
    one_line_error(code, err, "no such file")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "bench", "--quick", "--baseline", bad)
    one_line_error(code, err, "is not a baseline JSON file")
    code, _, err = run(capsys, "bench", "--quick", "--update-baseline", "--baseline", tmp_path / "no" / "b.json")
    one_line_error(code, err, "the folder")


def test_sensitivity_chart_name(capsys, tmp_path):
    code, _, err = run(capsys, "bethel-woods", "sensitivity", "--games", "10", "--chart", tmp_path / "x.txt")
    one_line_error(code, err, "give a .png name")
    code, _, err = run(capsys, "bethel-woods", "sensitivity", "--games", "10", "--chart", "/proc/x.png")
    one_line_error(code, err, "cannot write the chart '/proc/x.png'")
    assert os.listdir(tmp_path) == []


def test_sensitivity_table_prints_each_win_rate_with_its_interval():
    from experiments.sensitivity import table_text
    from experiments.stats import wilson
    df = pd.DataFrame([{"game": "bethel_woods", "variant": "v", "kind": "switch", "players": 3, "spies": 0,
                        "games": 200, "default_wins": 54, "variant_wins": 40, "default": 0.27, "value": 0.2,
                        "diff": -0.07, "ci_low": -0.12, "ci_high": -0.02, "p_holm": 0.01}])
    text = table_text(df)
    lo, hi = wilson(54, 200)
    assert "default (95% CI)" in text and f"27.000% ({100 * lo:.3f}% to {100 * hi:.3f}%)" in text
    lo, hi = wilson(40, 200)
    assert f"20.000% ({100 * lo:.3f}% to {100 * hi:.3f}%)" in text
    # no wins: the upper bound keeps its digits (it printed " 0.00% ( 0.00- 0.05)" before)
    text = table_text(df.assign(games=8000, default_wins=0, default=0.0))
    assert f"0% (0% to {100 * wilson(0, 8000)[1]:.3g}%)" in text and "0.048%)" in text


def test_tune_prints_rates_as_pct_does():
    from experiments.tune import _ci
    assert _ci(0, 20_000) == "(0%, 95% CI 0% to 0.0192%)"
    assert _ci(5400, 20_000) == "(27.000%, 95% CI 26.389% to 27.620%)"


@pytest.mark.parametrize("args, needle", [
    (["bethel-woods", "simulate", "--games", "abc"], "Invalid value for '--games'"),
    (["bethel-woods", "simulate", "--games=1.5"], "(got '1.5')"),
    (["bethel-woods", "simulate", "--games", "5", "--games", "x7"], "(got 'x7')"),   # the one click read
    (["benevolent", "simulate", "--players", "three"], "(got 'three')"),
    (["chess", "simulate"], "No such command 'chess'; commands: bench, report"),
    (["bethel-woods", "foo"], "No such command 'foo'; commands: simulate, play, sensitivity")])
def test_usage_errors_name_the_value_and_what_there_is(capsys, args, needle):
    code, _, err = run(capsys, *args)
    one_line_error(code, err, needle)
    if "Invalid value" in needle:
        assert "(got 'abc')" in err


@pytest.mark.parametrize("group", ["bethel-woods", "benevolent", "experiment"])
def test_a_group_without_a_command_prints_its_help_and_no_empty_error(capsys, group):
    code, out, err = run(capsys, group)
    assert code == 2
    assert "Commands" in out and ("simulate" in out or "status" in out)
    assert err == "", err                       # it printed a bare "error: " line before


def test_stdout_that_cannot_be_written_is_one_line(tmp_path):
    """stdout on a full device (/dev/full): one line on stderr and exit code 1, not a traceback."""
    import subprocess
    import sys
    with open("/dev/full", "w") as full:
        for args in (["bethel-woods", "--help"],
                     ["bethel-woods", "simulate", "--games", "5", "--threads", "1"]):
            proc = subprocess.run([sys.executable, "-c", "import sys; from boardsim.cli import main; "
                                   "sys.exit(main(sys.argv[1:]))", *args],
                                  stdout=full, stderr=subprocess.PIPE, text=True)
            assert proc.returncode == 1, proc.stderr
            assert proc.stderr == "error: cannot write the output: No space left on device\n", proc.stderr
