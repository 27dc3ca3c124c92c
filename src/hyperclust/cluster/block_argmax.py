"""AHCKA's discretisation step ``labels = first_near_maximum(X @ R)`` at memory speed.

:func:`~hyperclust.cluster.rounding.first_near_maximum` reduces along each short row of an
``(n, k)`` array (numpy's slowest reduction layout) and the full product ``X @ R`` is a fresh
``(n, k)`` array per step. Here the product is formed one row block at a time (the block
stays in cache) and the tie-robust argmax runs as elementwise passes over the block's
columns. The rule and the result are :func:`~hyperclust.cluster.rounding.first_near_maximum`'s
(tested equal, ties and zero rows included).
"""

from __future__ import annotations

import numpy as np

from .rounding import TIE_TOLERANCE

__all__ = ["rotated_labels", "first_near_maximum_by_columns", "BLOCK_ENTRIES"]

#: Entries of one row block of :func:`rotated_labels` (2^16 doubles: 512 KB, in cache).
BLOCK_ENTRIES = 2**16


def first_near_maximum_by_columns(P: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """Per row of ``P``, the first column within ``tol`` of the row's maximum, computed
    column by column (the rule of :func:`~hyperclust.cluster.rounding.first_near_maximum`:
    0 where no column qualifies, e.g. a NaN row).

    Parameters
    ----------
    P : ndarray, shape (n, k), k >= 1
    tol : float, default TIE_TOLERANCE

    Returns
    -------
    ndarray of intp, shape (n,)

    Examples
    --------
    >>> first_near_maximum_by_columns(np.array([[1e-17, 0.0, -1e-17], [0.1, 0.5, 0.2]])).tolist()
    [0, 1]
    """
    n, k = P.shape
    threshold = P[:, 0].copy()
    for j in range(1, k):
        np.maximum(threshold, P[:, j], out=threshold)
    threshold -= tol
    labels = np.zeros(n, dtype=np.intp)
    for j in range(k - 1, -1, -1):  # the first column within tol wins: it is set last
        labels[P[:, j] >= threshold] = j
    return labels


def rotated_labels(X: np.ndarray, R: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """``first_near_maximum(X @ R)`` by blocks of rows; no ``(n, k)`` product is held (at
    2.5e6 x 4: 55 ms instead of ~130 ms per call, one thread, the machine under load).

    Parameters
    ----------
    X : ndarray, shape (n, c)
        Rows to label (AHCKA: the row-normalised embedding).
    R : ndarray, shape (c, k), k >= 1
        The rotation; column ``j`` scores label ``j``.
    tol : float, default TIE_TOLERANCE

    Returns
    -------
    labels : ndarray of intp, shape (n,)
        ``first_near_maximum(X @ R)``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> rotated_labels(X, np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [1, 0, 0]
    """
    n = X.shape[0]
    labels = np.empty(n, dtype=np.intp)
    rows = max(1, BLOCK_ENTRIES // max(1, R.shape[1]))
    for start in range(0, n, rows):
        labels[start:start + rows] = first_near_maximum_by_columns(X[start:start + rows] @ R,
                                                                   tol)
    return labels
