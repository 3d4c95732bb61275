"""The stored turn plan: the fields both games' heuristics keep at the start of their workspaces.

A planning player searches its turn once, stores the plan, then plays it a step a decision while
the position is the one it planned for (the same turn, the decision count it expects); otherwise it
plans again (policies/<game>/heuristic.py). The first rows of each heuristic's workspace table
(``simcore.layout.Layout``) are these, in this order; the plan's actions follow in the game's own
row ``W_PLAN``, sized by its own longest plan.

The steps both games take with a stored plan are here, over the plan's rows as a view (``ws`` for
a heuristic's own workspace, whose table starts with them; ``ws[X_VALID:]`` for Bethel Woods'
search, which keeps a plan of its own): ``forget_plan`` at a game's start, ``keep_plan`` once a turn is
planned, ``next_step`` at every decision, ``contains`` to check a step is legal.
"""
import numpy as np
from numba import njit

PLAN_ROWS = (
    ("W_VALID", 1, None, "a plan is stored"),
    ("W_PLAN_N", 1, None, "its length"),
    ("W_PLAN_I", 1, None, "the next step to play"),
    ("W_TURN", 1, None, "the turn it was made for"),
    ("W_DEC0", 1, None, "s[ST_DECISIONS] when its first step was played"),
)
W_VALID, W_PLAN_N, W_PLAN_I, W_TURN, W_DEC0 = range(len(PLAN_ROWS))   # the rows' offsets in the view


@njit(cache=True, _nrt=False)
def score_int(y):
    """A plan's score as stored (an int32 of the workspace): y (the score times the game's
    SCORE_SCALE, rounded as the game rounds) held within +-2e9."""
    if y > 2.0e9:
        return 2_000_000_000
    if y < -2.0e9:
        return -2_000_000_000
    return np.int32(y)


@njit(cache=True, _nrt=False)
def contains(acts, n, a):
    """Is action a among acts[:n]?"""
    for i in range(n):
        if acts[i] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def forget_plan(ws):
    """No plan is stored (a game starts): ws is the plan rows' view."""
    ws[W_VALID] = 0
    ws[W_PLAN_N] = 0
    ws[W_PLAN_I] = 0
    ws[W_TURN] = -1


@njit(cache=True, _nrt=False)
def keep_plan(ws, n, turn, decisions):
    """The plan of n steps (its actions already written at the game's plan offset) is stored, made
    for `turn`, its first step expected at decision count `decisions`: ws is the plan rows' view."""
    ws[W_PLAN_N] = n
    ws[W_PLAN_I] = 0
    ws[W_TURN] = turn
    ws[W_DEC0] = decisions
    ws[W_VALID] = 1


@njit(cache=True, _nrt=False)
def next_step(ws, plan, turn, decisions, acts, n):
    """The next step of the stored plan, marked played, if it was made for `turn`, `decisions`
    (the position's decision count) is the one it predicts for that step and the step is among
    acts[:n]; else -1 (the caller plans again). ws: the plan rows' view; plan: the offset of the
    plan's actions in it (as an int64)."""
    if ws[W_VALID] == 1 and ws[W_TURN] == turn:
        i = ws[W_PLAN_I]
        if i < ws[W_PLAN_N] and decisions == ws[W_DEC0] + i:
            a = ws[plan + i]
            if contains(acts, n, a):
                ws[W_PLAN_I] = i + 1
                return a
    return -1
