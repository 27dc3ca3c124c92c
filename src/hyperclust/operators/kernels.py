"""Sparse-times-dense kernels: CSR @ dense block into a preallocated output, on row blocks.

``csr_matmat(A, X, out)`` computes ``out += A @ X`` (or ``out = A @ X``) without allocating
the product: it calls scipy's compiled CSR kernel (``csr_matvecs``, the routine behind
``A @ X``) on the output buffer itself. The kernel releases the GIL, so row blocks of ``A``
(balanced by nonzeros) run in parallel on a thread pool; the number of threads follows the
thread policy (:func:`hyperclust.runtime.threads.current_limit`, else the free cores), so these
threads never add to BLAS/OpenMP threads (none are in use during a sparse product).

Why threads over row blocks rather than ``torch.sparse.mm``: measured on the 2-core
development machine (10^6 x 10^6 CSR, 4e6 nonzeros, 64 float32 columns, load average ~2),
scipy's kernel took 0.39-0.46 s, torch CSR ``sparse.mm`` 0.59-0.61 s with 1 or 2 threads;
scipy also needs no 1 GB torch import for the non-deep methods. The kernel releases the GIL
(a Python thread kept running during it), and two row blocks on two threads won even on
the busy machine: ``P X`` of a 10^6-node ``hypergraph_sbm`` (4e6 nonzeros, 64 float32
columns) took 0.77 s (min of 3) with 2 threads against 1.07 s with 1, load average 2.5.
``benchmarks/bench_scaling.py`` times both (``PX`` with the policy's threads, ``PX-1t``
with one) for an idle machine.

With numba installed (extra ``[fast]``), row blocks of large products whose ``X`` is past
the caches run on a compiled kernel with scipy's arithmetic and a prefetch of upcoming rows
of ``X`` (:mod:`~hyperclust.operators.compiled_spmm`, which says where it pays): the same
bits, 0.53x scipy's CPU on the RCM-numbered 10^6 HSBM pair at width 64.

If scipy's private kernel is unavailable (a future scipy), the same results come from
``A[lo:hi] @ X`` (one temporary per block).
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

#: Below this many multiply-adds (nnz * width) a product runs on one thread: starting the
#: pool's tasks costs more than it saves (the ``"spmm"`` rule of
#: :data:`hyperclust.runtime.threads.KERNELS`, where it is measured).
PARALLEL_MIN_WORK = KERNELS["spmm"].min_work

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_key: tuple | None = None


def resolve_threads(n_threads=None) -> int:
    """Threads a kernel may use: ``n_threads`` if given, else the innermost
    :func:`~hyperclust.runtime.threads.thread_limit` in force, else the free cores
    (:func:`~hyperclust.runtime.threads.default_threads`).

    Parameters
    ----------
    n_threads : int, optional
        A positive count.

    Returns
    -------
    int

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
    """A process-wide pool of at least ``n`` workers (re-created after a fork): the one
    pool of every row-block kernel (:func:`csr_matmat`, :mod:`~hyperclust.operators.row_ranges`)."""
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
    """Boundaries ``b`` (``b[0] = 0``, ``b[-1] = n_rows``) of ``n_blocks`` row blocks with
    about equal numbers of nonzeros.

    Parameters
    ----------
    indptr : ndarray, shape (n_rows + 1,)
    n_blocks : int

    Returns
    -------
    ndarray of int64, shape (n_blocks + 1,), non-decreasing

    Examples
    --------
    Rows holding 1, 1, 2 and 4 nonzeros: the last row alone is half of them:

    >>> row_blocks(np.array([0, 1, 2, 4, 8]), 2).tolist()
    [0, 3, 4]
    """
    n_rows = indptr.shape[0] - 1
    targets = np.linspace(0, indptr[-1], int(n_blocks) + 1)
    b = np.searchsorted(indptr, targets, side="left").astype(np.int64)
    b[0], b[-1] = 0, n_rows
    return np.maximum.accumulate(np.clip(b, 0, n_rows))


def add_product_rows(A, X, out, lo, hi):
    """``out[lo:hi] += A[lo:hi] @ X`` without a copy of the rows: scipy's CSR kernel, or
    where it pays the compiled one (:func:`~hyperclust.operators.compiled_spmm.rows_kernel`;
    the same operations in the same order, so the same bits)."""
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
        Its data type is the computation's (``X`` and ``out`` must have it).
    X : ndarray, shape (c, d), C-contiguous, dtype of ``A``
    out : ndarray, shape (r, d), C-contiguous, dtype of ``A``, optional
        Allocated when None. Must not overlap ``X``.
    accumulate : bool, default False
        Add to ``out`` instead of overwriting it.
    n_threads : int, optional
        Default :func:`resolve_threads`. Products smaller than :data:`PARALLEL_MIN_WORK`
        multiply-adds use one thread.

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
    """``A @ X`` as a new array: :func:`csr_matmat` (the compiled kernel where it pays, with
    scipy's bits) where ``A`` is CSR and ``X`` a C-contiguous 2-D block of its dtype, else
    scipy's ``A @ X`` (the same products: scipy's ``csr_matvecs`` into zeros).

    Parameters
    ----------
    A : sparse matrix, shape (r, c)
    X : ndarray, shape (c, d)
    n_threads : int, optional
        As :func:`csr_matmat` (a Dask task passes 1: its worker runs other tasks beside it).

    Returns
    -------
    ndarray, shape (r, d)

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
