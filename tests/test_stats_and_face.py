"""The Wilson interval, and the Python faces' checked apply."""
import pytest

from experiments.stats import wilson
from simcore.benevolent.face import State as BVState
from simcore.bethel_woods.face import State as BWState


def test_wilson_known_values():
    # Wilson (1927) score interval at z = 1.96; reference values computed by hand
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson(500_000, 1_000_000)
    assert hi - lo == pytest.approx(2 * 1.959964 * 0.0005, rel=1e-3)


@pytest.mark.parametrize("game", [BWState(3, 1, seed=2), BVState(3, seed=2)])
def test_illegal_action_is_named_and_changes_nothing(game):
    before = game.to_dict()
    legal = game.legal_actions()
    illegal = next(a for a in range(150) if a not in legal)
    with pytest.raises(ValueError, match="illegal") as e:
        game.apply(illegal)
    from simcore.bethel_woods.actions import ACTION_NAMES as BW
    from simcore.benevolent.actions import ACTION_NAMES as BV
    names = BW if isinstance(game, BWState) else BV
    assert repr(names[illegal]) in str(e.value)
    assert game.to_dict() == before
    game.apply(legal[0])
    assert game.to_dict() != before


def test_unknown_action_name():
    with pytest.raises(ValueError, match="unknown action name"):
        BWState(2, 0, seed=1).apply("dance")


def test_pct_never_hides_a_small_bound():
    from experiments.stats import pct
    assert pct(0) == "0%" and pct(0.5) == "50.000%" and pct(0.001234) == "0.123%"
    lo, hi = wilson(0, 1_000_000)
    assert pct(hi) == "0.000384%"
