"""The skill dial (policies.dial_theta): the learned player choosing among its kept plans by a
softmax over their values at temperature T. At 0 it is the learned player, game for game; it
draws only from the policy's own stream; and it is monotone in strength: a higher temperature
never plays better (measured on fixed seeds, each step a clear drop)."""
import numpy as np
import pytest

from arena.units import Cell, as_dict, run_unit
from policies import dial_theta, parse_rung
from simcore.errors import UserError

TEMPS = (0.0, 0.01, 0.03, 0.1)
# Benevolent's model of 2026-12-06 barely moves at T = 0.01 (its kept plans' values lie further
# apart: 57% against 58% on 300 games; docs/studies.md, "The skill dial"): its steps are 0.03 apart and up
BV_TEMPS = (0.0, 0.03, 0.1, 0.3)


def _bw(t=None, policy_seed=None, n=200):
    th = None if t is None else dial_theta("bethel_woods", t)
    return run_unit(Cell("bethel_woods", 3, spies=0, policies=("learned",), theta=th, seed=3,
                         policy_seed=policy_seed), 0, n)


def _bv_share(t, n=200):
    """The dialled player's share of the decided games in seat 1 against the learned player."""
    c = as_dict("benevolent", run_unit(Cell("benevolent", 2, policies=("learned", "learned"),
                                            seat_thetas=(dial_theta("benevolent", t), None), seed=3), 0, n))
    return c["seat0_wins"] / (c["games"] - c["timeouts"])


def test_at_zero_the_dial_is_the_learned_player_game_for_game():
    assert np.array_equal(_bw(0.0), _bw(None))
    base = run_unit(Cell("benevolent", 2, policies=("learned",), seed=3), 0, 60)
    dial = run_unit(Cell("benevolent", 2, policies=("learned",), theta=dial_theta("benevolent", 0.0), seed=3), 0, 60)
    assert np.array_equal(base, dial)


def test_the_dial_draws_from_the_policy_stream_only():
    """The same chance seed with another policy seed: the dialled player's games change (its draws
    are the policy's), the learned player's do not (it draws nothing); the same seeds repeat."""
    assert np.array_equal(_bw(0.03, policy_seed=11), _bw(0.03, policy_seed=11))
    assert not np.array_equal(_bw(0.03, policy_seed=11), _bw(0.03, policy_seed=12))
    assert np.array_equal(_bw(0.0, policy_seed=11), _bw(0.0, policy_seed=12))


def test_the_dial_is_monotone_in_strength_bethel_woods():
    rates = [as_dict("bethel_woods", _bw(t))["wins"] / 200 for t in TEMPS]
    assert all(a > b for a, b in zip(rates, rates[1:])), rates
    assert rates[0] - rates[-1] > 0.3      # from the learned player's strength to far below it


def test_the_dial_is_monotone_in_strength_benevolent():
    shares = [_bv_share(t) for t in BV_TEMPS]
    assert all(a > b for a, b in zip(shares, shares[1:])), shares
    assert shares[0] > 0.5 > shares[-1] + 0.2   # seat 1's edge turned into a clear loss


@pytest.mark.parametrize("rung, want", [("learned@0.03", ("learned", 0.03)), ("Learned@0", ("learned", 0.0)),
                                        ("expert", ("expert", None))])
def test_rungs_name_the_dial(rung, want):
    assert parse_rung(rung, "bethel_woods") == want


@pytest.mark.parametrize("rung", ["heuristic@0.1", "learned@-1", "learned@x", "learned@inf"])
def test_a_bad_dial_rung_is_one_line(rung):
    with pytest.raises(UserError) as e:
        parse_rung(rung, "benevolent")
    assert "learned@T" in str(e.value) and "\n" not in str(e.value)
