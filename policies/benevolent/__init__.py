"""Benevolent policies (compiled): the whole-turn heuristic (heuristic.py), flat Monte Carlo over its
turn plans (search.py), the tuned weights (tuned.py, tuned.json when `boardsim tune benevolent`
confirmed some); the plug point is decide.py."""
