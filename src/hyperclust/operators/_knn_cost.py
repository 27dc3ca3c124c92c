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

Inputs searched with sparse products (under 5% nonzeros: bag-of-words) keep the exact search
up to :data:`EXACT_MAX_NODES` nodes although the approximate one is cheaper from
~20,000 nodes there (1,000 binary words, 2% nonzeros: 6.2 s exact vs 4.9 s at 3·10^4): its
recall is lower on those inputs (the index sees an SVD projection, and exact ties are
many), against .95-.999 on the dense ones; re-ranking 8K candidates instead of 2K lifts it
(docs/results/knn_rerank.md) but not to the exact lists, so the exact search is kept while
it is affordable.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DENSE_CROSSOVER", "EXACT_MAX_NODES", "exact_search_pays"]

DENSE_CROSSOVER = ((32, 44_000), (128, 29_000))
"""``(d, n)``: from ``n`` nodes of ``d`` dense dimensions the approximate search is cheaper."""

EXACT_MAX_NODES = 30_000
"""Largest input searched exactly when its products are sparse (the approximate search's
recall, not its cost, sets this one)."""


def exact_search_pays(n_nodes: int, n_dims: int, sparse_products: bool) -> bool:
    """Whether ``method="auto"`` searches exactly: ``n_nodes`` at most the crossover of the
    input's layout (dense: :data:`DENSE_CROSSOVER` at ``n_dims``; sparse products:
    :data:`EXACT_MAX_NODES`).

    Examples
    --------
    >>> exact_search_pays(40_000, 32, False), exact_search_pays(40_000, 128, False)
    (True, False)
    >>> exact_search_pays(40_000, 32, True)
    False
    """
    return bool(n_nodes <= (EXACT_MAX_NODES if sparse_products else dense_crossover(n_dims)))


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
