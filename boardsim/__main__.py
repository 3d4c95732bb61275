"""`python -m boardsim ...`: the same as the `boardsim` command."""
from boardsim.cli import cli_entry

cli_entry()
