"""The compiled engine against the plain-Python reference engine, step by step.

At every step of thousands of seeded games both engines must hold the same position (the whole
documented position format), offer the same legal actions and the same chance distribution, and
end with the same outcome. Games start from setup (uniform random play, and an exploring policy
that plays longer games) and from rich mid-game positions (workers in the Orphanage, knowledge in
hand, critical machines, near-wins and nearly empty bags), and the games of skilled policies,
which random play never reaches (wins), followed from the arena's own logged steps."""
import pytest

import bw_helpers as H
from simcore.bethel_woods.rules import rules_from_mapping

N = 250  # games per test case; 8 cases -> 2,000 games in all


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_from_setup(players):
    for g in range(N):
        H.lockstep(11, g, players, g % 6)


@pytest.mark.parametrize("players", [2, 4])
def test_exploring_play_from_setup(players):
    w = H.explore_weights()
    for g in range(N):
        chars = None if g % 2 else [(g + 3 * q) % 8 for q in range(players)]
        H.lockstep(12, g, players, g % 4, chars=chars, weights=w)


def test_rich_positions():
    w = H.explore_weights()
    for g in range(N):
        d, _ = H.rich_position(13, g, 2 + g % 3, g % 4)
        H.lockstep_from(d, 13, g, weights=w)


def test_near_the_end():
    w = H.explore_weights()
    outcomes = set()
    for g in range(N):
        d, _ = H.rich_position(14, g, 2 + g % 3, g % 3, orphanage=5 if g % 2 else 4,
                               bag_left=None if g % 3 else 4)
        _, end = H.lockstep_from(d, 14, g, weights=w)
        outcomes.add(end["outcome"])
    assert outcomes == {"win", "bag_empty", "four_critical", "six_spies"}


@pytest.mark.parametrize("policy", ["heuristic", "tuned", "search"])
def test_skilled_play_from_setup(policy):
    """The games the studies report on: the arena's loop plays whole games with a skilled policy
    in every seat (the search at budget 2), and both engines follow its logged steps from setup,
    comparing at every step. Random play never wins; skilled play must win some of these games
    (deliberate entries into the Orphanage, the sixth piece) and reach the other endings too."""
    from arena.bethel_woods.trace import play_logged
    from simcore.bethel_woods.face import to_dict
    from simcore.bethel_woods.rules import Rules
    rules = Rules()
    games = 6 if policy == "search" else 48
    outcomes = []
    for g in range(games):
        players, spies = 2 + g % 3, (g // 3) % 3
        log, s = play_logged(players, spies, None, policy, 31, g, rules, budget=2 if policy == "search" else None)
        _, end = H.lockstep_log(31, g, players, spies, log, rules=rules)
        assert end == to_dict(s), "the arena's final position is the engines' final position"
        outcomes.append(end["outcome"])
    if policy != "search":
        assert "win" in outcomes and len(set(outcomes)) >= 3, outcomes


def test_every_character_in_every_seat():
    w = H.explore_weights()
    for g in range(64):
        chars = [(g + q) % 8 for q in range(4)]
        d, _ = H.rich_position(15, g, 4, 1, chars=chars)
        H.lockstep_from(d, 15, g, weights=w)


def test_with_overridden_rules():
    rules = rules_from_mapping({
        "machine_types": [["Mechanical", "Structural"], ["Digital", "Electrical"], ["Mechanical", "Digital"],
                          ["Structural", "Electrical"], ["Mechanical", "Electrical"], ["Structural", "Digital"]],
        "knowledge_limit": 5, "critical_knowledge_limit": 4, "malfunctions_per_turn": 4})
    w = H.explore_weights()
    for g in range(100):
        H.lockstep(16, g, 2 + g % 3, g % 3, rules=rules, weights=w)


def test_lockstep_play_reaches_every_kind_of_step():
    """Lock-step games of its own (independent of the tests above and of their order) reach every
    action class and payment continuation; fails if the exploring games stop reaching one."""
    need = {"pick", "drop", "fix", "stop", "end", "pay", "select", "enter Orphanage", "enter Orphanage (Nova)",
            "uncover spy", "uncover spy (Fenn)", "uncover spy clockwise (Fare)", "uncover spy anticlockwise (Fare)",
            "Harris", "Junas", "Linny", "Violet", "Rone"}
    need |= {"then:" + t for t in ("enter", "uncover", "harris", "junas_give", "junas_discard", "linny", "violet",
                                   "rone", "return", "discard_round")}
    H.COVERAGE.clear()
    w = H.explore_weights()
    for g in range(400):
        chars = [(g + q) % 8 for q in range(4)]
        d, _ = H.rich_position(17, g, 4, g % 3, chars=chars, orphanage=g % 6)
        H.lockstep_from(d, 17, g, weights=w)
        if need <= set(H.COVERAGE):
            break
    assert need <= set(H.COVERAGE), sorted(need - set(H.COVERAGE))


def _flipped(name):
    from simcore.bethel_woods.rules import SWITCHES
    return rules_from_mapping({"switches": {name: SWITCHES[name][1]}})


def _all_flipped():
    from simcore.bethel_woods.rules import SWITCHES
    return rules_from_mapping({"switches": {k: v[1] for k, v in SWITCHES.items()}})


@pytest.mark.parametrize("switch", ["rone_redirect", "four_critical", "ability_window", "long_group", "rone_cost",
                                    "ability_off", "ALL"])
def test_every_switch_flipped(switch):
    """The two engines agree step by step with each switch at its other reading (and all at once),
    from setup and from rich mid-game positions where Rone, critical tiles and long groups occur."""
    rules = _all_flipped() if switch == "ALL" else _flipped(switch)
    w = H.explore_weights()
    for g in range(40):
        chars = [(g + 6 + q) % 8 for q in range(4)]   # Rone (6) in a seat in most games
        H.lockstep(18, g, 2 + g % 3, g % 4, chars=chars[:2 + g % 3], rules=rules, weights=w)
        d, _ = H.rich_position(19, g, 4, g % 3, chars=chars, rules=rules)
        H.lockstep_from(d, 19, g, weights=w, rules=rules)


@pytest.mark.parametrize("name", ["machines-b", "malfunctions-uneven", "orphanage-mirror"])
def test_alternative_tables(name):
    from simcore.bethel_woods.rules import load_rules
    rules = load_rules(name)
    w = H.explore_weights()
    for g in range(30):
        H.lockstep(20, g, 2 + g % 3, g % 3, rules=rules, weights=w)


def test_following_a_log_catches_a_changed_or_cut_log():
    """The log-following lock-step is a check, not a replay: a decision changed to another
    action, a log cut short and a log with a step too many are each refused."""
    import numpy as np
    from arena.bethel_woods.trace import play_logged
    from simcore.bethel_woods.rules import Rules
    rules = Rules()
    log, _ = play_logged(3, 0, None, "heuristic", 31, 1, rules)
    H.lockstep_log(31, 1, 3, 0, log, rules=rules)            # the log as played passes
    dec = np.flatnonzero(log[:, 0] == 0)
    changed = log.copy()
    changed[dec[len(dec) // 2], 2] += 1
    extra = np.vstack([log, log[-1:]])
    for bad in (changed, log[:-3], extra):
        with pytest.raises(AssertionError):
            H.lockstep_log(31, 1, 3, 0, bad, rules=rules)
