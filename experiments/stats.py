"""Statistics for reports: every rate is printed with its 95% interval."""
from __future__ import annotations

import math

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (Wilson 1927). Unlike the normal
    approximation it stays inside [0, 1] and behaves at k = 0 or k = n, which matters here:
    win rates of weak policies are often 0 in millions of games."""
    if n <= 0:
        return (float("nan"), float("nan"))
    ph = k / n
    denom = 1 + z * z / n
    centre = (ph + z * z / (2 * n)) / denom
    half = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def pct(x: float) -> str:
    """A rate as a percentage that never hides a small bound: 3 decimals from 0.1%, else 3
    significant digits (0 wins in a million games: CI 0% to 0.000384%, not 0.000% to 0.000%)."""
    if x == 0:
        return "0%"
    v = 100 * x
    return f"{v:.3f}%" if v >= 0.1 else f"{v:.3g}%"
