"""The numba cache directory is keyed by a hash of the compiled sources, so a change to any of
them (e.g. engine.py, which batch.py's cached kernels call) never runs stale compiled code."""
import os
import pathlib
import shutil

import simcore
from simcore import cache_dir_for, source_hash


def copy_sources(dst):
    root = pathlib.Path(simcore.__file__).resolve().parent.parent
    for pkg in ("simcore", "policies", "arena"):
        shutil.copytree(root / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (dst / "benchmarks").mkdir()
    shutil.copy(root / "benchmarks" / "calibration.py", dst / "benchmarks")


def test_same_sources_same_dir_and_a_change_a_new_one(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    copy_sources(a)
    copy_sources(b)
    assert source_hash(a) == source_hash(b)
    assert cache_dir_for(a, tmp_path) == cache_dir_for(b, tmp_path)
    engine = b / "simcore" / "bethel_woods" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    assert source_hash(a) != source_hash(b)


def _cache_dir_in_a_new_process(env):
    import json
    import subprocess
    import sys
    code = ("import json, os, numba, simcore; print(json.dumps([os.environ['NUMBA_CACHE_DIR'], "
            "numba.config.CACHE_DIR, simcore.CACHE_DIR_FROM]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_new_process_uses_the_hashed_dir(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    d, numba_dir, source = _cache_dir_in_a_new_process(env)
    root = pathlib.Path(simcore.__file__).resolve().parent.parent
    assert d == numba_dir == str(tmp_path / "boardsim" / f"numba-{source_hash(root)}")
    assert source == "source hash"


def test_an_explicit_numba_cache_dir_is_respected(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert _cache_dir_in_a_new_process(env) == [str(tmp_path / "mine"), str(tmp_path / "mine"), "environment"]


def test_the_hash_covers_every_compiled_package(tmp_path):
    a = tmp_path / "a"
    copy_sources(a)
    before = source_hash(a)
    loop = a / "arena" / "bethel_woods" / "batch.py"
    loop.write_text(loop.read_text() + "\n# a change to the play loop\n")
    assert source_hash(a) != before
