"""python -m cli ...: the same as `boardsim ...`."""
from .root import _entry

_entry()
