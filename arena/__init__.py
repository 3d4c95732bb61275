"""The play loop: one compiled loop written once and specialised per game (arena/loop.py), the
batch runner, traces, work units.

The loop calls the policies and the engines, so importing arena names its sources after theirs:
its compiled code is cached under a key of all three (simcore/numbacache.py)."""
import pathlib

import policies  # noqa: F401  (the layer below: its sources are named first)
from simcore.numbacache import use_cache_for

use_cache_for(pathlib.Path(__file__).resolve().parent)
