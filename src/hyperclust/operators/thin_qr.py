"""Thin Householder QR of a tall block: the orthonormal factor only, with fewer passes.

``np.linalg.qr(A)[0]`` of a tall ``(n, c)`` block copies ``A`` into a Fortran-ordered work
array, factors it (LAPACK ``geqrf``), forms ``Q`` (``orgqr``) in a second work array and
copies that out again. Once the block no longer fits in the last-level cache (``n c``
doubles over ~32 MB, e.g. 10^6 x 5) each of these passes runs at memory speed: at 10^6 x 5
numpy's ``qr`` took 94-143 ms, ``geqrf`` + ``orgqr`` on one Fortran copy 29 ms (one thread,
loaded 2-core machine). The same LAPACK routines on the same data, so the factor is the
one numpy returns.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import get_lapack_funcs

__all__ = ["qr_in_place", "thin_qr", "zero_rows_exactly"]

#: ``R`` counts as singular when its smallest diagonal entry is below this times the largest.
SINGULAR = 1e-12


def thin_qr(A: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``Q`` of the reduced QR ``A = Q R`` (Householder, LAPACK ``geqrf`` + ``orgqr``).

    Parameters
    ----------
    A : ndarray, shape (n, c)
        Block of floats (tall in AHCKA; a wide one, ``c > n``, happens when there are as
        many clusters as nodes); not modified.
    out : ndarray, shape (n, c), Fortran-ordered float64, optional
        Work array that becomes ``Q`` (overwritten; e.g. the previous iterate of a loop):
        a fresh block per call costs its page faults once it no longer fits in cache.
        Ignored unless it has ``A``'s tall shape, that layout, and no memory shared with
        ``A``.

    Returns
    -------
    ndarray of float64, shape (n, min(n, c)), Fortran-ordered
        Orthonormal columns spanning those of ``A`` (``np.linalg.qr(A)[0]``, signs included).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(50, 3))
    >>> Q = thin_qr(A)
    >>> bool(np.allclose(Q, np.linalg.qr(A)[0])), bool(np.allclose(Q.T @ Q, np.eye(3)))
    (True, True)
    """
    if (out is not None and out.shape == A.shape and A.shape[0] >= A.shape[1]
            and out.dtype == np.float64 and out.flags.f_contiguous
            and not np.may_share_memory(out, A)):
        F = out
        F[...] = A
    else:
        F = np.array(A, dtype=np.float64, order="F")
    n, c = F.shape
    if n == 0 or c == 0:
        raise ValueError(f"thin_qr needs a non-empty block, got shape {F.shape}")
    q, R = qr_in_place(F)
    return zero_rows_exactly(q, A, np.diag(R).copy(), rows=c)


def qr_in_place(F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Q, R)`` of the reduced QR of ``F``, ``np.linalg.qr(F)``'s factors bit for bit (the
    same LAPACK ``geqrf`` + ``orgqr`` calls and work sizes), with ``F`` as the only work
    array.

    Parameters
    ----------
    F : ndarray of float64, shape (n, c), Fortran-ordered, non-empty
        Overwritten (it becomes ``Q``'s storage when ``n >= c``).

    Returns
    -------
    Q : ndarray of float64, shape (n, min(n, c)), Fortran-ordered
    R : ndarray of float64, shape (min(n, c), c), upper triangular

    Examples
    --------
    >>> A = np.random.default_rng(1).normal(size=(40, 4))
    >>> Q, R = qr_in_place(np.asfortranarray(A))
    >>> [bool(np.array_equal(a, b)) for a, b in zip((Q, R), np.linalg.qr(A))]
    [True, True]
    """
    n, c = F.shape
    geqrf, orgqr = get_lapack_funcs(("geqrf", "orgqr"), (F,))
    # the work-size queries read nothing: overwrite_a spares them a copy of the block
    lwork = _optimal_lwork(geqrf(F, lwork=-1, overwrite_a=True))
    qr, tau, _, info = geqrf(F, lwork=lwork, overwrite_a=True)
    _check(info, "geqrf")
    R = np.triu(qr[:min(n, c)])
    if c > n:  # a wide block: Q is n x n, from the first n reflector columns
        qr = np.asfortranarray(qr[:, :n])
    lwork = _optimal_lwork(orgqr(qr, tau, lwork=-1, overwrite_a=True))
    q, _, info = orgqr(qr, tau, lwork=lwork, overwrite_a=True)
    _check(info, "orgqr")
    return q, R


def zero_rows_exactly(Q: np.ndarray, A: np.ndarray, r_diag: np.ndarray,
                      rows: int | None = None) -> np.ndarray:
    """``Q`` with exact zeros in the rows where ``A`` is zero (modified in place).

    With ``R`` nonsingular, ``Q = A R^-1``, so a zero row of ``A`` has a zero row of ``Q``.
    Householder QR gives exact zeros there except in the first ``c`` rows, where the
    reflectors' unit entries leave rounding noise (~1e-17); a blockwise QR (TSQR) leaves
    it in the first rows of every block. The noise matters downstream: a row-normalised
    embedding turns it into a unit row pointing anywhere, so a node in no hyperedge would
    be clustered by rounding, differently by each QR.

    Parameters
    ----------
    Q : ndarray, shape (n, c)
        The orthonormal factor of ``A``.
    A : ndarray, shape (n, c)
    r_diag : ndarray, shape (c,)
        Diagonal of ``R``; nothing is changed when ``R`` is (numerically) singular, where
        ``Q``'s extra columns are not determined by ``A``, or when ``A`` is wide.
    rows : int, optional
        Check only the first ``rows`` rows (the only ones Householder QR leaves noisy).

    Returns
    -------
    ndarray
        ``Q``.

    Examples
    --------
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0], [0.0, 0.0]])
    >>> Q, R = np.linalg.qr(A)
    >>> zero_rows_exactly(Q, A, np.diag(R))[[0, 3]].tolist()
    [[0.0, 0.0], [0.0, 0.0]]
    """
    n, c = A.shape
    scale = np.abs(r_diag)
    if n < c or scale.size < c or not scale.min() > SINGULAR * scale.max():
        return Q
    head = n if rows is None else min(n, rows)
    zero = ~np.any(A[:head] != 0, axis=1)
    if zero.any():
        Q[:head][zero] = 0.0
    return Q


def _optimal_lwork(query) -> int:
    # the work size a lwork=-1 query returns, as numpy's qr uses it (blocked for wide blocks)
    return max(1, int(np.real(query[-2][0])))


def _check(info, name):
    if info != 0:  # pragma: no cover - only for invalid arguments, which thin_qr never passes
        raise np.linalg.LinAlgError(f"LAPACK {name} failed (info={info})")
