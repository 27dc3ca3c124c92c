"""Hypergraph constructions of the collapsed effective operator S_eps.

All shipped constructions are invariant under node relabelling (relabelling the nodes
permutes S_eps exactly):

* :func:`star_complex` / :class:`StarCollapsedOperator`: the star expansion (vertices and
  hyperedges as nodes of a bipartite graph, link weight ``w_e``) reduced onto the vertices.
  With ``eps = 0`` this is ``Dv - H W De^-1 H^T`` (unnormalized Zhou). With ``eps > 0`` it is
  ``S_eps = Dv - H diag(w_e^2 / (w_e |e| + eps)) H^T``: each hyperedge node "leaks" to a
  ground with conductance ``eps``. Equivalently a Zhou Laplacian with reweighted hyperedges
  ``w_e' = w_e * w_e|e| / (w_e|e| + eps)`` plus the diagonal grounding term
  ``diag(H (w_e eps / (w_e|e| + eps)))``, which is largest for nodes in many small hyperedges.
* :func:`coboundary_complex`: vertices, clique edges and hyperedges as ranks 0, 1, 2, with the
  signed clique incidence ``B_1`` and ``B_2 = B_1^T H W^1/2`` (a hyperedge cell is attached to
  the edges crossing its boundary). Flipping an edge orientation flips the same row of ``B_2``
  and column of ``B_1``, so L* changes by a diagonal sign similarity and S_eps not at all;
  hyperedges do change S_eps because ``B_1 B_2 = L_0 H W^1/2 != 0``.

Not shipped as operators (see docs/collapsed-operators.md): the chain complex
(``B_1 B_2 = 0``; higher cells do not change S) and signed ``B_1`` with unsigned membership
``B_2`` (depends on the orientation, i.e. on node numbering). :func:`clique_incidence` and
:func:`membership_incidence` exist so that tests can demonstrate both.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .base import FactoredOperator, check_sparse_budget, clique_nnz_estimate, safe_inverse
from .expansions import clique_adjacency
from .graded import GradedComplex, SchurComplement
from .laplacians import GramOperator

__all__ = ["StarCollapsedOperator", "star_collapsed", "star_complex", "clique_incidence",
           "membership_incidence", "coboundary_complex"]


def _check_hg(hypergraph):
    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")


def star_complex(hypergraph: Hypergraph, eps: float = 0.0, **kwargs) -> SchurComplement:
    """The star expansion's unnormalized Laplacian ``[[Dv, -H W], [-W H^T, W De]]`` collapsed
    onto the vertices by the generic :class:`SchurComplement` (``eps`` on the hyperedge block).

    Hyperedges of weight ``w_e |e| = 0`` do not occur (hyperedges are non-empty), so ``eps = 0``
    is allowed.
    """
    _check_hg(hypergraph)
    w = hypergraph.weights
    A = sp.diags(hypergraph.weighted_degrees).tocsr()
    X = -(hypergraph.incidence @ sp.diags(w)).tocsr()
    C = sp.diags(w * hypergraph.edge_sizes.astype(np.float64)).tocsr()
    return SchurComplement(A, X, C, eps=eps, **kwargs)


class StarCollapsedOperator(FactoredOperator):
    """Closed form of the star-expansion collapse, matrix-free:
    ``S_eps = Dv - H diag(w_e^2 / (w_e |e| + eps)) H^T``.

    Parameters
    ----------
    hypergraph : Hypergraph
    eps : float, default 1.0
        Leak of each hyperedge node (``0`` gives the unnormalized Zhou Laplacian).
    normalized : bool, default False
        ``Dv^-1/2 S_eps Dv^-1/2`` (identity rows for isolated nodes) instead of ``S_eps``.
    """

    def __init__(self, hypergraph: Hypergraph, eps: float = 1.0, normalized: bool = False):
        _check_hg(hypergraph)
        if not np.isfinite(eps) or eps < 0:
            raise ValueError(f"eps must be finite and non-negative, got {eps!r}")
        super().__init__(hypergraph.n_nodes)
        self.hypergraph = hypergraph
        self.eps = float(eps)
        self.normalized = bool(normalized)
        w = hypergraph.weights
        size_w = w * hypergraph.edge_sizes.astype(np.float64)
        self.edge_scale = w * w * safe_inverse(size_w + self.eps)
        self._M = GramOperator(hypergraph.incidence, self.edge_scale, Ht=hypergraph.incidence_t)
        self.degrees = hypergraph.weighted_degrees
        self._s = np.sqrt(safe_inverse(self.degrees))

    def affinity(self):
        """``(M, Dv)`` with ``M = H diag(w^2 / (w|e| + eps)) H^T``; ``S_eps = Dv - M``."""
        return self._M, self.degrees

    def grounding(self) -> np.ndarray:
        """``S_eps 1`` per node: ``H (w eps / (w|e| + eps))``, the leak to the ground."""
        hg = self.hypergraph
        w = hg.weights
        return hg.incidence @ (w * self.eps * safe_inverse(w * hg.edge_sizes + self.eps))

    def _apply(self, X):
        if self.normalized:
            # Isolated nodes have s = 0, so their rows reduce to the identity.
            return X - self._s[:, None] * self._M._apply(self._s[:, None] * X)
        return self.degrees[:, None] * X - self._M._apply(X)

    def _sparse_nnz_estimate(self):
        return clique_nnz_estimate(self.hypergraph) + self.shape[0]

    def _build_sparse(self):
        S = sp.diags(self.degrees) - self._M._build_sparse()
        if self.normalized:
            D = sp.diags(self._s)
            return D @ S @ D + sp.diags((self.degrees == 0).astype(np.float64))
        return S


def star_collapsed(hypergraph: Hypergraph, eps: float = 1.0, normalized: bool = False):
    """Shorthand for :class:`StarCollapsedOperator`."""
    return StarCollapsedOperator(hypergraph, eps=eps, normalized=normalized)


def clique_incidence(hypergraph: Hypergraph, weighting: str = "normalized", max_nnz=None,
                     memory_budget=None):
    """Signed, weighted incidence of the clique expansion.

    Edge ``j`` joins ``u < v`` (oriented ``u -> v``: ``-sqrt(c)`` at ``u``, ``+sqrt(c)`` at
    ``v``), so ``B_1 B_1^T`` is the clique graph Laplacian whatever the orientation.

    Returns
    -------
    B1 : scipy.sparse CSR, shape (n, n_edges)
    pairs : ndarray of int, shape (n_edges, 2)
    """
    _check_hg(hypergraph)
    check_sparse_budget(clique_nnz_estimate(hypergraph), "clique incidence", max_nnz, memory_budget)
    A, _ = clique_adjacency(hypergraph, weighting)
    U = sp.triu(A._build_sparse(), k=1).tocoo()
    keep = U.data > 0
    u, v, c = U.row[keep], U.col[keep], U.data[keep]
    order = np.lexsort((v, u))
    u, v, c = u[order], v[order], c[order]
    n1 = u.size
    rows = np.concatenate([u, v])
    cols = np.concatenate([np.arange(n1), np.arange(n1)])
    s = np.sqrt(c)
    B1 = sp.csr_matrix((np.concatenate([-s, s]), (rows, cols)), shape=(hypergraph.n_nodes, n1))
    return B1, np.column_stack([u, v])


def membership_incidence(hypergraph: Hypergraph, pairs: np.ndarray) -> sp.csr_matrix:
    """Unsigned ``B_2[j, e] = 1`` when both ends of clique edge ``j`` lie in hyperedge ``e``.

    Warning: with a signed ``B_1`` this depends on the edge orientation (node numbering); it is
    provided to demonstrate that pitfall, not to build operators.
    """
    H = hypergraph.incidence
    both = H[pairs[:, 0]].multiply(H[pairs[:, 1]])
    return sp.csr_matrix(both)


def coboundary_complex(hypergraph: Hypergraph, beta=(1.0, 1.0), gamma=(0.5, 0.5),
                       weighting: str = "normalized", max_nnz=None,
                       memory_budget=None) -> GradedComplex:
    """Vertices, clique edges and hyperedges as ranks 0, 1, 2 with ``B_2 = B_1^T H W^1/2``.

    Invariant under node relabelling and under clique-edge orientation (see module notes).
    ``gamma`` must respect the PSD bound; check with :meth:`GradedComplex.psd_report`.

    Returns
    -------
    GradedComplex
    """
    B1, _ = clique_incidence(hypergraph, weighting, max_nnz, memory_budget)
    R = hypergraph.incidence @ sp.diags(np.sqrt(hypergraph.weights))
    B2 = sp.csr_matrix(B1.T @ R)
    B2.eliminate_zeros()
    return GradedComplex([B1, B2], beta=beta, gamma=gamma)
