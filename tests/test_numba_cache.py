"""The numba cache directory is keyed by a hash of the compiled sources, so a change to any of
them (e.g. engine.py, which batch.py's cached kernels call) never runs stale compiled code."""
import os
import pathlib
import shutil

import simcore
from simcore import cache_dir_for, source_hash


def copy_sources(dst):
    root = pathlib.Path(simcore.__file__).resolve().parent.parent
    for pkg in ("simcore", "policies"):
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


def test_this_process_uses_the_hashed_dir_unless_told_otherwise():
    import numba
    d = os.environ["NUMBA_CACHE_DIR"]
    assert numba.config.CACHE_DIR == d
    if simcore.CACHE_DIR_FROM == "source hash":   # the usual case, CI's included
        root = pathlib.Path(simcore.__file__).resolve().parent.parent
        assert pathlib.Path(d).name == f"numba-{source_hash(root)}"
    else:                                          # an explicit NUMBA_CACHE_DIR was respected
        assert simcore.CACHE_DIR_FROM == "environment"
