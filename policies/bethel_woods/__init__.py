"""Bethel Woods policies (compiled): the turn-planning heuristic."""
from .heuristic import (
    THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES, WS_SIZE, heuristic_action, heuristic_reset,
)

__all__ = ["THETA_BOUNDS", "THETA_DEFAULT", "THETA_NAMES", "WS_SIZE", "heuristic_action", "heuristic_reset"]
