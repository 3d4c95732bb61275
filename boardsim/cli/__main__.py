"""python -m boardsim.cli ...: the same as `boardsim ...` (and `python -m boardsim`)."""
from .root import _entry

_entry()
