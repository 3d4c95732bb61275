"""Work units: counts add, do not depend on the split, and agree with simulate."""
import dataclasses

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


def test_budget_and_seat_thetas_enter_the_key_only_when_set():
    from arena.units import cell_dict, cell_from_recipe, cell_recipe
    a = Cell("bethel_woods", 2, spies=1, seed=5, policies=("search",))
    assert not {"budget", "seat_thetas"} & set(cell_dict(a))   # the keys results stores hold are unchanged
    b = Cell("bethel_woods", 2, spies=1, seed=5, policies=("search",), budget=2)
    assert cell_dict(b)["budget"] == 2 and cell_key(b) != cell_key(a)
    h = Cell("benevolent", 2, policies=("heuristic",), seed=5)
    c = Cell("benevolent", 2, policies=("heuristic",), seed=5, seat_thetas=((0.5, 0.25), None))
    assert cell_key(c) != cell_key(h)
    assert cell_key(c) != cell_key(Cell("benevolent", 2, policies=("heuristic",), seed=5, seat_thetas=(None, (0.5, 0.25))))
    for x in (b, c):
        assert cell_from_recipe(cell_recipe(x)) == x
    with pytest.raises(UserError, match="budget 3: Benevolent"):
        check_cell(Cell("benevolent", 2, budget=3))
    with pytest.raises(UserError, match="budget is for policies"):
        check_cell(Cell("bethel_woods", 2, budget=3))
    with pytest.raises(UserError, match="theta of seat 3"):
        check_cell(Cell("benevolent", 2, seat_thetas=(None, None, (1.0,))))


def test_a_network_is_the_cells_own_array_entering_the_key_only_when_set():
    """Cell.net: the network array every learned and expert seat reads (None: the installed
    model's), apart from theta. The installed model's array given explicitly plays the same games
    under another key; no network (zeros) plays the planner's own choice, other games; a seat
    that reads no network gets a row of zeros, and a heuristic cell plays the same games with or
    without one; an array longer than the game's is the one-line error."""
    from arena.units import cell_dict, cell_from_recipe, cell_recipe
    from policies.benevolent.decide import NET_SIZE as BV_NET, seat_nets as bv_seat_nets
    from policies.bethel_woods.decide import NET_SIZE, seat_nets
    from policies.bethel_woods.learned import learned_net
    from policies.value_model import no_net
    base = Cell("bethel_woods", 2, spies=1, seed=5, policies=("learned",))
    installed = Cell("bethel_woods", 2, spies=1, seed=5, policies=("learned",), net=tuple(learned_net()))
    none = Cell("bethel_woods", 2, spies=1, seed=5, policies=("learned",), net=tuple(no_net(NET_SIZE)))
    assert "net" not in cell_dict(base) and cell_key(installed) != cell_key(base) != cell_key(none)
    assert cell_from_recipe(cell_recipe(installed)) == installed
    assert np.array_equal(_records(installed, 12), _records(base, 12))
    assert not np.array_equal(_records(none, 12), _records(base, 12))
    nets = seat_nets(np.array([5, 1, 5, 0]), no_net(NET_SIZE) + 1.0)   # learned, heuristic, learned, random
    assert nets.shape == (4, NET_SIZE) and nets[[0, 2]].all() and not nets[[1, 3]].any()
    assert bv_seat_nets(np.array([1, 1, 0, 0])).shape == (4, 1)      # no seat reads one: no model read
    heur = Cell("benevolent", 2, policies=("heuristic",), seed=5)
    assert np.array_equal(_records(heur, 6), _records(dataclasses.replace(heur, net=(1.0,) * BV_NET), 6))
    with pytest.raises(UserError, match=f"a network of {NET_SIZE + 1} floats; allowed at most {NET_SIZE}"):
        check_cell(dataclasses.replace(base, net=(0.0,) * (NET_SIZE + 1)))


def test_the_engine_hash_covers_the_installed_models_and_weights(tmp_path, monkeypatch):
    """A results store keeps apart (refuses, as another engine) what was played with another
    installed model or tuned weights: the engine hash changes with them; the digest reads the
    INSTALLED files by name and content and nothing else."""
    import arena.units as U
    assert U.installed_digest(tmp_path) == ""
    (tmp_path / "g").mkdir()
    model = tmp_path / "g" / "learned.json"
    model.write_text("a")
    one = U.installed_digest(tmp_path)
    model.write_text("b")
    two = U.installed_digest(tmp_path)
    assert "" != one != two
    (tmp_path / "g" / "notes.json").write_text("x")
    assert U.installed_digest(tmp_path) == two
    (tmp_path / "g" / "tuned.json").write_text("t")
    assert U.installed_digest(tmp_path) != two
    assert U.installed_digest() != ""   # the package ships both games' models
    base = U.engine_hash()
    U.engine_hash.cache_clear()
    try:
        monkeypatch.setattr(U, "installed_digest", lambda root=None: "another model")
        assert U.engine_hash() != base
    finally:
        U.engine_hash.cache_clear()
        monkeypatch.undo()
    assert U.engine_hash() == base


def _records(cell, games):
    from arena.units import unit_records
    return np.concatenate([r.copy() for r in unit_records(cell, 0, games)])


def test_simulate_plays_the_cell_with_its_budget_and_seat_thetas():
    """simulate is a cell played by arena.units.play_records: the same records as the cell's
    units, the budget and each seat's vector taking effect."""
    from arena.bethel_woods.batch import R_DECISIONS, simulate
    from arena.benevolent.batch import simulate as bv_simulate
    from policies.benevolent.decide import THETA_SIZE
    s = simulate(2, 1, policy="search", budget=1, games=3, seed=5, threads=1, keep_records=True)
    one = _records(Cell("bethel_woods", 2, spies=1, seed=5, policies=("search",), budget=1), 3)
    assert np.array_equal(s.records["decisions"].to_numpy(), one[:, R_DECISIONS])
    assert s.records["turns"].sum() == s.turns
    weak = tuple(np.linspace(-1.0, 1.0, THETA_SIZE))
    t = bv_simulate(2, None, games=20, seed=4, threads=1, policies=["heuristic"] * 2, thetas=[weak, None],
                    keep_records=True)
    cell = Cell("benevolent", 2, policies=("heuristic",), seed=4, seat_thetas=(weak, None))
    assert np.array_equal(t.records["winner"].to_numpy(), _records(cell, 20)[:, 0])
    assert np.allclose(t.thetas[0], weak)
    plain = _records(Cell("benevolent", 2, policies=("heuristic",), seed=4), 20)[:, 0]
    assert not np.array_equal(plain, t.records["winner"].to_numpy())   # the seat's vector was played


def test_only_the_cell_module_calls_the_compiled_batch_loop():
    """One function plays batches of games for every caller: arena.cell.play_records (reached
    through arena.units.play_records, or by a game's own simulate, below the units' registry).
    Nothing else in the package calls a game's play_chunk."""
    import ast
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    callers = []
    for layer in ("simcore", "policies", "arena", "experiments", "benchmarks", "boardsim"):
        for f in (root / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
                    if name == "play_chunk":
                        callers.append(str(f.relative_to(root)))
    assert callers == ["arena/cell.py"]
