"""Which cosine kNN search ``method="auto"`` runs: exact up to the measured size where the
approximate one costs less (dense: :data:`DENSE_CROSSOVER` by dimension; sparse products: up
to :data:`EXACT_MAX_NODES`, and beyond while predicted to cost at most
:data:`EXACT_COST_RATIO` times as much). Measurements: docs/results/knn.md,
docs/results/knn_rerank.md (``benchmarks/studies/bench_knn_crossover.py``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["APPROX_US_PER_ROW", "DENSE_CROSSOVER", "EXACT_COST_RATIO", "EXACT_MAX_NODES",
           "EXACT_NS_PER_PAIR", "exact_search_pays", "pair_products"]

#: ``(d, n)``: from ``n`` nodes of ``d`` dense dimensions the approximate search is cheaper.
DENSE_CROSSOVER = ((32, 44_000), (128, 29_000))
#: Inputs with sparse products up to this many nodes are always searched exactly.
EXACT_MAX_NODES = 30_000
#: CPU nanoseconds per pair product of the exact sparse search (one thread).
EXACT_NS_PER_PAIR = 16.0
#: CPU microseconds per row of the approximate search of an SVD-projected input.
APPROX_US_PER_ROW = 450.0
#: Beyond :data:`EXACT_MAX_NODES`, the predicted cost ratio up to which the search stays exact.
EXACT_COST_RATIO = 3.0


def exact_search_pays(n_nodes: int, n_dims: int, sparse_products: bool,
                      pair_products: float | None = None) -> bool:
    """Whether ``method="auto"`` searches exactly (sparse inputs: by ``pair_products`` when given,
    else by the node count alone).
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
    """The crossover size at ``n_dims`` dense dimensions (log-log interpolation, clamped)."""
    dims, sizes = np.log(np.array(DENSE_CROSSOVER, dtype=float)).T
    return int(round(np.exp(np.interp(np.log(max(1, n_dims)), dims, sizes))))


def pair_products(X) -> float:
    """``sum_w df_w^2`` (``df_w``: rows with a nonzero in column ``w``), the exact search's work.
    """
    if sp.issparse(X):
        X = X.tocsr()
        df = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
    else:
        df = np.count_nonzero(np.asarray(X), axis=0)
    df = df.astype(np.float64)
    return float(df @ df)
