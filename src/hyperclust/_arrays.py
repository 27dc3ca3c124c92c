"""Array helpers shared by the kernels."""

from __future__ import annotations

import numpy as np

__all__ = ["unique_inverse"]

#: Widest id range, per value, that :func:`unique_inverse` covers with a table (past it, a sort).
TABLE_SPAN_PER_VALUE = 4


def unique_inverse(values):
    """``np.unique(values, return_inverse=True)`` for non-negative ints, by a table where it pays.

    The table over the ids' range replaces the sort unless the range exceeds
    :data:`TABLE_SPAN_PER_VALUE` times the count.

    Parameters
    ----------
    values : ndarray of int, shape (m,)

    Returns
    -------
    unique : ndarray, shape (u,)
    inverse : ndarray of intp, shape (m,)

    Examples
    --------
    >>> u, inv = unique_inverse(np.array([7, 3, 7, 5]))
    >>> u.tolist(), inv.tolist()
    ([3, 5, 7], [2, 0, 2, 1])
    """
    values = np.asarray(values).reshape(-1)
    if values.size == 0:
        return values.copy(), np.zeros(0, dtype=np.intp)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo + 1 > TABLE_SPAN_PER_VALUE * values.size:
        unique, inverse = np.unique(values, return_inverse=True)
        return unique, inverse.reshape(-1).astype(np.intp, copy=False)
    present = np.zeros(hi - lo + 1, dtype=bool)
    present[values - lo] = True
    unique = (np.flatnonzero(present) + lo).astype(values.dtype, copy=False)
    position = np.cumsum(present, dtype=np.intp) - 1
    return unique, position[values - lo]
