"""Which factoring a propagation product takes: the pair through the hyperedges, or one
collapsed ``n x n`` sparse matrix.

The pair ``P X = C (B X) + diag(s) X`` (:mod:`~hyperclust.operators.propagation`) reads
every incidence twice and writes, then reads back, the ``(m, d)`` block ``E = B X``. Where
hyperedges outnumber nodes and overlap heavily (congress-bills: n = 1,718, m = 84,799),
``A = C B + diag(s)`` has fewer entries than the pair's ``2 nnz(H)`` and one product
``A X`` needs no ``E``: fewer multiply-adds and no round trip, so it is cheaper at every
width. Measured (``benchmarks/studies/bench_factoring.py``, float32, one thread, CPU min of
5, load ~6.6 on the 2-core machine): congress-bills (``nnz(A) = 0.58 * 2 nnz(H)``) saves
33% at width 1, 48% at 8, 85% at 64 (43.0 vs 6.3 ms); contact-high-school-classes (0.33)
62-78%; mag-10 (1.54) -19% at width 1, 23% at 64; house-committees (10.7) 4x-10x slower.

Forming ``A`` is a sparse product of about ``sum_e |e|^2`` multiply-adds (congress-bills:
0.15 s, three pair products at width 64, thirty at width 1), so an operator forms it only
once its pair products have cost about what ``A`` would have saved plus its forming
(:class:`CollapsePlan`, :data:`FORM_COST`): one used for a few products never pays for it
(a fit's spectral embedding of 19 products stays on the pair), one used for many (an
iterative solver, repeated propagation) switches early in its life. It is attempted only
where ``min(sum_e |e|^2 - nnz(H) + n, n^2)``, a bound on ``nnz(A)`` and on the forming
work, is at most :data:`ATTEMPT_RATIO` times ``2 nnz(H)`` (no large ``n x n`` on a path
large inputs reach); when due, formed only where ``nnz(A)`` estimated from
:data:`SAMPLE_ROWS` evenly spaced rows is at most ``2 nnz(H)`` (a 10^6-node block model,
bound 1.9 times the pair, is refused at that cost, not the full product's), and kept only
where the formed ``nnz(A) <= 2 nnz(H)`` (mag-10, which would gain at large widths only,
stays on the pair). ``A`` is computed in float64 from the unfolded formula and rounded once
to the product's dtype, so its products agree with the pair's to rounding.
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
#: formed: about twice its forming cost, since ``A X`` saves about half the pair's time, so
#: that the pair's work left unsaved before forming is about the forming's cost. Measured
#: (``benchmarks/studies/bench_factoring.py``, one thread, load 4.8-6.6): forming 14-64 ns
#: per term (congress-bills 14.3: scipy's sparse product, the scaling and the sort), a pair
#: work unit 0.18-1.9 ns (congress-bills 0.41-1.72). With half this budget the spectral
#: embeddings of hgnn, Uni-DHC and hsbm on congress-bills (19 products at width 13) formed
#: ``A`` after 15 and their fits took 0.2 s CPU longer (0.30-0.45 s before).
FORM_COST = 60.0

#: Rows of ``A`` counted exactly to estimate ``nnz(A)`` before forming it.
SAMPLE_ROWS = 1024


class CollapsePlan:
    """When an operator switches from the pair to the collapsed matrix.

    Parameters
    ----------
    n_nodes : int
    nnz : int
        Incidences ``nnz(H)``.
    edge_sizes : ndarray of int, shape (n_edges,)

    Attributes
    ----------
    budget : float or None
        Pair work after which ``A`` is formed; None where it is never attempted.
    spent : float
        Pair work done so far.

    Examples
    --------
    Two nodes in many hyperedges: ``A`` (2 x 2) is far smaller than the pair, formed once
    the pair has done the forming's work.

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
        """Work units of one pair product at ``width`` columns: ``2 nnz (width + 1)`` (the
        ``+ 1`` for reading the indices, which dominates at width 1)."""
        return 2.0 * self.nnz * (int(width) + 1)

    def record(self, width: int) -> None:
        """Count one pair product of ``width`` columns."""
        self.spent += self.work(width)

    def due(self) -> bool:
        """Whether the pair has done the forming's work (never where not attempted)."""
        return self.budget is not None and self.spent >= self.budget

    def keep(self, collapsed_nnz: float) -> bool:
        """Whether ``A`` with ``collapsed_nnz`` entries replaces the pair."""
        return collapsed_nnz <= 2 * self.nnz

    def settle(self, H, Ht, build):
        """Once :meth:`due`: ``build()``, the collapsed matrix, where its estimated and its
        formed size are kept, else None, and then never attempted again.

        Parameters
        ----------
        H, Ht : scipy.sparse CSR, shapes (n, m) and (m, n)
            The incidence the matrix collapses (:func:`estimated_nnz`).
        build : callable
            Returns the collapsed matrix (sparse, shape (n, n)).
        """
        A = build() if self.keep(estimated_nnz(H, Ht)) else None
        if A is None or not self.keep(A.nnz):
            self.budget = None
            return None
        return A


def estimated_nnz(H, Ht) -> float:
    """``nnz(H H^T + I)`` estimated from :data:`SAMPLE_ROWS` evenly spaced rows of ``H H^T``
    (exact where ``H`` has no more rows), plus the isolated nodes' diagonal.

    Parameters
    ----------
    H : scipy.sparse CSR, shape (n, m)
    Ht : scipy.sparse CSR, shape (m, n), ``H^T``

    Returns
    -------
    float

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
    """``diag(left) (H diag(edge_scale) H^T + diag(diagonal)) diag(right)`` as CSR of
    ``dtype``, sorted indices, computed in float64.

    Parameters
    ----------
    H : scipy.sparse CSR, shape (n, m)
    Ht : scipy.sparse CSR, shape (m, n), ``H^T``
    edge_scale : ndarray, shape (m,)
    left, right : ndarray, shape (n,)
    diagonal : float or ndarray of shape (n,)
        Added on the diagonal (a self-loop weight, a node shift).
    dtype : numpy dtype

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, n)

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
