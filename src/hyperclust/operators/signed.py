"""Signed affinity for hypergraphs whose hyperedges join dissimilar nodes: attribute neighbours
attract, hyperedge co-members repel.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .base import SymmetricOperator, safe_inverse

__all__ = ["SignedAffinity"]


class SignedAffinity(SymmetricOperator):
    """``S = N_q - r N_c``: normalized kNN affinity minus ``r`` times the normalized clique expansion
    (pair weight ``w_e / (|e| - 1)``, no diagonal, never formed).

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes
    affinity : sparse matrix, shape (n, n)
        Symmetric non-negative attribute affinity.
    repulsion : float, default 1.0
        ``r``.

    Examples
    --------
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
