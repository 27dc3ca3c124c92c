"""Hypergraphs built from a feature table by the benchmark literature's two constructions:
nearest-neighbour hyperedges (HGNN's, ``"knn"``) and attribute-value hyperedges (zoo,
mushroom, 20newsw100: ``"values"``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import check_int
from ..hypergraph import Hypergraph
from ..hypergraph.validation import check_features
from ..operators.neighbors import cosine_knn

__all__ = ["CONSTRUCTIONS", "hypergraph_from_features"]

CONSTRUCTIONS = ("knn", "values")


def _check_table(X):
    """The table as float, finite, read-only, 2-d with at least 2 rows."""
    if np.ndim(X) != 2:
        raise ValueError(f"features must be a 2-d array (n_nodes, n_features), got {np.ndim(X)}-d")
    shape = np.shape(X)
    if shape[0] < 2 or shape[1] < 1:
        raise ValueError(f"features must have at least 2 rows and 1 column, got shape {shape}")
    return check_features(X, shape[0])


def _knn_incidence(X, n_neighbors: int, random_state) -> sp.csr_matrix:
    n = X.shape[0]
    k = min(n_neighbors, n - 1)
    idx, _ = cosine_knn(X, k, random_state=random_state)
    rows = np.concatenate([np.arange(n), idx.ravel()])
    cols = np.concatenate([np.arange(n), np.repeat(np.arange(n), idx.shape[1])])
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))


def _column_codes(X, n_bins: int) -> np.ndarray:
    """Per column, a code in ``[0, n_bins)``: distinct-value rank, or quantile bin."""
    n, d = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    sorted_x = np.take_along_axis(X, order, axis=0)
    new_value = np.vstack([np.ones((1, d), dtype=bool), sorted_x[1:] != sorted_x[:-1]])
    dense_rank = np.cumsum(new_value, axis=0) - 1          # rank among distinct values
    n_distinct = dense_rank[-1] + 1
    # quantile bin of each value: the share of rows strictly below it, in n_bins steps
    first_row = np.maximum.accumulate(np.where(new_value, np.arange(n)[:, None], 0), axis=0)
    quantile_bin = np.minimum(first_row * n_bins // n, n_bins - 1)
    code_sorted = np.where(n_distinct <= n_bins, dense_rank, quantile_bin)
    codes = np.empty_like(code_sorted)
    np.put_along_axis(codes, order, code_sorted, axis=0)
    return codes


def _values_incidence(X, n_bins: int) -> sp.csr_matrix:
    n, d = X.shape
    if sp.issparse(X):
        H = X.copy()
        H.data[:] = 1.0
        return H
    codes = _column_codes(X, n_bins)
    cols = (np.arange(d)[None, :] * n_bins + codes).ravel()
    rows = np.repeat(np.arange(n), d)
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d * n_bins))


def hypergraph_from_features(features, *, construction: str = "knn", n_neighbors: int = 5,
                             n_bins: int = 4, labels=None, random_state=0,
                             name: str | None = None) -> Hypergraph:
    """Build a hypergraph on the rows of a feature table; the features stay attached.

    Parameters
    ----------
    features : ndarray or scipy.sparse matrix, shape (n_nodes, n_features)
    construction : {"knn", "values"}, default "knn"
        ``"knn"``: hyperedge ``{i} + N(i)``, ``N(i)`` the ``n_neighbors`` most cosine-similar
        other nodes. ``"values"``: one hyperedge per (column, value), dense columns with more
        than ``n_bins`` values binned by quantiles; a sparse matrix: one per column.
    n_neighbors : int, default 5
    n_bins : int, default 4
    labels : array-like of int, shape (n_nodes,), optional
        Kept for evaluation only.
    random_state : int, default 0
        Seeds the kNN search's choice among tied neighbours.
    name : str, optional

    Returns
    -------
    Hypergraph
        Hyperedges of fewer than 2 members dropped, duplicates merged (``hg.cleaning``).

    Raises
    ------
    ValueError
        For an unknown construction, non-finite features, or fewer than 2 rows.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [0.1, 1.0], [1.0, 0.0], [1.0, 0.1]])
    >>> hg = hypergraph_from_features(X, construction="knn", n_neighbors=1)
    >>> sorted(map(sorted, (e.tolist() for e in hg.edges())))
    [[0, 1], [2, 3]]
    >>> hg = hypergraph_from_features(np.array([[0], [0], [1], [1]]), construction="values")
    >>> [e.tolist() for e in hg.edges()]
    [[0, 1], [2, 3]]
    """
    if construction not in CONSTRUCTIONS:
        raise ValueError(f"construction must be one of {CONSTRUCTIONS}, got {construction!r}")
    check_int(n_neighbors, "n_neighbors", 1)
    check_int(n_bins, "n_bins", 2)
    X = _check_table(features)
    if construction == "knn":
        H = _knn_incidence(X, int(n_neighbors), random_state)
    else:
        H = _values_incidence(X, int(n_bins))
    sizes = np.asarray(H.sum(axis=0)).ravel()
    H = sp.csc_matrix(H)[:, sizes >= 2]
    return Hypergraph.from_incidence(H, features=X, labels=labels, name=name,
                                    duplicates="merge")
