"""Benevolent: the compiled rules.

A position is one flat int32 array ``s`` (layout below); the rules data is ``Rules.params``. As
for Bethel Woods every function is ``@njit(cache=True, _nrt=False)`` (no allocation, no reference
counting) and the legal actions come as an ascending list. The engine API is the one every game
has (docs/engine_api.md):

    setup(s, p, cfg, key)            cfg = int64[CFG_SIZE]: players, then the starting leaves by seat
    current_player(s) -> seat, or PLAYER_TERMINAL (there are no chance events after setup)
    legal_actions(s, p, acts) -> n   legal_mask(s, p, mask) -> n
    apply(s, p, a)
    chance_outcome / chance_probabilities / apply_chance   never called: nothing is hidden and
                                     nothing is drawn after setup (the forest and the Secret tiles
                                     are dealt face up)
    returns(s, out)                  out[winner] = 1.0, every other seat 0.0 (all 0.0 on a timeout)
"""
import numpy as np
from numba import njit

from ..common import PLAYER_TERMINAL, fill_mask, push as _add
from ..layout import Bits, Bool, Flags, Int, Layout, Name, Opt, PerName, Sorted
from ..rng import below, shuffle, substream
from .actions import (
    A_BUY, A_DECLINE, A_END_TURN, A_EXCHANGE, A_FROM, A_GATHER, A_GATHER_PUT, A_GATHER_TAKE, A_MEADOW,
    A_MOVE, A_NEST, A_PLACE, A_SECRET, A_SLEEP, A_TABLE, N_ACTIONS, OUT_TIMEOUT, OUT_WIN, PH_ACTION,
    PH_AGAIN_EXCHANGE, PH_AGAIN_SLEEP, PH_BUY, PH_END, PH_EXCHANGE, PH_FROM, PH_MOVE, PH_SLEEP, PH_TERMINAL,
    OUTCOMES, PHASES,
)
from .rules import (
    AGAIN_EXCHANGE_COST, AGAIN_SLEEP_COST, ALTAR, CRYSTAL_SECRET_PRICE, FOOTSTEPS_ON_FOREST, GIFTS, HEX_TYPES,
    LAYOUT_STRIDE, MAX_HEXES, MAX_PLAYERS, MEADOW, N_SLOTS, NEST, PERMANENT, SINGLE_USE,
    PM_AGAIN_EXCHANGE, PM_AGAIN_SLEEP, P_ARROWS, PM_DISCOUNT, P_EXCH, PM_GATHER_TILE, P_LAYOUT, PM_LEAF_BONUS,
    P_N_ARROWS, P_N_SEGS, P_PAIRS, P_SW_EMPTY, P_SW_GATHER, PM_NO_GRAY, PM_PAY_SUPPLY, P_POOL, P_SIDE_GRAY, P_SIDE_TYPE, P_TIMEOUT, PM_TWO_ON_HEX,
    PM_UNCONNECTED, P_VALUES, PERMANENT_DISCOUNT, POND, RESOLVE_PURCHASE_DISCOUNT, RING, SU_CRYSTAL3,
    SU_EXCH1, SU_EXCH3, SU_EXCHANGE, SU_GAIN_CLOVER, SU_GAIN_FEATHER, SU_PURCHASE, SU_SLEEP, SLOT_SUPPORTS, TABLE,
    TOTAL_LEAVES,
)

# ---- state layout: s is int32[S_SIZE] ---------------------------------------------------------------
# One table, in array order, as in Bethel Woods (simcore/layout.py): each field's offset is the sum
# of the sizes above it, computed at import and bound below as a plain module int (NP, CUR, ...):
# numba reads them as compile-time constants. shape: entries, or (rows, entries per row) for a field
# the position shows row by row; the players' block PL is (seats, PLAYER): seat q's field L_X is
# s[PL + PS*q + L_X]. decode: how face.to_dict shows the field.
# the position has a block for each possible seat (rules.MAX_PLAYERS)
N_SEGMENTS = 3    # the forest segments (rulebook: components); 2 or 3 are placed
N_RETURN, N_AGAIN_SLEEP, N_AGAIN_EXCHANGE = range(3)
NEXT_NAMES = ("return", "again_sleep", "again_exchange")   # NEXT, as the JSON position names it
PLAYER = Layout(
    ("L_LEAVES", 1, Int(), "leaves"),
    ("L_GIFTS", len(GIFTS), PerName(GIFTS), "gift tokens"),
    ("L_FOOT", FOOTSTEPS_ON_FOREST, Sorted(), "the forest Footsteps: hex, or -1 on the character card"),
    ("L_DREAM", 1, Int(), "Dream Path position 0-3"),
    ("L_SINGLE", len(SINGLE_USE), Flags(SINGLE_USE), "1 if holding that single-use Secret (not yet resolved)"),
    ("L_PERM", len(PERMANENT), Flags(PERMANENT), "1 if holding that permanent Secret"),
    ("L_TILE", 1, Int(), "leaves lying on the gather tile (permanent Secret 2)"),
)
globals().update(PLAYER.offsets)   # L_LEAVES = 0, L_GIFTS = 1, ..., L_TILE = 29
PS = PLAYER.size                   # 30
STATE = Layout(
    ("NP", 1, Int(), "players"),
    ("CUR", 1, Int(), "seat to play (seat 0 is the first player)"),
    ("PHASE", 1, Name(PHASES), "actions.PH_*"),
    ("TURN", 1, Int(), "turns completed"),
    ("OUTCOME", 1, Name(OUTCOMES), "actions.OUT_*"),
    ("WINNER", 1, Opt(), "winning seat, -1"),
    ("SUPPLY", 1, Int(), "leaves in the supply"),
    ("POOL", len(GIFTS), PerName(GIFTS), "gift tokens on the Dream board"),
    ("N_HEX", 1, Int(), "hexes in the assembled forest"),
    ("HEX_TYPE", (MAX_HEXES, 1), Name(HEX_TYPES), "hex type (rules.ALTAR ...), -1 past N_HEX"),
    ("HEX_GRAY", (MAX_HEXES, 1), Bool(), "1 if a gray Footstep is printed on the hex"),
    ("HEX_ADJ", (MAX_HEXES, 1), Bits(MAX_HEXES), "neighbour bitmask"),
    ("SEG", (N_SEGMENTS, 1), Opt(), "segment placed in layout slot i (-1 none)"),
    ("SEG_SIDE", (N_SEGMENTS, 1), Int(), "its side (0 or 1)"),
    ("SLOT_TILE", (N_SLOTS, 1), Opt(),
     "the Secret shown by the tile in triangle slot i (single-use Secret k, or permanent Secret k by "
     "SLOT_SIDE), -1 once taken"),
    ("SLOT_SIDE", (N_SLOTS, 1), Name(("single-use", "permanent")), "the side up: 0 single-use, 1 permanent"),
    ("DEST", 1, Opt(), "hex entered this turn, -1 before the movement"),
    ("RET", 1, Name(PHASES), "the window (MOVE, ACTION or END) a Secret or an action returns to"),
    ("NEXT", 1, Name(NEXT_NAMES),
     "after a gift is received: 0 return, 1 offer \"sleep again\", 2 offer \"exchange again\" (N_*)"),
    ("PEND", 1, Name(GIFTS), "the gift waiting for the FROM choice"),
    ("ST_DECISIONS", 1, Int(), "decisions taken"),
    ("START_LEAVES", (MAX_PLAYERS, 1), Int(), "the starting leaves of each seat (for the records)"),
    ("PL", (MAX_PLAYERS, PLAYER), None, "the players' blocks, PS entries each (PLAYER above)"),
)
globals().update(STATE.offsets)   # NP = 0, CUR = 1, ..., PL = 88
S_SIZE = STATE.size               # PL + 4 * PS = 208

# cfg: the setup arguments as one int64 array
CFG = Layout(
    ("CFG_PLAYERS", 1, None, "players"),
    ("CFG_LEAVES", MAX_PLAYERS, None, "starting leaves of seat q"),
)
globals().update(CFG.offsets)
CFG_SIZE = CFG.size

# chance sub-streams of setup (simcore.rng.substream)
CH_SEGMENTS = 0   # which segments, in which layout slot (a shuffle of the 3)
CH_SIDES = 1      # the side up of each placed segment
CH_TILES = 2      # the Secret tiles into the triangle (a shuffle of the 9)
CH_TILE_SIDES = 3 # the side up of each tile

_SUP_A = tuple(a for a, _ in SLOT_SUPPORTS)   # the two tiles each triangle slot rests on
_SUP_B = tuple(b for _, b in SLOT_SUPPORTS)


@njit(cache=True, _nrt=False)
def pl(q):
    return PL + PS * q


# ---- named accessors: a policy reads the position through these, not through offsets ---------------------
# Each is one read of the layout above, compiled to be inlined, so a reader pays nothing for the name
# (as Bethel Woods' accessors). A single field is read by its name (s[PHASE], s[CUR], s[N_HEX]); these
# cover the fields indexed by seat, gift, hex, Secret or slot. q: a seat; g: a gift (rules.GIFTS, 0
# Clover .. 4 Figurine); h: a hex of the forest (0 .. s[N_HEX] - 1); k: a Secret (rules.SINGLE_USE or
# rules.PERMANENT); i: a triangle slot.
@njit(cache=True, _nrt=False, inline="always")
def leaves(s, q):
    """Leaves player q holds."""
    return s[pl(q) + L_LEAVES]


@njit(cache=True, _nrt=False, inline="always")
def gifts(s, q, g):
    """Gift tokens of kind g player q holds."""
    return s[pl(q) + L_GIFTS + g]


@njit(cache=True, _nrt=False, inline="always")
def foot(s, q, i):
    """The hex of player q's forest Footstep i (0-3; in no order), -1 while it is on the character card."""
    return s[pl(q) + L_FOOT + i]


@njit(cache=True, _nrt=False, inline="always")
def dream(s, q):
    """Player q's position on the Dream Path (0-3)."""
    return s[pl(q) + L_DREAM]


@njit(cache=True, _nrt=False, inline="always")
def single(s, q, k):
    """1 if player q holds single-use Secret k (not yet resolved), else 0."""
    return s[pl(q) + L_SINGLE + k]


@njit(cache=True, _nrt=False, inline="always")
def permanent(s, q, k):
    """1 if player q holds permanent Secret k, else 0 (``perm`` is the same as a truth value)."""
    return s[pl(q) + L_PERM + k]


@njit(cache=True, _nrt=False, inline="always")
def tile_leaves(s, q):
    """Leaves lying on player q's gather tile (permanent Secret PM_GATHER_TILE)."""
    return s[pl(q) + L_TILE]


@njit(cache=True, _nrt=False, inline="always")
def pool(s, g):
    """Gift tokens of kind g on the Dream board."""
    return s[POOL + g]


@njit(cache=True, _nrt=False, inline="always")
def hex_type(s, h):
    """The type of hex h (rules.ALTAR ..)."""
    return s[HEX_TYPE + h]


@njit(cache=True, _nrt=False, inline="always")
def hex_gray(s, h):
    """1 if a gray Footstep is printed on hex h."""
    return s[HEX_GRAY + h]


@njit(cache=True, _nrt=False, inline="always")
def hex_adj(s, h):
    """The neighbours of hex h (bitmask of hexes)."""
    return s[HEX_ADJ + h]


@njit(cache=True, _nrt=False, inline="always")
def slot_tile(s, i):
    """The Secret the tile in triangle slot i shows (single-use or permanent by slot_side), -1 once taken."""
    return s[SLOT_TILE + i]


@njit(cache=True, _nrt=False, inline="always")
def slot_side(s, i):
    """The side up of the tile in triangle slot i: 0 single-use, 1 permanent."""
    return s[SLOT_SIDE + i]


# ---- queries ----------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def own_on(s, q, h):
    n = 0
    for i in range(4):
        if s[pl(q) + L_FOOT + i] == h:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def others_on(s, q, h):
    n = 0
    for o in range(s[NP]):
        if o != q:
            n += own_on(s, o, h)
    return n


@njit(cache=True, _nrt=False)
def perm(s, q, k):
    return s[pl(q) + L_PERM + k] == 1


@njit(cache=True, _nrt=False)
def obtainable(s, q, g):
    """Can player q receive gift g now (from the Dream board, or from an opponent)?"""
    if s[POOL + g] > 0:
        return True
    for o in range(s[NP]):
        if o != q and s[pl(o) + L_GIFTS + g] > 0:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def gray_cost(s, q, h):
    """The leaf q pays for the gray Footstep printed on hex h: 1, or 0 if there is none or q holds
    the permanent Secret PM_NO_GRAY (footstep_cost and the payment, _pay_footsteps, use it)."""
    return 1 if s[HEX_GRAY + h] == 1 and not perm(s, q, PM_NO_GRAY) else 0


@njit(cache=True, _nrt=False)
def footstep_cost(s, q, h):
    """The leaves q pays for the Footsteps on hex h when taking its action: one to its owner for
    each opponent's Footstep there, plus gray_cost."""
    return others_on(s, q, h) + gray_cost(s, q, h)


@njit(cache=True, _nrt=False)
def price(s, p, q, g, discount):
    c = p[P_VALUES + g] - discount
    if perm(s, q, PM_DISCOUNT):
        c -= PERMANENT_DISCOUNT
    return c if c > 0 else 0


@njit(cache=True, _nrt=False)
def occupied_mask(s, q):
    m = 0
    for i in range(4):
        f = s[pl(q) + L_FOOT + i]
        if f >= 0:
            m |= 1 << f
    return m


@njit(cache=True, _nrt=False)
def connected(s, m):
    """Is the set of hexes in bitmask m one connected group (or empty)?"""
    if m == 0:
        return True
    reach = m & (-m)
    while True:
        grow = reach | (neighbours(s, reach) & m)
        if grow == reach:
            return reach == m
        reach = grow


@njit(cache=True, _nrt=False)
def touches(s, m, h):
    """Is hex h in, or next to, the group m?"""
    return (m & (1 << h)) != 0 or (s[HEX_ADJ + h] & m) != 0


@njit(cache=True, _nrt=False)
def has_all_gifts(s, q):
    for g in range(5):
        if s[pl(q) + L_GIFTS + g] == 0:
            return False
    return True


@njit(cache=True, _nrt=False)
def slot_available(s, i):
    if s[SLOT_TILE + i] < 0:
        return False
    a = _SUP_A[i]
    if a < 0:
        return True
    return s[SLOT_TILE + a] < 0 and s[SLOT_TILE + _SUP_B[i]] < 0


@njit(cache=True, _nrt=False)
def yields(s, p, q, g):
    """Does an action whose yield is gift g yield it? Under the switch empty_gift "offered"
    every such action is offered (it may yield nothing); by default only when g can be received."""
    return p[P_SW_EMPTY] == 1 or obtainable(s, q, g)


@njit(cache=True, _nrt=False)
def exchange_possible(s, p, q):
    for g in range(4):
        if s[pl(q) + L_GIFTS + g] > 0 and yields(s, p, q, g + 1):
            return True
    return False


@njit(cache=True, _nrt=False)
def sleep_possible(s, p, q):
    pos = s[pl(q) + L_DREAM]
    for k in range(p[P_N_ARROWS]):
        if p[P_ARROWS + 3 * k] == pos:
            return True
    return False


# ---- forecasts and rules for planners ----------------------------------------------------------------
# What a planner asks about a player's next turn, written once here: the engine's own rules call the
# same functions where they hold the same rule (footstep_cost and the payment call gray_cost;
# connected calls neighbours; the Secrets' legality and their resolution call exchange_tile_payable,
# exchange_tile_gift and crystal_price). tests/test_bv_steps.py checks each against the reference
# engine and the engine's own steps.
@njit(cache=True, _nrt=False, inline="always")
def neighbours(s, m):
    """The hexes next to some hex of the group m (bitmask; the group's own hexes only where they
    are next to another of its hexes)."""
    nh = s[N_HEX]
    r = 0
    for h in range(nh):
        if m & (1 << h):
            r |= s[HEX_ADJ + h]
    return r & ((1 << nh) - 1)


@njit(cache=True, _nrt=False)
def move_reach(s, q):
    """The hexes q's next movement may reach (bitmask), as a forecast from q's Footsteps now: every
    hex when none is on the forest or q holds PM_UNCONNECTED, else the hexes next to them; without
    q's own hexes unless q holds PM_TWO_ON_HEX. Without that Secret it is exactly the hexes a legal
    placement or move reaches (a move must also leave the other Footsteps connected, which one of
    the two leaves of a spanning tree of the group always does; tests/test_bv_steps.py); with it, a
    forecast (the hexes next to q's, own ones included)."""
    occ = occupied_mask(s, q)
    if occ == 0 or perm(s, q, PM_UNCONNECTED):
        dest = (1 << s[N_HEX]) - 1
    else:
        dest = neighbours(s, occ)
    if not perm(s, q, PM_TWO_ON_HEX):
        dest &= ~occ
    return dest


@njit(cache=True, _nrt=False)
def feet_packed(s, q):
    """Player q's forest Footsteps per hex, packed 3 bits a hex (the same whatever the order of
    the Footstep slots); feet_at reads a hex's count."""
    m = 0
    for i in range(4):
        f = s[pl(q) + L_FOOT + i]
        if f >= 0:
            # int64 as compiled (uncompiled, 1 << an int32 word is an int32: hex 10 on overflowed)
            m += np.int64(1) << (3 * f)
    return m


@njit(cache=True, _nrt=False)
def all_feet_packed(s):
    """Every player's forest Footsteps per hex, packed as feet_packed."""
    m = 0
    for q in range(s[NP]):
        m += feet_packed(s, q)
    return m


@njit(cache=True, _nrt=False, inline="always")
def feet_at(packed, h):
    """The Footsteps on hex h in a packed count (feet_packed, all_feet_packed)."""
    return (packed >> (3 * h)) & 7


@njit(cache=True, _nrt=False, inline="always")
def footstep_cost_packed(s, q, h, others):
    """footstep_cost(s, q, h) from the packed count `others` of the opponents' Footsteps
    (all_feet_packed(s) - feet_packed(s, q)): for a planner that prices every hex of a forest."""
    return feet_at(others, h) + gray_cost(s, q, h)


@njit(cache=True, _nrt=False)
def obtainable_mask(s, q):
    """The gifts q can receive now (bitmask of obtainable)."""
    m = 0
    for g in range(5):
        if obtainable(s, q, g):
            m |= 1 << g
    return m


@njit(cache=True, _nrt=False)
def sleep_gifts(p, pos):
    """The gifts on the Dream Path's arrows leaving position pos (bitmask): what one sleep at the
    Pond can give from there."""
    m = 0
    for k in range(p[P_N_ARROWS]):
        if p[P_ARROWS + 3 * k] == pos:
            g = p[P_ARROWS + 3 * k + 2]
            if g >= 0:
                m |= 1 << g
    return m


@njit(cache=True, _nrt=False, inline="always")
def exchange_tile_payable(s, p, q, k):
    """Does q hold the two tokens the exchange tile of single-use Secret k (SU_EXCH1..SU_EXCH3)
    takes?"""
    e = P_EXCH + 3 * (k - SU_EXCH1)
    ga = p[e]
    gb = p[e + 1]
    if ga == gb:
        return s[pl(q) + L_GIFTS + ga] >= 2
    return s[pl(q) + L_GIFTS + ga] >= 1 and s[pl(q) + L_GIFTS + gb] >= 1


@njit(cache=True, _nrt=False, inline="always")
def exchange_tile_gift(p, k):
    """The gift the exchange tile of single-use Secret k (SU_EXCH1..SU_EXCH3) gives."""
    return p[P_EXCH + 3 * (k - SU_EXCH1) + 2]


@njit(cache=True, _nrt=False, inline="always")
def crystal_price(s, q):
    """What the single-use Secret SU_CRYSTAL3 (a Crystal for 3 leaves) costs q."""
    c = CRYSTAL_SECRET_PRICE - (PERMANENT_DISCOUNT if perm(s, q, PM_DISCOUNT) else 0)
    return max(c, 0)


@njit(cache=True, _nrt=False)
def holds_single(s, q):
    """Does q hold any single-use Secret?"""
    for k in range(9):
        if s[pl(q) + L_SINGLE + k] == 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def hex_types(s):
    """The hex types in the forest (bitmask of rules.ALTAR ..)."""
    m = 0
    for h in range(s[N_HEX]):
        m |= 1 << s[HEX_TYPE + h]
    return m


_FNV = np.uint64(0x100000001B3)
_FNV_OFF = np.uint64(0xCBF29CE484222325)


@njit(cache=True, _nrt=False)
def position_hash(s):
    """A 64-bit hash (FNV-1a over the words) of position s without the turn counter and the
    decision count, each player's Footsteps as per-hex counts (their slot order does not matter):
    equal for the same position reached twice (a repetition)."""
    h = _FNV_OFF
    # np.int64(word): compiled, an int32 word is widened anyway; uncompiled, 0xFFFFFFFF is out of
    # an int32's range
    for i in range(PL):
        if i == TURN or i == ST_DECISIONS:
            continue
        h = (h ^ np.uint64(np.int64(s[i]) & 0xFFFFFFFF)) * _FNV
    for q in range(s[NP]):
        b = pl(q)
        for i in range(PS):
            if L_FOOT <= i < L_FOOT + 4:
                continue
            h = (h ^ np.uint64(np.int64(s[b + i]) & 0xFFFFFFFF)) * _FNV
        h = (h ^ np.uint64(feet_packed(s, q))) * _FNV
    return h


# ---- setup ------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def setup(s, p, cfg, key):
    """Set up a game from cfg (CFG_*) and the game's chance key; each setup step draws from a
    sub-stream of its own (CH_*)."""
    n_players = cfg[CFG_PLAYERS]
    s[:] = 0
    s[NP] = n_players
    s[WINNER] = -1
    s[DEST] = -1
    s[PEND] = -1
    # the forest: random segments, random side up
    for i in range(3):
        s[SEG + i] = i
    shuffle(s, SEG, 3, substream(key, CH_SEGMENTS), 0)
    n_segs = p[P_N_SEGS + n_players - 2]
    k_sides = substream(key, CH_SIDES)
    for i in range(3):
        if i < n_segs:
            s[SEG_SIDE + i] = below(k_sides, i, 2)
        else:
            s[SEG + i] = -1
            s[SEG_SIDE + i] = 0
    base = P_LAYOUT + LAYOUT_STRIDE * (n_players - 2)
    nh = p[base]
    s[N_HEX] = nh
    for h in range(14):
        if h < nh:
            slot = p[base + 1 + h]
            side = 2 * s[SEG + slot] + s[SEG_SIDE + slot]
            s[HEX_TYPE + h] = p[P_SIDE_TYPE + 5 * side + p[base + 15 + h]]
            s[HEX_GRAY + h] = p[P_SIDE_GRAY + 5 * side + p[base + 15 + h]]
            s[HEX_ADJ + h] = p[base + 29 + h]
        else:
            s[HEX_TYPE + h] = -1
    # the Secret tiles: shuffled into the triangle, random side up
    for i in range(9):
        s[SLOT_TILE + i] = i
    shuffle(s, SLOT_TILE, 9, substream(key, CH_TILES), 0)
    k_tile_sides = substream(key, CH_TILE_SIDES)
    for i in range(9):
        s[SLOT_SIDE + i] = below(k_tile_sides, i, 2)
        if s[SLOT_SIDE + i] == 1:   # the permanent Secret on the back of that tile (rules data)
            s[SLOT_TILE + i] = p[P_PAIRS + s[SLOT_TILE + i]]
    # gifts, leaves, Footsteps
    for g in range(5):
        s[POOL + g] = p[P_POOL + 5 * (n_players - 2) + g]
    s[SUPPLY] = TOTAL_LEAVES
    for q in range(4):
        s[START_LEAVES + q] = 0
        for i in range(4):
            s[pl(q) + L_FOOT + i] = -1
    for q in range(n_players):
        lv = cfg[CFG_LEAVES + q]
        s[pl(q) + L_LEAVES] = lv
        s[START_LEAVES + q] = lv
        s[SUPPLY] -= lv
        s[POOL] -= 1                      # each player takes 1 Clover from the Dream board
        s[pl(q) + L_GIFTS] = 1
    s[CUR] = 0
    s[PHASE] = PH_MOVE
    s[RET] = -1


# ---- legal actions ----------------------------------------------------------------------------------------
@njit(cache=True)
def legal_mask(s, p, mask):
    """The legal actions as a boolean mask (Python-facing; the batch runner uses legal_actions)."""
    acts = np.empty(N_ACTIONS, dtype=np.int32)
    return fill_mask(acts, legal_actions(s, p, acts), mask)


@njit(cache=True, _nrt=False)
def legal_actions(s, p, acts):
    ph = s[PHASE]
    q = s[CUR]
    b = pl(q)
    n = np.int64(0)   # not a literal 0: the helpers it is passed to are compiled once (int64)
    nh = s[N_HEX]
    if ph == PH_MOVE:
        two = perm(s, q, PM_TWO_ON_HEX)
        free = perm(s, q, PM_UNCONNECTED)
        # bitmasks of q's hexes: occupied, and occupied twice (possible with the Secret)
        occ = 0
        dbl = 0
        on_card = 0
        for i in range(4):
            f = s[b + L_FOOT + i]
            if f < 0:
                on_card += 1
            elif occ & (1 << f):
                dbl |= 1 << f
            else:
                occ |= 1 << f
        if on_card > 0:
            full = dbl if two else occ   # hexes q may not step on
            for h in range(nh):
                if full & (1 << h):
                    continue
                if occ == 0 or free or touches(s, occ, h):
                    n = _add(acts, n, A_PLACE + h)
        else:
            for f in range(nh):
                if not occ & (1 << f):
                    continue
                # q's other Footsteps once one leaves f
                rest = occ if dbl & (1 << f) else occ & ~(1 << f)
                rest_dbl = dbl & ~(1 << f)
                full = rest_dbl if two else rest
                # if the other Footsteps still form one group, any hex touching it keeps it one
                rest_connected = free or connected(s, rest)
                for h in range(nh):
                    if h == f or full & (1 << h):
                        continue
                    if free or (touches(s, rest, h) and (rest_connected or connected(s, rest | (1 << h)))):
                        n = _add(acts, n, A_MOVE + 14 * f + h)
        n = _secret_actions(s, p, acts, n)
    elif ph == PH_ACTION:
        h = s[DEST]
        if perm(s, q, PM_GATHER_TILE):
            put = s[SUPPLY] > 2  # a leaf must remain after the gather
            take = s[b + L_TILE] > 0
            if (not put and not take) or p[P_SW_GATHER] == 1:  # switch gather_tile "optional"
                n = _add(acts, n, A_GATHER)
            if put:
                n = _add(acts, n, A_GATHER_PUT)
            if take:
                n = _add(acts, n, A_GATHER_TAKE)
        else:
            n = _add(acts, n, A_GATHER)
        cost = footstep_cost(s, q, h)
        lv = s[b + L_LEAVES]
        if lv >= cost:
            t = s[HEX_TYPE + h]
            if t == ALTAR:
                for g in range(5):
                    if lv >= cost + price(s, p, q, g, 0) and yields(s, p, q, g):
                        n = _add(acts, n, A_BUY + g)
            elif t == MEADOW:
                if yields(s, p, q, 0):
                    n = _add(acts, n, A_MEADOW)
            elif t == NEST:
                if yields(s, p, q, 1):
                    n = _add(acts, n, A_NEST)
            elif t == POND:
                n = _sleep_actions(s, p, q, acts, n)
            elif t == RING:
                n = _exchange_actions(s, p, q, acts, n)
            elif t == TABLE:
                for i in range(9):
                    if slot_available(s, i):
                        n = _add(acts, n, A_TABLE + i)
        n = _secret_actions(s, p, acts, n)
    elif ph == PH_SLEEP:
        n = _sleep_actions(s, p, q, acts, n)
    elif ph == PH_EXCHANGE:
        n = _exchange_actions(s, p, q, acts, n)
    elif ph == PH_BUY:
        for g in range(5):
            if s[b + L_LEAVES] >= price(s, p, q, g, RESOLVE_PURCHASE_DISCOUNT) and yields(s, p, q, g):
                n = _add(acts, n, A_BUY + g)
    elif ph == PH_AGAIN_SLEEP:
        n = _sleep_actions(s, p, q, acts, n)
        n = _add(acts, n, A_DECLINE)
    elif ph == PH_AGAIN_EXCHANGE:
        n = _exchange_actions(s, p, q, acts, n)
        n = _add(acts, n, A_DECLINE)
    elif ph == PH_FROM:
        g = s[PEND]
        top = _most(s, q, g)
        for o in range(s[NP]):
            if o != q and s[pl(o) + L_GIFTS + g] == top:
                n = _add(acts, n, A_FROM + o)
    elif ph == PH_END:
        n = _secret_actions(s, p, acts, n)
        n = _add(acts, n, A_END_TURN)
    return n


@njit(cache=True, _nrt=False)
def _sleep_actions(s, p, q, acts, n):
    pos = s[pl(q) + L_DREAM]
    for k in range(p[P_N_ARROWS]):
        if p[P_ARROWS + 3 * k] == pos:
            n = _add(acts, n, A_SLEEP + k)
    return n


@njit(cache=True, _nrt=False)
def _exchange_actions(s, p, q, acts, n):
    for g in range(4):
        if s[pl(q) + L_GIFTS + g] > 0 and yields(s, p, q, g + 1):
            n = _add(acts, n, A_EXCHANGE + g)
    return n


@njit(cache=True, _nrt=False)
def _secret_actions(s, p, acts, n):
    q = s[CUR]
    b = pl(q)
    for k in range(9):
        if s[b + L_SINGLE + k] != 1:
            continue
        ok = True
        if SU_EXCH1 <= k <= SU_EXCH3:
            ok = exchange_tile_payable(s, p, q, k) and yields(s, p, q, exchange_tile_gift(p, k))
        elif k == SU_CRYSTAL3:
            ok = s[b + L_LEAVES] >= crystal_price(s, q) and yields(s, p, q, 2)
        elif k == SU_SLEEP:
            ok = sleep_possible(s, p, q)
        elif k == SU_EXCHANGE:
            ok = exchange_possible(s, p, q)
        elif k == SU_PURCHASE:
            ok = False
            for g in range(5):
                if s[b + L_LEAVES] >= price(s, p, q, g, RESOLVE_PURCHASE_DISCOUNT) and yields(s, p, q, g):
                    ok = True
        elif k == SU_GAIN_FEATHER:
            ok = yields(s, p, q, 1)
        elif k == SU_GAIN_CLOVER:
            ok = s[SUPPLY] > 0 or yields(s, p, q, 0)   # its 2 leaves are a yield too
        if ok:
            n = _add(acts, n, A_SECRET + k)
    return n


@njit(cache=True, _nrt=False)
def _most(s, q, g):
    top = 0
    for o in range(s[NP]):
        if o != q and s[pl(o) + L_GIFTS + g] > top:
            top = s[pl(o) + L_GIFTS + g]
    return top


# ---- applying a decision -------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _take_leaves(s, q, n):
    """Player q takes up to n leaves from the supply."""
    t = n if s[SUPPLY] >= n else s[SUPPLY]
    s[SUPPLY] -= t
    s[pl(q) + L_LEAVES] += t


@njit(cache=True, _nrt=False)
def _pay_footsteps(s, q, h):
    b = pl(q)
    gray = gray_cost(s, q, h)
    s[b + L_LEAVES] -= gray
    s[SUPPLY] += gray
    to_supply = perm(s, q, PM_PAY_SUPPLY)
    for o in range(s[NP]):
        if o != q:
            k = own_on(s, o, h)
            s[b + L_LEAVES] -= k
            if to_supply:
                s[SUPPLY] += k
            else:
                s[pl(o) + L_LEAVES] += k


@njit(cache=True, _nrt=False)
def _receive(s, q, g, o):
    """q receives gift g: from the Dream board if o < 0, else from seat o."""
    if o < 0:
        s[POOL + g] -= 1
    else:
        s[pl(o) + L_GIFTS + g] -= 1
    s[pl(q) + L_GIFTS + g] += 1
    if has_all_gifts(s, q):
        s[OUTCOME] = OUT_WIN
        s[WINNER] = q
        s[PHASE] = PH_TERMINAL


@njit(cache=True, _nrt=False)
def _gain(s, p, q, g, nxt):
    """q gains gift g, then continues per nxt (N_*). The stack empty: from the opponent holding most
    (the player chooses among ties); nobody holding one: not received."""
    s[NEXT] = nxt
    if s[POOL + g] > 0:
        _receive(s, q, g, np.int64(-1))
    else:
        top = _most(s, q, g)
        if top > 0:
            ties = 0
            who = -1
            for o in range(s[NP]):
                if o != q and s[pl(o) + L_GIFTS + g] == top:
                    ties += 1
                    who = o
            if ties > 1:
                s[PEND] = g
                s[PHASE] = PH_FROM
                return
            _receive(s, q, g, who)
    _continue(s, p)


@njit(cache=True, _nrt=False)
def _continue(s, p):
    """After a gift (or none) was received: offer a repeat if the Secret allows it, else return."""
    if s[PHASE] == PH_TERMINAL:
        return
    q = s[CUR]
    b = pl(q)
    nxt = s[NEXT]
    s[NEXT] = N_RETURN
    s[PEND] = -1
    if nxt == N_AGAIN_SLEEP and perm(s, q, PM_AGAIN_SLEEP) and s[b + L_LEAVES] >= AGAIN_SLEEP_COST \
            and sleep_possible(s, p, q):
        s[PHASE] = PH_AGAIN_SLEEP
    elif nxt == N_AGAIN_EXCHANGE and perm(s, q, PM_AGAIN_EXCHANGE) and s[b + L_LEAVES] >= AGAIN_EXCHANGE_COST \
            and exchange_possible(s, p, q):
        s[PHASE] = PH_AGAIN_EXCHANGE
    else:
        s[PHASE] = s[RET]
        s[RET] = -1


@njit(cache=True, _nrt=False)
def _sleep(s, p, q, k, nxt):
    s[pl(q) + L_DREAM] = p[P_ARROWS + 3 * k + 1]
    g = p[P_ARROWS + 3 * k + 2]
    if g >= 0:
        _gain(s, p, q, np.int64(g), nxt)
    else:
        s[NEXT] = nxt
        _continue(s, p)


@njit(cache=True, _nrt=False)
def _exchange(s, p, q, g, nxt):
    s[pl(q) + L_GIFTS + g] -= 1
    s[POOL + g] += 1
    _gain(s, p, q, g + 1, nxt)


@njit(cache=True, _nrt=False)
def apply(s, p, a):
    q = s[CUR]
    b = pl(q)
    ph = s[PHASE]
    s[ST_DECISIONS] += 1
    if a < A_GATHER:  # movement
        if a < A_MOVE:
            h = a - A_PLACE
            for i in range(4):
                if s[b + L_FOOT + i] < 0:
                    s[b + L_FOOT + i] = h
                    break
        else:
            f = (a - A_MOVE) // 14
            h = (a - A_MOVE) % 14
            for i in range(4):
                if s[b + L_FOOT + i] == f:
                    s[b + L_FOOT + i] = h
                    break
        s[DEST] = h
        if perm(s, q, PM_LEAF_BONUS) and others_on(s, q, h) == 0:
            _take_leaves(s, q, 1)
        s[PHASE] = PH_ACTION
    elif a <= A_GATHER_TAKE:
        _take_leaves(s, q, 2)
        if a == A_GATHER_PUT:
            s[SUPPLY] -= 1
            s[b + L_TILE] += 1
        elif a == A_GATHER_TAKE:
            s[b + L_TILE] -= 1
            s[b + L_LEAVES] += 1
        s[PHASE] = PH_END
    elif a >= A_SECRET and a < A_DECLINE:
        k = a - A_SECRET
        s[b + L_SINGLE + k] = 0  # resolved: back to the box
        s[RET] = ph
        if k == SU_GAIN_FEATHER:
            _gain(s, p, q, np.int64(1), np.int64(N_RETURN))
        elif k == SU_GAIN_CLOVER:
            _take_leaves(s, q, 2)
            _gain(s, p, q, np.int64(0), np.int64(N_RETURN))
        elif k <= SU_EXCH3:
            e = P_EXCH + 3 * (k - SU_EXCH1)
            s[b + L_GIFTS + p[e]] -= 1
            s[POOL + p[e]] += 1
            s[b + L_GIFTS + p[e + 1]] -= 1
            s[POOL + p[e + 1]] += 1
            _gain(s, p, q, np.int64(p[e + 2]), np.int64(N_RETURN))
        elif k == SU_CRYSTAL3:
            c = crystal_price(s, q)
            s[b + L_LEAVES] -= c
            s[SUPPLY] += c
            _gain(s, p, q, np.int64(2), np.int64(N_RETURN))
        elif k == SU_SLEEP:
            s[PHASE] = PH_SLEEP
        elif k == SU_EXCHANGE:
            s[PHASE] = PH_EXCHANGE
        else:
            s[PHASE] = PH_BUY
    elif a == A_DECLINE:
        s[PHASE] = s[RET]
        s[RET] = -1
    elif a >= A_FROM and a < A_END_TURN:
        _receive(s, q, np.int64(s[PEND]), a - A_FROM)
        _continue(s, p)
    elif a == A_END_TURN:
        s[TURN] += 1
        if s[TURN] >= p[P_TIMEOUT] * s[NP]:
            s[OUTCOME] = OUT_TIMEOUT
            s[PHASE] = PH_TERMINAL
        else:
            s[CUR] = (q + 1) % s[NP]
            s[PHASE] = PH_MOVE
            s[DEST] = -1
    else:
        # a hex action (phase ACTION: pay for the Footsteps first) or its Secret/repeat form
        if ph == PH_ACTION:
            _pay_footsteps(s, q, s[DEST])
            s[RET] = PH_END
        if a < A_MEADOW:
            g = a - A_BUY
            c = price(s, p, q, g, RESOLVE_PURCHASE_DISCOUNT if ph == PH_BUY else 0)
            s[b + L_LEAVES] -= c
            s[SUPPLY] += c
            _gain(s, p, q, g, np.int64(N_RETURN))
        elif a == A_MEADOW:
            _gain(s, p, q, np.int64(0), np.int64(N_RETURN))
        elif a == A_NEST:
            _gain(s, p, q, np.int64(1), np.int64(N_RETURN))
        elif a < A_EXCHANGE:
            if ph == PH_AGAIN_SLEEP:
                s[b + L_LEAVES] -= AGAIN_SLEEP_COST
                s[SUPPLY] += AGAIN_SLEEP_COST
                _sleep(s, p, q, a - A_SLEEP, np.int64(N_RETURN))  # a repeat is not repeated
            else:
                _sleep(s, p, q, a - A_SLEEP, np.int64(N_AGAIN_SLEEP))
        elif a < A_TABLE:
            if ph == PH_AGAIN_EXCHANGE:
                s[b + L_LEAVES] -= AGAIN_EXCHANGE_COST
                s[SUPPLY] += AGAIN_EXCHANGE_COST
                _exchange(s, p, q, a - A_EXCHANGE, np.int64(N_RETURN))
            else:
                _exchange(s, p, q, a - A_EXCHANGE, np.int64(N_AGAIN_EXCHANGE))
        else:
            i = a - A_TABLE
            k = s[SLOT_TILE + i]
            s[SLOT_TILE + i] = -1
            if s[SLOT_SIDE + i] == 0:
                s[b + L_SINGLE + k] = 1
            else:
                s[b + L_PERM + k] = 1
            s[PHASE] = PH_END
            s[RET] = -1


@njit(cache=True, _nrt=False)
def is_terminal(s):
    return s[PHASE] == PH_TERMINAL


@njit(cache=True, _nrt=False)
def is_chance(s):
    return False


@njit(cache=True, _nrt=False)
def copy_position(dst, src):
    """dst[:S_SIZE] = src[:S_SIZE]: a position copied (into a position or a planner's row)."""
    for i in range(S_SIZE):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def current_player(s):
    """The seat to play, or PLAYER_TERMINAL."""
    if s[PHASE] == PH_TERMINAL:
        return PLAYER_TERMINAL
    return s[CUR]


@njit(cache=True, _nrt=False)
def chance_outcome(s, p, key):
    """No chance event is ever pending after setup: -1 (the API's shape, shared by every game)."""
    return -1


@njit(cache=True, _nrt=False)
def chance_probabilities(s, p, out):
    out[:] = 0.0


@njit(cache=True, _nrt=False)
def apply_chance(s, p, outcome):
    """Never called: Benevolent has no chance event after setup."""
    return


@njit(cache=True, _nrt=False)
def returns(s, out):
    """out[q] = 1.0 for the winner, 0.0 for everyone else (all 0.0 after a timeout)."""
    for q in range(s[NP]):
        out[q] = 1.0 if s[OUTCOME] == OUT_WIN and s[WINNER] == q else 0.0


# The play loop's own entry points: the same functions, inlined into the loop at numba's IR level
# (see the same lines in simcore/bethel_woods/engine.py: a numba call passes each array as its
# seven fields, which costs the play loop more than the work of a typical step).
legal_actions_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(legal_actions, 'py_func', legal_actions))
apply_inlined = njit(cache=True, _nrt=False, inline="always")(getattr(apply, 'py_func', apply))
