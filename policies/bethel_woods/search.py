"""Bethel Woods: determinized flat Monte Carlo search over whole-turn plans (compiled).

At the start of its turn (or whenever the position is not the one its plan expects) the policy

1. asks the heuristic's turn planner (``heuristic.plan_turn`` with ``W_TOPK`` set) for its best few
   whole-turn plans with distinct end positions (at most ``candidates``, theta[T_CANDIDATES], and
   at most ``budget``; with a budget of 0 or 1 it plays the heuristic's own plan);
2. plays each candidate plan on a copy of the position, ends the turn, and plays the game out to
   the end with the heuristic for every seat (a rollout), ``budget // candidates`` times;
3. plays the candidate that won the most rollouts (ties: the heuristic's order, so with no
   evidence it plays the heuristic's own plan).

Determinization. The position holds only what the players know, and every hidden thing is drawn
when it is revealed from a distribution the position fixes (the bag's counts for a malfunction,
the effects not yet seen for a critical tile, the unseen spies and the known bottom of the spy
stack for a spy: ``engine.chance_outcome``). So a rollout that draws its chance events with
``engine.chance_outcome(s, p, rk)`` from a key ``rk`` of its own samples a future consistent with
everything known, and every kind of unknown comes from its own sub-stream of ``rk``
(malfunctions, tiles and spies: ``rng.substream``). Rollout r's key is ``rng.draw(key, r)``,
where ``key`` is this decision's key from the seat's policy stream: the search never sees the
game's chance key. Rollout r uses the same key for every candidate (common random numbers), so
candidates are compared on the same sampled futures, which makes the comparison much less noisy
than independent samples.

The clairvoyant variant (``clairvoyant_action``) is the same search handed the game's true chance
key by the arena (``arena.bethel_woods.batch.play_game``, for this policy only): its rollouts draw
exactly the game's coming malfunctions, tiles and spies, so one rollout per candidate says how
that candidate fares against the real future (with the heuristic playing on). It is a measuring
stick, not a player.

Why flat Monte Carlo over the heuristic's best plans (and not information-set MCTS or a rolling
horizon evolutionary algorithm): a Bethel Woods turn has dozens of plans, nearly all of them
clearly worse than the heuristic's best few, and the game's outcome hinges on chance far more
than on the choice among close plans; a few well-chosen candidates compared on common sampled
futures spend the whole budget where the choice is open. Rollouts to the end of the game with
the heuristic measure the true objective (a win) rather than the heuristic's own score.

theta: the heuristic's 24 weights (used for the candidates and for the rollouts), then
T_BUDGET (rollouts per decision, over all candidates) and T_CANDIDATES.

Workspace (int32): [0, HWS) the heuristic's workspace for the candidates (and the canonical
payments), [HWS, 2 HWS) the rollouts' heuristic workspace (shared by every seat of the rollout:
each player's turn is planned afresh), then the search's own fields (below).
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import (
    A_END_TURN, N_ACTIONS, OUT_WIN, PH_FIX, PH_MOVE, PH_PAY, PH_POST, PH_PRE,
)
from simcore.common import PLAYER_CHANCE, PLAYER_TERMINAL
from simcore.layout import Layout
from simcore.rng import draw

from ..plan import contains, forget_plan, keep_plan, next_step
from .heuristic import (
    K_CAND, PATH_MAX, THETA_DEFAULT as H_THETA, THETA_NAMES as H_NAMES, W_PLAN, W_PLAN_N, W_TOPK, W_TN, W_TPATH, W_TPL,
    W_TSC, WS_SIZE as HWS, pay_rule, plan_turn, heuristic_action, heuristic_reset,
)

T_BUDGET = len(H_THETA)        # rollouts per decision (over all candidates)
T_CANDIDATES = T_BUDGET + 1    # whole-turn plans compared (at most K_CAND)
THETA_SIZE = T_CANDIDATES + 1
THETA_NAMES = H_NAMES + ("budget", "candidates")   # theta's fields by name
BUDGET_DEFAULT = 8
CANDIDATES_DEFAULT = 4

# ---- workspace layout (int32), after the two heuristic workspaces ----------------------------------
# (a table as the heuristic's, simcore/layout.py)
X0 = 2 * HWS
WS = Layout(
    ("X_HEURISTIC", X0, None, "two heuristic workspaces: the candidates' planner, and the rollouts' player"),
    ("X_VALID", 1, None, "a plan is stored"),
    ("X_PLAN_N", 1, None, "its length"),
    ("X_PLAN_I", 1, None, "the next step to play"),
    ("X_TURN", 1, None, "the turn it was made for"),
    ("X_DEC0", 1, None, "s[ST_DECISIONS] when its first step was played"),
    ("X_NSEARCH", 1, None, "statistics: searches made (wraps around)"),
    ("X_NROLL", 1, None, "statistics: rollouts played (wraps around)"),
    ("X_PAD", 1, None, "unused"),
    ("X_PLAN", PATH_MAX, None, "the plan being played"),
    ("X_ORDER", K_CAND, None, "candidates by the heuristic's score, best first"),
    ("X_WINS", K_CAND, None, "rollouts won by each candidate (in X_ORDER's order)"),
    ("X_ACTS", N_ACTIONS, None, "legal actions in a rollout"),
    ("X_S", E.S_SIZE, None, "the rollout's position"),
)
globals().update(WS.offsets)   # X_HEURISTIC = 0, X_VALID = X0, ...
WS_SIZE = WS.size


def default_theta() -> np.ndarray:
    t = np.zeros(THETA_SIZE, dtype=np.float64)
    t[:len(H_THETA)] = H_THETA
    t[T_BUDGET] = BUDGET_DEFAULT
    t[T_CANDIDATES] = CANDIDATES_DEFAULT
    return t


@njit(cache=True, _nrt=False)
def search_reset(ws):
    heuristic_reset(ws[0:HWS])
    heuristic_reset(ws[HWS:2 * HWS])
    forget_plan(ws[X_VALID:])


@njit(cache=True, _nrt=False)
def _rollout(s, p, theta, net, ws, c, rk):
    """Play candidate c (index into the heuristic's kept plans) from s, end the turn and play the
    game out with the heuristic, drawing chance from rk. 1 if the players win, else 0."""
    hws = ws[0:HWS]
    rws = ws[HWS:2 * HWS]
    st = ws[X_S:X_S + E.S_SIZE]
    acts = ws[X_ACTS:X_ACTS + N_ACTIONS]
    for i in range(E.S_SIZE):
        st[i] = s[i]
    plen = hws[W_TPL + c]
    for i in range(plen):
        E.apply(st, p, np.int64(hws[W_TPATH + c * PATH_MAX + i]))
    if st[E.PHASE] == PH_POST:
        E.apply(st, p, np.int64(A_END_TURN))
    heuristic_reset(rws)
    while True:
        q = E.current_player(st)
        if q == PLAYER_TERMINAL:
            break
        if q == PLAYER_CHANCE:
            E.apply_chance_inlined(st, p, E.chance_outcome_inlined(st, p, rk))
        else:
            n = E.legal_actions(st, p, acts)
            E.apply(st, p, np.int64(heuristic_action(st, p, theta, net, q, acts, n, rk, rws)))
    ws[X_NROLL] = (ws[X_NROLL] + 1) & 0x3FFFFFFF
    return 1 if st[E.OUTCOME] == OUT_WIN else 0


@njit(cache=True, _nrt=False)
def _search(s, p, theta, net, ws, key, clairvoyant):
    """Choose this turn's plan; store it (ending with `end turn`) at X_PLAN."""
    ws[X_NSEARCH] = (ws[X_NSEARCH] + 1) & 0x3FFFFFFF
    hws = ws[0:HWS]
    budget = int(theta[T_BUDGET])
    k = int(theta[T_CANDIDATES])
    k = max(1, min(K_CAND, k))
    if not clairvoyant:
        k = max(1, min(k, budget))  # a budget below the candidates compares the best `budget` plans once each
    hws[W_TOPK] = k
    plan_turn(s, p, theta, hws)
    hws[W_TOPK] = 0
    nc = hws[W_TN]
    # the candidates by the heuristic's score, best first (insertion sort; ties keep their order)
    for i in range(nc):
        ws[X_ORDER + i] = i
        ws[X_WINS + i] = 0
    for i in range(1, nc):
        j = i
        while j > 0 and hws[W_TSC + ws[X_ORDER + j]] > hws[W_TSC + ws[X_ORDER + j - 1]]:
            tmp = ws[X_ORDER + j]
            ws[X_ORDER + j] = ws[X_ORDER + j - 1]
            ws[X_ORDER + j - 1] = tmp
            j -= 1
    best = -1
    if nc >= 2 and (budget >= nc or clairvoyant):
        # clairvoyant: the rollouts of a candidate would all be the same game, so one each
        per = 1 if clairvoyant else budget // nc
        for r in range(per):
            rk = key if clairvoyant else draw(key, r)
            for i in range(nc):
                ws[X_WINS + i] += _rollout(s, p, theta, net, ws, ws[X_ORDER + i], rk)
        best = 0
        for i in range(1, nc):
            if ws[X_WINS + i] > ws[X_WINS + best]:
                best = i
    if best >= 0:
        c = ws[X_ORDER + best]
        n = hws[W_TPL + c]
        for i in range(n):
            ws[X_PLAN + i] = hws[W_TPATH + c * PATH_MAX + i]
    else:  # no choice to make (or no budget): the heuristic's own plan
        n = hws[W_PLAN_N] - 1  # without its `end turn`
        for i in range(n):
            ws[X_PLAN + i] = hws[W_PLAN + i]
    if n < PATH_MAX:
        ws[X_PLAN + n] = A_END_TURN  # harmless when the plan ends the game
        n += 1
    keep_plan(ws[X_VALID:], np.int64(n), s[E.TURN], s[E.ST_DECISIONS])


@njit(cache=True, _nrt=False)
def search_action(s, p, theta, net, seat, acts, n, key, ws):
    """The search's decision of `seat` at s (acts[:n] legal, ascending); `key`: this decision's
    key from the seat's policy stream. `net` is not read (the search and its rollouts' heuristic
    read no network; the plug point's signature)."""
    return _decision(s, p, theta, net, seat, acts, n, key, ws, np.bool_(False))


@njit(cache=True, _nrt=False)
def clairvoyant_action(s, p, theta, net, seat, acts, n, key, ws):
    """The clairvoyant's decision: the search's, handed the game's chance key as `key` by the
    arena (a measuring stick, not a player)."""
    return _decision(s, p, theta, net, seat, acts, n, key, ws, np.bool_(True))


@njit(cache=True, _nrt=False)
def _decision(s, p, theta, net, seat, acts, n, key, ws, clairvoyant):
    """The decision of `seat` at s (acts[:n] legal, ascending). `key`: this decision's key from the
    seat's policy stream (the clairvoyant alone is handed the game's chance key instead)."""
    ph = s[E.PHASE]
    mine = s[E.CUR] == seat and ph != PH_PAY or (ph == PH_PAY and s[E.PAYER] == seat and s[E.CUR] == seat)
    if mine:
        a = next_step(ws[X_VALID:], np.int64(X_PLAN - X_VALID), s[E.TURN], s[E.ST_DECISIONS], acts, n)
        if a >= 0:
            return a
    if ph == PH_PAY:
        a = pay_rule(s, p, ws[0:HWS])
        return a if contains(acts, n, a) else acts[0]
    if s[E.CUR] == seat and (ph == PH_PRE or ph == PH_MOVE or ph == PH_FIX or ph == PH_POST):
        _search(s, p, theta, net, ws, key, clairvoyant)
        a = ws[X_PLAN]
        if ws[X_PLAN_N] > 0 and contains(acts, n, a):
            ws[X_PLAN_I] = 1
            return a
        ws[X_VALID] = 0
    return acts[0]
