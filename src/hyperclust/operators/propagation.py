"""The normalized hypergraph propagation operator
``P = Dv^-1/2 (H W De^-1 H^T + s I) Dv^-1/2`` (or ``Dv^-1 (.)``), applied as two stored CSR
factors, or as the collapsed ``n x n`` matrix once that pays (:mod:`~hyperclust.operators.factoring`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..hypergraph import Hypergraph
from .base import Operator, edge_scale, loop_degrees, safe_inverse
from .factoring import CollapsePlan, collapsed_matrix
from .kernels import csr_matmat

__all__ = ["PropagationOperator", "propagation_operator", "PROPAGATION_DTYPES",
           "BASIS_DTYPE"]

#: Data types the operator computes in.
PROPAGATION_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: The data type of propagation in the feature-smoothing paths (``hgnn``, Uni-DHC's basis):
#: float32 halves the memory traffic; eigensolvers stay in float64.
BASIS_DTYPE = np.dtype(np.float32)


def check_dtype(dtype) -> np.dtype:
    """``np.dtype(dtype)`` if it is float32 or float64, else a one-line ValueError.

    Examples
    --------
    >>> check_dtype("float32"), check_dtype(np.float64)
    (dtype('float32'), dtype('float64'))
    >>> check_dtype(np.int64)
    Traceback (most recent call last):
    ...
    ValueError: dtype must be float32 or float64, got <class 'numpy.int64'>
    """
    try:
        dt = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        dt = None
    if dt is None or dt not in PROPAGATION_DTYPES:
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
    return dt


def _scaled_csr(M: sp.csr_matrix, row_scale, col_scale, dtype) -> sp.csr_matrix:
    """``diag(row_scale) M diag(col_scale)`` as CSR of ``dtype`` (M's index arrays shared)."""
    rows = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
    data = np.asarray(M.data, dtype=np.float64) * row_scale[rows] * col_scale[M.indices]
    out = sp.csr_matrix((data.astype(dtype, copy=False), M.indices, M.indptr), shape=M.shape,
                        copy=False)
    out.has_sorted_indices = M.has_sorted_indices
    return out


class PropagationOperator(Operator):
    """Symmetric (or random-walk) normalized propagation, never formed explicitly.

    Parameters
    ----------
    hypergraph : Hypergraph
    self_loops : float, default 1.0
        Weight ``s`` of a self-loop hyperedge at every node (0 disables; isolated nodes then
        get zero rows).
    kind : {"sym", "rw"}
        ``"sym"``: Dv^-1/2 (.) Dv^-1/2; ``"rw"``: Dv^-1 (.) (row-stochastic).
    dtype : {float64, float32}, default float64
        Of the stored factors and products; ``P @ X`` keeps a float32 ``X`` in float32.
    n_threads : int, optional
        Threads of the sparse products; default the thread policy's.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> (PropagationOperator(hg, kind="rw") @ np.ones(4)).round(12).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> P = PropagationOperator(hg, self_loops=0.0)
    >>> v = np.sqrt(hg.weighted_degrees)
    >>> np.allclose(P @ v, v), P.to_sparse().shape
    (True, (4, 4))
    >>> P32 = PropagationOperator(hg, dtype=np.float32)
    >>> P32.apply_power(np.eye(4)[:, :1], 2).dtype
    dtype('float32')
    """

    def __init__(self, hypergraph: Hypergraph, self_loops: float = 1.0, kind: str = "sym",
                 dtype=np.float64, n_threads=None):
        if kind not in ("sym", "rw"):
            raise ValueError(f"kind must be 'sym' or 'rw', got {kind!r}")
        if not np.isfinite(self_loops) or self_loops < 0:
            raise ValueError(f"self_loops must be a non-negative weight, got {self_loops!r}")
        dtype = check_dtype(dtype)
        if n_threads is not None:
            from .kernels import resolve_threads

            resolve_threads(n_threads)  # validates
        n = hypergraph.n_nodes
        super().__init__(dtype=dtype, shape=(n, n))
        self.hypergraph = hypergraph
        self.self_loops = float(self_loops)
        self.kind = kind
        self.n_threads = n_threads
        H = hypergraph.incidence
        Ht = hypergraph.incidence_t
        self._H = H
        self._Ht = Ht
        self._edge_scale = edge_scale(hypergraph)
        dv = loop_degrees(hypergraph, self.self_loops)
        if kind == "sym":
            self._left = np.sqrt(safe_inverse(dv))
            self._right = self._left
        else:
            self._left = safe_inverse(dv)
            self._right = np.ones(n)
        root = np.sqrt(self._edge_scale)
        # P = C B + diag(self_diag) with B = diag(root) H^T diag(right) (m x n) and
        # C = diag(left) H diag(root) (n x m); for "sym" C = B^T exactly.
        self._down = _scaled_csr(Ht, root, self._right, dtype)
        self._up = _scaled_csr(H, self._left, root, dtype)
        self._self_diag = (self.self_loops * self._left * self._right).astype(dtype)
        self._other_factors = {}
        self._collapse = CollapsePlan(n, H.nnz, hypergraph.edge_sizes)
        self._collapsed = {}

    @property
    def n_edges(self) -> int:
        """Rows of the work block of :meth:`apply`."""
        return self._down.shape[0]

    def workspace(self, d: int) -> np.ndarray:
        """An uninitialised ``(n_edges, d)`` work block for :meth:`apply`."""
        return np.empty((self.n_edges, int(d)), dtype=self.dtype)

    def _factors(self, adjoint: bool, dtype=None):
        """``(down, up, self_diag)`` of ``P`` (or ``P^T``) in ``dtype``, built once on first use.
        """
        dtype = self.dtype if dtype is None else np.dtype(dtype)
        adjoint = adjoint and self.kind != "sym"
        if not adjoint and dtype == self.dtype:
            return self._down, self._up, self._self_diag
        key = (adjoint, dtype)
        if key not in self._other_factors:
            root = np.sqrt(self._edge_scale)
            # P^T = diag(right) H diag(es) H^T diag(left) + diag(self_diag)
            left, right = (self._right, self._left) if adjoint else (self._left, self._right)
            self._other_factors[key] = (
                _scaled_csr(self._Ht, root, right, dtype), _scaled_csr(self._H, left, root, dtype),
                (self.self_loops * self._left * self._right).astype(dtype))
        return self._other_factors[key]

    def _check_block(self, X, name="X"):
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] != self.shape[0]:
            raise ValueError(f"{name} must have shape ({self.shape[0]}, d), got {X.shape}")
        return X

    def apply(self, X, out=None, work=None, *, adjoint: bool = False) -> np.ndarray:
        """``P X`` (or ``P^T X``) of a dense ``(n, d)`` block, into preallocated buffers.

        Parameters
        ----------
        X : ndarray, shape (n, d)
            Cast to the operator's dtype when it has another one.
        out : ndarray, shape (n, d), operator dtype, C-contiguous, optional
            Receives the result; may be ``X`` itself.
        work : ndarray, shape (n_edges, d), operator dtype, C-contiguous, optional
            Scratch block (:meth:`workspace`).
        adjoint : bool, default False
            Apply ``P^T``.

        Returns
        -------
        ndarray, shape (n, d)
            ``out``.
        """
        X = self._check_block(X)
        X = np.ascontiguousarray(X, dtype=self.dtype)
        n, d = X.shape
        if out is None:
            out = np.empty((n, d), dtype=self.dtype)
        elif out.shape != (n, d) or out.dtype != self.dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {self.dtype} array of shape {(n, d)}, "
                             f"got {out.dtype} {out.shape}")
        if work is None:
            work = self.workspace(d)
        elif work.shape != (self.n_edges, d) or work.dtype != self.dtype \
                or not work.flags.c_contiguous:
            raise ValueError(f"work must be a C-contiguous {self.dtype} array of shape "
                             f"{(self.n_edges, d)}, got {work.dtype} {work.shape}")
        return self._product(X, out, work, adjoint)

    def _product(self, X, out, work, adjoint=False):
        """``out = P X`` (``P^T X``) with the collapsed matrix when in use, else the two factors.
        """
        A = self._collapsed_matrix(adjoint, X.dtype)
        if A is not None:
            if np.may_share_memory(out, X):  # in place: the work block (m >= n rows) holds A X
                target = work[:X.shape[0]] if work.shape[0] >= X.shape[0] else None
                out[...] = csr_matmat(A, X, target, n_threads=self.n_threads)
                return out
            return csr_matmat(A, X, out, n_threads=self.n_threads)
        down, up, self_diag = self._factors(adjoint, X.dtype)
        self._collapse.record(X.shape[1])
        csr_matmat(down, X, work, n_threads=self.n_threads)
        if self.self_loops:
            np.multiply(X, self_diag[:, None], out=out)  # out may be X: elementwise
        else:
            out.fill(0)
        csr_matmat(up, work, out, accumulate=True, n_threads=self.n_threads)
        return out

    def _apply_keeping_float32(self, X, adjoint=False):
        """``P X`` for ``@``/``matmat``; a float32 block stays float32."""
        X = self._check_block(X)
        if X.dtype != np.float32 or self.dtype == np.float32:
            return self.apply(X, adjoint=adjoint)
        X = np.ascontiguousarray(X)
        out = np.empty(X.shape, dtype=np.float32)
        work = np.empty((self.n_edges, X.shape[1]), dtype=np.float32)
        return self._product(X, out, work, adjoint)

    def _collapsed_matrix(self, adjoint, dtype):
        """The collapsed ``P`` (or ``P^T``) in ``dtype`` when in use (formed once due), else None.
        """
        adjoint = adjoint and self.kind != "sym"
        key = (adjoint, np.dtype(dtype))
        if key not in self._collapsed:
            if not self._collapse.due():
                return None
            left, right = (self._right, self._left) if adjoint else (self._left, self._right)
            self._collapsed[key] = self._collapse.settle(
                self._H, self._Ht,
                lambda: collapsed_matrix(self._H, self._Ht, self._edge_scale, left, right,
                                         self.self_loops, dtype))
        return self._collapsed[key]

    def column_quadratic_forms(self, X) -> np.ndarray:
        """``x_j^T P x_j`` for every column of a dense ``(n, d)`` block, float64, shape (d,).

        For ``kind="sym"``, ``||B x||^2 + sum(s x^2)``: one sparse product.

        Examples
        --------
        >>> from hyperclust import Hypergraph
        >>> P = PropagationOperator(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
        >>> X = np.arange(8.0).reshape(4, 2)
        >>> np.allclose(P.column_quadratic_forms(X), (X * (P @ X)).sum(axis=0))
        True
        """
        X = np.ascontiguousarray(self._check_block(X), dtype=self.dtype)
        if self.kind != "sym":
            return np.einsum("ij,ij->j", X, self.apply(X), dtype=np.float64)
        work = self.workspace(X.shape[1])
        csr_matmat(self._down, X, work, n_threads=self.n_threads)
        out = np.einsum("ij,ij->j", work, work, dtype=np.float64)
        if self.self_loops:
            out += np.einsum("i,ij,ij->j", self._self_diag, X, X, dtype=np.float64)
        return out

    def _sparse_product(self, X, adjoint=False):
        down, up, self_diag = self._factors(adjoint)
        X = sp.csr_matrix(X, dtype=self.dtype)
        Y = up @ (down @ X)
        if self.self_loops:
            Y = Y + sp.diags(self_diag) @ X
        return sp.csr_matrix(Y, dtype=self.dtype)

    def _matmat(self, X):
        if sp.issparse(X):
            return self._sparse_product(X)
        X = np.asarray(X)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        return self._apply_keeping_float32(X)

    def _matvec(self, x):
        return self._apply_keeping_float32(np.asarray(x).reshape(-1, 1)).ravel()

    def _rmatvec(self, x):
        return self._apply_keeping_float32(np.asarray(x).reshape(-1, 1), adjoint=True).ravel()

    def _rmatmat(self, X):
        if sp.issparse(X):
            return self._sparse_product(X, adjoint=True).toarray()
        return self._apply_keeping_float32(np.asarray(X), adjoint=True)

    def _adjoint(self):
        if self.kind == "sym":
            return self
        return _RandomWalkAdjoint(self)

    def to_sparse(self) -> sp.csr_matrix:
        """Explicit sparse P in float64 from the unfolded formula (small inputs only)."""
        H = self._H
        M = H @ sp.diags(self._edge_scale) @ self._Ht + self.self_loops * sp.identity(self.shape[0])
        return (sp.diags(self._left) @ M @ sp.diags(self._right)).tocsr()

    def apply_power(self, X, k: int) -> np.ndarray:
        """``P^k X`` (X dense ``(n, d)`` or sparse), dense, in the operator's dtype."""
        X = X.toarray() if sp.issparse(X) else X
        X = self._check_block(X)
        Y = np.array(X, dtype=self.dtype, order="C", copy=True)
        work = self.workspace(Y.shape[1]) if int(k) > 0 else None
        for _ in range(int(k)):
            self.apply(Y, out=Y, work=work)
        return Y


class _RandomWalkAdjoint(Operator):
    """``P^T`` of a random-walk propagation operator (``H W De^-1 H^T Dv^-1``)."""

    def __init__(self, op: PropagationOperator):
        super().__init__(dtype=op.dtype, shape=op.shape)
        self._op = op

    def _matvec(self, x):
        return self._op._rmatvec(x)

    def _matmat(self, X):
        return self._op._rmatmat(X)

    def _adjoint(self):
        return self._op


def propagation_operator(hypergraph: Hypergraph, self_loops: float = 1.0,
                         kind: str = "sym", dtype=np.float64,
                         n_threads=None) -> PropagationOperator:
    """Shorthand for :class:`PropagationOperator`.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> P = propagation_operator(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> (P @ np.array([1.0, 0.0, 0.0, 0.0])).round(4).tolist()
    [0.6667, 0.1667, 0.1361, 0.0]
    """
    return PropagationOperator(hypergraph, self_loops=self_loops, kind=kind, dtype=dtype,
                               n_threads=n_threads)
