"""Choices that do not follow rounding noise: the discretisation's zero rows and exact ties
are decided the same way whatever the summation order (hyperedge order, blockwise products),
so labels do not depend on the order of the hyperedges or on a partition across workers.
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
    """Rows of ``V`` scaled to unit norm; rows of norm at most ``TINY_ROW * scale`` (rounding
    noise of an exact zero row) set to zero.

    ``norms``: ``V``'s row norms, if already computed.

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

    Examples
    --------
    >>> first_near_minimum(np.array([3.0, 1e-17, 0.0, 2.0]))
    1
    """
    return int(np.flatnonzero(c <= c.min() + tol)[0])


def first_near_maximum(P: np.ndarray, tol: float = TIE_TOLERANCE) -> np.ndarray:
    """Per row of ``P``, the first column within ``tol`` of the row's maximum.

    Examples
    --------
    >>> first_near_maximum(np.array([[1e-17, 0.0, -1e-17], [0.1, 0.5, 0.2]])).tolist()
    [0, 1]
    """
    return np.argmax(P >= P.max(axis=1, keepdims=True) - tol, axis=1)


def kmeans_on_rows(embedding, k, seed):
    """Labels (n,) of k-means (10 restarts) on the row-normalised ``embedding`` (n, k): the
    fallback when every discretised check is degenerate.

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
    """Labels (n_nodes,) of k-means with ``n_init`` seeded restarts; with fewer distinct rows
    than ``n_clusters``, one cluster per distinct row (no k-means, no warning).

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
