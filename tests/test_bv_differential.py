"""Benevolent: the compiled engine against the reference engine, position and legal actions
compared at every step of 845 seeded games (uniform random and an exploring policy, every player
count, other starting leaves, overridden rules, every switch, the alternative tables), and 76 games
of the skilled policies followed from the arena's own logged decisions: 921 games, 328,063 steps.

Random play saturates fast: at 4 players, 80 games apply all 242 actions that 400 games apply.
So the random and exploring cases play 60 and 40 games a player count (they played 400 and 200:
2,421 games and 922,620 steps in all); the cases of the other rules, where each game counts, are
as they were. Every (rules, players, action) triple the 2,421 games applied, 4,347 over 9 rule
sets, is still applied (bv_helpers.SEEN), and the file covers the same lines and branches of the
reference engine (94%, coverage.py)."""
import pytest

import bv_helpers as H
from simcore.benevolent.rules import rules_from_mapping


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play(players):
    for g in range(60):
        H.lockstep(21, g, players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_exploring_play(players):
    w = H.explore_weights()
    for g in range(40):
        H.lockstep(22, g, players, weights=w)


@pytest.mark.parametrize("policies", [("heuristic", "heuristic"), ("heuristic", "random"), ("tuned", "heuristic"),
                                      ("search", "heuristic")])
def test_skilled_play(policies):
    """The games the seat studies report on: the arena's loop plays whole games with skilled
    policies (the two named alternate by seat; the search at budget 4), and both engines follow
    its logged decisions from setup, comparing position and legal actions at every step."""
    from arena.benevolent.batch import parse_policies
    from arena.benevolent.trace import _play_logged
    from policies.benevolent.search import T_BUDGET
    from simcore.benevolent.face import State, to_dict
    games = 4 if "search" in policies else 24
    winners = set()
    for g in range(games):
        n = 2 + g % 3
        names = [policies[q % 2] for q in range(n)]
        _, pols, thetas = parse_policies(None, names, n)
        for q in range(n):
            if names[q] == "search":
                thetas[q, T_BUDGET] = 4
        log, s = _play_logged(State(n, None, 32, g, None), 32, g, pols, thetas)
        _, end = H.lockstep(32, g, n, log=log)
        assert end == to_dict(s), "the arena's final position is the engines' final position"
        winners.add(end.get("winner"))
    if "search" not in policies:
        assert len(winners - {None}) >= 2, winners  # different seats win


def test_other_leaves_and_rules():
    rules = rules_from_mapping({
        "dream_path": [[0, 1, "Feather"], [1, 2, "Clover"], [2, 3, "Figurine"], [3, 0, ""], [1, 0, ""]],
        "exchange_tiles": [["Clover", "Feather", "Amber"], ["Feather", "Feather", "Crystal"],
                           ["Clover", "Clover", "Figurine"]],
        "layouts": {"2": [[0, 0], [3, 0]], "4": [[0, 0], [1, 1], [2, 2]]},
        "timeout_rounds": 40})
    w = H.explore_weights()
    for g in range(200):
        n = 2 + g % 3
        H.lockstep(23, g, n, leaves=[(g + 7 * q) % 9 for q in range(n)], rules=rules, weights=w if g % 2 else None)


def test_lockstep_play_reaches_every_kind_of_step():
    """Lock-step games of its own (independent of the tests above and of their order) reach every
    kind of action, every single-use Secret and the repeats; fails if they stop reaching one."""
    from simcore.benevolent.rules import SINGLE_USE
    need = {"place", "move", "purchase", "sleep", "exchange", "take Secret", "take it from", "gather leaves",
            "gather leaves, put 1 on the gather tile", "gather leaves, take 1 from the gather tile",
            "Meadow: take a Clover", "Nest: take a Feather", "decline", "end turn"}
    need |= {f"resolve Secret: {x}" for x in SINGLE_USE}
    H.COVERAGE.clear()
    w = H.explore_weights()
    for g in range(600):
        n = 2 + g % 3
        H.lockstep(24, g, n, weights=w if g % 2 else None)
        if need <= set(H.COVERAGE):
            break
    assert need <= set(H.COVERAGE), sorted(need - set(H.COVERAGE))


@pytest.mark.parametrize("switch", ["gather_tile", "empty_gift", "ALL"])
def test_every_switch_flipped(switch):
    """The two engines agree step by step with each switch at its other reading (and both)."""
    from simcore.benevolent.rules import SWITCHES
    names = list(SWITCHES) if switch == "ALL" else [switch]
    rules = rules_from_mapping({"switches": {k: SWITCHES[k][1] for k in names}})
    w = H.explore_weights()
    for g in range(60):
        H.lockstep(25, g, 2 + g % 3, rules=rules, weights=w if g % 2 else None)


@pytest.mark.parametrize("name", ["layout-tight", "sides-common", "dream-d", "secrets-themed"])
def test_alternative_tables(name):
    from simcore.benevolent.rules import load_rules
    rules = load_rules(name)
    w = H.explore_weights()
    for g in range(40):
        H.lockstep(26, g, 2 + g % 3, rules=rules, weights=w if g % 2 else None)


def test_following_a_log_catches_a_changed_or_cut_log():
    """As for Bethel Woods: a changed decision, a cut log and a log with a step too many are each
    refused by the log-following lock-step."""
    import numpy as np
    from arena.benevolent.batch import parse_policies
    from arena.benevolent.trace import _play_logged
    from simcore.benevolent.face import State
    _, pols, thetas = parse_policies(None, ["heuristic"] * 3, 3)
    log, _ = _play_logged(State(3, None, 32, 1, None), 32, 1, pols, thetas)
    H.lockstep(32, 1, 3, log=log)                              # the log as played passes
    changed = log.copy()
    changed[len(log) // 2, 2] += 1
    extra = np.vstack([log, log[-1:]])
    for bad in (changed, log[:-1], extra):
        with pytest.raises(AssertionError):
            H.lockstep(32, 1, 3, log=bad)
