"""The operator base classes, the memory guard for explicit sparse matrices, shared helpers and
conversion to torch sparse tensors.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

__all__ = ["Operator", "SymmetricOperator", "FactoredOperator", "OperatorTooLargeError",
           "check_sparse_budget", "clique_nnz_estimate", "to_torch_sparse", "safe_inverse",
           "as_dense_block", "check_hypergraph", "edge_scale", "loop_degrees"]

#: Default cap on the number of stored entries of an explicit clique-sized matrix.
DEFAULT_MAX_NNZ = 100_000_000
#: Default memory budget (bytes) for building one explicit sparse operator.
DEFAULT_MEMORY_BUDGET = 4 * 1024**3


class OperatorTooLargeError(ValueError):
    """Raised when an explicit sparse operator would exceed the nnz or memory budget.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> L = ZhouLaplacian(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> L.to_sparse(max_nnz=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.operators.base.OperatorTooLargeError: explicit ZhouLaplacian would hold about 17 nonzeros ...
    """


def safe_inverse(x: np.ndarray) -> np.ndarray:
    """Elementwise ``1 / x`` with 0 where ``x <= 0``, float64.

    Examples
    --------
    >>> safe_inverse([2.0, 0.0, -1.0]).tolist()
    [0.5, 0.0, 0.0]
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    np.divide(1.0, x, out=out, where=x > 0)
    return out


def edge_scale(hypergraph) -> np.ndarray:
    """``w_e * (1 / |e|)`` per hyperedge (0 when empty), shape (n_edges,); the one rounding every
    operator and objective uses.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> edge_scale(Hypergraph.from_edges([[0, 1], [0, 1, 2, 3]], weights=[1.0, 2.0])).tolist()
    [0.5, 0.5]
    """
    return hypergraph.weights * safe_inverse(hypergraph.edge_sizes)


def loop_degrees(hypergraph, self_loops: float) -> np.ndarray:
    """``Dv + s``: the weighted degree ``sum_e w_e H[v, e]`` of each node plus a self-loop
    weight ``s``, shape (n_nodes,).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> loop_degrees(Hypergraph.from_edges([[0, 1], [1, 2]]), 1.0).tolist()
    [2.0, 3.0, 2.0]
    """
    return hypergraph.weighted_degrees + self_loops


def check_hypergraph(hypergraph) -> None:
    """``TypeError`` unless ``hypergraph`` is a :class:`~hyperclust.Hypergraph`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> check_hypergraph(sp.eye(3))
    Traceback (most recent call last):
    ...
    TypeError: expected a Hypergraph, got dia_matrix
    """
    from ..hypergraph import Hypergraph

    if not isinstance(hypergraph, Hypergraph):
        raise TypeError(f"expected a Hypergraph, got {type(hypergraph).__name__}")


def clique_nnz_estimate(hypergraph) -> int:
    """Upper bound on nnz(H W H^T): ``min(sum_e |e|^2, n^2)``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> clique_nnz_estimate(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    13
    """
    sizes = hypergraph.edge_sizes.astype(np.int64)
    n = int(hypergraph.n_nodes)
    return int(min(int((sizes * sizes).sum()), n * n))


def check_sparse_budget(est_nnz: int, what: str, max_nnz: int | None = None,
                        memory_budget: int | None = None) -> None:
    """Raise :class:`OperatorTooLargeError` when an explicit matrix of ``est_nnz`` entries is too large.

    The memory estimate counts the product and one copy (value + int64 index, twice).

    Parameters
    ----------
    est_nnz : int
    what : str
        The matrix, named in the error.
    max_nnz : int, default :data:`DEFAULT_MAX_NNZ`
    memory_budget : int, bytes, default :data:`DEFAULT_MEMORY_BUDGET`

    Examples
    --------
    >>> check_sparse_budget(1000, "A")  # within budget: nothing happens
    >>> check_sparse_budget(10**6, "A", memory_budget=2**20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.operators.base.OperatorTooLargeError: explicit A would hold about 1,000,000 nonzeros (~0.03 GiB to build), over the limit ...
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
    """``(X as a float64 (n, d) array, was_1d)``; sparse input is densified.

    Examples
    --------
    >>> block, was_1d = as_dense_block([1, 2, 3])
    >>> block.shape, block.dtype, was_1d
    ((3, 1), dtype('float64'), True)
    """
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        return X.reshape(-1, 1), True
    return X, False


class Operator(LinearOperator):
    """The base of every hypergraph operator: a scipy ``LinearOperator``; what else it offers is
    declared in :data:`hyperclust.operators.registry.OPERATORS`.

    Examples
    --------
    >>> from scipy.sparse.linalg import eigsh
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> L = ZhouLaplacian(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> isinstance(L, Operator), L.shape
    (True, (4, 4))
    >>> top = eigsh(L, k=1, which="LA", v0=np.ones(4), return_eigenvectors=False)[0]
    >>> round(float(top), 6)
    1.0
    """


class SymmetricOperator(Operator):
    """A symmetric real ``(n, n)`` float64 operator; subclasses implement ``_apply(X)`` on an
    ``(n, d)`` block.

    Examples
    --------
    >>> class Scale(SymmetricOperator):
    ...     def __init__(self, s):
    ...         super().__init__(len(s))
    ...         self.s = np.asarray(s, dtype=float)
    ...     def _apply(self, X):
    ...         return self.s[:, None] * X
    >>> op = Scale([1.0, 2.0, 3.0])
    >>> (op @ np.ones(3)).tolist(), (op.T @ np.ones(3)).tolist(), np.diag(op.to_dense()).tolist()
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    """

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
        """Dense ``(n, n)`` array (n <= 20,000)."""
        n = self.shape[0]
        if n > 20_000:
            raise OperatorTooLargeError(f"to_dense refuses n={n} > 20,000 (a {n}x{n} dense array)")
        return self._apply(np.eye(n))


class FactoredOperator(SymmetricOperator):
    """A symmetric operator applied in factored form, explicit on request; subclasses implement
    ``_apply(X)`` and ``_build_sparse()`` and may override ``_sparse_nnz_estimate``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> class Path3(FactoredOperator):  # adjacency of the path 0 - 1 - 2
    ...     _A = sp.csr_matrix(np.array([[0.0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    ...     def __init__(self):
    ...         super().__init__(3)
    ...     def _apply(self, X):
    ...         return self._A @ X
    ...     def _build_sparse(self):
    ...         return self._A
    ...     def _sparse_nnz_estimate(self):
    ...         return self._A.nnz
    >>> op = Path3()
    >>> (op @ np.ones(3)).tolist(), op.to_sparse().nnz
    ([1.0, 2.0, 1.0], 4)
    >>> op.to_sparse(max_nnz=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperclust.operators.base.OperatorTooLargeError: explicit Path3 would hold about 4 nonzeros ...
    """

    def _build_sparse(self) -> sp.csr_matrix:  # pragma: no cover - abstract
        raise NotImplementedError

    def _sparse_nnz_estimate(self) -> int:
        return 0

    def to_sparse(self, max_nnz: int | None = None, memory_budget: int | None = None) -> sp.csr_matrix:
        """Explicit CSR matrix; :class:`OperatorTooLargeError` over ``max_nnz`` or ``memory_budget``.
        """
        check_sparse_budget(self._sparse_nnz_estimate(), type(self).__name__, max_nnz, memory_budget)
        M = sp.csr_matrix(self._build_sparse())
        M.sum_duplicates()
        return M


def to_torch_sparse(op, device="cpu", dtype=None, max_nnz: int | None = None,
                    memory_budget: int | None = None):
    """An operator (with ``to_sparse()``), sparse matrix or array as a coalesced torch COO tensor.

    ``dtype`` defaults to torch.float32; ``max_nnz``, ``memory_budget`` go to ``op.to_sparse``.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> L = ZhouLaplacian(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), kind="unnormalized")
    >>> T = to_torch_sparse(L, device="cpu")
    >>> T.shape, T.dtype, T.is_coalesced()
    (torch.Size([4, 4]), torch.float32, True)
    >>> (6 * T.to_dense()).round().int().tolist()
    [[4, -2, -2, 0], [-2, 4, -2, 0], [-2, -2, 7, -3], [0, 0, -3, 3]]
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
