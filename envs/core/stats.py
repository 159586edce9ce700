"""Statistics every results table shares."""
from __future__ import annotations

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
