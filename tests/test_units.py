"""Work units: counts add, do not depend on the split, and agree with simulate."""
import numpy as np
import pytest

from arena.units import FIELDS, Cell, as_dict, cell_key, check_cell, run_unit, unit_key
from simcore.errors import UserError


@pytest.mark.parametrize("cell", [
    Cell("bethel_woods", 3, spies=2, seed=5),
    Cell("bethel_woods", 2, spies=0, characters=("Nova", "Fenn"), seed=1),
    Cell("benevolent", 3, seed=9),
    Cell("benevolent", 2, leaves=(2, 2), seed=4),
])
def test_split_does_not_matter(cell):
    whole = run_unit(cell, 0, 300)
    parts = run_unit(cell, 0, 37) + run_unit(cell, 37, 200) + run_unit(cell, 237, 63)
    assert np.array_equal(whole, parts)
    assert whole[0] == 300
    n_hist = len(FIELDS[cell.game]) - (14 if cell.game == "bethel_woods" else 10)
    assert whole[-n_hist:].sum() == 300          # every game lands in one length bin


def test_agrees_with_simulate():
    from arena.bethel_woods.batch import simulate
    from arena.benevolent.batch import simulate as bv_simulate
    c = as_dict("bethel_woods", run_unit(Cell("bethel_woods", 3, spies=1, seed=3), 0, 500))
    s = simulate(players=3, spies=1, games=500, seed=3, threads=1)
    assert (c["wins"], c["turns"], c["decisions"]) == (s.wins, s.turns, s.decisions)
    assert c["loss_bag_empty"] + c["loss_four_critical"] + c["loss_six_spies"] + c["wins"] == 500
    assert c["loss_six_spies"] == s.losses["six_spies"]
    v = as_dict("benevolent", run_unit(Cell("benevolent", 4, seed=2), 0, 400))
    t = bv_simulate(players=4, games=400, seed=2, threads=1)
    assert [v[f"seat{q}_wins"] for q in range(4)] == t.seat_wins
    assert v["timeouts"] == t.timeouts and v["turns"] == t.turns


def test_keys_name_what_results_depend_on():
    a = Cell("bethel_woods", 3, spies=2, seed=5)
    assert cell_key(a) == cell_key(Cell("bethel_woods", 3, spies=2, seed=5, label="x"))
    assert cell_key(a) != cell_key(Cell("bethel_woods", 3, spies=2, seed=6))
    assert cell_key(a) != cell_key(Cell("bethel_woods", 3, spies=2, seed=5, theta=(1.0,)))
    assert unit_key(a, 0, 10) != unit_key(a, 10, 10)


def test_bad_cells_are_user_errors():
    with pytest.raises(UserError, match="players 5"):
        check_cell(Cell("bethel_woods", 5))
    with pytest.raises(UserError, match="unknown policy 'smart'"):
        check_cell(Cell("benevolent", 2, policies=("smart",)))
    with pytest.raises(UserError, match="game 'chess'"):
        check_cell(Cell("chess", 2))
