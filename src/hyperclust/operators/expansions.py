"""Clique and star expansions of a hypergraph as matrix-free graph Laplacians.

Clique pair weight ``c_e = w_e / (|e| - 1)`` (``"normalized"``) or ``w_e`` (``"unit"``),
adjacency ``H C H^T - diag(H C 1)``; star expansion: vertices then hyperedges, adjacency
``[[0, H W], [W H^T, 0]]``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .base import FactoredOperator, check_hypergraph, clique_nnz_estimate, safe_inverse
from .laplacians import GramOperator

__all__ = ["CliqueLaplacian", "StarLaplacian", "clique_adjacency", "clique_pair_weights",
           "CLIQUE_WEIGHTINGS"]

CLIQUE_WEIGHTINGS = ("normalized", "unit")


def clique_pair_weights(hypergraph: Hypergraph, weighting: str = "normalized") -> np.ndarray:
    """Weight ``c_e`` of every pair inside hyperedge ``e`` (0 for size-1 hyperedges), shape (n_edges,).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3], [4]])
    >>> clique_pair_weights(hg).tolist(), clique_pair_weights(hg, "unit").tolist()
    ([0.5, 1.0, 0.0], [1.0, 1.0, 0.0])
    """
    check_hypergraph(hypergraph)
    if weighting not in CLIQUE_WEIGHTINGS:
        raise ValueError(f"weighting must be one of {CLIQUE_WEIGHTINGS}, got {weighting!r}")
    sizes = hypergraph.edge_sizes.astype(np.float64)
    w = hypergraph.weights
    if weighting == "normalized":
        return w * safe_inverse(sizes - 1.0)
    return np.where(sizes > 1, w, 0.0)


def clique_adjacency(hypergraph: Hypergraph, weighting: str = "normalized"):
    """``(A, degrees)``: the clique-expansion adjacency (zero diagonal) as a :class:`GramOperator`,
    and ``A @ 1``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> A, d = clique_adjacency(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> (2 * A.to_dense()).tolist()
    [[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 2.0, 0.0]]
    >>> d.tolist()
    [1.0, 1.0, 2.0, 1.0]
    """
    c = clique_pair_weights(hypergraph, weighting)
    sizes = hypergraph.edge_sizes.astype(np.float64)
    H = hypergraph.incidence
    diag = H @ c
    A = GramOperator(H, c, -diag, Ht=hypergraph.incidence_t)
    degrees = H @ (c * (sizes - 1.0))
    return A, degrees


class CliqueLaplacian(FactoredOperator):
    """Graph Laplacian of the clique expansion, matrix-free.

    Parameters
    ----------
    hypergraph : Hypergraph
    weighting : {"normalized", "unit"}
    normalized : bool, default True
        ``I - D^-1/2 A D^-1/2`` (isolated nodes: identity rows) or ``D - A``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> L = CliqueLaplacian(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), normalized=False)
    >>> L.to_sparse().toarray().tolist()
    [[1.0, -0.5, -0.5, 0.0], [-0.5, 1.0, -0.5, 0.0], [-0.5, -0.5, 2.0, -1.0], [0.0, 0.0, -1.0, 1.0]]
    >>> (L @ np.ones(4)).tolist()  # constants are in the kernel
    [0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, hypergraph: Hypergraph, weighting: str = "normalized", normalized: bool = True):
        A, d = clique_adjacency(hypergraph, weighting)
        super().__init__(hypergraph.n_nodes)
        self.hypergraph = hypergraph
        self.weighting = weighting
        self.normalized = bool(normalized)
        self._A = A
        self.degrees = d
        self._s = np.sqrt(safe_inverse(d))

    def affinity(self):
        """``(A, d)``; ``D - A`` is the Laplacian."""
        return self._A, self.degrees

    def _apply(self, X):
        if self.normalized:
            return X - self._s[:, None] * self._A._apply(self._s[:, None] * X)
        return self.degrees[:, None] * X - self._A._apply(X)

    def _sparse_nnz_estimate(self):
        return clique_nnz_estimate(self.hypergraph) + self.shape[0]

    def _build_sparse(self):
        A = self._A._build_sparse().tocsr()
        A.eliminate_zeros()
        if self.normalized:
            S = sp.diags(self._s)
            return sp.identity(self.shape[0], format="csr") - S @ A @ S
        return sp.diags(self.degrees) - A


class StarLaplacian(FactoredOperator):
    """Graph Laplacian of the star expansion on ``n + m`` nodes (vertices, then hyperedges).

    Parameters
    ----------
    hypergraph : Hypergraph
    normalized : bool, default True
        ``I - D^-1/2 B D^-1/2`` or ``D - B`` with ``B = [[0, H W], [W H^T, 0]]``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> L = StarLaplacian(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), normalized=False)
    >>> L.shape, L.degrees.tolist()
    ((6, 6), [1.0, 1.0, 2.0, 1.0, 3.0, 2.0])
    >>> L.to_dense()[4].tolist()  # hyperedge 0 links to nodes 0, 1, 2
    [-1.0, -1.0, -1.0, 0.0, 3.0, 0.0]
    """

    def __init__(self, hypergraph: Hypergraph, normalized: bool = True):
        check_hypergraph(hypergraph)
        n, m = hypergraph.n_nodes, hypergraph.n_edges
        super().__init__(n + m)
        self.hypergraph = hypergraph
        self.normalized = bool(normalized)
        self.n_vertices = n
        w = hypergraph.weights
        self._HW = hypergraph.incidence @ sp.diags(w)
        self._WHt = sp.csr_matrix(self._HW.T)
        self.degrees = np.concatenate([hypergraph.weighted_degrees,
                                       w * hypergraph.edge_sizes.astype(np.float64)])
        self._s = np.sqrt(safe_inverse(self.degrees))

    def adjacency_apply(self, X):
        """``B X`` for ``X`` of shape (n + m, d)."""
        n = self.n_vertices
        return np.vstack([self._HW @ X[n:], self._WHt @ X[:n]])

    def affinity(self):
        """``(B, d)``."""
        return _BipartiteAdjacency(self), self.degrees

    def _apply(self, X):
        if self.normalized:
            return X - self._s[:, None] * self.adjacency_apply(self._s[:, None] * X)
        return self.degrees[:, None] * X - self.adjacency_apply(X)

    def _sparse_nnz_estimate(self):
        return 2 * self._HW.nnz + self.shape[0]

    def _build_sparse(self):
        B = sp.bmat([[None, self._HW], [self._WHt, None]], format="csr")
        if self.normalized:
            S = sp.diags(self._s)
            return sp.identity(self.shape[0], format="csr") - S @ B @ S
        return sp.diags(self.degrees) - B


class _BipartiteAdjacency(FactoredOperator):
    def __init__(self, star: StarLaplacian):
        super().__init__(star.shape[0])
        self._star = star

    def _apply(self, X):
        return self._star.adjacency_apply(X)

    def _sparse_nnz_estimate(self):
        return 2 * self._star._HW.nnz

    def _build_sparse(self):
        return sp.bmat([[None, self._star._HW], [self._star._WHt, None]], format="csr")
