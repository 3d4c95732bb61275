"""Bethel Woods: a compiled turn-planning heuristic.

At the start of its turn (or whenever the position is not the one its plan expects) the policy
plans the whole turn and then plays the plan's steps one decision at a time:

1. Stage 1, depth first over the moves: every pick-up (machine with workers, direction), every
   order of the drops (one child per distinct worker type in hand), and with the last worker
   either the drop or the Orphanage entry (Nova's entry only when the plain one is illegal).
   Fixing is greedy (a dropped worker fixes all it can: fixing always lowers a machine and gains
   knowledge) and every payment uses one canonical rule (``pay_rule``: the token of the type
   worth least to the payer), so order-free choices add no branches. At the end of the moves
   each plan is scored as is and after each legal spy uncover (plain, Fenn, Fare either side).
   Harris alone may first move a worker (``_harris_first``): only when he holds the next piece's
   cost (plus the ability's) in a usable type that no pick-up can take into the Orphanage, and
   only moves that make such an entry reachable; each is followed by the whole stage 1.
2. Pruning: only the K_TOP best positions of stage 1 go on to stage 2, which tries every active
   character ability on them (Junas's gifts, Linny's malfunction, Violet, Rone with his cheapest
   pair of types for each machine; Harris's (from, to) moves only after the best position).
3. A position is scored by ``evaluate``: a linear function of the features THETA_NAMES weighted
   by ``theta`` (computed by ``evaluation_features``, which also gives the learned player's
   features.py its first 24), with a large penalty when 4 machines are critical at the end of the turn (a
   loss) and a large bonus for the win. The features: pieces built; critical machines now;
   expected critical machines after the next placement, P(3+) and P(4+) of them (from the bag's
   counts per machine and the number of draws, Violet's and Rone's effects included); spies,
   spies squared, P(a spy comes), and with five spies on the board P(the sixth comes); the
   players' largest stacks of a usable type against the next pieces' costs (best, second,
   progress, missing tokens, players ready); whether the next two players (and the current
   one) could enter with one pick-up from today's worker positions; knowledge held after the
   end-of-turn discard; board load and the largest non-critical load; entry spots one pick-up
   reaches; machines with workers; the next placement's draws.

Rules in one place: the planner plays no rule of its own. Pick-ups, drops with their greedy fixes
and plain entries are the engine's step primitives (``E.pick_up`` / ``E.unpick``,
``E.drop_and_fix`` / ``E.undo_drop``, ``E.enter_and_pay``: each exactly a sequence of the engine's
``apply`` calls, tests/test_bw_steps.py), made in place; the planner only writes their actions
into its path from what they report (``_drop_do``, ``_enter_do``; the same position and path as
``apply`` followed by ``_settle``, tests/test_bw_heuristic.py::test_planner_steps_equal_the_engine).
The drop search undoes each drop on the way back instead of copying a position per node (the drop
and pick-up primitives are inlined into it). Where an entry may be tried, what it costs and
whether it can be paid are the engine's (``E.entry_type``, ``E.entry_cost``, ``E.entry_payable``),
as are a payment step's legality (``E.may_pay``), the parts of the legal list the planner takes
(``E.uncover_actions``, ``E.ability_actions``), Harris's trial moves (``E.move_worker``) and the
comparison of end positions (``E.same_position``). The position is read through the engine's
named accessors (``E.hand``, ``E.workers``, ``E.group``, ``E.malfunction``, ``E.load``,
``E.knowledge``, ``E.held``, ``E.section``, ``E.spy_at``, ``E.bag``, ``E.character``, ``E.need``,
``E.paid``; single fields by their names, ``s[E.PHASE]``), never by offset arithmetic
(docs/engine_api.md, "Step primitives and accessors"). ``evaluation_features`` makes one pass over
the Orphanage and one over the machines, with two small tables made once per plan (the types each
section accepts, W_SECB, and the entries a group of each size on each machine can reach, W_ENDS);
``evaluate``, theta times those features summed in EVAL_ORDER, gives the plain feature-by-feature
score bit for bit (tests/bw_heuristic_reference.py).

The plan's actions (and ``end turn``) are kept in the workspace and replayed while the position
is the expected one (same turn, same decision count, the action legal); otherwise it re-plans.

The policy sees only what a player sees: the board, the bag counts, the knowledge, the
Orphanage, and critical effects through ``E.effect_active``; never the tiles of machines that are
not critical, the spy stack or the chance stream. Every choice is deterministic (the key is not
used: ties go to the first plan found), so the same position gives the same decision.

Payments outside the current player's plan (the end-of-turn discard to the limit, the
knowledge_limit_6 discard, a Junas gift over the limit) use the same canonical rule: discard
from the smallest stack of a type, types no open Orphanage section can use first.

Workspace: ``ws`` is an **int32** array of WS_SIZE entries per seat (the plan, scratch copies of
the state for the search, candidate positions); ``heuristic_reset(ws)`` clears the plan at the
start of every game. Nothing is allocated during a decision.

Arguments written ``np.int64(...)`` (``np.bool_`` for a flag) at a call site: numba compiles a
function once per argument type and once per literal constant it is called with, so an int32
read from an array, a Python int constant and an int64 would make three compiles of one function
for a first run to pay (docs/benchmarks.md, "Compile time").
"""
import numpy as np
from numba import njit

from simcore.bethel_woods import engine as E
from simcore.bethel_woods.actions import (
    A_DROP, A_END_TURN, A_ENTER, A_ENTER_NOVA, A_FIX, A_HARRIS, A_PAY, A_RONE, A_SELECT,
    N_ACTIONS, OUT_WIN, PH_FIX, PH_HARRIS_FROM, PH_HARRIS_TO, PH_LINNY,
    PH_MOVE, PH_PAY, PH_POST, PH_PRE, PH_TERMINAL,
)
from simcore.bethel_woods.rules import (
    E_ABILITY, FARE, HARRIS, NOVA, P_CRIT_ABOVE,
    P_SECTION_TYPES,
)
from simcore.layout import Layout

from ..plan import PLAN_ROWS, contains, forget_plan, keep_plan, next_step, score_int

# ---- the evaluation's weights -------------------------------------------------------------------
THETA_NAMES = (
    "built",          # Daydreamer pieces built (workers in the Orphanage)
    "critical",       # machines critical now (after the turn's moves, before the placement)
    "exp_critical",   # expected critical machines after the next placement (bag odds)
    "p_ge3",          # P(3 or more machines critical after the next placement)
    "p_ge4",          # P(4 or more machines critical after the next placement)
    "spies",          # spies on the board
    "best_stack",     # best stack of a usable type held by one player, min(stack, cost)/cost
    "second_stack",   # the same for the best other player, toward the piece after
    "ready",          # players holding the next piece's cost in one usable type
    "next_enter",     # the next player can enter the Orphanage on their turn as things stand
    "next2_enter",    # the player after can (with today's worker positions)
    "concentration",  # sum over players of their largest usable stack
    "knowledge",      # knowledge held by all players (after the end-of-turn discard)
    "load",           # malfunctions + spies on the board
    "entry_spots",    # distinct (section, type) entries one pick-up can reach
    "draws",          # malfunctions the next placement draws (Violet lowers it)
    "max_load",       # the largest load of a non-critical machine (3 = one draw from critical)
    "progress",       # players' largest usable stacks, sorted, against the next pieces' costs
    "spies_sq",       # spies on the board squared (six on the board lose)
    "missing",        # tokens the closest player lacks for the next piece (in one usable type)
    "self_enter",     # the current player could enter on their next turn as things stand
    "p_spy",          # P(some machine goes critical in the next placement: a spy comes)
    "spread",         # machines with at least one worker
    "spy_loss",       # with five spies on the board: P(a spy comes in the next placement: lost)
)
# found by the harness's random local search (tests/bw_heuristic_harness.py --search)
THETA_DEFAULT = np.array([
    34.631, 0, -5.14, -4.255, 0, -1.855, 26.279, 12.44, 1.696, 5.301, 0, 0.5, 0.553, -0.254, 0.1, -1.524, -4.849, 2.41, 0, -6.168, 0, 0, 0, -44.302,
])
THETA_BOUNDS = np.array([
    [0.0, 80.0], [-20.0, 0.0], [-20.0, 0.0], [-30.0, 0.0], [-60.0, 0.0], [-10.0, 0.0],
    [0.0, 40.0], [0.0, 40.0], [0.0, 20.0], [0.0, 20.0], [0.0, 10.0], [0.0, 5.0], [-2.0, 2.0],
    [-3.0, 1.0], [-2.0, 2.0], [-5.0, 1.0], [-10.0, 5.0], [0.0, 20.0], [-5.0, 0.0], [-20.0, 0.0], [0.0, 20.0],
    [-20.0, 0.0], [0.0, 5.0], [-100.0, 0.0],
])
(T_BUILT, T_CRIT, T_EXPCRIT, T_P3, T_P4, T_SPIES, T_BEST, T_SECOND, T_READY, T_NEXT, T_NEXT2,
 T_CONC, T_KNOW, T_LOAD, T_SPOTS, T_DRAWS, T_MAXLOAD, T_PROGRESS, T_SPIES2, T_MISSING, T_SELF, T_PSPY, T_SPREAD, T_SPYLOSS) = range(len(THETA_NAMES))
assert len(THETA_DEFAULT) == len(THETA_NAMES) == len(THETA_BOUNDS)

WIN_SCORE = 1.0e6
LOSS_SCORE = -1.0e5   # four critical machines at the end of the turn
K_TOP = 6             # stage-1 positions that go on to the ability search (at most; W_KTOP may ask fewer)
PATH_MAX = 96         # actions in one turn's plan (picks, drops, fixes, payments, abilities)
N_SLOTS = 24          # scratch states: the drop depth-first search and the ability search
SCORE_SCALE = 1000.0  # candidate scores are kept as integers (ws is int32)
K_CAND = 16           # whole-turn plans the search and learned policies can ask for (W_TOPK)

# ---- workspace layout (int32) ---------------------------------------------------------------------
# One table, in array order (simcore/layout.py, as the engine's state): each field's offset is the sum
# of the sizes above it, bound at import as a plain module int (W_PLAN = 8, ...), a compile-time
# constant for numba; tests/test_layout.py checks the workspaces as it checks the positions.
S_SIZE = E.S_SIZE
U_SIZE = E.DROP_UNDO_SIZE            # per depth: engine.drop_and_fix's undo record
WS = Layout(
    *PLAN_ROWS,   # W_VALID, W_PLAN_N, W_PLAN_I, W_TURN, W_DEC0 (policies/plan.py)
    ("W_NEVAL", 1, None, "statistics: positions evaluated (wraps around)"),
    ("W_NPLAN", 1, None, "statistics: plans searched"),
    ("W_RDRAWS", 1, None, "the draws the risk table W_RISK was made for (-1: none)"),
    ("W_PLAN", PATH_MAX, None, "the plan"),
    ("W_HAVE", 16, None, "knowledge by seat and type after the end-of-turn discard"),
    ("W_USE", 4, None, "types some open Orphanage section accepts"),
    ("W_IT", N_SLOTS, None, "the search's child iterator per depth"),
    ("W_PLEN", N_SLOTS, None, "path length per depth"),
    ("W_PATH", PATH_MAX, None, "the path being searched"),
    ("W_CN", 1, None, "candidates kept"),
    ("W_CSC", K_TOP, None, "their scores (x SCORE_SCALE)"),
    ("W_CPL", K_TOP, None, "their path lengths"),
    ("W_BEST", 1, None, "best score found (x SCORE_SCALE)"),
    ("W_BESTN", 1, None, "its plan length (the plan itself is at W_PLAN)"),
    ("W_ACTS2", N_ACTIONS, None, "a legal list kept across simulations"),
    ("W_ACTS3", N_ACTIONS, None, "another (ability choices)"),
    ("W_RISK", 24, None, "P(machine m goes critical | load l), x RISK_SCALE, at m*4 + l"),
    ("W_CPATH", K_TOP * PATH_MAX, None, "the candidates' paths"),
    ("W_CST", K_TOP * S_SIZE, None, "their positions"),
    ("W_SLOT", N_SLOTS * S_SIZE, None, "scratch states"),
    # the best few whole-turn plans with distinct end positions, kept only when W_TOPK > 0 (the
    # search policy asks for them; the heuristic alone keeps only the best plan)
    ("W_TOPK", 1, None, "how many plans to keep (0: off; at most K_CAND)"),
    ("W_TN", 1, None, "plans kept"),
    ("W_TSC", K_CAND, None, "their scores (x SCORE_SCALE)"),
    ("W_TPL", K_CAND, None, "their lengths"),
    ("W_TPATH", K_CAND * PATH_MAX, None, "their paths"),
    ("W_UNDO", N_SLOTS * U_SIZE, None, "what undoes the drop made at each depth"),
    ("W_SECB", 6, None, "the types Orphanage section i accepts, as bits (set by plan_turn)"),
    ("W_ENDS", 36, None, "at 6j + (g - 1) % 6, the (section, type) bits (bit 4i + t) a group of g on "
                         "machine j can enter, either way (set by plan_turn)"),
    ("W_TST", K_CAND * S_SIZE, None, "the kept plans' end positions (before `end turn`)"),
    ("W_KTOP", 1, None, "stage-1 positions for the ability search, 1 to K_TOP (0: K_TOP); heuristic_reset "
                        "leaves it as the caller set it (the learned player)"),
    ("W_PAID", 6, None, "the tokens of each printed kind a plain entry paid (engine.enter_and_pay)"),
)
globals().update(WS.offsets)   # W_VALID = 0, W_PLAN_N = 1, ..., W_PAID
WS_SIZE = WS.size

NEG_INF_Q = -2_000_000_000
RISK_SCALE = float(1 << 30)


@njit(cache=True, _nrt=False)
def heuristic_reset(ws):
    forget_plan(ws)
    ws[W_TOPK] = 0


# ---- small helpers -----------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _usable(s, p, ws):
    """ws[W_USE + t] = 1 if some empty Orphanage section accepts type t and a type-t worker is
    still outside the Orphanage."""
    for t in range(4):
        ws[W_USE + t] = 0
    for i in range(6):
        if E.section(s, i) < 0:
            ws[W_USE + p[P_SECTION_TYPES + 2 * i]] = 1
            ws[W_USE + p[P_SECTION_TYPES + 2 * i + 1]] = 1
    for t in range(4):
        if ws[W_USE + t]:
            w = E.hand(s, t)
            for m in range(6):
                w += E.workers(s, m, t)
            if w == 0:
                ws[W_USE + t] = 0


@njit(cache=True, _nrt=False)
def _keep_value(h, usable):
    """How much a player wants to keep a token of a type it holds h of: big stacks of types the
    Orphanage can still use first."""
    return 4 * h + 3 * usable


@njit(cache=True, _nrt=False)
def pay_rule(s, p, ws):
    """The canonical payment step: of the tokens that may be paid now (the payment can still be
    completed), the one of the type worth least to the payer, then the lowest kind. This is
    the legal PAY action with the smallest (keep value of its type, kind); it is computed per
    type (4 feasibility checks) rather than from the legal list."""
    _usable(s, p, ws)
    return _pay_step(s, ws)


@njit(cache=True, _nrt=False)
def _pay_step(s, ws):
    """``pay_rule`` with the usable types already at ws[W_USE:] (``_usable`` of this position)."""
    q = s[E.PAYER]
    if s[E.ANY_N] == 0 and s[E.SUB] == 0:
        return _pay_step_exact(s, ws, q)
    return _pay_step_general(s, ws, q)


@njit(cache=True, _nrt=False, inline="always")
def _lowest_kind(s, q, t):
    """The lowest printed kind of type t that player q knows (-1 if none)."""
    for pm in range(6):
        if E.knowledge(s, q, pm, t) > 0:
            return 4 * pm + t
    return -1


@njit(cache=True, _nrt=False)
def _pay_step_general(s, ws, q):
    """The canonical step for any payment: of the types q holds, the one worth least to keep
    (then the lowest kind) whose payment leaves the payment completable (``E.may_pay``, the legal
    list's test of a PAY action)."""
    have = E.have_types(s, q)
    best_k = -1
    best_v = 1 << 30
    for t in range(4):
        if have[t] == 0:
            continue
        v = _keep_value(have[t], ws[W_USE + t])
        kmin = _lowest_kind(s, q, t)
        if v > best_v or (v == best_v and kmin > best_k):
            continue
        if E.may_pay(s, have, t):
            best_v = v
            best_k = kmin
    return A_PAY + best_k


@njit(cache=True, _nrt=False, inline="always")
def _pay_step_exact(s, ws, q):
    """``_pay_step_general`` for a payment of exact types (no tokens of any type, no
    substitution: the uncovers, Harris, Junas, Violet and Rone, unless a critical effect adds a
    token of any type, the ability tax or the uncover's extra token). Of a payment that can be
    completed, paying a type-t token keeps it completable iff a type-t token is still owed
    (paid[t] < need[t]), so the feasibility test is that comparison: the same step, without
    ``E.feasible`` (tests/test_bw_heuristic.py::test_exact_payment_step_equals_the_general_one)."""
    best_k = -1
    best_v = 1 << 30
    for t in range(4):
        h = E.held(s, q, t)
        if h == 0 or E.paid(s, t) >= E.need(s, t):
            continue
        v = _keep_value(h, ws[W_USE + t])
        if v > best_v:
            continue
        kmin = _lowest_kind(s, q, t)
        if v == best_v and kmin > best_k:
            continue
        best_v = v
        best_k = kmin
    return A_PAY + best_k


@njit(cache=True, _nrt=False)
def _settle(st, p, ws, plen):
    """Play the order-free steps: greedy fixing and canonical payments, appending to the path.
    Returns the new path length. (The usable types are found once: fixing and paying move no
    worker, and the payment that places one, an entry's, ends the loop.)"""
    use = False
    while True:
        ph = st[E.PHASE]
        if ph == PH_FIX:
            m = st[E.POS]
            t = st[E.LAST_T]
            a = A_FIX
            for pm in range(6):
                if E.malfunction(st, m, pm, t) > 0:
                    a = A_FIX + 4 * pm + t
                    break
        elif ph == PH_PAY:
            if not use:
                _usable(st, p, ws)
                use = True
            a = _pay_step(st, ws)
        else:
            return plen
        E.apply(st, p, np.int64(a))
        if plen < PATH_MAX:
            ws[W_PATH + plen] = a
        plen += 1


# ---- the planner's steps: the engine's step primitives, with the path written beside them -------------
@njit(cache=True, _nrt=False, inline="always")
def _drop_do(st, p, ws, plen, t, d):
    """Drop a type-t worker (st in PH_MOVE, one in hand) and fix greedily (``E.drop_and_fix``: the
    engine's apply of the drop, then of each fix of the lowest printed kind, which is what
    ``_settle`` plays), its undo record at depth d of W_UNDO for ``_drop_undo``; the drop and the
    fixes it reports are appended to the path. Returns the new path length."""
    u = W_UNDO + d * U_SIZE
    nfix = E.drop_and_fix(st, p, t, ws, u)
    if plen < PATH_MAX:
        ws[W_PATH + plen] = A_DROP + t
    plen += 1
    pm = 0
    while nfix > 0:  # the fixes by printed kind, lowest first, until all are written
        f = ws[u + E.DROP_UNDO_FIXES + pm]
        for _ in range(f):
            if plen < PATH_MAX:
                ws[W_PATH + plen] = A_FIX + 4 * pm + t
            plen += 1
        nfix -= f
        pm += 1
    return plen


@njit(cache=True, _nrt=False, inline="always")
def _drop_undo(st, ws, t, d):
    """Undo the type-t drop ``_drop_do`` made at depth d (``E.undo_drop``)."""
    u = W_UNDO + d * U_SIZE
    E.undo_drop(st, t, ws, u)


@njit(cache=True, _nrt=False)
def _enter_do(st, ws, plen, t, cost):
    """The plain entry of the last worker (type t) when the current player holds cost tokens of
    type t (``E.enter_and_pay``: the engine's apply of the entry, then of each payment of the
    lowest printed kind, which is what ``_settle`` plays); the entry and the payments it reports
    (at W_PAID) are appended to the path. Returns the path length."""
    E.enter_and_pay(st, t, cost, ws[W_PAID:W_PAID + 6])
    if plen < PATH_MAX:
        ws[W_PATH + plen] = A_ENTER
    plen += 1
    for pm in range(6):
        for _ in range(ws[W_PAID + pm]):
            if plen < PATH_MAX:
                ws[W_PATH + plen] = A_PAY + 4 * pm + t
            plen += 1
    return plen


# ---- the evaluation ------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _binom_tail(n, pr, r):
    """P(X >= r) for X ~ Binomial(n, pr), n small (products only: no pow calls)."""
    if r <= 0:
        return 1.0
    if r > n:
        return 0.0
    qr = 1.0 - pr
    # P(X = k) = C(n, k) pr^k qr^(n-k), summed for k < r; the tail is 1 minus that
    below = 0.0
    c = 1.0
    pk = 1.0
    for k in range(r):
        qk = 1.0
        for _ in range(n - k):
            qk *= qr
        below += c * pk * qk
        c = c * (n - k) / (k + 1)
        pk *= pr
    t = 1.0 - below
    return t if t > 0.0 else 0.0


@njit(cache=True, _nrt=False)
def _risk_table(s, p, ws):
    """P(machine m goes critical in the next placement | its load l) for the turn's usual number
    of draws: the bag does not change during a turn, so evaluate looks these up. Also the two
    tables of the rules that evaluate reads: W_SECB and W_ENDS."""
    for i in range(6):
        ws[W_SECB + i] = (1 << p[P_SECTION_TYPES + 2 * i]) | (1 << p[P_SECTION_TYPES + 2 * i + 1])
    for j in range(6):
        for gm in range(6):
            i1 = (j + gm) % 6
            i2 = (j - gm) % 6
            ws[W_ENDS + 6 * j + gm] = (ws[W_SECB + i1] << (4 * i1)) | (ws[W_SECB + i2] << (4 * i2))
    draws = E.draws_next(s, p)
    bag_n = s[E.BAG_N]
    ws[W_RDRAWS] = draws if bag_n > 0 and p[P_CRIT_ABOVE] == 3 else -1
    for m in range(6):
        bm = 0
        for t in range(4):
            bm += E.bag(s, m, t)
        for lm in range(4):
            r = _binom_tail(draws, bm / bag_n, 4 - lm) if bag_n > 0 else 0.0
            ws[W_RISK + 4 * m + lm] = np.int32(r * RISK_SCALE)


@njit(cache=True, _nrt=False)
def _entry_bits(mask):
    """The number of (section, type) entries in an entry mask (bit 4i + t), by a bit-parallel
    popcount, and the bits of the types some entry takes (the OR of its six nibbles)."""
    types = (mask | (mask >> 4) | (mask >> 8) | (mask >> 12) | (mask >> 16) | (mask >> 20)) & 15
    x = mask - ((mask >> 1) & 0x555555)
    x = (x & 0x333333) + ((x >> 2) & 0x333333)
    x = (x + (x >> 4)) & 0x0F0F0F
    n = ((np.int64(x) * 0x010101) >> 16) & 0xFF   # int64 as compiled (uncompiled, an int32 x overflowed: harmless, but warned)
    return n, types


@njit(cache=True, _nrt=False)
def _reach(s, p):
    """The Orphanage entries one pick-up reaches from today's worker positions: the number of
    distinct (section, type) entries, and a bit per type that some entry takes. (Bit 4i + t of
    the mask: section i takes a type-t worker from a group of g that ends there, g - 1 machines
    on either way; set without branches, counted by a bit-parallel popcount.)"""
    mask = 0
    for j in range(6):
        g = E.group(s, j)
        if g == 0:
            continue
        for i in ((j + (g - 1)) % 6, (j - (g - 1)) % 6):
            e = 1 if E.section(s, i) < 0 else 0
            t = p[P_SECTION_TYPES + 2 * i]
            mask |= (e & (1 if E.workers(s, j, t) > 0 else 0)) << (4 * i + t)
            t = p[P_SECTION_TYPES + 2 * i + 1]
            mask |= (e & (1 if E.workers(s, j, t) > 0 else 0)) << (4 * i + t)
    return _entry_bits(mask)


@njit(cache=True, _nrt=False)
def _enters(ws, q, cost, nova, reach):
    """Can seat q (knowledge at ws[W_HAVE + 4q]) pay for a reachable entry (type bits reach)?"""
    b = W_HAVE + 4 * q
    tot = ws[b] + ws[b + 1] + ws[b + 2] + ws[b + 3]
    for t in range(4):
        if (reach >> t) & 1:
            h = ws[b + t]
            if h >= cost or (nova and h >= cost - 1 and tot >= cost):
                return 1
    return 0


@njit(cache=True, _nrt=False)
def _discard_to_limit(ws, b, tot, lim, use):
    """The end-of-turn discard by the canonical rule on one player's stacks at ws[b:b + 4] (tot
    tokens, use: the usable types as bits): while over the limit, one token of the first type
    worth least to keep. Returns the tokens kept."""
    while tot > lim:
        bt = -1
        bv = 1 << 30
        for t in range(4):
            h = ws[b + t]
            if h > 0:
                v = _keep_value(h, (use >> t) & 1)
                if v < bv:
                    bv = v
                    bt = t
        ws[b + bt] -= 1
        tot -= 1
    return tot


# The order evaluate sums the weighted features in (the order of its first expression, kept so that
# the score stays the same float): tests/test_bw_heuristic.py::test_evaluate_is_the_weights_times_the_features
# sums theta[i] * feature i in this order and finds evaluate's score bit for bit.
EVAL_ORDER = (T_SPYLOSS, T_PSPY, T_SPREAD, T_MISSING, T_SELF, T_SPIES2, T_PROGRESS, T_BUILT, T_CRIT,
              T_EXPCRIT, T_P3, T_P4, T_SPIES, T_BEST, T_SECOND, T_READY, T_NEXT, T_NEXT2, T_CONC,
              T_KNOW, T_LOAD, T_SPOTS, T_DRAWS, T_MAXLOAD)
assert sorted(EVAL_ORDER) == list(range(len(THETA_NAMES)))


@njit(cache=True, _nrt=False, inline="always")
def evaluation_features(s, p, ws, want_next2, want_self):
    """The evaluation's features of a position at the end of a turn's moves (not terminal): the one
    computation behind ``evaluate`` (their weighted sum) and the first 24 of
    ``features.features`` (the learned player's).

    Returns (f, p_ge2, b3, cost): f, the 24 features as floats in THETA_NAMES order (f[T_BUILT],
    ...); P(2 or more machines critical after the next placement); the third best usable stack
    (after the discard); the next piece's cost. Leaves at W_USE the usable types and at W_HAVE
    each seat's knowledge after the end-of-turn discard (``features`` reads the seats' stacks
    there). next2_enter and self_enter are computed only when want_next2 / want_self (else 0:
    ``evaluate`` asks for them only when their weight is not 0).

    One pass over the Orphanage and one over the machines give what ``_usable``, ``_reach`` and
    ``E.orphanage_count`` would, with the tables W_SECB and W_ENDS that ``plan_turn`` makes through
    ``_risk_table`` (and its risk table W_RISK where the draws are the turn's). Inlined into its
    two callers (numba ``inline="always"``), so the tuple is never built in memory and what
    ``evaluate`` does not use is not computed."""
    np_ = s[E.NP]
    cur = s[E.CUR]
    above = p[P_CRIT_ABOVE]
    # the Orphanage: pieces built, open sections (bits), the types open sections accept (bits)
    built = 0
    open4 = 0  # 0xF at bits 4i..4i+3 for an open section i
    acc = 0
    for i in range(6):
        if E.section(s, i) >= 0:
            built += 1
        else:
            open4 |= 15 << (4 * i)
            acc |= ws[W_SECB + i]
    # the workers: each machine's group, the types on it; the entries one pick-up reaches
    # (bit 4i + t: section i takes a type-t worker from a group that ends there)
    outm = ((1 if E.hand(s, 0) > 0 else 0) | (2 if E.hand(s, 1) > 0 else 0)
            | (4 if E.hand(s, 2) > 0 else 0) | (8 if E.hand(s, 3) > 0 else 0))
    mask = 0
    spread = 0
    for j in range(6):
        w0 = E.workers(s, j, 0)
        w1 = E.workers(s, j, 1)
        w2 = E.workers(s, j, 2)
        w3 = E.workers(s, j, 3)
        g = w0 + w1 + w2 + w3
        if g == 0:
            continue
        spread += 1
        tm = (1 if w0 > 0 else 0) | (2 if w1 > 0 else 0) | (4 if w2 > 0 else 0) | (8 if w3 > 0 else 0)
        outm |= tm
        mask |= (tm * 0x111111) & ws[W_ENDS + 6 * j + (g - 1) % 6]  # tm in every section's bits
    mask &= open4
    use = acc & outm  # types some open section accepts, with a worker outside the Orphanage
    for t in range(4):
        ws[W_USE + t] = (use >> t) & 1
    spots, reach = _entry_bits(mask)
    cost = E.piece_cost(s, p, built)
    lim = E.knowledge_limit(s, p)
    # knowledge after the end-of-turn discard (canonical rule)
    know = 0
    b1 = 0
    b2 = 0
    b3 = 0
    ready = 0
    conc = 0
    for q in range(np_):
        h0 = E.held(s, q, 0)
        h1 = E.held(s, q, 1)
        h2 = E.held(s, q, 2)
        h3 = E.held(s, q, 3)
        tot = h0 + h1 + h2 + h3
        ws[W_HAVE + 4 * q] = h0
        ws[W_HAVE + 4 * q + 1] = h1
        ws[W_HAVE + 4 * q + 2] = h2
        ws[W_HAVE + 4 * q + 3] = h3
        if tot > lim:
            tot = _discard_to_limit(ws, W_HAVE + 4 * q, tot, lim, use)
            h0 = ws[W_HAVE + 4 * q]
            h1 = ws[W_HAVE + 4 * q + 1]
            h2 = ws[W_HAVE + 4 * q + 2]
            h3 = ws[W_HAVE + 4 * q + 3]
        know += tot
        best = 0
        if (use & 1) != 0 and h0 > best:
            best = h0
        if (use & 2) != 0 and h1 > best:
            best = h1
        if (use & 4) != 0 and h2 > best:
            best = h2
        if (use & 8) != 0 and h3 > best:
            best = h3
        conc += best
        if best >= cost:
            ready += 1
        if best > b1:
            b3 = b2
            b2 = b1
            b1 = best
        elif best > b2:
            b3 = b2
            b2 = best
        elif best > b3:
            b3 = best
    # the next placement: expected critical machines from the bag's odds
    draws = E.draws_next(s, p)
    bag_n = s[E.BAG_N]
    table = draws == ws[W_RDRAWS]
    rone = s[E.RONE_M]
    ncrit = 0
    load = 0
    maxload = 0
    spies = 0
    d0 = 1.0
    d1 = 0.0
    d2 = 0.0
    d3 = 0.0
    d4 = 0.0  # P(4 or more)
    expc = 0.0
    quiet = 1.0  # P(no machine goes critical)
    for m in range(6):
        sp = E.spy_at(s, m)
        lm = E.load(s, m) + sp
        spies += sp
        load += lm
        if lm > above:
            ncrit += 1
            r = 1.0
        else:
            if lm > maxload:
                maxload = lm
            if rone == m or bag_n == 0:
                continue  # r = 0: every product and sum below stays as it is
            elif table and lm < 4:
                r = ws[W_RISK + 4 * m + lm] / RISK_SCALE
            else:
                bm = 0
                for t in range(4):
                    bm += E.bag(s, m, t)
                r = _binom_tail(draws, bm / bag_n, above + 1 - lm)
            if r == 0.0:
                continue  # exact: with r = 0 the updates below leave every product and sum as it is
            quiet *= 1.0 - r
        expc += r
        d4 = d4 + d3 * r
        d3 = d3 * (1.0 - r) + d2 * r
        d2 = d2 * (1.0 - r) + d1 * r
        d1 = d1 * (1.0 - r) + d0 * r
        d0 = d0 * (1.0 - r)
    q1 = (cur + 1) % np_
    q2 = (cur + 2) % np_
    nxt = _enters(ws, q1, cost, E.ability(s, p, q1) == NOVA, reach)
    nxt2 = 0
    if want_next2 and q2 != cur:
        nxt2 = _enters(ws, q2, cost, E.ability(s, p, q2) == NOVA, reach)
    selfe = 0
    if want_self:
        selfe = _enters(ws, cur, cost, E.ability(s, p, cur) == NOVA, reach)
    prog = min(b1, cost) / cost
    if cost + 1 <= 6 + (cost - built - 1):
        prog += min(b2, cost + 1) / (cost + 1)
    if cost + 2 <= 6 + (cost - built - 1) and np_ > 2:
        prog += min(b3, cost + 2) / (cost + 2)
    pspy = 1.0 - quiet
    f = (
        float(built),                          # T_BUILT
        float(ncrit),                          # T_CRIT
        expc,                                  # T_EXPCRIT
        d3 + d4,                               # T_P3
        d4,                                    # T_P4
        float(spies),                          # T_SPIES
        min(b1, cost) / cost,                  # T_BEST
        min(b2, cost + 1) / (cost + 1),        # T_SECOND
        float(ready),                          # T_READY
        float(nxt),                            # T_NEXT
        float(nxt2),                           # T_NEXT2
        float(conc),                           # T_CONC
        float(know),                           # T_KNOW
        float(load),                           # T_LOAD
        float(spots),                          # T_SPOTS
        float(draws),                          # T_DRAWS
        float(maxload),                        # T_MAXLOAD
        prog,                                  # T_PROGRESS
        float(spies * spies),                  # T_SPIES2
        float(max(0, cost - b1)),              # T_MISSING
        float(selfe),                          # T_SELF
        pspy,                                  # T_PSPY
        float(spread),                         # T_SPREAD
        pspy if spies >= 5 else 0.0,           # T_SPYLOSS
    )
    return f, d2 + d3 + d4, b3, cost


@njit(cache=True, _nrt=False)
def evaluate(s, p, theta, ws):
    """The linear score of a position at the end of a turn's moves (before `end turn`): theta[i]
    times ``evaluation_features``' feature i, summed in EVAL_ORDER, plus LOSS_SCORE when four
    machines are critical; a terminal position is WIN_SCORE or -WIN_SCORE. next2_enter and
    self_enter are computed only when their weight is not 0 (0 times the feature is 0 either way).

    The same score as tests/bw_heuristic_reference.py::evaluate_plain, bit for bit, and the same
    scratch left at W_USE and W_HAVE."""
    ws[W_NEVAL] = (ws[W_NEVAL] + 1) & 0x3FFFFFFF
    if s[E.PHASE] == PH_TERMINAL:
        return WIN_SCORE if s[E.OUTCOME] == OUT_WIN else -WIN_SCORE
    f, _, _, _ = evaluation_features(s, p, ws, theta[T_NEXT2] != 0.0, theta[T_SELF] != 0.0)
    score = (theta[T_SPYLOSS] * f[T_SPYLOSS] + theta[T_PSPY] * f[T_PSPY] + theta[T_SPREAD] * f[T_SPREAD]
             + theta[T_MISSING] * f[T_MISSING] + theta[T_SELF] * f[T_SELF] + theta[T_SPIES2] * f[T_SPIES2]
             + theta[T_PROGRESS] * f[T_PROGRESS] + theta[T_BUILT] * f[T_BUILT] + theta[T_CRIT] * f[T_CRIT]
             + theta[T_EXPCRIT] * f[T_EXPCRIT] + theta[T_P3] * f[T_P3] + theta[T_P4] * f[T_P4]
             + theta[T_SPIES] * f[T_SPIES] + theta[T_BEST] * f[T_BEST] + theta[T_SECOND] * f[T_SECOND]
             + theta[T_READY] * f[T_READY] + theta[T_NEXT] * f[T_NEXT] + theta[T_NEXT2] * f[T_NEXT2]
             + theta[T_CONC] * f[T_CONC] + theta[T_KNOW] * f[T_KNOW] + theta[T_LOAD] * f[T_LOAD]
             + theta[T_SPOTS] * f[T_SPOTS] + theta[T_DRAWS] * f[T_DRAWS] + theta[T_MAXLOAD] * f[T_MAXLOAD])
    if f[T_CRIT] >= E.CRITICAL_LOSS_AT:
        score += LOSS_SCORE
    return score


# ---- the plan search --------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _quant(x):
    return score_int(x * SCORE_SCALE)   # truncated toward zero


@njit(cache=True, _nrt=False)
def _offer_top(ws, st, plen, sc):
    """Keep the plan among the W_TOPK best with distinct end positions; its end position is kept
    at W_TST (the learned player scores it there). A plan that would not enter is turned away
    before its end is compared; an end equal to a kept one has the same score (the evaluation is
    a function of the position), so only kept plans of an equal score are compared."""
    nt = ws[W_TN]
    full = nt >= ws[W_TOPK]
    c = nt
    if full:
        c = 0
        for i in range(1, nt):
            if ws[W_TSC + i] < ws[W_TSC + c]:
                c = i
        if sc <= ws[W_TSC + c]:
            return
    for i in range(nt):
        if ws[W_TSC + i] == sc and E.same_position(ws[W_TST + i * S_SIZE: W_TST + (i + 1) * S_SIZE], st):
            return  # the same end position is kept already
    if not full:
        ws[W_TN] = nt + 1
    ws[W_TSC + c] = sc
    ws[W_TPL + c] = plen
    for i in range(plen):
        ws[W_TPATH + c * PATH_MAX + i] = ws[W_PATH + i]
    E.copy_position(ws[W_TST + c * S_SIZE: W_TST + (c + 1) * S_SIZE], st)


@njit(cache=True, _nrt=False)
def _offer_best(ws, st, plen, sc):
    """A finished plan (the path ws[W_PATH:][:plen], ending at position st) with score sc: keep it
    if it is the best (and among the best few, when the search asks for them)."""
    if sc > ws[W_BEST] and plen <= PATH_MAX:
        ws[W_BEST] = sc
        ws[W_BESTN] = plen
        for i in range(plen):
            ws[W_PLAN + i] = ws[W_PATH + i]
    if ws[W_TOPK] > 0 and plen <= PATH_MAX:
        _offer_top(ws, st, plen, sc)


@njit(cache=True, _nrt=False)
def _offer_candidate(ws, st, plen, sc):
    """Keep the position st (reached by the path) among the K_TOP best (W_KTOP when set) for the
    ability search."""
    _offer_best(ws, st, plen, sc)
    if plen > PATH_MAX:
        return
    n = ws[W_CN]
    kt = ws[W_KTOP] if ws[W_KTOP] > 0 else K_TOP
    if n < kt:
        c = n
        ws[W_CN] = n + 1
    else:
        c = 0
        for i in range(1, kt):
            if ws[W_CSC + i] < ws[W_CSC + c]:
                c = i
        if sc <= ws[W_CSC + c]:
            return
    ws[W_CSC + c] = sc
    ws[W_CPL + c] = plen
    for i in range(plen):
        ws[W_CPATH + c * PATH_MAX + i] = ws[W_PATH + i]
    dst = ws[W_CST + c * S_SIZE: W_CST + (c + 1) * S_SIZE]
    E.copy_position(dst, st)


@njit(cache=True, _nrt=False)
def _post_stage1(ws, p, theta, st, plen, c):
    """st holds the position after the last worker (path length plen): score it, and after each
    legal uncover (made in slot c)."""
    _offer_candidate(ws, st, plen, _quant(evaluate(st, p, theta, ws)))
    if st[E.PHASE] != PH_POST or st[E.LASTM] < 0 or st[E.UNCOVERED] != 0 or c >= N_SLOTS:
        return
    lm = st[E.LASTM]
    if E.spy_at(st, lm) == 0 and not (E.ability(st, p, st[E.CUR]) == FARE and st[E.ABIL_USED] == 0
                                      and E.spy_at(st, (lm + 1) % 6) + E.spy_at(st, (lm + 5) % 6) > 0):
        return  # no spy to uncover
    acts = ws[W_ACTS2: W_ACTS2 + N_ACTIONS]
    n = E.uncover_actions(st, p, acts, 0)  # the legal list's uncovers (43-46), without its abilities
    child = ws[W_SLOT + c * S_SIZE: W_SLOT + (c + 1) * S_SIZE]
    for i in range(n):
        a = acts[i]
        E.copy_position(child, st)
        if plen < PATH_MAX:
            ws[W_PATH + plen] = a
        E.apply(child, p, np.int64(a))
        pl2 = _settle(child, p, ws, plen + 1)
        _offer_candidate(ws, child, pl2, _quant(evaluate(child, p, theta, ws)))


@njit(cache=True, _nrt=False)
def _search_moves(ws, p, theta, d0):
    """Depth first over the drops from the MOVE position in slot d0 (its path length at W_PLEN+d0):
    child i < 4 drops a worker of type i, 4 enters the Orphanage (with Nova's entry when the plain
    one is illegal). The drops are made in place in slot d0 (``_drop_do``: ``E.drop_and_fix``) and
    undone on the way back (``_drop_undo``: ``E.undo_drop``), so slot d0 ends as it began; an entry is played on a copy in slot
    d0 + 1 (its uncovers in d0 + 2), as are the uncovers after a drop that empties the hand."""
    st = ws[W_SLOT + d0 * S_SIZE: W_SLOT + (d0 + 1) * S_SIZE]
    child = ws[W_SLOT + (d0 + 1) * S_SIZE: W_SLOT + (d0 + 2) * S_SIZE]
    ws[W_IT + d0] = 0
    d = d0
    while True:
        it = ws[W_IT + d]
        if it >= 5 or d + 2 >= N_SLOTS:
            if d == d0:
                return
            d -= 1
            _drop_undo(st, ws, ws[W_IT + d] - 1, d)
            continue
        ws[W_IT + d] = it + 1
        plen = ws[W_PLEN + d]
        if it < 4:
            if E.hand(st, it) == 0:
                continue
            pl2 = _drop_do(st, p, ws, plen, it, d)
            if st[E.PHASE] == PH_MOVE:
                d += 1
                ws[W_PLEN + d] = pl2
                ws[W_IT + d] = 0
            else:
                _post_stage1(ws, p, theta, st, pl2, d0 + 1)
                _drop_undo(st, ws, it, d)
        else:
            # the entry child (the engine's entry rules: E.entry_type, E.entry_cost,
            # E.entry_payable): the plain entry, else Nova's
            t = E.entry_type(st, p)
            if t < 0:
                continue  # (no entry is legal: neither is tried)
            cost = E.entry_cost(st, p)
            if E.entry_payable(st, p, t, cost, 0):
                E.copy_position(child, st)
                pl2 = _enter_do(child, ws, plen, t, cost)
                _post_stage1(ws, p, theta, child, pl2, d0 + 2)
                continue
            if E.ability(st, p, st[E.CUR]) != NOVA or st[E.ABIL_USED] != 0:
                continue
            if not E.entry_payable(st, p, t, cost, 1):
                continue
            a = A_ENTER_NOVA
            E.copy_position(child, st)
            if plen < PATH_MAX:
                ws[W_PATH + plen] = a
            E.apply(child, p, np.int64(a))
            pl2 = _settle(child, p, ws, plen + 1)
            if child[E.PHASE] == PH_MOVE:
                continue  # (an entry never leaves workers in hand)
            _post_stage1(ws, p, theta, child, pl2, d0 + 2)


@njit(cache=True, _nrt=False)
def _rone_pair(s, ws):
    """Rone pays his cheapest pair of types: the two types worth least to him that he holds."""
    cur = s[E.CUR]
    b1 = -1
    b2 = -1
    for t in range(4):
        h = E.held(s, cur, t)
        if h > 0:
            v = _keep_value(h, ws[W_USE + t])
            if b1 < 0 or v < _keep_value(E.held(s, cur, b1), ws[W_USE + b1]):
                b2 = b1
                b1 = t
            elif b2 < 0 or v < _keep_value(E.held(s, cur, b2), ws[W_USE + b2]):
                b2 = t
    if b2 < 0:
        return -1
    lo = min(b1, b2)
    hi = max(b1, b2)
    # TYPE_PAIRS = (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
    if lo == 0:
        return hi - 1
    if lo == 1:
        return hi + 1
    return 5


@njit(cache=True, _nrt=False)
def _finish_ability(ws, p, theta, st, plen, base):
    """st is past an ability action (path length plen): resolve its choices (Harris's machines,
    Linny's malfunction) over slots base.., and offer every finished plan."""
    plen = _settle(st, p, ws, plen)
    ph = st[E.PHASE]
    if ph == PH_HARRIS_FROM or ph == PH_LINNY:
        acts3 = ws[W_ACTS3: W_ACTS3 + N_ACTIONS]
        n = E.legal_actions(st, p, acts3)
        c1 = ws[W_SLOT + base * S_SIZE: W_SLOT + (base + 1) * S_SIZE]
        c2 = ws[W_SLOT + (base + 1) * S_SIZE: W_SLOT + (base + 2) * S_SIZE]
        for i in range(n):
            a = acts3[i]
            E.copy_position(c1, st)
            E.apply(c1, p, np.int64(a))
            if plen < PATH_MAX:
                ws[W_PATH + plen] = a
            if c1[E.PHASE] == PH_HARRIS_TO:
                # the destinations: every machine but the source (no list needed)
                src_m = c1[E.CARG2]
                for m in range(6):
                    if m == src_m:
                        continue
                    a2 = A_SELECT + m
                    E.copy_position(c2, c1)
                    E.apply(c2, p, np.int64(a2))
                    if plen + 1 < PATH_MAX:
                        ws[W_PATH + plen + 1] = a2
                    pl = _settle(c2, p, ws, plen + 2)
                    _offer_best(ws, c2, pl, _quant(evaluate(c2, p, theta, ws)))
            else:
                pl = _settle(c1, p, ws, plen + 1)
                _offer_best(ws, c1, pl, _quant(evaluate(c1, p, theta, ws)))
    else:
        _offer_best(ws, st, plen, _quant(evaluate(st, p, theta, ws)))


@njit(cache=True, _nrt=False)
def _stage2(ws, p, theta):
    """Every active ability after each of the K_TOP best stage-1 positions."""
    acts2 = ws[W_ACTS2: W_ACTS2 + N_ACTIONS]
    st = ws[W_SLOT: W_SLOT + S_SIZE]
    best_c = 0
    for c in range(ws[W_CN]):
        if ws[W_CSC + c] > ws[W_CSC + best_c]:
            best_c = c
    for c in range(ws[W_CN]):
        cst = ws[W_CST + c * S_SIZE: W_CST + (c + 1) * S_SIZE]
        if cst[E.PHASE] != PH_POST or cst[E.ABIL_USED] != 0:
            continue
        plen = ws[W_CPL + c]
        _usable(cst, p, ws)
        rp = _rone_pair(cst, ws)
        n = E.ability_actions(cst, p, acts2, np.int64(0))  # the abilities of the legal list (its actions >= A_HARRIS)
        for i in range(n):
            a = acts2[i]
            if a >= A_RONE and (a - A_RONE) % 6 != rp:
                continue
            if a < A_HARRIS + 4 and c != best_c:
                continue  # Harris's many (from, to) choices: only after the best position
            for j in range(plen):
                ws[W_PATH + j] = ws[W_CPATH + c * PATH_MAX + j]
            E.copy_position(st, cst)
            ws[W_PATH + plen] = a
            E.apply(st, p, np.int64(a))
            _finish_ability(ws, p, theta, st, plen + 1, 1)


@njit(cache=True, _nrt=False)
def _search_picks(ws, p, theta, d):
    """Every pick-up (machine with workers, direction) from the PRE position in slot d, each made
    in place on a copy in slot d + 1 (``E.pick_up``) and undone after its drops were searched
    (``E.unpick``)."""
    node = ws[W_SLOT + d * S_SIZE: W_SLOT + (d + 1) * S_SIZE]
    child = ws[W_SLOT + (d + 1) * S_SIZE: W_SLOT + (d + 2) * S_SIZE]
    plen = ws[W_PLEN + d]
    E.copy_position(child, node)
    pos = child[E.POS]
    dr = child[E.DIR]
    for a in range(A_DROP):
        if E.group(child, a // 2) == 0:
            continue
        ws[W_PATH + plen] = a
        E.pick_up(child, a)
        ws[W_PLEN + d + 1] = plen + 1
        _search_moves(ws, p, theta, d + 1)
        E.unpick(child, pos, dr)


@njit(cache=True, _nrt=False)
def _harris_first(ws, p, theta):
    """Harris before his pick-up: when he holds enough of a usable type t for the next piece (and
    the Harris payment) but no pick-up reaches an entry for a type-t worker, try each move of a
    type-t worker that makes one reachable, followed by every pick-up."""
    root = ws[W_SLOT: W_SLOT + S_SIZE]
    cur = root[E.CUR]
    if E.ability(root, p, cur) != HARRIS or root[E.ABIL_USED] != 0:
        return
    cost = E.entry_cost(root, p)
    tax = E.effect_active(root, p, E_ABILITY)
    _usable(root, p, ws)
    _, reach = _reach(root, p)
    tot = E.knowledge_total(root, cur)
    h = ws[W_SLOT + S_SIZE: W_SLOT + 2 * S_SIZE]
    for t in range(4):
        if ws[W_USE + t] == 0 or (reach >> t) & 1:
            continue
        if E.held(root, cur, t) < cost + 1 or tot < cost + 1 + tax:
            continue
        for fm in range(6):
            if E.workers(root, fm, t) == 0:
                continue
            for tm in range(6):
                if tm == fm:
                    continue
                E.move_worker(root, t, fm, tm)  # a trial move, taken back
                _, r2 = _reach(root, p)
                E.move_worker(root, t, tm, fm)
                if (r2 >> t) & 1 == 0:
                    continue
                E.copy_position(h, root)
                ws[W_PATH] = A_HARRIS + t
                E.apply(h, p, np.int64(A_HARRIS + t))
                pl = _settle(h, p, ws, np.int64(1))
                if h[E.PHASE] != PH_HARRIS_FROM:
                    continue
                ws[W_PATH + pl] = A_SELECT + fm
                E.apply(h, p, np.int64(A_SELECT + fm))
                ws[W_PATH + pl + 1] = A_SELECT + tm
                E.apply(h, p, np.int64(A_SELECT + tm))
                ws[W_PLEN + 1] = pl + 2
                _search_picks(ws, p, theta, np.int64(1))


@njit(cache=True, _nrt=False)
def plan_turn(s, p, theta, ws):
    """Search the rest of the current player's turn from s; store the best plan in ws."""
    ws[W_NPLAN] = (ws[W_NPLAN] + 1) & 0x3FFFFFFF
    _risk_table(s, p, ws)
    ws[W_CN] = 0
    ws[W_TN] = 0
    ws[W_BEST] = NEG_INF_Q
    ws[W_BESTN] = 0
    root = ws[W_SLOT + (0) * S_SIZE: W_SLOT + (0 + 1) * S_SIZE]
    E.copy_position(root, s)
    ws[W_PLEN] = 0
    ph = s[E.PHASE]
    if ph == PH_PRE:
        _search_picks(ws, p, theta, np.int64(0))
        _harris_first(ws, p, theta)
    else:
        ws[W_PLEN] = _settle(root, p, ws, np.int64(0))
        if root[E.PHASE] == PH_MOVE:
            _search_moves(ws, p, theta, np.int64(0))
        else:
            _post_stage1(ws, p, theta, root, np.int64(ws[W_PLEN]), np.int64(1))
    _stage2(ws, p, theta)
    n = ws[W_BESTN]
    if n < PATH_MAX:
        ws[W_PLAN + n] = A_END_TURN  # harmless when the plan ends the game
        n += 1
    keep_plan(ws, np.int64(n), s[E.TURN], s[E.ST_DECISIONS])


@njit(cache=True, _nrt=False)
def planned_step(s, seat, acts, n, ws):
    """The next step of the plan stored at W_PLAN when s is the position it expects (the seat's
    own turn, the turn it was made for, the decision count it predicts, the step legal); -1
    otherwise (the caller plans again)."""
    ph = s[E.PHASE]
    mine = s[E.CUR] == seat and ph != PH_PAY or (ph == PH_PAY and s[E.PAYER] == seat and s[E.CUR] == seat)
    if not mine:
        return -1
    return next_step(ws, np.int64(W_PLAN), s[E.TURN], s[E.ST_DECISIONS], acts, n)


@njit(cache=True, _nrt=False)
def planning_turn(s, seat):
    """Does `seat` plan its turn at s (its own turn, in a phase a whole-turn plan starts from)?"""
    ph = s[E.PHASE]
    return s[E.CUR] == seat and (ph == PH_PRE or ph == PH_MOVE or ph == PH_FIX or ph == PH_POST)


@njit(cache=True, _nrt=False)
def heuristic_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending). `key` is unused (no ties are
    broken at random), and so is `net` (the heuristic reads no network; the plug point's
    signature). ws: this seat's int32 workspace of WS_SIZE entries."""
    a = planned_step(s, seat, acts, n, ws)
    if a >= 0:
        return a
    if s[E.PHASE] == PH_PAY:
        a = pay_rule(s, p, ws)
        return a if contains(acts, n, a) else acts[0]
    if planning_turn(s, seat):
        plan_turn(s, p, theta, ws)
        a = ws[W_PLAN]
        if ws[W_PLAN_N] > 0 and contains(acts, n, a):
            ws[W_PLAN_I] = 1
            return a
        ws[W_VALID] = 0
    return acts[0]
