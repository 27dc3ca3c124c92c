"""AHCKA's discretisation step ``labels = first_near_maximum(X @ R)`` at memory speed.

:func:`~hyperclust.cluster.rounding.first_near_maximum` reduces along each short row of an
``(n, k)`` array (numpy's slowest reduction layout) and the full product ``X @ R`` is a fresh
``(n, k)`` array per step. Here the product is formed transposed, ``R^T X_b^T`` (the same
values), one row block at a time (the block stays in cache), and the tie-robust argmax runs
as elementwise passes along its contiguous rows. The rule and the result are :func:`~hyperclust.cluster.rounding.first_near_maximum`'s
(tested equal, ties and zero rows included).

:func:`rotated_labels_and_sums` also returns ``B^T X`` (the sums of the rows of ``X`` per
label) from the same pass: the discretisation's step is then one read of ``X`` instead of
one plus ``k`` strided column copies and ``k`` ``bincount`` passes (2.4x less CPU at
``2.5e6 x 4``).

Its blocks can go to threads (``n_threads``; AHCKA passes the ``"discretize"`` rule of
:data:`~hyperclust.runtime.threads.KERNELS`). Each block is ~20 numpy calls of a few
microseconds, and every call hands the GIL over between the threads: under load, with 2
threads each thread's half took about twice the one-thread time of the whole (2.5e6 x 4),
so nothing was gained or lost; on the idle machine 2 threads took 25% less wall time
(``benchmarks/studies/bench_ahcka_check.py`` times both). The sums are the same for any
thread count.
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
    """:func:`~hyperclust.cluster.rounding.first_near_maximum` of ``Pt.T``: per column of
    ``Pt`` the first row within ``tol`` of the column's maximum (0 where none qualifies, e.g.
    a NaN column). Every pass runs along a contiguous row of length ``n`` (a reduction over
    the short rows of ``Pt.T`` is numpy's slowest layout): at ``k = 4`` ~4x less CPU than
    the same rule column by column on ``Pt.T``.

    Parameters
    ----------
    Pt : ndarray, shape (k, n), k >= 1
    tol : float, default TIE_TOLERANCE

    Returns
    -------
    ndarray of intp, shape (n,)

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
    return _blockwise(X, R, tol, sums=False)[0]


def rotated_labels_and_sums(X: np.ndarray, R: np.ndarray, tol: float = TIE_TOLERANCE,
                            n_threads: int = 1):
    """``(labels, sums)``: :func:`rotated_labels` and ``B^T X`` (``B`` the indicators of
    ``labels``) in one pass over ``X`` by row blocks.

    ``sums`` adds per-block sums in block order: the same numbers for any thread count;
    against one ``bincount`` over all rows the summation order differs (~1e-16 relative).

    Parameters
    ----------
    X : ndarray, shape (n, c)
    R : ndarray, shape (c, k), k >= 1
    tol : float, default TIE_TOLERANCE
    n_threads : int, default 1
        Threads the blocks are split over (see the module: one thread is as fast).

    Returns
    -------
    labels : ndarray of intp, shape (n,)
    sums : ndarray of float64, shape (k, c)
        ``sums[j]``: the sum of the rows of ``X`` labelled ``j``, as the product of the
        blocks' indicators with ``X`` (a non-finite row would reach every ``sums[j]``:
        ``X`` must be finite, as a row-normalised embedding is).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> labels, sums = rotated_labels_and_sums(X, np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> labels.tolist(), sums.tolist()
    ([1, 0, 0], [[0.6, 1.8], [1.0, 0.0]])
    """
    return _blockwise(X, R, tol, sums=True, n_threads=n_threads)


def _blockwise(X, R, tol, *, sums, n_threads=1):
    """``(labels, sums or None)`` of :func:`rotated_labels_and_sums`."""
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
