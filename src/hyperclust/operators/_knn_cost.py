"""Which cosine kNN search ``method="auto"`` runs: the exact one up to the input size where
the approximate one (faiss HNSW, exact re-ranking) was measured to cost less, per dimension.

Measured (``benchmarks/studies/bench_knn_crossover.py``: CPU seconds, one thread, K = 10,
minimum of 3, exact extrapolated from 2,048 queries; machine shared, load 2-6; Gaussian
mixtures, dense products; docs/results/knn.md):

=========  =====================  =====================  =====================
d          n = 10^4 exact / HNSW  3·10^4                 10^5
=========  =====================  =====================  =====================
32         0.35 / 0.99            2.89 / 3.95            37.6 / 19.3
128        0.73 / 1.11            6.80 / 6.58            99.4 / 44.4
=========  =====================  =====================  =====================

The exact search costs ``O(n^2 d)``, the approximate one ``~O(n^1.3..1.6)``; the sizes where
the two cost the same (log-log interpolation between the measured sizes) are
:data:`DENSE_CROSSOVER`. Between the measured dimensions the crossover is interpolated in
``log d``; outside them the nearest measured one is used (not extrapolated).

Inputs searched with sparse products (under 5% nonzeros: bag-of-words) are searched
exactly up to :data:`EXACT_MAX_NODES` nodes, and beyond it while the exact search's
predicted CPU is at most :data:`EXACT_COST_RATIO` times the approximate one's. The exact
sparse search's work is its pair products ``sum_w df_w^2`` (:func:`pair_products`; ``df_w``
= rows holding column ``w``), :data:`EXACT_NS_PER_PAIR` each; the approximate search (SVD
projection, HNSW, re-ranking of 8K candidates, one refinement round) costs about
:data:`APPROX_US_PER_ROW` per row. The exact search is worth more than its cost there: on
those inputs the approximate lists hold only part of the exact ones (recall@10 .41 on a
10^5 x 5,000 bag-of-words, .56 on a 10^5 x 1,000 one: the index sees a 128-d projection
that cannot see rare shared words; docs/results/knn_rerank.md) and ``auto``'s quality falls
with recall (docs/results/knn.md).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["APPROX_US_PER_ROW", "DENSE_CROSSOVER", "EXACT_COST_RATIO", "EXACT_MAX_NODES",
           "EXACT_NS_PER_PAIR", "exact_search_pays", "pair_products"]

DENSE_CROSSOVER = ((32, 44_000), (128, 29_000))
"""``(d, n)``: from ``n`` nodes of ``d`` dense dimensions the approximate search is cheaper."""

EXACT_MAX_NODES = 30_000
"""Inputs with sparse products up to this many nodes are always searched exactly."""

EXACT_NS_PER_PAIR = 16.0
"""CPU nanoseconds per pair product of the exact sparse search (one thread)."""

APPROX_US_PER_ROW = 450.0
"""CPU microseconds per row of the approximate search of an SVD-projected input."""

EXACT_COST_RATIO = 3.0
"""Beyond :data:`EXACT_MAX_NODES`, sparse inputs are searched exactly while that costs at
most this many times the approximate search (predicted)."""


def exact_search_pays(n_nodes: int, n_dims: int, sparse_products: bool,
                      pair_products: float | None = None) -> bool:
    """Whether ``method="auto"`` searches exactly: ``n_nodes`` at most the crossover of the
    input's layout (dense: :data:`DENSE_CROSSOVER` at ``n_dims``), or, with sparse
    products, at most :data:`EXACT_MAX_NODES` or an exact search predicted to cost at most
    :data:`EXACT_COST_RATIO` times the approximate one (``pair_products``, as
    :func:`pair_products` counts them; without it only the node count decides).

    Examples
    --------
    >>> exact_search_pays(40_000, 32, False), exact_search_pays(40_000, 128, False)
    (True, False)
    >>> exact_search_pays(40_000, 32, True), exact_search_pays(10**5, 5000, True, 6e9)
    (False, True)
    >>> exact_search_pays(3 * 10**5, 5000, True, 5.4e10)
    False
    """
    if not sparse_products:
        return bool(n_nodes <= dense_crossover(n_dims))
    if n_nodes <= EXACT_MAX_NODES:
        return True
    if pair_products is None:
        return False
    exact = pair_products * EXACT_NS_PER_PAIR * 1e-9
    return bool(exact <= EXACT_COST_RATIO * n_nodes * APPROX_US_PER_ROW * 1e-6)


def dense_crossover(n_dims: int) -> int:
    """The crossover size at ``n_dims`` dense dimensions (log-log interpolation of
    :data:`DENSE_CROSSOVER`, clamped to its ends).

    Examples
    --------
    >>> dense_crossover(64), dense_crossover(8), dense_crossover(1000)
    (35721, 44000, 29000)
    """
    dims, sizes = np.log(np.array(DENSE_CROSSOVER, dtype=float)).T
    return int(round(np.exp(np.interp(np.log(max(1, n_dims)), dims, sizes))))


def pair_products(X) -> float:
    """``sum_w df_w^2``: the (row, row, shared column) products of ``X X^T``, the exact
    sparse search's work, where ``df_w`` counts the rows with a nonzero in column ``w``.

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> pair_products(np.array([[1.0, 0.0, 2.0], [1.0, 0.0, 0.0], [3.0, 1.0, 0.0]]))
    11.0
    """
    if sp.issparse(X):
        X = X.tocsr()
        df = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
    else:
        df = np.count_nonzero(np.asarray(X), axis=0)
    df = df.astype(np.float64)
    return float(df @ df)
