"""Bethel Woods: the plain-Python reference engine.

Written from the rulebook for readability, not translated from engine.py: objects, Counters and
lists, one method per rule, and payments checked by searching every way to complete them. It
shares only the interface with the compiled engine (the action numbering and phases of
actions.py, the position format of face.to_dict, which sub-stream and number each setup draw
uses) so that the two can be compared step by step (tests/test_bw_differential.py). It is slow on
purpose; never use it for volume.

Like the compiled engine it holds only what the players know: a critical tile is None until its
machine first goes critical (then a chance step, ``chance_tile``, reveals it), and the spy stack
is a number of unseen spies above a known list of uncovered ones. ``hidden="setup"`` plays the
older model instead, where the tiles and the stack order are shuffled at setup and merely turned
over later; the tests use it to show that the two models give the same games in distribution.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field

import random as _random

import numpy as np

from ..rng import below, substream
from .actions import (
    A_DROP, A_END_TURN, A_ENTER, A_ENTER_NOVA, A_FIX, A_HARRIS, A_JUNAS, A_LINNY, A_PAY, A_PICK, A_RONE,
    A_SELECT, A_STOP_FIXING, A_UNCOVER, A_UNCOVER_FARE_CCW, A_UNCOVER_FARE_CW, A_UNCOVER_FENN, A_VIOLET,
    TYPE_PAIRS, kind_name,
)
from .rules import (
    CHARACTERS, CRITICAL_EFFECTS, DEFAULT_CRITICAL_ABOVE, DEFAULT_OPENING_MALFUNCTIONS, TYPES,
    VIOLET_REDUCTION, WORKERS, Rules,
)

CLOCKWISE, ANTICLOCKWISE = 1, -1


def machine_of(kind):
    return kind // 4


def type_of(kind):
    return kind % 4


@dataclass
class Payment:
    """Knowledge someone must hand over: `need` tokens of given types, `any_n` of any type; with
    `substitute`, one required token may be of another type (Nova, Fenn)."""
    payer: int
    need: list
    any_n: int = 0
    substitute: bool = False
    to: int | None = None          # None: the discard pile; else the receiving seat (Junas)
    then: str = "return"
    args: list = field(default_factory=lambda: [-1, -1])
    paid: list = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def size(self):
        return sum(self.need) + self.any_n

    def satisfied_by(self, types_count):
        """Does a complete hand-over of these token counts by type meet the requirement?"""
        if sum(types_count) != self.size:
            return False
        missing = sum(max(0, self.need[t] - types_count[t]) for t in range(4))
        # with a substitution (Nova, Fenn) exactly one required token is of another type: a
        # hand-over that needs no substitution is not a use of the ability
        return missing == (1 if self.substitute else 0)

    def completable(self, have):
        """Is there some choice of further tokens from `have` (counts by type) that completes it?"""
        slots = self.size - sum(self.paid)
        if slots < 0:
            return False
        ranges = [range(min(have[t], slots) + 1) for t in range(4)]
        for extra in itertools.product(*ranges):
            if sum(extra) == slots and self.satisfied_by([self.paid[t] + extra[t] for t in range(4)]):
                return True
        return False


class ReferenceGame:
    """One game of Bethel Woods, set up from the chance stream `key` in the documented order."""

    def __init__(self, rules: Rules, players: int, spies: int, characters, key, hidden="reveal"):
        self.rules = rules
        self.n = players
        self.key = key
        self.hidden = hidden
        self.machine_types = [tuple(x) for x in rules.machine_types]
        self.section_types = [tuple(x) for x in rules.section_types]
        self.malfunctions = [Counter() for _ in range(6)]  # at each machine, by printed kind
        self.workers = [Counter() for _ in range(6)]       # at each machine, by type
        self.spy_on = [False] * 6
        self.orphanage = [None] * 6                          # worker type in each section
        self.knowledge = [Counter() for _ in range(players)]
        self.discard = Counter()
        self.turn = 0
        self.outcome = "ongoing"
        self.stats = Counter()
        # 2. critical tiles face down beside the machines: nobody knows them yet
        self.tiles = [None] * 6
        self.reveal = None                                   # (machine, then) while a tile is being revealed
        # 4. two workers on each machine, of the machine's two types
        for m, (a, b) in enumerate(self.machine_types):
            self.workers[m][a] += 1
            self.workers[m][b] += 1
        # 5. the spy stack: six unseen spies; uncovered spies will go under them in a known order
        self.returned = []
        self.spies_revealed = 0
        # 5b. difficulty: reveal spies from the top (uniform over the unseen ones) onto their machines
        for i in range(spies):
            unseen = self.unseen_spies()
            self.spy_on[unseen[self._rand("setup_spies", i, len(unseen))]] = True
        # 6. the bag
        self.bag = Counter()
        for m in range(6):
            for t in range(4):
                if rules.malfunction_counts[m][t]:
                    self.bag[4 * m + t] = rules.malfunction_counts[m][t]
        # 7. six opening malfunctions; one that would make 4 (or 3 beside a spy) goes back
        placed = 0
        draws = 0
        while placed < DEFAULT_OPENING_MALFUNCTIONS:
            tokens = sorted(self.bag.elements())
            kind = tokens[self._rand("opening", draws, len(tokens))]
            draws += 1
            m = machine_of(kind)
            limit = DEFAULT_CRITICAL_ABOVE - (1 if self.spy_on[m] else 0)
            if sum(self.malfunctions[m].values()) + 1 <= limit:
                self.bag[kind] -= 1
                self.malfunctions[m][kind] += 1
                placed += 1
        # 8. characters: seat q gets the r-th character not dealt yet
        if characters is None:
            self.characters = []
            for q in range(players):
                left = [c for c in range(8) if c not in self.characters]
                self.characters.append(left[self._rand("characters", q, 8 - q)])
        else:
            self.characters = list(characters)
        # 9. a random first player
        self.first = self._rand("first", 0, players)
        self.current = self.first
        self._new_turn_state()
        if hidden == "setup":  # the older model: everything hidden is fixed now (from another stream)
            rng = _random.Random(int(key))
            self.setup_tiles = list(range(6))
            rng.shuffle(self.setup_tiles)
            self.setup_stack = self.unseen_spies()
            rng.shuffle(self.setup_stack)

    @classmethod
    def from_dict(cls, d, rules: Rules, key=0):
        """A game at the position `d` (the format of face.to_dict)."""
        g = cls.__new__(cls)
        g.rules, g.key, g.hidden = rules, key, "reveal"
        g.n = d["players"]
        g.machine_types = [tuple(x) for x in rules.machine_types]
        g.section_types = [tuple(x) for x in rules.section_types]
        kinds = {kind_name(k): k for k in range(24)}

        def counter_of(named):
            return Counter({kinds[name]: c for name, c in named.items()})

        g.malfunctions = [counter_of(md["malfunctions"]) for md in d["machines"]]
        g.workers = [Counter({WORKERS.index(w): c for w, c in md["workers"].items() if c}) for md in d["machines"]]
        g.spy_on = [md["spy"] for md in d["machines"]]
        g.tiles = [None if md["critical_tile"] is None else CRITICAL_EFFECTS.index(md["critical_tile"])
                   for md in d["machines"]]
        g.orphanage = [None if w is None else WORKERS.index(w) for w in d["orphanage"]]
        g.knowledge = [counter_of(k) for k in d["knowledge"]]
        g.discard = counter_of(d["discard"])
        g.bag = counter_of(d["bag"])
        g.returned = [m - 1 for m in d["spy_stack"]["returned"]]
        g.spies_revealed = d["spy_stack"]["revealed_after_setup"]
        g.characters = [CHARACTERS.index(c) for c in d["characters"]]
        g.first, g.current, g.turn = d["first_player"], d["current_player"], d["turn"]
        g.phase, g.outcome = d["phase"], d["outcome"]
        g.stats = Counter(d["stats"])
        ts = d["turn_state"]
        g.hand = Counter({WORKERS.index(w): c for w, c in ts["hand"].items() if c})
        g.position = None if ts["position"] is None else ts["position"] - 1
        g.direction = {"clockwise": CLOCKWISE, "anticlockwise": ANTICLOCKWISE, None: None}[ts["direction"]]
        g.last_type = None if ts["last_type"] is None else TYPES.index(ts["last_type"])
        g.fixes_left = ts["fixes_left"]
        g.last_machine = None if ts["last_machine"] is None else ts["last_machine"] - 1
        g.spy_uncovered, g.ability_used = ts["spy_uncovered"], ts["ability_used"]
        g.violet_reduction = ts["violet_reduction"]
        g.rone_protects = None if ts["rone_protects"] is None else ts["rone_protects"] - 1
        g.window = ts["window"]
        g.drops = ts.get("drops", 0)
        g.ability_args = list(d["ability_args"])
        pay = d["payment"]
        g.payment = None if pay is None else Payment(
            pay["payer"], [pay["need"][t] for t in TYPES], pay["any"], pay["substitute"], pay["to"], pay["then"],
            list(d["ability_args"]), [pay["paid"][t] for t in TYPES])
        g.discard_round = None if d["discard_round"] is None else dict(d["discard_round"])
        g.placement = dict(d["placement"])
        rv = g.placement.pop("tile_reveal")
        g.reveal = None if rv is None else (rv["machine"] - 1, rv["then"])
        return g

    # ---- randomness: the sub-streams of the compiled engine (engine.CH_*) ------------------------
    SUBSTREAMS = {"setup_spies": 0, "opening": 1, "characters": 2, "first": 3, "malfunction": 4, "tile": 5,
                  "spy": 6}

    def _rand(self, kind, n, bound):
        """Number n of the chance sub-stream of this kind of event, uniform in [0, bound)."""
        return int(below(np.uint64(substream(np.uint64(self.key), self.SUBSTREAMS[kind])), n, bound))

    def unseen_spies(self):
        """The spies nobody has seen: neither on the board nor among the uncovered ones."""
        return [m for m in range(6) if not self.spy_on[m] and m not in self.returned]

    def sample_chance(self):
        """The outcome of the pending chance event drawn from the game's key, as the compiled engine
        draws it (used by the benchmarks to play the same games on both engines)."""
        if self.phase == "chance_malfunction":
            drawn = max(0, sum(sum(r) for r in self.rules.malfunction_counts) - DEFAULT_OPENING_MALFUNCTIONS
                        - sum(self.bag.values()))
            tokens = sorted(self.bag.elements())
            return tokens[self._rand("malfunction", drawn, len(tokens))]
        if self.phase == "chance_tile":
            unseen = [e for e in range(6) if e not in self.tiles]
            return unseen[self._rand("tile", 6 - len(unseen), len(unseen))]
        unseen = self.unseen_spies()
        if unseen:
            return unseen[self._rand("spy", self.spies_revealed, len(unseen))]
        return self.returned[0]

    # ---- facts about the board ------------------------------------------------------------------
    def count_at(self, m):
        return sum(self.malfunctions[m].values())

    def critical(self, m):
        return self.count_at(m) + (1 if self.spy_on[m] else 0) > DEFAULT_CRITICAL_ABOVE

    def effect_on(self, effect_name):
        """Is the critical tile with this effect face up? (A tile nobody has seen lies beside a
        machine that was never critical.)"""
        e = CRITICAL_EFFECTS.index(effect_name)
        return e in self.tiles and self.critical(self.tiles.index(e))

    def limit(self):
        if self.effect_on("knowledge_limit_6"):
            return self.rules.critical_knowledge_limit
        return self.rules.knowledge_limit

    def have(self, q):
        h = [0, 0, 0, 0]
        for kind, c in self.knowledge[q].items():
            h[type_of(kind)] += c
        return h

    def tax(self):
        return 1 if self.effect_on("ability_tax") else 0

    def character(self, q=None):
        return CHARACTERS[self.characters[self.current if q is None else q]]

    def ability(self, q=None):
        """The character whose ability the seat has: its own, or None when the rules' switch
        ability_off names that character (the printed game: "none")."""
        c = self.character(q)
        return None if self.rules.switch("ability_off") == c else c

    def workers_in_orphanage(self):
        return sum(1 for w in self.orphanage if w is not None)

    def can_afford(self, q, payment):
        return payment.completable(self.have(q))

    # ---- turn state ------------------------------------------------------------------------------------
    def _new_turn_state(self):
        self.phase = "pre"
        self.hand = Counter()
        self.position = None
        self.direction = None
        self.last_type = None
        self.fixes_left = 0
        self.last_machine = None
        self.spy_uncovered = False
        self.ability_used = False
        self.violet_reduction = 0
        self.rone_protects = None
        self.window = None
        self.drops = 0
        self.payment = None
        self.ability_args = [-1, -1]
        self.discard_round = None
        self.placement = {"left": 0, "extra_added": False, "went_critical": False}

    def current_player(self):
        """The deciding seat (the payer during a payment), -1 at a chance step, -2 at the end (the
        engine API's PLAYER_CHANCE and PLAYER_TERMINAL)."""
        if self.phase == "terminal":
            return -2
        if self.phase.startswith("chance"):
            return -1
        return self.payment.payer if self.phase == "pay" else self.current

    def returns(self):
        return [1.0 if self.outcome == "win" else 0.0] * self.n

    # ---- legal actions -------------------------------------------------------------------------------
    def legal_actions(self):
        ph = self.phase
        acts = []
        if ph == "pre":
            for m in range(6):
                if sum(self.workers[m].values()) > 0:
                    acts += [A_PICK + 2 * m, A_PICK + 2 * m + 1]
            acts += self._ability_actions()
        elif ph == "move":
            acts += [A_DROP + t for t in range(4) if self.hand[t] > 0]
            acts += self._enter_actions()
            if self.rules.switch("ability_window") == "any_time":  # also between drops
                acts += self._ability_actions()
        elif ph == "fix":
            here = self.malfunctions[self.position]
            acts += [A_FIX + k for k in range(24) if here[k] > 0 and type_of(k) == self.last_type]
            acts.append(A_STOP_FIXING)
        elif ph == "post":
            acts += self._uncover_actions()
            acts.append(A_END_TURN)
            acts += self._ability_actions()
        elif ph == "pay":
            acts += self._pay_actions()
        elif ph == "harris_from":
            t = self.ability_args[0]
            acts += [A_SELECT + m for m in range(6) if self.workers[m][t] > 0]
        elif ph == "harris_to":
            acts += [A_SELECT + m for m in range(6) if m != self.ability_args[1]]
        elif ph == "linny":
            number = self.ability_args[0]
            for loc in range(6):
                for t in range(4):
                    if self.malfunctions[loc][4 * number + t] > 0:
                        acts.append(A_SELECT + 4 * loc + t)
        return sorted(acts)

    def _enter_cost(self):
        return self.workers_in_orphanage() + 1 + (1 if self.effect_on("construct_plus_1") else 0)

    def _enter_payment(self, nova):
        (t,) = [t for t in range(4) if self.hand[t] > 0]
        need = [0, 0, 0, 0]
        need[t] = self._enter_cost()
        if nova:
            return Payment(self.current, need, any_n=self.tax(), substitute=True, then="enter")
        return Payment(self.current, need, then="enter")

    def _enter_actions(self):
        if sum(self.hand.values()) != 1 or self.orphanage[self.position] is not None:
            return []
        (t,) = [t for t in range(4) if self.hand[t] > 0]
        if t not in self.section_types[self.position]:
            return []
        acts = []
        if self.can_afford(self.current, self._enter_payment(False)):
            acts.append(A_ENTER)
        if self.ability() == "Nova" and not self.ability_used and self.can_afford(self.current, self._enter_payment(True)):
            acts.append(A_ENTER_NOVA)
        return acts

    def _spy_payment(self, m, any_n, substitute):
        need = [0, 0, 0, 0]
        for t in self.machine_types[m]:
            need[t] += 1
        return Payment(self.current, need, any_n=any_n, substitute=substitute, then="uncover", args=[m, -1])

    def _uncover_options(self):
        """(action, machine, payment) for every way to uncover a spy now."""
        if self.last_machine is None or self.spy_uncovered:
            return []
        lm = self.last_machine
        extra = 1 if self.effect_on("uncover_plus_1") else 0
        free = not self.ability_used
        opts = []
        if self.spy_on[lm]:
            opts.append((A_UNCOVER, self._spy_payment(lm, extra, False)))
            if self.ability() == "Fenn" and free:
                opts.append((A_UNCOVER_FENN, self._spy_payment(lm, extra + self.tax(), True)))
        if self.ability() == "Fare" and free:
            for a, m in ((A_UNCOVER_FARE_CW, (lm + 1) % 6), (A_UNCOVER_FARE_CCW, (lm - 1) % 6)):
                if self.spy_on[m]:
                    opts.append((a, self._spy_payment(m, extra + 1 + self.tax(), False)))
        return [(a, pay) for a, pay in opts if self.can_afford(self.current, pay)]

    def _uncover_actions(self):
        return [a for a, _ in self._uncover_options()]

    def _ability_options(self):
        """(action, payment or None) for the active abilities usable now."""
        if self.ability_used:
            return []
        who = self.ability()
        q = self.current
        tax = self.tax()
        have = self.have(q)
        opts = []
        if who == "Harris":
            for t in range(4):
                need = [1 if u == t else 0 for u in range(4)]
                pay = Payment(q, need, any_n=tax, then="harris", args=[t, -1])
                if self.can_afford(q, pay) and any(self.workers[m][t] > 0 for m in range(6)):
                    opts.append((A_HARRIS + t, pay))
        elif who == "Junas":
            for t in range(4):
                for give in (1, 2):
                    # he discards 1 of type t (and any tax) and gives `give` more of type t
                    if have[t] >= 1 + give and sum(have) >= 1 + give + tax:
                        for off in range(1, self.n):
                            opts.append((A_JUNAS + 6 * t + 3 * (give - 1) + off - 1, None))
        elif who == "Linny":
            if sum(have) >= 1 + tax:
                for kind in range(24):
                    if self.knowledge[q][kind] > 0 and any(
                            self.malfunctions[loc][4 * machine_of(kind) + t] for loc in range(6) for t in range(4)):
                        opts.append((A_LINNY + kind, None))
        elif who == "Violet":
            for t in range(4):
                need = [VIOLET_REDUCTION if u == t else 0 for u in range(4)]
                pay = Payment(q, need, any_n=tax, then="violet")
                if self.can_afford(q, pay):
                    opts.append((A_VIOLET + t, pay))
        elif who == "Rone" and self.rules.switch("rone_cost") == "any_two":
            # "any 2 different Knowledge" read as any 2 tokens: every pair action pays any 2
            if sum(have) >= 2 + tax:
                for m in range(6):
                    for i in range(len(TYPE_PAIRS)):
                        opts.append((A_RONE + 6 * m + i, Payment(q, [0, 0, 0, 0], any_n=2 + tax, then="rone",
                                                                 args=[m, -1])))
        elif who == "Rone":
            for i, (t1, t2) in enumerate(TYPE_PAIRS):
                need = [1 if u in (t1, t2) else 0 for u in range(4)]
                if self.can_afford(q, Payment(q, need, any_n=tax)):
                    for m in range(6):
                        opts.append((A_RONE + 6 * m + i, Payment(q, need, any_n=tax, then="rone", args=[m, -1])))
        return opts

    def _ability_actions(self):
        return [a for a, _ in self._ability_options()]

    def _pay_actions(self):
        pay = self.payment
        q = pay.payer
        have = self.have(q)
        acts = []
        for kind in range(24):
            if self.knowledge[q][kind] == 0:
                continue
            t = type_of(kind)
            trial = Payment(q, pay.need, pay.any_n, pay.substitute, paid=[pay.paid[u] + (u == t) for u in range(4)])
            if trial.completable([have[u] - (u == t) for u in range(4)]):
                acts.append(A_PAY + kind)
        return acts

    # ---- applying a decision ---------------------------------------------------------------------------
    def apply(self, a):
        if a not in self.legal_actions():
            raise ValueError(f"illegal action {a} in phase {self.phase}")
        self.stats["decisions"] += 1
        if A_PICK <= a < A_DROP:
            self._pick_up(a // 2, CLOCKWISE if a % 2 == 0 else ANTICLOCKWISE)
        elif A_DROP <= a < A_ENTER:
            self._drop(a - A_DROP)
        elif a in (A_ENTER, A_ENTER_NOVA):
            payment = self._enter_payment(a == A_ENTER_NOVA)
            if a == A_ENTER_NOVA:
                self.ability_used = True
            self._begin_payment(payment)
        elif A_FIX <= a < A_STOP_FIXING:
            self._fix(a - A_FIX)
        elif a == A_STOP_FIXING:
            self._worker_done()
        elif a in (A_UNCOVER, A_UNCOVER_FENN, A_UNCOVER_FARE_CW, A_UNCOVER_FARE_CCW):
            payment = dict(self._uncover_options())[a]
            if a != A_UNCOVER:
                self.ability_used = True
            self._begin_payment(payment)
        elif a == A_END_TURN:
            self._end_turn()
        elif A_PAY <= a < A_SELECT:
            self._pay(a - A_PAY)
        elif A_SELECT <= a < A_HARRIS:
            self._select(a - A_SELECT)
        else:
            self._use_ability(a)

    def _pick_up(self, m, direction):
        self.hand = Counter(self.workers[m])
        self.workers[m] = Counter()
        self.position = m
        self.direction = direction
        self.phase = "move"

    def _drop(self, t):
        """Move one step in the chosen direction and drop a worker of type t there; every worker of
        that type on the machine is activated and may fix one malfunction of its type."""
        self.hand[t] -= 1
        if not (self.drops >= 6 and self.rules.switch("long_group") == "stops"):
            self.position = (self.position + self.direction) % 6  # (stops: back home, it stays)
        self.drops += 1
        self.workers[self.position][t] += 1
        self.last_type = t
        self.fixes_left = self.workers[self.position][t]
        if self._fixable_here() > 0:
            self.phase = "fix"
        else:
            self._worker_done()

    def _fixable_here(self):
        return sum(c for k, c in self.malfunctions[self.position].items() if type_of(k) == self.last_type)

    def _fix(self, kind):
        self.malfunctions[self.position][kind] -= 1
        self.knowledge[self.current][kind] += 1  # fixed malfunctions become knowledge at once
        self.stats["malfunctions_fixed"] += 1
        self.fixes_left -= 1
        if self.fixes_left == 0 or self._fixable_here() == 0:
            self._worker_done()

    def _worker_done(self):
        self.fixes_left = 0
        if sum(self.hand.values()) == 0:
            self.last_machine = self.position
            self.phase = "post"
        else:
            self.phase = "move"

    def _use_ability(self, a):
        self.ability_used = True
        self.window = self.phase
        q = self.current
        tax = self.tax()
        if A_HARRIS <= a < A_JUNAS or A_VIOLET <= a:
            self._begin_payment(dict(self._ability_options_unchecked())[a])
        elif A_JUNAS <= a < A_LINNY:
            i = a - A_JUNAS
            t, give, off = i // 6, (i % 6) // 3 + 1, i % 3 + 1
            target = (q + off) % self.n
            need = [give if u == t else 0 for u in range(4)]
            # the given tokens first, then the discard that pays for the ability
            self._begin_payment(Payment(q, need, to=target, then="junas_give", args=[target, t]))
        else:  # Linny
            kind = a - A_LINNY
            self.knowledge[q][kind] -= 1
            self.discard[kind] += 1
            if tax:
                self._begin_payment(Payment(q, [0, 0, 0, 0], any_n=tax, then="linny", args=[machine_of(kind), -1]))
            else:
                self.ability_args = [machine_of(kind), -1]
                self.phase = "linny"

    def _ability_options_unchecked(self):
        saved = self.ability_used
        self.ability_used = False
        try:
            return self._ability_options()
        finally:
            self.ability_used = saved

    def _select(self, i):
        if self.phase == "harris_from":
            self.ability_args[1] = i
            self.phase = "harris_to"
        elif self.phase == "harris_to":
            t, src = self.ability_args
            self.workers[src][t] -= 1
            self.workers[i][t] += 1   # Harris moves a worker; it fixes nothing
            self._back_to_window()
        else:  # linny: i = location * 4 + type
            kind = 4 * self.ability_args[0] + i % 4
            self.malfunctions[i // 4][kind] -= 1
            self.discard[kind] += 1
            self._back_to_window()

    def _back_to_window(self):
        self.phase = self.window
        self.window = None
        self.ability_args = [-1, -1]

    # ---- payments ---------------------------------------------------------------------------------------
    def _begin_payment(self, payment):
        self.payment = payment
        self.ability_args = list(payment.args)
        self.phase = "pay"

    def _pay(self, kind):
        pay = self.payment
        self.knowledge[pay.payer][kind] -= 1
        if pay.to is None:
            self.discard[kind] += 1
        else:
            self.knowledge[pay.to][kind] += 1
        pay.paid[type_of(kind)] += 1
        if sum(pay.paid) == pay.size:
            self.payment = None
            self.ability_args = [-1, -1]
            self._payment_done(pay)

    def _payment_done(self, pay):
        then = pay.then
        if then == "enter":
            (t,) = [t for t in range(4) if self.hand[t] > 0]
            self.hand[t] = 0
            self.orphanage[self.position] = t
            self.last_machine = None
            if self.workers_in_orphanage() == 6:
                self.outcome = "win"   # the Daydreamer is built: an immediate win
                self.phase = "terminal"
            else:
                self.phase = "post"
        elif then == "uncover":
            m = pay.args[0]
            self.spy_on[m] = False
            self.returned.append(m)    # to the bottom of the stack, face down but known
            self.spy_uncovered = True
            self.stats["spies_uncovered"] += 1
            self.phase = "post"
        elif then == "harris":
            self.ability_args = [pay.args[0], -1]
            self.phase = "harris_from"
        elif then == "junas_give":
            target, t = pay.args
            need = [1 if u == t else 0 for u in range(4)]
            self._begin_payment(Payment(self.current, need, any_n=self.tax(), then="junas_discard", args=[target, -1]))
        elif then == "junas_discard":
            target = pay.args[0]
            over = sum(self.knowledge[target].values()) - self.limit()
            if over > 0:  # the receiver discards down to the limit at once
                self._begin_payment(Payment(target, [0, 0, 0, 0], any_n=over, then="return"))
            else:
                self._back_to_window()
        elif then == "linny":
            self.ability_args = [pay.args[0], -1]
            self.phase = "linny"
        elif then == "violet":
            self.violet_reduction = VIOLET_REDUCTION
            self._back_to_window()
        elif then == "rone":
            self.rone_protects = pay.args[0]
            self._back_to_window()
        elif then == "return":
            self._back_to_window()
        elif then == "discard_round":
            self._continue_discard_round()

    # ---- end of turn, placing malfunctions and spies ----------------------------------------------
    def _end_turn(self):
        if sum(1 for m in range(6) if self.critical(m)) >= 4:
            self._lose("four_critical")
            return
        self._start_discard_round(self.limit(), "begin_placement")

    def _start_discard_round(self, limit, then):
        self.discard_round = {"limit": limit, "seats_checked": 0, "then": then}
        self._continue_discard_round()

    def _continue_discard_round(self):
        rnd = self.discard_round
        while rnd["seats_checked"] < self.n:
            q = (self.current + rnd["seats_checked"]) % self.n
            rnd["seats_checked"] += 1
            over = sum(self.knowledge[q].values()) - rnd["limit"]
            if over > 0:
                self._begin_payment(Payment(q, [0, 0, 0, 0], any_n=over, then="discard_round"))
                return
        self.discard_round = None
        if rnd["then"] == "begin_placement":
            self._begin_placement()
        elif rnd["then"] == "continue_placement":
            self._next_malfunction()
        else:
            self._next_player()

    def _begin_placement(self):
        extra = self.effect_on("extra_malfunction")
        self.placement = {"left": self.rules.malfunctions_per_turn - self.violet_reduction + (1 if extra else 0),
                          "extra_added": extra, "went_critical": False}
        self._next_malfunction()

    def _next_malfunction(self):
        if self.placement["left"] > 0:
            if sum(self.bag.values()) == 0:
                self._lose("bag_empty")
            else:
                self.phase = "chance_malfunction"
        elif self.placement["went_critical"]:
            self.phase = "chance_spy"
        else:
            self._next_player()

    def chance_probabilities(self):
        if self.phase == "chance_malfunction":
            total = sum(self.bag.values())
            return {k: c / total for k, c in self.bag.items() if c}
        if self.phase == "chance_tile":
            if self.hidden == "setup":
                return {self.setup_tiles[self.reveal[0]]: 1.0}
            unseen = [e for e in range(6) if e not in self.tiles]
            return {e: 1 / len(unseen) for e in unseen}
        if self.phase == "chance_spy":
            unseen = self.unseen_spies()
            if not unseen:
                return {self.returned[0]: 1.0}
            if self.hidden == "setup":
                return {[m for m in self.setup_stack if m in unseen][0]: 1.0}
            return {m: 1 / len(unseen) for m in unseen}
        return {}

    def apply_chance(self, outcome):
        assert self.chance_probabilities().get(outcome, 0) > 0, "impossible chance outcome"
        if self.phase == "chance_malfunction":
            self._place_malfunction(outcome)
        elif self.phase == "chance_tile":
            m, then = self.reveal
            self.reveal = None
            self.tiles[m] = outcome
            self._tile_effect_now(m, then)
        else:
            self._place_spy(outcome)

    def _turn_over(self, m, then):
        """Machine m went critical: its tile turns face up; if nobody has seen it, it is revealed
        first (a chance step)."""
        if self.tiles[m] is None:
            self.reveal = (m, then)
            self.phase = "chance_tile"
        else:
            self._tile_effect_now(m, then)

    def _tile_effect_now(self, m, then):
        effect = CRITICAL_EFFECTS[self.tiles[m]]
        if then == "placement":
            if effect == "extra_malfunction" and not self.placement["extra_added"]:
                self.placement["extra_added"] = True
                self.placement["left"] += 1
            elif effect == "knowledge_limit_6":
                self._start_discard_round(self.rules.critical_knowledge_limit, "continue_placement")
                return
            self._next_malfunction()
        else:  # revealed by a spy: no extra malfunction that turn
            if effect == "knowledge_limit_6":
                self._start_discard_round(self.rules.critical_knowledge_limit, "next_turn")
                return
            self._next_player()

    def _place_malfunction(self, kind):
        self.bag[kind] -= 1
        self.placement["left"] -= 1
        m = machine_of(kind)
        if self.rone_protects == m:
            self.discard[kind] += 1
            self._next_malfunction()
            return
        if self.critical(m) and CRITICAL_EFFECTS[self.tiles[m]] == "redirect":
            for step in range(1, 6):
                if not self.critical((m + step) % 6):
                    m = (m + step) % 6
                    break
            if m == self.rone_protects and self.rules.switch("rone_redirect") == "discard":
                self.discard[kind] += 1   # Rone's machine gets no malfunction, redirected or not
                self._next_malfunction()
                return
        was_critical = self.critical(m)
        self.malfunctions[m][kind] += 1
        if not was_critical and self.critical(m):
            self.placement["went_critical"] = True
            if self._four_critical_now():
                return
            self._turn_over(m, "placement")
            return
        self._next_malfunction()

    def _place_spy(self, spy):
        if self.unseen_spies():
            assert spy in self.unseen_spies()
        else:
            assert spy == self.returned.pop(0)
        self.spies_revealed += 1
        was_critical = self.critical(spy)
        self.spy_on[spy] = True
        if all(self.spy_on):
            self._lose("six_spies")
            return
        if not was_critical and self.critical(spy):
            if self._four_critical_now():
                return
            self._turn_over(spy, "spy")
            return
        self._next_player()

    def _four_critical_now(self):
        """Switch four_critical "immediate": a machine just went critical; lost if it is the 4th."""
        if self.rules.switch("four_critical") == "immediate" and sum(self.critical(m) for m in range(6)) >= 4:
            self._lose("four_critical")
            return True
        return False

    def _next_player(self):
        self.current = (self.current + 1) % self.n
        self.turn += 1
        self._new_turn_state()

    def _lose(self, reason):
        self.outcome = reason
        self.phase = "terminal"

    # ---- the position format (face.to_dict) -------------------------------------------------------
    def to_dict(self):
        names = [kind_name(k) for k in range(24)]

        def counts(c):   # a Counter by kind: its non-zero counts in kind order
            return {names[k]: c[k] for k in sorted(c) if c[k]}

        pay = None
        if self.payment is not None:
            p = self.payment
            pay = {"payer": p.payer, "need": dict(zip(TYPES, p.need)), "any": p.any_n,
                   "substitute": p.substitute, "to": p.to, "paid": dict(zip(TYPES, p.paid)),
                   "paid_count": sum(p.paid), "then": p.then}
        return {
            "game": "bethel_woods",
            "players": self.n,
            "characters": [CHARACTERS[c] for c in self.characters],
            "first_player": self.first,
            "current_player": self.current,
            "turn": self.turn,
            "phase": self.phase,
            "outcome": self.outcome,
            "machines": [
                {"machine": m + 1, "workers": {WORKERS[t]: self.workers[m][t] for t in range(4)},
                 "malfunctions": counts(self.malfunctions[m]), "spy": self.spy_on[m],
                 "critical_tile": None if self.tiles[m] is None else CRITICAL_EFFECTS[self.tiles[m]],
                 "critical_face_up": self.critical(m)}
                for m in range(6)
            ],
            "orphanage": [None if w is None else WORKERS[w] for w in self.orphanage],
            "daydreamer_built": self.workers_in_orphanage(),
            "bag": counts(self.bag),
            "discard": counts(self.discard),
            "knowledge": [counts(k) for k in self.knowledge],
            "spy_stack": {"unseen": len(self.unseen_spies()), "returned": [m + 1 for m in self.returned],
                          "revealed_after_setup": self.spies_revealed},
            "turn_state": {
                "hand": {WORKERS[t]: self.hand[t] for t in range(4)},
                "position": None if self.position is None else self.position + 1,
                "direction": {CLOCKWISE: "clockwise", ANTICLOCKWISE: "anticlockwise", None: None}[self.direction],
                "last_type": None if self.last_type is None else TYPES[self.last_type],
                "fixes_left": self.fixes_left,
                "last_machine": None if self.last_machine is None else self.last_machine + 1,
                "spy_uncovered": self.spy_uncovered,
                "ability_used": self.ability_used,
                "violet_reduction": self.violet_reduction,
                "rone_protects": None if self.rone_protects is None else self.rone_protects + 1,
                "window": self.window,
                "drops": self.drops,
            },
            "payment": pay,
            "ability_args": list(self.ability_args),
            "discard_round": None if self.discard_round is None else dict(self.discard_round),
            "placement": {"left": self.placement["left"], "extra_added": bool(self.placement["extra_added"]),
                          "went_critical": self.placement["went_critical"],
                          "tile_reveal": None if self.reveal is None else {"machine": self.reveal[0] + 1,
                                                                            "then": self.reveal[1]}},
            "stats": {"malfunctions_fixed": self.stats["malfunctions_fixed"],
                      "spies_uncovered": self.stats["spies_uncovered"], "decisions": self.stats["decisions"]},
        }

