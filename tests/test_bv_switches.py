"""Benevolent: every rules switch, scripted on both engines (bv_helpers.Both compares the compiled
and the reference engine after every step), and the named alternative data."""
import pytest

from bv_helpers import Both, scenario
from simcore.benevolent.rules import ALTERNATIVES, SWITCHES, Rules, load_rules, rules_from_mapping
from simcore.errors import UserError

PLAIN = [("Meadow", False)] * 8


def rules_with(**switches):
    return rules_from_mapping({"switches": switches})


# ---- switch gather_tile --------------------------------------------------------------------------------
@pytest.mark.parametrize("value", SWITCHES["gather_tile"])
def test_gather_tile(value):
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "permanent": ["gather tile"], "leaves": 0, "tile": 1}),
             rules_with(gather_tile=value))
    b.do("place Footstep on hex 1")
    gathers = [a for a in b.legal() if a.startswith("gather")]
    both = ["gather leaves, put 1 on the gather tile", "gather leaves, take 1 from the gather tile"]
    assert gathers == (both if value == "compulsory" else ["gather leaves"] + both)
    if value == "optional":
        b.do("gather leaves")
        assert b.me()["leaves"] == 2 and b.me()["gather_tile_leaves"] == 1   # the tile untouched


@pytest.mark.parametrize("value", SWITCHES["gather_tile"])
def test_gather_tile_without_it_is_the_same(value):
    b = Both(scenario(hexes=PLAIN, me={"footsteps": [0], "leaves": 0}), rules_with(gather_tile=value))
    b.do("place Footstep on hex 1")
    assert [a for a in b.legal() if a.startswith("gather")] == ["gather leaves"]


# ---- switch empty_gift -----------------------------------------------------------------------------------
NO_CLOVER = dict(others={1: {"gifts": {}}}, pool={"Clover": 0})


def _yields(value, hexes, me, **kw):
    d = scenario(hexes=hexes, me={"footsteps": [0], **me}, **{**NO_CLOVER, **kw})
    return Both(d, rules_with(empty_gift=value))


@pytest.mark.parametrize("value,offered", [("not_offered", False), ("offered", True)])
def test_empty_gift_meadow_and_purchase(value, offered):
    # no Clover in the stack and nobody else holds one (I hold none either)
    b = _yields(value, PLAIN, {"gifts": {"Feather": 1}, "leaves": 5})
    b.do("place Footstep on hex 1")
    assert ("Meadow: take a Clover" in b.legal()) == offered
    alt = [("Stone Altar", False)] * 8
    b = _yields(value, alt, {"gifts": {"Feather": 1}, "leaves": 5})
    b.do("place Footstep on hex 1")
    assert ("purchase Clover" in b.legal()) == offered and "purchase Feather" in b.legal()
    if offered:
        b.do("purchase Clover")
        assert b.me()["leaves"] == 3 and b.me()["gifts"]["Clover"] == 0   # paid 2 for nothing


@pytest.mark.parametrize("value,offered", [("not_offered", False), ("offered", True)])
def test_empty_gift_exchange_and_secrets(value, offered):
    # no Feather anywhere: exchanging a Clover (Ring, resolve exchange) and gain Feather yield nothing
    kw = dict(others={1: {"gifts": {}}}, pool={"Feather": 0})
    ring = [("Ring of Stones", False)] * 8
    d = scenario(hexes=ring, me={"footsteps": [0], "gifts": {"Clover": 1},
                                  "single_use": ["gain Feather", "resolve exchange", "gain Clover and 2 leaves"]}, **kw)
    b = Both(d, rules_with(empty_gift=value))
    legal = b.legal()
    assert ("resolve Secret: gain Feather" in legal) == offered
    assert ("resolve Secret: resolve exchange" in legal) == offered
    assert "resolve Secret: gain Clover and 2 leaves" in legal   # its leaves are a yield
    b.do("place Footstep on hex 1")
    assert ("exchange Clover" in b.legal()) == offered


def test_empty_gift_same_when_the_gift_can_be_had():
    for value in SWITCHES["empty_gift"]:
        b = Both(scenario(hexes=PLAIN, me={"footsteps": [0]}), rules_with(empty_gift=value))
        b.do("place Footstep on hex 1")
        assert "Meadow: take a Clover" in b.legal()


# ---- alternative data and rules files -------------------------------------------------------------------------
def test_secret_pairs_decide_the_back_of_a_tile():
    # the same seed deals the same tiles and sides; a permanent side shows the paired Secret
    from simcore.benevolent.face import State
    from simcore.benevolent.rules import PERMANENT
    r = load_rules("secrets-reversed")
    a = State(2, None, seed=5).to_dict()["triangle"]
    b = State(2, None, seed=5, rules=r).to_dict()["triangle"]
    sides = [t["side"] for t in a]
    assert sides == [t["side"] for t in b] and "permanent" in sides
    for x, y in zip(a, b):
        if x["side"] == "single-use":
            assert x == y
        else:
            assert y["secret"] == r.secret_pairs[PERMANENT.index(x["secret"])]


def test_switches_and_alternatives_load():
    assert len(ALTERNATIVES) >= 12
    for name in ALTERNATIVES:
        assert load_rules(name) != Rules(source=name)
    r = load_rules("layout-tight,dream-b,empty_gift=offered")
    assert r.switch("empty_gift") == "offered" and r.layouts != Rules().layouts and r.arrows != Rules().arrows
    assert rules_from_mapping(r.to_dict()).to_dict() == r.to_dict()


EXCHANGES = [n for n in ALTERNATIVES if "exchange_tiles" in ALTERNATIVES[n]]


@pytest.mark.parametrize("name", EXCHANGES)
def test_exchange_alternatives_change_only_the_tiles(name):
    """An exchange alternative differs from the defaults in its tiles alone, and both engines, in
    step, play its tiles: offered only to a player holding the two gifts above the arrow, resolving
    returns those to the Dream board and takes the gift under it; then lock-step games under it."""
    import collections

    import bv_helpers as H
    from simcore.benevolent.rules import GIFTS
    r, default = load_rules(name), Rules().to_dict()
    assert len(EXCHANGES) >= 2
    assert [k for k, v in r.to_dict().items() if v != default[k]] == ["exchange_tiles"]
    for k, (give_a, give_b, get) in enumerate(r.exchange_tiles):
        tile = f"resolve Secret: exchange tile {k + 1}"
        held = collections.Counter([give_a, give_b])
        short = {**held, give_b: held[give_b] - 1}
        me = {"footsteps": [0], "single_use": [f"exchange tile {k + 1}"]}
        assert tile not in Both(scenario(hexes=PLAIN, me={**me, "gifts": short}, rules=r), r).legal()
        b = Both(scenario(hexes=PLAIN, me={**me, "gifts": held}, rules=r), r)
        pool = dict(b.d["gift_pool"])
        b.do(tile)
        assert b.me()["gifts"] == {x: int(x == get) for x in GIFTS}
        assert b.d["gift_pool"] == {x: pool[x] + held[x] - (x == get) for x in GIFTS}
    w = H.explore_weights()
    for g in range(30):
        H.lockstep(27, g, 2 + g % 3, rules=r, weights=w if g % 2 else None)


def _covered(offsets):
    """How many hexes each later segment covers of the ones placed before it."""
    from simcore.benevolent.rules import SEGMENT_SHAPE
    cells = [{(q + oq, r + orr) for q, r in SEGMENT_SHAPE} for oq, orr in offsets]
    return [len(cells[k] & set().union(*cells[:k])) for k in range(1, len(cells))]


@pytest.mark.parametrize("name", [None] + [n for n in ALTERNATIVES if "layouts" in ALTERNATIVES[n]])
def test_layouts_keep_the_rulebooks_overlaps(name):
    """The rulebook's text fixes the overlaps (its pictures, the shapes, are missing): 2 players,
    two hexes of the upper segment cover two of the lower; 3, side by side; 4, all 3 segments,
    one hex of the upper covering one of the lower. Every shipped layout keeps them, and its
    forest is one connected piece."""
    from simcore.benevolent.rules import _connected, assemble
    r = Rules() if name is None else load_rules(name)
    assert _covered(r.layout(2)) == [2]
    assert _covered(r.layout(3)) == [0]
    lay4 = r.layout(4)
    assert len(lay4) == 3 and sum(_covered(lay4)) == 1
    for n, size in ((2, 8), (3, 10), (4, 14)):
        hexes, nbrs = assemble(r.layout(n))
        assert len(hexes) == size and _connected(nbrs)
    if name is not None:
        assert all(r.layout(n) != Rules().layout(n) for n in (2, 3, 4))


@pytest.mark.parametrize("text,msg", [
    ('[benevolent.switches]\ngather_tile = "maybe"\n', "switch gather_tile = 'maybe'.*allowed: 'compulsory', 'optional'"),
    ('[benevolent.switches]\nfirst_player = "random"\n', "unknown switch 'first_player'.*allowed: gather_tile, empty_gift"),
    ('[benevolent]\nsecret_pairs = ["gather tile"]\n', "secret_pairs: expected the 9 permanent Secrets"),
])
def test_bad_switches_are_one_line_user_errors(tmp_path, text, msg):
    f = tmp_path / "r.toml"
    f.write_text(text)
    with pytest.raises(UserError, match=msg) as e:
        load_rules(f)
    assert "\n" not in str(e.value)


def test_named_benevolent_rules_that_contradict_each_other_are_refused():
    from simcore.benevolent.rules import load_rules
    from simcore.errors import UserError
    with pytest.raises(UserError, match="'layout-row' and 'layout-tight' both set layouts"):
        load_rules("layout-row,layout-tight")
    with pytest.raises(UserError, match="both set switch gather_tile"):
        load_rules("gather_tile=optional,gather_tile=compulsory")
