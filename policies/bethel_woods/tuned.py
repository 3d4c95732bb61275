"""The tuned heuristic weights of Bethel Woods (`boardsim tune bethel-woods` writes tuned.json
beside this file; the record also holds the seed, the games and the figures of the run)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.errors import UserError

from ..tuned import read_record, read_theta
from .heuristic import THETA_NAMES

TUNED_PATH = Path(__file__).with_name("tuned.json")
COMMAND = "boardsim tune bethel-woods"


def tuned_record(path: Path | None = None) -> dict:
    """The tuner's record (UserError if none is installed). The path is read at call time, so a
    test can point TUNED_PATH elsewhere."""
    return read_record(TUNED_PATH if path is None else path, COMMAND)


def tuned_theta(path: Path | None = None) -> np.ndarray:
    """The confirmed tuned weights (THETA_NAMES order); a one-line UserError if there are none."""
    return read_theta(TUNED_PATH if path is None else path, THETA_NAMES, COMMAND)


def tuned_available(path: Path | None = None) -> bool:
    """A confirmed tuned vector is in the package."""
    try:
        tuned_theta(path)
    except UserError:
        return False
    return True
