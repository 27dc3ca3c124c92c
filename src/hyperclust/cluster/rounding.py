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
import scipy.sparse as sp

from ..runtime.threads import kernel_thread_limit

__all__ = ["normalize_rows", "first_near_minimum", "first_near_maximum", "kmeans_labels",
           "kmeans_on_rows", "TINY_ROW", "TIE_TOLERANCE"]

#: Rows of norm below this times the largest row norm are zero rows for the discretisation.
TINY_ROW = 1e-12


def normalize_rows(V: np.ndarray, scale: float, norms: np.ndarray | None = None) -> np.ndarray:
    """Rows of ``V`` scaled to unit norm; rows of norm at most ``TINY_ROW * scale`` (``scale``
    the largest row norm) set to zero.

    A row that is zero in exact arithmetic (a node the leading iterates do not reach) comes
    out of the QR as rounding noise (~1e-18); normalised, the noise would be a unit row
    pointing anywhere, and the node's label would follow the rounding, which changes with
    the order of the hyperedges and with a blockwise computation.

    Parameters
    ----------
    V : ndarray, shape (n, k)
    scale : float
        The largest row norm of ``V``.
    norms : ndarray, shape (n,), optional
        ``V``'s row norms when the caller has them already (not computed again).

    Returns
    -------
    ndarray, shape (n, k)

    Examples
    --------
    >>> normalize_rows(np.array([[3.0, 4.0], [1e-18, -1e-18], [0.0, 2.0]]), 5.0).tolist()
    [[0.6, 0.8], [0.0, 0.0], [0.0, 1.0]]
    """
    if norms is None:
        norms = np.linalg.norm(V, axis=1)
    norms = norms[:, None]
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
    return np.argmax(P >= P.max(axis=1, keepdims=True) - tol, axis=1)


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
    norms = np.linalg.norm(X, axis=1)
    X = normalize_rows(X, float(norms.max(initial=0.0)), norms)
    return kmeans_labels(X, k, 10, seed).astype(np.int64)


def kmeans_labels(embedding: np.ndarray, n_clusters: int, n_init: int, random_state: int):
    """k-means with ``n_init`` seeded restarts, on the threads its size pays for (the
    ``"kmeans"`` rule of :mod:`hyperclust.runtime.threads`); returns labels, shape (n_nodes,).
    An embedding with fewer distinct rows than ``n_clusters`` (a feature-less input's
    constant columns) has one cluster per distinct row, found without k-means (which would
    say so in a warning the caller can do nothing about: the selection of ``auto`` ranks
    such a result last).

    Examples
    --------
    >>> Z = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> kmeans_labels(Z, 2, n_init=4, random_state=0).tolist()
    [1, 1, 0, 0]
    >>> kmeans_labels(np.ones((4, 2)), 2, n_init=4, random_state=0).tolist()
    [0, 0, 0, 0]
    """
    from sklearn.cluster import KMeans

    if not sp.issparse(embedding):
        rows = np.asarray(embedding, dtype=np.float64).reshape(np.shape(embedding)[0], -1)
        # distinct rows, through one random direction: equal rows project alike
        key = rows @ np.random.default_rng(0).standard_normal(rows.shape[1])
        distinct, inverse = np.unique(key, return_inverse=True)
        if distinct.size < n_clusters:
            return inverse.reshape(-1).astype(np.int64)
    shape = np.shape(embedding)
    work = float(shape[0]) * n_clusters * (shape[1] if len(shape) > 1 else 1)
    with kernel_thread_limit("kmeans", work):
        km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state)
        return km.fit_predict(embedding)
