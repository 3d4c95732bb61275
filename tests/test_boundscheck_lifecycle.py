"""The bounds-checked process of tests/test_boundscheck.py (started by conftest.py) starts only
when its test is going to run, and never outlives pytest: pytest is run here in a subprocess with a
cache home of its own (XDG_CACHE_HOME), where starting the checked process makes its cache folder
(boardsim-boundscheck: test_boundscheck.checked_cache_home), empty, so that it compiles."""
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pytest(tmp, *args, **kw):
    env = dict(os.environ, TMPDIR=str(tmp), XDG_CACHE_HOME=str(tmp))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    # SIGINT back to its default in the child: a shell starting CI in the background ignores it,
    # an ignored SIGINT is inherited, and Python then raises no KeyboardInterrupt
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)


def _started(tmp):
    return [x for x in os.listdir(tmp) if x.startswith("boardsim-boundscheck")]


def _children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(d))
    return out


def _execed(pid):
    """The child runs the checked code (exec'd), not a fork of pytest on its way to it."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
        return b"-c" in args and b"pytest" not in args
    except OSError:
        return False


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_collect_only_and_deselected_start_nothing(tmp_path):
    p = _pytest(tmp_path, "--collect-only", "tests/test_boundscheck.py")
    out = p.communicate(timeout=300)[0]
    assert p.returncode == 0 and "1 test collected" in out, out
    assert _started(tmp_path) == []
    p = _pytest(tmp_path, "-k", "not bounds_checking", "tests/test_boundscheck.py")
    out = p.communicate(timeout=300)[0]
    assert p.returncode == 5 and "1 deselected" in out, out   # 5: no test ran
    assert _started(tmp_path) == []


def test_an_interrupted_session_kills_and_reaps_the_checked_process(tmp_path):
    """Started (the test is selected), then pytest is interrupted while the checked process still
    compiles: at the session's end it is killed and reaped."""
    p = _pytest(tmp_path, "tests/test_boundscheck.py")
    try:
        deadline = time.time() + 240
        while not _started(tmp_path) and time.time() < deadline and p.poll() is None:
            time.sleep(0.2)
        assert _started(tmp_path), "the selected test did not start the checked process"
        kids = []
        while not (kids and _execed(kids[0])) and time.time() < deadline:
            kids = _children(p.pid)
            time.sleep(0.1)
        assert len(kids) == 1, kids
        time.sleep(1.0)   # pytest reaches the test, which waits on the checked process
        p.send_signal(signal.SIGINT)
        out = p.communicate(timeout=300)[0]
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "KeyboardInterrupt" in out, out[-2000:]
    time.sleep(0.5)
    assert not _alive(kids[0]), "the checked process outlived pytest"
