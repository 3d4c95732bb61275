"""The counter-based RNG: the published splitmix64 sequence, independence of keys, uniformity."""
import numpy as np

from simcore.rng import below, draw, fill_below, mix64, stream_key


def test_splitmix64_reference_outputs():
    # splitmix64 seeded with 0 (Vigna's reference implementation): its first outputs
    assert int(draw(np.uint64(0), 0)) == 0xE220A8397B1DCDAF
    assert int(draw(np.uint64(0), 1)) == 0x6E789E6AA1B965F4
    assert int(draw(np.uint64(0), 2)) == 0x06C45D188009454F


def test_keys_differ_by_seed_game_and_stream():
    keys = {int(stream_key(s, g, t)) for s in range(4) for g in range(50) for t in range(5)}
    assert len(keys) == 4 * 50 * 5


def test_same_key_same_numbers():
    k = np.uint64(stream_key(9, 3, 1))
    assert [int(below(k, i, 84)) for i in range(20)] == [int(below(k, i, 84)) for i in range(20)]
    assert int(mix64(np.uint64(12345))) == int(mix64(np.uint64(12345)))


def test_below_is_uniform():
    # chi-square goodness of fit (scipy) over 6 cells and 84 cells at a fixed seed, p > 0.001
    from scipy.stats import chisquare
    for n in (6, 84):
        out = np.zeros(120_000, np.int64)
        fill_below(np.uint64(stream_key(1, 2, 3)), 0, n, out)
        assert out.min() == 0 and out.max() == n - 1
        assert chisquare(np.bincount(out, minlength=n)).pvalue > 0.001


def test_below_consecutive_draws_are_uncorrelated():
    out = np.zeros(100_000, np.int64)
    fill_below(np.uint64(stream_key(5, 0, 0)), 0, 2, out)
    x = out[:-1] * 2 - 1
    y = out[1:] * 2 - 1
    assert abs((x * y).mean()) < 0.015  # about 4.7 standard errors
