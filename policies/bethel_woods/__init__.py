"""Bethel Woods policies (compiled): the turn-planning heuristic (heuristic.py), the search over its
turn plans and the clairvoyant bound (search.py), the tuned weights (tuned.json, read by policies/tuned.py)."""
from .heuristic import (
    THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES, WS_SIZE, heuristic_action, heuristic_reset,
)

__all__ = ["THETA_BOUNDS", "THETA_DEFAULT", "THETA_NAMES", "WS_SIZE", "heuristic_action", "heuristic_reset"]
