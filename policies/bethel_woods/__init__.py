"""Bethel Woods policies (compiled): the turn-planning heuristic."""
from .heuristic import (  # noqa: F401
    THETA_BOUNDS, THETA_DEFAULT, THETA_NAMES, WS_SIZE, heuristic_action, heuristic_reset,
)
