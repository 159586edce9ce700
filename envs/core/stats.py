"""Statistics every results table shares, and the noisy-judge model simulated judges share."""
from __future__ import annotations

import math
import random
from typing import Sequence

import numpy as np


def bootstrap_ci(values: Sequence[float], resamples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (booleans count as 0/1); ``(nan, nan)``
    when empty.

    The interval depends only on the multiset of values, not on their order: the values are
    sorted before resampling, so records that finished in another order (threads, Ray) give
    the same interval in every report.
    """
    x = np.sort(np.asarray([float(v) for v in values], dtype=float))
    if x.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``successes / n`` (``n`` > 0)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(s1: int, n1: int, s2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's hybrid score interval (his method 10) for ``s1/n1 - s2/n2``."""
    p1, p2 = s1 / n1, s2 / n2
    l1, u1 = wilson(s1, n1, z)
    l2, u2 = wilson(s2, n2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def simulated_verdict(truth: float, rng: random.Random, *, judge_acc: float, position_bias: float) -> float:
    """A simulated judge's verdict on "is the first shown better?" (1.0 first, 0.0 second).

    ``truth`` is 1.0 / 0.0 when the first / second really is better, 0.5 when
    they are equal. With probability ``position_bias`` the judge says "first"
    whatever it is shown; otherwise it is right with probability ``judge_acc``
    (equal ones: a coin flip). The synthetic LLM's compare answers and the report's simulated judge both use it.
    """
    if rng.random() < position_bias:
        return 1.0
    if truth == 0.5:
        return 1.0 if rng.random() < 0.5 else 0.0
    return truth if rng.random() < judge_acc else 1.0 - truth
