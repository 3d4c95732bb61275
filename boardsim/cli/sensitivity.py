"""`boardsim <game> sensitivity`: one command body for every game (experiments/sensitivity.py
holds what differs by game, its ``Measure``)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import user_errors


def add_sensitivity(app: typer.Typer, game: str, default_games: int) -> None:
    """Register the `sensitivity` command of `game` on its command group `app`."""

    @app.command()
    @user_errors
    def sensitivity(
        games: Annotated[int, typer.Option(help="Games per arm and setup (each variant and the defaults).")] = default_games,
        seed: Annotated[int, typer.Option(help="Master seed: every variant plays the same seeds as the defaults.")] = 7,
        policy: Annotated[Optional[str], typer.Option(
            help="Policy for every seat, as for simulate; default: the study player (learned), as the "
                 "report's sensitivity studies play.")] = None,
        threads: Annotated[Optional[int], typer.Option(help="Worker threads (default: all cores).")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
        chart: Annotated[Optional[Path], typer.Option(help="Also draw the forest chart here (PNG and SVG).")] = None,
        csv: Annotated[Optional[Path], typer.Option(help="Also write the rows to this CSV file.")] = None,
    ):
        """How much each rules switch and each alternative data table moves the answer, against the
        defaults on common seeds, with paired 95% intervals, largest effects first."""
        from experiments.sensitivity import run_command
        typer.echo(run_command(game, games, seed, policy, threads, json_out, chart, csv))
