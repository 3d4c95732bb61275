"""The one training loop (experiments.train.train) over each game's trainer, and the one tuner
(experiments.tune.tune) over each game's problem."""
import policies.benevolent.learned as BV_L
import policies.bethel_woods.learned as BW_L
from experiments import train as T
from simcore.games import GAMES

LEARNED = {"bethel_woods": BW_L, "benevolent": BV_L}


def test_every_game_has_a_trainer_whose_parts_are_its_own():
    """Each game's trainer is for that game, installs into that game's learned model path, and
    carries the feature names its learned player reads (a trainer wired to the other game's
    modules fails here)."""
    assert set(T._TRAINER_MAKERS) == set(GAMES)
    for name, g in GAMES.items():
        tr = T.trainer(name)
        assert tr.game is g
        assert tr.model_path.parent.name == name and tr.model_path.name == "learned.json"
        assert tr.model_path == LEARNED[name].MODEL_PATH
        assert list(tr.features) == list(LEARNED[name].FEATURE_NAMES)
        assert tr.default_players and tr.default_games > 0 and 0 < tr.default_label_prob <= 1
        assert tr.has_spies == (name == "bethel_woods")
        setups = tr.make_setups([2, 3], [0, 1] if tr.has_spies else None)
        assert setups == ([(2, 0), (2, 1), (3, 0), (3, 1)] if tr.has_spies else [2, 3])


def test_train_takes_command_names_and_refuses_an_unknown_game():
    import pytest

    from simcore.errors import UserError
    assert T.trainer("bethel-woods").game is T.trainer("bethel_woods").game
    with pytest.raises(UserError):
        T.trainer("chess")


def test_every_game_has_a_tuning_problem_over_its_own_heuristic():
    """Each game's tuning problem is wired to that game's heuristic weights (the defaults' wins
    are the reference a candidate is scored against) and names the game's setup in its command."""
    from experiments import tune as U
    assert set(U._PROBLEMS) == set(GAMES)
    for name in GAMES:
        H = U.heuristic_module(name)
        assert len(H.THETA_NAMES) == len(H.THETA_DEFAULT) == len(H.THETA_BOUNDS)
        pr = U._PROBLEMS[name](2, 1 if name == "bethel_woods" else 0, 20, 40, 1)
        assert pr.setup_args.startswith("--players 2")
        assert ("--spies 1" in pr.setup_args) == (name == "bethel_woods")
        assert pr.unit == (20 if name == "bethel_woods" else 10)   # games, or deals of 2 players


def test_every_game_has_a_sensitivity_measure_whose_cells_are_its_own():
    """Each game's sensitivity measure builds the defaults' arm of that game at each of its
    setups, and its outcome classes are those the game's paired games fall in (won or lost; a
    seat of the most players or a timeout)."""
    from arena.units import Cell
    from experiments.sensitivity import measure
    for name, g in GAMES.items():
        m = measure(name)
        assert m.classes == (2 if g.cooperative else 1 + g.max_players)
        assert m.rates == g.cooperative
        for setup in m.setups:
            c = m.base_cell(Cell, name, setup, "heuristic", 5)
            assert c.game == name and c.seed == 5 and c.policies == ("heuristic",)
            assert (c.spies == setup) if g.cooperative else (c.players == setup)


def test_every_game_has_a_skill_measure_whose_setups_are_its_own():
    """The skill study's one driver (run_skill) reads each game's measure: its setups are cells of
    that game at the study's player counts, and its outcome classes are the game's."""
    from experiments.study.skill_axis import skill_measure
    from experiments.study.spec import study_from_dict
    for name, g in GAMES.items():
        m = skill_measure(name)
        assert m.levels == (2 if g.cooperative else 1 + g.max_players)
        assert m.mixed == (not g.cooperative)
        st = study_from_dict({"kind": "skill", "game": name, "players": [2, 3], "games": 4, "seed": 9,
                              "rungs": ["heuristic", "learned"], "policy": ["learned"]}, "t")
        cells = [c for c, _ in m.setups(st)]
        assert cells and all(c.game == name and c.seed == 9 for c in cells)
        assert sorted({c.players for c in cells}) == [2, 3]
