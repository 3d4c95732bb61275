"""`--model PATH`: play the learned and expert players with a model file of the user's (one that
`boardsim train --model` or `--no-install` wrote) instead of the installed one."""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from simcore.errors import UserError

MODEL_POLICIES = ("learned", "expert")

ModelFile = Annotated[Optional[Path], typer.Option(
    "--model", help="A model file (from `boardsim train --model PATH` or `--no-install`) for the learned and "
                    "expert players instead of the installed one; its sha256 is printed with the results.")]


def model_thetas(game: str, path: Optional[Path], names) -> tuple[dict, str | None]:
    """({policy: its full parameter vector with the model's network} for the learned and expert
    players among `names`, the model's label: "model <first 8 digits of its sha256>, trained
    <date>"); ({}, None) without --model. The file is read and checked first: a damaged one is a
    one-line UserError naming it; --model with no learned or expert player is refused."""
    if path is None:
        return {}, None
    used = [n for n in dict.fromkeys(names) if n in MODEL_POLICIES]
    if not used:
        raise UserError(f"--model {str(path)!r} is for the learned and expert players only; this run plays "
                        f"{', '.join(dict.fromkeys(names))}: leave --model out")
    learned = importlib.import_module(f"policies.{game}.learned")
    expert = importlib.import_module(f"policies.{game}.expert")
    decide = importlib.import_module(f"policies.{game}.decide")
    from policies.value_model import model_label
    net = learned.model_record(path)
    out = {}
    for n in used:
        t = learned.learned_theta(net) if n == "learned" else expert.expert_theta(net)
        full = np.zeros(decide.THETA_SIZE)   # padded to the widest vector: the installed model is not read
        full[:len(t)] = t
        out[n] = full
    return out, model_label(path)
