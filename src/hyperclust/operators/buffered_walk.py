"""The mixed walk ``M X`` of a :class:`~hyperclust.operators.knn.MixedWalk` into reused buffers.

AHCKA applies ``M`` to blocks of the same few widths a few hundred times. ``M @ X``
allocates five ``(n, d)`` or ``(m, d)`` temporaries per product (on large inputs each is a
fresh mapping whose pages fault in on first touch) and runs scipy's sparse kernel on one
thread. :class:`BufferedMixedWalk` runs the same kernel (:func:`~hyperclust.operators.
kernels.csr_matmat`, row blocks on the thread policy's threads) into buffers kept between
calls and scales in place, in the same order of operations as ``MixedWalk``: every entry is
the one ``M @ X`` gives, bit for bit, for any number of threads (each output row is summed
by one thread, in stored order).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .kernels import csr_matmat
from .knn import MixedWalk

__all__ = ["BufferedMixedWalk", "product_dtype", "FLOAT32_FROM_INCIDENCES"]

#: Incidences from which AHCKA's walk products run in float32 (:func:`product_dtype`).
#: Measured (docs/results/ahcka.md, ``benchmarks/studies/ahcka_float32_products.py``):
#: float32 products gave the float64 clustering on the 10^6-incidence SBM rung (ARI 1.0)
#: and ARI >= .9994 on five shared sets over 5 seeds, at ~1.8x less CPU per product out of
#: cache; below this size (every shared set) the products stay float64, bit for bit.
FLOAT32_FROM_INCIDENCES = 2**22


def product_dtype(n_incidences: int):
    """The walk products' type for an input of ``n_incidences``: float32 from
    :data:`FLOAT32_FROM_INCIDENCES` on, else float64.

    Examples
    --------
    >>> product_dtype(1000).__name__, product_dtype(10**8).__name__
    ('float64', 'float32')
    """
    return np.float32 if n_incidences >= FLOAT32_FROM_INCIDENCES else np.float64


def _csr(A, dtype):
    if sp.issparse(A) and A.format == "csr" and A.dtype == dtype:
        return A
    A = sp.csr_matrix(A)
    # the cast copies the values only: the index arrays are shared with the input
    return sp.csr_matrix((A.data.astype(dtype), A.indices, A.indptr), shape=A.shape)


class BufferedMixedWalk:
    """``M X`` for a :class:`~hyperclust.operators.knn.MixedWalk` ``M``, into reused buffers.

    Calling it returns ``M @ X`` (the same values) in a buffer that the next call
    overwrites. Any other linear operator is applied as ``walk @ X``.

    Parameters
    ----------
    walk : MixedWalk or LinearOperator, shape (n, n)
    n_threads : int, optional
        Threads of the sparse products (default: the thread policy's,
        :func:`~hyperclust.operators.kernels.resolve_threads`).
    dtype : {numpy.float64, numpy.float32}, default numpy.float64
        The products' type (inputs are cast to it, results have it). float32 moves half
        the bytes per product (~1.8x less CPU out of cache) and is then not ``M @ X`` bit
        for bit.

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

    def __init__(self, walk, n_threads=None, dtype=np.float64):
        self.walk = walk
        self.n_threads = n_threads
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float64, np.float32):
            raise ValueError(f"dtype must be float64 or float32, got {self.dtype}")
        self._buffers = {}
        if not isinstance(walk, MixedWalk):
            self._H = None
            return
        hg, dt = walk.hypergraph, self.dtype
        self._H = _csr(hg.incidence, dt)
        self._Ht = _csr(hg.incidence_t, dt)
        self._edge_scale = walk.hyperedge_scale[:, None].astype(dt)
        self._pinv = walk.inverse_degrees[:, None].astype(dt)
        a, b = walk.row_weights_
        self._a, self._b = a[:, None].astype(dt), b[:, None].astype(dt)
        self._self_loops = walk.self_loops
        self._Q = None if walk.knn_walk is None else _csr(walk.knn_walk, dt)

    @property
    def shape(self):
        return self.walk.shape

    def _buffer(self, name, rows, width):
        """A C-contiguous ``(rows, width)`` view of a flat buffer grown on demand."""
        flat = self._buffers.get(name)
        if flat is None or flat.size < rows * width:
            flat = np.empty(rows * width, dtype=self.dtype)
            self._buffers[name] = flat
        return flat[:rows * width].reshape(rows, width)

    def __call__(self, X: np.ndarray, overwrite_input: bool = False) -> np.ndarray:
        """``M @ X`` for ``X`` of shape ``(n, d)``; valid until the next call.

        With ``overwrite_input`` the product may be written over ``X`` (a C-contiguous
        ``X`` of ``dtype`` is then returned holding ``M X``), which saves an ``(n, d)``
        buffer.
        """
        if self._H is None:
            return np.asarray(self.walk @ X)
        X = np.ascontiguousarray(X, dtype=self.dtype)
        n, d = X.shape
        m = self._Ht.shape[0]
        nt = self.n_threads
        T = None
        if self._Q is not None:
            T = csr_matmat(self._Q, X, self._buffer("T", n, d), n_threads=nt)
        E = csr_matmat(self._Ht, X, self._buffer("E", m, d), n_threads=nt)
        E *= self._edge_scale
        # X is read again only for the self loops
        out = X if overwrite_input and not self._self_loops else self._buffer("Y", n, d)
        Y = csr_matmat(self._H, E, out, n_threads=nt)
        if self._self_loops:
            Y += self._self_loops * X
        Y *= self._pinv
        Y *= self._a
        if T is not None:
            T *= self._b
            Y += T
        return Y
