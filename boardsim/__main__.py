"""`python -m boardsim ...`: the same as the `boardsim` command."""
from boardsim.cli import _entry

_entry()
