"""One short game of every policy of both games through the arena's loops, with the decisions
and chance outcomes logged: tests/test_uncompiled.py plays them uncompiled (NUMBA_DISABLE_JIT=1)
and in a compiled subprocess and compares. The searches play at small budgets (the code paths are
the same at any budget; plain Python is slow)."""
import json
import sys

import numpy as np



def _small():
    from policies.benevolent import learned as BL
    from policies.benevolent.search import T_BUDGET as BV_BUDGET
    from policies.bethel_woods import learned as WL
    from policies.bethel_woods.search import T_BUDGET as BW_BUDGET, T_CANDIDATES
    # two plans compared by a rollout each (search: budget 2 over 2 candidates)
    return {"bethel_woods": {"search": {BW_BUDGET: 2}, "clairvoyant": {T_CANDIDATES: 2},
                             "expert": {WL.T_M: 2, WL.T_BUDGET: 2}, DIAL: {WL.T_TEMP: 0.03}},
            "benevolent": {"search": {BV_BUDGET: 2}, "expert": {BL.T_M: 2, BL.T_REPS: 1, BL.T_HMAX: 4},
                           DIAL: {BL.T_TEMP: 0.03}}}


DIAL = "learned@0.03"   # the learned player with the skill dial turned (its draw from the policy's key)

def names(game):
    """Every policy of the game (policies.POLICIES), and the learned player on the skill dial."""
    from policies import POLICIES
    return tuple(POLICIES[game]) + (DIAL,)


def _policy(name):
    return "learned" if name == DIAL else name


def bethel_woods(name, players, spies, seed, game_index):
    from arena.bethel_woods.batch import WS_SIZE, play_game, seat_nets, seat_policies
    from simcore.bethel_woods import engine as E
    from simcore.bethel_woods.actions import N_ACTIONS
    from simcore.bethel_woods.face import setup_config
    from simcore.bethel_woods.rules import MAX_PLAYERS, Rules
    pols, thetas = seat_policies(_policy(name), players)
    for i, v in _small()["bethel_woods"].get(name, {}).items():
        thetas[:, i] = v
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    log = np.zeros((1 << 16, 3), dtype=np.int32)
    n = play_game(s, Rules().params, setup_config(players, spies, None), np.uint64(seed), np.uint64(seed),
                  game_index, pols, thetas, seat_nets(pols), np.zeros((MAX_PLAYERS, WS_SIZE), np.int32), np.zeros(N_ACTIONS, np.int32),
                  np.zeros(MAX_PLAYERS, np.uint64), np.zeros(MAX_PLAYERS, np.int64), log)
    return log[:n].tolist(), s.tolist()


def benevolent(name, players, seed, game_index, rounds=None):
    """`name` in every seat but the last, which plays the heuristic (a mixed table); `rounds`: a
    timeout after that many rounds (a shorter game)."""
    from simcore.benevolent.rules import rules_from_mapping
    from arena.benevolent.batch import parse_policies
    from arena.benevolent.trace import _play_logged
    from simcore.benevolent.face import State
    seats = [_policy(name)] * (players - 1) + ["heuristic"]
    _, pols, thetas = parse_policies(None, seats, players)
    for i, v in _small()["benevolent"].get(name, {}).items():
        thetas[:players - 1, i] = v
    rules = rules_from_mapping({"timeout_rounds": rounds}) if rounds else None
    log, s = _play_logged(State(players, None, seed, game_index, rules), seed, game_index, pols, thetas)
    return log.tolist(), s.tolist()


def play(game, name):
    """The games of one policy: two setups (player counts, spies), the searches one short game."""
    slow = name in _small()[game]
    if game == "bethel_woods":
        setups = ((2, 0),) if slow else ((2, 0), (4, 3))
        return [bethel_woods(name, players, spies, 3, g) for g, (players, spies) in enumerate(setups)]
    return [benevolent(name, players, 3, g, 8 if slow else None) for g, players in enumerate((3,) if slow else (2, 4))]


def play_all():
    """{game: {policy: games}} for every policy of both games (policies.POLICIES) and the dial."""
    return {game: {name: play(game, name) for name in names(game)} for game in ("bethel_woods", "benevolent")}


if __name__ == "__main__":
    json.dump(play_all(), sys.stdout)
