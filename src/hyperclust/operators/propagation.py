"""The normalized hypergraph propagation operator P, applied in factored form.

P = Dv^-1/2 (H W De^-1 H^T + s I) Dv^-1/2, where s is the weight of optional self-loop
hyperedges (one per node). With s = 0, isolated nodes have Dv = 0 and get a zero row.
Eigenvalues of P lie in [0, 1]; I - P is Zhou's normalized Laplacian.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ..hypergraph import Hypergraph

__all__ = ["PropagationOperator", "propagation_operator"]


def _safe_inverse(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x, dtype=np.float64)
    np.divide(1.0, x, out=out, where=x > 0)
    return out


class PropagationOperator(LinearOperator):
    """Symmetric (or random-walk) normalized propagation, never formed explicitly.

    Parameters
    ----------
    hypergraph : Hypergraph
    self_loops : float, default 1.0
        Weight ``s`` of a self-loop hyperedge added at every node (0 disables). Self loops keep
        each node's own signal in ``P X``, and give isolated nodes ``P[v, v] = 1``.
    kind : {"sym", "rw"}
        ``"sym"``: Dv^-1/2 (.) Dv^-1/2; ``"rw"``: Dv^-1 (.) (row-stochastic).

    Notes
    -----
    Applying it costs O(nnz(H) * d) for a ``(n, d)`` block, through ``H^T`` then ``H``.
    """

    def __init__(self, hypergraph: Hypergraph, self_loops: float = 1.0, kind: str = "sym"):
        if kind not in ("sym", "rw"):
            raise ValueError(f"kind must be 'sym' or 'rw', got {kind!r}")
        if not np.isfinite(self_loops) or self_loops < 0:
            raise ValueError(f"self_loops must be a non-negative weight, got {self_loops!r}")
        n = hypergraph.n_nodes
        super().__init__(dtype=np.float64, shape=(n, n))
        self.hypergraph = hypergraph
        self.self_loops = float(self_loops)
        self.kind = kind
        H = hypergraph.incidence
        self._H = H
        self._Ht = hypergraph.incidence_t
        self._edge_scale = hypergraph.weights * _safe_inverse(hypergraph.edge_sizes.astype(np.float64))
        dv = hypergraph.weighted_degrees + self.self_loops
        if kind == "sym":
            self._left = np.sqrt(_safe_inverse(dv))
            self._right = self._left
        else:
            self._left = _safe_inverse(dv)
            self._right = np.ones(n)

    def _matmat(self, X):
        dense_out = not sp.issparse(X)
        X = X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        Xr = sp.diags(self._right) @ X if sp.issparse(X) else X * self._right[:, None]
        E = self._Ht @ Xr
        E = sp.diags(self._edge_scale) @ E if sp.issparse(E) else E * self._edge_scale[:, None]
        Y = self._H @ E
        if self.self_loops:
            Y = Y + self.self_loops * Xr
        Y = sp.diags(self._left) @ Y if sp.issparse(Y) else Y * self._left[:, None]
        if sp.issparse(Y):
            return Y.toarray() if dense_out else Y.tocsr()
        return np.asarray(Y)

    def _matvec(self, x):
        return self._matmat(np.asarray(x, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatvec(self, x):
        if self.kind == "sym":
            return self._matvec(x)
        x = np.asarray(x, dtype=np.float64).ravel() * self._left
        y = self._H @ (self._edge_scale * (self._Ht @ x)) + self.self_loops * x
        return y

    def _rmatmat(self, X):
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        return np.column_stack([self._rmatvec(col) for col in X.T]) if X.ndim == 2 else self._rmatvec(X)

    def _adjoint(self):
        if self.kind == "sym":
            return self
        return _RandomWalkAdjoint(self)

    def to_sparse(self) -> sp.csr_matrix:
        """Explicit sparse P (O(sum of squared hyperedge sizes) memory: small inputs only)."""
        H = self._H
        M = H @ sp.diags(self._edge_scale) @ self._Ht + self.self_loops * sp.identity(self.shape[0])
        return (sp.diags(self._left) @ M @ sp.diags(self._right)).tocsr()

    def apply_power(self, X, k: int):
        """Return ``P^k X`` (X dense ``(n, d)`` or sparse); the result is dense."""
        Y = X
        for _ in range(int(k)):
            Y = self.matmat(Y)
        if sp.issparse(Y):
            Y = Y.toarray()
        return np.asarray(Y, dtype=np.float64)


class _RandomWalkAdjoint(LinearOperator):
    """``P^T`` of a random-walk propagation operator (``H W De^-1 H^T Dv^-1``)."""

    def __init__(self, op: PropagationOperator):
        super().__init__(dtype=np.float64, shape=op.shape)
        self._op = op

    def _matvec(self, x):
        return self._op._rmatvec(x)

    def _adjoint(self):
        return self._op


def propagation_operator(hypergraph: Hypergraph, self_loops: float = 1.0,
                         kind: str = "sym") -> PropagationOperator:
    """Shorthand for :class:`PropagationOperator`."""
    return PropagationOperator(hypergraph, self_loops=self_loops, kind=kind)
