"""Row-wise top-``k`` selection of dense similarity blocks: largest values first, equal values by
increasing column position.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["top_k_sorted", "top_k_lowest_id", "order_by_value", "to_tie_grid", "from_tie_grid"]

TIE_DECIMALS = 10  # similarities equal to this many decimals are tied
_TIE_SCALE = 10.0 ** TIE_DECIMALS
_SELECTION_GROUPS = 128  # column groups whose maxima bound the k-th value of a row


def to_tie_grid(sim: np.ndarray) -> np.ndarray:
    """``sim`` in place as ``rint(sim * 10^TIE_DECIMALS)``, the key every neighbour selection sorts
    by, so that similarities a few ulps apart (BLAS block shapes, threads) tie.

    Examples
    --------
    >>> s = np.array([0.5, np.nextafter(0.5, 1.0), 0.25])
    >>> from_tie_grid(to_tie_grid(s)).tolist()
    [0.5, 0.5, 0.25]
    """
    np.multiply(sim, _TIE_SCALE, out=sim)
    return np.rint(sim, out=sim)


def from_tie_grid(values: np.ndarray) -> np.ndarray:
    """Similarities from their :func:`to_tie_grid` keys (a new array)."""
    return values / _TIE_SCALE


def top_k_lowest_id(sim: np.ndarray, k: int) -> np.ndarray:
    """Positions (rows, k) of each row's ``k`` largest entries, ties towards the lowest positions,
    in increasing position (the reference rule).
    """
    if k >= sim.shape[1]:
        return np.broadcast_to(np.arange(sim.shape[1]), sim.shape).copy()
    kth = -np.partition(-sim, k - 1, axis=1)[:, k - 1:k]
    above = sim > kth
    tied = sim == kth
    need = k - above.sum(axis=1, keepdims=True)
    take = above | (tied & (np.cumsum(tied, axis=1) <= need))
    return np.nonzero(take)[1].reshape(-1, k)


def top_k_sorted(sim: np.ndarray, k: int) -> np.ndarray:
    """Positions (rows, k) of each row's ``k`` largest entries by decreasing value, then position.

    The ``k``-th largest of ``G >= k`` interleaved column groups' maxima bounds the row's
    ``k``-th value, so only the entries at or above it are sorted; rows where that keeps over a
    quarter of the columns take :func:`top_k_lowest_id`.
    """
    rows, cols = sim.shape
    groups = min(cols, max(_SELECTION_GROUPS, 4 * k))
    if k >= cols or groups <= k:
        return order_by_value(sim, top_k_lowest_id(sim, min(k, cols)))
    s_row, s_col = sim.strides  # a view: column j * groups + g of the row is [j, g]
    dealt = as_strided(sim, (rows, cols // groups, groups), (s_row, groups * s_col, s_col),
                       writeable=False)
    group_max = dealt.max(axis=1)
    bound = np.partition(group_max, groups - k, axis=1)[:, groups - k]
    r, c = np.divmod(np.flatnonzero(sim >= bound[:, None]), cols)  # 2-D nonzero is 10x slower
    counts = np.bincount(r, minlength=rows)
    heavy = counts > max(4 * k, cols // 4)
    if heavy.any():
        keep = ~heavy[r]
        r, c = r[keep], c[keep]
        counts[heavy] = 0
    order = np.lexsort((-sim[r, c], r))  # stable: equal values stay in column order
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    light = np.flatnonzero(~heavy)
    top = np.empty((rows, k), dtype=np.int64)
    top[light] = c[order[(starts[light, None] + np.arange(k)).ravel()]].reshape(-1, k)
    if heavy.any():
        h = np.flatnonzero(heavy)
        top[h] = order_by_value(sim[h], top_k_lowest_id(sim[h], k))
    return top


def order_by_value(sim: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Positions ``top`` (rows, k) reordered by decreasing value, ties by position."""
    order = np.lexsort((top, -np.take_along_axis(sim, top, axis=1)), axis=1)
    return np.take_along_axis(top, order, axis=1)
