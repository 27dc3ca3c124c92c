"""Row ranges of one array pass on the kernel threads (the thread pool of
:func:`~hyperclust.operators.kernels.csr_matmat`), for the passes of AHCKA's iterations and
checks that numpy runs on one thread: the discretisation's rotation and label sums, the
restart walk's hops, the walk's row scalings.

Each range is written by one thread in the order of the whole-array expression, so the
values are those of one thread, bit for bit, for any number of threads.
"""

from __future__ import annotations

import numpy as np

from ..runtime.threads import kernel_threads
from .kernels import (PARALLEL_MIN_WORK, add_product_rows, resolve_threads, row_blocks,
                      shared_pool)

__all__ = ["run_on_ranges", "even_ranges", "csr_matmat_scaled"]


def run_on_ranges(task, bounds) -> None:
    """``task(lo, hi)`` for each pair of consecutive ``bounds``, one range per thread of the
    process-wide pool (the calling thread waits); a single range runs on the calling thread.
    The tasks must release the GIL to run side by side (compiled kernels, BLAS, numpy
    ufuncs on large arrays) and write disjoint outputs.

    Parameters
    ----------
    task : callable ``(lo: int, hi: int) -> None``
    bounds : sequence of int, non-decreasing, length ``n_ranges + 1``

    Examples
    --------
    >>> out = np.zeros(6)
    >>> def fill(lo, hi):
    ...     out[lo:hi] = lo
    >>> run_on_ranges(fill, [0, 2, 6])
    >>> out.tolist()
    [0.0, 0.0, 2.0, 2.0, 2.0, 2.0]
    """
    pairs = [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
    if len(pairs) <= 1:
        for lo, hi in pairs:
            task(lo, hi)
        return
    pool = shared_pool(len(pairs))
    for f in [pool.submit(task, lo, hi) for lo, hi in pairs]:
        f.result()


def even_ranges(n: int, work: float) -> np.ndarray:
    """Bounds of equal ranges of ``n`` items, one per thread of the ``"row_ranges"`` kernel
    rule for ``work`` (:data:`~hyperclust.runtime.threads.KERNELS`; one range below it).

    Examples
    --------
    >>> even_ranges(10, 1.0).tolist()
    [0, 10]
    """
    threads = min(kernel_threads("row_ranges", float(work)), max(1, n))
    return np.linspace(0, n, threads + 1).round().astype(np.int64)


def csr_matmat_scaled(A, X: np.ndarray, out: np.ndarray, row_scales, n_threads=None):
    """``out = A @ X``, then ``out *= s`` for each ``s`` of ``row_scales`` in turn, each row
    block zeroed, multiplied and scaled by its own thread (the values of the separate
    in-place products; :func:`~hyperclust.operators.kernels.csr_matmat`'s row blocks and
    thread rule).

    Parameters
    ----------
    A : scipy.sparse CSR, shape (r, c), float64
    X : ndarray, shape (c, d), C-contiguous float64
    out : ndarray, shape (r, d), C-contiguous float64, not overlapping ``X``
    row_scales : sequence of ndarray, shape (r, 1)
    n_threads : int, optional

    Returns
    -------
    ndarray
        ``out``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> csr_matmat_scaled(A, np.ones((2, 2)), np.empty((2, 2)),
    ...                   [np.array([[2.0], [0.5]])]).tolist()
    [[6.0, 6.0], [1.5, 1.5]]
    """
    r, d = out.shape
    threads = resolve_threads(n_threads)
    parallel = threads > 1 and A.nnz * d >= PARALLEL_MIN_WORK and r >= 2 * threads

    def task(lo, hi):
        out[lo:hi].fill(0)
        if A.nnz and d:
            add_product_rows(A, X, out, lo, hi)
        for scale in row_scales:
            out[lo:hi] *= scale[lo:hi]

    run_on_ranges(task, row_blocks(A.indptr, threads) if parallel else [0, r])
    return out
