"""`boardsim target`: the games' side of the target search (experiments/target.py, boardsim/cli/target.py)."""
import json

import pytest
from typer.testing import CliRunner

from arena.units import Cell, as_dict, run_unit
from boardsim.cli import app
from experiments.target import knob_range, knobs, problem
from simcore.errors import UserError


def test_a_rules_knob_at_its_default_plays_the_printed_game_and_elsewhere_another():
    pr = problem("bethel_woods", "knowledge_limit", 3, "heuristic", spies=1)
    printed = as_dict("bethel_woods", run_unit(Cell("bethel_woods", 3, spies=1, policies=("heuristic",), seed=5), 0, 60))
    assert pr.measure(7, 60, 5) == printed["wins"]
    assert [pr.measure(x, 60, 5) for x in (6, 9)] != [printed["wins"]] * 2


def test_a_setup_knob_moves_the_setup_and_the_outcome_names_the_player():
    pr = problem("bethel_woods", "spies", 2, "learned")
    easy, hard = pr.measure(0, 150, 3), pr.measure(5, 150, 3)
    assert easy == as_dict("bethel_woods", run_unit(Cell("bethel_woods", 2, spies=0, policies=("learned",), seed=3),
                                                    0, 150))["wins"]
    assert easy > hard and "learned" in pr.outcome
    bv = problem("benevolent", "seat2_leaves", 2, "heuristic", seat=2)
    d = as_dict("benevolent", run_unit(Cell("benevolent", 2, leaves=(1, 6), policies=("heuristic",), seed=4), 0, 40))
    assert bv.measure(6, 40, 4) == d["seat1_wins"]      # seat 2's wins (seats counted from 0 in the counts)


def test_bad_knobs_ranges_and_players_are_one_line_errors():
    assert "seat3_leaves" in knobs("benevolent", 3) and "seat3_leaves" not in knobs("benevolent", 2)
    for call, words in ((lambda: problem("benevolent", "spies", 2, "learned"), "allowed: timeout_rounds"),
                        (lambda: problem("bethel_woods", "knowledge_limit", 3, "clairvoyant"), "not a player"),
                        (lambda: problem("benevolent", "seat1_leaves", 2, "learned", seat=3), "seat 3"),
                        (lambda: knob_range("bethel_woods", "spies", "2-7"), "within 0-5"),
                        (lambda: knob_range("bethel_woods", "knowledge_limit", "9-6"), "empty"),
                        (lambda: knob_range("bethel_woods", "knowledge_limit", "4-9"), "knowledge_limit = 4"),
                        (lambda: knob_range("bethel_woods", "spies", "a-b"), "whole numbers")):
        with pytest.raises(UserError, match=words) as e:
            call()
        assert "\n" not in str(e.value)


def test_the_command_recommends_a_value_in_range_confirmed_on_fresh_games():
    args = ["target", "bethel-woods", "--knob", "spies", "--range", "0-5", "--target", "0.3", "--players", "3",
            "--player", "heuristic", "--budget-games", "600", "--confirm-games", "200", "--seed", "2", "--json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    c = d["confirmed"]
    assert 0 <= d["recommendation"] <= 5 and d["player"] == "heuristic" and not d["increasing"]
    assert c["games"] == 200 and c["low"] <= c["rate"] <= c["high"] and d["search_games"] <= 600
    again = CliRunner().invoke(app, args)
    assert json.loads(again.output) == d      # the same seed, the same answer
    text = CliRunner().invoke(app, args[:-1]).output
    assert "played by heuristic (a bot, not people)" in text and "fresh games" in text


@pytest.mark.parametrize("bad, words", [(["--target", "0"], "target 0"), (["--knob", "nope"], "knob 'nope'"),
                                        (["--range", "3-1"], "empty")])
def test_the_command_refuses_bad_values_in_one_line_with_exit_2(bad, words):
    args = {"--knob": "spies", "--range": "0-5", "--target": "0.3"}
    args.update(dict(zip(bad[::2], bad[1::2])))
    r = CliRunner().invoke(app, ["target", "bethel-woods", *[x for kv in args.items() for x in kv]])
    assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_a_target_study_runs_through_the_store_and_resumes_to_the_same_answer(tmp_path):
    """The target study kind plays its batches through the executor: a second run of the same
    folder reads every batch from the results store and gives the same tables."""
    from experiments.report import run_studies
    from experiments.study import load_study
    f = tmp_path / "t.toml"
    f.write_text('kind = "target"\ngame = "benevolent"\npolicy = ["heuristic"]\nplayers = [2]\nseat = 1\n'
                 'knob = "seat1_leaves"\nrange = [0, 4]\ntarget = 0.5\ngames = 400\nconfirm_games = 100\nseed = 4\n')
    st = load_study(f)
    out = tmp_path / "out"
    run_studies([st], out, threads=1, show_progress=False)
    first = (out / "tables" / "t_confirmed.csv").read_text()
    run_studies([st], out, threads=1, show_progress=False)
    assert (out / "tables" / "t_confirmed.csv").read_text() == first
    import pandas as pd
    c = pd.read_csv(out / "tables" / "t_confirmed.csv")
    assert c["role"].iloc[0] == "recommendation" and 0 <= c["seat1_leaves"].iloc[0] <= 4
    assert (c["games"] == 100).all() and (c["player"] == "heuristic").all()
    assert "seat1_leaves for seat 1 to win 50%" in (out / "report.md").read_text()


@pytest.mark.parametrize("line, words", [('knob = "nope"\n', "knob 'nope'"), ("target = 1.5\n", "target"),
                                         ("players = [2, 3]\n", "exactly one")])
def test_a_bad_target_study_is_a_one_line_error(tmp_path, line, words):
    from experiments.study import load_study
    base = {"knob": 'knob = "spies"\n', "target": "target = 0.4\n", "players": "players = [3]\n"}
    base[line.split(" ")[0]] = line
    f = tmp_path / "t.toml"
    f.write_text('kind = "target"\ngame = "bethel_woods"\nrange = [0, 5]\n' + "".join(base.values()))
    with pytest.raises(UserError, match=words) as e:
        load_study(f)
    assert "\n" not in str(e.value)
