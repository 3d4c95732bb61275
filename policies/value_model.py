"""A learned value of a position: a small neural network (one hidden layer of ReLU units) that the
compiled planners evaluate from plain arrays, and the model file that holds it.

The network maps a position's features x (each game's ``features.py`` names them) to a value,
the probability of winning that rollouts from such positions estimated (fit by least squares,
``boardsim train``):

    v(x) = b2 + sum_j W2[j] * max(0, b1[j] + sum_i W1[i, j] * (x[i] - mean[i]) / scale[i])

The network is a float array of its own, the play loop's ``nets[seat]`` beside the seat's
parameter vector theta (``net_array``): *packed* (``pack``) as ``nf``, ``nh``, then W1 with the
standardisation folded in (W1[i, j] / scale[i]), unit by unit (the nf weights of hidden unit j
together), b1 (less the folded means), W2, b2, then zeros to the game's NET_SIZE; all zeros is no
network (``no_net``; a player then falls back on its planner's score). ``value(x, net, off, h)``
evaluates the network packed at net[off:] with ``h`` as scratch (at least nh floats); no
allocation, so it runs inside the planners' hot loops (Stockfish's NNUE keeps its weights as plain
arrays in the same way). A cell's key in a results store names its network by a hash
(``arena.cell.Cell.net``; None: the installed model, whose file the engine hash covers).

The model file (``policies/<game>/learned.json``, written by ``boardsim train``): JSON with

    format    "boardsim-value-model"
    version   MODEL_VERSION (a file of another version is refused: train again)
    game      "bethel_woods" or "benevolent"
    features  the feature names in order (they must equal the game's FEATURE_NAMES)
    hidden    nh
    mean, scale, W1 (nf rows of nh), b1, W2, b2    the network, unpacked
    sha256    of the network's numbers (a file edited by hand or cut short is refused)
    training  the record of how it was trained and what it scored on seeds it never saw

``values(X, st, nc, net, off, out)`` evaluates it at a decision's kept plans together (rows of
``stride(nf)`` floats, four at a time), 3-8x faster per position than ``value`` (benchmarks/network.py), to the
last few bits; ``values_sparse`` does the same from a copy of the first layer feature by feature
(``transposed``), summing row 0 over its non-zero features and each other row over the features
where it differs from row 0 (about half the time of ``values`` on the players' ends). The players
screen with ``values_sparse`` to rule out the plans that cannot be the best and use ``value`` for
the few whose values come within ``MARGIN`` of the best, so their choices are ``value``'s, bit for
bit (docs/policies.md, "The network's cost"; tests/test_network.py).

A file that is missing, truncated, not JSON, of another format, version, game or feature list,
or whose numbers do not match its sha256, is a one-line ``UserError`` that says what to do.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
from numba import njit

from simcore.errors import UserError
from simcore.rng import draw

MODEL_FORMAT = "boardsim-value-model"
MODEL_VERSION = 1
MAX_MODEL_BYTES = 16 << 20   # a model file is read whole: 75-90 kB shipped, a 128-unit model with its record < 1 MB


def packed_size(nf: int, nh: int) -> int:
    """The floats a packed network of nf features and nh hidden units takes."""
    return 2 + nf * nh + nh + nh + 1


TINY = 1e-30   # a weight smaller than this is 0: a subnormal float makes every product with it ~100x slower


def flush(a):
    """a with every value smaller in size than TINY set to 0 (no subnormal numbers)."""
    a = np.asarray(a, dtype=np.float64)
    return np.where(np.abs(a) < TINY, 0.0, a)


def prune(net: dict) -> dict:
    """The same function with fewer hidden units: weights below TINY are 0, a unit that adds
    nothing (its output weight 0, or it is never active) is dropped, and a unit whose input
    weights are all 0 is a constant folded into b2. Training leaves such units (L2 decay drives a
    dead unit's weights to subnormal numbers, which are slow to multiply)."""
    W1, b1, W2 = flush(net["W1"]), flush(net["b1"]), flush(net["W2"])
    b2 = float(net["b2"])
    keep = []
    for j in range(W1.shape[1]):
        if W2[j] == 0.0:
            continue
        if not W1[:, j].any():
            b2 += max(0.0, b1[j]) * W2[j]
            continue
        keep.append(j)
    out = dict(net, W1=W1[:, keep], b1=b1[keep], W2=W2[keep], b2=b2, hidden=len(keep))
    return out


def pack(mean, scale, W1, b1, W2, b2) -> np.ndarray:
    """The network as one float64 vector (standardisation folded into the first layer; numbers
    below TINY flushed to 0)."""
    W1 = np.asarray(W1, dtype=np.float64)
    nf, nh = W1.shape
    mean = np.asarray(mean, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    W1f = flush(W1 / scale[:, None])
    b1f = flush(np.asarray(b1, dtype=np.float64) - (mean / scale) @ W1)
    return np.concatenate([[nf, nh], W1f.T.ravel(), b1f, flush(W2), [float(b2)]])


LANES = 16   # the dot products run over the features padded to a multiple of this (4 AVX2 vectors)
# a plan whose ``values`` number is below the best's by more than MARGIN x (1 + |best|) cannot be
# ``value``'s best: the two differ by < 1e-12 (sums of at most a few thousand products of size < 1e4,
# each rounding 1.1e-16), so the margin leaves a factor > 1e4 to spare
MARGIN = 1e-7


def stride(nf: int) -> int:
    """The floats a padded feature row takes: nf rounded up to a multiple of LANES."""
    return -(-nf // LANES) * LANES


@njit(cache=True, _nrt=False, inline="always")
def _span(nf, nh, st):
    """How many weights of a unit's row the dot products read: st (the padded row) when the
    floats after each row in the packing (the next row; after the last, b1, W2 and b2: 2 nh + 1
    finite numbers) cover the padding, where they meet the zero padding of the features; else nf."""
    return st if st - nf <= 2 * nh + 1 else nf


@njit(cache=True, _nrt=False)
def same_row(X, st, c, d):
    """Rows c and d of X (of st floats each) hold the same features."""
    for i in range(st):
        if X[c * st + i] != X[d * st + i]:
            return False
    return True


@njit(cache=True, _nrt=False)
def near_top(vals, nc, X, st, keys, match):
    """Which of a decision's nc screened plans may be the best (both learned players): those
    within MARGIN of the screen's best, less a plan whose features (row of X, st floats) are those
    of an earlier such plan. keys[c] < 0 marks a plan never taken for a copy; with `match`, a copy
    must also have the same key (Benevolent: the same repetition count). Returns (live, m, first):
    a bit per plan that may be the best, their number, the first of them."""
    top = -1.0e300
    for c in range(nc):
        if vals[c] > top:
            top = vals[c]
    cut = top - MARGIN * (1.0 + abs(top))
    live = 0
    m = 0
    first = -1
    for c in range(nc):
        if vals[c] < cut:
            continue
        if keys[c] >= 0:
            dup = False
            for d in range(c):
                if ((live >> d) & 1 and keys[d] >= 0 and (not match or keys[d] == keys[c])
                        and same_row(X, st, d, c)):
                    dup = True
                    break
            if dup:
                continue
        live |= 1 << c
        m += 1
        if first < 0:
            first = c
    return live, m, first


@njit(cache=True, _nrt=False, fastmath=True)
def values(X, st, nc, net, off, out):
    """out[c] = the network packed at net[off:] at the features X[c * st: c * st + nf], for c <
    nc rounded up to a multiple of 4 (X holds that many rows of st = ``stride(nf)`` floats, each
    zero from nf to st; rows past nc may hold anything finite, their values are not used).

    The kept plans of a decision are evaluated four at a time: each unit's weights are read once
    for four positions, and the four dot products (over the padded row, no scalar tail) are four
    independent sums the compiler vectorises side by side. A position's value does not depend on
    its row or on the other rows (the four sums are the same loop's). The sums are taken in
    another order than ``value``'s, so the two differ in the last bits (|difference| below 1e-12
    on the shipped models' positions, far below MARGIN: tests/test_network.py)."""
    nf = int(net[off])
    nh = int(net[off + 1])
    w1 = off + 2
    b1 = w1 + nf * nh
    w2 = b1 + nh
    n = _span(nf, nh, st)
    for c in range(0, nc, 4):
        x0 = X[c * st: c * st + n]
        x1 = X[(c + 1) * st: (c + 1) * st + n]
        x2 = X[(c + 2) * st: (c + 2) * st + n]
        x3 = X[(c + 3) * st: (c + 3) * st + n]
        v0 = net[w2 + nh]
        v1 = v0
        v2 = v0
        v3 = v0
        for j in range(nh):
            wr = net[w1 + j * nf: w1 + j * nf + n]
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            for i in range(n):
                w = wr[i]
                a0 += w * x0[i]
                a1 += w * x1[i]
                a2 += w * x2[i]
                a3 += w * x3[i]
            b = net[b1 + j]
            u = net[w2 + j]
            a0 += b
            a1 += b
            a2 += b
            a3 += b
            if a0 > 0.0:
                v0 += a0 * u
            if a1 > 0.0:
                v1 += a1 * u
            if a2 > 0.0:
                v2 += a2 * u
            if a3 > 0.0:
                v3 += a3 * u
        out[c] = v0
        out[c + 1] = v1
        out[c + 2] = v2
        out[c + 3] = v3


NSAMPLE = 32   # weights ``transposed`` compares to tell whether its copy is of the network in net


def meta_size() -> int:
    """The floats ``transposed``'s record of the network its copy holds takes."""
    return 2 + NSAMPLE + 3


@njit(cache=True, _nrt=False)
def transposed(net, off, WT, meta):
    """WT[i * nh + j] = the first-layer weight of feature i into hidden unit j of the network
    packed at net[off:] (``values_sparse`` reads a feature's weights together). meta records
    which network WT holds (nf, nh, NSAMPLE weights spread over W1, b1[0], W2[0], b2): the copy is
    made again only when net holds another one (a zeroed meta holds none)."""
    nf = int(net[off])
    nh = int(net[off + 1])
    n = nf * nh
    w1 = off + 2
    w2 = w1 + n + nh
    ok = meta[0] == nf and meta[1] == nh
    if ok:
        for k in range(NSAMPLE):
            if meta[2 + k] != net[w1 + (k * n) // NSAMPLE]:
                ok = False
                break
    if ok:
        ok = (meta[2 + NSAMPLE] == net[w1 + n] and meta[3 + NSAMPLE] == net[w2]
              and meta[4 + NSAMPLE] == net[w2 + nh])
    if ok:
        return
    for j in range(nh):
        for i in range(nf):
            WT[i * nh + j] = net[w1 + j * nf + i]
    meta[0] = nf
    meta[1] = nh
    for k in range(NSAMPLE):
        meta[2 + k] = net[w1 + (k * n) // NSAMPLE]
    meta[2 + NSAMPLE] = net[w1 + n]
    meta[3 + NSAMPLE] = net[w2]
    meta[4 + NSAMPLE] = net[w2 + nh]


@njit(cache=True, _nrt=False, fastmath=True)
def _head(a, net, w2, nh):
    v = net[w2 + nh]
    for j in range(nh):
        if a[j] > 0.0:
            v += a[j] * net[w2 + j]
    return v


@njit(cache=True, _nrt=False, fastmath=True)
def values_sparse(X, st, nc, net, off, WT, acc, out):
    """out[c] = the network packed at net[off:] at the features X[c * st: c * st + nf] for c <
    nc, to the last few bits as ``values`` (the same screen; WT: ``transposed``'s copy of the first
    layer, acc: scratch of 2 nh + 2 nf floats). A decision's ends have few features that are not zero (a
    third in Benevolent) and differ from one end to the next in fewer still (7 of 120 on average):
    row 0's hidden units are summed over its non-zero features only, each other row's from row 0's
    over the features where the two differ (x_c - x_0). The sums are taken in another order than
    ``value``'s: |difference| far below MARGIN, as for ``values`` (tests/test_network.py)."""
    nf = int(net[off])
    nh = int(net[off + 1])
    b1 = off + 2 + nf * nh
    w2 = b1 + nh
    a0 = acc[0:nh]
    a = acc[nh:2 * nh]
    dv = acc[2 * nh:2 * nh + nf]                      # the non-zero entries (row 0) or differences
    ix = acc[2 * nh + nf:2 * nh + 2 * nf].view(np.int64)   # and their features
    x0 = X[0:nf]
    for j in range(nh):
        a0[j] = net[b1 + j]
    k = 0
    for i in range(nf):                               # listed without a branch
        dv[k] = x0[i]
        ix[k] = i
        k += x0[i] != 0.0
    for m in range(k):
        xi = dv[m]
        i = ix[m]
        wt = WT[i * nh:(i + 1) * nh]
        for j in range(nh):
            a0[j] += wt[j] * xi
    out[0] = _head(a0, net, w2, nh)
    for c in range(1, nc):
        xc = X[c * st:c * st + nf]
        for j in range(nh):
            a[j] = a0[j]
        k = 0
        for i in range(nf):
            d = xc[i] - x0[i]
            dv[k] = d
            ix[k] = i
            k += d != 0.0
        for m in range(k):
            d = dv[m]
            i = ix[m]
            wt = WT[i * nh:(i + 1) * nh]
            for j in range(nh):
                a[j] += wt[j] * d
        out[c] = _head(a, net, w2, nh)


@njit(cache=True, _nrt=False, fastmath=True)
def value(x, net, off, h):
    """The network packed at net[off:] evaluated at features x (h: unused scratch, kept for the
    callers' layout). Each hidden unit is one dot product over the features (its weights are
    contiguous: W1 is packed unit by unit), which the compiler vectorises."""
    nf = int(net[off])
    nh = int(net[off + 1])
    w1 = off + 2
    b1 = w1 + nf * nh
    w2 = b1 + nh
    v = net[w2 + nh]
    for j in range(nh):
        r = w1 + j * nf
        a = net[b1 + j]
        for i in range(nf):
            a += net[r + i] * x[i]
        if a > 0.0:
            v += a * net[w2 + j]
    return v


def with_dial(theta, index: int, temperature: float) -> np.ndarray:
    """A copy of a learned player's vector with the skill dial (theta[index]) at `temperature`
    (0: the learned player itself; larger: weaker play, ``softmax_pick``)."""
    t = np.asarray(theta, dtype=np.float64).copy()
    t[index] = float(temperature)
    return t


@njit(cache=True, _nrt=False)
def softmax_pick(vals, n, best, t, key):
    """The skill dial's draw (both learned players): index c < n with probability proportional
    to exp((vals[c] - best) / t), from number 0 of the decision's `key` (the policy's own stream).
    vals is overwritten with the weights."""
    total = 0.0
    for c in range(n):
        vals[c] = np.exp((vals[c] - best) / t)
        total += vals[c]
    u = (draw(key, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    acc = 0.0
    for c in range(n):
        acc += vals[c]
        if u < acc:
            return c
    return n - 1


def _digest(net: dict) -> str:
    h = hashlib.sha256()
    for k in ("mean", "scale", "W1", "b1", "W2", "b2"):
        h.update(k.encode())
        h.update(np.asarray(net[k], dtype=np.float64).tobytes())
    return h.hexdigest()


def model_text(game: str, feature_names, net: dict, training: dict) -> str:
    """The model file's text (net: mean, scale, W1, b1, W2, b2 as arrays; training: the record)."""
    obj = {
        "format": MODEL_FORMAT, "version": MODEL_VERSION, "game": game,
        "features": list(feature_names), "hidden": int(np.asarray(net["W1"]).shape[1]),
        "mean": [float(v) for v in net["mean"]], "scale": [float(v) for v in net["scale"]],
        "W1": [[float(v) for v in row] for row in np.asarray(net["W1"])],
        "b1": [float(v) for v in net["b1"]], "W2": [float(v) for v in net["W2"]], "b2": float(net["b2"]),
        "training": training,
    }
    obj["sha256"] = _digest(obj)
    return json.dumps(obj, indent=1) + "\n"


def read_model(path: Path, game: str, feature_names, command: str, max_hidden: int | None = None) -> dict:
    """The model file as a dict with numpy arrays; a one-line UserError when it cannot be used
    (max_hidden: the most hidden units the game's planner has room for)."""
    path = Path(path)
    again = f"run `{command}` to train one"
    if not path.exists():
        raise UserError(f"no learned model at {path}; {again}")
    if not path.is_file():
        raise UserError(f"the learned model {path} is not a regular file; {again}")
    from simcore.limits import parse_nested, read_regular
    what = f"the learned model {path}"
    try:
        data = read_regular(path, what, MAX_MODEL_BYTES)
    except OSError as e:
        raise UserError(f"{what} cannot be read: {e.strerror or e}; {again}") from None
    try:
        obj = parse_nested(lambda b: json.loads(b.decode("utf-8")), data, what)
    except UserError as e:   # nested too deep (a UserError is a ValueError: caught first)
        raise UserError(f"{e}; {again}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise UserError(f"the learned model {path} is not complete JSON ({type(e).__name__}); it may be truncated; "
                        f"{again}") from None
    if not isinstance(obj, dict) or obj.get("format") != MODEL_FORMAT:
        raise UserError(f"{path} is not a boardsim value model (format {MODEL_FORMAT!r}); {again}")
    if obj.get("version") != MODEL_VERSION:
        raise UserError(f"the learned model {path} is of version {obj.get('version')!r}, this boardsim reads version "
                        f"{MODEL_VERSION}; {again}")
    if obj.get("game") != game:
        raise UserError(f"the learned model {path} is for game {obj.get('game')!r}, not {game!r}; {again}")
    if obj.get("features") != list(feature_names):
        raise UserError(f"the learned model {path} was trained on other features than this boardsim computes; {again}")
    try:
        net = {k: np.asarray(obj[k], dtype=np.float64) for k in ("mean", "scale", "W1", "b1", "W2")}
        net["b2"] = float(obj["b2"])
    except (KeyError, TypeError, ValueError):
        raise UserError(f"the learned model {path} lacks or mangles its weights; {again}") from None
    nf = len(feature_names)
    nh = obj.get("hidden")
    shapes_ok = (isinstance(nh, int) and nh >= 1 and net["mean"].shape == (nf,) and net["scale"].shape == (nf,)
                 and net["W1"].shape == (nf, nh) and net["b1"].shape == (nh,) and net["W2"].shape == (nh,))
    if not shapes_ok:
        raise UserError(f"the learned model {path} has weights of the wrong shape for {nf} features; {again}")
    if max_hidden is not None and nh > max_hidden:
        raise UserError(f"the learned model {path} has {nh} hidden units; this boardsim plays at most {max_hidden} "
                        f"(the planner's scratch is sized for them); {again} (--hidden {max_hidden} or fewer)")
    if not all(np.all(np.isfinite(v)) for v in net.values()) or not np.all(net["scale"] > 0):
        raise UserError(f"the learned model {path} has weights that are not finite numbers; {again}")
    if obj.get("sha256") != _digest(obj):
        raise UserError(f"the learned model {path} does not match its sha256 (edited or damaged); {again}")
    net["training"] = obj.get("training", {})
    net["hidden"] = nh
    return net


def packed(net: dict) -> np.ndarray:
    """A model read by ``read_model`` packed for ``value``."""
    return pack(net["mean"], net["scale"], net["W1"], net["b1"], net["W2"], net["b2"])


def net_array(net: dict, size: int, max_hidden: int) -> np.ndarray:
    """The network array of a model (as ``read_model`` reads it): packed, then zeros to `size`
    floats (ValueError beyond max_hidden units)."""
    if net["hidden"] > max_hidden:
        raise ValueError(f"a model of {net['hidden']} hidden units; at most {max_hidden}")
    p = packed(net)
    out = np.zeros(size, dtype=np.float64)
    out[:len(p)] = p
    return out


def no_net(size: int) -> np.ndarray:
    """A network array of `size` zeros: no network (net[0] = 0 features), so a player plays its
    planner's own choice (the first round of training)."""
    return np.zeros(size, dtype=np.float64)


def model_label(path: Path) -> str:
    """How reports name a model file: its sha256's first 8 digits and its training date (the file
    is read by ``read_model`` first, so it is a sound model)."""
    from simcore.limits import parse_nested, read_regular
    obj = parse_nested(lambda b: json.loads(b.decode("utf-8")), read_regular(path, str(path), MAX_MODEL_BYTES), str(path))
    date = obj.get("training", {}).get("date", "")
    return f"model {obj['sha256'][:8]}" + (f", trained {date[:10]}" if date else "")


class ModelFile:
    """A game's installed model file (``policies/<game>/learned.json``), read the one way: each
    learned player's ``model_record``, ``model_label`` and ``learned_available`` are this object's
    (``path=None``: the installed file)."""

    def __init__(self, path: Path, game: str, feature_names, command: str, max_hidden: int):
        self.path, self.game, self.feature_names = path, game, feature_names
        self.command, self.max_hidden = command, max_hidden

    def record(self, path: Path | None = None) -> dict:
        """The model file as read (UserError when it cannot be used)."""
        return read_model(self.path if path is None else path, self.game, self.feature_names,
                          self.command, self.max_hidden)

    def label(self, path: Path | None = None) -> str:
        """How reports name the model: its sha256's first 8 digits and its training date."""
        return model_label(self.path if path is None else path)

    def available(self, path: Path | None = None) -> bool:
        """A model file is installed (the ladder then has the learned and expert rungs); one that
        is there but cannot be used (damaged, edited, of another version) is the one-line
        UserError that names it, never a silently missing rung."""
        if not os.path.lexists(self.path if path is None else path):
            return False
        self.record(path)
        return True
