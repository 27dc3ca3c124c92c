"""Shared pieces of the hypergraph operators: a factored LinearOperator base, the memory
guard for explicit sparse matrices, and conversion to torch sparse tensors."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

__all__ = ["FactoredOperator", "OperatorTooLargeError", "check_sparse_budget",
           "clique_nnz_estimate", "to_torch_sparse", "safe_inverse", "as_dense_block"]

#: Default cap on the number of stored entries of an explicit clique-sized matrix.
DEFAULT_MAX_NNZ = 100_000_000
#: Default memory budget (bytes) for building one explicit sparse operator.
DEFAULT_MEMORY_BUDGET = 4 * 1024**3


class OperatorTooLargeError(ValueError):
    """Raised when an explicit sparse operator would exceed the nnz or memory budget."""


def safe_inverse(x: np.ndarray) -> np.ndarray:
    """Elementwise ``1 / x`` with 0 where ``x <= 0`` (isolated nodes, empty hyperedges)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    np.divide(1.0, x, out=out, where=x > 0)
    return out


def clique_nnz_estimate(hypergraph) -> int:
    """Upper bound on nnz(H W H^T): ``min(sum_e |e|^2, n^2)``."""
    sizes = hypergraph.edge_sizes.astype(np.int64)
    n = int(hypergraph.n_nodes)
    return int(min(int((sizes * sizes).sum()), n * n))


def check_sparse_budget(est_nnz: int, what: str, max_nnz: int | None = None,
                        memory_budget: int | None = None) -> None:
    """Refuse to build an explicit sparse matrix with ``est_nnz`` entries when too large.

    The memory estimate counts the product and one copy (value + int64 index, twice).

    Raises
    ------
    OperatorTooLargeError
        Naming the estimated nnz, the estimated memory and the budget that was exceeded.
    """
    max_nnz = DEFAULT_MAX_NNZ if max_nnz is None else int(max_nnz)
    memory_budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    est_bytes = 2 * 16 * int(est_nnz)
    if est_nnz > max_nnz or est_bytes > memory_budget:
        raise OperatorTooLargeError(
            f"explicit {what} would hold about {est_nnz:,} nonzeros "
            f"(~{est_bytes / 1024**3:.2f} GiB to build), over the limit "
            f"(max_nnz={max_nnz:,}, memory_budget={memory_budget / 1024**3:.2f} GiB); "
            "use the matrix-free operator (matvec/matmat) instead, or raise max_nnz/memory_budget")


def as_dense_block(X) -> tuple[np.ndarray, bool]:
    """``(X as float64 2-D array, was_1d)``; sparse input is densified (a block of columns)."""
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        return X.reshape(-1, 1), True
    return X, False


class SymmetricOperator(LinearOperator):
    """A symmetric real ``(n, n)`` operator, float64. Subclasses implement ``_apply(X)`` for
    a dense ``(n, d)`` block; vectors, sparse blocks, the adjoint and ``to_dense`` follow."""

    def __init__(self, n: int):
        super().__init__(dtype=np.float64, shape=(int(n), int(n)))

    def _apply(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _matmat(self, X):
        X, _ = as_dense_block(X)
        return self._apply(X)

    def _matvec(self, x):
        return self._apply(np.asarray(x, dtype=np.float64).reshape(-1, 1)).ravel()

    def _rmatvec(self, x):
        return self._matvec(x)

    def _adjoint(self):
        return self

    def to_dense(self) -> np.ndarray:
        """Dense ``(n, n)`` array by applying the operator to the identity (small n only)."""
        n = self.shape[0]
        if n > 20_000:
            raise OperatorTooLargeError(f"to_dense refuses n={n} > 20,000 (a {n}x{n} dense array)")
        return self._apply(np.eye(n))


class FactoredOperator(SymmetricOperator):
    """A symmetric real operator applied in factored form, with an explicit sparse form on
    request. Subclasses implement ``_apply(X)`` for a dense ``(n, d)`` block and
    ``_build_sparse()``, and may set ``_sparse_nnz_estimate``."""

    def _build_sparse(self) -> sp.csr_matrix:  # pragma: no cover - abstract
        raise NotImplementedError

    def _sparse_nnz_estimate(self) -> int:
        return 0

    def to_sparse(self, max_nnz: int | None = None, memory_budget: int | None = None) -> sp.csr_matrix:
        """Explicit CSR matrix; raises :class:`OperatorTooLargeError` when the estimated
        size exceeds ``max_nnz`` entries or ``memory_budget`` bytes."""
        check_sparse_budget(self._sparse_nnz_estimate(), type(self).__name__, max_nnz, memory_budget)
        M = sp.csr_matrix(self._build_sparse())
        M.sum_duplicates()
        return M


def to_torch_sparse(op, device="cpu", dtype=None, max_nnz: int | None = None,
                    memory_budget: int | None = None):
    """Convert an operator or sparse matrix to a coalesced torch sparse COO tensor.

    Parameters
    ----------
    op : scipy.sparse matrix, ndarray or operator with ``to_sparse()``
    device : str or torch.device
    dtype : torch.dtype, default torch.float32

    Returns
    -------
    torch.Tensor, sparse COO, shape ``op.shape``
    """
    import torch

    dtype = torch.float32 if dtype is None else dtype
    if sp.issparse(op):
        M = op
    elif isinstance(op, np.ndarray):
        M = sp.csr_matrix(op)
    elif hasattr(op, "to_sparse"):
        try:
            M = op.to_sparse(max_nnz=max_nnz, memory_budget=memory_budget)
        except TypeError:
            M = op.to_sparse()
    else:
        raise TypeError(f"cannot convert {type(op).__name__} to a torch sparse tensor; "
                        "pass a scipy sparse matrix or an operator with to_sparse()")
    M = sp.coo_matrix(M)
    idx = np.vstack([M.row, M.col]).astype(np.int64)
    t = torch.sparse_coo_tensor(torch.from_numpy(idx), torch.from_numpy(M.data.astype(np.float64)),
                                size=M.shape, dtype=dtype, device=device,
                                check_invariants=False)
    return t.coalesce()
