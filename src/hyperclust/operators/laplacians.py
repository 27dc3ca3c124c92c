"""Zhou's normalized hypergraph Laplacian and the factored "Gram" affinity it is built from.

Everything is applied through the incidence ``H`` (``O(nnz(H) d)`` per ``(n, d)`` block); the
clique-sized ``H W De^-1 H^T`` is only formed by ``to_sparse()``, under a memory guard.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ..hypergraph import Hypergraph
from .base import (FactoredOperator, check_hypergraph, clique_nnz_estimate, edge_scale,
                   loop_degrees, safe_inverse)
from .propagation import PropagationOperator

__all__ = ["GramOperator", "ZhouLaplacian", "zhou_laplacian", "LAPLACIAN_KINDS"]

LAPLACIAN_KINDS = ("sym", "rw", "unnormalized")


class GramOperator(FactoredOperator):
    """``M = H diag(edge_scale) H^T + diag(node_shift)`` applied in factored form.

    Parameters
    ----------
    H : scipy.sparse CSR, shape (n, m)
    edge_scale : ndarray, shape (m,)
    node_shift : ndarray of shape (n,) or float, default 0
    Ht : scipy.sparse CSR, shape (m, n), optional
        ``H.T`` when the caller holds it.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> M = GramOperator(hg.incidence, np.ones(2))
    >>> M.to_dense().tolist()
    [[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 2.0, 1.0], [0.0, 0.0, 1.0, 1.0]]
    >>> M.diagonal().tolist()
    [1.0, 1.0, 2.0, 1.0]
    """

    def __init__(self, H, edge_scale, node_shift=0.0, Ht=None):
        n = H.shape[0]
        super().__init__(n)
        self._H = sp.csr_matrix(H)
        self._Ht = sp.csr_matrix(H.T) if Ht is None else Ht
        self.edge_scale = np.asarray(edge_scale, dtype=np.float64)
        self.node_shift = np.broadcast_to(np.asarray(node_shift, dtype=np.float64), (n,)).copy()

    def _apply(self, X):
        E = self._Ht @ X
        E *= self.edge_scale[:, None]
        return self._H @ E + self.node_shift[:, None] * X

    def _sparse_nnz_estimate(self):
        sizes = np.diff(self._Ht.indptr).astype(np.int64)
        n = self.shape[0]
        return int(min((sizes * sizes).sum(), n * n)) + n

    def _build_sparse(self):
        return self._H @ sp.diags(self.edge_scale) @ self._Ht + sp.diags(self.node_shift)

    def diagonal(self) -> np.ndarray:
        """Diagonal of M, shape (n,)."""
        return self._H @ self.edge_scale + self.node_shift


class ZhouLaplacian(FactoredOperator):
    """Zhou's hypergraph Laplacian, matrix-free.

    ``kind="sym"``: ``I - Dv^-1/2 (H W De^-1 H^T + s I) Dv^-1/2``; ``"rw"``: ``I - Dv^-1 (.)``;
    ``"unnormalized"``: ``Dv - H W De^-1 H^T``. ``Dv`` includes ``s``.

    Parameters
    ----------
    hypergraph : Hypergraph
    kind : {"sym", "rw", "unnormalized"}
    self_loops : float, default 0.0
        ``s``; with 0 an isolated node's row is the identity row.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> (6 * ZhouLaplacian(hg, kind="unnormalized").to_dense()).round(6).tolist()
    [[4.0, -2.0, -2.0, 0.0], [-2.0, 4.0, -2.0, 0.0], [-2.0, -2.0, 7.0, -3.0], [0.0, 0.0, -3.0, 3.0]]
    >>> (np.linalg.eigvalsh(ZhouLaplacian(hg).to_dense()).round(4) + 0.0).tolist()  # in [0, 1]
    [0.0, 0.4167, 1.0, 1.0]
    """

    def __init__(self, hypergraph: Hypergraph, kind: str = "sym", self_loops: float = 0.0):
        check_hypergraph(hypergraph)
        if kind not in LAPLACIAN_KINDS:
            raise ValueError(f"kind must be one of {LAPLACIAN_KINDS}, got {kind!r}")
        super().__init__(hypergraph.n_nodes)
        self.hypergraph = hypergraph
        self.kind = kind
        self.self_loops = float(self_loops)
        if kind == "unnormalized":
            self._affinity, self.degrees = self.affinity()
        else:
            self._P = PropagationOperator(hypergraph, self_loops=self.self_loops, kind=kind)

    def affinity(self):
        """``(M, d)``: ``M = H W De^-1 H^T + s I`` (a :class:`GramOperator`), ``d = Dv + s``."""
        hg = self.hypergraph
        M = GramOperator(hg.incidence, edge_scale(hg), self.self_loops, Ht=hg.incidence_t)
        return M, loop_degrees(hg, self.self_loops)

    def _apply(self, X):
        if self.kind == "unnormalized":
            return self.degrees[:, None] * X - self._affinity._apply(X)
        return X - self._P.matmat(X)

    def _matvec(self, x):
        return self._apply(np.asarray(x, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatvec(self, x):
        x = np.asarray(x, dtype=np.float64).ravel()
        return self._rmatmat(x.reshape(-1, 1)).ravel()

    def _rmatmat(self, X):
        X = np.asarray(X, dtype=np.float64)
        if self.kind == "rw":
            # (Dv^-1 M)^T = M Dv^-1: scale rows first, then apply the symmetric Gram part.
            M, d = self.affinity()
            return X - M._apply(safe_inverse(d)[:, None] * X)
        return self._apply(X)

    def _adjoint(self):
        if self.kind == "rw":
            return LinearOperator._adjoint(self)
        return self

    def _sparse_nnz_estimate(self):
        return clique_nnz_estimate(self.hypergraph) + self.shape[0]

    def _build_sparse(self):
        n = self.shape[0]
        if self.kind == "unnormalized":
            return sp.diags(self.degrees) - self._affinity._build_sparse()
        return sp.identity(n, format="csr") - self._P.to_sparse()


def zhou_laplacian(hypergraph: Hypergraph, kind: str = "sym", self_loops: float = 0.0) -> ZhouLaplacian:
    """Shorthand for :class:`ZhouLaplacian`.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> L = zhou_laplacian(hg)
    >>> bool(np.abs(L @ np.sqrt(hg.weighted_degrees)).max() < 1e-12)
    True
    """
    return ZhouLaplacian(hypergraph, kind=kind, self_loops=self_loops)
