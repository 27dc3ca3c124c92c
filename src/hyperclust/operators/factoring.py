"""Which factoring a propagation product takes: the pair through the hyperedges, or one collapsed
``n x n`` matrix ``A = C B + diag(s)``, formed once the pair's products have cost about what
it saves and kept only where it is smaller than the pair (docs/benchmarks.md, "The propagation
pair against its bandwidth bound").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["ATTEMPT_RATIO", "FORM_COST", "SAMPLE_ROWS", "CollapsePlan", "collapsed_matrix",
           "estimated_nnz"]

#: The collapsed matrix is attempted only where its bound
#: ``min(sum_e |e|^2 - nnz(H) + n, n^2)`` is at most this many times the pair's ``2 nnz(H)``.
ATTEMPT_RATIO = 4

#: Pair work units (:meth:`CollapsePlan.work`) per ``sum_e |e|^2`` term after which ``A`` is
#: formed: about twice its forming cost (``benchmarks/studies/bench_factoring.py``).
FORM_COST = 60.0

#: Rows of ``A`` counted exactly to estimate ``nnz(A)`` before forming it.
SAMPLE_ROWS = 1024


class CollapsePlan:
    """When an operator switches from the pair to the collapsed matrix.

    Parameters
    ----------
    n_nodes : int
    nnz : int
        ``nnz(H)``.
    edge_sizes : ndarray of int, shape (n_edges,)

    Attributes
    ----------
    budget : float or None
        Pair work after which ``A`` is formed; None where never attempted.
    spent : float
        Pair work done so far.

    Examples
    --------
    >>> plan = CollapsePlan(2, 200, np.full(100, 2))
    >>> plan.budget  # FORM_COST * sum_e |e|^2
    24000.0
    >>> plan.record(4), plan.due()  # 2 * 200 * (4 + 1) units
    (None, False)
    >>> for _ in range(11):
    ...     plan.record(4)
    >>> plan.due()
    True
    >>> CollapsePlan(100, 200, np.full(4, 50)).budget is None  # 50^2 * 4 > 4 * 2 * 200
    True
    """

    def __init__(self, n_nodes: int, nnz: int, edge_sizes):
        sizes = np.asarray(edge_sizes, dtype=np.int64)
        squares = int((sizes * sizes).sum())
        # a node's diagonal entry is counted once per hyperedge it is in, stored once
        bound = min(squares - int(nnz) + int(n_nodes), int(n_nodes) ** 2)
        attempt = nnz > 0 and bound <= ATTEMPT_RATIO * 2 * int(nnz)
        self.nnz = int(nnz)
        self.budget = FORM_COST * squares if attempt else None
        self.spent = 0.0

    def work(self, width: int) -> float:
        """Work units of one pair product: ``2 nnz (width + 1)``."""
        return 2.0 * self.nnz * (int(width) + 1)

    def record(self, width: int) -> None:
        """Count one pair product of ``width`` columns."""
        self.spent += self.work(width)

    def due(self) -> bool:
        """Whether the pair has done the forming's work."""
        return self.budget is not None and self.spent >= self.budget

    def keep(self, collapsed_nnz: float) -> bool:
        """Whether ``A`` with ``collapsed_nnz`` entries replaces the pair."""
        return collapsed_nnz <= 2 * self.nnz

    def settle(self, H, Ht, build):
        """Once due: ``build()`` where its estimated and formed sizes are kept, else None for good.
        """
        A = build() if self.keep(estimated_nnz(H, Ht)) else None
        if A is None or not self.keep(A.nnz):
            self.budget = None
            return None
        return A


def estimated_nnz(H, Ht) -> float:
    """``nnz(H H^T + I)`` estimated from :data:`SAMPLE_ROWS` evenly spaced rows.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]]))
    >>> estimated_nnz(H, H.T.tocsr())  # every entry but the two corners
    7.0
    """
    n = H.shape[0]
    rows = np.unique(np.linspace(0, n - 1, min(n, SAMPLE_ROWS)).astype(np.int64))
    counted = (H[rows] @ Ht).nnz if rows.size else 0
    isolated = int(np.count_nonzero(np.diff(H.indptr) == 0))
    return counted * n / max(rows.size, 1) + isolated


def collapsed_matrix(H, Ht, edge_scale, left, right, diagonal, dtype) -> sp.csr_matrix:
    """``diag(left) (H diag(edge_scale) H^T + diag(diagonal)) diag(right)`` as sorted CSR of
    ``dtype``, computed in float64.

    Examples
    --------
    >>> H = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    >>> A = collapsed_matrix(H, H.T.tocsr(), np.array([0.5, 1.0]), np.ones(3),
    ...                      np.full(3, 2.0), 1.0, np.float32)
    >>> A.toarray().tolist()
    [[3.0, 1.0, 0.0], [1.0, 5.0, 2.0], [0.0, 2.0, 4.0]]
    """
    n = H.shape[0]
    # one sparse product: the hyperedge scale folded into H's values (half the time of
    # H @ diags(edge_scale) @ H.T, which multiplies twice and transposes)
    scaled = sp.csr_matrix((np.asarray(H.data, dtype=np.float64) * edge_scale[H.indices],
                            H.indices, H.indptr), shape=H.shape)
    M = (scaled @ sp.csr_matrix(Ht, dtype=np.float64)).tocsr()
    M.sum_duplicates()
    diagonal = np.broadcast_to(np.asarray(diagonal, dtype=np.float64), (n,))
    rows = np.repeat(np.arange(n), np.diff(M.indptr))
    on_diagonal = M.indices == rows
    stored = np.zeros(n, dtype=bool)
    stored[rows[on_diagonal]] = True
    if np.any(diagonal[~stored]):  # isolated nodes (or only in zero-scale hyperedges)
        M = (M + sp.diags(diagonal)).tocsr()
        M.sum_duplicates()
        rows = np.repeat(np.arange(n), np.diff(M.indptr))
    else:  # in place: the sparse sum would copy every entry
        M.data[on_diagonal] += diagonal[rows[on_diagonal]]
    data = M.data * left[rows] * right[M.indices]
    A = sp.csr_matrix((data.astype(dtype, copy=False), M.indices, M.indptr), shape=(n, n))
    A.sort_indices()
    return A
