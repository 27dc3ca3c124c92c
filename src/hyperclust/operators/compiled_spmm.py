"""The optional compiled CSR x dense kernel (numba, extra ``[fast]``): scipy's arithmetic
with software prefetch of the dense rows of upcoming nonzeros.

``add_rows(indptr, indices, data, X, out, lo, hi, ahead)`` computes
``out[lo:hi] += A[lo:hi] @ X`` for ``A = (data, indices, indptr)`` with the same
operations in the same order as scipy's ``csr_matvecs`` (per row, its nonzeros in stored
order, ``out[i, k] += a * X[j, k]`` in the data type of ``A``; no fast-math, so no fused
multiply-add contraction): its results are bit-identical to scipy's wherever scipy's build
does not contract ``a * x + y`` either (x86-64 wheels target a baseline without FMA;
``tests/test_compiled_kernel.py`` checks the bits on the machine it runs on). What it adds is a
prefetch of the ``X`` row of the nonzero ``PREFETCH_AHEAD`` positions ahead (every cache
line of it): on inputs whose ``X`` rows are visited at random over more than the last-level
cache, scipy's kernel waits on one row's loads at a time. The kernel releases the GIL
(``nogil``), so :func:`hyperclust.operators.kernels.csr_matmat` runs its row blocks on the
shared pool under the thread policy as it does scipy's.

Measured (one thread, CPU min of 5, load 2.5-5.8 on the shared 2-core machine;
``benchmarks/studies/bench_node_order.py``, docs/results/compiled_spmm.md): the RCM-numbered
pair ``H (H^T X)`` of the 10^6 HSBM at width 64 in 0.53x scipy's kernel's time (258 vs
492 ms, 5.8x the compulsory-bytes bound against 11.0x), at width 16 0.51x (104 vs 206 ms,
7.3x against 14.4x); walmart-trips 0.68x, mag-10 0.74x, dblp-ca 0.79x at width 64; whole
``ahcka`` fits at 10^6 0.81x the CPU. Where ``X`` fits the caches it gains nothing
and at width 1 it loses, so :func:`rows_kernel` keeps scipy's kernel there.

Numba is imported and the kernel compiled on first use (:func:`kernel`), never at
``import hyperclust``; the compiled code is cached on disk where numba's cache directory is
writable (else compiled once per process). Without numba, :func:`kernel` returns None and
callers keep scipy's kernel.
"""

from __future__ import annotations

import importlib
import os
import threading

import numpy as np

__all__ = ["kernel", "rows_kernel", "enabled", "PREFETCH_AHEAD", "MIN_WORK",
           "MIN_WIDTH", "MIN_DENSE_BYTES", "AMORTISE_WORK", "ENV"]

#: Nonzeros between a prefetch and the product that reads its row: far enough for the
#: load to arrive, near enough that the line is still cached when used (8, 16 and 32 took
#: the same time on the 10^6 HSBM: ``benchmarks/studies/bench_compiled_spmm.py``).
PREFETCH_AHEAD = 16

#: Row blocks of fewer multiply-adds (nonzeros x width) keep scipy's kernel: their rows are
#: cached and the few microseconds of a numba dispatch are not repaid.
MIN_WORK = 2 ** 20

#: Narrower blocks keep scipy's kernel: at width 1 ``X`` is ``4 n`` bytes, cached even at
#: 10^6 nodes, and the compiled loop took 1.5-1.8x scipy's time; from width 2 on it took
#: 0.5-0.7x on the 10^6 HSBM.
MIN_WIDTH = 2

#: Dense blocks of fewer bytes keep scipy's kernel: their rows come from the caches, where
#: the prefetches only add instructions (congress-bills' collapsed 1,718 x 1,718 matrix
#: times 440 KB: 1.5x scipy's time; 5 MB blocks of the shared sets at width 16: 0.94-1.05x;
#: 8 MB of the 10^6 HSBM at width 2: 0.69x; 10-21 MB at width 64: 0.54-0.86x).
MIN_DENSE_BYTES = 2 ** 23

#: Multiply-adds of eligible products done with scipy's kernel before numba is loaded:
#: ``import numba`` (0.14-0.19 s CPU) and the first float32 call (0.53 s compiling, 0.21 s
#: from numba's cache; ``benchmarks/studies/compiled_spmm_first_call.py``) cost about what
#: scipy's kernel spends on this much work at 10^6 nodes (~1 ns per multiply-add), so a
#: process pays at most twice the better choice in hindsight, and small fits never import
#: numba.
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
    """The compiled kernel for a row block of ``work`` multiply-adds by the dense block
    ``X``, or None where scipy's kernel runs it: below :data:`MIN_WORK`,
    :data:`MIN_WIDTH` or :data:`MIN_DENSE_BYTES`, for dtypes other than float32 and
    float64, until
    :data:`AMORTISE_WORK` eligible multiply-adds have run on scipy's, when disabled
    (:func:`enabled`), or without numba.

    Parameters
    ----------
    work : int
        Nonzeros of the row block times the columns of ``X``.
    X : ndarray, shape (c, d)
        The dense block the row block multiplies.

    Returns
    -------
    callable or None
        ``add_rows(indptr, indices, data, X, out, lo, hi, ahead)``.

    Examples
    --------
    A product small enough for the caches stays on scipy's kernel:

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
    """The compiled ``add_rows(indptr, indices, data, X, out, lo, hi, ahead)``, or None
    without numba (compiled on the first call; later calls return it).

    ``add_rows`` computes ``out[lo:hi] += A[lo:hi] @ X`` for the CSR arrays of ``A`` (the
    full ``indptr``), prefetching the ``X`` row of the nonzero ``ahead`` positions on.

    Returns
    -------
    callable or None

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
