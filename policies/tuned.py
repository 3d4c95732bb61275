"""Tuned weights written by `boardsim tune GAME` into the game's package (tuned.json), read by
policy `tuned`: the record (theta by name, the seed, the games and the figures of the run) and
its vector, which is handed out only when the run confirmed it on fresh seeds."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simcore.errors import UserError


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
