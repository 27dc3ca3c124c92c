"""Attribute kNN graphs and the mixed hypergraph + kNN random walk of AHCKA (Li, Yang & Shi,
SIGMOD 2023): :func:`knn_walk`, :class:`MixedWalk`, :class:`SymmetricMixedAffinity`, and a
cheap low-recall search (:func:`coarse_cosine_neighbors`).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .base import Operator, SymmetricOperator, edge_scale, loop_degrees, safe_inverse
from ._rerank import rerank
from .neighbors import (EXACT_MAX_NODES, KNN_METHODS, _ann_input, _approximate_path, _unit_rows,
                        ann_available, approximate_cosine_neighbors, cosine_knn,
                        exact_cosine_neighbors, knn_affinity, neighbor_affinity)

__all__ = ["EXACT_MAX_NODES", "KNN_METHODS", "exact_cosine_neighbors",
           "approximate_cosine_neighbors", "cosine_knn", "knn_affinity", "knn_walk",
           "row_normalize", "MixedWalk", "mixed_walk", "SymmetricMixedAffinity",
           "ann_available", "searches_approximately", "coarse_cosine_neighbors",
           "coarse_knn_affinity"]

#: Rows per inverted list of :func:`coarse_cosine_neighbors` (``n / 400`` lists).
COARSE_LIST_ROWS = 400
#: Lists each query of :func:`coarse_cosine_neighbors` scans.
COARSE_PROBES = 2

def _check_beta(beta):
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0.0 <= beta <= 1.0:
        raise ValueError(f"beta must be a float in [0, 1], got {beta!r}")
    return float(beta)


def row_normalize(A) -> sp.csr_matrix:
    """``D^-1 A`` for a non-negative sparse ``A`` (zero rows stay zero).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> row_normalize(sp.csr_matrix([[1.0, 3.0], [0.0, 0.0]])).toarray()
    array([[0.25, 0.75],
           [0.  , 0.  ]])
    """
    A = sp.csr_matrix(A, dtype=np.float64)
    d = np.asarray(A.sum(axis=1)).ravel()
    return (sp.diags(safe_inverse(d)) @ A).tocsr()


def knn_walk(X, n_neighbors: int = 10, **kwargs) -> sp.csr_matrix:
    """Random walk ``Q = D_A^-1 A`` on :func:`knn_affinity` (rows sum to 1, or 0 without kNN edges).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 4))
    >>> Q = knn_walk(X, 3)
    >>> np.allclose(Q.sum(axis=1), 1.0)
    True
    """
    return row_normalize(knn_affinity(X, n_neighbors, **kwargs))


class MixedWalk(Operator):
    """Mixed random walk ``M = (1 - beta) P + beta Q``, never formed.

    ``P = Dv^-1 (H W De^-1 H^T + s I)`` is the hypergraph walk, ``Q`` a row-stochastic kNN walk.
    Nodes in no hyperedge walk on ``Q`` only, nodes without kNN edges on ``P`` only; a node with
    neither has a zero row.

    Parameters
    ----------
    hypergraph : Hypergraph
    knn : sparse matrix, shape (n, n), optional
        Non-negative kNN weights, row-normalised here; ``None``: ``M = P``.
    beta : float in [0, 1], default 0.5
    self_loops : float, default 0.0
        ``s``; a self loop does not count as hyperedge membership.

    Attributes
    ----------
    row_weights_ : tuple of ndarray, each shape (n,)
        ``(a, b)``: ``M = diag(a) P + diag(b) Q``.

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(100, 2, n_features=8, isolated_fraction=0.2, random_state=0)
    >>> M = MixedWalk(hg, knn_affinity(hg.features, 5), beta=0.5)
    >>> M.shape, bool(np.allclose(M @ np.ones(100), 1.0))      # row-stochastic
    ((100, 100), True)
    >>> np.allclose(M.to_sparse() @ np.arange(100.0), M @ np.arange(100.0))
    True
    """

    def __init__(self, hypergraph, knn=None, beta: float = 0.5, self_loops: float = 0.0):
        n = hypergraph.n_nodes
        super().__init__(dtype=np.float64, shape=(n, n))
        beta = _check_beta(beta)
        if isinstance(self_loops, bool) or not isinstance(self_loops, numbers.Real) \
                or not np.isfinite(self_loops) or self_loops < 0:
            raise ValueError(f"self_loops must be a non-negative float, got {self_loops!r}")
        self.hypergraph = hypergraph
        self.beta = beta
        self.self_loops = float(self_loops)
        self._H = hypergraph.incidence
        self._Ht = hypergraph.incidence_t
        self._edge_scale = edge_scale(hypergraph)
        dv = np.asarray(hypergraph.weighted_degrees, dtype=np.float64)
        self._pinv = safe_inverse(loop_degrees(hypergraph, self.self_loops))
        if knn is not None and beta > 0:
            if not sp.issparse(knn) or knn.shape != (n, n):
                raise ValueError(f"knn must be a sparse ({n}, {n}) matrix, got "
                                 f"{type(knn).__name__} of shape {getattr(knn, 'shape', None)}")
            knn = sp.csr_matrix(knn, dtype=np.float64)
            if knn.nnz and knn.data.min() < 0:
                raise ValueError("knn weights must be non-negative")
            Q = row_normalize(knn)
            has_q = np.diff(Q.indptr) > 0
            self._Q = Q
            self._A = knn
        else:
            self._Q = None
            self._A = None
            has_q = np.zeros(n, dtype=bool)
        iso = dv <= 0
        has_p = (dv + self.self_loops) > 0
        a = np.where(has_q, np.where(iso, 0.0, 1.0 - beta), has_p.astype(np.float64))
        b = np.where(has_q, np.where(iso, 1.0, beta), 0.0)
        self.row_weights_ = (a, b)

    @property
    def knn_walk(self):
        """The row-stochastic ``Q`` (CSR, shape (n, n)) or None."""
        return self._Q

    @property
    def knn_affinity(self):
        """The kNN weights ``Q`` was normalised from (CSR, shape (n, n)) or None."""
        return self._A

    @property
    def hyperedge_scale(self):
        """``w_e / |e|`` per hyperedge, the middle factor of ``P``."""
        return self._edge_scale

    @property
    def inverse_degrees(self):
        """``1 / (d_v + s)`` per node (0 where that is 0), the left factor of ``P``."""
        return self._pinv

    def _walk_p(self, X):
        E = self._Ht @ X
        E = E * self._edge_scale[:, None]
        Y = self._H @ E
        if self.self_loops:
            Y = Y + self.self_loops * X
        return Y * self._pinv[:, None]

    def _matmat(self, X):
        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        a, b = self.row_weights_
        out = a[:, None] * self._walk_p(X)
        if self._Q is not None:
            out += b[:, None] * (self._Q @ X)
        return out

    def _matvec(self, x):
        return self._matmat(np.asarray(x, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatmat(self, X):
        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        a, b = self.row_weights_
        Y = (a * self._pinv)[:, None] * X
        out = self._H @ (self._edge_scale[:, None] * (self._Ht @ Y))
        if self.self_loops:
            out = out + self.self_loops * Y
        if self._Q is not None:
            out = out + self._Q.T @ (b[:, None] * X)
        return np.asarray(out)

    def _rmatvec(self, x):
        return self._rmatmat(np.asarray(x, dtype=np.float64).reshape(-1, 1)).ravel()

    def to_sparse(self) -> sp.csr_matrix:
        """Explicit sparse ``M`` (clique-sized: small inputs only)."""
        P = self._H @ sp.diags(self._edge_scale) @ self._Ht
        if self.self_loops:
            P = P + self.self_loops * sp.identity(self.shape[0])
        a, b = self.row_weights_
        M = sp.diags(a * self._pinv) @ P
        if self._Q is not None:
            M = M + sp.diags(b) @ self._Q
        return sp.csr_matrix(M)


def mixed_walk(hypergraph, beta: float = 0.5, n_neighbors: int = 10, *, method: str = "auto",
               exact_max_nodes: int | None = None, self_loops: float = 0.0,
               random_state=0) -> MixedWalk:
    """:class:`MixedWalk` with ``Q`` from ``hypergraph.features`` (none without features).

    ``method``, ``exact_max_nodes``, ``random_state`` go to :func:`cosine_knn`.

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> hg = hypergraph_sbm(100, 2, n_features=8, random_state=0)
    >>> M = mixed_walk(hg, beta=0.3, n_neighbors=5)
    >>> bool(np.allclose(M @ np.ones(100), 1.0))
    True
    """
    beta = _check_beta(beta)
    knn = None
    if hypergraph.features is not None and beta > 0 and hypergraph.n_nodes > 1:
        knn = knn_affinity(hypergraph.features, n_neighbors, method=method,
                           exact_max_nodes=exact_max_nodes, random_state=random_state)
    return MixedWalk(hypergraph, knn, beta=beta, self_loops=self_loops)


class SymmetricMixedAffinity(SymmetricOperator):
    """Symmetric mixed affinity ``S_a N_h S_a + S_b N_q S_b`` for spectral methods.

    ``S_a = diag(sqrt(a))``, ``S_b = diag(sqrt(b))`` with :class:`MixedWalk`'s row weights; with
    ``a + b <= 1`` the eigenvalues stay in [-1, 1].

    Parameters
    ----------
    N_h, N_q : LinearOperator or sparse matrix, shape (n, n), symmetric
    a, b : ndarray, shape (n,), non-negative

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> N = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> S = SymmetricMixedAffinity(N, N, a=np.array([0.5, 0.5]), b=np.array([0.5, 0.5]))
    >>> S @ np.array([1.0, 0.0])
    array([0., 1.])
    """

    def __init__(self, N_h, N_q, a, b):
        super().__init__(N_h.shape[0])
        self._Nh, self._Nq = N_h, N_q
        self._sa = np.sqrt(np.asarray(a, dtype=np.float64))
        self._sb = np.sqrt(np.asarray(b, dtype=np.float64))

    def _apply(self, X):
        out = self._sa[:, None] * np.asarray(self._Nh @ (self._sa[:, None] * X))
        out += self._sb[:, None] * np.asarray(self._Nq @ (self._sb[:, None] * X))
        return out


def searches_approximately(X, method: str = "auto") -> bool:
    """Whether :func:`cosine_knn` with ``method`` takes the approximate (faiss) path on ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> searches_approximately(np.ones((50, 4)))
    False
    """
    if method not in KNN_METHODS:
        raise ValueError(f"method must be one of {KNN_METHODS}, got {method!r}")
    return X.shape[0] >= 2 and _approximate_path(X, method)


def coarse_cosine_neighbors(X, n_neighbors: int, *, n_probe: int | None = None,
                            random_state=0):
    """Cheap, low-recall cosine neighbours: a seeded faiss inverted-file index (``n / 400`` lists,
    ``n_probe`` scanned) proposes ``2 K`` candidates, re-ranked exactly.

    A graph to compare candidates on, not to cluster on (:mod:`hyperclust.cluster.auto.screen`).
    Deterministic given the seed and independent of the number of threads.

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)
    n_neighbors : int
        ``K``; clipped to ``n - 1``.
    n_probe : int, optional
        Lists scanned per query (default :data:`COARSE_PROBES`).
    random_state : int, default 0

    Returns
    -------
    indices : ndarray of int64, shape (n, K)
        Most similar first; ``-1`` (similarity 0) where fewer than ``K`` were found.
    similarities : ndarray of float64, shape (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(300, 8))
    >>> if ann_available():
    ...     idx, sim = coarse_cosine_neighbors(X, 5)
    ... else:
    ...     idx, sim = exact_cosine_neighbors(X, 5)
    >>> idx.shape, bool((idx != np.arange(300)[:, None]).all())
    ((300, 5), True)
    """
    import faiss

    n = X.shape[0]
    k = min(int(n_neighbors), n - 1)
    if k < 1:
        return np.empty((n, 0), dtype=np.int64), np.empty((n, 0))
    Xf = _ann_input(X, random_state)
    nlist = max(1, n // COARSE_LIST_ROWS)
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(Xf.shape[1]), Xf.shape[1], nlist,
                               faiss.METRIC_INNER_PRODUCT)
    index.cp.seed, index.cp.niter = int(random_state) % (2 ** 31), 10
    index.cp.min_points_per_centroid = 1  # 32 rows a list: faiss would warn below 39
    sample = np.random.default_rng(random_state).choice(n, min(n, 32 * nlist), replace=False)
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # k-means sums in thread order
    try:
        index.train(Xf[np.sort(sample)])
    finally:
        faiss.omp_set_num_threads(threads)
    index.add(Xf)
    index.nprobe = min(int(COARSE_PROBES if n_probe is None else n_probe), nlist)
    cand = index.search(Xf, min(n - 1, 2 * k) + 1)[1].astype(np.int64)
    cand[cand == np.arange(n)[:, None]] = -1
    return rerank(_unit_rows(X), cand, k, "random", random_state)


def coarse_knn_affinity(X, n_neighbors: int = 10, *, n_probe: int | None = None,
                        random_state=0) -> sp.csr_matrix:
    """:func:`knn_affinity` on the neighbours of :func:`coarse_cosine_neighbors`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 4))
    >>> A = coarse_knn_affinity(X, 3) if ann_available() else knn_affinity(X, 3)
    >>> A.shape, (A != A.T).nnz
    ((100, 100), 0)
    """
    return neighbor_affinity(*coarse_cosine_neighbors(X, n_neighbors, n_probe=n_probe,
                                                      random_state=random_state))
