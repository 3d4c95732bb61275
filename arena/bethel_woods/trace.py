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
"""
from __future__ import annotations

import json

import numpy as np

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import (
    A_DROP, A_ENTER, A_FIX, A_PAY, A_PICK, A_SELECT, ACTION_NAMES, N_ACTIONS, PH_CHANCE_MALF, PH_CHANCE_TILE,
    PHASES, kind_name,
)
from simcore.bethel_woods.face import Game, setup_config
from simcore.bethel_woods.rules import MAX_PLAYERS, TYPES, WORKERS, rules_from_mapping
from simcore.errors import UserError

from .batch import LOG_CHANCE, WS_SIZE, play_game, played_budget, policy_label, seat_policies

MAX_LOG = 1 << 16  # steps a trace can hold (a game ends within 79 turns, far fewer steps)


def play_logged(players, spies, chars, policy, seed, game_index, rules, policy_seed=None, budget=None):
    """Play one game through the arena's loop; return (its steps as an int array (k, 3), final state)."""
    pols, thetas = seat_policies(policy, players, budget=budget)
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 3), dtype=np.int32)
    n = play_game(s, rules.params, setup_config(players, spies, chars), np.uint64(seed),
                  np.uint64(seed if policy_seed is None else policy_seed), game_index, pols, thetas,
                  np.zeros((MAX_PLAYERS, WS_SIZE), np.int32), np.zeros(N_ACTIONS, np.int32),
                  np.zeros(MAX_PLAYERS, np.uint64), np.zeros(MAX_PLAYERS, np.int64), log)
    if n >= MAX_LOG:
        raise RuntimeError("the game is longer than a trace can hold")
    return log[:n], s


def record_game(players=3, spies=0, characters=None, policy="random", seed=0, game_index=0, rules=None,
                budget=None):
    """Play one game; return its trace as a list of dicts (budget: the search's rollouts per decision)."""
    g = Game(players, spies, characters, seed, game_index, rules)
    chars = [int(c) for c in g.state[E.CHAR:E.CHAR + players]] if characters is not None else None
    steps, final = play_logged(players, spies, chars, policy, seed, game_index, g.rules, budget=budget)
    from ..units import theta_hash
    _, thetas = seat_policies(policy, players, budget=budget)
    lines = [{"type": "setup", "game": "bethel_woods", "seed": seed, "game_index": game_index,
              "players": players, "spies": spies, "policy": policy,
              "policy_label": policy_label(policy, budget), "budget": played_budget(policy, budget),
              "theta_hash": theta_hash(thetas[0]), "rules": g.rules.to_dict(), "position": g.to_dict()}]
    for kind, q, a in steps.tolist():
        turn = int(g.state[E.TURN])
        if kind == LOG_CHANCE:
            o, name = g.apply_chance(a)
            lines.append({"type": "chance", "turn": turn, "outcome": o, "name": name})
        else:
            g.apply(a)  # checked: the arena's action must be legal on the Python face too
            lines.append({"type": "decision", "turn": turn, "player": q, "action": a, "name": ACTION_NAMES[a]})
        if g.is_terminal() or int(g.state[E.TURN]) != turn:
            lines.append({"type": "position", "turn": turn, "position": g.to_dict()})
    if not np.array_equal(g.state, final):
        raise RuntimeError("the replayed game differs from the arena's")
    lines.append({"type": "end", "outcome": g.outcome, "turns": int(g.state[E.TURN]) + 1,
                  "daydreamer_built": int(E.orphanage_count(g.state))})
    return lines


def write_trace(lines, path):
    """Write a trace atomically: nothing is left half-written if it fails."""
    from arena.outfiles import atomic_open
    with atomic_open(path, "w", what="the trace") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")


def _who(pos, q):
    return f"player {q + 1} ({pos['characters'][q]})"


def describe_decision(before, after, a):
    """A plain-words sentence for decision a, from the positions before and after it."""
    ts = before["turn_state"]
    if A_PICK <= a < A_DROP:
        m = a // 2
        hand = ", ".join(f"{n} {w}" for w, n in after["turn_state"]["hand"].items() if n)
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


def replay_lines(lines):
    """Re-play a trace on the engine, checking every recorded position, and yield its story.

    Raises UserError if the trace is malformed or does not match the rules it names."""
    if not lines or lines[0].get("type") != "setup" or lines[0].get("game") != "bethel_woods":
        raise UserError("not a Bethel Woods trace: the first line must be its setup")
    head = lines[0]
    rules = rules_from_mapping(head["rules"], source="trace")
    g = Game.from_position(head["position"], rules)
    pos = head["position"]
    yield (f"Bethel Woods, {head['players']} players ({', '.join(pos['characters'])}), {head['spies']} spies "
           f"at setup, policy {head.get('policy_label', head['policy'])}, seed {head['seed']}, game {head['game_index']}.")
    st = pos["spy_stack"]
    yield (f"The critical tiles lie face down; the spy stack holds {st['unseen']} unseen spies"
           + (f" above spies {st['returned']}" if st["returned"] else "")
           + f". Player {pos['first_player'] + 1} starts.")
    yield _board_line(pos)
    last_turn = None
    for n, line in enumerate(lines[1:], start=2):
        kind = line.get("type")
        if kind in ("decision", "chance") and line["turn"] != last_turn:
            last_turn = line["turn"]
            q = int(g.state[E.CUR])
            yield f"-- Turn {last_turn + 1}: {_who(pos, q)}"
        if kind == "decision":
            before = g.to_dict()
            try:
                g.apply(int(line["action"]))
            except UserError as e:
                raise UserError(f"trace line {n}: {e}") from None
            yield f"   {_who(pos, line['player'])} {describe_decision(before, g.to_dict(), int(line['action']))}"
        elif kind == "chance":
            before = g.to_dict()
            try:
                g.apply_chance(int(line["outcome"]))
            except UserError as e:
                raise UserError(f"trace line {n}: {e}") from None
            after = g.to_dict()
            yield "   " + _chance_words(before, after, int(line["outcome"]))
        elif kind == "position":
            if g.to_dict() != line["position"]:
                raise UserError(f"trace line {n}: the recorded position differs from the replayed game")
            yield "   " + _board_line(line["position"])
        elif kind == "end":
            won = line["outcome"] == "win"
            yield (f"The players {'WIN' if won else 'LOSE (' + line['outcome'].replace('_', ' ') + ')'} "
                   f"after {line['turns']} turns with {line['daydreamer_built']} of 6 Daydreamer pieces.")
        else:
            raise UserError(f"trace line {n}: unknown line type {kind!r}")


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


def read_trace(path):
    """The lines of a trace file (either game); UserError for a missing or malformed file."""
    lines = []
    try:
        with open(path) as f:
            for n, raw in enumerate(f, start=1):
                if raw.strip():
                    try:
                        lines.append(json.loads(raw))
                    except json.JSONDecodeError as e:
                        raise UserError(f"{path} line {n} is not JSON: {e.msg}") from None
    except OSError as e:
        raise UserError(f"cannot read the trace {str(path)!r}: {e.strerror}") from None
    return lines

