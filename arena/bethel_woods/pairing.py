"""How far two runs on one seed share their chance draws (chance keyed by event).

Two runs of the same game index with different policies (here: differently seeded random play)
face the same chance key. Every chance event is keyed by its kind and how many of that kind came
before, so the n-th malfunction draw of both runs is the same token whenever the bag is the same
before it (and likewise the n-th tile revealed, given the same unseen effects, and the n-th spy
revealed, given the same unseen and returned spies). ``shared_draws`` measures it.
"""
from __future__ import annotations

from collections import Counter

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import PH_CHANCE_MALF, PH_CHANCE_SPY, PH_CHANCE_TILE
from simcore.bethel_woods.face import State
from simcore.bethel_woods.rules import Rules

from .batch import LOG_CHANCE
from .trace import play_logged

KINDS = {PH_CHANCE_MALF: "malfunction", PH_CHANCE_TILE: "tile", PH_CHANCE_SPY: "spy"}


def chance_events(players, spies, policy, seed, game, policy_seed, rules=None):
    """{(kind, n): (what the draw draws from, outcome)} for every chance event of one game."""
    rules = rules or Rules()
    g = State(players, spies, None, seed, game, rules)
    steps, _ = play_logged(players, spies, None, policy, seed, game, rules, policy_seed)
    seen, events = Counter(), {}
    for kind, _, a in steps.tolist():
        if kind == LOG_CHANCE:
            s = g.state
            ph = int(s[E.PHASE])
            if ph == PH_CHANCE_MALF:
                source = tuple(int(x) for x in s[E.BAG:E.BAG + 24])
            elif ph == PH_CHANCE_TILE:
                source = tuple(int(x) for x in s[E.EFFM:E.EFFM + 6] < 0)
            else:
                source = (tuple(int(x) for x in s[E.SPY:E.SPY + 6]), int(s[E.UNSEEN]),
                          tuple(int(x) for x in s[E.STACK:E.STACK + s[E.STACK_N]]))
            k = KINDS[ph]
            events[(k, seen[k])] = (source, a)
            seen[k] += 1
            g.apply_chance(a)
        else:
            g.apply(a)
    return events


def shared_draws(games, seed=0, players=3, spies=2, policy="random", seeds=(1, 2)):
    """For each kind of chance event: how many n-th events both runs had, how many of those drew
    from the same source, and how many of those gave the same outcome (all of them, by design)."""
    out = {k: Counter() for k in KINDS.values()}
    for game in range(games):
        a = chance_events(players, spies, policy, seed, game, seeds[0])
        b = chance_events(players, spies, policy, seed, game, seeds[1])
        for key in a.keys() & b.keys():
            c = out[key[0]]
            c["both"] += 1
            if a[key][0] == b[key][0]:
                c["same_source"] += 1
                c["same_outcome_given_same_source"] += a[key][1] == b[key][1]
            c["same_outcome"] += a[key][1] == b[key][1]
    return {k: dict(v) for k, v in out.items()}
