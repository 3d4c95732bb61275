"""The Benevolent heuristic and search policies: parameters, what they choose in set positions,
and how they play (small seeded runs)."""
import numpy as np
import pytest

import policies.benevolent.decide as D
from policies.benevolent import heuristic as H
from policies.benevolent import search as S
from simcore.benevolent import engine as E
from simcore.benevolent.actions import A_BUY, A_PLACE, N_ACTIONS, OUT_WIN, PH_MOVE, PH_TERMINAL
from simcore.benevolent.face import State
from simcore.benevolent.rules import ALTAR, NEST, POND


@pytest.mark.parametrize("mod, pid", [(H, D.HEURISTIC), (S, D.SEARCH)])
def test_theta_is_named_with_defaults_within_bounds(mod, pid):
    assert len(mod.THETA_NAMES) == len(set(mod.THETA_NAMES)) == len(mod.THETA_DEFAULT) == len(mod.THETA_BOUNDS)
    lo, hi = mod.THETA_BOUNDS[:, 0], mod.THETA_BOUNDS[:, 1]
    assert (lo <= mod.THETA_DEFAULT).all() and (mod.THETA_DEFAULT <= hi).all()
    theta = D.default_theta(pid)
    assert len(theta) == D.THETA_SIZE and (theta[:len(mod.THETA_DEFAULT)] == mod.THETA_DEFAULT).all()
    assert D.THETA_NAMES[pid] == mod.THETA_NAMES


def _position(seed, want):
    """A 2-player position from the setup of game `seed`, if its forest fits want(g); else None."""
    g = State(2, None, seed, 0)
    return g if want(g.state) else None


def _set_player(s, q, gifts, leaves, feet=(), dream=0):
    b = E.pl(q)
    s[E.SUPPLY] += s[b + E.L_LEAVES] - leaves
    s[b + E.L_LEAVES] = leaves
    for k in range(5):
        s[E.POOL + k] += s[b + E.L_GIFTS + k] - gifts[k]
        s[b + E.L_GIFTS + k] = gifts[k]
    for i in range(4):
        s[b + E.L_FOOT + i] = feet[i] if i < len(feet) else -1
    s[b + E.L_DREAM] = dream


def _play_turn(pid, s, p, seat, key=7):
    """Let policy pid play seat's turn from s to its end; return the actions."""
    theta = D.default_theta(pid)
    ws = np.zeros(D.WS_SIZE, np.int32)
    acts = np.zeros(N_ACTIONS, np.int32)
    turn = s[E.TURN]
    played = []
    while s[E.PHASE] != PH_TERMINAL and s[E.TURN] == turn:
        n = E.legal_actions(s, p, acts)
        a = D.decide(pid, s, p, theta, D.seat_nets(np.array([pid]))[0], seat, acts, n, np.uint64(key + len(played)), ws)
        assert a in acts[:n]
        played.append(int(a))
        E.apply(s, p, a)
    return played


def _altars(s):
    return [h for h in range(s[E.N_HEX]) if s[E.HEX_TYPE + h] == ALTAR]


def _neighbours(s, h):
    return [j for j in range(s[E.N_HEX]) if s[E.HEX_ADJ + h] & (1 << j)]


@pytest.mark.parametrize("pid", [D.HEURISTIC, D.SEARCH])
def test_takes_the_winning_purchase(pid):
    """Four kinds held, 13 leaves, an Altar next to its Footstep: it steps there and buys the
    Figurine (it would gain a Clover at the Meadow or leaves elsewhere otherwise)."""
    for seed in range(50):
        g = _position(seed, lambda s: len(_altars(s)) >= 1)
        if g is not None:
            break
    s, p = g.state, g.params
    alt = _altars(s)[0]
    start = _neighbours(s, alt)[0]
    _set_player(s, 0, (1, 1, 1, 1, 0), 13, feet=(start,))
    _set_player(s, 1, (1, 0, 0, 0, 0), 3)
    played = _play_turn(pid, s, p, 0)
    assert s[E.OUTCOME] == OUT_WIN and s[E.WINNER] == 0, played
    assert A_BUY + 4 in played


def test_denies_the_hex_an_opponent_needs_to_win():
    """The opponent misses only the Figurine and has exactly its price, 12 leaves, next to the one
    Altar (no gray Footstep; the Secret tiles all taken): our Footstep on the Altar makes it cost
    13, so the heuristic steps there, and the opponent cannot win on its turn."""
    for seed in range(400):
        g = _position(seed, lambda s: len(_altars(s)) == 1 and s[E.HEX_GRAY + _altars(s)[0]] == 0
                      and len(_neighbours(s, _altars(s)[0])) >= 2)
        if g is not None:
            break
    assert g is not None
    s, p = g.state, g.params
    alt = _altars(s)[0]
    n0, n1 = _neighbours(s, alt)[:2]
    _set_player(s, 0, (1, 0, 0, 0, 0), 0, feet=(n0,))
    _set_player(s, 1, (1, 1, 1, 1, 0), 12, feet=(n1,))
    s[E.SLOT_TILE:E.SLOT_TILE + 9] = -1
    assert s[E.CUR] == 0 and s[E.PHASE] == PH_MOVE
    played = _play_turn(D.HEURISTIC, s, p, 0)
    assert played[0] == A_PLACE + alt, played
    _play_turn(D.HEURISTIC, s, p, 1)
    assert s[E.PHASE] != PH_TERMINAL


def test_evaluation_sees_a_win_next_turn():
    """player_value's win_next: missing only the Figurine with 12 leaves next to an Altar, and not
    with 11 (the score falls by the win_next weight and more)."""
    for seed in range(400):
        g = _position(seed, lambda s: len(_altars(s)) == 1 and s[E.HEX_GRAY + _altars(s)[0]] == 0)
        if g is not None:
            break
    s, p = g.state, g.params
    alt = _altars(s)[0]
    _set_player(s, 1, (1, 1, 1, 1, 0), 12, feet=(_neighbours(s, alt)[0],))
    theta = D.default_theta(D.HEURISTIC)
    types = E.hex_types(s)
    v12, reach12, win12 = H.player_value(s, p, theta, 1, types, E.all_feet_packed(s))
    _set_player(s, 1, (1, 1, 1, 1, 0), 11, feet=(_neighbours(s, alt)[0],))
    v11, reach11, win11 = H.player_value(s, p, theta, 1, types, E.all_feet_packed(s))
    assert win12 and reach12 == 1 and not win11 and reach11 == 0
    assert v12 - v11 > theta[H.T_WIN_NEXT]


def test_heuristic_beats_random_by_a_margin():
    """40 deals, seats rotated: the heuristic wins at least 95% (measured: all of 4,000)."""
    from experiments.benevolent_match import match
    m = match("heuristic", "random", 40, seed=3, threads=2)
    assert m.games == 80 and m.wins_a + m.wins_b + m.timeouts == 80
    assert m.wins_a >= 76
    # the by-deal interval of the win rate is never a point, even when every deal is won
    lo, hi = m.deal_ci95
    assert 0 <= lo < hi <= 1 and lo <= m.rate_a <= hi


def test_match_script_bad_input_is_one_line_exit_2_and_threads_come_back(capsys):
    import numba

    from experiments.benevolent_match import main, match
    for argv, needle in ((["--deals", "1"], "--deals 1: at least 2"),
                         (["--a", "oracle"], "unknown policy 'oracle'; allowed: random"),
                         (["--set", "budget"], "--set 'budget': expected name=number")):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.strip().splitlines() == [f"error: {err.strip()[7:]}"] and needle in err
    numba.set_num_threads(1)
    match("random", "random", 4, seed=1, threads=2)
    assert numba.get_num_threads() == 1   # the match ran on 2 and gave the caller's setting back


def test_match_by_deal_interval_is_the_win_rates_with_timeouts():
    """With timed-out games (the heuristic mirror times out a few percent of 2-player games) the
    by-deal interval is a t interval centred on the printed win rate, a timeout a game not won
    (it was the score's, a timeout counting half, centred elsewhere)."""
    from experiments.benevolent_match import match
    m = match("heuristic", "heuristic", 200, seed=3, threads=2)
    assert m.timeouts > 0
    lo, hi = m.deal_ci95
    assert (lo + hi) / 2 == pytest.approx(m.rate_a) and lo < m.rate_a < hi


def test_search_beats_the_heuristic():
    """12 deals, seats rotated, a small budget (12 rollouts a turn): search wins clearly more than it
    loses (measured here: 22 of 24; at the default budget 32, 385 of 400 games)."""
    from experiments.benevolent_match import match, theta_with
    m = match("search", "heuristic", 12, seed=5, threads=2, theta_a=theta_with("search", {"budget": 12}))
    assert m.wins_a > m.wins_b + 4


def test_eta_spends_each_leaf_once():
    """The tempo feature buys the missing kinds at the Altar cheapest first, each paying from the
    leaves the ones before it left: with 8 leaves the Crystal (7) takes 1 turn and leaves 1, so the
    Amber (10) needs 5 turns of gathering (1 + 5), not the 1 + 1 it would seem with all 8 leaves.
    And two more leaves in hand save at most one turn in all (one turn of gathering), where the
    same leaves counted towards every kind saved one turn for each kind bought at the Altar."""
    g = _position(0, lambda s: True)
    s, p = g.state, g.params
    altar_only = 1 << ALTAR
    _set_player(s, 0, (1, 1, 0, 0, 0), 8)
    crystal, amber = 1 << 2, 1 << 3
    assert E.price(s, p, 0, 2, 0) == 7 and E.price(s, p, 0, 3, 0) == 10
    assert H.route_turns(s, p, 0, 2, 8, altar_only, 0, 0) == (1.0, 7)
    assert H.route_turns(s, p, 0, 3, 8, altar_only, 0, 0)[0] == 2.0
    assert H.eta_turns(s, p, 0, crystal | amber, 8, altar_only, 0, 0) == 1.0 + 1.0 + 5.0
    # with 1 leaf: 3 turns of gathering for the Crystal leave 0 over (1 + 6 - 7), 5 more for the
    # Amber; the route's spend is the price less what was gathered
    assert H.route_turns(s, p, 0, 2, 1, altar_only, 0, 0) == (4.0, 7 - 6)
    assert H.eta_turns(s, p, 0, crystal | amber, 1, altar_only, 0, 0) == 4.0 + 6.0
    for miss in range(1, 32):
        etas = [H.eta_turns(s, p, 0, miss, lv, altar_only, 0, 0) for lv in range(0, 30)]
        assert all(0 <= a - b <= 1 for a, b in zip(etas, etas[2:])), (miss, etas)
    # a route that costs no leaves (the Nest for the Feather) keeps them for the next kind
    nest = altar_only | (1 << NEST)
    assert H.route_turns(s, p, 0, 1, 8, nest, 0, 0) == (1.0, 0)
    # the Pond replaces the Altar only when strictly quicker: the Crystal one sleep away ties with
    # the Altar's one turn (8 leaves) and the Altar is kept; two sleeps lose to it
    pond = altar_only | (1 << POND)
    one_sleep, two_sleeps = 1 << (4 * 2), 2 << (4 * 2)
    assert H.route_turns(s, p, 0, 2, 8, pond, one_sleep, 0) == (1.0, 7)
    assert H.route_turns(s, p, 0, 2, 1, pond, one_sleep, 0) == (1.0, 0)   # Altar: 4 turns
    assert H.route_turns(s, p, 0, 2, 8, pond, two_sleeps, 0) == (1.0, 7)


def test_more_starting_leaves_do_not_make_a_seat_lose():
    """4 heuristic players, the last seat dealt 4 or 6 leaves (the others 2) on the same 1,000
    deals: with 6 it wins about as often as with 4 (random players win a little more with more
    leaves). When the tempo feature counted the same leaves towards every gift, the seat with 6
    gathered instead of taking gifts and won 6.9% of these games against 23.3% with 4."""
    from arena.benevolent.batch import simulate
    rate = {}
    for last in (4, 6):
        s = simulate(4, (2, 2, 2, last), policies=("heuristic",) * 4, games=1000, seed=11, threads=2)
        rate[last] = s.seat_wins[3] / s.games
    assert rate[6] > rate[4] - 0.05, rate
