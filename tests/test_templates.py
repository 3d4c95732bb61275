"""Compiled code written once for every game (docs/engine_api.md, "Compiled loops written once"):
the play loop (arena/loop.py) and the policy plug point (policies/plug.py) are templates that
`simcore.numbacache.specialise` makes into one dispatcher per game, each cached on disk under a
name of its own; the stored turn plan's steps (policies/plan.py) are shared by both heuristics."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import arena.benevolent.batch as bv_batch
import arena.bethel_woods.batch as bw_batch
import policies.benevolent.decide as bv_decide
import policies.bethel_woods.decide as bw_decide
from arena.loop import GAME_NAMES, play_loop
from policies import POLICIES
from policies.plan import contains, forget_plan, keep_plan, next_step, score_int
from policies.plug import Policy, plug_point
from simcore.benevolent import engine as BVE, face as bv_face
from simcore.bethel_woods import engine as BWE, face as bw_face

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TEMPLATE = '''
def twice(x):
    return f(x) + f(x)
'''
GAME = '''
from numba import njit
@njit(cache=True)
def f(x):
    return x * {k}
'''
RUN = '''
import json, sys
sys.path[:0] = [{here!r}, {root!r}]
import tmpl, game_a, game_b
from simcore.numbacache import specialise
a = specialise(tmpl.twice, "a", {{"f": game_a.f}})
b = specialise(tmpl.twice, "b", {{"f": game_b.f}})
out = [a(5), b(5)]
print(json.dumps([out, sum(a.stats.cache_hits.values()) + sum(b.stats.cache_hits.values()),
                  sum(a.stats.cache_misses.values()) + sum(b.stats.cache_misses.values()),
                  a.py_func.__qualname__, b.py_func.__qualname__]))
'''


def test_a_template_specialised_for_two_games_is_cached_apart_and_found_by_the_next_process(tmp_path):
    (tmp_path / "tmpl.py").write_text(TEMPLATE)
    (tmp_path / "game_a.py").write_text(GAME.format(k=2))
    (tmp_path / "game_b.py").write_text(GAME.format(k=3))
    (tmp_path / "run.py").write_text(textwrap.dedent(RUN.format(here=str(tmp_path), root=ROOT)))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("BOARDSIM_NUMBA_CACHE_DIR", None)
    runs = [json.loads(subprocess.run([sys.executable, str(tmp_path / "run.py")], env=env, capture_output=True,
                                      text=True, check=True).stdout) for _ in range(2)]
    (first, hits1, misses1, qa, qb), (second, hits2, misses2, _, _) = runs
    assert first == second == [20, 30]          # each game's own f, never the other's cached code
    assert (hits1, misses1) == (0, 2) and (hits2, misses2) == (2, 0)
    assert (qa, qb) == ("twice__a", "twice__b")
    cached = sorted(p.name.split("-")[0] for p in (tmp_path / "cache").rglob("*.nbi"))
    assert cached == ["game_a.f", "game_b.f", "tmpl.twice__a", "tmpl.twice__b"]


def test_each_games_play_loop_is_loaded_from_the_cache_in_a_new_process():
    """The real specialisations: once compiled (here, by the first call), a new process plays with
    each game's play_chunk loaded from disk, compiling nothing."""
    from arena.units import Cell, play_records
    for g, mod in (("bethel_woods", bw_batch), ("benevolent", bv_batch)):
        play_records(Cell(game=g, players=2, seed=3), 0, 2, np.zeros((2, mod.N_REC), np.int32), 2)
    code = ("import json, numpy as np; from arena.units import Cell, play_records; "
            "import arena.bethel_woods.batch as a, arena.benevolent.batch as b; out = []\n"
            "for g, m in (('bethel_woods', a), ('benevolent', b)):\n"
            "    play_records(Cell(game=g, players=2, seed=3), 0, 2, np.zeros((2, m.N_REC), np.int32), 2)\n"
            "    out.append([sum(m.play_chunk.stats.cache_hits.values()), sum(m.play_chunk.stats.cache_misses.values()),"
            " m.play_chunk.py_func.__qualname__])\n"
            "print(json.dumps(out))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[1, 0, "play_chunk__bethel_woods"], [1, 0, "play_chunk__benevolent"]]


def test_each_game_binds_its_own_engine_and_plug_point_into_the_play_loop():
    for mod, E, dec in ((bw_batch, BWE, bw_decide), (bv_batch, BVE, bv_decide)):
        g = mod.play_game.py_func.__globals__
        assert g["setup"] is E.setup and g["current_player"] is E.current_player
        assert g["decide"] is dec.decide and g["reset"] is dec.reset and g["record"] is mod.record
        assert mod.play_chunk.py_func.__globals__["play_game"] is mod.play_game
    from arena.benevolent import selfplay as bv_sp
    from arena.bethel_woods import selfplay as bw_sp
    for sp, tag in ((bw_sp, "bethel_woods"), (bv_sp, "benevolent")):
        assert sp.label_chunk.py_func.__globals__["label_game"] is sp.label_game
        assert sp.label_chunk.py_func.__qualname__ == f"label_chunk__{tag}"
    assert bw_batch.play_game.py_func.__defaults__ == (0, -1, bw_decide.CLAIRVOYANT)   # the clairvoyant peeks
    assert bv_batch.play_game.py_func.__defaults__ == (0, -1, -1)                      # nobody does


def test_a_play_loop_needs_every_name_and_no_other():
    names = {n: None for n in GAME_NAMES}
    with pytest.raises(TypeError, match=r"missing \['record'\]"):
        play_loop("x", **{n: v for n, v in names.items() if n != "record"})
    with pytest.raises(TypeError, match=r"unknown \['rules'\]"):
        play_loop("x", rules=None, **names)


@pytest.mark.parametrize("dec", [bw_decide, bv_decide], ids=["bethel_woods", "benevolent"])
def test_the_plug_point_dispatches_every_policy_to_its_table_entry(dec):
    """decide, reset and ws_size, specialised from the one template, do for each id what the
    game's table says: the same decision as the policy's own action (handed the seat's network
    row: the installed model's where the table gives the policy one, zeros where it does not), the
    same workspace after a reset, the widest scratch of the policies seated."""
    from policies.random import random_action
    from simcore.common import PLAYER_CHANCE
    table, game = dec.TABLE, dec.GAME
    assert tuple(pol.name for pol in table) == POLICIES[game.name]
    face = bw_face if dec is bw_decide else bv_face
    g = face.State(3, 2) if dec is bw_decide else face.State(3)
    while g.current_player() == PLAYER_CHANCE:
        g.apply_chance(int(np.argmax(g.chance_probabilities())))
    s, p, q = g.state, g.params, g.current_player()
    legal = g.legal_actions()
    acts = np.zeros(256, np.int32)
    acts[:len(legal)] = legal
    n, key = np.int64(len(legal)), np.uint64(12345)
    for pid, pol in enumerate(table):
        if pol.name == "tuned":
            continue   # the heuristic's action and reset (checked below); its weights may not be installed
        theta = dec.default_theta(pid)
        assert len(theta) == dec.THETA_SIZE
        junk_a = np.full(dec.WS_SIZE, 7, np.int32)   # what a reset leaves of a used workspace
        junk_b = junk_a.copy()
        dec.reset(pid, theta, q, junk_a)
        if pol.reset is None:
            junk_b[0] = 0
        else:
            pol.reset(junk_b)
        assert np.array_equal(junk_a, junk_b) and not np.array_equal(junk_a, np.full(dec.WS_SIZE, 7)), pol.name
        ws_a = np.zeros(dec.WS_SIZE, np.int32)        # as the play loop hands it over: zeros, then reset
        ws_b = ws_a.copy()
        dec.reset(pid, theta, q, ws_a)
        if pol.reset is not None:
            pol.reset(ws_b)
        nets = dec.seat_nets(np.array([pid, 0], np.int64))
        net = nets[0]
        played = dec.played_nets(np.array([pid, 0], np.int64), nets)   # what each seat's theta hash covers
        if pol.net is None:   # a policy that reads no network gets a row of zeros, no model read for it
            assert nets.shape == (2, 1) and not nets.any() and pol.name not in dec.NET_POLICIES, pol.name
            assert played == [None, None], pol.name
        else:                 # the installed model's, and zeros for the random seat beside it
            assert nets.shape == (2, dec.NET_SIZE) and np.array_equal(net, pol.net()) and net[0] > 0, pol.name
            assert not nets[1].any() and pol.name in dec.NET_POLICIES
            assert played[1] is None and np.array_equal(played[0], net) and played[0] is not net, pol.name
        b = random_action(acts, n, key) if pol.action is None else pol.action(s.copy(), p, theta, net, q, acts, n, key, ws_b)
        a = dec.decide(pid, s.copy(), p, theta, net, q, acts, n, key, ws_a)
        assert a == b and a in legal, pol.name
        assert dec.ws_size(np.array([0, pid], np.int64)) == max(1, pol.ws)
        if pol.names:   # the names a user may set are the vector's fields, in order
            assert len(pol.names) == len(pol.theta()) and dec.THETA_NAMES[pid] == pol.names, pol.name
    tuned = table[POLICIES[game.name].index("tuned")]
    assert tuned.action is table[1].action and tuned.reset is table[1].reset
    assert dec.ws_size(np.arange(len(table), dtype=np.int64)) == dec.WS_SIZE
    assert set(dec.THETA_NAMES) == set(range(len(table))) and dec.THETA_NAMES[1] == dec.TABLE[1].names != ()


def test_a_policy_table_the_template_has_no_room_for_is_refused():
    def act():
        return 0
    acts = [type(f"A{i}", (), {})() for i in range(6)]
    with pytest.raises(ValueError, match="6 distinct actions"):
        plug_point("x", [Policy("random")] + [Policy(f"p{i}", a) for i, a in enumerate(acts)], 4, 1)
    with pytest.raises(ValueError, match="policy id 0 is the random player"):
        plug_point("x", [Policy("heuristic", act)], 4, 1)
    with pytest.raises(ValueError, match="two ids each"):
        plug_point("x", [Policy("random")] + [Policy(f"p{i}", act) for i in range(3)], 4, 1)


def test_the_stored_plan_is_played_a_step_a_decision_while_the_position_is_the_one_it_expects():
    ws = np.full(16, 9, np.int32)
    plan = np.int64(8)
    forget_plan(ws)
    acts = np.array([3, 5, 7, 0, 0], np.int32)
    assert next_step(ws, plan, np.int32(4), np.int32(10), acts, np.int64(3)) == -1      # nothing stored
    ws[8:11] = (5, 7, 3)
    keep_plan(ws, np.int64(3), np.int32(4), np.int32(10))
    assert next_step(ws, plan, np.int32(5), np.int32(10), acts, np.int64(3)) == -1      # another turn
    assert next_step(ws, plan, np.int32(4), np.int32(11), acts, np.int64(3)) == -1      # not the count it expects
    assert next_step(ws, plan, np.int32(4), np.int32(10), acts, np.int64(3)) == 5
    assert next_step(ws, plan, np.int32(4), np.int32(11), acts, np.int64(1)) == -1      # 7 not legal now
    assert next_step(ws, plan, np.int32(4), np.int32(11), acts, np.int64(3)) == 7
    assert next_step(ws, plan, np.int32(4), np.int32(12), acts, np.int64(3)) == 3
    assert next_step(ws, plan, np.int32(4), np.int32(13), acts, np.int64(3)) == -1      # played out
    assert contains(acts, np.int64(2), np.int32(5)) and not contains(acts, np.int64(2), np.int32(7))


def test_a_score_is_held_within_the_int32_range_and_otherwise_kept():
    assert score_int(3.0e9) == 2_000_000_000 and score_int(-3.0e9) == -2_000_000_000
    assert score_int(1234.9) == 1234 and score_int(-1234.9) == -1234 and score_int(2.0e9) == 2_000_000_000
