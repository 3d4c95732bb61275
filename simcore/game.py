"""The game object: what the layers above the engines know about a game, in one place.

In the spirit of OpenSpiel's ``Game`` and Pgx's ``Env``: one immutable object per game, made in
the game's package (``simcore.bethel_woods.GAME``, ``simcore.benevolent.GAME``) and looked up by
name in ``simcore.games.GAMES``. It says how many players the game takes, how many actions it numbers, the size
of a position and of a setup configuration, whether the players win together, and it hands out
the game's modules (the compiled engine, the Python face, the rules data type) without the caller
naming a module path. Everything above the engines asks it rather than testing a game's name.

The layers above keep what is theirs in tables keyed by the game object's name: the policies by
id (``policies.POLICIES``), the record fields of a unit of games (``arena.units.FIELDS``). A lower
layer never learns of a higher one.

``simcore.games.game(x)`` turns what a user or a file names (``bethel_woods``, ``bethel-woods``, ``Bethel
Woods``, a game object) into the game object, or a one-line UserError naming the allowed games.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from .errors import UserError


@dataclass(frozen=True)
class Game:
    """One game's facts. Modules are imported when first asked for (importing simcore stays cheap)."""
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

    def _module(self, leaf: str) -> ModuleType:
        return importlib.import_module(f"{self.package}.{leaf}")

    @property
    def engine(self) -> ModuleType:
        """The compiled rules (the engine API of docs/engine_api.md)."""
        return self._module("engine")

    @property
    def face(self) -> ModuleType:
        """The Python-facing helpers: setup checks and configs, to_dict/from_dict, a game driven from Python."""
        return self._module("face")

    @property
    def rules_module(self) -> ModuleType:
        return self._module("rules")

    @property
    def actions(self) -> ModuleType:
        """The action numbering and its names."""
        return self._module("actions")

    @property
    def reference(self) -> ModuleType:
        """The plain-Python reference engine written from the rulebook."""
        return self._module("reference")

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
