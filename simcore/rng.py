"""Counter-based random numbers keyed by (master seed, game index, stream).

Every random number boardsim uses is a pure function of four integers: the master seed, the game
index, the stream and a counter that the caller advances. Nothing depends on which thread plays a
game or how the game indices are chunked, so a run is bit-identical on any number of threads.

The generator is splitmix64 (Steele, Lea, Flood 2014): the n-th number of a stream is the
splitmix64 finaliser applied to ``key + (n + 1) * golden``. The key of a (seed, game, stream)
triple is itself made by chaining the finaliser, so neighbouring games and streams are unrelated.

Streams (a convention shared by every game):
    STREAM_CHANCE = 0      setup and every chance event of the game
    STREAM_POLICY + seat   the policy deciding for that seat (1, 2, 3, 4)

Chance is keyed by event: the chance stream's key is split by ``substream`` into one sub-stream
per kind of event (each setup step, "a malfunction is drawn", "a tile is revealed", ...), and the
n-th event of a kind uses number n of its sub-stream. Two policies, characters or rule variants on
the same seed therefore see the same n-th draw of a kind whenever what it draws from is the same
(docs/engine_api.md). A policy's stream is split per decision the same way (``draw`` gives the
key of decision d), so a policy that draws many numbers shifts nothing else.

These are ``@njit`` functions and can also be called from plain Python (the reference engines do).
"""
import numpy as np
from numba import njit

STREAM_CHANCE = 0
STREAM_POLICY = 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit(cache=True)
def mix64(z):
    """The splitmix64 finaliser: a bijection on uint64 with good avalanche."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_key(seed, game):
    """The key of one game of one run, from which its streams are made (stream_of)."""
    k = mix64(np.uint64(seed) + _GOLDEN)
    return mix64(k ^ (np.uint64(game) * _M1))


@njit(cache=True)
def stream_of(gkey, stream):
    """The key of one stream of the game with key gkey (game_key): a play loop making several
    streams of one game hashes the seed and the game once."""
    return mix64(np.uint64(gkey) ^ (np.uint64(stream) * _M2 + _GOLDEN))


@njit(cache=True)
def stream_key(seed, game, stream):
    """The key of one stream of one game of one run: stream_of(game_key(seed, game), stream)."""
    return stream_of(game_key(seed, game), stream)


@njit(cache=True)
def draw(key, counter):
    """The counter-th 64-bit number of the stream with this key."""
    return mix64(np.uint64(key) + (np.uint64(counter) + np.uint64(1)) * _GOLDEN)


@njit(cache=True)
def substream(key, kind):
    """The key of sub-stream ``kind`` (a small integer) of the stream with this key."""
    return mix64(np.uint64(key) ^ ((np.uint64(kind) + np.uint64(1)) * _M2))


@njit(cache=True)
def below(key, counter, n):
    """A uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift on the top 32 bits;
    the bias is at most n / 2**32)."""
    hi = draw(key, counter) >> _S32
    return np.int64((hi * np.uint64(n)) >> _S32)


@njit(cache=True)
def fill_below(key, start, n, out):
    """out[i] = below(key, start + i, n): used by tests of uniformity."""
    for i in range(out.shape[0]):
        out[i] = below(key, start + i, n)


@njit(cache=True, _nrt=False)
def shuffle(s, off, n, key, c):
    """Fisher-Yates shuffle of s[off:off+n] in place, drawing below(key, c, i + 1) for i = n-1 .. 1;
    returns the next counter. The games' setups use it, so their draw order is this one."""
    for i in range(n - 1, 0, -1):
        j = below(key, c, i + 1)
        c += 1
        tmp = s[off + i]
        s[off + i] = s[off + j]
        s[off + j] = tmp
    return c
