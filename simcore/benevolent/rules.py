"""Benevolent rules data: the fixed facts of the game and every labelled assumption.

The rulebook's pictures are missing, so the forest segments, their layouts, the Dream Path and the
Secret tiles are ASSUMPTIONS below, written up in docs/benevolent.md and overridable by the
``[benevolent]`` table of a TOML rules file. The compiled engine reads everything as one int32
array (``Rules.params``).

Indices:
    gifts  0 Clover  1 Feather  2 Crystal  3 Amber  4 Figurine   (in order of value)
    hexes  0 Stone Altar  1 Meadow  2 Nest  3 Pond  4 Ring of Stones  5 Wooden Table
    single-use Secrets (rulebook order)  0 gain Feather  1 gain Clover + 2 leaves
        2-4 the three exchange tiles  5 purchase Crystal for 3  6 resolve sleep  7 resolve exchange
        8 resolve purchase (3 less)
    permanent Secrets (rulebook order)  0 exchange again (2 leaves)  1 sleep again (3 leaves)
        2 gather tile  3 two Footsteps on a hex  4 leaf on a hex without opponents
        5 Footsteps need not connect  6 no pay for gray  7 pay opponents to the supply  8 purchase -2
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from ..layout import Layout
from ..rulesfile import RulesError, is_whole, parse_switches, rules_from_file, spec_mapping, toml_repr

GIFTS = ("Clover", "Feather", "Crystal", "Amber", "Figurine")
GIFT_VALUES = (2, 4, 7, 10, 12)                       # rulebook: the Dream board
HEX_TYPES = ("Stone Altar", "Meadow", "Nest", "Pond", "Ring of Stones", "Wooden Table")
ALTAR, MEADOW, NEST, POND, RING, TABLE = range(6)
SINGLE_USE = ("gain Feather", "gain Clover and 2 leaves", "exchange tile 1", "exchange tile 2",
              "exchange tile 3", "purchase Crystal for 3", "resolve sleep", "resolve exchange",
              "resolve purchase for 3 less")
PERMANENT = ("exchange again for 2", "sleep again for 3", "gather tile", "two Footsteps on a hex",
             "leaf on a hex without opponents", "Footsteps need not connect", "no pay for gray",
             "pay opponents to the supply", "purchase 2 less")
(SU_GAIN_FEATHER, SU_GAIN_CLOVER, SU_EXCH1, SU_EXCH2, SU_EXCH3, SU_CRYSTAL3, SU_SLEEP, SU_EXCHANGE,
 SU_PURCHASE) = range(9)
(PM_AGAIN_EXCHANGE, PM_AGAIN_SLEEP, PM_GATHER_TILE, PM_TWO_ON_HEX, PM_LEAF_BONUS, PM_UNCONNECTED, PM_NO_GRAY,
 PM_PAY_SUPPLY, PM_DISCOUNT) = range(9)

MIN_PLAYERS, MAX_PLAYERS = 2, 4    # rulebook: 2-4 players
TOTAL_LEAVES = 64                 # rulebook: components
FOOTSTEPS_ON_FOREST = 4           # 5 Footsteps, 1 on the Dream Path
POOL = {2: (4, 4, 3, 2, 2), 3: (5, 5, 4, 3, 3), 4: (6, 6, 5, 4, 4)}  # rulebook: setup
DEFAULT_LEAVES = (1, 3, 4, 5)      # rulebook: starting leaves by seat order
AGAIN_EXCHANGE_COST = 2
AGAIN_SLEEP_COST = 3
CRYSTAL_SECRET_PRICE = 3
RESOLVE_PURCHASE_DISCOUNT = 3
PERMANENT_DISCOUNT = 2
MAX_HEXES = 14
N_SLOTS = 9                        # the triangle of Secret tiles
# the triangle is a pyramid (ASSUMPTION): slots 0-3 the first row; slot 4 rests on 0 and 1,
# 5 on 1 and 2, 6 on 2 and 3, 7 on 4 and 5, 8 on 5 and 6
SLOT_SUPPORTS = ((-1, -1), (-1, -1), (-1, -1), (-1, -1), (0, 1), (1, 2), (2, 3), (4, 5), (5, 6))
# the triangle is filled by chance (ASSUMPTION: the rulebook does not say how): the 9 tiles
# shuffled into the 9 slots, each slot's side up an even chance (engine.CH_* draws)

# ---- ASSUMPTIONS ----------------------------------------------------------------------------------
# ASSUMPTION segment shape: every side of every segment covers the same 5 hexes, in axial
# coordinates (q, r) with neighbours (±1,0), (0,±1), (+1,-1), (-1,+1):
SEGMENT_SHAPE = ((0, 0), (1, 0), (2, 0), (0, 1), (1, 1))
# ASSUMPTION layouts: where the segments lie (axial offset of each segment placed, lower first;
# a later segment covers an earlier one where they overlap).
#   2 players: 2 segments, the second covering 2 hexes of the first (8 hexes)
#   3 players: 2 segments side by side (10 hexes)
#   4 players: 2 side by side plus a third covering one hex (14 hexes)
DEFAULT_LAYOUTS = {2: ((0, 0), (-1, 1)), 3: ((0, 0), (2, 1)), 4: ((0, 0), (2, 1), (4, 0))}
# ASSUMPTION sides: segment g has sides 2g and 2g+1; side j shows the 5 hex types other than type
# j (so each type appears 5 times in all), hex i of side j has type (j + 1 + i) % 6; hexes 1 and 3
# of every side carry one printed gray Footstep.
DEFAULT_SIDES = tuple(tuple(HEX_TYPES[(j + 1 + i) % 6] for i in range(5)) for j in range(6))
DEFAULT_GRAY = tuple((0, 1, 0, 1, 0) for _ in range(6))
# ASSUMPTION Dream Path: positions 0 (start) to 3 (last); arrows (from, to, gift or None).
DEFAULT_ARROWS = ((0, 1, "Clover"), (1, 2, None), (1, 0, "Feather"), (2, 1, "Feather"), (2, 0, "Crystal"),
                  (2, 3, None), (3, 2, "Amber"), (3, 0, "Figurine"))
# ASSUMPTION Secret tiles: tile k has single-use Secret k on one side, permanent Secret k on the
# other; the three exchange tiles return the first two gifts and take the third.
DEFAULT_EXCHANGE_TILES = (("Clover", "Clover", "Crystal"), ("Feather", "Feather", "Amber"),
                          ("Crystal", "Feather", "Figurine"))
# the permanent Secret on the back of tile k (whose front is single-use Secret k)
DEFAULT_SECRET_PAIRS = PERMANENT
DEFAULT_TIMEOUT_ROUNDS = 200       # ASSUMPTION: a game not won after 200 rounds is a timeout

# ---- the params array ------------------------------------------------------------------------------
# One table, in array order (simcore/layout.py, as the engine's state): offsets computed at import
# and bound as plain module ints (P_ARROWS = 60, ...), compile-time constants for numba;
# tests/test_layout.py checks it has no overlap or gap.
# P_LAYOUT holds 43 ints per player count (2, 3, 4): [0] n_hexes, [1 + h] source slot of hex h
# (which placed segment shows it), [15 + h] shape index, [29 + h] neighbour bitmask of hex h.
LAYOUT_STRIDE = 43
PARAMS = Layout(
    ("P_SIDE_TYPE", (6, 5), None, "side j, hex i -> type"),
    ("P_SIDE_GRAY", (6, 5), None, "side j, hex i -> gray Footsteps"),
    ("P_ARROWS", (8, 3), None, "arrow k: from, to, gift (-1 none)"),
    ("P_N_ARROWS", 1, None, "arrows in use"),
    ("P_EXCH", (3, 3), None, "exchange tile k: give a, give b, get"),
    ("P_POOL", (3, 5), None, "the gift pool for 2, 3, 4 players"),
    ("P_VALUES", 5, None, "the value of each gift"),
    ("P_TIMEOUT", 1, None, "rounds before a timeout"),
    ("P_LAYOUT", (3, LAYOUT_STRIDE), None, "the forest layout for 2, 3, 4 players (above)"),
    ("P_N_SEGS", 3, None, "segments placed for 2, 3, 4 players"),
    ("P_SW_GATHER", 1, None, "switch gather_tile: 0 compulsory, 1 optional"),
    ("P_SW_EMPTY", 1, None, "switch empty_gift: 0 not_offered, 1 offered"),
    ("P_PAIRS", 9, None, "the permanent Secret on the back of tile k"),
)
globals().update(PARAMS.offsets)   # P_SIDE_TYPE = 0, P_SIDE_GRAY = 30, ..., P_PAIRS = 247
N_PARAMS = PARAMS.size             # 256

# ---- SWITCHES: readings of ambiguous rulebook sentences (docs/benevolent.md#switches) ---------------
# name -> the allowed values, the default (the reading we think the designers meant) first.
SWITCHES = {
    # "When you gather Leaves, either place here 1 Leaf from the supply, or take 1 Leaf from here":
    # no "may", so putting or taking is part of every gather ("compulsory"); or the player may also
    # gather plainly ("optional").
    "gather_tile": ("compulsory", "optional"),
    # an action or Secret whose only yield would be a gift nobody can give (its stack empty, no
    # opponent holding one) is not offered ("If you can't ... perform a hex's action, take 2
    # Leaves"); or every such action is offered and yields nothing ("offered").
    "empty_gift": ("not_offered", "offered"),
}
SWITCH_PARAMS = (P_SW_GATHER, P_SW_EMPTY)
MAX_ARROWS = 8




def _neighbours(a, b):
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (dq, dr) in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def assemble(offsets):
    """The hexes of a layout: a list of (q, r, slot, shape index) for the hex shown on top, sorted by
    (r, q), and the neighbour lists."""
    top = {}
    for slot, (oq, orr) in enumerate(offsets):
        for i, (q, r) in enumerate(SEGMENT_SHAPE):
            top[(q + oq, r + orr)] = (slot, i)   # a later segment covers an earlier one
    cells = sorted(top, key=lambda c: (c[1], c[0]))
    hexes = [(q, r, top[(q, r)][0], top[(q, r)][1]) for q, r in cells]
    nbrs = [[j for j, d in enumerate(cells) if _neighbours(c, d)] for c in cells]
    return hexes, nbrs


def _connected(nbrs):
    seen, todo = {0}, [0]
    while todo:
        for j in nbrs[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == len(nbrs)


@dataclass(frozen=True)
class Rules:
    sides: tuple = DEFAULT_SIDES
    gray: tuple = DEFAULT_GRAY
    layouts: tuple = tuple(sorted(DEFAULT_LAYOUTS.items()))
    arrows: tuple = DEFAULT_ARROWS
    exchange_tiles: tuple = DEFAULT_EXCHANGE_TILES
    timeout_rounds: int = DEFAULT_TIMEOUT_ROUNDS
    secret_pairs: tuple = DEFAULT_SECRET_PAIRS
    switches: tuple = (0,) * len(SWITCHES)   # value index of each switch, in SWITCHES order
    source: str = "defaults"

    def __post_init__(self):
        _validate(self)

    def layout(self, n_players):
        return dict(self.layouts)[n_players]

    @property
    def params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, dtype=np.int32)
        for j in range(6):
            for i in range(5):
                p[P_SIDE_TYPE + 5 * j + i] = HEX_TYPES.index(self.sides[j][i])
                p[P_SIDE_GRAY + 5 * j + i] = self.gray[j][i]
        p[P_ARROWS:P_ARROWS + 3 * MAX_ARROWS] = -1
        for k, (a, b, g) in enumerate(self.arrows):
            p[P_ARROWS + 3 * k: P_ARROWS + 3 * k + 3] = (a, b, -1 if g is None else GIFTS.index(g))
        p[P_N_ARROWS] = len(self.arrows)
        for k, (a, b, c) in enumerate(self.exchange_tiles):
            p[P_EXCH + 3 * k: P_EXCH + 3 * k + 3] = (GIFTS.index(a), GIFTS.index(b), GIFTS.index(c))
        for n in (2, 3, 4):
            p[P_POOL + 5 * (n - 2): P_POOL + 5 * (n - 1)] = POOL[n]
            base = P_LAYOUT + LAYOUT_STRIDE * (n - 2)
            hexes, nbrs = assemble(self.layout(n))
            p[base] = len(hexes)
            for h, (_, _, slot, idx) in enumerate(hexes):
                p[base + 1 + h] = slot
                p[base + 15 + h] = idx
                p[base + 29 + h] = sum(1 << j for j in nbrs[h])
            p[P_N_SEGS + n - 2] = len(self.layout(n))
        p[P_VALUES:P_VALUES + 5] = GIFT_VALUES
        p[P_TIMEOUT] = self.timeout_rounds
        for i, v in zip(SWITCH_PARAMS, self.switches):
            p[i] = v
        for k, name in enumerate(self.secret_pairs):
            p[P_PAIRS + k] = PERMANENT.index(name)
        return p

    def switch(self, name) -> str:
        """The value of a switch, e.g. ``rules.switch("gather_tile") == "compulsory"``."""
        return SWITCHES[name][self.switches[list(SWITCHES).index(name)]]

    def to_dict(self):
        return {"sides": [list(s) for s in self.sides], "gray": [list(g) for g in self.gray],
                "layouts": {str(n): [list(o) for o in offs] for n, offs in self.layouts},
                "dream_path": [[a, b, g or ""] for a, b, g in self.arrows],
                "exchange_tiles": [list(t) for t in self.exchange_tiles], "timeout_rounds": self.timeout_rounds,
                "secret_pairs": list(self.secret_pairs),
                "switches": {name: vals[i] for (name, vals), i in zip(SWITCHES.items(), self.switches)}}


def _validate(r: Rules):
    if len(r.sides) != 6 or any(len(s) != 5 for s in r.sides):
        raise RulesError("sides: expected 6 sides (2 per segment) of 5 hex types each")
    for j, side in enumerate(r.sides):
        for t in side:
            if t not in HEX_TYPES:
                raise RulesError(f"sides[{j}]: unknown hex type {t!r}; allowed: {', '.join(HEX_TYPES)}")
    if len(r.gray) != 6 or any(len(g) != 5 or any(x not in (0, 1) for x in g) for g in r.gray):
        raise RulesError("gray: expected 6 sides of 5 entries, each 0 or 1 (a printed gray Footstep)")
    lay = dict(r.layouts)
    if sorted(lay) != [2, 3, 4]:
        raise RulesError("layouts: expected a layout for 2, 3 and 4 players")
    for n, offs in lay.items():
        if not 1 <= len(offs) <= 3:
            raise RulesError(f"layouts.{n}: 1 to 3 segments (there are 3), got {len(offs)}")
        hexes, nbrs = assemble(offs)
        if len(hexes) > MAX_HEXES:
            raise RulesError(f"layouts.{n}: {len(hexes)} hexes; at most {MAX_HEXES}")
        if not _connected(nbrs):
            raise RulesError(f"layouts.{n}: the segments do not form one connected forest")
    if not 1 <= len(r.arrows) <= MAX_ARROWS:
        raise RulesError(f"dream_path: 1 to {MAX_ARROWS} arrows, got {len(r.arrows)}")
    starts = set()
    for a, b, g in r.arrows:
        if not (0 <= a <= 3 and 0 <= b <= 3 and a != b) or (g is not None and g not in GIFTS):
            raise RulesError(f"dream_path: bad arrow {[a, b, g]!r}; positions 0-3, a gift of {', '.join(GIFTS)} or \"\"")
        starts.add(a)
    if 0 not in starts:
        raise RulesError("dream_path: no arrow leaves the start position 0")
    if len(r.exchange_tiles) != 3 or any(len(t) != 3 or any(x not in GIFTS for x in t) for t in r.exchange_tiles):
        raise RulesError(f"exchange_tiles: expected 3 tiles of [gift, gift, gift]; gifts: {', '.join(GIFTS)}")
    if sorted(r.secret_pairs) != sorted(PERMANENT) or len(r.secret_pairs) != 9:
        raise RulesError(f"secret_pairs: expected the 9 permanent Secrets, each once, in tile order; "
                         f"allowed: {', '.join(PERMANENT)}")
    if not is_whole(r.timeout_rounds) or not 1 <= r.timeout_rounds <= 10000:
        raise RulesError(f"timeout_rounds: {toml_repr(r.timeout_rounds)} is not an integer from 1 to 10000")


_KEYS = {"sides", "gray", "layouts", "dream_path", "exchange_tiles", "timeout_rounds", "secret_pairs", "switches"}


_SHAPES = {  # what each key holds, for the error on a malformed value
    "sides": "6 tiles, each a list of 5 hex types",
    "gray": "6 tiles, each a list of 5 flags (0 or 1)",
    "layouts": "a table of player count (\"2\", \"3\", \"4\") to a list of [column, row] offsets",
    "dream_path": "a list of arrows [from, to, gift or \"\"]",
    "exchange_tiles": "3 tiles of [gift, gift, gift]",
    "timeout_rounds": "an integer from 1 to 10000",
    "secret_pairs": "the 9 permanent Secrets, each once, in tile order",
    "switches": "a table of switch = \"value\"",
}


def _whole(x, where):
    """x if it is a whole number (a TOML integer), else RulesError naming it: int() would read 1.7
    as 1 and "1" as 1, quietly."""
    if not is_whole(x):
        raise RulesError(f"[benevolent] {where}: {toml_repr(x)} is not a whole number")
    return x


def _gift(g):
    """An arrow's gift: a name, or "" for none (0 or false would otherwise read as no gift)."""
    if not isinstance(g, str):
        raise RulesError(f"[benevolent] dream_path: gift {toml_repr(g)}; allowed: {', '.join(GIFTS)} or \"\"")
    return g or None


def rules_from_mapping(d, source="mapping"):
    unknown = set(d) - _KEYS
    if unknown:
        raise RulesError(f"unknown key {sorted(unknown)[0]!r} in [benevolent]; allowed: {', '.join(sorted(_KEYS))}")
    kw = {"source": source}
    key = None
    try:
        key = "sides"
        if "sides" in d:
            kw["sides"] = tuple(tuple(s) for s in d["sides"])
        key = "gray"
        if "gray" in d:
            kw["gray"] = tuple(tuple(_whole(x, f"gray[{j}]") for x in g) for j, g in enumerate(d["gray"]))
        key = "layouts"
        if "layouts" in d:
            lay = dict(DEFAULT_LAYOUTS)
            for n, offs in d["layouts"].items():
                if str(n) not in ("2", "3", "4"):
                    raise RulesError(f"layouts: player count {n!r}; allowed: 2, 3, 4")
                lay[int(n)] = tuple(tuple(_whole(x, f"layouts.{n}") for x in o) for o in offs)
            kw["layouts"] = tuple(sorted(lay.items()))
        key = "dream_path"
        if "dream_path" in d:
            kw["arrows"] = tuple((_whole(a, "dream_path"), _whole(b, "dream_path"), _gift(g))
                                 for a, b, g in d["dream_path"])
        key = "exchange_tiles"
        if "exchange_tiles" in d:
            kw["exchange_tiles"] = tuple(tuple(t) for t in d["exchange_tiles"])
        key = "timeout_rounds"
        if "timeout_rounds" in d:
            kw["timeout_rounds"] = d["timeout_rounds"]
        key = "secret_pairs"
        if "secret_pairs" in d:
            kw["secret_pairs"] = tuple(d["secret_pairs"])
        key = "switches"
        kw["switches"] = parse_switches(d.get("switches"), SWITCHES, "benevolent")
    except (TypeError, ValueError, AttributeError) as e:
        if isinstance(e, RulesError):
            raise
        shown = repr(d.get(key))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise RulesError(f"[benevolent] {key} = {shown}: malformed; expected {_SHAPES[key]}") from None
    return Rules(**kw)


def load_rules(path=None) -> Rules:
    """The default rules, or the defaults overridden by the [benevolent] table of a TOML file (RulesError
    with a one-line message for a missing, unreadable or invalid file)."""
    if path is None:
        return Rules()
    named = spec_mapping(path, "benevolent", ALTERNATIVES, SWITCHES)
    if named is not None:
        return rules_from_mapping(named, source=str(path))
    return rules_from_file(path, "benevolent", rules_from_mapping)


def parse_leaves(spec, n_players):
    """'1,3,4,5' -> a tuple of starting leaves for the seats (default: the rulebook's 1, 3, 4, 5)."""
    if spec is None:
        return DEFAULT_LEAVES[:n_players]
    try:
        vals = tuple(int(x) for x in (spec.split(",") if isinstance(spec, str) else spec))
    except (ValueError, TypeError):
        raise UserError(f"--leaves {spec!r}: expected comma-separated whole numbers, one per seat") from None
    if len(vals) != n_players:
        raise UserError(f"--leaves {','.join(map(str, vals))} gives {len(vals)} seats for {n_players} players; "
                         f"give exactly {n_players}")
    if any(v < 0 for v in vals):
        raise UserError(f"--leaves {','.join(map(str, vals))}: a negative leaf count is not allowed")
    if sum(vals) > TOTAL_LEAVES:
        raise UserError(f"--leaves {','.join(map(str, vals))}: {sum(vals)} leaves; there are only {TOTAL_LEAVES}")
    return vals


# ---- ALTERNATIVES: named, plausible alternatives to the assumed component data -----------------------
# `--rules NAME` (or NAME,NAME,switch=value,...) plays one; docs/benevolent.md#alternative-data says
# what differs and why it is plausible. Each is a mapping of [benevolent] keys.
_PERM = list(PERMANENT)
ALTERNATIVES = {
    # forest layouts (where the segments lie). Each keeps the rulebook's overlaps, which are in its
    # text: 2 players, the upper segment covers 2 hexes of the lower; 3, side by side (none
    # covered); 4, one hex of the upper segment covers one hex of a lower one (14 hexes)
    # (tests/test_bv_switches.py::test_layouts_keep_the_rulebooks_overlaps).
    "layout-tight": {"layouts": {"2": [[0, 0], [0, -1]], "3": [[0, 0], [1, -2]], "4": [[0, 0], [0, 2], [2, 0]]}},
    "layout-stacked": {"layouts": {"2": [[0, 0], [0, 1]], "3": [[0, 0], [0, 2]], "4": [[0, 0], [0, 2], [-2, 3]]}},
    "layout-row": {"layouts": {"2": [[0, 0], [1, -1]], "3": [[0, 0], [3, 0]], "4": [[0, 0], [3, 0], [5, 0]]}},
    # hex types on the segment sides (and the printed gray Footsteps)
    "sides-shuffled": {"sides": [[HEX_TYPES[(j + 1 + i) % 6] for i in (2, 0, 3, 1, 4)] for j in range(6)]},
    "sides-common": {"sides": [[HEX_TYPES[t] for t in range(6) if t != miss]
                               for miss in (ALTAR, ALTAR, POND, POND, TABLE, TABLE)]},
    "sides-gray3": {"gray": [[1, 0, 1, 0, 1] for _ in range(6)]},
    # the Dream Path (position 2's three arrows are the rulebook's example and stay)
    "dream-b": {"dream_path": [[0, 1, "Clover"], [1, 2, ""], [1, 0, "Clover"], [2, 1, "Feather"], [2, 0, "Crystal"],
                               [2, 3, ""], [3, 2, "Amber"], [3, 0, "Figurine"]]},
    "dream-c": {"dream_path": [[0, 1, "Clover"], [1, 2, ""], [1, 0, "Feather"], [2, 1, "Feather"], [2, 0, "Crystal"],
                               [2, 3, ""], [3, 2, "Figurine"], [3, 0, "Amber"]]},
    "dream-d": {"dream_path": [[0, 1, ""], [1, 2, ""], [1, 0, "Clover"], [2, 1, "Feather"], [2, 0, "Crystal"],
                               [2, 3, ""], [3, 1, "Amber"], [3, 0, "Figurine"]]},
    # which permanent Secret is on the back of which single-use Secret
    "secrets-reversed": {"secret_pairs": _PERM[::-1]},
    "secrets-shift": {"secret_pairs": _PERM[3:] + _PERM[:3]},
    "secrets-themed": {"secret_pairs": [_PERM[i] for i in (4, 2, 3, 5, 6, 7, 1, 0, 8)]},
    # the three exchange tiles ("Three tiles showing gifts above and below an arrow: Return the gifts
    # shown above the arrow ... take the gift shown under the arrow"): the pictures are missing, so
    # which gifts is not in the text. Gifts in order of value (the Ring of Stones' "next in value"):
    # Clover 2, Feather 4, Crystal 7, Amber 10, Figurine 12. The default gives 4, 8, 11 of value for
    # 7, 10, 12. Each alternative keeps two gifts above the arrow and one below, dearer than either.
    # one value step less taken: the gift next in value above the dearer one given, the Ring of
    # Stones' own step, for two gifts (4, 8, 11 for 4, 7, 10): a Secret that turns spare gifts
    # into a new kind (the game is won on 5 different gifts), not into more value
    "exchange-lean": {"exchange_tiles": [["Clover", "Clover", "Feather"], ["Feather", "Feather", "Crystal"],
                                         ["Crystal", "Feather", "Amber"]]},
    # one value step more taken (nothing is above the Figurine, so the third tile asks a Clover for
    # the Feather instead): 4, 8, 9 for 10, 12, 12. A tile is won by a Wooden Table action and
    # returns two gifts where the Ring of Stones returns one, so it may skip two gifts in value where
    # the default's first tile skips one (Clover past Feather to Crystal)
    "exchange-rich": {"exchange_tiles": [["Clover", "Clover", "Amber"], ["Feather", "Feather", "Figurine"],
                                         ["Clover", "Crystal", "Figurine"]]},
    # a pair of one gift on every tile, a series one step apart: 2 Clovers -> Crystal, 2 Feathers ->
    # Amber, 2 Crystals -> Figurine (the default's first two tiles; the third asks 14 for 12): the
    # plainest picture, two like tokens above the arrow, and the third tile follows the first two
    "exchange-pairs": {"exchange_tiles": [["Clover", "Clover", "Crystal"], ["Feather", "Feather", "Amber"],
                                          ["Crystal", "Crystal", "Figurine"]]},
}
