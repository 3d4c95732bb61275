"""boardsim's compiled core.

Importing simcore points numba's on-disk cache at a directory keyed by a hash of simcore's sources;
each compiled layer above (policies, arena) adds its own sources when it is imported
(simcore/numbacache.py says why and how). An explicit NUMBA_CACHE_DIR is respected.
"""
import pathlib

from .numbacache import use_cache_for

use_cache_for(pathlib.Path(__file__).resolve().parent)
