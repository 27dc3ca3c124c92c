"""A basis of computed eigenvectors that depends on the eigenspaces only: columns cut only at a
gap between eigenvalues, and inside a repeated eigenvalue the polar factor of fixed probe
vectors projected on its eigenspace (the same for any basis a solver returns).
"""

from __future__ import annotations

import numpy as np

from .._hashing import mix64

__all__ = ["EIGENVALUE_TIE", "probe_vectors", "repeated_runs", "canonical_rotation"]

#: Eigenvalues closer than this count as one repeated eigenvalue.
EIGENVALUE_TIE = 1e-6

_COLUMN_SPAN = 1 << 20


def probe_vectors(rows, width: int, seed: int | None = None) -> np.ndarray:
    """Fixed pseudo-random values in ``[-1, 1)``, shape (len(rows), width), for global ``rows``
    (``width`` at most 2^20; another matrix per ``seed``).

    Examples
    --------
    >>> R = probe_vectors(np.arange(5), 3)
    >>> R.shape, bool(np.all(R == probe_vectors(np.arange(5), 3)))
    ((5, 3), True)
    >>> bool(np.all(probe_vectors(np.array([3, 4]), 3) == R[3:]))
    True
    """
    keys = np.asarray(rows, dtype=np.int64)[:, None] * _COLUMN_SPAN + np.arange(width)
    if seed is not None:
        keys = keys.astype(np.uint64) ^ mix64(np.array([seed]))[0]
    return (mix64(keys) >> np.uint64(11)).astype(np.float64) * 2.0 ** -52 - 1.0


def repeated_runs(values, tol: float = EIGENVALUE_TIE) -> list:
    """``(start, stop)`` of every run of at least 2 consecutive values within ``tol`` of their neighbour.

    Examples
    --------
    >>> repeated_runs([0.0, 0.3, 0.3 + 1e-9, 0.3, 0.5, 0.7, 0.7])
    [(1, 4), (5, 7)]
    """
    same = np.abs(np.diff(np.asarray(values, dtype=np.float64))) <= tol
    runs, start = [], None
    for i, tie in enumerate(np.append(same, False)):
        if tie and start is None:
            start = i
        elif not tie and start is not None:
            runs.append((start, i + 1))
            start = None
    return runs


def canonical_rotation(values, VtR, k: int) -> np.ndarray:
    """The matrix ``T`` (w, k') with ``V T`` the canonical basis of the first ``k`` columns.

    ``values`` (w,) are the sorted eigenvalues of ``V``'s columns, ``VtR`` is
    ``V^T probe_vectors(all rows, w)``. ``k'`` is ``k``, or the start of a repeated eigenvalue
    continuing past column ``k`` (unless that is column 0).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> V = np.linalg.qr(rng.normal(size=(6, 4)))[0]
    >>> c, s = np.cos(0.7), np.sin(0.7)
    >>> W = V.copy(); W[:, 1:3] = V[:, 1:3] @ np.array([[c, -s], [s, c]])
    >>> vals = np.array([0.1, 0.4, 0.4, 0.6])
    >>> R = probe_vectors(np.arange(6), 4)
    >>> a = V @ canonical_rotation(vals, V.T @ R, 3)
    >>> b = W @ canonical_rotation(vals, W.T @ R, 3)
    >>> bool(np.allclose(a, b))
    True
    >>> canonical_rotation(vals, V.T @ R, 2).shape  # the run crosses the cut: dropped
    (4, 1)
    """
    w = len(values)
    runs = repeated_runs(values)
    keep = k
    for start, stop in runs:
        if start < k < stop and start > 0:
            keep = start
    T = np.eye(w)[:, :keep]
    for start, stop in runs:
        if stop <= keep:
            U, _, Wt = np.linalg.svd(VtR[start:stop, start:stop])
            T[start:stop, start:stop] = U @ Wt
    return T
