"""Benevolent: the rules data (rules.py), the action numbering (actions.py), the compiled engine
(engine.py), the plain-Python reference engine (reference.py), the Python face (face.py), and the
game object ``GAME`` (simcore/game.py) that the layers above take."""
from ..game import Game
from . import engine as _engine
from .actions import N_ACTIONS as _N_ACTIONS
from .rules import MAX_PLAYERS as _MAX, MIN_PLAYERS as _MIN

GAME = Game(name="benevolent", title="Benevolent", command="benevolent", package=__name__,
            cooperative=False, min_players=_MIN, max_players=_MAX, n_actions=_N_ACTIONS,
            state_size=_engine.S_SIZE, cfg_size=_engine.CFG_SIZE)
