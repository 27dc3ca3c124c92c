"""Row-wise top-``k`` selection of dense similarity blocks with a deterministic tie rule:
the largest values first, equal values by increasing column position.

Used by the exact cosine kNN (:mod:`hyperclust.operators.neighbors`), whose cost would
otherwise be dominated by choosing the neighbours rather than computing the similarities.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["top_k_sorted", "top_k_lowest_id", "order_by_value", "to_tie_grid", "from_tie_grid"]

TIE_DECIMALS = 10  # similarities equal to this many decimals are tied
_TIE_SCALE = 10.0 ** TIE_DECIMALS
_SELECTION_GROUPS = 128  # column groups whose maxima bound the k-th value of a row


def to_tie_grid(sim: np.ndarray) -> np.ndarray:
    """``sim`` (float64) in place as ``rint(sim * 10^TIE_DECIMALS)``: the key every
    neighbour selection sorts by. Mathematically equal similarities come out of BLAS kernels
    a few ulps apart depending on block shape, threads and library version; on this grid
    they are equal, so the tie rule (position or seeded rank), not the library, decides.
    In place because the blocks are large and the search's own (one pass less than
    ``np.round``, same values: :func:`from_tie_grid` of it is ``np.round(sim, 10)``).

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
    """Column positions of the ``k`` largest entries of each row, ties at the ``k``-th value
    resolved towards the lowest positions; shape (rows, k), in increasing position.
    Reference rule, ``O(rows * cols)`` passes; used for the rows :func:`top_k_sorted` cannot
    bound tightly."""
    if k >= sim.shape[1]:
        return np.broadcast_to(np.arange(sim.shape[1]), sim.shape).copy()
    kth = -np.partition(-sim, k - 1, axis=1)[:, k - 1:k]
    above = sim > kth
    tied = sim == kth
    need = k - above.sum(axis=1, keepdims=True)
    take = above | (tied & (np.cumsum(tied, axis=1) <= need))
    return np.nonzero(take)[1].reshape(-1, k)


def top_k_sorted(sim: np.ndarray, k: int) -> np.ndarray:
    """Column positions of the ``k`` largest entries of each row, ordered by decreasing value
    then increasing position (the rule of :func:`top_k_lowest_id`); shape (rows, k).

    The columns are dealt into ``G >= k`` interleaved groups; the ``k``-th largest of the
    group maxima is a lower bound of the row's ``k``-th largest (``k`` distinct groups hold an
    entry at or above it), so the entries at or above it contain the answer. Two streaming
    passes (group maxima, comparison) find them and a stable sort of those few survivors
    orders them: no full-row partition. Rows where the bound keeps over a quarter of the
    columns (zero rows, massive ties) take the full-row rule instead.
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
    """Positions ``top`` (shape (rows, k)) reordered by decreasing value, ties by position."""
    order = np.lexsort((top, -np.take_along_axis(sim, top, axis=1)), axis=1)
    return np.take_along_axis(top, order, axis=1)
