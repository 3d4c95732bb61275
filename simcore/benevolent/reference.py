"""Benevolent: the plain-Python reference engine, written from the rulebook for readability.

Shares with the compiled engine only the interface (action numbering and phases of actions.py,
the position format of face.to_dict, the draw order of setup). Slow on purpose."""
from __future__ import annotations

from collections import Counter, deque

import numpy as np

from ..rng import below, substream
from .actions import (
    A_BUY, A_DECLINE, A_END_TURN, A_EXCHANGE, A_FROM, A_GATHER, A_GATHER_PUT, A_GATHER_TAKE, A_MEADOW, A_MOVE,
    A_NEST, A_PLACE, A_SECRET, A_SLEEP, A_TABLE,
)
from .rules import (
    AGAIN_EXCHANGE_COST, AGAIN_SLEEP_COST, CRYSTAL_SECRET_PRICE, GIFT_VALUES, GIFTS, HEX_TYPES, PERMANENT,
    PERMANENT_DISCOUNT, POOL, RESOLVE_PURCHASE_DISCOUNT, SINGLE_USE, SLOT_SUPPORTS, TOTAL_LEAVES, Rules, assemble,
)

CLOVER, FEATHER, CRYSTAL, AMBER, FIGURINE = range(5)


class Player:
    def __init__(self, seat, leaves):
        self.seat = seat
        self.leaves = leaves
        self.starting_leaves = leaves
        self.gifts = Counter({CLOVER: 1})   # each player takes 1 Clover at setup
        self.forest = []                     # hexes of the Footsteps on the forest
        self.dream = 0                       # the first position of the Dream Path
        self.single_use = set()              # names of single-use Secrets held
        self.permanent = set()               # names of permanent Secrets held
        self.tile_leaves = 0

    def has(self, secret):
        return secret in self.permanent


class ReferenceGame:
    def __init__(self, rules: Rules, players: int, leaves, key):
        self.rules = rules
        self.n = players
        self.key = key
        # the forest: random segments, random side up (each setup step on a sub-stream of its own,
        # as in the compiled engine: engine.CH_*)
        order = [0, 1, 2]
        for n, i in enumerate((2, 1)):
            j = self._rand("segments", n, i + 1)
            order[i], order[j] = order[j], order[i]
        offsets = rules.layout(players)
        self.segments = [(order[i], self._rand("sides", i, 2)) for i in range(len(offsets))]
        cells, nbrs = assemble(offsets)
        self.hex_type, self.hex_gray, self.neighbours = [], [], nbrs
        for (_, _, slot, idx) in cells:
            seg, side = self.segments[slot]
            self.hex_type.append(HEX_TYPES.index(rules.sides[2 * seg + side][idx]))
            self.hex_gray.append(rules.gray[2 * seg + side][idx] == 1)
        # the Secret tiles
        tiles = list(range(9))
        for n, i in enumerate(range(8, 0, -1)):
            j = self._rand("tiles", n, i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        self.triangle = [[t, self._rand("tile_sides", i, 2)] for i, t in enumerate(tiles)]   # [tile or None, side 0 single-use / 1 permanent]
        for slot in self.triangle:   # the slot shows the Secret on the tile's side up (rules: secret_pairs)
            if slot[1] == 1:
                slot[0] = PERMANENT.index(rules.secret_pairs[slot[0]])
        # gifts and leaves
        self.pool = list(POOL[players])
        self.pool[CLOVER] -= players
        self.players = [Player(q, leaves[q]) for q in range(players)]
        self.supply = TOTAL_LEAVES - sum(leaves[:players])
        self.arrows = [(a, b, None if g is None else GIFTS.index(g)) for a, b, g in rules.arrows]
        self.current = 0
        self.turn = 0
        self.phase = "move"
        self.outcome = "ongoing"
        self.winner = None
        self.entered = None
        self.return_to = None
        self.next = "return"
        self.pending = None
        self.decisions = 0

    SUBSTREAMS = {"segments": 0, "sides": 1, "tiles": 2, "tile_sides": 3}

    def _rand(self, kind, n, bound):
        """Number n of the setup sub-stream of this kind, uniform in [0, bound)."""
        return int(below(np.uint64(substream(np.uint64(self.key), self.SUBSTREAMS[kind])), n, bound))

    def current_player(self):
        """The seat to play, or -2 when the game is over (the engine API's PLAYER_TERMINAL)."""
        return -2 if self.phase == "terminal" else self.current

    def returns(self):
        return [1.0 if self.outcome == "win" and self.winner == q else 0.0 for q in range(self.n)]

    # ---- facts -----------------------------------------------------------------------------------------
    @property
    def me(self):
        return self.players[self.current]

    def opponents(self):
        return [o for o in self.players if o is not self.me]

    def can_receive(self, g):
        return self.pool[g] > 0 or any(o.gifts[g] > 0 for o in self.opponents())

    def yields(self, g):
        """Is an action whose yield is gift g offered? (switch empty_gift)"""
        return self.rules.switch("empty_gift") == "offered" or self.can_receive(g)

    def footstep_cost(self, h):
        gray = 1 if self.hex_gray[h] and not self.me.has("no pay for gray") else 0
        return gray + sum(o.forest.count(h) for o in self.opponents())

    def price(self, g, discount=0):
        c = GIFT_VALUES[g] - discount - (PERMANENT_DISCOUNT if self.me.has("purchase 2 less") else 0)
        return max(c, 0)

    def group_connected(self, hexes):
        hexes = set(hexes)
        if not hexes:
            return True
        start = next(iter(hexes))
        seen, todo = {start}, deque([start])
        while todo:
            for j in self.neighbours[todo.popleft()]:
                if j in hexes and j not in seen:
                    seen.add(j)
                    todo.append(j)
        return seen == hexes

    def may_step_on(self, others, h):
        """May my Footstep go onto hex h when my other Footsteps stand on `others`?"""
        limit = 2 if self.me.has("two Footsteps on a hex") else 1
        if others.count(h) >= limit:
            return False
        if not others or self.me.has("Footsteps need not connect"):
            return True
        return h in others or any(j in others for j in self.neighbours[h])

    def slot_open(self, i):
        if self.triangle[i][0] is None:
            return False
        a, b = SLOT_SUPPORTS[i]
        return a < 0 or (self.triangle[a][0] is None and self.triangle[b][0] is None)

    def arrows_from_here(self):
        return [k for k, (a, _, _) in enumerate(self.arrows) if a == self.me.dream]

    def exchangeable(self):
        return [g for g in range(4) if self.me.gifts[g] > 0 and self.yields(g + 1)]

    def affordable(self, discount):
        return [g for g in range(5) if self.me.leaves >= self.price(g, discount) and self.yields(g)]

    # ---- legal actions ------------------------------------------------------------------------------------
    def legal_actions(self):
        me = self.me
        acts = []
        if self.phase == "move":
            if len(me.forest) < 4:
                acts += [A_PLACE + h for h in range(len(self.hex_type)) if self.may_step_on(me.forest, h)]
            else:
                for f in sorted(set(me.forest)):
                    rest = list(me.forest)
                    rest.remove(f)
                    for h in range(len(self.hex_type)):
                        if h == f or not self.may_step_on(rest, h):
                            continue
                        if me.has("Footsteps need not connect") or self.group_connected(rest + [h]):
                            acts.append(A_MOVE + 14 * f + h)
            acts += self.secret_actions()
        elif self.phase == "action":
            acts += self.gather_actions()
            h = self.entered
            cost = self.footstep_cost(h)
            if me.leaves >= cost:
                kind = HEX_TYPES[self.hex_type[h]]
                if kind == "Stone Altar":
                    acts += [A_BUY + g for g in range(5)
                             if me.leaves >= cost + self.price(g) and self.yields(g)]
                elif kind == "Meadow":
                    acts += [A_MEADOW] if self.yields(CLOVER) else []
                elif kind == "Nest":
                    acts += [A_NEST] if self.yields(FEATHER) else []
                elif kind == "Pond":
                    acts += [A_SLEEP + k for k in self.arrows_from_here()]
                elif kind == "Ring of Stones":
                    acts += [A_EXCHANGE + g for g in self.exchangeable()]
                else:
                    acts += [A_TABLE + i for i in range(9) if self.slot_open(i)]
            acts += self.secret_actions()
        elif self.phase == "sleep":
            acts += [A_SLEEP + k for k in self.arrows_from_here()]
        elif self.phase == "exchange":
            acts += [A_EXCHANGE + g for g in self.exchangeable()]
        elif self.phase == "buy":
            acts += [A_BUY + g for g in self.affordable(RESOLVE_PURCHASE_DISCOUNT)]
        elif self.phase == "again_sleep":
            acts += [A_SLEEP + k for k in self.arrows_from_here()] + [A_DECLINE]
        elif self.phase == "again_exchange":
            acts += [A_EXCHANGE + g for g in self.exchangeable()] + [A_DECLINE]
        elif self.phase == "from":
            most = max(o.gifts[self.pending] for o in self.opponents())
            acts += [A_FROM + o.seat for o in self.opponents() if o.gifts[self.pending] == most]
        elif self.phase == "end":
            acts += self.secret_actions() + [A_END_TURN]
        return sorted(acts)

    def gather_actions(self):
        if not self.me.has("gather tile"):
            return [A_GATHER]
        # gather 2, then either put 1 leaf from the supply on the tile or take 1 from it
        put = self.supply - min(2, self.supply) >= 1
        take = self.me.tile_leaves >= 1
        acts = ([A_GATHER_PUT] if put else []) + ([A_GATHER_TAKE] if take else [])
        if self.rules.switch("gather_tile") == "optional":   # a plain gather is allowed too
            return [A_GATHER] + acts
        return acts or [A_GATHER]

    def secret_actions(self):
        me = self.me
        acts = []
        for k, name in enumerate(SINGLE_USE):
            if name not in me.single_use:
                continue
            if name.startswith("exchange tile"):
                give_a, give_b, get = (GIFTS.index(x) for x in self.rules.exchange_tiles[k - 2])
                need = Counter([give_a, give_b])
                ok = all(me.gifts[g] >= c for g, c in need.items()) and self.yields(get)
            elif name == "purchase Crystal for 3":
                c = max(CRYSTAL_SECRET_PRICE - (PERMANENT_DISCOUNT if me.has("purchase 2 less") else 0), 0)
                ok = me.leaves >= c and self.yields(CRYSTAL)
            elif name == "resolve sleep":
                ok = bool(self.arrows_from_here())
            elif name == "resolve exchange":
                ok = bool(self.exchangeable())
            elif name == "resolve purchase for 3 less":
                ok = bool(self.affordable(RESOLVE_PURCHASE_DISCOUNT))
            elif name == "gain Feather":
                ok = self.yields(FEATHER)
            else:  # gain Clover and 2 leaves: the leaves are a yield too
                ok = self.supply > 0 or self.yields(CLOVER)
            if ok:
                acts.append(A_SECRET + k)
        return acts

    # ---- applying ------------------------------------------------------------------------------------
    def apply(self, a):
        if a not in self.legal_actions():
            raise ValueError(f"illegal action {a} in phase {self.phase}")
        self.decisions += 1
        me = self.me
        if a < A_GATHER:
            self.move(a)
        elif a in (A_GATHER, A_GATHER_PUT, A_GATHER_TAKE):
            self.take_from_supply(me, 2)
            if a == A_GATHER_PUT:
                self.supply -= 1
                me.tile_leaves += 1
            elif a == A_GATHER_TAKE:
                me.tile_leaves -= 1
                me.leaves += 1
            self.phase = "end"
        elif A_SECRET <= a < A_DECLINE:
            self.resolve_secret(a - A_SECRET)
        elif a == A_DECLINE:
            self.back()
        elif A_FROM <= a < A_END_TURN:
            self.receive(self.pending, self.players[a - A_FROM])
            self.after_gift()
        elif a == A_END_TURN:
            self.end_turn()
        else:
            self.hex_action(a)

    def move(self, a):
        me = self.me
        if a < A_MOVE:
            h = a - A_PLACE
            me.forest.append(h)
        else:
            f, h = divmod(a - A_MOVE, 14)
            me.forest.remove(f)
            me.forest.append(h)
        self.entered = h
        if me.has("leaf on a hex without opponents") and all(h not in o.forest for o in self.opponents()):
            self.take_from_supply(me, 1)
        self.phase = "action"

    def take_from_supply(self, player, n):
        t = min(n, self.supply)
        self.supply -= t
        player.leaves += t

    def pay(self, n):
        self.me.leaves -= n
        self.supply += n

    def pay_for_footsteps(self, h):
        me = self.me
        if self.hex_gray[h] and not me.has("no pay for gray"):
            self.pay(1)
        for o in self.opponents():
            k = o.forest.count(h)
            me.leaves -= k
            if me.has("pay opponents to the supply"):
                self.supply += k
            else:
                o.leaves += k

    def hex_action(self, a):
        me = self.me
        was = self.phase
        if was == "action":
            self.pay_for_footsteps(self.entered)
            self.return_to = "end"
        if A_BUY <= a < A_MEADOW:
            g = a - A_BUY
            self.pay(self.price(g, RESOLVE_PURCHASE_DISCOUNT if was == "buy" else 0))
            self.gain(g)
        elif a == A_MEADOW:
            self.gain(CLOVER)
        elif a == A_NEST:
            self.gain(FEATHER)
        elif A_SLEEP <= a < A_EXCHANGE:
            if was == "again_sleep":
                self.pay(AGAIN_SLEEP_COST)
            self.sleep(a - A_SLEEP, offer_again=was != "again_sleep")
        elif A_EXCHANGE <= a < A_TABLE:
            if was == "again_exchange":
                self.pay(AGAIN_EXCHANGE_COST)
            g = a - A_EXCHANGE
            me.gifts[g] -= 1
            self.pool[g] += 1
            self.gain(g + 1, then="again_exchange" if was != "again_exchange" else "return")
        else:
            i = a - A_TABLE
            tile, side = self.triangle[i]
            self.triangle[i][0] = None
            (me.single_use if side == 0 else me.permanent).add((SINGLE_USE if side == 0 else PERMANENT)[tile])
            self.phase = "end"
            self.return_to = None

    def sleep(self, k, offer_again):
        _, to, gift = self.arrows[k]
        self.me.dream = to
        then = "again_sleep" if offer_again else "return"
        if gift is None:
            self.next = then
            self.after_gift()
        else:
            self.gain(gift, then=then)

    def resolve_secret(self, k):
        me = self.me
        name = SINGLE_USE[k]
        me.single_use.discard(name)
        self.return_to = self.phase
        if name == "gain Feather":
            self.gain(FEATHER)
        elif name == "gain Clover and 2 leaves":
            self.take_from_supply(me, 2)
            self.gain(CLOVER)
        elif name.startswith("exchange tile"):
            give_a, give_b, get = (GIFTS.index(x) for x in self.rules.exchange_tiles[k - 2])
            for g in (give_a, give_b):
                me.gifts[g] -= 1
                self.pool[g] += 1
            self.gain(get)   # not an exchange action: no "exchange again"
        elif name == "purchase Crystal for 3":
            self.pay(max(CRYSTAL_SECRET_PRICE - (PERMANENT_DISCOUNT if me.has("purchase 2 less") else 0), 0))
            self.gain(CRYSTAL)
        elif name == "resolve sleep":
            self.phase = "sleep"
        elif name == "resolve exchange":
            self.phase = "exchange"
        else:
            self.phase = "buy"

    def gain(self, g, then="return"):
        """Take gift g from the Dream board; if its stack is empty, from the opponent holding most
        (a choice when they tie); if nobody holds one, it is not received."""
        self.next = then
        if self.pool[g] > 0:
            self.receive(g, None)
        else:
            most = max(o.gifts[g] for o in self.opponents())
            holders = [o for o in self.opponents() if o.gifts[g] == most]
            if most > 0:
                if len(holders) > 1:
                    self.pending = g
                    self.phase = "from"
                    return
                self.receive(g, holders[0])
        self.after_gift()

    def receive(self, g, source):
        if source is None:
            self.pool[g] -= 1
        else:
            source.gifts[g] -= 1
        self.me.gifts[g] += 1
        if all(self.me.gifts[x] > 0 for x in range(5)):
            self.outcome = "win"          # all 5 different gifts: the game ends at once
            self.winner = self.current
            self.phase = "terminal"

    def after_gift(self):
        if self.phase == "terminal":
            return
        me = self.me
        then, self.next, self.pending = self.next, "return", None
        if then == "again_sleep" and me.has("sleep again for 3") and me.leaves >= AGAIN_SLEEP_COST \
                and self.arrows_from_here():
            self.phase = "again_sleep"
        elif then == "again_exchange" and me.has("exchange again for 2") and me.leaves >= AGAIN_EXCHANGE_COST \
                and self.exchangeable():
            self.phase = "again_exchange"
        else:
            self.back()

    def back(self):
        self.phase = self.return_to
        self.return_to = None

    def end_turn(self):
        self.turn += 1
        if self.turn >= self.rules.timeout_rounds * self.n:
            self.outcome = "timeout"
            self.phase = "terminal"
            return
        self.current = (self.current + 1) % self.n
        self.phase = "move"
        self.entered = None

    # ---- the position format ------------------------------------------------------------------------
    def to_dict(self):
        nh = len(self.hex_type)
        return {
            "game": "benevolent", "players": self.n, "current_player": self.current, "turn": self.turn,
            "phase": self.phase, "outcome": self.outcome, "winner": self.winner,
            "supply": self.supply, "gift_pool": dict(zip(GIFTS, self.pool)),
            "forest": {
                "segments": [{"segment": seg, "side": side} for seg, side in self.segments],
                "hexes": [{"hex": h, "type": HEX_TYPES[self.hex_type[h]], "gray_footstep": self.hex_gray[h],
                           "neighbours": sorted(self.neighbours[h])} for h in range(nh)],
            },
            "triangle": [{"slot": i, "tile": t, "side": "single-use" if side == 0 else "permanent",
                          "secret": None if t is None else (SINGLE_USE if side == 0 else PERMANENT)[t],
                          "available": self.slot_open(i)} for i, (t, side) in enumerate(self.triangle)],
            "player_state": [{
                "seat": pl.seat, "leaves": pl.leaves, "starting_leaves": pl.starting_leaves,
                "gifts": {GIFTS[g]: pl.gifts[g] for g in range(5)},
                "footsteps_on_forest": sorted(pl.forest), "footsteps_on_card": 4 - len(pl.forest),
                "dream_position": pl.dream,
                "single_use": [x for x in SINGLE_USE if x in pl.single_use],
                "permanent": [x for x in PERMANENT if x in pl.permanent],
                "gather_tile_leaves": pl.tile_leaves} for pl in self.players],
            "turn_state": {"entered_hex": self.entered, "return_to": self.return_to, "next": self.next,
                           "pending_gift": None if self.pending is None else GIFTS[self.pending]},
            "stats": {"decisions": self.decisions},
        }

    @classmethod
    def from_dict(cls, d, rules: Rules):
        g = cls.__new__(cls)
        g.rules, g.key = rules, 0
        g.n = d["players"]
        g.segments = [(x["segment"], x["side"]) for x in d["forest"]["segments"]]
        g.hex_type = [HEX_TYPES.index(h["type"]) for h in d["forest"]["hexes"]]
        g.hex_gray = [h["gray_footstep"] for h in d["forest"]["hexes"]]
        g.neighbours = [list(h["neighbours"]) for h in d["forest"]["hexes"]]
        g.triangle = [[t["tile"], 0 if t["side"] == "single-use" else 1] for t in d["triangle"]]
        g.pool = [d["gift_pool"][x] for x in GIFTS]
        g.players = []
        for pd in d["player_state"]:
            pl = Player(pd["seat"], pd["leaves"])
            pl.starting_leaves = pd["starting_leaves"]
            pl.gifts = Counter({GIFTS.index(k): v for k, v in pd["gifts"].items()})
            pl.forest = list(pd["footsteps_on_forest"])
            pl.dream = pd["dream_position"]
            pl.single_use, pl.permanent = set(pd["single_use"]), set(pd["permanent"])
            pl.tile_leaves = pd["gather_tile_leaves"]
            g.players.append(pl)
        g.supply = d["supply"]
        g.arrows = [(a, b, None if x is None else GIFTS.index(x)) for a, b, x in rules.arrows]
        g.current, g.turn, g.phase, g.outcome, g.winner = (d["current_player"], d["turn"], d["phase"],
                                                           d["outcome"], d["winner"])
        ts = d["turn_state"]
        g.entered, g.return_to, g.next = ts["entered_hex"], ts["return_to"], ts["next"]
        g.pending = None if ts["pending_gift"] is None else GIFTS.index(ts["pending_gift"])
        g.decisions = d["stats"]["decisions"]
        return g

