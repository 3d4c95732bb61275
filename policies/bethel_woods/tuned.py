"""The tuned heuristic weights (`boardsim tune bethel-woods` writes tuned.json beside this file)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simcore.errors import UserError

from .heuristic import THETA_NAMES

TUNED_PATH = Path(__file__).with_name("tuned.json")


def tuned_record(path: Path = TUNED_PATH) -> dict:
    """The record written by the tuner (theta by name, seed, games, figures); UserError if none."""
    if not path.exists():
        raise UserError(f"no tuned weights at {path}; run `boardsim tune bethel-woods` first")
    return json.loads(path.read_text())


def tuned_theta(path: Path = TUNED_PATH) -> np.ndarray:
    rec = tuned_record(path)
    if not rec.get("confirmed", False):
        raise UserError(f"{path}: the tuned weights were not confirmed better than the defaults on fresh seeds; "
                        "policy 'tuned' is not available")
    th = rec["theta"]
    return np.array([float(th[name]) for name in THETA_NAMES], dtype=np.float64)


def tuned_available(path: Path = TUNED_PATH) -> bool:
    """A confirmed tuned vector is in the package."""
    try:
        tuned_theta(path)
    except UserError:
        return False
    return True
