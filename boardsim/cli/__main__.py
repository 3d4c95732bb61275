"""python -m boardsim.cli ...: the same as `boardsim ...` (and `python -m boardsim`)."""
from .root import cli_entry

cli_entry()
