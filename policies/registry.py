"""The policies' registry of games: ``MODULES[game name]`` -> the game's player modules (its
heuristic, learned and expert players), and ``modules(game)``, the lookup by a game object or
anything ``simcore.games.game`` takes.

Filled by explicit imports, one small loader per module below, each called when its module is
first asked for (``modules(game).learned``): importing policies compiles nothing and imports no
player. No module name is made from a string, so a reader (or an IDE) follows every call to its
module. A third game adds one ``PolicyModules`` line here.

The game's plug point, ``policies/<game>/decide.py``, is not in this table: it imports the
policies' names (policies/__init__.py) and the tuned weights (policies/tuned.py), which read this
table, so it stands above it. Its one caller, the game's arena module, imports it by name, and the
layers above reach it there (``arena.units.arena_module(game)``: ``THETA_SIZE``, ``default_theta``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from simcore.benevolent import GAME as _BV
from simcore.bethel_woods import GAME as _BW
from simcore.games import game as _game


@dataclass(frozen=True)
class PolicyModules:
    """One game's player modules, each by its loader."""
    load_heuristic: Callable[[], ModuleType]
    load_learned: Callable[[], ModuleType]
    load_expert: Callable[[], ModuleType]

    @property
    def heuristic(self) -> ModuleType:
        """The heuristic player (its weights' names, THETA_NAMES, and defaults)."""
        return self.load_heuristic()

    @property
    def learned(self) -> ModuleType:
        """The learned player (its model: learned_available, model_record, learned_theta, the skill dial)."""
        return self.load_learned()

    @property
    def expert(self) -> ModuleType:
        """The expert player (expert_theta; BUDGET_DEFAULT where its rollouts are fixed)."""
        return self.load_expert()


def _bw_heuristic():
    from .bethel_woods import heuristic
    return heuristic


def _bw_learned():
    from .bethel_woods import learned
    return learned


def _bw_expert():
    from .bethel_woods import expert
    return expert


def _bv_heuristic():
    from .benevolent import heuristic
    return heuristic


def _bv_learned():
    from .benevolent import learned
    return learned


def _bv_expert():
    from .benevolent import expert
    return expert


MODULES = {
    _BW.name: PolicyModules(load_heuristic=_bw_heuristic, load_learned=_bw_learned, load_expert=_bw_expert),
    _BV.name: PolicyModules(load_heuristic=_bv_heuristic, load_learned=_bv_learned, load_expert=_bv_expert),
}


def modules(game) -> PolicyModules:
    """The game's player modules (a game object, its name, command or title; UserError otherwise)."""
    return MODULES[_game(game).name]
