"""Bethel Woods: recording one game as a JSON Lines trace, and telling it back in plain words.

Trace lines (one JSON object each; the format is documented in docs/bethel_woods.md):
    {"type": "setup", "game": "bethel_woods", "seed", "game_index", "players", "spies",
     "policy", "rules", "position"}
    {"type": "decision", "turn", "player", "action", "name"}
    {"type": "chance", "turn", "outcome", "name"}   a malfunction drawn, a tile or a spy revealed
    {"type": "position", "turn", "position"}      after every player's turn (and at the end)
    {"type": "end", "outcome", "turns", "daydreamer_built"}

Positions show only what the players know (a tile is named once revealed; the spy stack is a
count of unseen spies and the known list of uncovered ones); hidden things appear as chance lines
when they are revealed. ``record_game`` plays game ``game_index`` of a batch run with the same
seed through the same compiled play loop (``batch.play_game``), logging its steps, and then
replays the steps on the Python face to write the positions.

``replay_lines`` sets the game up again from the setup line (seed, game index, players, spies,
characters, rules) and checks every line against it: the setup position, each decision's
legality, each chance outcome against the one the seed draws, each position, and the end line's
result; anything else is a one-line UserError naming the file and the line. The reading and
checking helpers both games use (``read_trace``, ``TraceLine``, ``check_decision``, ...) are in
``arena.trace``.
"""
from __future__ import annotations

import numpy as np

from simcore.bethel_woods import GAME, engine as E
from simcore.bethel_woods.actions import (
    A_DROP, A_ENTER, A_FIX, A_PAY, A_PICK, A_SELECT, ACTION_NAMES, N_ACTIONS, PH_CHANCE_MALF, PH_CHANCE_TILE,
    PHASES, chance_name, kind_name,
)
from simcore.bethel_woods.face import State, check_setup_args, setup_config
from simcore.bethel_woods.rules import CHARACTERS, MAX_PLAYERS, TYPES, WORKERS, rules_from_mapping
from simcore.errors import UserError

from ..cell import theta_hash
from ..trace import (check_decision, check_end, check_policy_decision, check_position, check_weights,
                     first_difference, replayed_steps, trace_lines)
from .batch import LOG_CHANCE, WS_SIZE, play_game, played_budget, played_nets, policy_label, seat_nets, seat_policies

MAX_LOG = 1 << 16  # steps a trace can hold (a game ends within 79 turns, far fewer steps)


def play_logged(players, spies, chars, policy, seed, game_index, rules, policy_seed=None, budget=None, theta=None,
                net=None):
    """Play one game through the arena's loop; return (its steps as an int array (k, 3), final state)
    (theta: the policy's vector instead of its own; net: the learned and expert players' network
    instead of the installed model's, e.g. a model file's)."""
    pols, thetas = seat_policies(policy, players, theta, budget=budget)
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 3), dtype=np.int32)
    n = play_game(s, rules.params, setup_config(players, spies, chars), np.uint64(seed),
                  np.uint64(seed if policy_seed is None else policy_seed), game_index, pols, thetas, seat_nets(pols, net),
                  np.zeros((MAX_PLAYERS, WS_SIZE), np.int32), np.zeros(N_ACTIONS, np.int32),
                  np.zeros(MAX_PLAYERS, np.uint64), np.zeros(MAX_PLAYERS, np.int64), log)
    if n >= MAX_LOG:
        raise RuntimeError("the game is longer than a trace can hold")
    return log[:n], s


def record_game(players=3, spies=0, characters=None, policy="random", seed=0, game_index=0, rules=None,
                budget=None, theta=None, net=None, model=None):
    """Play one game; return its trace as a list of dicts (budget: the search's rollouts per decision;
    theta: the policy's vector instead of its own; net: the learned and expert players' network
    instead of the installed model's, and `model` the model file it came from, which the setup line
    names)."""
    g = State(players, spies, characters, seed, game_index, rules)
    chars = [int(c) for c in g.state[E.CHAR:E.CHAR + players]] if characters is not None else None
    steps, final = play_logged(players, spies, chars, policy, seed, game_index, g.rules, budget=budget, theta=theta,
                               net=net)
    lines = [{"type": "setup", "game": GAME.name, "seed": seed, "game_index": game_index,
              "players": players, "spies": spies, "policy": policy,
              "policy_label": policy_label(policy, budget), "budget": played_budget(policy, budget),
              "theta_hash": _hash(policy, players, theta, budget, net), "rules": g.rules.to_dict(), "position": g.to_dict()}]
    if model is not None:
        lines[0]["model"] = model
    lines += replayed_steps(g, steps, final, E.TURN, ACTION_NAMES, LOG_CHANCE)
    lines.append({"type": "end", "outcome": g.outcome, "turns": int(g.state[E.TURN]) + 1,
                  "daydreamer_built": int(E.orphanage_count(g.state))})
    return lines


def _who(pos, q):
    return f"player {q + 1} ({pos['characters'][q]})"


def describe_decision(before, after, a):
    """A plain-words sentence for decision a, from the positions before and after it."""
    ts = before["turn_state"]
    if A_PICK <= a < A_DROP:
        m = a // 2
        hand = ", ".join(f"{n} {w}{'s' if n != 1 else ''}" for w, n in after["turn_state"]["hand"].items() if n)
        return f"picks up {hand} from Machine {m + 1} and heads {'clockwise' if a % 2 == 0 else 'anticlockwise'}"
    if A_DROP <= a < A_ENTER:
        w = WORKERS[a - A_DROP]
        return f"drops {'an' if w[0] in 'AEIOU' else 'a'} {w} on Machine {after['turn_state']['position']}"
    if a == A_ENTER or a == A_ENTER + 1:
        w = [w for w, n in ts["hand"].items() if n][0]
        nova = " using Nova's ability" if a != A_ENTER else ""
        return f"sends the {w} into Orphanage section {ts['position']}{nova}"
    if A_FIX <= a < A_FIX + 24:
        return f"fixes a malfunction {kind_name(a - A_FIX)} on Machine {ts['position']} (it becomes knowledge)"
    if A_PAY <= a < A_SELECT:
        pay = before["payment"]
        to = "the discard pile" if pay["to"] is None else f"player {pay['to'] + 1}"
        return f"hands knowledge {kind_name(a - A_PAY)} to {to} (for: {pay['then'].replace('_', ' ')})"
    if A_SELECT <= a < A_SELECT + 24:
        i = a - A_SELECT
        if before["phase"] == "harris_from":
            return f"takes the {WORKERS[before['ability_args'][0]]} from Machine {i + 1}"
        if before["phase"] == "harris_to":
            return f"puts it on Machine {i + 1}"
        return f"removes a malfunction M{before['ability_args'][0] + 1} {TYPES[i % 4]} from Machine {i // 4 + 1}"
    words = {"stop fixing": "stops fixing", "end turn": "ends the turn"}
    return words.get(ACTION_NAMES[a], "uses " + ACTION_NAMES[a])


def _hash(policy, players, theta, budget, net):
    """The theta hash of the policy as it plays (its network's numbers included where it reads one)."""
    pols, thetas = seat_policies(policy, players, theta, budget=budget)
    return theta_hash(thetas[0], played_nets(pols, seat_nets(pols, net))[0])


def replay_lines(lines, source="trace", numbers=None, legal_only=False, model_net=None):
    """Re-play a trace on the engine, checking every line against the replayed game, and yield its story.

    ``lines``: the trace's JSON objects (``read_trace``); ``numbers``: their line numbers in the
    file (default 1, 2, ...); ``source``: the file's name, for the errors. Checked: the setup
    fields (players, spies, seed, game index, policy and budget, rules) and the setup position
    against the one the seed sets up; every decision's turn, seat, legality and name, and that it
    is the decision the setup's policy makes there (its ``theta_hash`` must be this package's;
    ``legal_only`` skips these two checks and accepts any legal decision); every chance outcome
    against the one the seed draws; a position line after every turn, equal to the replayed
    position; and the end line's fields against the replayed result. Anything else is a UserError
    naming the file, the line and what is wrong. ``model_net``: the network the learned and expert
    players play instead of the installed model's (``replay --model``)."""
    tl = trace_lines(lines, source, numbers)
    g, head = _replay_setup(tl[0])
    pos = head["position"]
    policy_moves = None if legal_only else _policy_decisions(tl[0], g, model_net)
    k = 0  # decisions checked so far
    yield (f"Bethel Woods, {head['players']} players ({', '.join(pos['characters'])}), {head['spies']} {'spy' if head['spies'] == 1 else 'spies'} "
           f"at setup, policy {head.get('policy_label', head['policy'])}, seed {head['seed']}, game {head['game_index']}.")
    st = pos["spy_stack"]
    yield (f"The critical tiles lie face down; the spy stack holds {st['unseen']} unseen spies"
           + (f" above spies {st['returned']}" if st["returned"] else "")
           + f". Player {pos['first_player'] + 1} starts.")
    yield _board_line(pos)
    last_turn = None
    pending = None  # the turn that ended with the last step: its position line comes next
    seed, gi = head["seed"], head["game_index"]
    for i, line in enumerate(tl[1:], start=1):
        kind = line.kind
        if kind not in ("decision", "chance", "position", "end"):
            raise line.error(f"unknown line type {kind!r}; a Bethel Woods trace has setup, decision, chance, "
                             f"position and end lines")
        if pending is not None and kind != "position":
            raise line.error(f"a {kind} line where the position after turn {pending + 1} is due")
        if kind in ("decision", "chance"):
            turn = line.int("turn")
            if g.is_terminal():
                raise line.error(f"a {kind} line after the game has ended ({g.outcome}; the end line is due)")
            if turn != int(g.state[E.TURN]):
                raise line.error(f"turn {turn} in the trace, but the replayed game is at turn {int(g.state[E.TURN])}")
            if kind == "decision" and g.is_chance():
                raise line.error(f"a decision where the replayed game draws a chance event ({g.phase})")
            if kind == "chance" and not g.is_chance():
                raise line.error(f"a chance line where the replayed game waits for a decision ({g.phase})")
            if turn != last_turn:
                last_turn = turn
                yield f"-- Turn {last_turn + 1}: {_who(pos, int(g.state[E.CUR]))}"
        if kind == "decision":
            q, a, name = line.int("player"), line.int("action"), line.str("name")
            check_decision(line, g, q, a, name, ACTION_NAMES)
            if policy_moves is not None:
                check_policy_decision(line, policy_moves, k, a, ACTION_NAMES, head.get("policy_label", head["policy"]))
                k += 1
            before = g.to_dict()
            g.apply(a)
            yield f"   {_who(pos, q)} {describe_decision(before, g.to_dict(), a)}"
        elif kind == "chance":
            o, name = line.int("outcome"), line.str("name")
            probs = g.chance_probabilities()
            if not 0 <= o < len(probs) or probs[o] <= 0:
                raise line.error(f"chance outcome {o} is impossible here ({g.phase})")
            phase = int(g.state[E.PHASE])
            drawn = g.sample_chance()
            if o != drawn:
                raise line.error(f"chance outcome {o} ({chance_name(phase, o)}) is not what seed {seed}, game {gi} "
                                 f"draws here: {drawn} ({chance_name(phase, drawn)})")
            if name != chance_name(phase, o):
                raise line.error(f"chance outcome {o} is named {name!r}; its name is {chance_name(phase, o)!r}")
            before = g.to_dict()
            g.apply_chance(o)
            yield "   " + _chance_words(before, g.to_dict(), o)
        elif kind == "position":
            check_position(line, pending, g)
            pending = None
            yield "   " + _board_line(line.obj["position"])
        elif kind == "end":
            if not g.is_terminal():
                raise line.error(f"the trace ends before the game does (the end line comes at turn "
                                 f"{int(g.state[E.TURN]) + 1}, phase {g.phase}, of the replayed game)")
            check_end(tl, i, (("outcome", line.str("outcome"), g.outcome),
                              ("turns", line.int("turns"), int(g.state[E.TURN]) + 1),
                              ("daydreamer_built", line.int("daydreamer_built"), int(E.orphanage_count(g.state)))))
            won = line.obj["outcome"] == "win"
            yield (f"The players {'WIN' if won else 'LOSE (' + line.obj['outcome'].replace('_', ' ') + ')'} "
                   f"after {line.obj['turns']} turns with {line.obj['daydreamer_built']} of 6 Daydreamer pieces.")
            return
        if kind in ("decision", "chance") and (g.is_terminal() or int(g.state[E.TURN]) != turn):
            pending = turn
    raise tl[-1].error("the trace ends before the game does (no end line)")


def _replay_setup(line):
    """Check a Bethel Woods setup line; return (the game the seed sets up, the line's dict)."""
    if line.kind != "setup" or line.obj.get("game") != GAME.name:
        raise line.error("not a Bethel Woods trace: the first line must be its setup")
    seed, gi = line.seed_and_game()
    players, spies, policy = line.int("players"), line.int("spies"), line.str("policy")
    budget = line.obj.get("budget")
    try:
        check_setup_args(players, spies)
        seat_policies(policy, players, budget=None if budget is None else line.int("budget"))
    except UserError as e:
        raise line.error(f"setup: {e}") from None
    label = policy_label(policy, budget)
    if "policy_label" in line.obj and line.str("policy_label") != label:
        raise line.error(f"setup: policy_label {line.obj['policy_label']!r} is not policy {policy!r} with "
                         f"budget {budget}, which is {label!r}")
    if "theta_hash" in line.obj:
        line.str("theta_hash")
    rules = line.rules(rules_from_mapping)
    pos = line.dict("position")
    chars = pos.get("characters")
    if not isinstance(chars, list) or not all(isinstance(c, str) for c in chars):
        raise line.error("setup: the position's characters must be a list of names")
    if len(chars) != players:
        raise line.error(f"setup: players is {players} but the position lists {len(chars)} characters")
    bad = [c for c in chars if c not in CHARACTERS]
    if bad or len(set(chars)) != len(chars):
        raise line.error(f"setup: characters {', '.join(chars)}: each must be one of {', '.join(CHARACTERS)}, "
                         f"dealt once")
    g = State(players, spies, [CHARACTERS.index(c) for c in chars], seed, gi, rules)
    diff = first_difference(pos, g.to_dict())
    if diff:
        raise line.error(f"the setup position is not the one seed {seed}, game {gi} sets up with {players} players "
                         "and {} {}: at {} trace {}, replay {}".format(
                             spies, "spy" if spies == 1 else "spies", *diff))
    return g, line.obj


def _policy_decisions(line, g, net=None):
    """The decisions the setup line's policy makes in its game (the arena plays it again from the
    seed; net: the network instead of the installed model's), as a list of actions; a UserError
    when the trace's theta_hash is not this package's."""
    head = line.obj
    players, policy, budget = head["players"], head["policy"], head.get("budget")
    if "theta_hash" in head:
        check_weights(line, "theta_hash", head["theta_hash"], policy_label(policy, budget),
                      _hash(policy, players, None, budget, net))
    chars = [int(c) for c in g.state[E.CHAR:E.CHAR + players]]
    steps, _ = play_logged(players, head["spies"], chars, policy, head["seed"], head["game_index"], g.rules,
                           budget=budget, net=net)
    return [a for kind, _, a in steps.tolist() if kind != LOG_CHANCE]


def _chance_words(before, after, o):
    if before["phase"] == PHASES[PH_CHANCE_MALF]:
        where = [m["machine"] for m, mb in zip(after["machines"], before["machines"])
                 if m["malfunctions"] != mb["malfunctions"]]
        if not where:
            return f"Malfunction {kind_name(o)} drawn: Rone's protection sends it to the discard pile"
        crit = [m["machine"] for m, mb in zip(after["machines"], before["machines"])
                if m["critical_face_up"] and not mb["critical_face_up"]]
        s = f"Malfunction {kind_name(o)} drawn and placed on Machine {where[0]}"
        if where[0] != o // 4 + 1:
            s += " (redirected)"
        if crit:
            tile = after["machines"][crit[0] - 1]["critical_tile"]
            if tile is None:
                s += f"; Machine {crit[0]} goes critical: its tile turns face up"
            else:
                s += f"; Machine {crit[0]} goes critical: tile '{tile}' turns face up again"
        return s
    if before["phase"] == PHASES[PH_CHANCE_TILE]:
        m = before["placement"]["tile_reveal"]["machine"]
        return f"The tile beside Machine {m} is revealed: '{after['machines'][m - 1]['critical_tile']}'"
    return f"A machine went critical, so spy {o + 1} is revealed and placed on Machine {o + 1}"


def _board_line(pos):
    parts = []
    for m in pos["machines"]:
        n = sum(m["malfunctions"].values())
        flag = "!" if m["critical_face_up"] else ""
        spy = "+spy" if m["spy"] else ""
        parts.append(f"M{m['machine']}:{n}{spy}{flag}")
    know = " ".join(f"P{q + 1}:{sum(k.values())}" for q, k in enumerate(pos["knowledge"]))
    return (f"Board {' '.join(parts)} | bag {sum(pos['bag'].values())} | Daydreamer {pos['daydreamer_built']}/6 "
            f"| knowledge {know}")
