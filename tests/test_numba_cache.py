"""numba's cache directory is keyed by a hash of the compiled sources (simcore/numbacache.py): numba
checks only the timestamp of the file that defines a function, so without the hash a change to
engine.py would leave batch.py's cached kernels (which call it) running the old rules; a stale
batch kernel once kept its old code and speed until the cache was cleared. Each layer names its own
sources when it is imported, after the layers it calls: the engines' key covers simcore/, the play
loop's covers simcore/, policies/ and arena/."""
import os
import pathlib
import shutil

import simcore
from simcore.numbacache import cache_dir_for, source_hash

ROOT = pathlib.Path(simcore.__file__).resolve().parent.parent
LAYERS = ("simcore", "policies", "arena")


def copy_sources(dst):
    for pkg in LAYERS:
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))


def test_same_sources_same_dir_and_a_change_a_new_one(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    copy_sources(a)
    copy_sources(b)
    assert source_hash([a / "simcore"]) == source_hash([b / "simcore"])
    assert cache_dir_for([a / p for p in LAYERS], tmp_path) == cache_dir_for([b / p for p in LAYERS], tmp_path)
    engine = b / "simcore" / "bethel_woods" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    assert source_hash([a / "simcore"]) != source_hash([b / "simcore"])
    assert source_hash([a / p for p in LAYERS]) != source_hash([b / p for p in LAYERS])


def _cache_dir_in_a_new_process(env, module="simcore"):
    import json
    import subprocess
    import sys
    code = (f"import json, os, numba, {module}, simcore.numbacache as c; "
            "print(json.dumps([os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR, c.CACHE_DIR_FROM]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_each_layer_is_cached_under_a_key_of_itself_and_the_layers_it_calls(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    for module, layers in (("simcore", LAYERS[:1]), ("policies", LAYERS[:2]), ("arena.bethel_woods.batch", LAYERS)):
        d, numba_dir, source = _cache_dir_in_a_new_process(env, module)
        assert d == numba_dir == str(cache_dir_for([ROOT / p for p in layers], tmp_path)), module
        assert source == "source hash"


def test_a_cache_dir_inherited_from_a_parent_process_is_keyed_again(tmp_path):
    """A child (a Dask worker, a subprocess) inherits the NUMBA_CACHE_DIR its parent chose for the
    layers it had imported; the child keys its own instead of treating it as the user's."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env["NUMBA_CACHE_DIR"] = env["BOARDSIM_NUMBA_CACHE_DIR"] = str(cache_dir_for([ROOT / "simcore"], tmp_path))
    d, _, source = _cache_dir_in_a_new_process(env, "arena")
    assert d == str(cache_dir_for([ROOT / p for p in LAYERS], tmp_path)) and source == "source hash"


def test_an_explicit_numba_cache_dir_is_respected(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert _cache_dir_in_a_new_process(env, "arena") == [str(tmp_path / "mine"), str(tmp_path / "mine"), "environment"]


def test_the_play_loops_key_covers_every_compiled_package_and_the_engines_key_only_theirs(tmp_path):
    a = tmp_path / "a"
    copy_sources(a)
    engines, loop = source_hash([a / "simcore"]), source_hash([a / p for p in LAYERS])
    batch = a / "arena" / "bethel_woods" / "batch.py"
    batch.write_text(batch.read_text() + "\n# a change to the play loop\n")
    assert source_hash([a / p for p in LAYERS]) != loop
    assert source_hash([a / "simcore"]) == engines
    heuristic = a / "policies" / "bethel_woods" / "heuristic.py"
    heuristic.write_text(heuristic.read_text() + "\n# a change to a policy\n")
    assert source_hash([a / p for p in LAYERS[:2]]) != source_hash([ROOT / p for p in LAYERS[:2]])
