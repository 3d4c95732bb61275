"""Benevolent: recording one game as JSON Lines, and telling it back in plain words.

Lines: {"type": "setup", "game": "benevolent", "seed", "game_index", "players", "leaves", "policies",
"rules", "position"}, {"type": "decision", "turn", "player", "action", "name"}, {"type": "position",
"turn", "position"} after every turn and at the end, {"type": "end", "outcome", "winner", "turns"}.
There are no chance lines: all chance is in the setup position. The game recorded is game
`game_index` of `simulate` with the same seed.
"""
from __future__ import annotations

import numpy as np

from simcore.benevolent import engine as E
from simcore.benevolent.actions import ACTION_NAMES, N_ACTIONS
from simcore.benevolent.face import Game, setup_config
from simcore.benevolent.rules import rules_from_mapping
from simcore.errors import UserError

from .batch import MAX_PLAYERS, WS_SIZE, parse_policies, play_game

MAX_LOG = 1 << 16  # steps a trace can hold (a 200-round timeout takes far fewer)


def record_game(players=4, leaves=None, policy="random", seed=0, game_index=0, rules=None, policies=None):
    g = Game(players, leaves, seed, game_index, rules)
    names, pols, thetas = parse_policies(policy, policies, players)
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 3), dtype=np.int32)
    n = play_game(s, g.params, setup_config(players, g.leaves), np.uint64(seed), np.uint64(seed), game_index,
                  pols, thetas, np.zeros((MAX_PLAYERS, WS_SIZE), np.int32), np.zeros(N_ACTIONS, np.int32),
                  np.zeros(MAX_PLAYERS, np.uint64), np.zeros(MAX_PLAYERS, np.int64), log)
    if n >= MAX_LOG:
        raise RuntimeError("the game is longer than a trace can hold")
    lines = [{"type": "setup", "game": "benevolent", "seed": seed, "game_index": game_index, "players": players,
              "leaves": list(g.leaves), "policies": names, "rules": g.rules.to_dict(), "position": g.to_dict()}]
    for _, q, a in log[:n].tolist():
        turn = int(g.state[E.TURN])
        g.apply(a)  # checked: the arena's action must be legal on the Python face too
        lines.append({"type": "decision", "turn": turn, "player": q, "action": a, "name": ACTION_NAMES[a]})
        if g.is_terminal() or int(g.state[E.TURN]) != turn:
            lines.append({"type": "position", "turn": turn, "position": g.to_dict()})
    if not np.array_equal(g.state, s):
        raise RuntimeError("the replayed game differs from the arena's")
    d = g.to_dict()
    lines.append({"type": "end", "outcome": d["outcome"], "winner": d["winner"], "turns": d["turn"] + (d["outcome"] == "win")})
    return lines


def _gifts(pd):
    return ", ".join(f"{n} {g}" for g, n in pd["gifts"].items() if n) or "no gifts"


def replay_lines(lines):
    head = lines[0]
    rules = rules_from_mapping(_rules_mapping(head["rules"]), source="trace")
    g = Game.from_position(head["position"], rules)
    pos = head["position"]
    yield (f"Benevolent, {head['players']} players, starting leaves {head['leaves']}, policies "
           f"{','.join(head['policies'])}, seed {head['seed']}, game {head['game_index']}.")
    yield "Forest: " + ", ".join(f"hex {h['hex']} {h['type']}{' (gray)' if h['gray_footstep'] else ''}"
                                 for h in pos["forest"]["hexes"])
    yield "Secret triangle: " + ", ".join(f"slot {t['slot']}: {t['secret']}" for t in pos["triangle"])
    last = None
    for n, line in enumerate(lines[1:], start=2):
        kind = line.get("type")
        if kind == "decision":
            if line["turn"] != last:
                last = line["turn"]
                yield f"-- Turn {last + 1}: seat {line['player'] + 1}"
            before = g.to_dict()
            try:
                g.apply(int(line["action"]))
            except UserError as e:
                raise UserError(f"trace line {n}: {e}") from None
            after = g.to_dict()
            me = after["player_state"][line["player"]]
            yield f"   seat {line['player'] + 1} {_words(before, after, int(line['action']))} (now {me['leaves']} leaves; {_gifts(me)})"
        elif kind == "position":
            if g.to_dict() != line["position"]:
                raise UserError(f"trace line {n}: the recorded position differs from the replayed game")
        elif kind == "end":
            if line["outcome"] == "win":
                yield f"Seat {line['winner'] + 1} WINS with all five gifts after {line['turns']} turns."
            else:
                yield f"No winner: the game timed out after {line['turns']} turns."
        else:
            raise UserError(f"trace line {n}: unknown line type {kind!r}")


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

