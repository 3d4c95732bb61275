"""Benevolent: the rules data (rules.py), the action numbering (actions.py), the compiled engine
(engine.py), the plain-Python reference engine (reference.py), the Python face (face.py), and the
game object ``GAME`` (simcore/game.py) that the layers above take."""
from ..game import Game, GameModules
from . import engine as _engine_module
from .actions import N_ACTIONS as _N_ACTIONS
from .rules import MAX_PLAYERS as _MAX, MIN_PLAYERS as _MIN


# the game's modules, handed to the game object (simcore/game.py, GameModules): each an explicit
# import, made when the module is first asked for (GAME.face, GAME.reference, ...)
def _engine():
    from . import engine
    return engine


def _face():
    from . import face
    return face


def _rules():
    from . import rules
    return rules


def _actions():
    from . import actions
    return actions


def _reference():
    from . import reference
    return reference


GAME = Game(name="benevolent", title="Benevolent", command="benevolent", package=__name__,
            cooperative=False, min_players=_MIN, max_players=_MAX, n_actions=_N_ACTIONS,
            state_size=_engine_module.S_SIZE, cfg_size=_engine_module.CFG_SIZE,
            modules=GameModules(engine=_engine, face=_face, rules=_rules, actions=_actions, reference=_reference))
