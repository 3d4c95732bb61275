"""Tuned weights written by `boardsim tune GAME` into the game's policy package
(policies/<game>/tuned.json), read by policy `tuned`: the record (theta by name, the seed, the
games and the figures of the run) and its vector, which is handed out only when the run confirmed
it on fresh seeds. One module for every game: a game's file is ``PATHS[game.name]`` (a test may
point it elsewhere) and its weights are named by the game's heuristic (THETA_NAMES, from policies/registry.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simcore.errors import UserError
from simcore.games import GAMES, game as _game

from .registry import modules

# the tuned weights of each game, beside its policies
PATHS = {name: Path(__file__).with_name(name) / "tuned.json" for name in GAMES}


def read_record(path: Path, command: str) -> dict:
    """The record written by the tuner; UserError (one line) naming `command` if there is none."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"no tuned weights at {path}; run `{command}` first")
    return json.loads(path.read_text())


def read_theta(path: Path, names, command: str) -> np.ndarray:
    """The confirmed tuned vector in the order of `names`; UserError if none is installed or the
    record was not confirmed."""
    rec = read_record(path, command)
    if not rec.get("confirmed", False):
        raise UserError(f"{path}: the tuned weights were not confirmed better than the defaults on fresh seeds; "
                        "policy 'tuned' is not available")
    th = rec["theta"]
    missing = [n for n in names if n not in th]
    if missing:
        raise UserError(f"{path}: the tuned record has no weight {missing[0]!r}; run `{command}` again")
    return np.array([float(th[n]) for n in names], dtype=np.float64)


def _command(g) -> str:
    return f"boardsim tune {g.command}"


def tuned_path(game) -> Path:
    """Where `boardsim tune` installs the game's weights (read at call time, so a test can point
    ``PATHS`` elsewhere)."""
    return PATHS[_game(game).name]


def tuned_record(game, path: Path | None = None) -> dict:
    """The tuner's record of the game (UserError if none is installed)."""
    g = _game(game)
    return read_record(tuned_path(g) if path is None else path, _command(g))


def tuned_theta(game, path: Path | None = None) -> np.ndarray:
    """The confirmed tuned weights of the game (its heuristic's THETA_NAMES order); a one-line
    UserError if there are none."""
    g = _game(game)
    names = modules(g).heuristic.THETA_NAMES
    return read_theta(tuned_path(g) if path is None else path, names, _command(g))


def tuned_available(game, path: Path | None = None) -> bool:
    """A confirmed tuned vector of the game is installed."""
    try:
        tuned_theta(game, path)
    except UserError:
        return False
    return True
