"""The optional compiled CSR x dense kernel (numba, extra ``[fast]``): scipy's arithmetic
with software prefetch of the dense rows of upcoming nonzeros.

``add_rows(A, X, out, lo, hi)`` computes ``out[lo:hi] += A[lo:hi] @ X`` with the same
operations in the same order as scipy's ``csr_matvecs`` (per row, its nonzeros in stored
order, ``out[i, k] += a * X[j, k]`` in the data type of ``A``; no fast-math, so no fused
multiply-add contraction): its results are bit-identical to scipy's. What it adds is a
prefetch of the ``X`` row of the nonzero ``PREFETCH_AHEAD`` positions ahead (every cache
line of it): on inputs whose ``X`` rows are visited at random over more than the last-level
cache, scipy's kernel waits on one row's loads at a time. The kernel releases the GIL
(``nogil``), so :func:`hyperclust.operators.kernels.csr_matmat` runs its row blocks on the
shared pool under the thread policy as it does scipy's.

Numba is imported and the kernel compiled on first use (:func:`kernel`), never at
``import hyperclust``; the compiled code is cached on disk where numba's cache directory is
writable (else compiled once per process). Without numba, :func:`kernel` returns None and
callers keep scipy's kernel.
"""

from __future__ import annotations

import threading

__all__ = ["kernel", "PREFETCH_AHEAD", "CACHE_LINE"]

#: Nonzeros between a prefetch and the product that reads its row: far enough for the
#: load to arrive (one row's products take a few nanoseconds), near enough that the line is
#: still in L1/L2 when used (``benchmarks/studies/bench_compiled_spmm.py``).
PREFETCH_AHEAD = 16

#: Bytes per cache line on the x86-64 and ARM cores this targets.
CACHE_LINE = 64

_lock = threading.Lock()
_compiled = None  # None: not tried; False: numba missing or failed; else the kernel


def kernel():
    """The compiled ``add_rows(indptr, indices, data, X, out, lo, hi, ahead)``, or None
    without numba (compiled on the first call; later calls return it)."""
    global _compiled
    if _compiled is None:
        with _lock:
            if _compiled is None:
                _compiled = _build() or False
    return _compiled or None


def _build():
    try:
        from ._numba_spmm import add_rows
    except ImportError:
        return None
    return add_rows
