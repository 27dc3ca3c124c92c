"""Signed affinity: attribute neighbours attract, hyperedge co-members repel.

For hypergraphs whose hyperedges join *less* similar nodes than random pairs do
(:func:`hyperclust.selection.alignment.attribute_alignment`), a hyperedge is evidence that its members
belong to different groups. :class:`SignedAffinity` puts that evidence beside the attribute
kNN graph, ``S = N_q - r N_c``, with ``N_q = Dq^-1/2 A Dq^-1/2`` the normalized kNN affinity
and ``N_c = Dc^-1/2 C Dc^-1/2`` the normalized clique expansion of the hypergraph (pair weight
``w_e / (|e| - 1)``, diagonal removed, factored through ``H``: never formed). Its top
eigenvectors give an embedding in which kNN neighbours are close and hyperedge co-members
far apart (the spectral relaxation of a signed cut).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .base import SymmetricOperator, safe_inverse

__all__ = ["SignedAffinity"]


class SignedAffinity(SymmetricOperator):
    """``S = N_q - repulsion * N_c`` (symmetric, eigenvalues in ``[-1 - r, 1 + r]``).

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    affinity : sparse matrix, shape (n, n)
        Symmetric non-negative attribute affinity (e.g.
        :func:`hyperclust.operators.knn.knn_affinity`).
    repulsion : float, default 1.0
        Weight ``r`` of the hyperedge term.

    Examples
    --------
    Two attribute pairs {0, 1} and {2, 3}; one hyperedge joins 1 and 2:

    >>> import numpy as np, scipy.sparse as sp
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[1, 2]], n_nodes=4)
    >>> A = sp.csr_matrix(np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0.0]]))
    >>> SignedAffinity(hg, A).to_dense().tolist()
    [[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, -1.0, 0.0], [0.0, -1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]
    """

    def __init__(self, hypergraph, affinity, repulsion: float = 1.0):
        n = hypergraph.n_nodes
        super().__init__(n)
        A = sp.csr_matrix(affinity, dtype=np.float64)
        if A.shape != (n, n):
            raise ValueError(f"affinity has shape {A.shape}, expected {(n, n)}")
        sq = np.sqrt(safe_inverse(np.asarray(A.sum(axis=1)).ravel()))
        self._Nq = (sp.diags(sq) @ A @ sp.diags(sq)).tocsr()
        H = sp.csr_matrix(hypergraph.incidence, dtype=np.float64, copy=True)
        H.data[:] = 1.0
        sizes = np.asarray(H.sum(axis=0)).ravel()
        pair_w = np.asarray(hypergraph.weights, dtype=np.float64) * safe_inverse(sizes - 1.0)
        self._H, self._Ht, self._pair_w = H, H.T.tocsr(), pair_w
        self._self = H @ pair_w  # diagonal of H diag(pair_w) H^T, removed below
        degrees = H @ (pair_w * sizes) - self._self
        self._sc = np.sqrt(safe_inverse(degrees))
        self.repulsion = float(repulsion)

    def _apply(self, X):
        Y = self._sc[:, None] * X
        C = np.asarray(self._H @ (self._pair_w[:, None] * np.asarray(self._Ht @ Y)))
        C -= self._self[:, None] * Y
        return np.asarray(self._Nq @ X) - self.repulsion * (self._sc[:, None] * C)
