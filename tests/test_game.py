"""The game object (simcore/game.py): one per game, its facts true of the engine, lookups by any
name a user types, the layers above naming no game by string, and every layer's table of games
filled by explicit imports."""
import ast
import pathlib
import re

import numpy as np
import pytest

from simcore.errors import UserError
from simcore.game import Game
from simcore.games import GAMES, game

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_each_game_package_makes_the_object_the_registry_holds():
    from simcore.benevolent import GAME as BV
    from simcore.bethel_woods import GAME as BW
    assert dict(GAMES) == {"bethel_woods": BW, "benevolent": BV}
    assert BW.cooperative and not BV.cooperative


@pytest.mark.parametrize("name", ["bethel_woods", "benevolent"])
def test_facts_are_the_engines(name):
    g = GAMES[name]
    E = g.engine
    assert g.state_size == E.S_SIZE and g.cfg_size == E.CFG_SIZE
    assert g.n_actions == g.actions.N_ACTIONS == len(g.actions.ACTION_NAMES)
    assert (g.min_players, g.max_players) == (2, 4)
    assert g.face.MAX_PLAYERS == g.max_players
    assert type(g.default_rules()) is g.rules_module.Rules
    # the rules data survives its mapping (what a results store keeps) through the game object
    r = g.default_rules()
    assert np.array_equal(g.rules_from_mapping(r.to_dict()).params, r.params)
    for n in (g.min_players, g.max_players):
        g.check_players(n)
    with pytest.raises(UserError, match=f"players 5 is not allowed; {g.title} takes 2 to 4"):
        g.check_players(5)


@pytest.mark.parametrize("typed,name", [("bethel_woods", "bethel_woods"), ("bethel-woods", "bethel_woods"),
                                        ("Bethel Woods", "bethel_woods"), (" Benevolent ", "benevolent")])
def test_lookup_by_what_a_user_types(typed, name):
    assert game(typed) is GAMES[name]
    assert game(GAMES[name]) is GAMES[name]


@pytest.mark.parametrize("name", ["bethel_woods", "benevolent"])
def test_new_state_is_the_games_face_state_at_its_setup(name):
    """The game object makes a game in progress (its face's State, the position at setup), the same
    as the face makes from the same seed; a game of another player count is another position."""
    g = GAMES[name]
    st = g.new_state(3, seed=4)
    assert isinstance(st, g.face.State) and st.state.shape == (g.state_size,)
    assert np.array_equal(st.state, g.face.State(3, seed=4).state)
    assert not np.array_equal(st.state, g.new_state(2, seed=4).state)


def test_unknown_game_is_a_one_line_error_naming_the_allowed():
    with pytest.raises(UserError) as e:
        game("chess")
    assert str(e.value) == "game 'chess' is not known; allowed: bethel-woods, benevolent"
    assert isinstance(GAMES["benevolent"], Game) and "chess" not in GAMES


def test_unit_fields_and_their_reducers_come_from_each_games_arena():
    from arena.units import FIELDS, Cell, count_problem, run_unit
    assert set(FIELDS) == set(GAMES)
    for name, cell in (("bethel_woods", Cell("bethel_woods", 3, spies=1, seed=4)),
                       ("benevolent", Cell("benevolent", 3, seed=4))):
        c = run_unit(cell, 0, 40)
        d = dict(zip(FIELDS[name], c.tolist()))
        assert d["games"] == 40 and count_problem(name, c) is None
        bad = c.copy()
        bad[FIELDS[name].index("turns_sq")] = 0
        assert count_problem(GAMES[name], bad) is not None


def _game_name_literals(path):
    """String constants in code (docstrings left out) that are a game's name or command."""
    names = {g.name for g in GAMES.values()} | {g.command for g in GAMES.values()}
    tree = ast.parse(path.read_text())
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    return [(rel, n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names and id(n) not in docs]


@pytest.mark.parametrize("layer", ["policies", "arena", "experiments", "benchmarks"])
def test_layers_above_the_engines_name_no_game_by_string(layer):
    found = [hit for f in sorted((ROOT / layer).rglob("*.py")) for hit in _game_name_literals(f)]
    assert found == []


def test_the_check_finds_a_game_named_by_string(tmp_path):
    f = tmp_path / "probe.py"
    f.write_text('"""doc naming bethel_woods is fine"""\nX = {"benevolent": 1}\ndef g():\n    return "bethel-woods"\n')
    assert [h[2] for h in _game_name_literals(f)] == ["benevolent", "bethel-woods"]


# -- no hidden dispatch: every layer's table of games is filled by explicit imports (issue 44)

DYNAMIC_IMPORT = re.compile(r"\bimportlib\b|\bimport_module\b|\b__import__\b")


def _dynamic_imports(path):
    """(file, line, text) of each line of a source that names importlib, import_module or __import__."""
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    return [(rel, i, line.strip()) for i, line in enumerate(path.read_text().splitlines(), 1) if DYNAMIC_IMPORT.search(line)]


@pytest.mark.parametrize("layer", ["simcore", "policies", "arena", "experiments", "boardsim"])
def test_no_layer_imports_a_module_by_a_name_made_at_run_time(layer):
    """Modules come from explicit imports (a game's loaders, policies.registry, arena.units.ARENAS),
    never from importlib.import_module or __import__ on a name built from a game's name."""
    found = [hit for f in sorted((ROOT / layer).rglob("*.py")) for hit in _dynamic_imports(f)]
    assert found == []


def test_the_check_finds_a_dynamic_import(tmp_path):
    f = tmp_path / "probe.py"
    f.write_text('import json\ndef m(g):\n    import importlib\n    return importlib.import_module(f"policies.{g}.learned")\n'
                 'x = __import__("os")\n')
    assert [h[1] for h in _dynamic_imports(f)] == [3, 4, 5]


@pytest.mark.parametrize("name", ["bethel_woods", "benevolent"])
def test_every_registry_holds_every_game_and_hands_out_its_own_modules(name):
    """Each layer's table of games (the game object's loaders, policies.registry.MODULES,
    arena.units.ARENAS, the tables of names keyed by game) has an entry for every game of
    simcore.games.GAMES, and the entry is that game's."""
    import policies
    from arena.units import ARENAS, FIELDS, arena_module
    from policies.registry import MODULES, modules
    from policies.tuned import PATHS
    g = GAMES[name]
    for table in (MODULES, ARENAS, FIELDS, PATHS, policies.POLICIES, policies.NOT_PLAYERS, policies.STUDY_PLAYER,
                  policies.BEST_PLAYER):
        assert set(table) == set(GAMES)
    for attr, leaf in (("engine", "engine"), ("face", "face"), ("rules_module", "rules"), ("actions", "actions"),
                       ("reference", "reference")):
        assert getattr(g, attr).__name__ == f"simcore.{name}.{leaf}"
    for leaf in ("heuristic", "learned", "expert"):
        assert getattr(modules(g), leaf).__name__ == f"policies.{name}.{leaf}"
        assert getattr(modules(g.command), leaf) is getattr(MODULES[name], leaf)
    assert modules(g).learned.GAME is g
    assert arena_module(g) is ARENAS[name] and ARENAS[name].__name__ == f"arena.{name}.batch" and ARENAS[name].GAME is g


# -- no module reaches into another's private names (issue 44, part 5)

def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(root, dotted):
    p = root.joinpath(*dotted.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _private_uses(path, root=ROOT):
    """(file, line, use) of each use in a source of another module's underscore name: `from M import
    _x` (relative or not) and `M._x` (or `M.sub._x`) where M is a module of the project the file
    imported. Dunder names are public; a module's own `_x` is its business."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    package = path.relative_to(root).parts[:-1] if path.is_relative_to(root) else ()
    modules, hits = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name.split(".")[0] for a in node.names if _is_module(root, a.name)}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]) \
                if node.level else node.module or ""
            for a in node.names:
                if _private(a.name):
                    hits.append((rel, node.lineno, f"from {'.' * node.level}{node.module or ''} import {a.name}"))
                elif _is_module(root, f"{base}.{a.name}" if base else a.name):
                    modules.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, v = [node.attr], node.value
            while isinstance(v, ast.Attribute):
                chain.append(v.attr)
                v = v.value
            if isinstance(v, ast.Name) and v.id in modules:
                hits.append((rel, node.lineno, ".".join([v.id, *reversed(chain)])))
    return hits


@pytest.mark.parametrize("layer", ["simcore", "policies", "arena", "experiments", "boardsim", "benchmarks"])
def test_no_module_imports_another_modules_private_names(layer):
    """A name with a leading underscore is its module's own: another module that needs it needs a
    public name (the studies' shared helpers in experiments/study/common.py, Bethel Woods'
    heuristic's `plan_turn` and `pay_rule` the search, learned and expert players call)."""
    found = [hit for f in sorted((ROOT / layer).rglob("*.py")) for hit in _private_uses(f)]
    assert found == []


def test_the_check_finds_a_private_name(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("def _own():\n    return 1\n")
    f = pkg / "probe.py"
    f.write_text("import json\nimport pkg.helpers as H\nfrom .helpers import _own\nfrom pkg import helpers\n"
                 "def _mine():\n    return _own() + H._own() + helpers._own() + json.__name__.count('_')\n"
                 "x = json._default_encoder\ny = _mine()\n")
    assert sorted(_private_uses(f, tmp_path)) == [("pkg/probe.py", 3, "from .helpers import _own"),
                                                  ("pkg/probe.py", 6, "H._own"), ("pkg/probe.py", 6, "helpers._own")]
