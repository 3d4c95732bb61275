"""The `boardsim` command line: one command group per game, `experiment`, `report`, `bench`
and `replay`."""
from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import Annotated

import typer

try:  # typer >= 0.20 vendors click; older releases depend on it
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import UsageError  # type: ignore[assignment]

from . import bench, benevolent, bethel_woods, calibrate, ladder, study, target, train, tune

from .errors import user_errors
from .models import MODEL_POLICIES, ModelFile, model_net

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
                  help="boardsim: Monte Carlo balance analysis for Bethel Woods and Benevolent.")
app.add_typer(bethel_woods.app, name="bethel-woods")
app.add_typer(benevolent.app, name="benevolent")
app.command(name="bench")(bench.bench)
app.add_typer(study.app, name="experiment")
app.command(name="report")(study.report)
app.command(name="ladder")(ladder.ladder)
app.command(name="tune")(tune.tune)
app.command(name="train")(train.train)
app.command(name="calibrate")(calibrate.calibrate)
app.command(name="target")(target.target)


@app.command()
@user_errors
def replay(trace: Annotated[Path, typer.Argument(help="A trace written by `play --trace`.")],
           legal_only: Annotated[bool, typer.Option(
               "--legal-only", help="Accept any legal decision, not only the one the setup's policy makes "
                                    "(a trace edited by hand, or played with other weights).")] = False,
           model: ModelFile = None):
    """Tell a recorded game turn by turn in plain words, checking every line against the game
    replayed from its setup (setup fields and position, each decision's legality and that the
    setup's policy makes it, each chance outcome, each position, the end line's result); a trace
    that does not match is a one-line error naming the line."""
    from arena.trace import read_trace, trace_game
    lines, numbers = read_trace(trace, numbered=True)
    game = trace_game(lines, str(trace), numbers)
    if game == "bethel_woods":
        from arena.bethel_woods.trace import replay_lines
    else:
        from arena.benevolent.trace import replay_lines
    head = lines[0] if isinstance(lines[0], dict) else {}
    names = head.get("policies") if game == "benevolent" else [head.get("policy")]
    names = names if isinstance(names, list) and all(isinstance(n, str) for n in names) else list(MODEL_POLICIES)
    net, _ = model_net(game, model, names)   # the trace played with --model: replayed with it
    # the whole trace is checked before the story is printed: a rejected trace prints only its error
    story = list(replay_lines(lines, source=str(trace), numbers=numbers, legal_only=legal_only, model_net=net))
    for line in story:
        typer.echo(line)


INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C (128 + SIGINT)


def _interrupted() -> int:
    typer.echo("\ninterrupted (Ctrl-C): the run did not finish; its results were not written "
               "(`experiment run` keeps what it recorded: the same command resumes it)", err=True)
    return INTERRUPTED


def _flow_short_help(t: typer.Typer) -> None:
    """A command listing shows each command's first docstring paragraph, and typer's rich mode keeps
    that paragraph's line breaks, so a listing broke lines mid-sentence: give every command whose
    short help is unset its first paragraph as one line (its own --help is unchanged)."""
    import inspect
    for info in t.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if info.short_help is None and doc:
            info.short_help = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    for group in t.registered_groups:
        if group.typer_instance is not None:
            _flow_short_help(group.typer_instance)


_flow_short_help(app)


def _usage_message(e, argv) -> str:
    """click's message, with what it leaves out: the value given to a bad option (typer's "Input
    should be a valid integer" does not repeat it) and the commands there are after "No such
    command"."""
    exc = sys.modules[UsageError.__module__]   # click's exceptions, or typer's own copy of them
    msg = e.format_message()
    if isinstance(e, exc.BadParameter) and e.param is not None:
        args = [str(a) for a in argv]
        args = args[:args.index("--")] if "--" in args else args
        opts = getattr(e.param, "opts", [])
        for i in range(len(args) - 1, -1, -1):   # the last one given is the one click read
            a = args[i]
            if a in opts and i + 1 < len(args):
                return f"{msg} (got {args[i + 1]!r})"
            for opt in opts:
                if a.startswith(opt + "="):
                    return f"{msg} (got {a[len(opt) + 1:]!r})"
    if msg.startswith("No such command") and "Did you mean" not in msg and e.ctx is not None:
        group = e.ctx.command
        names = group.list_commands(e.ctx) if hasattr(group, "list_commands") else []
        if names:
            return f"{msg.rstrip('.')}; commands: {', '.join(names)}"
    return msg


def main(argv=None) -> int:
    """Entry point: usage errors become one line on stderr with exit code 2."""
    try:
        rv = app(args=argv, standalone_mode=False)
        if rv == INTERRUPTED:  # typer's answer to Ctrl-C (KeyboardInterrupt) inside a command
            return _interrupted()
        if isinstance(rv, int):  # an Exit raised inside a command comes back as its code
            return rv
    except KeyboardInterrupt:
        return _interrupted()
    except UsageError as e:
        msg = _usage_message(e, sys.argv[1:] if argv is None else argv)
        if msg:  # a group given no command has printed its help: no empty "error:" line after it
            typer.echo(f"error: {msg}", err=True)
        return 2
    except OSError as e:
        # output files are written through arena.outfiles (a write error there is a UserError), so a
        # write error that gets here is the terminal's stdout: a full disk or a closed device
        if e.errno not in (errno.ENOSPC, errno.EIO, errno.EPIPE, errno.EDQUOT, errno.EFBIG):
            raise
        try:
            typer.echo(f"error: cannot write the output: {e.strerror}", err=True)
        except OSError:
            pass
        return 1
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 1
    return 0


def cli_entry():
    sys.exit(main())
