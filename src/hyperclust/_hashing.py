"""A fixed pseudo-random word per integer (no state, the same on every machine)."""

from __future__ import annotations

import numpy as np

__all__ = ["mix64"]


def mix64(x):
    """SplitMix64 finaliser: a fixed pseudo-random uint64 word per integer, shape of ``x``.

    Examples
    --------
    >>> mix64(np.array([0, 1])).tolist() == mix64(np.array([0, 1])).tolist()
    True
    >>> bool(mix64(np.array([0]))[0] != mix64(np.array([1]))[0])
    True
    """
    z = np.asarray(x).astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
