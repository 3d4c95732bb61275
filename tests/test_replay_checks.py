"""`boardsim replay` checks a trace against the game replayed from its setup: every corrupted
trace is one line `error: FILE line N: reason` on stderr with exit code 2 and no traceback, and
the untouched trace still replays with exit code 0.

One trace per game is recorded once (module fixtures) through the library calls of `play
--trace` (record_game, write_trace); each test writes a corrupted copy and replays it through the
command line's real entry point."""
import copy
import json

import pytest

from arena.benevolent.trace import record_game as bv_record
from arena.bethel_woods.trace import record_game as bw_record
from arena.trace import write_trace
from boardsim.cli import main
from simcore.bethel_woods.actions import kind_name


@pytest.fixture(scope="module")
def bw(tmp_path_factory):
    """A Bethel Woods game as `bethel-woods play --seed 7 --players 3 --spies 1` records it."""
    path = tmp_path_factory.mktemp("bw") / "game.jsonl"
    write_trace(bw_record(3, 1, None, "random", 7, 0, None), path)
    return path, [json.loads(raw) for raw in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def bv(tmp_path_factory):
    """A Benevolent game as `benevolent play --players 2 --seed 3` records it (202 lines)."""
    path = tmp_path_factory.mktemp("bv") / "game.jsonl"
    write_trace(bv_record(2, None, "random", 3, 0, None, None), path)
    return path, [json.loads(raw) for raw in path.read_text().splitlines()]


def replay(capsys, path):
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def rejected(capsys, path, reason, line=None):
    """Assert the replay of path fails with one line `error: PATH line LINE: ...REASON...`."""
    code, out, err = replay(capsys, path)
    assert code == 2, (code, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    assert reason in err, err
    if line is not None:
        assert f"{path} line {line}:" in err, err
    return err


def write(tmp_path, lines):
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def first(lines, kind):
    return next(i for i, x in enumerate(lines) if x["type"] == kind)


def test_the_untouched_traces_replay(capsys, bw, bv):
    for path, lines in (bw, bv):
        code, out, err = replay(capsys, path)
        assert code == 0 and err == "" and out.count("-- Turn") == lines[-1]["turns"]


# ---- 1. the end line is compared with the replayed result ------------------------------------------
@pytest.mark.parametrize("field, value, replayed", [
    ("outcome", "win", '"four_critical"'), ("turns", 8, "7"), ("daydreamer_built", 2, "0")])
def test_bw_an_edited_end_line_is_rejected(capsys, tmp_path, bw, field, value, replayed):
    lines = copy.deepcopy(bw[1])
    assert lines[-1]["outcome"] == "four_critical" and lines[-1]["turns"] == 7 and lines[-1]["daydreamer_built"] == 0
    lines[-1][field] = value
    rejected(capsys, write(tmp_path, lines), f"the end line's {field} is {json.dumps(value)} but the replayed "
             f"game's is {replayed}", len(lines))


@pytest.mark.parametrize("field, value, replayed", [("winner", 0, "1"), ("outcome", "timeout", '"win"'),
                                                    ("turns", 49, "50")])
def test_bv_an_edited_end_line_is_rejected(capsys, tmp_path, bv, field, value, replayed):
    lines = copy.deepcopy(bv[1])
    assert lines[-1] == {"type": "end", "outcome": "win", "winner": 1, "turns": 50}
    lines[-1][field] = value
    rejected(capsys, write(tmp_path, lines), f"the end line's {field} is {json.dumps(value)} but the replayed "
             f"game's is {replayed}", len(lines))


# ---- 2. a trace cut short ------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["bw", "bv"])
def test_a_cut_trace_is_rejected(capsys, tmp_path, request, game):
    path, lines = request.getfixturevalue(game)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(path.read_text().splitlines(keepends=True)[:40]))   # head -n 40
    rejected(capsys, cut, "the trace ends before the game does (no end line)", 40)
    early = write(tmp_path, lines[:40] + lines[-1:])   # an end line before the game is over
    rejected(capsys, early, "the trace ends before the game does", 41)
    rejected(capsys, write(tmp_path, lines + [lines[-1]]), "a line after the end line", len(lines) + 1)


# ---- 3. setup fields ------------------------------------------------------------------------------
@pytest.mark.parametrize("edit, reason", [
    ({"players": 7}, "setup: players 7 is not allowed; Bethel Woods takes 2 to 4"),
    ({"players": 4}, "players is 4 but the position lists 3 characters"),
    ({"spies": 9}, "setup: spies 9 is not allowed"),
    ({"spies": 2}, "the setup position is not the one seed 7, game 0 sets up with 3 players and 2 spies"),
    ({"seed": 8}, "the setup position is not the one seed 8, game 0 sets up"),
    ({"game_index": -1}, "setup: game-index -1 is not allowed"),
    ({"policy": "oracle"}, "unknown policy 'oracle'"),
    ({"policy_label": "search(8)"}, "policy_label 'search(8)' is not policy 'random'"),
    ({"rules": {"knowledge_limit": -3}}, "setup rules: knowledge_limit"),
    ({"rules": {"malfunction_counts": [[4] * 4] * 6}}, "the setup position is not the one seed 7, game 0 sets up"),
])
def test_bw_bad_setup_fields_are_rejected(capsys, tmp_path, bw, edit, reason):
    lines = copy.deepcopy(bw[1])
    lines[0].update(edit)
    rejected(capsys, write(tmp_path, lines), reason, 1)


def test_bw_an_edited_setup_position_is_rejected(capsys, tmp_path, bw):
    lines = copy.deepcopy(bw[1])
    lines[0]["position"]["first_player"] = (lines[0]["position"]["first_player"] + 1) % 3
    rejected(capsys, write(tmp_path, lines), "is not the one seed 7, game 0 sets up with 3 players and 1 spy: "
             "at first_player", 1)
    lines = copy.deepcopy(bw[1])
    lines[0]["position"]["characters"][0] = "Gandalf"
    rejected(capsys, write(tmp_path, lines), "setup: characters Gandalf", 1)


@pytest.mark.parametrize("edit, reason", [
    ({"players": 7}, "setup: players 7 is not allowed; Benevolent takes 2 to 4"),
    ({"players": 3}, "setup: leaves 1,3 gives 2 seats for 3 players"),
    ({"leaves": [9, 9]}, "setup: leaves [9, 9] differ from the starting leaves in the position, [1, 3]"),
    ({"leaves": [1, 3, 4]}, "setup: leaves 1,3,4 gives 3 seats for 2 players"),
    ({"leaves": [1, -3]}, "negative"),
    ({"policies": ["random"]}, "policies names 1 policies for 2 players"),
    ({"seed": 4}, "the setup position is not the one seed 4, game 0 sets up with 2 players and leaves [1, 3]"),
    ({"rules": {"timeout_rounds": 200}}, "setup rules are malformed"),
])
def test_bv_bad_setup_fields_are_rejected(capsys, tmp_path, bv, edit, reason):
    lines = copy.deepcopy(bv[1])
    lines[0].update(edit)
    rejected(capsys, write(tmp_path, lines), reason, 1)


def test_bv_an_edited_setup_position_is_rejected(capsys, tmp_path, bv):
    lines = copy.deepcopy(bv[1])
    lines[0]["position"]["supply"] += 1
    rejected(capsys, write(tmp_path, lines), "is not the one seed 3, game 0 sets up with 2 players and leaves "
             "[1, 3]: at supply", 1)


# ---- 4. malformed files and lines: one-line errors, not tracebacks -------------------------------
@pytest.mark.parametrize("game, kind, field, value, reason", [
    ("bw", "decision", "action", "x", 'action is "x" (a string); expected a whole number'),
    ("bw", "decision", "action", None, "action is null (null); expected a whole number"),
    ("bw", "chance", "outcome", 1.5, "outcome is 1.5 (a number); expected a whole number"),
    ("bw", "position", "position", [], "position is [] (a list); expected a JSON object"),
    ("bv", "decision", "action", None, "action is null (null); expected a whole number"),
    ("bv", "decision", "action", True, "action is true (true/false); expected a whole number"),
    ("bv", "decision", "player", "0", "player is \"0\" (a string); expected a whole number"),
])
def test_a_malformed_field_is_rejected(capsys, tmp_path, request, game, kind, field, value, reason):
    lines = copy.deepcopy(request.getfixturevalue(game)[1])
    i = first(lines, kind)
    lines[i][field] = value
    rejected(capsys, write(tmp_path, lines), reason, i + 1)
    del lines[i][field]
    rejected(capsys, write(tmp_path, lines), f"the {kind} line has no {field!r}", i + 1)


@pytest.mark.parametrize("game", ["bw", "bv"])
def test_malformed_files_are_rejected(capsys, tmp_path, request, game):
    path, lines = request.getfixturevalue(game)
    text = path.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps([lines[0]]) + "\n" + "".join(text[1:]))
    rejected(capsys, bad, "not a trace: the first line must be a setup line naming the game", 1)
    bad.write_text("".join(text[:5]) + "[1, 2]\n" + "".join(text[5:]))
    rejected(capsys, bad, "expected a JSON object, found a list", 6)
    bad.write_text("".join(text[:5]) + "{not json\n" + "".join(text[5:]))
    rejected(capsys, bad, "not JSON", 6)
    bad.write_text("".join(text[:5]) + '{"type": "decision", "turn": NaN}\n' + "".join(text[5:]))
    rejected(capsys, bad, "not JSON: NaN is not a JSON number", 6)
    bad.write_bytes("".join(text[:3]).encode() + b'{"name": "\xff\xfe"}\n')
    rejected(capsys, bad, "not UTF-8 text", 4)
    bad.write_text("".join(text[:5]) + '{"type": "comment"}\n' + "".join(text[5:]))
    rejected(capsys, bad, "unknown line type 'comment'", 6)
    bad.write_text("".join(text[:5]) + "\n\n" + "".join(text[5:7]) + '{"type": "comment"}\n')
    rejected(capsys, bad, "unknown line type 'comment'", 10)   # blank lines keep the numbering


def test_an_empty_file_a_folder_and_a_missing_file_are_rejected(capsys, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    rejected(capsys, empty, f"{empty}: the trace is empty (no setup line)")
    empty.write_text("\n  \n")
    rejected(capsys, empty, "the trace is empty")
    rejected(capsys, tmp_path, "is a folder; give a file")
    rejected(capsys, tmp_path / "missing.jsonl", "cannot read the trace")
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "setup", "game": "chess"}\n')
    rejected(capsys, other, "not a trace: the first line must be a setup line naming the game", 1)


# ---- 5. decisions, chance outcomes and positions against the replayed game --------------------------
@pytest.mark.parametrize("game", ["bw", "bv"])
def test_an_illegal_decision_is_rejected(capsys, tmp_path, request, game):
    lines = copy.deepcopy(request.getfixturevalue(game)[1])
    i = first(lines, "decision")
    lines[i]["action"] = 10_000
    rejected(capsys, write(tmp_path, lines), "action 10000 is illegal here; legal: ", i + 1)
    ends = [j for j, x in enumerate(lines) if x["type"] == "decision" and x["name"] == "end turn"]
    j = ends[0]
    lines[i]["action"] = lines[j]["action"]   # "end turn" as the game's first decision
    lines[i]["name"] = lines[j]["name"]
    rejected(capsys, write(tmp_path, lines), f"action {lines[j]['action']} (end turn) is illegal here", i + 1)


@pytest.mark.parametrize("game", ["bw", "bv"])
def test_a_decision_out_of_place_is_rejected(capsys, tmp_path, request, game):
    orig = request.getfixturevalue(game)[1]
    i = first(orig, "decision")
    lines = copy.deepcopy(orig)
    lines[i]["name"] = "something else"
    rejected(capsys, write(tmp_path, lines), f"is named 'something else'; its name is {orig[i]['name']!r}", i + 1)
    lines = copy.deepcopy(orig)
    lines[i]["player"] = (orig[i]["player"] + 1) % orig[0]["players"]
    rejected(capsys, write(tmp_path, lines), f"the trace's player is {lines[i]['player']}, but the replayed game "
             f"waits for player {orig[i]['player']}", i + 1)
    lines = copy.deepcopy(orig)
    lines[i]["turn"] = 3
    rejected(capsys, write(tmp_path, lines), "turn 3 in the trace, but the replayed game is at turn 0", i + 1)
    lines = copy.deepcopy(orig)
    k = first(lines, "end")
    rejected(capsys, write(tmp_path, lines[:k] + [orig[i]] + lines[k:]), "after the game has ended", k + 1)


def test_bw_chance_outcomes_are_checked(capsys, tmp_path, bw):
    orig = bw[1]
    i = first(orig, "chance")
    assert orig[i]["name"].startswith("draw ")   # the first chance event is a malfunction drawn from the bag
    for o in (99, -1):
        lines = copy.deepcopy(orig)
        lines[i]["outcome"] = o
        rejected(capsys, write(tmp_path, lines), f"chance outcome {o} is impossible here", i + 1)
    # another malfunction still in the bag: possible, but not what the seed draws
    names = [kind_name(k) for k in range(24)]
    other = next(names.index(n) for n, c in orig[0]["position"]["bag"].items() if c and n != orig[i]["name"][5:])
    lines = copy.deepcopy(orig)
    lines[i].update(outcome=other, name=f"draw {names[other]}")
    rejected(capsys, write(tmp_path, lines), f"chance outcome {other} (draw {names[other]}) is not what seed 7, "
             f"game 0 draws here: {orig[i]['outcome']} ({orig[i]['name']})", i + 1)
    lines = copy.deepcopy(orig)
    lines[i]["name"] = "draw nothing"
    rejected(capsys, write(tmp_path, lines), "is named 'draw nothing'", i + 1)
    d = first(orig, "decision")
    lines = copy.deepcopy(orig)
    rejected(capsys, write(tmp_path, lines[:d] + [orig[i]] + lines[d:]), "a chance line where the replayed game "
             "waits for a decision", d + 1)


@pytest.mark.parametrize("game", ["bw", "bv"])
def test_positions_are_checked(capsys, tmp_path, request, game):
    orig = request.getfixturevalue(game)[1]
    i = first(orig, "position")
    lines = copy.deepcopy(orig)
    lines[i]["position"]["turn"] += 1
    rejected(capsys, write(tmp_path, lines), "the recorded position differs from the replayed game at turn: "
             f"trace {orig[i]['position']['turn'] + 1}, replay {orig[i]['position']['turn']}", i + 1)
    lines = copy.deepcopy(orig)
    lines[i]["position"]["player_state" if game == "bv" else "knowledge"] = []
    rejected(capsys, write(tmp_path, lines), "the recorded position differs from the replayed game", i + 1)
    rejected(capsys, write(tmp_path, orig[:i] + orig[i + 1:]), f"where the position after turn "
             f"{orig[i]['turn'] + 1} is due", i + 1)
    rejected(capsys, write(tmp_path, orig[:i + 1] + [orig[i]] + orig[i + 1:]), "a position line where no turn "
             "has ended", i + 2)


# ---- the decisions are the setup's policy's -----------------------------------------------------------
def _first_decision_not(lines, policy_lines):
    """The line number (1-based) of the first decision of `lines` that differs from `policy_lines`'s."""
    mine = [(i, x["action"]) for i, x in enumerate(lines) if x["type"] == "decision"]
    theirs = [x["action"] for x in policy_lines if x["type"] == "decision"]
    return next(i for (i, a), b in zip(mine, theirs) if a != b) + 1


def test_bw_a_policy_trace_replays_and_a_relabelled_one_does_not(capsys, tmp_path, bw):
    heur = bw_record(3, 1, None, "heuristic", 7, 0, None)
    good = write(tmp_path, heur)
    assert replay(capsys, good)[0] == 0
    write_trace(bw_record(3, 1, None, "search", 7, 0, None, budget=2), tmp_path / "s.jsonl")
    assert replay(capsys, tmp_path / "s.jsonl")[0] == 0
    # the random game with its setup claiming the heuristic: every decision is legal, but the first
    # one the heuristic would not make is named
    lines = copy.deepcopy(bw[1])
    for key in ("policy", "policy_label", "budget", "theta_hash"):
        lines[0][key] = heur[0][key]
    path = write(tmp_path, lines)
    err = rejected(capsys, path, "heuristic plays", _first_decision_not(lines, heur))
    assert "not the one the setup's policy makes" in err
    code = main(["replay", "--legal-only", str(path)])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "LOSE" in out


def test_bw_other_weights_are_named(capsys, tmp_path, bw):
    lines = copy.deepcopy(bw[1])
    lines[0]["theta_hash"] = "0123456789abcdef"
    path = write(tmp_path, lines)
    rejected(capsys, path, "theta_hash '0123456789abcdef', but this package's random has", 1)
    assert main(["replay", "--legal-only", str(path)]) == 0


def test_bv_a_relabelled_seat_is_named(capsys, tmp_path, bv):
    heur = bv_record(2, None, "random", 3, 0, None, ["heuristic", "random"])
    assert replay(capsys, write(tmp_path, heur))[0] == 0
    lines = copy.deepcopy(bv[1])
    lines[0]["policies"] = ["heuristic", "random"]
    lines[0]["theta_hashes"] = heur[0]["theta_hashes"]
    path = write(tmp_path, lines)
    rejected(capsys, path, "seat 1's policy heuristic plays", _first_decision_not(lines, heur))
    assert main(["replay", "--legal-only", str(path)]) == 0


def test_bv_other_weights_are_named(capsys, tmp_path, bv):
    lines = copy.deepcopy(bv[1])
    assert len(lines[0]["theta_hashes"]) == 2
    lines[0]["theta_hashes"][1] = "0123456789abcdef"
    path = write(tmp_path, lines)
    rejected(capsys, path, "seat 2's theta hash is '0123456789abcdef', but this package's random has", 1)
    assert main(["replay", "--legal-only", str(path)]) == 0
    del lines[0]["theta_hashes"]  # a trace from before the field: the decisions are still checked
    assert replay(capsys, write(tmp_path, lines))[0] == 0
