"""Bethel Woods rules data: the fixed facts of the game and every labelled assumption.

The rulebook's pictures are missing, so some component data is not known. Every such value is an
ASSUMPTION below, written up in docs/bethel_woods.md, and can be overridden by a user's TOML rules
file (see ``load_rules``). The compiled engine reads the rules as one small int32 array
(``Rules.params``), so an override needs no recompilation.

Indices used everywhere:
    types     0 Mechanical (Mechanic)   1 Structural (Engineer)
              2 Digital (Technician)    3 Electrical (Electrician)
    machines  0..5 are the printed Machines 1..6; index + 1 is the next machine clockwise
    kinds     a malfunction or knowledge token is a kind = printed machine * 4 + type (24 kinds)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..layout import Layout
from ..rulesfile import RulesError, is_whole, parse_switches, rules_from_file, spec_mapping, toml_repr

TYPES = ("Mechanical", "Structural", "Digital", "Electrical")
WORKERS = ("Mechanic", "Engineer", "Technician", "Electrician")
N_TYPES = 4
N_MACHINES = 6
N_KINDS = N_MACHINES * N_TYPES
N_SPIES = 6
N_SECTIONS = 6
# ASSUMPTION player count: the rulebook's text gives none; boardsim studies 2 to 4 players (its
# brief), and other counts are refused with a one-line error (docs/bethel_woods.md).
MAX_PLAYERS = 4
MIN_PLAYERS = 2
MAX_SPIES_AT_SETUP = 5

CHARACTERS = ("Nova", "Harris", "Junas", "Linny", "Violet", "Fenn", "Rone", "Fare")
N_CHARACTERS = 8
NOVA, HARRIS, JUNAS, LINNY, VIOLET, FENN, RONE, FARE = range(8)

# The six critical tiles, in the order the rulebook lists them.
CRITICAL_EFFECTS = (
    "knowledge_limit_6",   # players retain at most 6 knowledge; all discard down to 6 when revealed
    "redirect",            # further malfunctions for this machine go to the next non-critical one clockwise
    "construct_plus_1",    # constructing the Daydreamer needs 1 more knowledge of the worker's type
    "uncover_plus_1",      # uncovering a spy needs 1 more knowledge of any type
    "ability_tax",         # discard any 1 knowledge before using a character ability
    "extra_malfunction",   # place 1 more malfunction (not in the placement whose spy revealed it)
)
E_LIMIT6, E_REDIRECT, E_CONSTRUCT, E_UNCOVER, E_ABILITY, E_EXTRA = range(6)
N_EFFECTS = 6

LOSS_REASONS = ("bag_empty", "four_critical", "six_spies")

# ---- ASSUMPTIONS (override in a rules file) -------------------------------------------------
# ASSUMPTION machine_types: the two types shown beside each machine. They are the machine's two
# starting workers, its spy's cost and (by default) its Orphanage section's accepted types.
# M5 and M6 are stated in the rulebook (setup: M5 gets an Engineer and an Electrician; the M6 spy
# costs Mechanical + Digital). M1 is inferred, not stated: the Moving Workers example picks up
# a Technician and an Electrician from Machine 1, read as its two setup workers (the Orphanage
# example, an Electrician entering section 0 from Machine 1, agrees);
# M2, M3, M4 are assumed so that every worker type appears on exactly 3 machines.
DEFAULT_MACHINE_TYPES = (
    ("Digital", "Electrical"),      # Machine 1
    ("Mechanical", "Structural"),   # Machine 2 (assumed)
    ("Mechanical", "Electrical"),   # Machine 3 (assumed)
    ("Structural", "Digital"),      # Machine 4 (assumed)
    ("Structural", "Electrical"),   # Machine 5
    ("Mechanical", "Digital"),      # Machine 6
)
# ASSUMPTION malfunction_counts: for each machine, 4 of each of its two types and 3 of each other
# type: 14 per machine, 21 per type, 84 in all (the rulebook gives only the total).
# ASSUMPTION orphanage_types: section i is reached from machine i and accepts machine i's types.
# (malfunctions_per_turn is at least 3 so that Violet's "2 fewer" still draws one: every turn
# empties the bag by at least one malfunction, which bounds the length of a game.)
# ASSUMPTION (fixed, documented) spy i belongs to machine i and costs that machine's two types.
DEFAULT_KNOWLEDGE_LIMIT = 7          # rulebook: "a maximum of 7 Knowledge"
DEFAULT_CRITICAL_KNOWLEDGE_LIMIT = 6 # rulebook: the first critical tile
DEFAULT_MALFUNCTIONS_PER_TURN = 3    # rulebook: "3 Malfunctions are taken at random"
DEFAULT_CRITICAL_ABOVE = 3           # rulebook: critical with more than 3 malfunctions + spies
DEFAULT_OPENING_MALFUNCTIONS = 6     # rulebook setup step 7
VIOLET_REDUCTION = 2                 # rulebook: "place 2 fewer Malfunctions"

# ---- the params array read by the compiled engine --------------------------------------------
# One table, in array order (simcore/layout.py, as the engine's state): each field's offset is the
# sum of the sizes above it, computed at import and bound as a plain module int (P_LIMIT = 48, ...),
# which numba reads as a compile-time constant. tests/test_layout.py checks it has no overlap or gap.
PARAMS = Layout(
    ("P_MACHINE_TYPES", (N_MACHINES, 2), None, "machine m -> its two worker types at [2m], [2m+1]"),
    ("P_SECTION_TYPES", (N_MACHINES, 2), None, "Orphanage section i -> the two types it accepts"),
    ("P_MALF_COUNTS", (N_MACHINES, N_TYPES), None, "malfunctions of each kind (machine, type) in the game"),
    ("P_LIMIT", 1, None, "the knowledge limit"),
    ("P_CRIT_LIMIT", 1, None, "the limit while the knowledge_limit_6 effect is active"),
    ("P_PER_TURN", 1, None, "malfunctions drawn a placement"),
    ("P_CRIT_ABOVE", 1, None, "a machine is critical above this many malfunctions + spies"),
    ("P_OPENING", 1, None, "malfunctions placed at setup"),
    ("P_MALF_TOTAL", 1, None, "malfunctions in the game (the sum of P_MALF_COUNTS)"),
    ("P_SW_RONE", 1, None, "switch rone_redirect: 0 discard, 1 place"),
    ("P_SW_FOUR", 1, None, "switch four_critical: 0 end_of_turn, 1 immediate"),
    ("P_SW_WINDOW", 1, None, "switch ability_window: 0 any_time, 1 before_after"),
    ("P_SW_WRAP", 1, None, "switch long_group: 0 passes, 1 stops"),
    ("P_SW_RONE_COST", 1, None, "switch rone_cost: 0 different_types, 1 any_two"),
    ("P_SW_ABILITY", 1, None, "switch ability_off: 0 none, 1 + c character c's ability is off"),
)
globals().update(PARAMS.offsets)   # P_MACHINE_TYPES = 0, P_SECTION_TYPES = 12, ..., P_SW_ABILITY = 59
N_PARAMS = PARAMS.size             # 60

# ---- SWITCHES: readings of ambiguous rulebook sentences (docs/bethel_woods.md#switches) -------------
# name -> the allowed values, the default (the reading we think the designers meant) first. Each
# is one int in params (P_SW_*: the index of the value), read once where the rule applies.
SWITCHES = {
    # Rone "avoid[s] placing Malfunctions on a chosen Machine": a malfunction redirected (critical
    # tile `redirect`) onto the protected machine is discarded too; "place": only malfunctions
    # drawn for that machine's number are discarded, a redirected one is placed on it.
    "rone_redirect": ("discard", "place"),
    # "If at the end of any player's turn, there are 4 or more critical Machines": checked when
    # the player ends the turn, before placement; "immediate": lost the moment a 4th machine goes
    # critical (during placement, by a malfunction or a spy).
    "four_critical": ("end_of_turn", "immediate"),
    # "they may also use their unique Character Ability once each turn" (not on other players'
    # turns, not during placement): also between drops, while workers are in hand; "before_after":
    # only before the pick-up and after the last worker.
    "ability_window": ("any_time", "before_after"),
    # a group of more than 6 workers goes on round the ring past its own machine ("passes"); or
    # it stops where it started after 6 drops and the rest are dropped there ("stops").
    "long_group": ("passes", "stops"),
    # Rone "may discard any 2 different Knowledge": 2 tokens of two different types; or any 2
    # tokens ("any_two"; then every `Rone protect Machine m paying A+B` action pays any 2 tokens).
    "rone_cost": ("different_types", "any_two"),
    # not a reading but a design question: one character plays without its ability (the printed
    # game: "none"). The character is dealt and seated as usual; its ability's actions are never
    # legal (Nova's entry, Fenn's and Fare's uncovers, the active abilities of the others).
    "ability_off": ("none",) + CHARACTERS,
}
SWITCH_PARAMS = (P_SW_RONE, P_SW_FOUR, P_SW_WINDOW, P_SW_WRAP, P_SW_RONE_COST, P_SW_ABILITY)
# switches that ask a design question rather than read an ambiguous sentence: the sensitivity study
# (how much the readings move the answers) leaves them out; the target tuner searches them
DESIGN_SWITCHES = ("ability_off",)




def default_malfunction_counts(machine_types):
    counts = np.full((N_MACHINES, N_TYPES), 3, dtype=np.int64)
    for m, (a, b) in enumerate(machine_types):
        counts[m, a] = 4
        counts[m, b] = 4
    return counts


@dataclass(frozen=True)
class Rules:
    """Validated rules data. ``machine_types`` etc. hold type indices."""

    machine_types: tuple = field(default_factory=lambda: _types_to_idx(DEFAULT_MACHINE_TYPES, "machine_types"))
    section_types: tuple = None
    malfunction_counts: tuple = None   # 6 x 4, per printed machine and type
    knowledge_limit: int = DEFAULT_KNOWLEDGE_LIMIT
    critical_knowledge_limit: int = DEFAULT_CRITICAL_KNOWLEDGE_LIMIT
    malfunctions_per_turn: int = DEFAULT_MALFUNCTIONS_PER_TURN
    switches: tuple = (0,) * len(SWITCHES)   # value index of each switch, in SWITCHES order
    source: str = "defaults"

    def __post_init__(self):
        if self.section_types is None:
            object.__setattr__(self, "section_types", self.machine_types)
        if self.malfunction_counts is None:
            c = default_malfunction_counts(self.machine_types)
            object.__setattr__(self, "malfunction_counts", tuple(tuple(int(x) for x in r) for r in c))
        _validate(self)

    @property
    def params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, dtype=np.int32)
        for m in range(N_MACHINES):
            p[P_MACHINE_TYPES + 2 * m: P_MACHINE_TYPES + 2 * m + 2] = self.machine_types[m]
            p[P_SECTION_TYPES + 2 * m: P_SECTION_TYPES + 2 * m + 2] = self.section_types[m]
            for t in range(N_TYPES):
                p[P_MALF_COUNTS + m * N_TYPES + t] = self.malfunction_counts[m][t]
        p[P_LIMIT] = self.knowledge_limit
        p[P_CRIT_LIMIT] = self.critical_knowledge_limit
        p[P_PER_TURN] = self.malfunctions_per_turn
        p[P_CRIT_ABOVE] = DEFAULT_CRITICAL_ABOVE
        p[P_OPENING] = DEFAULT_OPENING_MALFUNCTIONS
        p[P_MALF_TOTAL] = sum(sum(row) for row in self.malfunction_counts)
        for i, v in zip(SWITCH_PARAMS, self.switches):
            p[i] = v
        return p

    def switch(self, name) -> str:
        """The value of a switch, e.g. ``rules.switch("four_critical") == "end_of_turn"``."""
        return SWITCHES[name][self.switches[list(SWITCHES).index(name)]]

    def to_dict(self) -> dict:
        return {
            "machine_types": [[TYPES[a], TYPES[b]] for a, b in self.machine_types],
            "orphanage_types": [[TYPES[a], TYPES[b]] for a, b in self.section_types],
            "malfunction_counts": [list(r) for r in self.malfunction_counts],
            "knowledge_limit": self.knowledge_limit,
            "critical_knowledge_limit": self.critical_knowledge_limit,
            "malfunctions_per_turn": self.malfunctions_per_turn,
            "switches": {name: vals[i] for (name, vals), i in zip(SWITCHES.items(), self.switches)},
        }


def _types_to_idx(pairs, key):
    if not isinstance(pairs, (list, tuple)) or len(pairs) != N_MACHINES:
        raise RulesError(f"{key}: expected a list of 6 pairs of types (one per machine 1-6), got {pairs!r}")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise RulesError(f"{key}[{i + 1}]: expected a pair of types, got {pair!r}")
        idx = []
        for name in pair:
            if name not in TYPES:
                raise RulesError(f"{key}[{i + 1}]: unknown type {name!r}; allowed: {', '.join(TYPES)}")
            idx.append(TYPES.index(name))
        if idx[0] == idx[1]:
            raise RulesError(f"{key}[{i + 1}]: the two types must differ, got {pair!r}")
        out.append(tuple(idx))
    return tuple(out)


def _validate(r: Rules):
    per_type = [0] * N_TYPES
    for a, b in r.machine_types:
        per_type[a] += 1
        per_type[b] += 1
    if per_type != [3, 3, 3, 3]:
        raise RulesError(
            "machine_types: each type must appear on exactly 3 machines (there are 3 workers of "
            f"each type, 2 per machine); got counts {dict(zip(TYPES, per_type))}")
    c = r.malfunction_counts
    if len(c) != N_MACHINES or any(len(row) != N_TYPES for row in c):
        raise RulesError("malfunction_counts: expected 6 rows (machines 1-6) of 4 counts "
                         "(Mechanical, Structural, Digital, Electrical)")
    for m, row in enumerate(c):
        for t, x in enumerate(row):
            if not is_whole(x) or not 0 <= x <= 40:
                raise RulesError(f"malfunction_counts[{m + 1}][{TYPES[t]}]: {toml_repr(x)} is not an integer from 0 to 40")
    # With 5 spies at setup five machines take at most 2 opening malfunctions: the redraw rule
    # must be able to place all 6, whatever machines the spies are on.
    room = sorted(min(sum(row), 3) for row in c)
    if sum(min(x, 2) for x in room[1:]) + room[0] < DEFAULT_OPENING_MALFUNCTIONS:
        raise RulesError("malfunction_counts: too few malfunctions spread over the machines to "
                         "place the 6 opening malfunctions (at most 2 on a machine with a spy)")
    for name, lo, hi in (("knowledge_limit", 1, 40), ("critical_knowledge_limit", 0, 40),
                         ("malfunctions_per_turn", 3, 10)):
        x = getattr(r, name)
        if not is_whole(x) or not lo <= x <= hi:
            raise RulesError(f"{name}: {toml_repr(x)} is not an integer from {lo} to {hi}")
    if r.critical_knowledge_limit > r.knowledge_limit:
        raise RulesError(f"critical_knowledge_limit: {r.critical_knowledge_limit} exceeds "
                         f"knowledge_limit {r.knowledge_limit}")


_KEYS = {"machine_types", "orphanage_types", "malfunction_counts", "knowledge_limit",
         "critical_knowledge_limit", "malfunctions_per_turn", "switches"}


def rules_from_mapping(d: dict, source: str = "mapping") -> Rules:
    """Rules from a mapping with the keys of the ``[bethel_woods]`` table of a rules file."""
    unknown = set(d) - _KEYS
    if unknown:
        raise RulesError(f"unknown key {sorted(unknown)[0]!r} in [bethel_woods]; allowed: {', '.join(sorted(_KEYS))}")
    kw = {"source": source}
    if "machine_types" in d:
        kw["machine_types"] = _types_to_idx(d["machine_types"], "machine_types")
    if "orphanage_types" in d:
        kw["section_types"] = _types_to_idx(d["orphanage_types"], "orphanage_types")
    if "malfunction_counts" in d:
        rows = d["malfunction_counts"]
        if not isinstance(rows, list):
            raise RulesError("malfunction_counts: expected 6 rows of 4 counts")
        kw["malfunction_counts"] = tuple(tuple(row) if isinstance(row, list) else (row,) for row in rows)
    for k in ("knowledge_limit", "critical_knowledge_limit", "malfunctions_per_turn"):
        if k in d:
            kw[k] = d[k]
    kw["switches"] = parse_switches(d.get("switches"), SWITCHES, "bethel_woods")
    return Rules(**kw)


def load_rules(path=None) -> Rules:
    """The default rules, or the defaults overridden by the [bethel_woods] table of a TOML file (RulesError
    with a one-line message for a missing, unreadable or invalid file)."""
    if path is None:
        return Rules()
    named = spec_mapping(path, "bethel_woods", ALTERNATIVES, SWITCHES)
    if named is not None:
        return rules_from_mapping(named, source=str(path))
    return rules_from_file(path, "bethel_woods", rules_from_mapping)


# ---- ALTERNATIVES: named, plausible alternatives to the assumed component data -----------------------
# `--rules NAME` (or NAME,NAME,switch=value,...) plays one; docs/bethel_woods.md#alternative-data
# says what differs and why it is plausible. Each is a mapping of [bethel_woods] keys.
def _own_other(own, other):
    """Malfunction counts with `own` of each of a machine's two types and `other` of the rest."""
    return [[own if t in pair else other for t in range(N_TYPES)]
            for pair in _types_to_idx(DEFAULT_MACHINE_TYPES, "machine_types")]


_M = DEFAULT_MACHINE_TYPES


def _sections(f):
    """Section i accepts the types of machine f(i)."""
    return [list(_M[f(i) % N_MACHINES]) for i in range(N_MACHINES)]


ALTERNATIVES = {
    # machine type pairs: M5 and M6 are stated in the rulebook, M1 inferred from its examples
    # (see machine_types above), so they stay; M2-M4 share
    # {Mechanical x2, Structural x2, Digital, Electrical}; every valid split but the default:
    "machines-b": {"machine_types": [list(_M[0]), ["Mechanical", "Structural"], ["Structural", "Digital"],
                                     ["Mechanical", "Electrical"], list(_M[4]), list(_M[5])]},
    "machines-c": {"machine_types": [list(_M[0]), ["Mechanical", "Digital"], ["Mechanical", "Structural"],
                                     ["Structural", "Electrical"], list(_M[4]), list(_M[5])]},
    "machines-d": {"machine_types": [list(_M[0]), ["Mechanical", "Structural"], ["Digital", "Electrical"],
                                     ["Mechanical", "Structural"], list(_M[4]), list(_M[5])]},
    # the malfunction split (84 in all)
    "malfunctions-own5": {"malfunction_counts": _own_other(5, 2)},
    "malfunctions-other4": {"malfunction_counts": _own_other(3, 4)},
    "malfunctions-uneven": {"malfunction_counts": [
        [5 if t in pair else 3 for t in range(N_TYPES)] if m % 2 == 0 else [3] * N_TYPES
        for m, pair in enumerate(_types_to_idx(DEFAULT_MACHINE_TYPES, "machine_types"))]},
    # the Orphanage sections' accepted types. The rulebook's Orphanage example (the last worker,
    # an Electrician, enters the top section from Machine 1) needs section 0 to take Electricians:
    # Electrical is on Machines 1, 3 and 5 (default types), so the sections may turn by 2 or 4
    # machines (not by 1, 3 or 5), or run round the other way from section 0. The tables are made
    # from the default machine types and stay as they are when combined with a machines-* table
    "orphanage-shift2": {"orphanage_types": _sections(lambda i: i + 2)},
    "orphanage-shift4": {"orphanage_types": _sections(lambda i: i + 4)},
    "orphanage-mirror": {"orphanage_types": _sections(lambda i: -i)},
}
