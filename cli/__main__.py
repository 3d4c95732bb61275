"""python -m cli ...: the same as `boardsim ...`."""
from .app import _entry

_entry()
