"""Files a run writes (traces, records, tables, tuned weights): checked before the run, written so
that nothing is left half-written, and written *through* a symbolic link, a named pipe, a device
or a file descriptor (/dev/stdout, /dev/fd/N) instead of replacing it."""
from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
import tempfile

from simcore.errors import UserError


def _real(path) -> str:
    return os.path.realpath(os.fspath(path))


def _fd_alias(path) -> int | None:
    """The file descriptor a path names (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N),
    else None. Such a path is written through the descriptor the process already holds: its
    target may be a pipe (the link then leads nowhere on disk) or the file a shell redirected
    stdout to (which must not be replaced, and whose offset stdout shares)."""
    p = os.path.normpath(os.path.abspath(os.fspath(path)))
    for _ in range(40):   # a link to /dev/stdout is /dev/stdout too: follow links a step at a time
        fd = _fd_name(p)
        if fd is not None or not os.path.islink(p):
            return fd
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return None


def _fd_name(p: str) -> int | None:
    named = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
    if p in named:
        return named[p]
    for prefix in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        n = p[len(prefix):]
        if p.startswith(prefix) and n.isascii() and n.isdigit():
            return int(n)
    return None


def _check_fd(fd: int, shown: str) -> None:
    """UserError unless fd is open for writing."""
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except (OSError, OverflowError):
        raise UserError(f"cannot write {shown}: file descriptor {fd} is not open") from None
    if flags & os.O_ACCMODE not in (os.O_WRONLY, os.O_RDWR):
        raise UserError(f"cannot write {shown}: file descriptor {fd} is not open for writing")


def _special(real: str) -> bool:
    """An existing target that is not a regular file (a pipe, a device such as /dev/stdout)."""
    try:
        return not stat.S_ISREG(os.stat(real).st_mode) and not os.path.isdir(real)
    except OSError:
        return False


def check_writable(path, what: str = "") -> None:
    """UserError unless a file can be written at path: its folder exists and takes a new file,
    and path is not a folder. Called before a long run, so nothing is played for a file that
    cannot be written."""
    shown = f"{what} {str(path)!r}" if what else repr(str(path))
    fd = _fd_alias(path)
    if fd is not None:
        _check_fd(fd, shown)
        return
    real = _real(path)
    if os.path.isdir(real):
        raise UserError(f"cannot write {shown}: it is a folder; give a file name")
    if _special(real):
        if not os.access(real, os.W_OK):
            raise UserError(f"cannot write {shown}: permission denied")
        return
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        if os.path.islink(path):   # a dangling link: the missing folder is its target's, not the link's
            raise UserError(f"cannot write {shown}: it is a symbolic link to {os.readlink(path)!r}, whose "
                            f"folder {folder!r} does not exist")
        raise UserError(f"cannot write {shown}: the folder "
                        f"{os.path.dirname(str(path)) or '.'!r} does not exist")
    takes_a_file(folder, shown)


def same_file(a, b) -> bool:
    """a and b name one file: the same path once links are followed, or (both existing) the same
    inode (a hard link)."""
    if _real(a) == _real(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_input(outputs: dict, inputs: dict) -> None:
    """UserError if an output of a run ({what: path}, e.g. {"the records": p}) is also one of its
    input files ({what: path or None}): writing it would replace what the run reads, e.g.
    ``--rules r.toml --records r.toml``. Called before anything is played. Outputs that are a
    file descriptor (/dev/stdout) and inputs that are not files (shipped rules by name) pass."""
    for what_in, src in inputs.items():
        if src is None or not os.path.isfile(src):
            continue
        for what_out, dst in outputs.items():
            if dst is not None and _fd_alias(dst) is None and same_file(dst, src):
                raise UserError(f"{what_out} {str(dst)!r} is also {what_in} of this run; writing it "
                                "would replace an input: give another path")


def takes_a_file(folder, shown: str) -> None:
    """UserError ("cannot write {shown}: ...") unless a new file can be made in the existing
    `folder`: by making one, the only test that holds on every file system (read-only mounts,
    /proc, root's rights)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".boardsim-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise UserError(f"cannot write {shown}: {e.strerror or e}") from None


TMP_TAG = "boardsim"   # in the name of a temporary file: .NAME.PID.boardsim.XXXXXXXX.tmp


def _remove_dead_temporaries(real: str) -> None:
    """The temporary files that a process killed while writing `real` left beside it (no
    `finally` runs on SIGKILL): only files named as ``atomic_open`` names them, whose process id
    is no longer running; anything else of that shape is left alone."""
    folder, base = os.path.split(real)
    head = f".{base}."
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        if not (name.startswith(head) and name.endswith(".tmp")):
            continue
        parts = name[len(head):-len(".tmp")].split(".")
        if len(parts) != 3 or parts[1] != TMP_TAG or not parts[0].isdigit():
            continue
        try:
            os.kill(int(parts[0]), 0)
            continue                       # its process is running (another run writing this file)
        except ProcessLookupError:
            pass
        except (OSError, OverflowError):
            continue
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with contextlib.suppress(OSError):
                os.unlink(path)


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", what: str = "", **kwargs):
    """Open path for writing. A regular file (new or old) is written to a temporary file in the
    same folder and moved into place only when the block ends without an error, so a failed run
    leaves the old file (or none). A symbolic link is followed (the link stays, its target is
    replaced); a pipe or device is written directly, and /dev/stdout, /dev/fd/N and the like
    through the process's own descriptor (so a redirected stdout's file is written in order, not
    replaced). An OSError becomes a one-line UserError."""
    shown = f"{what} {str(path)!r}" if what else repr(str(path))
    check_writable(path, what)
    fd = _fd_alias(path)
    real = "" if fd is not None else _real(path)   # read only when fd is None
    if fd is not None or _special(real):   # written directly, never replaced
        if fd is not None:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()   # what was printed before goes first
        try:
            with (os.fdopen(os.dup(fd), mode, **kwargs) if fd is not None
                  else open(real, mode, **kwargs)) as f:
                yield f
        except BrokenPipeError:
            raise    # `| head` closed the pipe: left to the CLI, as for standard output
        except OSError as e:
            raise UserError(f"cannot write {shown}: {e.strerror or e}") from None
        return
    tmp = None
    _remove_dead_temporaries(real)
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real),
                                   prefix=f".{os.path.basename(real)}.{os.getpid()}.{TMP_TAG}.", suffix=".tmp")
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
        if os.path.exists(real):  # keep the permissions of the file being replaced
            os.chmod(tmp, stat.S_IMODE(os.stat(real).st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
        tmp = None
    except OSError as e:
        raise UserError(f"cannot write {shown}: {e.strerror or e}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path, text: str, what: str = "") -> None:
    """Write text to path through atomic_open."""
    with atomic_open(path, "w", what=what, encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_csv(frame, path):
    """Write a DataFrame to path via a temporary file: nothing half-written if it fails (a link,
    pipe or device is written through, not replaced)."""
    with atomic_open(path, "w", newline="") as f:
        frame.to_csv(f, index=False)


@contextlib.contextmanager
def folder_lock(out, option: str = "--out"):
    """Hold the folder `out` (made if missing) for one writing run: an exclusive flock on the
    folder itself, which the kernel drops when the process ends however it ends, so no lock file
    is made and none is left by a killed run. A second run into a folder in use is refused at
    once with a one-line UserError, before it opens the results store or plays a game: waiting
    would leave it silent for as long as the first run plays, only to read back what that run
    recorded. A folder this made is removed again if it is still empty at the end (a run
    refused later wrote nothing)."""
    made = not os.path.lexists(out)
    if made:
        try:
            os.mkdir(out)
        except FileExistsError:
            made = False
        except OSError as e:
            raise UserError(f"cannot write {str(out)!r}: {e.strerror or e}") from None
    try:
        fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as e:
        raise UserError(f"cannot write {str(out)!r}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"{str(out)!r} is in use by another boardsim run writing into it; wait for that run to "
                            f"finish (`boardsim experiment status` shows how far it is) or give another {option}") from None
        yield
    finally:
        os.close(fd)
        if made:
            with contextlib.suppress(OSError):
                os.rmdir(out)
