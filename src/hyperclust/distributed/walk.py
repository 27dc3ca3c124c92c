"""AHCKA's mixed random walk ``M = (1 - beta) P + beta Q`` on row blocks: the counterpart of
:class:`hyperclust.operators.knn.MixedWalk` (no self loops), ``P`` by the block operator,
``Q = D_A^-1 A`` from the kNN affinity kept per row block.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp

from .._arrays import unique_inverse
from .._validation import check_fraction
from ..operators.base import safe_inverse
from ..operators.kernels import sparse_product
from ..operators.knn import row_normalize
from ._tasks import RETRIES
from .deferred import materialize
from .operator import reads_input, ignores_input, propagation
from .partitioned import PartitionedHypergraph, load_node_block

__all__ = ["MixedBlockWalk"]


class _KnnRows:
    """What a worker keeps of row block ``b`` of the kNN part (``Q_b`` or ``A_b``, weights)."""

    def __init__(self, A, degrees, beta, bounds, adjoint):
        A = sp.csr_matrix(A)
        self.inv_degrees = safe_inverse(np.asarray(A.sum(axis=1)).ravel())
        has_q = np.diff(A.indptr) > 0
        isolated = degrees <= 0
        self.a = np.where(has_q, np.where(isolated, 0.0, 1.0 - beta),
                          (~isolated).astype(np.float64))
        self.b = np.where(has_q, np.where(isolated, 1.0, beta), 0.0)
        M = A if adjoint else row_normalize(A)
        self.cols, compact = unique_inverse(M.indices)
        self.matrix = sp.csr_matrix((M.data, compact.reshape(-1), M.indptr),
                                    shape=(M.shape[0], self.cols.size))
        self.cut = np.searchsorted(self.cols, bounds)
        self.start = np.asarray(bounds)[:-1]

    @property
    def sources(self):
        """Row blocks whose rows this block reads."""
        return np.flatnonzero(np.diff(self.cut) > 0)

    def rows_in(self, c):
        """Local rows of source block ``c`` this block reads, increasing."""
        return self.cols[self.cut[c]:self.cut[c + 1]] - self.start[c]

    @property
    def nbytes(self) -> int:
        arrays = (self.inv_degrees, self.a, self.b, self.cols, self.matrix.data,
                  self.matrix.indices, self.matrix.indptr, self.cut, self.start)
        return int(sum(a.nbytes for a in arrays))


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(_KnnRows)(lambda rows: rows.nbytes)


def _load_knn_rows(A, path, beta, bounds, adjoint):
    _register_sizeof()  # on the worker, whose memory accounting stores the rows
    return _KnnRows(A, load_node_block(path)[2], beta, bounds, adjoint)


def _sources(rows):
    return rows.sources


def _rows_in(rows, c):
    return rows.rows_in(c)


def _inverse_degrees_at(rows, idx):
    return rows.inv_degrees[idx]


def _scale_columns(rows, *inverse_degrees):
    """``A_b D_A^-1`` on the block's columns: the rows of ``Q^T``."""
    d = np.concatenate(inverse_degrees) if inverse_degrees else np.zeros(0)
    scaled = copy.copy(rows)  # the input stays as it was (a recomputed task must see it)
    scaled.matrix = sp.csr_matrix(rows.matrix @ sp.diags(d))
    return scaled


def _take(X, idx, rows=None):
    """``X[idx]``, or ``(b X)[idx]`` with the weights ``b`` of ``rows``."""
    return X[idx] if rows is None else rows.b[idx, None] * X[idx]


def _times_a(X, rows):
    return rows.a[:, None] * X


@ignores_input  # its X comes in its own arguments, where its ``then`` reads it
def _combine(PY, _, rows, adjoint, X, then, *slices):
    """``a P X + b Q X`` (or ``P^T (a Y) + Q^T (b Y)``) for the block, then ``then``."""
    G = np.concatenate(slices) if slices else np.zeros((0, PY.shape[1]))
    QY = sparse_product(rows.matrix, G, n_threads=1)
    Y = PY + QY if adjoint else rows.a[:, None] * PY + rows.b[:, None] * QY
    return Y if then is None else then[0](Y, X, *then[1:])


class MixedBlockWalk:
    """``M = (1 - beta) P + beta Q`` (or its transpose) on a Dask cluster, never formed.

    Parameters
    ----------
    partitioned : PartitionedHypergraph or path
    client : dask.distributed.Client
    affinity : list of futures
        Row blocks of :func:`~hyperclust.distributed.knn.knn_affinity_blocks`.
    beta : float in [0, 1], default 0.5
    adjoint : bool, default False
        Apply ``M^T``.

    Attributes
    ----------
    shape : tuple of int, (n, n)
    bounds : ndarray of int, shape (n_blocks + 1,)
    n_products : int

    Examples
    --------
    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.knn import knn_affinity_blocks
    >>> from hyperclust.distributed.linalg import gather_blocks, scatter_blocks
    >>> from hyperclust.operators.knn import MixedWalk, knn_affinity
    >>> X = np.random.default_rng(0).normal(size=(6, 3))
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]], n_nodes=6, features=X)  # 4, 5: no edge
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=4)
    >>> V = np.arange(12.0).reshape(6, 2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     M = MixedBlockWalk(phg, c, knn_affinity_blocks(phg, c, 2), beta=0.3)
    ...     Y = gather_blocks(c, M.apply(scatter_blocks(c, V, M.bounds)))
    >>> ref = MixedWalk(hg, knn_affinity(X, 2, method="exact"), beta=0.3)
    >>> bool(np.allclose(Y, ref @ V, rtol=0, atol=1e-12)), M.n_products
    (True, 1)
    """

    def __init__(self, partitioned, client, affinity, beta: float = 0.5, adjoint: bool = False):
        phg = partitioned if isinstance(partitioned, PartitionedHypergraph) \
            else PartitionedHypergraph(partitioned)
        beta = check_fraction(beta, "beta")
        if len(affinity) != phg.n_blocks:
            raise ValueError(f"affinity has {len(affinity)} row blocks, the hypergraph "
                             f"{phg.n_blocks}")
        _register_sizeof()
        self.client = client
        self.adjoint = bool(adjoint)
        self.shape = (phg.n_nodes, phg.n_nodes)
        self.bounds = phg.block_bounds
        self.n_products = 0
        self._P = propagation(phg, client, self_loops=0.0, kind="rw", adjoint=self.adjoint)
        sub = self._submit
        blocks = [sub(_load_knn_rows, A, phg.block_path(b), beta, self.bounds, self.adjoint)
                  for b, A in enumerate(affinity)]
        self._sources = [s.tolist() for s in client.gather([sub(_sources, r) for r in blocks])]
        self._rows = [{c: sub(_rows_in, r, c) for c in src}
                      for r, src in zip(blocks, self._sources)]
        if self.adjoint:
            blocks = [sub(_scale_columns, r, *[sub(_inverse_degrees_at, blocks[c], idx[c])
                                              for c in src])
                      for r, src, idx in zip(blocks, self._sources, self._rows)]
        self.blocks = blocks

    def _submit(self, fn, *args):
        return self.client.submit(fn, *args, retries=RETRIES, pure=False)

    @property
    def n_blocks(self):
        return len(self.blocks)

    def block_groups(self):
        """The row blocks of each worker (as ``BlockOperator.block_groups``)."""
        return self._P.block_groups()

    def apply(self, X_blocks, then=None):
        """Futures of ``M @ X`` (``M^T @ X`` for the adjoint), one per row block.

        ``then``: as in :meth:`~hyperclust.distributed.operator.BlockOperator.apply`.
        """
        X_blocks = materialize(self.client, X_blocks)
        sub = self._submit
        weights = self.blocks if self.adjoint else [None] * self.n_blocks
        steps = []
        for b, (rows, X) in enumerate(zip(self.blocks, X_blocks)):
            slices = [sub(_take, X_blocks[c], self._rows[b][c], weights[c])
                      for c in self._sources[b]]
            step = then[b] if isinstance(then, list) else then
            steps.append((_combine, rows, self.adjoint, X if reads_input(step) else None,
                          step, *slices))
        inputs = [sub(_times_a, X, r) for X, r in zip(X_blocks, self.blocks)] if self.adjoint \
            else X_blocks
        self.n_products += 1
        return self._P.apply(inputs, then=steps)
