"""Policies: who chooses among the legal actions.

Every policy is a compiled function behind one interface, selected by a small integer id so that
the batch runners can dispatch on it without Python objects:

    choose(policy_id, state, params, acts, n_legal, key, counter) -> action

where acts[:n_legal] are the legal actions in ascending order (each game's ``legal_actions``; its
``legal_mask`` gives the same set as a boolean mask).

``key``/``counter`` are the deciding seat's policy stream (simcore.rng), so a policy's choices
never disturb the game's chance stream. Only ``random`` exists so far.
"""
from .random import random_action  # noqa: F401

POLICIES = ("random",)
RANDOM = 0


def policy_id(name: str) -> int:
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; allowed: {', '.join(POLICIES)}")
    return POLICIES.index(name)
