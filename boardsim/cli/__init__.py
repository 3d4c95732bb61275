"""The `boardsim` command line. It parses the options, calls the library (experiments, arena,
benchmarks) and prints what that returns; it computes nothing itself.

One file per command group: root.py (the root: groups, `replay`, usage errors, the entry point),
bethel_woods.py and benevolent.py (`simulate`, `play`, `sensitivity` of each game: the game's
adapter; the commands' bodies are game_commands.py and sensitivity.py), study.py
(`experiment run/status/verify`, `report`), bench.py, ladder.py, tune.py and train.py;
errors.py turns the library's UserError into one line and exit code 2."""
from .root import app, cli_entry, main  # noqa: F401
