"""`--model PATH`: play the learned and expert players with a model file of the user's (one that
`boardsim train --model` or `--no-install` wrote) instead of the installed one."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from simcore.errors import UserError

MODEL_POLICIES = ("learned", "expert")

ModelFiles = Annotated[Optional[list[Path]], typer.Option(
    "--model", metavar="PATH", help="A model file (from `boardsim train --model PATH` or `--no-install`) for the learned and "
                    "expert players of its game instead of the installed one, in every study that plays them; "
                    "repeat for the other game. Its sha256 is named on the first screen and in run.json.")]

ModelFile = Annotated[Optional[Path], typer.Option(
    "--model", help="A model file (from `boardsim train --model PATH` or `--no-install`) for the learned and "
                    "expert players instead of the installed one; its sha256 is printed with the results.")]


def model_net(game: str, path: Optional[Path], names) -> tuple[np.ndarray | None, str | None]:
    """(the model's network array, which the learned and expert players among `names` play; the
    model's label: "model <first 8 digits of its sha256>, trained <date>"); (None, None) without
    --model. The file is read and checked first: a damaged one is a one-line UserError naming it;
    --model with no learned or expert player is refused."""
    if path is None:
        return None, None
    used = [n for n in dict.fromkeys(names) if n in MODEL_POLICIES]
    if not used:
        raise UserError(f"--model {str(path)!r} is for the learned and expert players only; this run plays "
                        f"{', '.join(dict.fromkeys(names))}: leave --model out")
    from policies.registry import modules
    from policies.value_model import model_label
    learned = modules(game).learned
    return learned.learned_net(learned.model_record(path)), model_label(path)


def _file_game(path: Path) -> str | None:
    """The game a model file says it is for, or None when it cannot be read as one (then
    ``model_net`` names what is wrong with it)."""
    import json

    from policies.value_model import MAX_MODEL_BYTES
    from simcore.limits import parse_nested, read_regular
    try:
        obj = parse_nested(lambda b: json.loads(b.decode("utf-8")), read_regular(path, str(path), MAX_MODEL_BYTES),
                           str(path))
    except (OSError, ValueError, UnicodeDecodeError, UserError):
        return None
    g = obj.get("game") if isinstance(obj, dict) else None
    from simcore.games import GAMES
    return g if g in GAMES else None


def run_models(paths, plays: dict) -> tuple[dict, dict]:
    """`experiment run --model` and `report --model`: ({game: network, a tuple}, {game: label}) for
    the model files `paths` (one per game, each file saying its game), `plays` {game: the players
    the run's studies play}. One-line UserErrors: a model of a game the run does not play, two
    for one game, a run without a learned or expert player, or a file that is not a sound model."""
    from experiments.glossary import GAME_NAMES
    model, labels = {}, {}
    for path in paths or ():
        game = _file_game(Path(path)) or next(iter(plays))
        if game not in plays:
            raise UserError(f"--model {str(path)!r} is a {GAME_NAMES.get(game, game)} model; this run plays "
                            f"{' and '.join(GAME_NAMES[g] for g in plays)}: leave it out")
        if game in model:
            raise UserError(f"--model {str(path)!r}: a second {GAME_NAMES[game]} model; give one model per game")
        net, labels[game] = model_net(game, Path(path), plays[game])
        assert net is not None   # (a path was given)
        model[game] = tuple(float(x) for x in net)   # a Cell's net, made once for every cell
    return model, labels
