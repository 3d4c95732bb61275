"""The worked examples of the Benevolent rulebook and a scripted test per rule, each run on the
compiled and the reference engine together (bv_helpers.Both).

The 2-player forest has 8 hexes; their neighbours (default layout):
0: 1 3 4 | 1: 0 2 4 5 | 2: 1 5 | 3: 0 4 6 | 4: 0 1 3 5 6 7 | 5: 1 2 4 7 | 6: 3 4 7 | 7: 4 5 6
"""
import pytest

from bv_helpers import Both, scenario
from simcore.benevolent.face import State
from simcore.benevolent.rules import POOL, rules_from_mapping

PLAIN = [("Meadow", False)] * 8


def hexes(**kinds):
    """PLAIN with some hexes changed: hexes(h4=("Pond", True))."""
    h = list(PLAIN)
    for k, v in kinds.items():
        h[int(k[1:])] = v
    return h


GIFTS0 = {"Clover": 1}


# ---- setup ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    d = State(players, seed=5).to_dict()
    assert [p["leaves"] for p in d["player_state"]] == [1, 3, 4, 5][:players]
    assert all(p["gifts"] == {"Clover": 1, "Feather": 0, "Crystal": 0, "Amber": 0, "Figurine": 0}
               for p in d["player_state"])
    pool = POOL[players]
    assert d["gift_pool"] == {"Clover": pool[0] - players, "Feather": pool[1], "Crystal": pool[2],
                              "Amber": pool[3], "Figurine": pool[4]}
    assert d["supply"] == 64 - sum([1, 3, 4, 5][:players])
    assert len(d["forest"]["hexes"]) == {2: 8, 3: 10, 4: 14}[players]
    assert all(p["dream_position"] == 0 and p["footsteps_on_card"] == 4 for p in d["player_state"])
    assert sorted(t["tile"] for t in d["triangle"]) == list(range(9))
    assert [t["available"] for t in d["triangle"]] == [True] * 4 + [False] * 5
    assert d["current_player"] == 0 and d["phase"] == "move"


def test_leaves_are_a_per_seat_parameter():
    d = State(3, leaves="0,7,2", seed=1).to_dict()
    assert [p["leaves"] for p in d["player_state"]] == [0, 7, 2] and d["supply"] == 55


# ---- movement ------------------------------------------------------------------------------------
def test_first_footstep_anywhere_then_adjacent_and_not_on_your_own():
    b = Both(scenario(hexes=PLAIN))
    assert len(b.legal()) == 8
    b.do("place Footstep on hex 2", "gather leaves", "end turn")
    b.do("place Footstep on hex 7", "gather leaves", "end turn")   # the other player
    assert sorted(b.legal()) == ["place Footstep on hex 1", "place Footstep on hex 5"]  # next to hex 2


def test_footsteps_stay_connected_when_moving():
    # the rulebook's illustration: a Footstep may move where the group stays one, not where it breaks
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [6, 3, 0, 1]}))
    legal = b.legal()
    assert "move Footstep from hex 6 to hex 5" in legal      # the rest (3, 0, 1) stays together; 5 touches 1
    assert "move Footstep from hex 3 to hex 5" not in legal  # 6 would be cut off: three groups
    assert "move Footstep from hex 3 to hex 2" not in legal
    assert "move Footstep from hex 0 to hex 4" in legal      # 4 joins 6, 3 and 1 again
    assert not any(a.startswith("place") for a in legal)


def test_other_players_footsteps_do_not_block_movement():
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0]}, others={1: {"footsteps": [1, 3, 4]}}))
    assert sorted(b.legal()) == ["place Footstep on hex 1", "place Footstep on hex 3", "place Footstep on hex 4"]


# ---- paying for Footsteps, gathering ---------------------------------------------------------------
def test_pay_gray_to_supply_and_opponents_to_them():
    d = scenario(hexes=hexes(h1=("Meadow", True)), me={"footsteps": [0], "leaves": 5},
                 others={1: {"footsteps": [1], "leaves": 3}})
    b = Both(d)
    supply = b.d["supply"]
    b.do("place Footstep on hex 1", "Meadow: take a Clover")
    assert b.me(0)["leaves"] == 3 and b.me(1)["leaves"] == 4 and b.d["supply"] == supply + 1
    assert b.me(0)["gifts"]["Clover"] == 2


def test_no_leaves_no_hex_action_but_gather_is_free():
    b = Both(scenario(hexes=hexes(h1=("Meadow", True)), me={"footsteps": [0], "leaves": 0}))
    b.do("place Footstep on hex 1")
    assert b.legal() == ["gather leaves"]
    b.do("gather leaves")
    assert b.me()["leaves"] == 2 and b.d["phase"] == "end"


def test_gather_takes_what_is_left():
    d = scenario(hexes=PLAIN, me={"footsteps": [0], "leaves": 62}, others={1: {"leaves": 1}})
    assert d["supply"] == 1
    b = Both(d).do("place Footstep on hex 1", "gather leaves")
    assert b.me()["leaves"] == 63 and b.d["supply"] == 0


# ---- the hexes ---------------------------------------------------------------------------------------
def test_stone_altar_prices():
    b = Both(scenario(hexes=hexes(h1=("Stone Altar", False)), me={"footsteps": [0], "leaves": 11}))
    b.do("place Footstep on hex 1")
    assert [a for a in b.legal() if a.startswith("purchase")] == ["purchase Clover", "purchase Feather",
                                                                  "purchase Crystal", "purchase Amber"]
    b.do("purchase Amber")
    assert b.me()["leaves"] == 1 and b.me()["gifts"]["Amber"] == 1


def test_pond_example_from_position_2():
    # "choose any of three arrows: back to the previous position and take a Feather, back to the very
    # first position and take a Crystal, or just go to the last position"
    pond = hexes(h1=("Pond", False))
    b = Both(scenario(hexes=pond, me={"footsteps": [0], "dream": 2}))
    b.do("place Footstep on hex 1")
    assert [a for a in b.legal() if a.startswith("sleep")] == ["sleep along arrow 3", "sleep along arrow 4",
                                                               "sleep along arrow 5"]
    for arrow, pos, gift in ((3, 1, "Feather"), (4, 0, "Crystal"), (5, 3, None)):
        b = Both(scenario(hexes=pond, me={"footsteps": [0], "dream": 2}))
        b.do("place Footstep on hex 1", f"sleep along arrow {arrow}")
        assert b.me()["dream_position"] == pos
        assert sum(b.me()["gifts"].values()) == 1 + (gift is not None)
        if gift:
            assert b.me()["gifts"][gift] == 1


def test_ring_of_stones_exchanges_for_the_next_value():
    b = Both(scenario(hexes=hexes(h1=("Ring of Stones", False)), me={"footsteps": [0],
                                                                     "gifts": {"Clover": 1, "Figurine": 1}}))
    b.do("place Footstep on hex 1")
    assert [a for a in b.legal() if a.startswith("exchange")] == ["exchange Clover"]  # a Figurine cannot
    b.do("exchange Clover")
    assert b.me()["gifts"]["Clover"] == 0 and b.me()["gifts"]["Feather"] == 1


def test_wooden_table_from_the_bottom_of_the_triangle():
    b = Both(scenario(hexes=hexes(h1=("Wooden Table", False)), me={"footsteps": [0]},
                      triangle={0: None, 1: None}))
    b.do("place Footstep on hex 1")
    tables = [a for a in b.legal() if a.startswith("take Secret")]
    assert tables == ["take Secret tile at slot 2", "take Secret tile at slot 3", "take Secret tile at slot 4"]
    slot4 = b.d["triangle"][4]
    b.do("take Secret tile at slot 4")
    held = b.me()["single_use"] + b.me()["permanent"]
    assert held == [slot4["secret"]] and b.d["triangle"][4]["tile"] is None


def test_empty_stack_take_from_the_opponent_with_most_and_choose_on_a_tie():
    d = scenario(players=3, hexes=None, me={"footsteps": [], "gifts": {"Clover": 1}},
                 others={1: {"gifts": {"Clover": 2, "Feather": 1}}, 2: {"gifts": {"Clover": 2}}},
                 pool={"Clover": 0})
    for h in d["forest"]["hexes"]:
        h["type"], h["gray_footstep"] = "Meadow", False
    b = Both(d)
    b.do("place Footstep on hex 0", "Meadow: take a Clover")
    assert b.d["phase"] == "from" and b.legal() == ["take it from seat 1", "take it from seat 2"]
    b.do("take it from seat 2")
    assert [p["gifts"]["Clover"] for p in b.d["player_state"]] == [2, 2, 1]


def test_a_gift_nobody_can_give_is_not_received():
    # by default such an action is not offered (switch empty_gift, tests/test_bv_switches.py); with
    # empty_gift = "offered" it is, and yields nothing
    d = scenario(hexes=PLAIN, me={"footsteps": [0], "gifts": {"Feather": 1}}, others={1: {"gifts": {}}},
                 pool={"Clover": 0})
    assert "Meadow: take a Clover" not in Both(d).do("place Footstep on hex 1").legal()
    b = Both(d, rules_from_mapping({"switches": {"empty_gift": "offered"}}))
    b.do("place Footstep on hex 1", "Meadow: take a Clover")
    assert b.me()["gifts"]["Clover"] == 0 and b.d["phase"] == "end"


def test_five_different_gifts_win_at_once():
    gifts = {"Feather": 1, "Crystal": 1, "Amber": 1, "Figurine": 1}
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "gifts": gifts}))
    b.do("place Footstep on hex 1", "Meadow: take a Clover")
    assert b.d["outcome"] == "win" and b.d["winner"] == 0 and b.d["phase"] == "terminal"


def test_timeout():
    rules = rules_from_mapping({"timeout_rounds": 1})
    b = Both(scenario(hexes=PLAIN, rules=rules), rules=rules)
    b.do("place Footstep on hex 0", "gather leaves", "end turn", "place Footstep on hex 7", "gather leaves", "end turn")
    assert b.d["outcome"] == "timeout" and b.d["winner"] is None


# ---- single-use Secrets ------------------------------------------------------------------------------
def secret(name, **me):
    base = {"footsteps": [0], "single_use": [name]}
    base.update(me)
    return Both(scenario(hexes=PLAIN, me=base))


def test_secrets_at_any_time_of_the_turn_and_the_turn_goes_on():
    for phase_steps in ([], ["place Footstep on hex 1"], ["place Footstep on hex 1", "gather leaves"]):
        b = secret("gain Feather").do(*phase_steps)
        before = b.d["phase"]
        b.do("resolve Secret: gain Feather")
        assert b.me()["gifts"]["Feather"] == 1 and b.d["phase"] == before and b.me()["single_use"] == []


def test_gain_clover_and_two_leaves():
    b = secret("gain Clover and 2 leaves", leaves=0).do("resolve Secret: gain Clover and 2 leaves")
    assert b.me()["gifts"]["Clover"] == 2 and b.me()["leaves"] == 2


def test_exchange_tiles():
    b = secret("exchange tile 1", gifts={"Clover": 2})
    b.do("resolve Secret: exchange tile 1")
    assert b.me()["gifts"] == {"Clover": 0, "Feather": 0, "Crystal": 1, "Amber": 0, "Figurine": 0}
    assert "resolve Secret: exchange tile 3" not in secret("exchange tile 3", gifts={"Crystal": 1}).legal()
    b = secret("exchange tile 3", gifts={"Crystal": 1, "Feather": 1}).do("resolve Secret: exchange tile 3")
    assert b.me()["gifts"]["Figurine"] == 1 and b.me()["gifts"]["Crystal"] == 0


def test_purchase_crystal_for_3_and_discounts_add_up():
    b = secret("purchase Crystal for 3", leaves=3).do("resolve Secret: purchase Crystal for 3")
    assert b.me()["leaves"] == 0 and b.me()["gifts"]["Crystal"] == 1
    b = secret("purchase Crystal for 3", leaves=1, permanent=["purchase 2 less"])
    b.do("resolve Secret: purchase Crystal for 3")
    assert b.me()["leaves"] == 0


def test_resolve_sleep_exchange_purchase():
    b = secret("resolve sleep").do("resolve Secret: resolve sleep")
    assert b.legal() == ["sleep along arrow 0"]
    b.do("sleep along arrow 0")
    assert b.me()["dream_position"] == 1 and b.me()["gifts"]["Clover"] == 2 and b.d["phase"] == "move"
    b = secret("resolve exchange").do("resolve Secret: resolve exchange", "exchange Clover")
    assert b.me()["gifts"]["Feather"] == 1
    b = secret("resolve purchase for 3 less", leaves=6, permanent=["purchase 2 less"])
    b.do("resolve Secret: resolve purchase for 3 less")
    assert "purchase Figurine" not in b.legal() and "purchase Amber" in b.legal()  # 12-3-2 > 6 >= 10-3-2
    b.do("purchase Amber")
    assert b.me()["leaves"] == 1


# ---- permanent Secrets -------------------------------------------------------------------------------
def test_exchange_again_for_2_without_paying_footsteps_again():
    d = scenario(hexes=hexes(h1=("Ring of Stones", True)), me={"footsteps": [0], "leaves": 3,
                                                                "permanent": ["exchange again for 2"]})
    b = Both(d).do("place Footstep on hex 1", "exchange Clover")
    assert b.d["phase"] == "again_exchange" and b.me()["leaves"] == 2
    b.do("exchange Feather")
    assert b.me()["gifts"]["Crystal"] == 1 and b.me()["leaves"] == 0 and b.d["phase"] == "end"


def test_sleep_again_for_3_only_once():
    d = scenario(hexes=hexes(h1=("Pond", False)), me={"footsteps": [0], "leaves": 9,
                                                       "permanent": ["sleep again for 3"]})
    b = Both(d).do("place Footstep on hex 1", "sleep along arrow 0")
    assert b.d["phase"] == "again_sleep"
    b.do("sleep along arrow 2")   # 1 -> 0, a Feather
    assert b.me()["leaves"] == 6 and b.d["phase"] == "end" and b.me()["gifts"]["Feather"] == 1


def test_decline_the_repeat():
    d = scenario(hexes=hexes(h1=("Pond", False)), me={"footsteps": [0], "leaves": 9,
                                                       "permanent": ["sleep again for 3"]})
    b = Both(d).do("place Footstep on hex 1", "sleep along arrow 0", "decline")
    assert b.me()["leaves"] == 9 and b.d["phase"] == "end"


def test_gather_tile():
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "permanent": ["gather tile"], "leaves": 0}))
    b.do("place Footstep on hex 1")
    assert "gather leaves" not in b.legal() and "gather leaves, put 1 on the gather tile" in b.legal()
    b.do("gather leaves, put 1 on the gather tile")
    assert b.me()["leaves"] == 2 and b.me()["gather_tile_leaves"] == 1
    b2 = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "permanent": ["gather tile"], "leaves": 0, "tile": 3}))
    b2.do("place Footstep on hex 1", "gather leaves, take 1 from the gather tile")
    assert b2.me()["leaves"] == 3 and b2.me()["gather_tile_leaves"] == 2


def test_two_footsteps_on_a_hex():
    d = scenario(hexes=hexes(h0=("Meadow", True)), me={"footsteps": [0, 1], "permanent": ["two Footsteps on a hex"],
                                                       "leaves": 1}, others={1: {"footsteps": [3]}})
    b = Both(d)
    assert "place Footstep on hex 0" in b.legal()
    b.do("place Footstep on hex 0", "Meadow: take a Clover")   # pays the gray only, not its own
    assert b.me()["leaves"] == 0 and b.me()["footsteps_on_forest"] == [0, 0, 1]
    # the opponent pays for each of them
    d2 = scenario(hexes=PLAIN, me={"footsteps": [3], "leaves": 5},
                  others={1: {"footsteps": [0, 0], "permanent": ["two Footsteps on a hex"], "leaves": 0}})
    b2 = Both(d2).do("place Footstep on hex 0", "Meadow: take a Clover")
    assert b2.me()["leaves"] == 3 and b2.me(1)["leaves"] == 2


def test_leaf_on_a_hex_without_opponents():
    d = scenario(hexes=hexes(h4=("Meadow", True)), me={"footsteps": [0], "permanent": ["leaf on a hex without opponents"],
                                                       "leaves": 0}, others={1: {"footsteps": [3]}})
    assert Both(d).do("place Footstep on hex 4").me()["leaves"] == 1  # gray Footsteps do not count
    assert Both(d).do("place Footstep on hex 3").me()["leaves"] == 0


def test_footsteps_need_not_connect():
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "permanent": ["Footsteps need not connect"]}))
    assert len(b.legal()) == 7


def test_no_pay_for_gray_and_pay_opponents_to_the_supply():
    d = scenario(hexes=hexes(h1=("Meadow", True)), me={"footsteps": [0], "leaves": 1,
                                                       "permanent": ["no pay for gray", "pay opponents to the supply"]},
                 others={1: {"footsteps": [1], "leaves": 0}})
    b = Both(d)
    supply = b.d["supply"]
    b.do("place Footstep on hex 1", "Meadow: take a Clover")
    assert b.me()["leaves"] == 0 and b.me(1)["leaves"] == 0 and b.d["supply"] == supply + 1
