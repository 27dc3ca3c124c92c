"""Choices that do not follow rounding noise: AHCKA's discretisation
(:func:`hyperclust.cluster.ahcka.discretize` and its blockwise version in
:mod:`hyperclust.distributed.ahcka`) meets rows that are zero in exact arithmetic and exact
ties; rounding (~1e-17, which changes with the summation order: the order of the
hyperedges, a blockwise product) would decide them, so the labels would depend on the order
of the hyperedges and on the partition. These helpers decide them the same way whatever the
rounding, in one process and on a cluster.
"""

from __future__ import annotations

import numpy as np

from ..kernel_threads import kernel_thread_limit

__all__ = ["normalize_rows", "first_near_minimum", "first_near_maximum", "rotated_labels",
           "kmeans_labels",
           "kmeans_on_rows", "TINY_ROW", "TIE_TOLERANCE"]

#: Rows of norm below this times the largest row norm are zero rows for the discretisation.
TINY_ROW = 1e-12


def normalize_rows(V: np.ndarray, scale: float | None = None) -> np.ndarray:
    """Rows of ``V`` scaled to unit norm; rows of norm at most ``TINY_ROW * scale`` (``scale``
    the largest row norm: of ``V`` when None, of the whole matrix when ``V`` is a block of
    it) set to zero.

    A row that is zero in exact arithmetic (a node the leading iterates do not reach) comes
    out of the QR as rounding noise (~1e-18); normalised, the noise would be a unit row
    pointing anywhere, and the node's label would follow the rounding, which changes with
    the order of the hyperedges and with a blockwise computation.

    Examples
    --------
    >>> normalize_rows(np.array([[3.0, 4.0], [1e-18, -1e-18], [0.0, 2.0]]), 5.0).tolist()
    [[0.6, 0.8], [0.0, 0.0], [0.0, 1.0]]
    >>> normalize_rows(np.array([[3.0, 4.0], [1e-18, -1e-18]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    if scale is None:
        scale = float(norms.max(initial=0.0))
    return np.divide(V, norms, out=np.zeros_like(V), where=norms > TINY_ROW * scale)


#: Values within this of the best count as tied in the discretisation's choices.
TIE_TOLERANCE = 1e-10


def first_near_minimum(c: np.ndarray, tol: float = TIE_TOLERANCE) -> int:
    """The first index whose value is within ``tol`` of the minimum of ``c``.

    The discretisation's choices meet exact ties (rows of other connected components are
    orthogonal to every row taken, so their scores are all 0); rounding (~1e-17, which
    changes with the summation order: the order of the hyperedges, a blockwise product)
    would break them at random. With a tolerance the first tied entry wins whatever the
    rounding, so the labels do not depend on the order of the hyperedges or on the
    partition.

    Examples
    --------
    >>> first_near_minimum(np.array([3.0, 1e-17, 0.0, 2.0]))
    1
    """
    return int(np.flatnonzero(c <= c.min() + tol)[0])


def first_near_maximum(P: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """Per row of ``P``, the first column within ``tol`` of the row's maximum (an
    ``argmax`` whose ties do not depend on rounding, see :func:`first_near_minimum`).

    Examples
    --------
    >>> first_near_maximum(np.array([[1e-17, 0.0, -1e-17], [0.1, 0.5, 0.2]])).tolist()
    [0, 1]
    """
    # column by column: numpy's reductions along a short row run ~3x slower than
    # elementwise passes over the columns (k = 4: 13 vs 4 ms per 2.5e5 rows); same labels
    n, k = P.shape
    threshold = P[:, 0].copy()
    for j in range(1, k):
        np.maximum(threshold, P[:, j], out=threshold)
    threshold -= tol
    labels = np.zeros(n, dtype=np.intp)
    for j in range(k - 1, -1, -1):  # the first column within tol wins: it is set last
        labels[P[:, j] >= threshold] = j
    return labels


#: Entries of one row block of :func:`rotated_labels` (2^16 doubles: 512 KB, in cache).
ROTATED_BLOCK_ENTRIES = 2**16


def rotated_labels(X: np.ndarray, R: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """``first_near_maximum(X @ R)`` by blocks of rows: each block's products stay in cache
    for the argmax's passes over its columns, and no ``(n, k)`` product is held (at
    2.5e6 x 4: 55 ms instead of 97 ms per call, one thread, the machine under load).

    Parameters
    ----------
    X : ndarray, shape (n, c)
    R : ndarray, shape (c, k)
    tol : float, default TIE_TOLERANCE

    Returns
    -------
    ndarray of intp, shape (n,)

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    >>> rotated_labels(X, np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [1, 0, 0]
    """
    n = X.shape[0]
    labels = np.empty(n, dtype=np.intp)
    rows = max(1, ROTATED_BLOCK_ENTRIES // max(1, R.shape[1]))
    for start in range(0, n, rows):
        labels[start:start + rows] = first_near_maximum(X[start:start + rows] @ R, tol)
    return labels


def kmeans_on_rows(embedding, k, seed):
    """k-means (10 restarts) on the row-normalised embedding: the fallback when every
    discretised check is degenerate (also :class:`~hyperclust.distributed.DistributedAHCKA`'s).

    Parameters
    ----------
    embedding : ndarray, shape (n, k)
    k : int
    seed : int

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> V = np.array([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.1, 3.0]])
    >>> labels = kmeans_on_rows(V, 2, 0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    X = np.asarray(embedding, dtype=np.float64)
    X = normalize_rows(X)
    return kmeans_labels(X, k, 10, seed).astype(np.int64)


def kmeans_labels(embedding: np.ndarray, n_clusters: int, n_init: int, random_state: int):
    """k-means with ``n_init`` seeded restarts, on the threads its size pays for (the
    ``"kmeans"`` rule of :mod:`hyperclust.kernel_threads`); returns labels, shape (n_nodes,).

    Examples
    --------
    >>> Z = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> kmeans_labels(Z, 2, n_init=4, random_state=0).tolist()
    [1, 1, 0, 0]
    """
    from sklearn.cluster import KMeans

    shape = np.shape(embedding)
    work = float(shape[0]) * n_clusters * (shape[1] if len(shape) > 1 else 1)
    with kernel_thread_limit("kmeans", work):
        km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state)
        return km.fit_predict(embedding)
