"""Sparse-times-dense kernels: CSR @ dense block into a preallocated output, on row blocks
balanced by nonzeros, run on a thread pool (scipy's compiled kernel releases the GIL), or
the numba kernel of :mod:`~hyperclust.operators.compiled_spmm` where it pays (same bits).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ..runtime.threads import KERNELS
from .compiled_spmm import PREFETCH_AHEAD, rows_kernel

try:  # the compiled kernels behind ``csr_matrix @ ndarray``; they accumulate into their output
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - depends on the scipy build
    _csr_matvec = _csr_matvecs = None

__all__ = ["csr_matmat", "sparse_product", "resolve_threads", "row_blocks", "PARALLEL_MIN_WORK"]

#: Below this many multiply-adds (nnz * width) a product runs on one thread (the ``"spmm"`` rule
#: of :data:`hyperclust.runtime.threads.KERNELS`).
PARALLEL_MIN_WORK = KERNELS["spmm"].min_work

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_key: tuple | None = None


def resolve_threads(n_threads=None) -> int:
    """Threads a kernel may use: ``n_threads`` if given, else the innermost
    :func:`~hyperclust.runtime.threads.thread_limit`, else
    :func:`~hyperclust.runtime.threads.default_threads`.

    Examples
    --------
    >>> from hyperclust.runtime.threads import thread_limit
    >>> resolve_threads(3)
    3
    >>> with thread_limit(2):
    ...     resolve_threads()
    2
    >>> resolve_threads(0)
    Traceback (most recent call last):
    ...
    ValueError: n_threads must be a positive integer or None, got 0
    """
    if n_threads is not None:
        if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) \
                or n_threads < 1:
            raise ValueError(f"n_threads must be a positive integer or None, got {n_threads!r}")
        return int(n_threads)
    from ..runtime.threads import current_limit, default_threads

    limit = current_limit()
    return int(limit) if limit is not None else default_threads()


def shared_pool(n: int) -> ThreadPoolExecutor:
    """The process-wide pool (at least ``n`` workers, re-created after a fork) of every row-block kernel.
    """
    global _pool, _pool_key
    with _pool_lock:
        pid = os.getpid()
        if _pool is None or _pool_key[0] != pid or _pool_key[1] < n:
            if _pool is not None and _pool_key[0] == pid:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="hyperclust-spmm")
            _pool_key = (pid, n)
        return _pool


def row_blocks(indptr: np.ndarray, n_blocks: int) -> np.ndarray:
    """Boundaries (``n_blocks + 1``, from 0 to ``n_rows``) of row blocks with about equal nonzeros.

    Examples
    --------
    >>> row_blocks(np.array([0, 1, 2, 4, 8]), 2).tolist()
    [0, 3, 4]
    """
    n_rows = indptr.shape[0] - 1
    targets = np.linspace(0, indptr[-1], int(n_blocks) + 1)
    b = np.searchsorted(indptr, targets, side="left").astype(np.int64)
    b[0], b[-1] = 0, n_rows
    return np.maximum.accumulate(np.clip(b, 0, n_rows))


def add_product_rows(A, X, out, lo, hi):
    """``out[lo:hi] += A[lo:hi] @ X`` without a copy of the rows."""
    if hi <= lo:
        return
    compiled = rows_kernel(int(A.indptr[hi] - A.indptr[lo]) * X.shape[1], X)
    if compiled is not None and X.dtype == A.dtype == out.dtype:
        compiled(A.indptr, A.indices, A.data, X, out, lo, hi, PREFETCH_AHEAD)
    elif _csr_matvecs is not None and X.shape[1] == 1:
        # one column: the row's sum in a register, not n_vecs=1 updates of out in memory
        # (the same additions in the same order: the same bits)
        _csr_matvec(hi - lo, A.shape[1], A.indptr[lo:hi + 1], A.indices, A.data,
                    X.reshape(-1), out[lo:hi].reshape(-1))
    elif _csr_matvecs is not None:
        _csr_matvecs(hi - lo, A.shape[1], X.shape[1], A.indptr[lo:hi + 1], A.indices, A.data,
                     X.reshape(-1), out[lo:hi].reshape(-1))
    else:  # pragma: no cover - fallback for a scipy without the private kernel
        out[lo:hi] += A[lo:hi] @ X


def csr_matmat(A: sp.csr_matrix, X: np.ndarray, out: np.ndarray | None = None, *,
               accumulate: bool = False, n_threads=None) -> np.ndarray:
    """``A @ X`` written into ``out`` (``out += A @ X`` with ``accumulate``).

    Parameters
    ----------
    A : scipy.sparse CSR, shape (r, c)
        Its data type is the computation's.
    X : ndarray, shape (c, d), C-contiguous, dtype of ``A``
    out : ndarray, shape (r, d), C-contiguous, dtype of ``A``, optional
        Allocated when None; must not overlap ``X``.
    accumulate : bool, default False
    n_threads : int, optional
        Default :func:`resolve_threads`; one thread under :data:`PARALLEL_MIN_WORK` multiply-adds.

    Returns
    -------
    ndarray, shape (r, d)
        ``out``.

    Examples
    --------
    >>> A = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> X = np.ones((2, 2))
    >>> out = csr_matmat(A, X)
    >>> out.tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    >>> csr_matmat(A, X, out, accumulate=True) is out, out.tolist()
    (True, [[6.0, 6.0], [6.0, 6.0]])
    >>> csr_matmat(A, X.astype(np.float32))
    Traceback (most recent call last):
    ...
    ValueError: X must be a C-contiguous float64 array, got float32
    """
    if not sp.isspmatrix_csr(A) and not (sp.issparse(A) and A.format == "csr"):
        raise TypeError(f"A must be a CSR matrix, got {type(A).__name__}")
    r, c = A.shape
    if X.ndim != 2 or X.shape[0] != c:
        raise ValueError(f"X must have shape ({c}, d), got {X.shape}")
    d = X.shape[1]
    if X.dtype != A.dtype or not X.flags.c_contiguous:
        raise ValueError(f"X must be a C-contiguous {A.dtype} array, got {X.dtype}"
                         f"{'' if X.flags.c_contiguous else ' (not C-contiguous)'}")
    if out is None:
        out = np.zeros((r, d), dtype=A.dtype)
    else:
        if out.shape != (r, d) or out.dtype != A.dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {A.dtype} array of shape {(r, d)}, "
                             f"got {out.dtype} {out.shape}")
        if np.may_share_memory(out, X):
            raise ValueError("out must not overlap X")
        if not accumulate:
            out.fill(0)
    if d == 0 or r == 0 or A.nnz == 0:
        return out
    threads = resolve_threads(n_threads)
    if threads > 1 and A.nnz * d >= PARALLEL_MIN_WORK and r >= 2 * threads:
        bounds = row_blocks(A.indptr, threads)
        pool = shared_pool(threads)
        futures = [pool.submit(add_product_rows, A, X, out, int(lo), int(hi))
                   for lo, hi in zip(bounds[:-1], bounds[1:])]
        for f in futures:
            f.result()
    else:
        add_product_rows(A, X, out, 0, r)
    return out


def sparse_product(A, X: np.ndarray, *, n_threads=None) -> np.ndarray:
    """``A @ X`` as a new array: :func:`csr_matmat` where ``A`` is CSR and ``X`` a C-contiguous block
    of its dtype, else scipy's ``A @ X``.

    Examples
    --------
    >>> A = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> sparse_product(A, np.ones((2, 2)), n_threads=1).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    if sp.issparse(A) and A.format == "csr" and X.ndim == 2 and X.dtype == A.dtype \
            and X.flags.c_contiguous:
        return csr_matmat(A, X, n_threads=n_threads)
    return A @ X
