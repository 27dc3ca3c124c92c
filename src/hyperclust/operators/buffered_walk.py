"""The mixed walk ``M X`` of a :class:`~hyperclust.operators.knn.MixedWalk` into reused buffers,
on the kernel threads, bit for bit the values of ``M @ X``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .kernels import csr_matmat
from .row_ranges import csr_matmat_scaled
from .knn import MixedWalk

__all__ = ["BufferedMixedWalk"]


def _csr64(A):
    if sp.issparse(A) and A.format == "csr" and A.dtype == np.float64:
        return A
    return sp.csr_matrix(A, dtype=np.float64)


class BufferedMixedWalk:
    """``M X`` for a :class:`~hyperclust.operators.knn.MixedWalk` ``M``, into buffers the next call
    overwrites (any other operator: ``walk @ X``).

    Parameters
    ----------
    walk : MixedWalk or LinearOperator, shape (n, n)
    n_threads : int, optional
        Threads of the sparse products (default: the thread policy's).

    Examples
    --------
    >>> import numpy as np
    >>> from hyperclust.datasets import hypergraph_sbm
    >>> from hyperclust.operators.knn import knn_affinity
    >>> hg = hypergraph_sbm(100, 2, n_features=8, isolated_fraction=0.1, random_state=0)
    >>> M = MixedWalk(hg, knn_affinity(hg.features, 5), beta=0.4)
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> bool(np.array_equal(BufferedMixedWalk(M)(X), M @ X))
    True
    """

    def __init__(self, walk, n_threads=None):
        self.walk = walk
        self.n_threads = n_threads
        self._buffers = {}
        if not isinstance(walk, MixedWalk):
            self._H = None
            return
        hg = walk.hypergraph
        self._H = _csr64(hg.incidence)
        self._Ht = _csr64(hg.incidence_t)
        self._edge_scale = walk.hyperedge_scale[:, None]
        self._pinv = walk.inverse_degrees[:, None]
        a, b = walk.row_weights_
        self._a, self._b = a[:, None], b[:, None]
        self._self_loops = walk.self_loops
        self._Q = None if walk.knn_walk is None else _csr64(walk.knn_walk)

    @property
    def shape(self):
        return self.walk.shape

    def _buffer(self, name, rows, width):
        """A C-contiguous ``(rows, width)`` view of a flat buffer grown on demand."""
        flat = self._buffers.get(name)
        if flat is None or flat.size < rows * width:
            flat = np.empty(rows * width)
            self._buffers[name] = flat
        return flat[:rows * width].reshape(rows, width)

    def __call__(self, X: np.ndarray, overwrite_input: bool = False) -> np.ndarray:
        """``M @ X`` for ``X`` (n, d), valid until the next call (written over ``X`` if allowed).
        """
        if self._H is None:
            return np.asarray(self.walk @ X)
        X = np.ascontiguousarray(X, dtype=np.float64)
        n, d = X.shape
        m = self._Ht.shape[0]
        nt = self.n_threads
        T = None
        if self._Q is not None:
            T = csr_matmat(self._Q, X, self._buffer("T", n, d), n_threads=nt)
        E = csr_matmat_scaled(self._Ht, X, self._buffer("E", m, d), (self._edge_scale,), nt)
        # X is read again only for the self loops
        out = X if overwrite_input and not self._self_loops else self._buffer("Y", n, d)
        if self._self_loops:  # the loops' term comes before the row scalings
            Y = csr_matmat(self._H, E, out, n_threads=nt)
            Y += self._self_loops * X
            Y *= self._pinv
            Y *= self._a
        else:
            Y = csr_matmat_scaled(self._H, E, out, (self._pinv, self._a), nt)
        if T is not None:
            T *= self._b
            Y += T
        return Y
