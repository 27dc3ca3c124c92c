"""AHCKA's discretisation step ``labels = first_near_maximum(X @ R)`` by cache-sized row
blocks, the product formed transposed so the tie-robust argmax runs along contiguous rows;
same rule and result as :func:`~hyperclust.cluster.rounding.first_near_maximum`.
"""

from __future__ import annotations

import numpy as np

from ..operators.row_ranges import run_on_ranges
from .rounding import TIE_TOLERANCE

__all__ = ["rotated_labels", "rotated_labels_and_sums", "first_near_maximum_down_columns",
           "BLOCK_ENTRIES"]

#: Entries of one row block of :func:`rotated_labels` (2^16 doubles: 512 KB, in cache).
BLOCK_ENTRIES = 2**16


def first_near_maximum_down_columns(Pt: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """:func:`~hyperclust.cluster.rounding.first_near_maximum` of ``Pt.T``, shape (n,), for
    ``Pt`` of shape (k, n) (0 where no row qualifies, e.g. a NaN column).

    Examples
    --------
    >>> first_near_maximum_down_columns(np.array([[1e-17, 0.1], [0.0, 0.5], [-1e-17, 0.2]])).tolist()
    [0, 1]
    """
    k = Pt.shape[0]
    threshold = np.max(Pt, axis=0)
    threshold -= tol
    before_first = ~(Pt[0] >= threshold)  # no row within tol yet (a NaN column: all rows)
    labels = before_first.astype(np.intp)
    for j in range(1, k):
        before_first &= ~(Pt[j] >= threshold)
        labels += before_first
    labels[labels == k] = 0  # no row qualifies
    return labels


def rotated_labels(X: np.ndarray, R: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """``first_near_maximum(X @ R)``, shape (n,), without holding the ``(n, k)`` product.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> rotated_labels(X, np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [1, 0, 0]
    """
    return _blockwise(X, R, tol, sums=False)[0]


def rotated_labels_and_sums(X: np.ndarray, R: np.ndarray, tol: float = TIE_TOLERANCE,
                            n_threads: int = 1):
    """``(labels, sums)``: :func:`rotated_labels` and ``B^T X`` (``B`` the indicators of
    ``labels``, shape (k, c)) in one pass over ``X``; ``X`` must be finite.

    The per-block sums are added in block order: the same for any ``n_threads``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> labels, sums = rotated_labels_and_sums(X, np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> labels.tolist(), sums.tolist()
    ([1, 0, 0], [[0.6, 1.8], [1.0, 0.0]])
    """
    return _blockwise(X, R, tol, sums=True, n_threads=n_threads)


def _blockwise(X, R, tol, *, sums, n_threads=1):
    n, c = X.shape
    k = R.shape[1]
    rows = max(1, BLOCK_ENTRIES // max(1, k))
    n_blocks = -(-n // rows)
    labels = np.empty(n, dtype=np.intp)
    partial = np.empty((n_blocks, k, c)) if sums else None

    def label_blocks(first, last):
        indicators = np.empty((k, rows)) if sums else None  # B^T of a block
        for b in range(first, last):
            lo, hi = b * rows, min(n, (b + 1) * rows)
            labels[lo:hi] = first_near_maximum_down_columns(R.T @ X[lo:hi].T, tol)
            if sums:
                Bt = indicators[:, :hi - lo]
                np.equal(np.arange(k)[:, None], labels[lo:hi], out=Bt, casting="unsafe")
                np.matmul(Bt, X[lo:hi], out=partial[b])

    n_threads = max(1, min(int(n_threads), n_blocks))
    run_on_ranges(label_blocks, np.linspace(0, n_blocks, n_threads + 1).round().astype(int))
    return labels, (partial.sum(axis=0) if sums else None)
