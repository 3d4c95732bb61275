"""The stored turn plan: the fields both games' heuristics keep at the start of their workspaces.

A planning player searches its turn once, stores the plan, then plays it a step a decision while
the position is the one it planned for (the same turn, the decision count it expects); otherwise it
plans again (policies/<game>/heuristic.py). The first rows of each heuristic's workspace table
(``simcore.layout.Layout``) are these, in this order; the plan's actions follow in the game's own
row ``W_PLAN``, sized by its own longest plan.
"""

PLAN_ROWS = (
    ("W_VALID", 1, None, "a plan is stored"),
    ("W_PLAN_N", 1, None, "its length"),
    ("W_PLAN_I", 1, None, "the next step to play"),
    ("W_TURN", 1, None, "the turn it was made for"),
    ("W_DEC0", 1, None, "s[ST_DECISIONS] when its first step was played"),
)
