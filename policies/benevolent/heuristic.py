"""Benevolent: a compiled whole-turn heuristic.

At the start of its turn (or whenever the position is not the one its plan expects) the policy
searches the rest of its turn depth first on copies of the position, stepped with the engine's own
``apply``, and scores every end of the turn with ``evaluate``; it then plays the best plan's steps
one decision at a time. Benevolent has no chance step after setup (engine.py: the forest and the
Secret tiles are dealt face up), so every action's outcome is exact: this is a lookahead over all
of the turn's decisions (movement, action, Secrets, repeats, whom to take a gift from), not just
one step.

Canonical choices keep the tree small:
- single-use Secrets are resolved only after the movement (in the action window or after the
  action), never before it (what they give does not depend on it, except the leaves of "gain
  Clover", which the action window still sees); within one window in ascending order of the
  Secret (the order of two Secrets in a row rarely matters);
- at most MAX_LEAVES ends of the turn are scored (the best so far is played when it is reached).

``evaluate`` scores a position for one seat: a linear function of the features THETA_NAMES for
that seat, minus ``opp_scale`` times the same function for the strongest opponent, minus extra
terms for the opponents' next turn (the gifts they can reach; one of them able to win), and a
large bonus for a win. The features of a player:
- gift kinds held (five win);
- eta, the tempo: the estimated turns to receive every missing kind, each by its quickest route
  (``route_turns``: a single-use Secret held, the Meadow or the Nest, the Stone Altar with the
  turns of gathering for its price, the Pond's sleeps along the Dream Path, the Ring of Stones
  from a spare token of a lower kind);
- spare tokens of the four lower kinds (what the Ring of Stones and the exchange tiles turn into
  the next kind, and what stays when an opponent takes one from an empty stack);
- leaves (to 12, then beyond);
- single-use and permanent Secrets held;
- reach: missing kinds the player could receive on their next turn with one movement and one hex
  action, paying for every Footstep on the hex (so a Footstep of ours on the hex an opponent needs
  makes it dearer: denial), a Secret taken at a Wooden Table and the single-use Secrets held
  included; and whether that completes the five kinds (a win on the next turn);
- vulnerable kinds: held once while the stack is empty and an opponent misses it (they would take
  it from us).

Ties go to the first plan found, so the policy is deterministic and never uses its key; the
search policy (search.py) runs the same turn search with noise added to the scores, drawn from its
own key.

Workspace: ``ws`` is an int32 array of WS_SIZE entries per seat (the plan, the depth-first
search's positions and legal lists, the best candidates); nothing is allocated in a decision.

Arguments written ``np.int64(...)`` at a call site (here and in the other Benevolent players):
numba compiles a function once per argument type and once per literal constant it is called
with, so a seat read from the position (int32), a Python int constant (``Literal[int](1)``) and an
int64 would make three compiles of one function for a first run to pay (docs/benchmarks.md,
"Compile time").
"""
import numpy as np
from numba import njit

from simcore.benevolent import engine as E
from simcore.benevolent.actions import (
    A_DECLINE, A_END_TURN, A_SECRET, N_ACTIONS, OUT_WIN, PH_ACTION, PH_END, PH_MOVE, PH_TERMINAL,
)
from simcore.benevolent.rules import (
    ALTAR, MEADOW, NEST, P_ARROWS, P_N_ARROWS, POND, RESOLVE_PURCHASE_DISCOUNT, RING, SU_CRYSTAL3, SU_EXCH1, SU_EXCH3,
    SU_EXCHANGE, SU_GAIN_CLOVER, SU_GAIN_FEATHER, SU_PURCHASE, SU_SLEEP, TABLE,
)
from simcore.layout import EVEN, Layout
from simcore.rng import draw

from ..plan import PLAN_ROWS, contains, forget_plan, keep_plan, next_step, score_int

# ---- the evaluation's weights ---------------------------------------------------------------------
THETA_NAMES = (
    "kinds",          # gift kinds held (five win)
    "eta",            # estimated turns to receive every missing kind (eta_turns)
    "leaves",         # leaves held, up to 12
    "leaves_extra",   # leaves beyond 12
    "spare",          # spare tokens of Clover..Amber (count - 1 each), at most 4 counted
    "single",         # single-use Secrets held
    "permanent",      # permanent Secrets held
    "reach",          # missing kinds reachable on the next turn (one hex action + Secrets), at most 2
    "win_next",       # the reach completes the five kinds: a win on the next turn
    "vulnerable",     # kinds held once, the stack empty, an opponent missing it
    "opp_scale",      # weight of the strongest opponent's evaluation (subtracted)
    "opp_reach",      # extra weight of the gifts the opponents can reach next (subtracted)
    "opp_win_next",   # an opponent can win on their next turn (subtracted)
)
THETA_DEFAULT = np.array([
    10.0, -4.0, 0.3, 0.05, 0.5, 1.0, 1.0, 2.0, 8.0, -2.0, 1.0, 2.0, 30.0,
])
THETA_BOUNDS = np.array([
    [0.0, 30.0], [-15.0, 0.0], [0.0, 2.0], [0.0, 1.0], [0.0, 5.0], [0.0, 5.0], [0.0, 5.0], [0.0, 10.0],
    [0.0, 30.0], [-10.0, 0.0], [0.0, 2.0], [0.0, 10.0], [0.0, 100.0],
])
(T_KINDS, T_ETA, T_LEAVES, T_LEAVES_X, T_SPARE, T_SINGLE, T_PERM, T_REACH, T_WIN_NEXT, T_VULN, T_OPP_SCALE,
 T_OPP_REACH, T_OPP_WIN) = range(len(THETA_NAMES))
N_THETA = len(THETA_NAMES)
assert len(THETA_DEFAULT) == len(THETA_NAMES) == len(THETA_BOUNDS)

WIN_SCORE = 100_000.0   # a won position (kept within int32 after SCORE_SCALE)
LEAF_CAP = 12           # leaves beyond the dearest gift's price count at "leaves_extra"
SPARE_CAP = 4
REACH_CAP = 2
DEPTH_MAX = 24          # decisions in one turn's plan (movement, Secrets, action, repeats, end)
MAX_LEAVES = 3000       # ends of the turn scored in one search at most
K_MAX = 16              # candidate plans kept at most (search: 4 by default; learned: 8; expert: 16)
SCORE_SCALE = 1000.0    # candidate scores are kept as integers (ws is int32)
NEG_INF_Q = -2_000_000_000

# ---- workspace layout (int32) ---------------------------------------------------------------------
# One table, in array order (simcore/layout.py, as the engine's state): each field's offset is the
# sum of the sizes above it (and of a pad before a field marked EVEN), bound at import as a plain
# module int (W_PLAN = 8, ...), a compile-time constant for numba; a field of 8-byte values viewed
# over int32 pairs is marked EVEN and starts at an even offset (tests/test_layout.py checks both).
S_SIZE = E.S_SIZE
WS = Layout(
    *PLAN_ROWS,   # W_VALID, W_PLAN_N, W_PLAN_I, W_TURN, W_DEC0 (policies/plan.py)
    ("W_NLEAF", 1, None, "ends of the turn scored by the last search"),
    ("W_NSEARCH", 1, None, "statistics: searches made (wraps around)"),
    ("W_CN", 1, None, "candidates kept"),
    ("W_PLAN", DEPTH_MAX, None, "the plan"),
    ("W_PATH", DEPTH_MAX, None, "the path being searched"),
    ("W_IT", DEPTH_MAX + 1, None, "the child iterator per depth"),
    ("W_NA", DEPTH_MAX + 1, None, "legal actions per depth"),
    ("W_MINSEC", DEPTH_MAX + 1, None, "per depth, the lowest Secret that may be resolved next"),
    ("W_CSC", K_MAX, None, "candidate scores (x SCORE_SCALE), best first"),
    ("W_CPL", K_MAX, None, "their plan lengths"),
    ("W_CPATH", K_MAX * DEPTH_MAX, None, "their plans"),
    ("W_ACTS", (DEPTH_MAX + 1) * N_ACTIONS, None, "legal lists per depth"),
    ("W_SLOT", (DEPTH_MAX + 1) * S_SIZE, None, "positions per depth"),
    ("W_CH", K_MAX, None, "the candidates' end-position hashes, their 31 high bits (distinct mode)"),
    ("W_DISTINCT", 1, None, "keep only plans with distinct end positions (learned, expert)"),
    ("W_CHF", 2 * K_MAX, None, "their full 64-bit hashes (uint64, distinct mode: ``kept_hash``)", EVEN),
)
globals().update(WS.offsets)   # W_VALID = 0, W_PLAN_N = 1, ..., W_CHF
WS_SIZE = WS.size

_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, _nrt=False)
def heuristic_reset(ws):
    forget_plan(ws)
    ws[W_DISTINCT] = 0


@njit(cache=True, _nrt=False)
def popcount(m):
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@njit(cache=True, _nrt=False)
def _uniform(key, i):
    """A uniform float in [0, 1) from number i of the stream `key`."""
    return np.float64(draw(key, i) >> _S11) * _INV53


# ---- the evaluation --------------------------------------------------------------------------------
# The rules it needs are the engine's (simcore/benevolent/engine.py: the accessors, and move_reach,
# footstep_cost_packed, sleep_gifts, exchange_tile_payable, crystal_price, ...); what is the
# heuristic's own is which of a next turn's gifts it counts.
@njit(cache=True, _nrt=False)
def hex_reach(s, p, x, lv, allfeet):
    """Gifts x could receive on its next turn with one movement (engine.move_reach) and that hex's
    action (paying for the Footsteps there: engine.footstep_cost_packed), a single-use Secret taken
    at a Wooden Table and resolved at once included; an exchange counts only when a spare token is
    given. `allfeet`: engine.all_feet_packed(s)."""
    dest = E.move_reach(s, x)
    gm = 0
    pos = E.dream(s, x)
    others = allfeet - E.feet_packed(s, x)
    for h in range(s[E.N_HEX]):
        if not dest & (1 << h):
            continue
        cost = E.footstep_cost_packed(s, x, h, others)
        if lv < cost:
            continue
        t = E.hex_type(s, h)
        if t == ALTAR:
            for g in range(5):
                if lv >= cost + E.price(s, p, x, g, 0):
                    gm |= 1 << g
        elif t == MEADOW:
            gm |= 1
        elif t == NEST:
            gm |= 2
        elif t == POND:
            gm |= E.sleep_gifts(p, pos)
        elif t == RING:
            for g in range(4):
                if E.gifts(s, x, g) > 1:
                    gm |= 1 << (g + 1)
        elif t == TABLE:
            # a single-use Secret taken here can be resolved at once
            for i in range(9):
                if E.slot_side(s, i) == 0 and E.slot_available(s, i):
                    gm |= _one_secret_gifts(s, p, x, np.int64(E.slot_tile(s, i)), np.int64(lv - cost))
    return gm


@njit(cache=True, _nrt=False)
def _one_secret_gifts(s, p, x, k, lv):
    """Gifts single-use Secret k could give x now with lv leaves (bitmask)."""
    m = 0
    if k == SU_GAIN_FEATHER:
        m = 2
    elif k == SU_GAIN_CLOVER:
        m = 1
    elif SU_EXCH1 <= k <= SU_EXCH3:
        if E.exchange_tile_payable(s, p, x, k):
            m = 1 << E.exchange_tile_gift(p, k)
    elif k == SU_CRYSTAL3:
        if lv >= E.crystal_price(s, x):
            m = 4
    elif k == SU_SLEEP:
        m = E.sleep_gifts(p, E.dream(s, x))
    elif k == SU_EXCHANGE:
        for g in range(4):
            if E.gifts(s, x, g) > 1:
                m |= 1 << (g + 1)
    elif k == SU_PURCHASE:
        for g in range(5):
            if lv >= E.price(s, p, x, g, RESOLVE_PURCHASE_DISCOUNT):
                m |= 1 << g
    return m


@njit(cache=True, _nrt=False)
def secret_gifts(s, p, x, lv):
    """Gifts x's single-use Secrets could give (each Secret one gift), and how many Secrets give
    one: (mask, count)."""
    gm = 0
    cnt = 0
    for k in range(9):
        if E.single(s, x, k) == 1:
            m = _one_secret_gifts(s, p, x, k, np.int64(lv))
            if m != 0:
                gm |= m
                cnt += 1
    return gm, cnt


@njit(cache=True, _nrt=False)
def pond_turns(p, pos):
    """Sleeps (Pond visits) needed from Dream Path position pos to receive each gift, packed 4 bits
    a gift (0: not within 4 sleeps)."""
    seen = 1 << pos
    frontier = seen
    found = 0
    packed = 0
    for step in range(1, 5):
        nxt = 0
        for k in range(p[P_N_ARROWS]):
            a = p[P_ARROWS + 3 * k]
            if frontier & (1 << a):
                g = p[P_ARROWS + 3 * k + 2]
                if g >= 0 and not found & (1 << g):
                    found |= 1 << g
                    packed |= step << (4 * g)
                bb = p[P_ARROWS + 3 * k + 1]
                if not seen & (1 << bb):
                    nxt |= 1 << bb
        seen |= nxt
        frontier = nxt
    return packed


@njit(cache=True, _nrt=False)
def route_turns(s, p, x, g, lv, types, pond, secret_mask):
    """Estimated turns for x to receive gift g by its quickest route, one hex action a turn: a
    single-use Secret that gives it (0.5), the Meadow or the Nest (1), the Stone Altar (1 plus the
    turns of gathering 2 leaves for the price, with `lv` leaves in hand), the Pond (the sleeps
    along the Dream Path), the Ring of Stones from a spare token of a lower kind (one exchange a
    kind). `types`: the hex types in the forest (bitmask); `pond`: pond_turns of x's position.
    Returns (turns, leaves the route takes from the hand): when the Altar is the route taken, the
    price less the leaves gathered on the way (so what is left in hand afterwards is what the
    purchase leaves over), else 0. The Meadow and the Nest win a tie with the Altar (both take
    one turn); the Pond and the Ring of Stones replace it only when strictly quicker, so a tie
    with them keeps the Altar and its cost (measured: letting them win the tie too, the heuristic
    won 2,025 instead of 2,026 of 3,000 games and 1,473 instead of 1,475 of 3,200;
    docs/policies.md)."""
    if secret_mask & (1 << g):
        return 0.5, 0
    r = 1.0e9
    cost = 0
    if types & (1 << ALTAR):
        c = E.price(s, p, x, g, 0)
        short = c - lv
        gather = 0 if short <= 0 else (short + 1) // 2
        r = 1.0 + np.float64(gather)
        cost = c - 2 * gather
    if (g == 0 and types & (1 << MEADOW)) or (g == 1 and types & (1 << NEST)):
        r = 1.0
        cost = 0
    if types & (1 << POND):
        k = (pond >> (4 * g)) & 15
        if k > 0 and k < r:
            r = np.float64(k)
            cost = 0
    if types & (1 << RING):
        for h in range(g):
            if E.gifts(s, x, h) > 1 and g - h < r:
                r = np.float64(g - h)
                cost = 0
    return r, cost


@njit(cache=True, _nrt=False)
def eta_turns(s, p, x, miss, lv, types, pond, secret_mask):
    """The tempo feature: route_turns summed over the missing kinds `miss`, cheapest kind first,
    each bought at the Altar paying from the leaves the kinds before it left, with what their
    gathering left over. So the same leaves are not counted towards two gifts: summed with the
    full `lv` each time, more leaves in hand made a player gather instead of taking gifts, and at
    4 players a seat dealt 6 leaves won a third as often as one dealt 4 (docs/policies.md)."""
    eta = 0.0
    left = lv
    for g in range(5):
        if miss & (1 << g):
            r, cost = route_turns(s, p, x, g, np.int64(left), types, pond, secret_mask)
            eta += r
            left -= cost
    return eta


@njit(cache=True, _nrt=False)
def player_value(s, p, theta, x, types, allfeet):
    """The linear evaluation of player x's own prospects; also (reach, can win next turn).
    `types`: the hex types in the forest (engine.hex_types); `allfeet`: engine.all_feet_packed(s)."""
    lv = E.leaves(s, x)
    miss = 0
    kinds = 0
    spare = 0
    for g in range(5):
        c = E.gifts(s, x, g)
        if c > 0:
            kinds += 1
        else:
            miss |= 1 << g
        if g < 4 and c > 1:
            spare += c - 1
    n_single = 0
    n_perm = 0
    for k in range(9):
        n_single += E.single(s, x, k)
        n_perm += E.permanent(s, x, k)
    want = miss & E.obtainable_mask(s, x)
    hm = hex_reach(s, p, x, lv, allfeet) & want
    sm, scnt = secret_gifts(s, p, x, lv)
    sm &= want
    reach = popcount(hm | sm)
    n_miss = popcount(miss)
    win_next = n_miss > 0 and (miss & ~(hm | sm)) == 0 and n_miss <= (1 if hm else 0) + min(scnt, popcount(sm))
    eta = eta_turns(s, p, x, np.int64(miss), lv, types, pond_turns(p, E.dream(s, x)), sm)
    vuln = 0
    for g in range(5):
        if E.gifts(s, x, g) == 1 and E.pool(s, g) == 0:
            for o in range(s[E.NP]):
                if o != x and E.gifts(s, o, g) == 0:
                    vuln += 1
                    break
    return player_sum(theta, kinds, spare, lv, n_single, n_perm, reach, win_next, eta, vuln), reach, win_next


@njit(cache=True, _nrt=False, inline="always")
def player_sum(theta, kinds, spare, lv, n_single, n_perm, reach, win_next, eta, vuln):
    """``player_value``'s linear sum of a player's counts (features.py's blocks, which count the
    same things, take the heuristic's evaluation from it: the same sum, term by term)."""
    v = theta[T_KINDS] * kinds
    v += theta[T_SPARE] * min(spare, SPARE_CAP)
    v += theta[T_LEAVES] * min(lv, LEAF_CAP) + theta[T_LEAVES_X] * max(lv - LEAF_CAP, 0)
    v += theta[T_SINGLE] * n_single + theta[T_PERM] * n_perm
    v += theta[T_REACH] * min(reach, REACH_CAP)
    if win_next:
        v += theta[T_WIN_NEXT]
    v += theta[T_ETA] * eta
    v += theta[T_VULN] * vuln
    return v


@njit(cache=True, _nrt=False, inline="always")
def opponents_term(v, theta, best_o, opp_reach, opp_win):
    """``evaluate``'s score for `me` from its own player_value v and the opponents' best value,
    best capped reach and whether one can win next turn."""
    v -= theta[T_OPP_SCALE] * best_o + theta[T_OPP_REACH] * opp_reach
    if opp_win:
        v -= theta[T_OPP_WIN]
    return v


@njit(cache=True, _nrt=False)
def evaluate(s, p, theta, me):
    """The score of position s for seat `me` (higher is better)."""
    if s[E.PHASE] == PH_TERMINAL and s[E.OUTCOME] == OUT_WIN:
        return WIN_SCORE if s[E.WINNER] == me else -WIN_SCORE
    types = E.hex_types(s)
    allfeet = E.all_feet_packed(s)
    v, _, _ = player_value(s, p, theta, me, types, allfeet)
    best_o = -1e300
    opp_reach = 0
    opp_win = False
    for o in range(s[E.NP]):
        if o == me:
            continue
        vo, ro, wo = player_value(s, p, theta, np.int64(o), types, allfeet)
        if vo > best_o:
            best_o = vo
        opp_reach = max(opp_reach, min(ro, REACH_CAP))
        opp_win = opp_win or wo
    return opponents_term(v, theta, best_o, opp_reach, opp_win)


# ---- the turn search --------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _gen(st, p, acts, minsec):
    """The actions the search tries at st: the legal ones, without Secrets before the movement
    (unless nothing else is legal) and Secrets below `minsec`."""
    n = E.legal_actions(st, p, acts)
    ph = st[E.PHASE]
    m = 0
    for i in range(n):
        a = acts[i]
        if A_SECRET <= a < A_DECLINE:
            if ph == PH_MOVE or a - A_SECRET < minsec:
                continue
        acts[m] = a
        m += 1
    if m == 0:   # (never with the rules as coded: movement is always possible)
        m = E.legal_actions(st, p, acts)
    return m


@njit(cache=True, _nrt=False)
def _offer(ws, plen, sc, k_keep, hc, hf):
    """Keep the plan ws[W_PATH:W_PATH+plen] with score sc among the k_keep best (best first;
    among equal scores the first found stays first). In distinct mode (ws[W_DISTINCT]) hc is the
    hash of the plan's end position (its 31 high bits) and a plan whose end is already kept
    replaces it only with a better score; hf (the whole hash) is kept with it at W_CHF."""
    cn = ws[W_CN]
    distinct = ws[W_DISTINCT] != 0
    chf = ws[W_CHF:W_CHF + 2 * K_MAX].view(np.uint64)
    if distinct:
        for j in range(cn):
            if ws[W_CH + j] == hc:
                if ws[W_CSC + j] >= sc:
                    return
                for jj in range(j, cn - 1):   # a better score for the same end: drop the old one
                    ws[W_CSC + jj] = ws[W_CSC + jj + 1]
                    ws[W_CH + jj] = ws[W_CH + jj + 1]
                    chf[jj] = chf[jj + 1]
                    ws[W_CPL + jj] = ws[W_CPL + jj + 1]
                    for i in range(ws[W_CPL + jj]):
                        ws[W_CPATH + jj * DEPTH_MAX + i] = ws[W_CPATH + (jj + 1) * DEPTH_MAX + i]
                cn -= 1
                ws[W_CN] = cn
                break
    pos = cn
    while pos > 0 and ws[W_CSC + pos - 1] < sc:
        pos -= 1
    if pos >= k_keep:
        return
    last = cn if cn < k_keep else k_keep - 1
    for j in range(last, pos, -1):
        ws[W_CSC + j] = ws[W_CSC + j - 1]
        ws[W_CH + j] = ws[W_CH + j - 1]
        if distinct:
            chf[j] = chf[j - 1]
        ws[W_CPL + j] = ws[W_CPL + j - 1]
        for i in range(ws[W_CPL + j]):
            ws[W_CPATH + j * DEPTH_MAX + i] = ws[W_CPATH + (j - 1) * DEPTH_MAX + i]
    ws[W_CSC + pos] = sc
    ws[W_CH + pos] = hc
    if distinct:
        chf[pos] = hf
    ws[W_CPL + pos] = plen
    for i in range(plen):
        ws[W_CPATH + pos * DEPTH_MAX + i] = ws[W_PATH + i]
    if cn < k_keep:
        ws[W_CN] = cn + 1


@njit(cache=True, _nrt=False)
def _quant(x):
    return score_int(np.floor(x * SCORE_SCALE + 0.5))   # rounded to the nearest


@njit(cache=True, _nrt=False)
def search_turn(s, p, theta, me, ws, k_keep, noise, key):
    """Search the rest of `me`'s turn from s depth first; keep the k_keep best plans in ws
    (W_CN of them, best first). Each end of the turn is scored by `evaluate`, plus noise * U[0,1)
    drawn from `key` (number i for the i-th end scored) when noise > 0. Returns W_CN."""
    ws[W_NSEARCH] = (ws[W_NSEARCH] + 1) & 0x3FFFFFFF
    ws[W_CN] = 0
    turn0 = s[E.TURN]
    root = ws[W_SLOT: W_SLOT + S_SIZE]
    E.copy_position(root, s)
    ws[W_MINSEC] = 0
    ws[W_IT] = 0
    ws[W_NA] = _gen(root, p, ws[W_ACTS: W_ACTS + N_ACTIONS], np.int64(0))
    d = 0
    leaves = 0
    while d >= 0 and leaves < MAX_LEAVES:
        it = ws[W_IT + d]
        if it >= ws[W_NA + d]:
            d -= 1
            continue
        ws[W_IT + d] = it + 1
        a = ws[W_ACTS + d * N_ACTIONS + it]
        node = ws[W_SLOT + d * S_SIZE: W_SLOT + (d + 1) * S_SIZE]
        child = ws[W_SLOT + (d + 1) * S_SIZE: W_SLOT + (d + 2) * S_SIZE]
        E.copy_position(child, node)
        ph = node[E.PHASE]
        E.apply(child, p, np.int64(a))
        ws[W_PATH + d] = a
        plen = d + 1
        if child[E.PHASE] == PH_END and d + 2 <= DEPTH_MAX and not E.holds_single(child, me):
            # after the action with no single-use Secret: `end turn` is the only choice
            E.apply(child, p, np.int64(A_END_TURN))
            ws[W_PATH + d + 1] = A_END_TURN
            plen = d + 2
        if child[E.PHASE] == PH_TERMINAL or child[E.TURN] != turn0:
            sc = evaluate(child, p, theta, me)
            if noise > 0.0:
                sc += noise * _uniform(key, leaves)
            leaves += 1
            q = _quant(sc)
            if ws[W_CN] < k_keep or ws[W_CSC + k_keep - 1] < q:   # it enters the list
                if ws[W_DISTINCT] != 0:
                    hf = E.position_hash(child)
                    _offer(ws, plen, q, k_keep, np.int64(_h32_of(hf)), hf)
                else:
                    _offer(ws, plen, q, k_keep, np.int64(0), _ZERO64)
            continue
        if d + 1 >= DEPTH_MAX:
            continue   # too long a turn: not scored (never seen with the rules as coded)
        if A_SECRET <= a < A_DECLINE:
            ms = a - A_SECRET + 1
        elif ph == PH_MOVE or ph == PH_ACTION:
            ms = 0     # a new window (the action, or after it): any Secret again
        else:
            ms = ws[W_MINSEC + d]
        d += 1
        ws[W_MINSEC + d] = ms
        ws[W_IT + d] = 0
        ws[W_NA + d] = _gen(child, p, ws[W_ACTS + d * N_ACTIONS: W_ACTS + (d + 1) * N_ACTIONS], ms)
    ws[W_NLEAF] = leaves
    return ws[W_CN]


@njit(cache=True, _nrt=False)
def _h32(s):
    return _h32_of(E.position_hash(s))


@njit(cache=True, _nrt=False, inline="always")
def _h32_of(h):
    """The 31 high bits of position hash h (W_CH: what distinct mode compares)."""
    return np.int32(np.int64(h >> np.uint64(33)))


_ZERO64 = np.uint64(0)


@njit(cache=True, _nrt=False)
def kept_hash(ws, c):
    """The position hash (engine.position_hash) of kept plan c's end, as the distinct-mode search
    computed it (the same as hashing ``end_of``'s position)."""
    return ws[W_CHF + 2 * c:W_CHF + 2 * c + 2].view(np.uint64)[0]


@njit(cache=True, _nrt=False)
def end_of(s, p, ws, c, out):
    """out = the position after candidate c's plan from s."""
    E.copy_position(out, s)
    for i in range(ws[W_CPL + c]):
        E.apply(out, p, np.int64(ws[W_CPATH + c * DEPTH_MAX + i]))


@njit(cache=True, _nrt=False)
def store_plan(s, ws, c):
    """Make candidate c the plan to play from s."""
    n = ws[W_CPL + c]
    for i in range(n):
        ws[W_PLAN + i] = ws[W_CPATH + c * DEPTH_MAX + i]
    keep_plan(ws, np.int64(n), s[E.TURN], s[E.ST_DECISIONS])


@njit(cache=True, _nrt=False)
def planned_action(s, seat, acts, n, ws):
    """The next step of the stored plan if the position is the one it expects, else -1."""
    if s[E.CUR] != seat:
        return -1
    return next_step(ws, np.int64(W_PLAN), s[E.TURN], s[E.ST_DECISIONS], acts, n)


@njit(cache=True, _nrt=False)
def play_plan(ws, c):
    """The first step of candidate c once stored (store_plan): marks it played."""
    ws[W_PLAN_I] = 1
    return ws[W_PLAN]


@njit(cache=True, _nrt=False)
def heuristic_action(s, p, theta, net, seat, acts, n, key, ws):
    """The decision of `seat` at s (acts[:n] legal, ascending). `key` is unused (ties go to the
    first plan found), and so is `net` (the heuristic reads no network; the plug point's
    signature). ws: this seat's int32 workspace of WS_SIZE entries."""
    a = planned_action(s, seat, acts, n, ws)
    if a >= 0:
        return a
    if search_turn(s, p, theta, seat, ws, np.int64(1), 0.0, key) > 0:
        store_plan(s, ws, np.int64(0))
        a = play_plan(ws, np.int64(0))
        if contains(acts, n, a):
            return a
    ws[W_VALID] = 0
    return acts[0]
