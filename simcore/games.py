"""The table of games: ``GAMES[name]`` -> the game object (simcore/game.py) that each game's
package makes, and ``game(x)``, the lookup by whatever a user or a file names."""
from __future__ import annotations

from .benevolent import GAME as BENEVOLENT
from .bethel_woods import GAME as BETHEL_WOODS
from .errors import UserError
from .game import Game


GAMES = {g.name: g for g in (BETHEL_WOODS, BENEVOLENT)}


def game(x) -> Game:
    """The game object for a Game, its name, its command name or its title (any case); a one-line
    UserError naming the allowed games otherwise."""
    if isinstance(x, Game):
        return x
    t = str(x).strip().lower().replace("-", "_").replace(" ", "_")
    if t in GAMES:
        return GAMES[t]
    raise UserError(f"game {x!r} is not known; allowed: {', '.join(g.command for g in GAMES.values())}")
