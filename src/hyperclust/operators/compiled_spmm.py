"""The optional compiled CSR x dense kernel (numba, extra ``[fast]``): scipy's arithmetic, in the
same order (bit-identical where scipy does not contract to FMA), with software prefetch of the
dense rows of upcoming nonzeros. Compiled on first use, never at import; measurements in
docs/results/compiled_spmm.md.
"""

from __future__ import annotations

import importlib
import os
import threading

import numpy as np

__all__ = ["kernel", "rows_kernel", "enabled", "PREFETCH_AHEAD", "MIN_WORK",
           "MIN_WIDTH", "MIN_DENSE_BYTES", "AMORTISE_WORK", "ENV"]

#: Nonzeros between a prefetch and the product that reads its row.
PREFETCH_AHEAD = 16

#: Row blocks of fewer multiply-adds (nonzeros x width) keep scipy's kernel.
MIN_WORK = 2 ** 20

#: Narrower blocks keep scipy's kernel (at width 1 it loses).
MIN_WIDTH = 2

#: Dense blocks of fewer bytes keep scipy's kernel: their rows come from the caches.
MIN_DENSE_BYTES = 2 ** 23

#: Multiply-adds of eligible products done with scipy's kernel before numba is loaded: about
#: what importing and compiling costs, so small fits never import numba.
AMORTISE_WORK = 2 ** 30

#: Set to "0" to keep scipy's kernel everywhere.
ENV = "HYPERCLUST_COMPILED"

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_lock = threading.Lock()
_compiled = None  # None: not tried; False: numba missing or failed; else the kernel
_scipy_work = 0


def enabled() -> bool:
    """False when :data:`ENV` is ``"0"``.

    Examples
    --------
    >>> import os
    >>> enabled() == (os.environ.get("HYPERCLUST_COMPILED") != "0")
    True
    """
    return os.environ.get(ENV, "1") != "0"


def rows_kernel(work: int, X):
    """The compiled kernel for a row block of ``work`` multiply-adds by the dense block ``X``, or
    None where scipy's kernel runs it (small, narrow or cached blocks, other dtypes, the first
    :data:`AMORTISE_WORK` multiply-adds, disabled, or no numba).

    Examples
    --------
    >>> rows_kernel(100, np.zeros((10, 4), np.float32)) is None
    True
    """
    global _scipy_work
    if work < MIN_WORK or X.shape[1] < MIN_WIDTH or X.nbytes < MIN_DENSE_BYTES \
            or X.dtype not in _FLOATS or not enabled():
        return None
    if _compiled is None and _scipy_work < AMORTISE_WORK:
        _scipy_work += work
        return None
    return kernel()


def kernel():
    """The compiled ``add_rows(indptr, indices, data, X, out, lo, hi, ahead)``
    (``out[lo:hi] += A[lo:hi] @ X``), or None without numba.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> add = kernel()
    >>> A = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> out = np.zeros((2, 2))
    >>> if add is not None:
    ...     add(A.indptr, A.indices, A.data, np.ones((2, 2)), out, 0, 2, PREFETCH_AHEAD)
    ... else:
    ...     out += A @ np.ones((2, 2))
    >>> out.tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    global _compiled
    if _compiled is None:
        with _lock:
            if _compiled is None:
                _compiled = _build() or False
    return _compiled or None


def _build():
    _numba_spmm = importlib.import_module(__name__.rpartition(".")[0] + "._numba_spmm")

    if _numba_spmm.add_rows is None or _numba_spmm.numba.config.DISABLE_JIT:
        return None  # with the JIT off, the Python loop would be ~1000x slower than scipy's
    return _numba_spmm.add_rows
