"""Bethel Woods: the compiled rules.

A position is one flat int32 array ``s`` of S_SIZE entries (layout below); the rules data is the
int32 array ``p`` made by ``Rules.params``. Every function is ``@njit(cache=True, _nrt=False)``,
takes plain arrays and allocates nothing, so the play loop can run millions of games without
leaving compiled code.

The engine API (the same names and meanings in every game; docs/engine_api.md):

    setup(s, p, cfg, key)            cfg = int64[CFG_SIZE]: players, spies, characters (-1: dealt)
    current_player(s) -> seat, or PLAYER_CHANCE / PLAYER_TERMINAL
    legal_actions(s, p, acts) -> n   the legal decision actions in ascending order in acts[:n]
    legal_mask(s, p, mask) -> n      the same as a boolean mask (Python-facing; allocates)
    apply(s, p, a)                   a legal decision action
    chance_outcome(s, p, key) -> o   the outcome of the pending chance event, from the game's chance key
    chance_probabilities(s, p, out)  its distribution
    apply_chance(s, p, o)
    returns(s, out)                  out[q] = 1.0 for every seat when the players won, else 0.0

For planners (docs/engine_api.md, "Step primitives and accessors"): step primitives, each exactly
a sequence of apply calls and made of the same pieces as apply (pick_up / unpick, drop_and_fix /
undo_drop, enter_and_pay, move_worker), the rules and forecasts a planner asks about (entry_type,
entry_cost, piece_cost, entry_payable, may_pay, uncover_actions, ability_actions, same_position,
draws_next, ability) and named accessors for the fields indexed by machine, seat, kind or type
(hand, workers, group, malfunction, load, knowledge, held, section, spy_at, bag, character, need,
paid).

The state holds only what the players know (plus the bag's contents, which anyone can count).
Hidden things are drawn when they are revealed: a critical tile the first time its machine goes
critical (uniform over the effects not yet seen), a spy from the stack (uniform over the spies
nobody has seen yet; uncovered spies go to the bottom in a known order). Every chance event is
keyed by its kind and how many of that kind came before (``simcore.rng.substream``), so two
policies or rule variants on one seed see the same n-th draw whenever the bag (or the unseen
tiles, or the unseen spies) are the same.

Speed notes. The functions are compiled with ``_nrt=False`` (numba's flag for code that needs no
runtime: none of them allocates). With the runtime on, every call between them passed its arrays
through atomic reference counting (NRT_incref/decref); sampling with perf showed 63% of all time
in those two ``lock incq/decq`` helpers, and turning the runtime off doubled the games per second
(6.7 to 3.5 microseconds a game on one thread). Only ``legal_mask`` (Python-facing) allocates.
The caches MCOUNT/BAG_N/EFFM/HAVE make "is this machine critical?" O(1).
"""
import numpy as np
from numba import njit

from ..common import PLAYER_CHANCE, PLAYER_TERMINAL, fill_mask, push as _add
from ..layout import Bool, Choice, Counts, Int, Layout, Name, Opt, PerName
from ..rng import below, substream
from .actions import (
    A_DROP, A_END_TURN, A_ENTER, A_ENTER_NOVA, A_FIX, A_HARRIS, A_JUNAS, A_LINNY, A_PAY, A_PICK,
    A_RONE, A_SELECT, A_STOP_FIXING, A_UNCOVER, A_UNCOVER_FARE_CCW, A_UNCOVER_FARE_CW,
    A_UNCOVER_FENN, A_VIOLET, N_ACTIONS, N_TYPE_PAIRS, OUT_BAG_EMPTY, OUT_FOUR_CRITICAL, OUT_SIX_SPIES, OUT_WIN,
    PH_CHANCE_MALF, PH_CHANCE_SPY, PH_CHANCE_TILE, PH_FIX, PH_HARRIS_FROM, PH_HARRIS_TO, PH_LINNY,
    PH_MOVE, PH_PAY, PH_POST, PH_PRE, PH_TERMINAL, OUTCOMES, PHASES, kind_name,
)
from .rules import (
    CHARACTERS, CRITICAL_EFFECTS, E_ABILITY, E_CONSTRUCT, E_EXTRA, E_LIMIT6, E_REDIRECT, E_UNCOVER, FARE, FENN,
    HARRIS, JUNAS, LINNY, MAX_PLAYERS, N_CHARACTERS, N_EFFECTS, N_KINDS, N_MACHINES, N_SECTIONS, N_SPIES, N_TYPES,
    NOVA, P_CRIT_ABOVE, P_CRIT_LIMIT, P_LIMIT, P_MACHINE_TYPES, P_MALF_COUNTS, P_MALF_TOTAL, P_OPENING, P_PER_TURN,
    P_SECTION_TYPES, P_SW_ABILITY, P_SW_FOUR, P_SW_RONE, P_SW_RONE_COST, P_SW_WINDOW, P_SW_WRAP, RONE, TYPES, VIOLET,
    VIOLET_REDUCTION, WORKERS,
)

# what a payment's completion leads to (CONT), what follows a discard-down round (LIM_RET), what a
# tile reveal interrupted (REVEAL_THEN); the names are the JSON position's
C_ENTER, C_UNCOVER, C_HARRIS, C_JUNAS_GIVE, C_JUNAS_DISCARD, C_LINNY, C_VIOLET, C_RONE, C_WINDOW, C_LIMIT = range(10)
CONTINUATIONS = ("enter", "uncover", "harris", "junas_give", "junas_discard", "linny", "violet", "rone",
                 "return", "discard_round")
R_BEGIN_PLACEMENT, R_CONTINUE_PLACEMENT, R_AFTER_SPY = range(3)
ROUND_THEN = ("begin_placement", "continue_placement", "next_turn")
T_PLACEMENT, T_SPY = range(2)
TILE_REVEAL_THEN = ("placement", "spy")

# ---- state layout: s is int32[S_SIZE] ---------------------------------------------------------
# One table, in array order: each field's offset is the sum of the sizes above it, computed at import
# (simcore/layout.py) and bound below as a plain module int (BOARD, BAG, ...): numba reads them as
# compile-time constants. shape: entries, or (rows, entries per row) for a field the position shows
# row by row (per machine, per seat). decode: how face.to_dict shows the field (None: a derived
# cache, rebuilt by ``recount``).
_KINDS = tuple(kind_name(k) for k in range(N_KINDS))
_MACHINE = Opt(add=1)   # a machine index shown as its printed number, -1 as null
STATE = Layout(
    ("BOARD", (N_MACHINES, N_KINDS), Counts(_KINDS),
     "malfunctions lying at machine m of printed kind k: s[BOARD + 24*m + k]"),
    ("BAG", N_KINDS, Counts(_KINDS), "malfunctions of each kind in the bag"),
    ("DISCARD", N_KINDS, Counts(_KINDS), "the face-up discard pile, by kind"),
    ("KNOW", (MAX_PLAYERS, N_KINDS), Counts(_KINDS), "knowledge tokens of player q by kind: s[KNOW + 24*q + k]"),
    ("WORK", (N_MACHINES, N_TYPES), PerName(WORKERS), "workers of type t on machine m: s[WORK + 4*m + t]"),
    ("ORPH", (N_SECTIONS, 1), Name(WORKERS), "type of the worker in Orphanage section i, -1 empty"),
    ("SPY", (N_SPIES, 1), Bool(), "1 if spy i is on its machine i"),
    ("STACK", (N_SPIES, 1), _MACHINE,
     "the known bottom of the spy stack: uncovered spies in the order they went under (STACK[0] "
     "comes out first once no unseen spy is left), -1 past its end"),
    ("TILE", (N_MACHINES, 1), Name(CRITICAL_EFFECTS),
     "the critical effect (rules.E_*) of the tile beside machine m, -1 while nobody has seen it "
     "(it is drawn when the machine first goes critical)"),
    ("CHAR", (MAX_PLAYERS, 1), Name(CHARACTERS), "character of seat q, -1 for an empty seat"),
    ("HAND", N_TYPES, PerName(WORKERS), "workers in hand by type"),
    ("NEED", N_TYPES, PerName(TYPES), "the pending payment: tokens of each type required"),
    ("PAID", N_TYPES, PerName(TYPES), "the pending payment: tokens of each type paid so far"),
    ("NP", 1, Int(), "number of players"),
    ("CUR", 1, Int(), "seat whose turn it is"),
    ("FIRST", 1, Int(), "the starting seat"),
    ("PHASE", 1, Name(PHASES), "actions.PH_*"),
    ("TURN", 1, Int(), "player turns completed"),
    ("OUTCOME", 1, Name(OUTCOMES), "actions.OUT_*"),
    ("ABIL_USED", 1, Bool(), "the current player has used the character ability this turn"),
    ("POS", 1, _MACHINE, "machine where the group in hand stands"),
    ("DIR", 1, Choice({1: "clockwise", -1: "anticlockwise", 0: None}), "+1 clockwise, -1 anticlockwise"),
    ("LAST_T", 1, Name(TYPES), "type of the worker dropped last"),
    ("FIX_LEFT", 1, Int(), "activated workers that may still fix"),
    ("LASTM", 1, _MACHINE, "machine of the last worker of the turn, -1 if none yet or it entered the Orphanage"),
    ("UNCOVERED", 1, Bool(), "a spy was uncovered this turn"),
    ("VIOLET_RED", 1, Int(), "malfunctions fewer after this turn (Violet)"),
    ("RONE_M", 1, _MACHINE, "machine protected after this turn (Rone), -1 none"),
    ("PLACE_LEFT", 1, Int(), "malfunctions still to draw in this placement"),
    ("EXTRA_DONE", 1, Bool(), "the extra-malfunction tile already added its malfunction in this placement"),
    ("WENT_CRIT", 1, Bool(), "some machine went critical in this placement"),
    ("PAYER", 1, Opt(), "the pending payment: who pays, -1 none"),
    ("ANY_N", 1, Int(), "  tokens of any type required"),
    ("SUB", 1, Bool(), "  1 if exactly one required token is of another type (Nova, Fenn: the substitution)"),
    ("DEST", 1, Opt(), "  -1 discard pile, else the seat receiving the tokens (Junas)"),
    ("PAID_N", 1, Int(), "  tokens paid so far"),
    ("CONT", 1, Name(CONTINUATIONS), "  what happens when it is complete (C_*)"),
    ("CARG", 1, Int(), "  arguments of the continuation"),
    ("CARG2", 1, Int(), ""),
    ("WINDOW", 1, Name(PHASES), "the phase (PRE or POST) an ability returns to"),
    ("LIM_IDX", 1, Int(), "discard-down round: seats checked so far (from the current seat)"),
    ("LIM_L", 1, Int(), "  the limit discarded down to"),
    ("LIM_RET", 1, Name(ROUND_THEN), "  what follows the round (R_*), -1 no round"),
    ("ST_FIXED", 1, Int(), "statistics: malfunctions fixed"),
    ("ST_UNCOV", 1, Int(), "  spies uncovered"),
    ("ST_DECISIONS", 1, Int(), "  decisions taken"),
    ("STACK_N", 1, Int(), "spies in the known bottom of the stack (STACK)"),
    # derived caches, kept in step with BOARD, BAG, TILE and KNOW (``recount`` rebuilds them; the
    # property tests check them): they make "is this machine critical?" O(1) in the hot loop
    ("MCOUNT", N_MACHINES, None, "malfunctions lying at machine m (sum of its BOARD row)"),
    ("BAG_N", 1, None, "malfunctions in the bag"),
    ("EFFM", N_EFFECTS, None, "the machine whose critical tile has effect e, -1 while that tile is unseen"),
    ("UNUSED", 1, None, "always 0, read by nothing: the hand-counted offsets left this gap; kept so "
                        "that the offsets below (and the position arrays) stay as they were"),
    ("HAVE", (MAX_PLAYERS, N_TYPES), None,
     "knowledge tokens of player q of type t: s[HAVE + 4*q + t] (sum of KNOW by type)"),
    ("UNSEEN", 1, Int(), "spies nobody has seen: face down in the stack, above the known bottom"),
    ("SPIES_REVEALED", 1, Int(), "spies revealed from the stack after setup (keys the n-th spy draw)"),
    ("REVEAL_M", 1, _MACHINE, "a tile reveal is pending (phase chance_tile): the machine, else -1"),
    ("REVEAL_THEN", 1, Name(TILE_REVEAL_THEN), "what the reveal interrupted: T_PLACEMENT or T_SPY"),
    ("DROPS", 1, Int(), "workers dropped this turn (switch long_group \"stops\": no move after the 6th)"),
)
globals().update(STATE.offsets)   # BOARD = 0, BAG = 144, ..., DROPS = 420
S_SIZE = STATE.size               # 421

# cfg: the setup arguments as one int64 array (the same idea in every game)
CFG = Layout(
    ("CFG_PLAYERS", 1, None, "players"),
    ("CFG_SPIES", 1, None, "spies added at setup"),
    ("CFG_CHARS", MAX_PLAYERS, None, "character of seat q, or -1 to deal at random"),
)
globals().update(CFG.offsets)
CFG_SIZE = CFG.size

# chance sub-streams (simcore.rng.substream), one per kind of event; number n of a sub-stream is
# the n-th event of that kind in the game
CH_SETUP_SPIES = 0   # setup 5b: the i-th difficulty spy
CH_OPENING = 1       # setup 7: the i-th opening draw (redraws included)
CH_CHARACTERS = 2    # setup 8: the character of seat q
CH_FIRST = 3         # setup 9: the first player
CH_MALFUNCTION = 4   # the n-th malfunction drawn after setup
CH_TILE = 5          # the n-th critical tile revealed
CH_SPY = 6           # the n-th spy revealed after setup

CRITICAL_LOSS_AT = 4  # rulebook: "4 or more critical Machines"


# ---- small queries ------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def malfunctions_at(s, m):
    return s[MCOUNT + m]


@njit(cache=True, _nrt=False)
def recount(s):
    """Rebuild the derived caches from BOARD, BAG, TILE and KNOW (after editing those directly)."""
    for e in range(N_EFFECTS):
        s[EFFM + e] = -1
    for m in range(N_MACHINES):
        t = 0
        for k in range(N_KINDS):
            t += s[BOARD + N_KINDS * m + k]
        s[MCOUNT + m] = t
        if s[TILE + m] >= 0:
            s[EFFM + s[TILE + m]] = m
    b = 0
    for k in range(N_KINDS):
        b += s[BAG + k]
    s[BAG_N] = b
    for q in range(MAX_PLAYERS):
        for t in range(N_TYPES):
            h = 0
            for m in range(N_MACHINES):
                h += s[KNOW + N_KINDS * q + N_TYPES * m + t]
            s[HAVE + N_TYPES * q + t] = h


@njit(cache=True, _nrt=False)
def is_critical(s, p, m):
    return malfunctions_at(s, m) + s[SPY + m] > p[P_CRIT_ABOVE]


@njit(cache=True, _nrt=False)
def n_critical(s, p):
    n = 0
    for m in range(N_MACHINES):
        if is_critical(s, p, m):
            n += 1
    return n


@njit(cache=True, _nrt=False)
def effect_active(s, p, e):
    """A critical tile's effect is active while its machine is critical (the tile is face up);
    a tile nobody has seen yet lies beside a machine that has never been critical."""
    m = s[EFFM + e]
    if m < 0:
        return 0
    return 1 if s[MCOUNT + m] + s[SPY + m] > p[P_CRIT_ABOVE] else 0


@njit(cache=True, _nrt=False)
def knowledge_total(s, q):
    b = HAVE + N_TYPES * q
    return s[b] + s[b + 1] + s[b + 2] + s[b + 3]


@njit(cache=True, _nrt=False)
def have_types(s, q):
    b = HAVE + N_TYPES * q
    return (s[b], s[b + 1], s[b + 2], s[b + 3])


@njit(cache=True, _nrt=False)
def _know_add(s, q, k, d):
    """Player q gains (d = 1) or loses (d = -1) one knowledge token of kind k."""
    s[KNOW + N_KINDS * q + k] += d
    s[HAVE + N_TYPES * q + k % N_TYPES] += d


@njit(cache=True, _nrt=False)
def knowledge_limit(s, p):
    if effect_active(s, p, E_LIMIT6):
        return p[P_CRIT_LIMIT]
    return p[P_LIMIT]


@njit(cache=True, _nrt=False)
def orphanage_count(s):
    n = 0
    for i in range(N_SECTIONS):
        if s[ORPH + i] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def hand_total(s):
    return s[HAND] + s[HAND + 1] + s[HAND + 2] + s[HAND + 3]


@njit(cache=True, _nrt=False)
def fixable_at(s, m, t):
    n = 0
    for pm in range(N_MACHINES):
        n += s[BOARD + N_KINDS * m + N_TYPES * pm + t]
    return n


# ---- named accessors: a policy reads the position through these, not through offsets ---------------------
# Each is one read of the layout above (or a short sum of them), compiled to be inlined, so a reader
# pays nothing for the name. Kind k = 4 * pm + t: a malfunction (or knowledge token) printed with
# machine pm's number, of type t.
@njit(cache=True, _nrt=False, inline="always")
def hand(s, t):
    """Workers of type t in the hand (the group being moved)."""
    return s[HAND + t]


@njit(cache=True, _nrt=False, inline="always")
def workers(s, m, t):
    """Workers of type t on machine m."""
    return s[WORK + N_TYPES * m + t]


@njit(cache=True, _nrt=False, inline="always")
def group(s, m):
    """Workers on machine m, all types (the group a pick-up there takes)."""
    b = WORK + N_TYPES * m
    return s[b] + s[b + 1] + s[b + 2] + s[b + 3]


@njit(cache=True, _nrt=False, inline="always")
def malfunction(s, m, pm, t):
    """Malfunctions lying at machine m of kind 4 * pm + t (printed machine pm, type t)."""
    return s[BOARD + N_KINDS * m + N_TYPES * pm + t]


@njit(cache=True, _nrt=False, inline="always")
def load(s, m):
    """Malfunctions lying at machine m (all kinds; the cache MCOUNT)."""
    return s[MCOUNT + m]


@njit(cache=True, _nrt=False, inline="always")
def knowledge(s, q, pm, t):
    """Knowledge tokens of player q of kind 4 * pm + t."""
    return s[KNOW + N_KINDS * q + N_TYPES * pm + t]


@njit(cache=True, _nrt=False, inline="always")
def held(s, q, t):
    """Knowledge tokens of player q of type t, all printed machines (the cache HAVE)."""
    return s[HAVE + N_TYPES * q + t]


@njit(cache=True, _nrt=False, inline="always")
def section(s, i):
    """The type of the worker in Orphanage section i, -1 while it is empty."""
    return s[ORPH + i]


@njit(cache=True, _nrt=False, inline="always")
def spy_at(s, m):
    """1 if spy m is on its machine m."""
    return s[SPY + m]


@njit(cache=True, _nrt=False, inline="always")
def bag(s, pm, t):
    """Malfunctions of kind 4 * pm + t in the bag."""
    return s[BAG + N_TYPES * pm + t]


@njit(cache=True, _nrt=False, inline="always")
def character(s, q):
    """The character of seat q (rules.CHARACTERS), -1 for an empty seat."""
    return s[CHAR + q]


@njit(cache=True, _nrt=False, inline="always")
def ability(s, p, q):
    """The character whose ability seat q has: its character, or -1 when switch ``ability_off``
    names it (or the seat is empty). Every ability's rule asks this, not ``character``."""
    c = s[CHAR + q]
    return -1 if c == p[P_SW_ABILITY] - 1 else c


@njit(cache=True, _nrt=False, inline="always")
def need(s, t):
    """The pending payment: tokens of type t required."""
    return s[NEED + t]


@njit(cache=True, _nrt=False, inline="always")
def paid(s, t):
    """The pending payment: tokens of type t paid so far."""
    return s[PAID + t]


@njit(cache=True, _nrt=False)
def same_position(a, b):
    """Are positions a and b the same but for the statistics (ST_FIXED, ST_UNCOV, ST_DECISIONS,
    where two paths to one position differ)? The workers and the knowledge by type are compared
    first: where two end positions of one turn differ most often."""
    for i in range(WORK, WORK + N_MACHINES * N_TYPES):
        if a[i] != b[i]:
            return False
    for i in range(HAVE, HAVE + MAX_PLAYERS * N_TYPES):
        if a[i] != b[i]:
            return False
    for i in range(S_SIZE):
        if a[i] != b[i] and i != ST_FIXED and i != ST_UNCOV and i != ST_DECISIONS:
            return False
    return True


# ---- the Orphanage entry's rules (legal_actions, apply and the planners call these) --------------------
@njit(cache=True, _nrt=False, inline="always")
def piece_cost(s, p, built):
    """Knowledge the next Daydreamer piece costs when `built` pieces are built: one more than
    those, plus one while the construct tile's effect is active."""
    return built + 1 + effect_active(s, p, E_CONSTRUCT)


@njit(cache=True, _nrt=False, inline="always")
def entry_cost(s, p):
    """Knowledge the next Daydreamer piece costs now (``piece_cost`` of the pieces built)."""
    return piece_cost(s, p, orphanage_count(s))


@njit(cache=True, _nrt=False, inline="always")
def section_takes(p, i, t):
    """Does Orphanage section i take a worker of type t (either of its two printed types)?"""
    return p[P_SECTION_TYPES + 2 * i] == t or p[P_SECTION_TYPES + 2 * i + 1] == t


@njit(cache=True, _nrt=False, inline="always")
def entry_type(s, p):
    """At a PH_MOVE position: the type of the one worker in hand when the section at the group's
    machine is empty and takes that type (an entry is then legal if it can be paid:
    ``entry_payable``); -1 otherwise (no entry is legal)."""
    if hand_total(s) != 1 or s[ORPH + s[POS]] >= 0:
        return -1
    t = 0
    for t2 in range(N_TYPES):
        if s[HAND + t2] > 0:
            t = t2
    return t if section_takes(p, s[POS], t) else -1


@njit(cache=True, _nrt=False, inline="always")
def entry_payable(s, p, t, cost, nova):
    """Can the current player pay for the entry of a type-t worker costing `cost`: the plain
    entry (nova = 0) with cost tokens of type t, Nova's (nova = 1) with one of them substituted
    by another type and the ability tax (``legal_actions``' test of A_ENTER and A_ENTER_NOVA)."""
    if nova:
        return can_pay(have_types(s, s[CUR]), need1(t, cost), effect_active(s, p, E_ABILITY), 1)
    return s[HAVE + N_TYPES * s[CUR] + t] >= cost  # = can_pay(have, need1(t, cost), 0, 0), without the call


# ---- payment feasibility --------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def feasible(need, any_n, sub, paid, paid_n, have):
    """Can tokens still to be paid from ``have`` complete a payment that already holds ``paid``?

    The payment is complete when it holds sum(need) + any_n tokens with exactly ``sub`` (0 or 1)
    of the required per-type tokens missing: with sub = 1 (Nova, Fenn) one required token is
    covered by a token of another type, and a payment that needs no substitution is not one.
    """
    # unrolled over the 4 types (static tuple unpacking: no runtime tuple indexing in numba)
    n0, n1, n2, n3 = need
    p0, p1, p2, p3 = paid
    h0, h1, h2, h3 = have
    slots = n0 + n1 + n2 + n3 + any_n - paid_n
    if slots < 0:
        return False
    r0 = n0 - p0 if n0 > p0 else 0
    r1 = n1 - p1 if n1 > p1 else 0
    r2 = n2 - p2 if n2 > p2 else 0
    r3 = n3 - p3 if n3 > p3 else 0
    rem_sum = r0 + r1 + r2 + r3
    if sub == 0:
        fill = min(h0, r0) + min(h1, r1) + min(h2, r2) + min(h3, r3)
        return h0 + h1 + h2 + h3 >= slots and fill >= rem_sum and rem_sum <= slots
    # exactly one missing: some type t0 gets exactly r[t0] - 1 more, every other type its r[t]
    # at least, and the other slots are filled from the other types
    if rem_sum < 1 or rem_sum - 1 > slots:
        return False
    return (_sub_ok(r0, h0, r1, h1, r2, h2, r3, h3, slots) or _sub_ok(r1, h1, r0, h0, r2, h2, r3, h3, slots)
            or _sub_ok(r2, h2, r0, h0, r1, h1, r3, h3, slots) or _sub_ok(r3, h3, r0, h0, r1, h1, r2, h2, slots))


@njit(cache=True, _nrt=False)
def _sub_ok(ra, ha, r1, h1, r2, h2, r3, h3, slots):
    """Can the missing token be one of type a (ra still required, ha held)?"""
    if ra < 1 or ha < ra - 1 or h1 < r1 or h2 < r2 or h3 < r3:
        return False
    return h1 + h2 + h3 + ra - 1 >= slots


@njit(cache=True, _nrt=False)
def can_pay(have, need, any_n, sub):
    return feasible(need, any_n, sub, (0, 0, 0, 0), 0, have)


@njit(cache=True, _nrt=False, inline="always")
def may_pay(s, have, t):
    """During a payment: may the payer, holding ``have`` (by type, at least one of type t), pay a
    token of type t now, that is, can the payment still be completed after it? Every PAY action
    of a type-t kind is legal exactly then (``legal_actions`` makes this test once per type)."""
    h2 = (have[0] - (t == 0), have[1] - (t == 1), have[2] - (t == 2), have[3] - (t == 3))
    p2 = (s[PAID] + (t == 0), s[PAID + 1] + (t == 1), s[PAID + 2] + (t == 2), s[PAID + 3] + (t == 3))
    return feasible((s[NEED], s[NEED + 1], s[NEED + 2], s[NEED + 3]), s[ANY_N], s[SUB], p2, s[PAID_N] + 1, h2)


@njit(cache=True, _nrt=False)
def need1(t, c):
    """A payment's required tokens by type: c of type t."""
    return (c if t == 0 else 0, c if t == 1 else 0, c if t == 2 else 0, c if t == 3 else 0)


@njit(cache=True, _nrt=False)
def need2(a, b):
    """A payment's required tokens by type: one of type a and one of type b (two of a when a == b)."""
    # int() each: numpy bools add as OR, so uncompiled (NUMBA_DISABLE_JIT) a pair of one type would need 1
    return (int(a == 0) + int(b == 0), int(a == 1) + int(b == 1), int(a == 2) + int(b == 2), int(a == 3) + int(b == 3))


# ---- setup -----------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def bag_total(s):
    return s[BAG_N]


@njit(cache=True, _nrt=False)
def kind_at(s, r):
    """The kind of the r-th malfunction in the bag, counting kinds in index order. (A two-level
    walk over per-machine totals was measured slower than this plain loop.)"""
    for k in range(N_KINDS):
        r -= s[BAG + k]
        if r < 0:
            return k
    return -1


@njit(cache=True, _nrt=False)
def setup(s, p, cfg, key):
    """Set up a game from cfg (CFG_*) and the game's chance key. Each setup step draws from a
    sub-stream of its own (CH_*). The critical tiles stay face down and unknown (TILE = -1), and
    the spy stack is six unseen spies: both are drawn when they are revealed."""
    n_players = cfg[CFG_PLAYERS]
    s[:] = 0
    s[NP] = n_players
    for m in range(N_MACHINES):
        s[TILE + m] = -1
        s[EFFM + m] = -1
        s[WORK + N_TYPES * m + p[P_MACHINE_TYPES + 2 * m]] += 1
        s[WORK + N_TYPES * m + p[P_MACHINE_TYPES + 2 * m + 1]] += 1
        s[ORPH + m] = -1
        s[STACK + m] = -1
    s[STACK_N] = 0
    s[UNSEEN] = N_SPIES
    s[REVEAL_M] = -1
    s[REVEAL_THEN] = -1
    ks = substream(key, CH_SETUP_SPIES)
    for i in range(cfg[CFG_SPIES]):
        _reveal_spy(s, _unseen_spy(s, below(ks, i, s[UNSEEN])))
    for k in range(N_KINDS):
        s[BAG + k] = p[P_MALF_COUNTS + k]
        s[BAG_N] += p[P_MALF_COUNTS + k]
    ko = substream(key, CH_OPENING)
    placed = 0
    i = 0
    while placed < p[P_OPENING]:
        k = kind_at(s, below(ko, i, bag_total(s)))
        i += 1
        m = k // N_TYPES
        # setup step 7 (and 7b): at most 3 on a machine, at most 2 on a machine with a spy
        if malfunctions_at(s, m) + 1 + s[SPY + m] <= p[P_CRIT_ABOVE]:
            s[BAG + k] -= 1
            s[BAG_N] -= 1
            s[BOARD + N_KINDS * m + k] += 1
            s[MCOUNT + m] += 1
            placed += 1
    for q in range(MAX_PLAYERS):
        s[CHAR + q] = -1
    if cfg[CFG_CHARS] < 0:
        # deal: seat q gets the r-th character not dealt yet, r uniform (a partial shuffle)
        kc = substream(key, CH_CHARACTERS)
        dealt = 0  # bitmask of the characters dealt so far
        for q in range(n_players):
            r = below(kc, q, N_CHARACTERS - q)
            for c in range(N_CHARACTERS):
                if not (dealt >> c) & 1:
                    if r == 0:
                        s[CHAR + q] = c
                        dealt |= 1 << c
                        break
                    r -= 1
    else:
        for q in range(n_players):
            s[CHAR + q] = cfg[CFG_CHARS + q]
    s[FIRST] = below(substream(key, CH_FIRST), 0, n_players)
    s[CUR] = s[FIRST]
    _start_turn(s)


@njit(cache=True, _nrt=False)
def _in_stack_bottom(s, m):
    for i in range(s[STACK_N]):
        if s[STACK + i] == m:
            return True
    return False


@njit(cache=True, _nrt=False)
def _unseen_spy(s, r):
    """The r-th (in machine order) of the spies nobody has seen: not on the board and not among
    the uncovered spies at the bottom of the stack."""
    for m in range(N_SPIES):
        if s[SPY + m] == 0 and not _in_stack_bottom(s, m):
            if r == 0:
                return m
            r -= 1
    return -1


@njit(cache=True, _nrt=False)
def _reveal_spy(s, m):
    """Spy m comes off the top of the stack onto its machine: an unseen one while any is left,
    else the first of the known bottom."""
    if s[UNSEEN] > 0:
        s[UNSEEN] -= 1
    else:
        for i in range(s[STACK_N] - 1):
            s[STACK + i] = s[STACK + i + 1]
        s[STACK_N] -= 1
        s[STACK + s[STACK_N]] = -1
    s[SPY + m] = 1


@njit(cache=True, _nrt=False)
def _clear_payment(s):
    s[PAYER] = -1
    for t in range(N_TYPES):
        s[NEED + t] = 0
        s[PAID + t] = 0
    s[ANY_N] = 0
    s[SUB] = 0
    s[DEST] = -1
    s[PAID_N] = 0
    s[CONT] = -1
    s[CARG] = -1
    s[CARG2] = -1


@njit(cache=True, _nrt=False)
def _return_window(s):
    s[PHASE] = s[WINDOW]
    s[WINDOW] = -1
    s[CARG] = -1
    s[CARG2] = -1


@njit(cache=True, _nrt=False)
def _start_turn(s):
    """Every transient field back to its neutral value: a position has one encoding."""
    _clear_payment(s)
    s[WINDOW] = -1
    s[LIM_IDX] = 0
    s[LIM_L] = 0
    s[LIM_RET] = -1
    s[PLACE_LEFT] = 0
    s[EXTRA_DONE] = 0
    s[WENT_CRIT] = 0
    for t in range(N_TYPES):
        s[HAND + t] = 0
    s[PHASE] = PH_PRE
    s[ABIL_USED] = 0
    s[LASTM] = -1
    s[UNCOVERED] = 0
    s[VIOLET_RED] = 0
    s[RONE_M] = -1
    s[POS] = -1
    s[DIR] = 0
    s[LAST_T] = -1
    s[FIX_LEFT] = 0
    s[DROPS] = 0


# ---- legal actions ----------------------------------------------------------------------------------
@njit(cache=True)
def legal_mask(s, p, mask):
    """Fill mask (bool[N_ACTIONS]) with the legal decision actions; return how many there are.
    Chance and terminal phases have none. (For Python and tests; the batch runner uses the
    list form, legal_actions, which needs no clearing of a 188-entry mask per decision.)"""
    acts = np.empty(N_ACTIONS, dtype=np.int32)
    return fill_mask(acts, legal_actions(s, p, acts), mask)


@njit(cache=True, _nrt=False)
def legal_actions(s, p, acts):
    """Write the legal decision actions in ascending order into acts[:n]; return n."""
    ph = s[PHASE]
    n = 0
    cur = s[CUR]
    if ph == PH_PRE:
        for m in range(N_MACHINES):
            if s[WORK + N_TYPES * m] + s[WORK + N_TYPES * m + 1] + s[WORK + N_TYPES * m + 2] + s[WORK + N_TYPES * m + 3] > 0:
                n = _add(acts, n, A_PICK + 2 * m)
                n = _add(acts, n, A_PICK + 2 * m + 1)
        n = ability_actions(s, p, acts, n)
    elif ph == PH_MOVE:
        for t in range(N_TYPES):
            if s[HAND + t] > 0:
                n = _add(acts, n, A_DROP + t)
        t = entry_type(s, p)
        if t >= 0:
            cost = entry_cost(s, p)
            if entry_payable(s, p, t, cost, 0):
                n = _add(acts, n, A_ENTER)
            if ability(s, p, cur) == NOVA and s[ABIL_USED] == 0 and entry_payable(s, p, t, cost, 1):
                n = _add(acts, n, A_ENTER_NOVA)
        if p[P_SW_WINDOW] == 0:  # switch ability_window "any_time": also between drops
            n = ability_actions(s, p, acts, n)
    elif ph == PH_FIX:
        m = s[POS]
        t = s[LAST_T]
        for pm in range(N_MACHINES):
            if s[BOARD + N_KINDS * m + N_TYPES * pm + t] > 0:
                n = _add(acts, n, A_FIX + N_TYPES * pm + t)
        n = _add(acts, n, A_STOP_FIXING)
    elif ph == PH_POST:
        n = uncover_actions(s, p, acts, n)
        n = _add(acts, n, A_END_TURN)  # after the uncovers: the list stays ascending
        n = ability_actions(s, p, acts, n)
    elif ph == PH_PAY:
        # paying a token of kind k is legal iff the payment can still be completed afterwards,
        # which depends on k's type only: one feasibility test per type held, not per kind
        q = s[PAYER]
        have = have_types(s, q)
        ok = 0  # bit t: a token of type t may be paid
        for t in range(N_TYPES):
            if have[t] > 0 and may_pay(s, have, t):
                ok |= 1 << t
        kb = KNOW + N_KINDS * q
        for pm in range(N_MACHINES):
            for t in range(N_TYPES):
                if (ok >> t) & 1 and s[kb + N_TYPES * pm + t] > 0:
                    n = _add(acts, n, A_PAY + N_TYPES * pm + t)
    elif ph == PH_HARRIS_FROM:
        t = s[CARG]
        for m in range(N_MACHINES):
            if s[WORK + N_TYPES * m + t] > 0:
                n = _add(acts, n, A_SELECT + m)
    elif ph == PH_HARRIS_TO:
        for m in range(N_MACHINES):
            if m != s[CARG2]:
                n = _add(acts, n, A_SELECT + m)
    elif ph == PH_LINNY:
        pm = s[CARG]
        for loc in range(N_MACHINES):
            for t in range(N_TYPES):
                if s[BOARD + N_KINDS * loc + N_TYPES * pm + t] > 0:
                    n = _add(acts, n, A_SELECT + N_TYPES * loc + t)
    return n


@njit(cache=True, _nrt=False, inline="always")
def uncover_actions(s, p, acts, n):
    """Add the legal uncovers of a PH_POST position (plain, Fenn's, Fare's clockwise and
    anticlockwise: actions 43-46, ascending) to acts[n:]; return the new count. The first part
    of ``legal_actions`` there, and the heuristic planner's list of a turn's uncovers (inlined
    into both)."""
    lm = s[LASTM]
    if lm >= 0 and s[UNCOVERED] == 0:
        cur = s[CUR]
        have = have_types(s, cur)
        extra = effect_active(s, p, E_UNCOVER)
        tax = effect_active(s, p, E_ABILITY)
        free = s[ABIL_USED] == 0
        ch = ability(s, p, cur)
        if s[SPY + lm] == 1:
            need = need2(p[P_MACHINE_TYPES + 2 * lm], p[P_MACHINE_TYPES + 2 * lm + 1])
            if can_pay(have, need, extra, 0):
                n = _add(acts, n, A_UNCOVER)
            if ch == FENN and free and can_pay(have, need, extra + tax, 1):
                n = _add(acts, n, A_UNCOVER_FENN)
        if ch == FARE and free:
            for d in range(2):
                m2 = (lm + 1) % N_MACHINES if d == 0 else (lm + N_MACHINES - 1) % N_MACHINES
                if s[SPY + m2] == 1:
                    need = need2(p[P_MACHINE_TYPES + 2 * m2], p[P_MACHINE_TYPES + 2 * m2 + 1])
                    if can_pay(have, need, extra + 1 + tax, 0):
                        n = _add(acts, n, A_UNCOVER_FARE_CW + d)
    return n


@njit(cache=True, _nrt=False)
def ability_actions(s, p, acts, n):
    """Add the active abilities (Harris, Junas, Linny, Violet, Rone) legal in the ability windows
    (PRE and POST; with switch ability_window "any_time" also between drops); return the new count.

    This runs at every decision of those windows, so the payments are tested directly: a cost of
    c tokens of type t plus ``tax`` of any type is payable iff have[t] >= c and the player holds
    c + tax tokens in all (the same answer as can_pay(have, need1(t, c), tax, 0)); Rone's pair
    (a, b) iff have[a] >= 1, have[b] >= 1 and 2 + tax in all (can_pay(have, need2(a, b), tax, 0)).
    """
    cur = s[CUR]
    if s[ABIL_USED] != 0:
        return n
    ch = ability(s, p, cur)
    if ch != HARRIS and ch != JUNAS and ch != LINNY and ch != VIOLET and ch != RONE:
        return n
    tax = effect_active(s, p, E_ABILITY)
    b = HAVE + N_TYPES * cur
    h0, h1, h2, h3 = s[b], s[b + 1], s[b + 2], s[b + 3]
    total = h0 + h1 + h2 + h3
    if ch == HARRIS:
        if total >= 1 + tax:
            for t in range(N_TYPES):
                if s[b + t] >= 1:
                    for m in range(N_MACHINES):
                        if s[WORK + N_TYPES * m + t] > 0:
                            n = _add(acts, n, A_HARRIS + t)
                            break
    elif ch == JUNAS:
        for t in range(N_TYPES):
            for g in range(1, 3):
                if s[b + t] >= 1 + g and total >= 1 + g + tax:
                    for off in range(1, s[NP]):
                        n = _add(acts, n, A_JUNAS + 6 * t + 3 * (g - 1) + off - 1)
    elif ch == LINNY:
        if total >= 1 + tax:
            kb = KNOW + N_KINDS * cur
            for pm in range(N_MACHINES):
                known = 0
                for t in range(N_TYPES):
                    known += s[kb + N_TYPES * pm + t] > 0
                if known == 0:
                    continue
                on_board = 0
                for loc in range(N_MACHINES):
                    for t in range(N_TYPES):
                        on_board += s[BOARD + N_KINDS * loc + N_TYPES * pm + t]
                if on_board > 0:
                    for t in range(N_TYPES):
                        if s[kb + N_TYPES * pm + t] > 0:
                            n = _add(acts, n, A_LINNY + N_TYPES * pm + t)
    elif ch == VIOLET:
        if total >= VIOLET_REDUCTION + tax:
            for t in range(N_TYPES):
                if s[b + t] >= VIOLET_REDUCTION:
                    n = _add(acts, n, A_VIOLET + t)
    elif p[P_SW_RONE_COST] == 1:  # RONE, switch rone_cost "any_two": every pair action pays any 2
        if total >= 2 + tax:
            for m in range(N_MACHINES):
                for i in range(N_TYPE_PAIRS):
                    n = _add(acts, n, A_RONE + 6 * m + i)
    elif total >= 2 + tax:  # RONE: action 152 + 6m + pair, pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
        ok = (h0 > 0 and h1 > 0, h0 > 0 and h2 > 0, h0 > 0 and h3 > 0,
              h1 > 0 and h2 > 0, h1 > 0 and h3 > 0, h2 > 0 and h3 > 0)
        for m in range(N_MACHINES):
            for i in range(N_TYPE_PAIRS):
                if ok[i]:
                    n = _add(acts, n, A_RONE + 6 * m + i)
    return n


# ---- applying a decision ---------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _start_payment(s, p, payer, need, any_n, sub, dest, cont, carg, carg2):
    s[PAYER] = payer
    for t in range(N_TYPES):
        s[NEED + t] = need[t]
        s[PAID + t] = 0
    s[ANY_N] = any_n
    s[SUB] = sub
    s[DEST] = dest
    s[PAID_N] = 0
    s[CONT] = cont
    s[CARG] = carg
    s[CARG2] = carg2
    s[PHASE] = PH_PAY  # callers never start an empty payment


@njit(cache=True, _nrt=False)
def _finish_payment(s, p):
    cont = s[CONT]
    carg = s[CARG]
    carg2 = s[CARG2]
    cur = s[CUR]
    _clear_payment(s)
    if cont == C_ENTER:
        _enter_section(s)
    elif cont == C_UNCOVER:
        m = carg
        s[SPY + m] = 0
        s[STACK + s[STACK_N]] = m  # the uncovered spy goes to the bottom of the stack
        s[STACK_N] += 1
        s[UNCOVERED] = 1
        s[ST_UNCOV] += 1
        s[PHASE] = PH_POST
    elif cont == C_HARRIS:
        s[CARG] = carg
        s[PHASE] = PH_HARRIS_FROM
    elif cont == C_JUNAS_GIVE:
        # Junas gave his tokens; now he discards the one that pays for the ability (+ any tax)
        _start_payment(s, p, cur, need1(carg2, 1), effect_active(s, p, E_ABILITY), 0, -1,
                       C_JUNAS_DISCARD, carg, -1)
    elif cont == C_JUNAS_DISCARD:
        q = carg
        over = knowledge_total(s, q) - knowledge_limit(s, p)
        if over > 0:
            _start_payment(s, p, q, (0, 0, 0, 0), over, 0, -1, C_WINDOW, -1, -1)
        else:
            _return_window(s)
    elif cont == C_LINNY:
        s[CARG] = carg
        s[PHASE] = PH_LINNY
    elif cont == C_VIOLET:
        s[VIOLET_RED] = VIOLET_REDUCTION
        _return_window(s)
    elif cont == C_RONE:
        s[RONE_M] = carg
        _return_window(s)
    elif cont == C_WINDOW:
        _return_window(s)
    else:  # C_LIMIT
        _limit_round(s, p)


@njit(cache=True, _nrt=False)
def _limit_round(s, p):
    """Each seat in turn from the current one discards down to LIM_L; then continue per LIM_RET."""
    while s[LIM_IDX] < s[NP]:
        q = (s[CUR] + s[LIM_IDX]) % s[NP]
        s[LIM_IDX] += 1
        over = knowledge_total(s, q) - s[LIM_L]
        if over > 0:
            _start_payment(s, p, q, (0, 0, 0, 0), over, 0, -1, C_LIMIT, -1, -1)
            return
    r = s[LIM_RET]
    s[LIM_IDX] = 0
    s[LIM_L] = 0
    s[LIM_RET] = -1
    if r == R_BEGIN_PLACEMENT:
        _begin_placement(s, p)
    elif r == R_CONTINUE_PLACEMENT:
        _placement_next(s, p)
    else:
        _next_turn(s)


@njit(cache=True, _nrt=False)
def _discard_round(s, p, limit, ret):
    s[LIM_IDX] = 0
    s[LIM_L] = limit
    s[LIM_RET] = ret
    _limit_round(s, p)


@njit(cache=True, _nrt=False)
def _after_drop(s):
    s[FIX_LEFT] = 0
    if hand_total(s) == 0:
        s[LASTM] = s[POS]
        s[PHASE] = PH_POST
    else:
        s[PHASE] = PH_MOVE


@njit(cache=True, _nrt=False)
def _end_turn(s, p):
    if n_critical(s, p) >= CRITICAL_LOSS_AT:
        s[OUTCOME] = OUT_FOUR_CRITICAL
        s[PHASE] = PH_TERMINAL
        return
    _discard_round(s, p, knowledge_limit(s, p), R_BEGIN_PLACEMENT)


@njit(cache=True, _nrt=False, inline="always")
def draws_next(s, p):
    """Malfunctions the next placement draws (fewer if the bag runs out first): the malfunctions per
    turn, less Violet's reduction this turn, plus one while the extra-malfunction effect is active.
    The placement's own rule (``_begin_placement``), public for planners' forecasts."""
    return p[P_PER_TURN] - s[VIOLET_RED] + effect_active(s, p, E_EXTRA)


@njit(cache=True, _nrt=False)
def _begin_placement(s, p):
    n = draws_next(s, p)
    extra = effect_active(s, p, E_EXTRA)
    s[PLACE_LEFT] = n
    s[EXTRA_DONE] = extra
    s[WENT_CRIT] = 0
    _placement_next(s, p)


@njit(cache=True, _nrt=False)
def _placement_next(s, p):
    if s[PLACE_LEFT] > 0:
        if bag_total(s) == 0:
            s[OUTCOME] = OUT_BAG_EMPTY
            s[PHASE] = PH_TERMINAL
        else:
            s[PHASE] = PH_CHANCE_MALF
    elif s[WENT_CRIT]:
        s[PHASE] = PH_CHANCE_SPY
    else:
        _next_turn(s)


@njit(cache=True, _nrt=False)
def _next_turn(s):
    s[CUR] = (s[CUR] + 1) % s[NP]
    s[TURN] += 1
    _start_turn(s)


@njit(cache=True, _nrt=False)
def apply(s, p, a):
    """Apply a legal decision action (not checked here: the Python face checks)."""
    cur = s[CUR]
    s[ST_DECISIONS] += 1
    if a < A_DROP:  # PICK
        _pick(s, a)
    elif a < A_ENTER:  # DROP
        t = a - A_DROP
        m = _drop(s, p, t)
        s[FIX_LEFT] = s[WORK + N_TYPES * m + t]  # every worker of this type here is activated
        if fixable_at(s, m, t) > 0:
            s[PHASE] = PH_FIX
        else:
            _after_drop(s)
    elif a == A_ENTER or a == A_ENTER_NOVA:
        t = 0
        for t2 in range(N_TYPES):
            if s[HAND + t2] > 0:
                t = t2
        cost = entry_cost(s, p)
        if a == A_ENTER:
            _start_payment(s, p, cur, need1(t, cost), 0, 0, -1, C_ENTER, -1, -1)
        else:
            s[ABIL_USED] = 1
            _start_payment(s, p, cur, need1(t, cost), effect_active(s, p, E_ABILITY), 1, -1, C_ENTER, -1, -1)
    elif a < A_STOP_FIXING:  # FIX
        k = a - A_FIX
        m = s[POS]
        _fix(s, cur, m, k, 1)
        _fixed(s, cur, m, k % N_TYPES, 1)
        s[FIX_LEFT] -= 1
        if s[FIX_LEFT] == 0 or fixable_at(s, m, s[LAST_T]) == 0:
            _after_drop(s)
    elif a == A_STOP_FIXING:
        _after_drop(s)
    elif a <= A_UNCOVER_FARE_CCW:
        lm = s[LASTM]
        extra = effect_active(s, p, E_UNCOVER)
        if a == A_UNCOVER:
            m, any_n, sub = lm, extra, 0
        else:
            s[ABIL_USED] = 1
            tax = effect_active(s, p, E_ABILITY)
            if a == A_UNCOVER_FENN:
                m, any_n, sub = lm, extra + tax, 1
            elif a == A_UNCOVER_FARE_CW:
                m, any_n, sub = (lm + 1) % N_MACHINES, extra + 1 + tax, 0
            else:
                m, any_n, sub = (lm + N_MACHINES - 1) % N_MACHINES, extra + 1 + tax, 0
        need = need2(p[P_MACHINE_TYPES + 2 * m], p[P_MACHINE_TYPES + 2 * m + 1])
        _start_payment(s, p, cur, need, any_n, sub, -1, C_UNCOVER, m, -1)
    elif a == A_END_TURN:
        _end_turn(s, p)
    elif a < A_SELECT:  # PAY
        k = a - A_PAY
        q = s[PAYER]
        _know_add(s, q, k, -1)
        if s[DEST] < 0:
            s[DISCARD + k] += 1
        else:
            _know_add(s, s[DEST], k, 1)
        s[PAID + k % N_TYPES] += 1
        s[PAID_N] += 1
        if s[PAID_N] == s[NEED] + s[NEED + 1] + s[NEED + 2] + s[NEED + 3] + s[ANY_N]:
            _finish_payment(s, p)
    elif a < A_HARRIS:  # SELECT
        i = a - A_SELECT
        ph = s[PHASE]
        if ph == PH_HARRIS_FROM:
            s[CARG2] = i
            s[PHASE] = PH_HARRIS_TO
        elif ph == PH_HARRIS_TO:
            move_worker(s, s[CARG], s[CARG2], i)
            _return_window(s)
        else:  # PH_LINNY: i = location*4 + type, of printed machine CARG
            k = N_TYPES * s[CARG] + i % N_TYPES
            s[BOARD + N_KINDS * (i // N_TYPES) + k] -= 1
            s[MCOUNT + i // N_TYPES] -= 1
            s[DISCARD + k] += 1
            _return_window(s)
    else:  # the active abilities
        s[ABIL_USED] = 1
        s[WINDOW] = s[PHASE]
        tax = effect_active(s, p, E_ABILITY)
        if a < A_JUNAS:
            t = a - A_HARRIS
            _start_payment(s, p, cur, need1(t, 1), tax, 0, -1, C_HARRIS, t, -1)
        elif a < A_LINNY:
            i = a - A_JUNAS
            t = i // 6
            g = (i % 6) // 3 + 1
            target = (cur + i % 3 + 1) % s[NP]
            _start_payment(s, p, cur, need1(t, g), 0, 0, target, C_JUNAS_GIVE, target, t)
        elif a < A_VIOLET:
            k = a - A_LINNY
            _know_add(s, cur, k, -1)
            s[DISCARD + k] += 1
            if tax:
                _start_payment(s, p, cur, (0, 0, 0, 0), tax, 0, -1, C_LINNY, k // N_TYPES, -1)
            else:
                s[CARG] = k // N_TYPES
                s[PHASE] = PH_LINNY
        elif a < A_RONE:
            t = a - A_VIOLET
            _start_payment(s, p, cur, need1(t, VIOLET_REDUCTION), tax, 0, -1, C_VIOLET, -1, -1)
        else:
            i = a - A_RONE
            m = i // 6
            pair = i % N_TYPE_PAIRS
            if p[P_SW_RONE_COST] == 1:  # switch rone_cost "any_two"
                _start_payment(s, p, cur, (0, 0, 0, 0), 2 + tax, 0, -1, C_RONE, m, -1)
            else:
                t1 = 0 if pair < 3 else (1 if pair < 5 else 2)
                t2 = (1, 2, 3, 2, 3, 3)[pair]
                _start_payment(s, p, cur, need2(t1, t2), tax, 0, -1, C_RONE, m, -1)


# ---- the pieces of apply that the planners' step primitives share with it ----------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _pick(s, a):
    """Pick-up a (A_PICK + 2m, clockwise; + 1 anticlockwise) from PH_PRE: every worker on machine
    m goes into the (empty) hand."""
    m = a // 2
    for t in range(N_TYPES):
        s[HAND + t] = s[WORK + N_TYPES * m + t]
        s[WORK + N_TYPES * m + t] = 0
    s[POS] = m
    s[DIR] = 1 if a % 2 == 0 else -1
    s[PHASE] = PH_MOVE


@njit(cache=True, _nrt=False, inline="always")
def _drop(s, p, t):
    """A type-t worker leaves the hand for the group's next machine; returns that machine."""
    s[HAND + t] -= 1
    if s[DROPS] >= N_MACHINES and p[P_SW_WRAP] == 1:
        m = s[POS]  # switch long_group "stops": back at its own machine, the rest drop there
    else:
        m = (s[POS] + s[DIR]) % N_MACHINES
    s[DROPS] += 1
    s[POS] = m
    s[WORK + N_TYPES * m + t] += 1
    s[LAST_T] = t
    return m


@njit(cache=True, _nrt=False, inline="always")
def _fix(s, q, m, k, f):
    """Player q fixes f malfunctions of kind k at machine m: they become q's knowledge tokens
    (f < 0 takes -f fixes back). ``_fixed`` counts them in the caches and the statistics."""
    s[BOARD + N_KINDS * m + k] -= f
    s[KNOW + N_KINDS * q + k] += f


@njit(cache=True, _nrt=False, inline="always")
def _fixed(s, q, m, t, n):
    """After ``_fix`` of n malfunctions of type t at machine m by player q (n < 0: taken back):
    the caches MCOUNT and HAVE and the statistic ST_FIXED."""
    s[MCOUNT + m] -= n
    s[HAVE + N_TYPES * q + t] += n
    s[ST_FIXED] += n


@njit(cache=True, _nrt=False, inline="always")
def _enter_section(s):
    """The entry's payment is complete: the worker in hand goes into the section at its machine,
    and the sixth piece wins."""
    for t in range(N_TYPES):
        if s[HAND + t] > 0:
            s[HAND + t] = 0
            s[ORPH + s[POS]] = t
    s[LASTM] = -1
    if orphanage_count(s) == N_SECTIONS:
        s[OUTCOME] = OUT_WIN
        s[PHASE] = PH_TERMINAL
    else:
        s[PHASE] = PH_POST


@njit(cache=True, _nrt=False, inline="always")
def move_worker(s, t, src, dst):
    """A type-t worker moves from machine src to machine dst (Harris's move, the second SELECT;
    a planner's trial move, taken back by ``move_worker(s, t, dst, src)``)."""
    s[WORK + N_TYPES * src + t] -= 1
    s[WORK + N_TYPES * dst + t] += 1


# ---- step primitives for planners -------------------------------------------------------------------------
# A planner searching a turn makes these steps in place instead of calling apply once per action
# (and undoes them on the way back instead of copying the position). Each is exactly a named sequence
# of apply calls, the same position afterwards, made from the same pieces of code as apply
# (tests/test_bw_steps.py checks both, and that each undo gives the position back exactly). They
# are compiled to be inlined into the planner's search loop.
DROP_UNDO_SIZE = 12  # drop_and_fix's undo record: POS, PHASE, LAST_T, FIX_LEFT, LASTM, fixes, then
DROP_UNDO_FIXES = 6  # at DROP_UNDO_FIXES + pm: the fixes of kind 4 * pm + t


@njit(cache=True, _nrt=False, inline="always")
def pick_up(s, a):
    """``apply(s, p, a)`` for a pick-up a < A_DROP (PH_PRE, the hand empty). ``unpick`` undoes it."""
    s[ST_DECISIONS] += 1
    _pick(s, a)


@njit(cache=True, _nrt=False, inline="always")
def unpick(s, pos, dr):
    """Undo ``pick_up`` (every drop since undone already): the hand back on its machine, POS and
    DIR as they were before it (pos, dr), the phase PH_PRE."""
    m = s[POS]
    s[ST_DECISIONS] -= 1
    for t in range(N_TYPES):
        s[WORK + N_TYPES * m + t] = s[HAND + t]
        s[HAND + t] = 0
    s[POS] = pos
    s[DIR] = dr
    s[PHASE] = PH_PRE


@njit(cache=True, _nrt=False, inline="always")
def drop_and_fix(s, p, t, undo, u):
    """Drop a worker of type t (PH_MOVE, one in hand) and fix greedily: ``apply(s, p, A_DROP + t)``,
    then while the phase is PH_FIX ``apply(s, p, A_FIX + k)`` with k the lowest printed kind of
    type t lying at the machine (every activated worker fixes while a malfunction it may fix
    lies there). Returns the number of fixes; the int32 record undo[u:u + DROP_UNDO_SIZE] receives
    what ``undo_drop`` needs, undo[u + DROP_UNDO_FIXES + pm] the fixes of kind 4 * pm + t (written
    only when the machine had a malfunction; read only when the fixes are not 0). (An array and an
    offset: the planner keeps one record per search depth in its workspace.)"""
    undo[u + 0] = s[POS]
    undo[u + 1] = s[PHASE]
    undo[u + 2] = s[LAST_T]
    undo[u + 3] = s[FIX_LEFT]
    undo[u + 4] = s[LASTM]
    cur = s[CUR]
    m = _drop(s, p, t)
    w = s[WORK + N_TYPES * m + t]  # the activated workers
    nfix = 0
    if s[MCOUNT + m] > 0:
        for pm in range(N_MACHINES):
            k = N_TYPES * pm + t
            c = s[BOARD + N_KINDS * m + k]
            f = c if c < w else w
            if f > 0:
                _fix(s, cur, m, k, f)
                w -= f
                nfix += f
            undo[u + DROP_UNDO_FIXES + pm] = f
        if nfix > 0:
            _fixed(s, cur, m, t, nfix)
    undo[u + 5] = nfix
    s[ST_DECISIONS] += 1 + nfix
    _after_drop(s)
    return nfix


@njit(cache=True, _nrt=False, inline="always")
def undo_drop(s, t, undo, u):
    """Undo the type-t ``drop_and_fix`` that filled undo[u:u + DROP_UNDO_SIZE]: s is again exactly
    as before it."""
    m = s[POS]
    nfix = undo[u + 5]
    if nfix > 0:
        cur = s[CUR]
        for pm in range(N_MACHINES):
            f = undo[u + DROP_UNDO_FIXES + pm]
            if f > 0:
                _fix(s, cur, m, N_TYPES * pm + t, -f)
        _fixed(s, cur, m, t, -nfix)
    s[ST_DECISIONS] -= 1 + nfix
    s[WORK + N_TYPES * m + t] -= 1
    s[HAND + t] += 1
    s[DROPS] -= 1
    s[POS] = undo[u + 0]
    s[PHASE] = undo[u + 1]
    s[LAST_T] = undo[u + 2]
    s[FIX_LEFT] = undo[u + 3]
    s[LASTM] = undo[u + 4]


@njit(cache=True, _nrt=False)
def enter_and_pay(s, t, cost, spent):
    """The plain Orphanage entry of the last worker (type t) where the current player holds at
    least cost = ``entry_cost(s, p)`` tokens of type t (``entry_payable(s, p, t, cost, 0)``):
    ``apply(s, p, A_ENTER)``, then cost times ``apply(s, p, A_PAY + k)`` with k the lowest printed
    kind of type t the player holds (the payment's legal tokens are all of type t); the last
    payment places the worker (a win with the sixth piece). spent[pm] (int32, N_MACHINES entries)
    receives the tokens of kind 4 * pm + t paid."""
    cur = s[CUR]
    left = cost
    for pm in range(N_MACHINES):
        k = N_TYPES * pm + t
        c = s[KNOW + N_KINDS * cur + k]
        f = c if c < left else left
        spent[pm] = f
        if f > 0:
            s[KNOW + N_KINDS * cur + k] = c - f
            s[DISCARD + k] += f
            left -= f
    s[HAVE + N_TYPES * cur + t] -= cost
    s[ST_DECISIONS] += 1 + cost
    _clear_payment(s)  # the payment is over: its fields back to their neutral values
    _enter_section(s)


# ---- chance ------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def malfunctions_drawn(s, p):
    """Malfunctions drawn from the bag since setup (the bag is never refilled): the index n of the
    next draw on the CH_MALFUNCTION sub-stream."""
    n = p[P_MALF_TOTAL] - p[P_OPENING] - s[BAG_N]
    return n if n > 0 else 0  # (a hand-made test position may hold more than the game has)


@njit(cache=True, _nrt=False)
def tiles_seen(s):
    n = 0
    for e in range(N_EFFECTS):
        if s[EFFM + e] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _unseen_effect(s, r):
    """The r-th (in effect order) of the effects no tile has shown yet."""
    for e in range(N_EFFECTS):
        if s[EFFM + e] < 0:
            if r == 0:
                return e
            r -= 1
    return -1


@njit(cache=True, _nrt=False)
def chance_outcome(s, p, key):
    """The outcome of the pending chance event, drawn from the game's chance key: a malfunction
    kind (uniform over the tokens in the bag), a tile's effect (uniform over the effects not seen
    yet) or a spy (uniform over the unseen spies; once none is left, the first of the known bottom
    of the stack). The n-th event of each kind uses number n of that kind's sub-stream."""
    if s[PHASE] == PH_CHANCE_MALF:
        return kind_at(s, below(substream(key, CH_MALFUNCTION), malfunctions_drawn(s, p), bag_total(s)))
    return _reveal_outcome(s, key)  # out of line: the rare reveals stay out of the play loop's inlined copy


@njit(cache=True, _nrt=False)
def _reveal_outcome(s, key):
    """chance_outcome of a tile or a spy reveal."""
    if s[PHASE] == PH_CHANCE_TILE:
        n = tiles_seen(s)
        return _unseen_effect(s, below(substream(key, CH_TILE), n, N_EFFECTS - n))
    if s[UNSEEN] > 0:
        return _unseen_spy(s, below(substream(key, CH_SPY), s[SPIES_REVEALED], s[UNSEEN]))
    return s[STACK]


@njit(cache=True, _nrt=False)
def chance_probabilities(s, p, out):
    """out[o] = probability of chance outcome o (24 malfunction kinds, 6 effects or 6 spies)."""
    out[:] = 0.0
    ph = s[PHASE]
    if ph == PH_CHANCE_MALF:
        tot = bag_total(s)
        for k in range(N_KINDS):
            out[k] = s[BAG + k] / tot
    elif ph == PH_CHANCE_TILE:
        n = N_EFFECTS - tiles_seen(s)
        for e in range(N_EFFECTS):
            if s[EFFM + e] < 0:
                out[e] = 1.0 / n
    elif ph == PH_CHANCE_SPY:
        if s[UNSEEN] > 0:
            for m in range(N_SPIES):
                if s[SPY + m] == 0 and not _in_stack_bottom(s, m):
                    out[m] = 1.0 / s[UNSEEN]
        else:
            out[s[STACK]] = 1.0


@njit(cache=True, _nrt=False)
def _went_critical(s, p, m, then):
    """Machine m just went critical and its tile is face up: the effects that act at once
    (extra malfunction in a placement, knowledge limit 6), then what was interrupted goes on."""
    e = s[TILE + m]
    if then == T_PLACEMENT:
        if e == E_EXTRA and s[EXTRA_DONE] == 0:
            s[EXTRA_DONE] = 1
            s[PLACE_LEFT] += 1
        elif e == E_LIMIT6:
            _discard_round(s, p, p[P_CRIT_LIMIT], R_CONTINUE_PLACEMENT)
            return
        _placement_next(s, p)
    else:  # a spy turned it critical: the extra-malfunction tile adds nothing
        if e == E_LIMIT6:
            _discard_round(s, p, p[P_CRIT_LIMIT], R_AFTER_SPY)
            return
        _next_turn(s)


@njit(cache=True, _nrt=False)
def _turn_tile(s, p, m, then):
    """Machine m went critical: its tile turns face up, drawn first if nobody has seen it."""
    if s[TILE + m] < 0:
        s[REVEAL_M] = m
        s[REVEAL_THEN] = then
        s[PHASE] = PH_CHANCE_TILE
    else:
        _went_critical(s, p, m, then)


@njit(cache=True, _nrt=False)
def apply_chance(s, p, outcome):
    ph = s[PHASE]
    if ph == PH_CHANCE_MALF:
        k = outcome
        s[BAG + k] -= 1
        s[BAG_N] -= 1
        s[PLACE_LEFT] -= 1
        n = k // N_TYPES
        if s[RONE_M] == n:
            s[DISCARD + k] += 1  # Rone: drawn for the protected machine, straight to the discard
            _placement_next(s, p)
            return
        target = n
        if s[TILE + n] == E_REDIRECT and is_critical(s, p, n):
            for i in range(1, N_MACHINES):
                m = (n + i) % N_MACHINES
                if not is_critical(s, p, m):
                    target = m
                    break
            # every machine critical: it stays where it was drawn for (assumption)
            if target == s[RONE_M] and p[P_SW_RONE] == 0:
                s[DISCARD + k] += 1  # switch rone_redirect "discard": nothing is placed on it
                _placement_next(s, p)
                return
        was = is_critical(s, p, target)
        s[BOARD + N_KINDS * target + k] += 1
        s[MCOUNT + target] += 1
        if not was and is_critical(s, p, target):
            s[WENT_CRIT] = 1
            if p[P_SW_FOUR] == 1 and n_critical(s, p) >= CRITICAL_LOSS_AT:
                s[OUTCOME] = OUT_FOUR_CRITICAL  # switch four_critical "immediate"
                s[PHASE] = PH_TERMINAL
                return
            _turn_tile(s, p, target, T_PLACEMENT)
            return
        _placement_next(s, p)
    elif ph == PH_CHANCE_TILE:
        m = s[REVEAL_M]
        then = s[REVEAL_THEN]
        s[TILE + m] = outcome
        s[EFFM + outcome] = m
        s[REVEAL_M] = -1
        s[REVEAL_THEN] = -1
        _went_critical(s, p, m, then)
    else:
        spy = outcome
        _reveal_spy(s, spy)
        s[SPIES_REVEALED] += 1
        on_board = 0
        for m in range(N_SPIES):
            on_board += s[SPY + m]
        if on_board == N_SPIES:
            s[OUTCOME] = OUT_SIX_SPIES
            s[PHASE] = PH_TERMINAL
            return
        # the spy may turn its machine critical (its tile turns face up)
        if malfunctions_at(s, spy) + 1 > p[P_CRIT_ABOVE] and malfunctions_at(s, spy) <= p[P_CRIT_ABOVE]:
            if p[P_SW_FOUR] == 1 and n_critical(s, p) >= CRITICAL_LOSS_AT:
                s[OUTCOME] = OUT_FOUR_CRITICAL  # switch four_critical "immediate"
                s[PHASE] = PH_TERMINAL
                return
            _turn_tile(s, p, spy, T_SPY)
            return
        _next_turn(s)


@njit(cache=True, _nrt=False)
def copy_position(dst, src):
    """dst[:S_SIZE] = src[:S_SIZE]: a position copied (into a position or a planner's row)."""
    for i in range(S_SIZE):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def current_player(s):
    """The seat that decides now (the payer during a payment), PLAYER_CHANCE or PLAYER_TERMINAL."""
    ph = s[PHASE]
    if ph == PH_TERMINAL:
        return PLAYER_TERMINAL
    if ph == PH_CHANCE_MALF or ph == PH_CHANCE_SPY or ph == PH_CHANCE_TILE:
        return PLAYER_CHANCE
    if ph == PH_PAY:
        return s[PAYER]
    return s[CUR]


@njit(cache=True, _nrt=False)
def returns(s, out):
    """out[q] = 1.0 for every seat if the players won (cooperative), else 0.0."""
    r = 1.0 if s[OUTCOME] == OUT_WIN else 0.0
    for q in range(s[NP]):
        out[q] = r


@njit(cache=True, _nrt=False)
def is_terminal(s):
    return s[PHASE] == PH_TERMINAL


@njit(cache=True, _nrt=False)
def is_chance(s):
    return current_player(s) == PLAYER_CHANCE


# The play loops' own entry points: the same four functions (the same Python code), compiled to
# be inlined into their caller at numba's IR level. A numba call passes every array as its seven
# fields and LLVM declines to inline functions this size, so in the arena's loop the calls cost
# more than the work of a typical step: callgrind, 2,000 random games (3 players, 0 spies), 60.95 M
# instructions with the calls, 40.68 M inlined, same games (docs/benchmarks.md). The arena and the
# search's rollouts call these; everything else calls the plain functions (inlining into every
# caller would multiply the compile time of the planners).
legal_actions_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(legal_actions, 'py_func', legal_actions))
apply_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(apply, 'py_func', apply))
chance_outcome_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(chance_outcome, 'py_func', chance_outcome))
apply_chance_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(apply_chance, 'py_func', apply_chance))
