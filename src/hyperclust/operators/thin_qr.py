"""Thin Householder QR of a tall block: numpy's orthonormal factor (the same LAPACK ``geqrf`` +
``orgqr``) with one work array instead of three passes through fresh copies.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import get_lapack_funcs

__all__ = ["qr_in_place", "thin_qr", "zero_rows_exactly"]

#: ``R`` counts as singular when its smallest diagonal entry is below this times the largest.
SINGULAR = 1e-12


def thin_qr(A: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``Q`` of the reduced QR ``A = Q R``, ``np.linalg.qr(A)[0]`` signs included, Fortran-ordered.

    Parameters
    ----------
    A : ndarray, shape (n, c)
        Not modified.
    out : ndarray, shape (n, c), Fortran-ordered float64, optional
        Work array that becomes ``Q``; ignored unless of that shape and layout and not
        overlapping ``A``.

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
    """``(Q, R)`` of the reduced QR of the Fortran-ordered ``F`` (overwritten), numpy's bit for bit.

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
    """``Q`` with exact zeros in the rows where ``A`` is zero (in place; the first ``rows`` only).

    Householder QR leaves rounding noise there, which a row-normalised embedding would turn into
    a unit row. Nothing changes when ``R`` (diagonal ``r_diag``) is singular or ``A`` is wide.

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
