"""The command line, through its real entry point: output, JSON fields, exit codes and errors."""
import json

import pytest

from boardsim.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json(capsys):
    code, out, err = run(capsys, "bethel-woods", "simulate", "--players", "3", "--spies", "2", "--characters",
                         "Nova,Harris,Fenn", "--games", "2000", "--seed", "7", "--threads", "2", "--json")
    assert code == 0
    d = json.loads(out)
    for key in ("game", "games", "wins", "win_rate", "ci95", "losses", "mean_turns", "games_per_second",
                "threads", "seed"):
        assert key in d
    assert d["game"] == "bethel_woods" and d["games"] == 2000 and d["threads"] == 2 and d["seed"] == 7
    assert set(d["losses"]) == {"bag_empty", "four_critical", "six_spies"}
    assert d["wins"] + sum(d["losses"].values()) == 2000
    lo, hi = d["ci95"]
    assert 0 <= lo <= d["win_rate"] <= hi <= 1 and hi > 0
    assert d["characters"] == ["Nova", "Harris", "Fenn"]


def test_character_names_are_matched_without_case(capsys):
    args = ("bethel-woods", "simulate", "--players", "3", "--games", "200", "--seed", "7", "--threads", "1", "--json")
    code, out, _ = run(capsys, *args, "--characters", "nova, HARRIS,fenn")
    code2, out2, _ = run(capsys, *args, "--characters", "Nova,Harris,Fenn")
    assert code == code2 == 0
    d, d2 = json.loads(out), json.loads(out2)
    assert d["characters"] == ["Nova", "Harris", "Fenn"] and d["wins"] == d2["wins"] and d["losses"] == d2["losses"]
    code, _, err = run(capsys, *args, "--characters", "nova,Nova,Fenn")
    assert code == 2 and "only once" in err


def test_simulate_table_is_reproducible(capsys):
    code, out1, _ = run(capsys, "bethel-woods", "simulate", "--games", "1500", "--seed", "3", "--threads", "1")
    code2, out2, _ = run(capsys, "bethel-woods", "simulate", "--games", "1500", "--seed", "3", "--threads", "2")
    assert code == code2 == 0
    strip = lambda t: [l for l in t.splitlines() if not l.startswith("speed")]  # noqa: E731
    assert strip(out1) == strip(out2)
    assert "95% CI" in out1 and "win rate" in out1


def test_simulate_records_csv(capsys, tmp_path):
    path = tmp_path / "games.csv"
    code, _, _ = run(capsys, "bethel-woods", "simulate", "--games", "300", "--records", str(path))
    assert code == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 301 and lines[0].startswith("game,won,outcome,turns")


@pytest.mark.parametrize("args, message", [
    (["--players", "5"], "players 5"),
    (["--players", "1"], "players 1"),
    (["--spies", "9"], "spies 9"),
    (["--characters", "Nova,Bob,Fenn"], "unknown character 'Bob'"),
    (["--characters", "Nova,Fenn"], "2 characters for 3"),
    (["--characters", "Nova,Fenn,"], "'Nova,Fenn,' has an empty name"),
    (["--characters", "Nova,,Fenn"], "'Nova,,Fenn' has an empty name"),
    (["--games", "0"], "games 0"),
    (["--threads", "64"], "threads 64"),
    (["--policy", "genius"], "unknown policy 'genius'"),
    (["--players", "abc"], "'--players'"),
    (["--rules", "/nonexistent.toml"], "does not exist"),
    (["--games", "99999999999999999999"], "games 99999999999999999999 is not allowed; play 1 to 2**62"),
    (["--seed=-1"], "seed -1"),
    (["--records", "missing_dir/g.csv"], "the folder 'missing_dir' does not exist"),
])
def test_bad_input_one_line_exit_2(capsys, args, message):
    code, out, err = run(capsys, "bethel-woods", "simulate", "--games", "10", *args)
    assert code == 2
    assert message in err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def test_broken_rules_file(capsys, tmp_path):
    p = tmp_path / "r.toml"
    p.write_text("[bethel_woods]\nknowledge_limit = -3\n")
    code, out, err = run(capsys, "bethel-woods", "simulate", "--rules", str(p))
    assert code == 2 and "knowledge_limit: -3" in err and err.count("\n") == 1


def test_play_and_replay(capsys, tmp_path):
    trace = tmp_path / "game.jsonl"
    code, out, err = run(capsys, "bethel-woods", "play", "--seed", "7", "--players", "3", "--spies", "1",
                         "--policy", "random", "--trace", str(trace))
    assert code == 0 and trace.exists()
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    assert lines[0]["type"] == "setup" and lines[-1]["type"] == "end"
    kinds = {l["type"] for l in lines}
    assert kinds == {"setup", "decision", "chance", "position", "end"}
    pos = lines[0]["position"]
    for key in ("bag", "spy_stack", "machines", "knowledge", "discard"):
        assert key in pos
    assert all("critical_tile" in m and "critical_face_up" in m for m in pos["machines"])
    code, story, err = run(capsys, "replay", str(trace))
    assert code == 0
    assert story.count("-- Turn") == lines[-1]["turns"]
    assert ("LOSE" in story) or ("WIN" in story)


def test_replay_rejects_a_tampered_trace(capsys, tmp_path):
    trace = tmp_path / "game.jsonl"
    run(capsys, "bethel-woods", "play", "--seed", "8", "--trace", str(trace))
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    i = next(i for i, l in enumerate(lines) if l["type"] == "position")
    lines[i]["position"]["bag"] = {}
    trace.write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    code, out, err = run(capsys, "replay", str(trace))
    assert code == 2 and "differs" in err


def test_replay_errors(capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and "not JSON" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and err.startswith("error: ")


def test_play_names_a_missing_folder_not_a_temporary_file(capsys, tmp_path):
    code, out, err = run(capsys, "bethel-woods", "play", "--trace", str(tmp_path / "missing_dir" / "x.jsonl"))
    assert code == 2 and "missing_dir' does not exist" in err and ".tmp" not in err and err.count("\n") == 1
    code, out, err = run(capsys, "benevolent", "play", "--trace", "nowhere/b.jsonl")
    assert code == 2 and "the folder 'nowhere' does not exist" in err


def test_an_internal_error_keeps_its_traceback(capsys, monkeypatch):
    """Only the library's UserError becomes a one-line exit-2 error: a bug (here any other
    ValueError raised inside the run) propagates with its traceback."""
    import boardsim.cli.bethel_woods as cli

    def broken(*args, **kwargs):
        raise ValueError("an internal bug")
    monkeypatch.setattr(cli, "run_simulation", broken)
    with pytest.raises(ValueError, match="an internal bug"):
        run(capsys, "bethel-woods", "simulate", "--games", "10")


def test_play_writes_nothing_on_bad_input(capsys, tmp_path):
    trace = tmp_path / "game.jsonl"
    code, _, err = run(capsys, "bethel-woods", "play", "--players", "7", "--trace", str(trace))
    assert code == 2 and not trace.exists() and list(tmp_path.iterdir()) == []


# ---- Benevolent -------------------------------------------------------------------------------------
def test_benevolent_simulate_json(capsys):
    code, out, err = run(capsys, "benevolent", "simulate", "--players", "4", "--leaves", "1,3,4,5", "--games", "3000",
                         "--seed", "7", "--threads", "2", "--json")
    assert code == 0
    d = json.loads(out)
    for key in ("game", "games", "players", "leaves", "seat_wins", "seat_win_rates", "seat_ci95", "timeouts",
                "mean_rounds", "games_per_second", "threads", "seed", "decided", "seat_shares", "chi2", "chi2_p", "seats"):
        assert key in d
    assert d["leaves"] == [1, 3, 4, 5] and sum(d["seat_wins"]) + d["timeouts"] == 3000
    for r, (lo, hi) in zip(d["seat_shares"], d["seat_ci95"]):
        assert lo <= r <= hi
    # one question, one answer: the seats study's intervals and test (experiments.stats.seat_fairness)
    from experiments.stats import seat_fairness, seats_verdict
    fair = seat_fairness(d["seat_wins"])
    assert d["seat_ci95"] == fair.ci.tolist() and d["chi2_p"] == fair.chi2.pvalue
    assert d["seats"] == seats_verdict(d["chi2_p"])


def test_benevolent_table(capsys):
    code, out, _ = run(capsys, "benevolent", "simulate", "--players", "3", "--games", "500", "--policies",
                       "random,random,random", "--threads", "2")
    assert code == 0 and out.count("95% CI") == 4 and "seat 3 (4 leaves)" in out
    assert "seat 1 (1 leaf)" in out and "on 2 threads" in out
    code, out, _ = run(capsys, "benevolent", "simulate", "--games", "20", "--threads", "1")
    assert code == 0 and "on 1 thread (" in out


def test_benevolent_fairness_is_the_seats_studys_over_the_decided_games():
    """Equal seats over 900 decided games of 1,000 (100 timeouts) are equal: shares of the decided
    games, 1/2 each; seats that differ are called so with the seats study's words and test."""
    from types import SimpleNamespace

    from boardsim.cli.benevolent import COMMANDS
    from boardsim.cli.game_commands import summary_dict, summary_text
    from experiments.stats import SEATS_ALIKE, SEATS_DIFFER, pct

    def text(wins):
        s = SimpleNamespace(games=1000, players=2, leaves=(1, 3), policies=["heuristic"] * 2, thetas=[None] * 2, nets=[None] * 2,
                            seat_wins=wins, timeouts=1000 - sum(wins), mean_rounds=30.0, games_per_second=1.0,
                            decisions_per_second=1.0, seconds=1.0, threads=1, seed=1)
        return summary_text(COMMANDS, summary_dict(COMMANDS, s, SimpleNamespace(source="rulebook"), {}))
    t = text([450, 450])
    assert f"a fair share is {pct(0.5)} per seat of the 900 decided games" in t
    assert f"seats        {SEATS_ALIKE} (chi-square p = 1;" in t and "wins 450  50.000%" in t
    assert f"seats        {SEATS_DIFFER}" in text([500, 400])
    assert "seats        no game decided" in text([0, 0])


@pytest.mark.parametrize("args, message", [
    (["--players", "4", "--leaves", "1,3"], "2 seats for 4 players"),
    (["--players", "5"], "players 5"),
    (["--players", "2", "--leaves=-1,3"], "negative"),
    (["--rules", "/nonexistent.toml"], "does not exist"),
])
def test_benevolent_bad_input(capsys, args, message):
    code, out, err = run(capsys, "benevolent", "simulate", "--games", "10", *args)
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""


def test_benevolent_broken_rules_file(capsys, tmp_path):
    p = tmp_path / "r.toml"
    p.write_text("[benevolent]\nsides = [['Meadow']]\n")
    code, _, err = run(capsys, "benevolent", "simulate", "--rules", str(p))
    assert code == 2 and "sides" in err and err.count("\n") == 1


def test_benevolent_play_and_replay(capsys, tmp_path):
    trace = tmp_path / "b.jsonl"
    code, _, _ = run(capsys, "benevolent", "play", "--players", "3", "--seed", "4", "--trace", str(trace))
    assert code == 0
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    assert lines[0]["game"] == "benevolent" and lines[-1]["type"] == "end"
    pos = lines[0]["position"]
    for key in ("forest", "triangle", "gift_pool", "player_state", "supply"):
        assert key in pos
    assert all("neighbours" in h and "gray_footstep" in h for h in pos["forest"]["hexes"])
    code, story, _ = run(capsys, "replay", str(trace))
    assert code == 0 and ("WINS" in story or "timed out" in story)
    assert story.count("-- Turn") == lines[-1]["turns"]


def test_benevolent_records_csv(capsys, tmp_path):
    path = tmp_path / "b.csv"
    code, _, _ = run(capsys, "benevolent", "simulate", "--players", "2", "--games", "200", "--records", str(path))
    assert code == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 201 and lines[0].startswith("game,winner,turns,rounds,decisions,seat0_turns")


def test_command_listings_flow_each_help_as_one_paragraph():
    """typer's rich listing keeps a docstring's line breaks; every command's short help is one line."""
    from boardsim.cli import app

    def commands(t):
        yield from t.registered_commands
        for g in t.registered_groups:
            yield from commands(g.typer_instance)

    infos = list(commands(app))
    assert len(infos) >= 12
    for info in infos:
        assert info.short_help and "\n" not in info.short_help, info.callback.__name__
