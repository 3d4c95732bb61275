"""Benevolent policies (compiled): the whole-turn heuristic (heuristic.py), flat Monte Carlo over its
turn plans (search.py), the tuned weights (tuned.json, read by policies/tuned.py, when `boardsim tune benevolent`
confirmed some); the plug point is decide.py."""
