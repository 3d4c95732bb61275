"""The game object: what the layers above the engines know about a game, in one place.

In the spirit of OpenSpiel's ``Game`` and Pgx's ``Env``: one immutable object per game, made in
the game's package (``simcore.bethel_woods.GAME``, ``simcore.benevolent.GAME``) and looked up by
name in ``simcore.games.GAMES``. It says how many players the game takes, how many actions it numbers, the size
of a position and of a setup configuration, whether the players win together, and it hands out
the game's modules (the compiled engine, the Python face, the rules data type) without the caller
naming a module path. Everything above the engines asks it rather than testing a game's name.

The modules come from the game's package through ``GameModules``: one small loader per module,
written in the package's ``__init__.py`` as an explicit import (``from . import face``), called
when a module is first asked for (``Game.face``), so importing simcore imports no face and no
reference engine. No module name is ever made from a string: a reader (or an IDE) follows
``GAME.face`` to the loader and the loader to the module.

The layers above keep what is theirs in tables keyed by the game object's name, each filled by
explicit imports in that layer: the policies by id (``policies.POLICIES``) and the game's policy
modules (``policies.registry.MODULES``), the game's arena module (``arena.units.ARENAS``) and the
record fields of a unit of games (``arena.units.FIELDS``). A lower layer never learns of a higher
one. A third game fills one entry in each (docs/engine_api.md, "How a third game plugs in").

``simcore.games.game(x)`` turns what a user or a file names (``bethel_woods``, ``bethel-woods``, ``Bethel
Woods``, a game object) into the game object, or a one-line UserError naming the allowed games.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from .errors import UserError


@dataclass(frozen=True)
class GameModules:
    """A game's modules, each by a loader its package defines (``def _face(): from . import face;
    return face``): called when the module is first asked for, so a package's heavy modules (the
    reference engine, the face) are imported only by who uses them."""
    engine: Callable[[], ModuleType]      # the compiled rules
    face: Callable[[], ModuleType]        # the Python face
    rules: Callable[[], ModuleType]       # the rules data type (Rules, rules_from_mapping, load_rules)
    actions: Callable[[], ModuleType]     # the action numbering and its names
    reference: Callable[[], ModuleType]   # the plain-Python reference engine


@dataclass(frozen=True)
class Game:
    """One game's facts. Modules are imported when first asked for, by the loaders its package
    hands over (``modules``; importing simcore stays cheap)."""
    name: str            # the name in tables, study files and result keys: "bethel_woods"
    title: str           # as a designer writes it: "Bethel Woods"
    command: str         # the CLI group: "bethel-woods"
    package: str         # the engine package: "simcore.bethel_woods"
    cooperative: bool    # True: the players win or lose together
    min_players: int
    max_players: int
    n_actions: int       # decision actions, numbered 0..n_actions-1 (docs/<game>.md)
    state_size: int      # int32 entries of a position
    cfg_size: int        # int64 entries of a setup configuration
    modules: GameModules = field(repr=False, compare=False)   # the package's loaders of its modules

    @property
    def engine(self) -> ModuleType:
        """The compiled rules (the engine API of docs/engine_api.md)."""
        return self.modules.engine()

    @property
    def face(self) -> ModuleType:
        """The Python-facing helpers: setup checks and configs, to_dict/from_dict, a game driven from Python."""
        return self.modules.face()

    @property
    def rules_module(self) -> ModuleType:
        return self.modules.rules()

    @property
    def actions(self) -> ModuleType:
        """The action numbering and its names."""
        return self.modules.actions()

    @property
    def reference(self) -> ModuleType:
        """The plain-Python reference engine written from the rulebook."""
        return self.modules.reference()

    def default_rules(self):
        """The rules data with every assumption at its default."""
        return self.rules_module.Rules()

    def rules_from_mapping(self, d: dict, source: str = "mapping"):
        """Rules data from a parsed rules file or a stored recipe (UserError naming a bad value)."""
        return self.rules_module.rules_from_mapping(d, source=source)

    def load_rules(self, path=None):
        """Rules data from a TOML rules file (None: the defaults)."""
        return self.rules_module.load_rules(path)

    def new_state(self, players: int, *args, **kwargs):
        """A game in progress, set up and driven from Python (OpenSpiel's ``new_initial_state``):
        the game's ``face.State`` (its other arguments are the game's own setup: Bethel Woods'
        spies and characters, Benevolent's leaves; then seed, game_index, rules)."""
        return self.face.State(players, *args, **kwargs)

    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            raise UserError(f"players {n} is not allowed; {self.title} takes {self.min_players} to {self.max_players}")

    def __str__(self) -> str:
        return self.name
