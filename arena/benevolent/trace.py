"""Benevolent: recording one game as JSON Lines, and telling it back in plain words.

Lines: {"type": "setup", "game": "benevolent", "seed", "game_index", "players", "leaves", "policies",
"theta_hashes", "rules", "position"}, {"type": "decision", "turn", "player", "action", "name"}, {"type": "position",
"turn", "position"} after every turn and at the end, {"type": "end", "outcome", "winner", "turns"}.
There are no chance lines: all chance is in the setup position. The game recorded is game
`game_index` of `simulate` with the same seed. ``replay_lines`` sets the game up again from the
setup line and checks every line against it (see docs/benevolent.md, "Trace format").
"""
from __future__ import annotations

import numpy as np

from simcore.benevolent import GAME, engine as E
from simcore.benevolent.actions import ACTION_NAMES, N_ACTIONS
from simcore.benevolent.face import State, check_players, setup_config
from simcore.benevolent.rules import parse_leaves, rules_from_mapping
from simcore.errors import UserError

from ..cell import theta_hash
from ..trace import (check_decision, check_end, check_policy_decision, check_position, check_weights,
                                  first_difference, replayed_steps, trace_lines)
from .batch import MAX_PLAYERS, WS_SIZE, parse_policies, play_game, played_nets, seat_nets

MAX_LOG = 1 << 16  # steps a trace can hold (a 200-round timeout takes far fewer)


def _play_logged(g, seed, game_index, pols, thetas, nets=None):
    """Play the game set up in `g` through the arena's loop; return (its steps (k, 3), final state)
    (nets: each seat's network row; None: ``seat_nets(pols)``, the installed model's)."""
    if nets is None:
        nets = seat_nets(pols)
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 3), dtype=np.int32)
    n = play_game(s, g.params, setup_config(len(g.leaves), g.leaves), np.uint64(seed), np.uint64(seed), game_index,
                  pols, thetas, nets, np.zeros((MAX_PLAYERS, WS_SIZE), np.int32), np.zeros(N_ACTIONS, np.int32),
                  np.zeros(MAX_PLAYERS, np.uint64), np.zeros(MAX_PLAYERS, np.int64), log)
    if n >= MAX_LOG:
        raise RuntimeError("the game is longer than a trace can hold")
    return log[:n], s


def record_game(players=4, leaves=None, policy="random", seed=0, game_index=0, rules=None, policies=None,
                model_net=None, model=None):
    """Play one game; return its trace as a list of dicts (model_net: the network the learned and
    expert seats play instead of the installed model's, and `model` the model file it came from,
    which the setup line names)."""
    g = State(players, leaves, seed, game_index, rules)
    names, pols, thetas = parse_policies(policy, policies, players)
    nets = seat_nets(pols, model_net)
    log, s = _play_logged(g, seed, game_index, pols, thetas, nets)
    n = len(log)
    lines = [{"type": "setup", "game": GAME.name, "seed": seed, "game_index": game_index, "players": players,
              "leaves": list(g.leaves), "policies": names,
              "theta_hashes": _hashes(names, pols, thetas, nets),
              "rules": g.rules.to_dict(), "position": g.to_dict()}]
    if model is not None:
        lines[0]["model"] = model
    lines += replayed_steps(g, log[:n], s, E.TURN, ACTION_NAMES)   # (no chance steps: Benevolent's log holds decisions)
    d = g.to_dict()
    lines.append({"type": "end", "outcome": d["outcome"], "winner": d["winner"], "turns": d["turn"] + (d["outcome"] == "win")})
    return lines


def _gifts(pd):
    return ", ".join(f"{n} {g}" for g, n in pd["gifts"].items() if n) or "no gifts"


def _hashes(names, pols, thetas, nets):
    """Each seat's theta hash (its network's numbers included where its policy reads one)."""
    return [theta_hash(thetas[q], net) for q, net in enumerate(played_nets(pols[:len(names)], nets))]


def replay_lines(lines, source="trace", numbers=None, legal_only=False, model_net=None):
    """Re-play a trace on the engine, checking every line against the replayed game, and yield its story.

    ``lines``: the trace's JSON objects (``read_trace``); ``numbers``: their line numbers in the
    file (default 1, 2, ...); ``source``: the file's name, for the errors. Checked: the setup
    fields (players, leaves, policies, seed, game index, rules) and the setup position against the
    one the seed sets up; every decision's turn, seat, legality and name, and that it is the one
    the seat's policy makes there (``legal_only`` skips this and accepts any legal decision); a
    position line after every turn, equal to the replayed position; and the end line's fields against the replayed
    result. Anything else is a UserError naming the file, the line and what is wrong. ``model_net``:
    the network the learned and expert seats play instead of the installed model's (``replay
    --model``)."""
    tl = trace_lines(lines, source, numbers)
    g, head = _replay_setup(tl[0])
    pos = head["position"]
    moves = None
    if not legal_only:  # the decisions the seats' policies make in this game, played again from the seed
        names, pols, thetas = parse_policies(None, head["policies"], head["players"])
        nets = seat_nets(pols, model_net)      # replay --model
        _check_theta_hashes(tl[0], _hashes(names, pols, thetas, nets))
        log, _ = _play_logged(g, head["seed"], head["game_index"], pols, thetas, nets)
        moves = [a for _, _, a in log.tolist()]
    k = 0  # decisions checked so far
    yield (f"Benevolent, {head['players']} players, starting leaves {head['leaves']}, policies "
           f"{','.join(head['policies'])}, seed {head['seed']}, game {head['game_index']}.")
    yield "Forest: " + ", ".join(f"hex {h['hex']} {h['type']}{' (gray)' if h['gray_footstep'] else ''}"
                                 for h in pos["forest"]["hexes"])
    yield "Secret triangle: " + ", ".join(f"slot {t['slot']}: {t['secret']}" for t in pos["triangle"])
    last = None
    pending = None  # the turn that ended with the last decision: its position line comes next
    for i, line in enumerate(tl[1:], start=1):
        kind = line.kind
        if kind not in ("decision", "position", "end"):
            raise line.error(f"unknown line type {kind!r}; a Benevolent trace has setup, decision, position "
                             f"and end lines")
        if pending is not None and kind != "position":
            raise line.error(f"a {kind} line where the position after turn {pending + 1} is due")
        if kind == "decision":
            turn, q, a, name = line.int("turn"), line.int("player"), line.int("action"), line.str("name")
            if g.is_terminal():
                raise line.error(f"a decision after the game has ended ({g.to_dict()['outcome']}; the end line is due)")
            if turn != int(g.state[E.TURN]):
                raise line.error(f"turn {turn} in the trace, but the replayed game is at turn {int(g.state[E.TURN])}")
            check_decision(line, g, q, a, name, ACTION_NAMES)
            if moves is not None:
                check_policy_decision(line, moves, k, a, ACTION_NAMES, f"seat {q + 1}'s policy {head['policies'][q]}")
                k += 1
            if turn != last:
                last = turn
                yield f"-- Turn {last + 1}: seat {q + 1}"
            before = g.to_dict()
            g.apply(a)
            after = g.to_dict()
            me = after["player_state"][q]
            yield f"   seat {q + 1} {_words(before, after, a)} (now {me['leaves']} leaves; {_gifts(me)})"
            if g.is_terminal() or int(g.state[E.TURN]) != turn:
                pending = turn
        elif kind == "position":
            check_position(line, pending, g)
            pending = None
        else:  # end
            d = g.to_dict()
            if not g.is_terminal():
                raise line.error(f"the trace ends before the game does (the end line comes at turn {d['turn'] + 1}, "
                                 f"phase {d['phase']}, of the replayed game)")
            winner = line.obj.get("winner") if line.obj.get("winner") is None else line.int("winner")
            check_end(tl, i, (("outcome", line.str("outcome"), d["outcome"]), ("winner", winner, d["winner"]),
                              ("turns", line.int("turns"), d["turn"] + (d["outcome"] == "win"))))
            if line.obj["outcome"] == "win":
                yield f"Seat {line.obj['winner'] + 1} WINS with all five gifts after {line.obj['turns']} turns."
            else:
                yield f"No winner: the game timed out after {line.obj['turns']} turns."
            return
    raise tl[-1].error("the trace ends before the game does (no end line)")


def _check_theta_hashes(line, ours):
    """The setup's theta_hashes (one per seat; traces before 2026-11-30 have none) against this
    package's, `ours`, for the same policies."""
    if "theta_hashes" not in line.obj:
        return
    theirs = line.get("theta_hashes", list)
    for q, (name, h) in enumerate(zip(line.obj["policies"], theirs)):
        check_weights(line, f"seat {q + 1}'s theta hash is", h, name, ours[q])
    if len(theirs) != len(line.obj["policies"]):
        raise line.error(f"setup: {len(theirs)} theta_hashes for {len(line.obj['policies'])} seats")


def _replay_setup(line):
    """Check a Benevolent setup line; return (the game the seed sets up, the line's dict)."""
    if line.kind != "setup" or line.obj.get("game") != GAME.name:
        raise line.error("not a Benevolent trace: the first line must be its setup")
    seed, gi = line.seed_and_game()
    players = line.int("players")
    leaves, policies = line.get("leaves", list), line.get("policies", list)
    try:
        check_players(players)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in leaves):
            raise UserError(f"leaves {leaves}: expected whole numbers, one per seat")
        parse_leaves(leaves, players)
        if not all(isinstance(x, str) for x in policies):
            raise UserError(f"policies {policies}: expected policy names, one per seat")
        parse_policies(None, policies, players)
    except UserError as e:
        raise line.error(f"setup: {str(e).replace('--', '')}") from None
    rules = line.rules(lambda d, source: rules_from_mapping(_rules_mapping(d), source=source))
    pos = line.dict("position")
    seats = pos.get("player_state")
    if not isinstance(seats, list) or len(seats) != players:
        raise line.error(f"setup: players is {players} but the position has "
                         f"{len(seats) if isinstance(seats, list) else 'no list of'} seats")
    start = [p.get("starting_leaves") if isinstance(p, dict) else None for p in seats]
    if start != leaves:
        raise line.error(f"setup: leaves {leaves} differ from the starting leaves in the position, {start}")
    g = State(players, leaves, seed, gi, rules)
    diff = first_difference(pos, g.to_dict())
    if diff:
        raise line.error(f"the setup position is not the one seed {seed}, game {gi} sets up with {players} players "
                         "and leaves {}: at {} trace {}, replay {}".format(leaves, *diff))
    return g, line.obj


def _words(before, after, a):
    name = ACTION_NAMES[a]
    if before["phase"] == "action" and name not in ("end turn",) and not name.startswith(("gather", "resolve")):
        h = before["turn_state"]["entered_hex"]
        return f"on the {before['forest']['hexes'][h]['type']}: {name}"
    if name.startswith(("place", "move")):
        h = after["turn_state"]["entered_hex"]
        return f"{name} ({after['forest']['hexes'][h]['type']})"
    return name


def _rules_mapping(d):
    return {"sides": d["sides"], "gray": d["gray"], "layouts": d["layouts"], "dream_path": d["dream_path"],
            "exchange_tiles": d["exchange_tiles"], "timeout_rounds": d["timeout_rounds"],
            **{k: d[k] for k in ("secret_pairs", "switches") if k in d}}

