"""Statistics every results table shares, and the noisy-judge model simulated judges share."""
from __future__ import annotations

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
