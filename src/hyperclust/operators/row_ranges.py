"""Row ranges of one array pass on the kernel threads, each range written by one thread in the
order of the whole-array expression: the values of one thread, bit for bit, for any count.
"""

from __future__ import annotations

import numpy as np

from ..runtime.threads import kernel_threads
from .kernels import (PARALLEL_MIN_WORK, add_product_rows, resolve_threads, row_blocks,
                      shared_pool)

__all__ = ["run_on_ranges", "even_ranges", "csr_matmat_scaled"]


def run_on_ranges(task, bounds) -> None:
    """``task(lo, hi)`` for each pair of consecutive ``bounds``, one range per pool thread (a single
    range on the calling thread); tasks must release the GIL and write disjoint outputs.

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
    """Bounds of equal ranges of ``n`` items, one per thread of the ``"row_ranges"`` kernel rule.

    Examples
    --------
    >>> even_ranges(10, 1.0).tolist()
    [0, 10]
    """
    threads = min(kernel_threads("row_ranges", float(work)), max(1, n))
    return np.linspace(0, n, threads + 1).round().astype(np.int64)


def csr_matmat_scaled(A, X: np.ndarray, out: np.ndarray, row_scales, n_threads=None):
    """``out = A @ X``, then ``out *= s`` for each ``s`` (shape (r, 1)) of ``row_scales``, each row
    block by its own thread; returns ``out``.

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
