"""Top eigenpairs by Chebyshev-filtered subspace iteration, in memory: a block method finds every
copy of an eigenvalue repeated across isomorphic components, which Lanczos does not.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .signs import fix_signs

__all__ = ["subspace_eigenpairs", "orthonormal_basis", "ranking_tolerance", "stop_tolerance",
           "QR_BLOCK_ROWS", "TOL"]

#: Residual at which :func:`subspace_eigenpairs` stops unless told otherwise.
TOL = 1e-8

_TOL = contextvars.ContextVar("hyperclust_subspace_tol", default=None)


@contextlib.contextmanager
def ranking_tolerance(tol):
    """Within the block, :func:`subspace_eigenpairs` without a ``tol`` stops at ``tol`` instead of
    :data:`TOL`; for fits whose labels only rank candidates (docs/results/structural_growth.md).

    Examples
    --------
    >>> with ranking_tolerance(1e-4):
    ...     _TOL.get()
    0.0001
    >>> _TOL.get() is None
    True
    """
    token = _TOL.set(tol)
    try:
        yield
    finally:
        _TOL.reset(token)


def stop_tolerance() -> float:
    """The residual at which :func:`subspace_eigenpairs` stops when given no ``tol``.

    Examples
    --------
    >>> with ranking_tolerance(1e-3):
    ...     stop_tolerance()
    0.001
    >>> stop_tolerance()
    1e-08
    """
    return TOL if _TOL.get() is None else float(_TOL.get())

#: Rows per block of :func:`orthonormal_basis`: a block of 2^15 x 18 stays in the caches.
QR_BLOCK_ROWS = 1 << 15


def orthonormal_basis(V: np.ndarray) -> np.ndarray:
    """``Q`` of a thin QR of ``V`` (n, p): LAPACK's up to :data:`QR_BLOCK_ROWS` rows, a one-level
    TSQR above (the same span; equal up to rounding and column signs).

    Examples
    --------
    >>> V = np.random.default_rng(0).normal(size=(5 * QR_BLOCK_ROWS // 2, 3))
    >>> Q = orthonormal_basis(V)
    >>> bool(np.allclose(Q.T @ Q, np.eye(3))), bool(np.allclose(Q @ (Q.T @ V), V))
    (True, True)
    """
    n, p = V.shape
    n_blocks = n // QR_BLOCK_ROWS
    if n_blocks < 2 or p > QR_BLOCK_ROWS // 2:
        return np.linalg.qr(V)[0]
    bounds = np.linspace(0, n, n_blocks + 1).astype(np.int64)  # blocks of >= 2^15 rows
    Q, tops = np.empty_like(V), []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        Q[lo:hi], top = np.linalg.qr(V[lo:hi])
        tops.append(top)
    joint = np.linalg.qr(np.vstack(tops))[0]
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        Q[lo:hi] = Q[lo:hi] @ joint[i * p:(i + 1) * p]
    return Q


def _chebyshev(op, V, degree: int, upper: float) -> np.ndarray:
    """``T_degree((A - c) / e) V`` damping ``[0, upper]`` (scalings in place); plain powers when
    nothing is left to damp.
    """
    if upper <= 1e-3:
        for _ in range(degree):
            V = op @ V
        return V
    c = e = upper / 2.0
    scaled = c * V
    prev, cur = V, _own(op @ V, V)
    cur -= scaled
    cur /= e
    for _ in range(degree - 1):
        step = _own(op @ cur, cur, prev)
        np.multiply(cur, c, out=scaled)
        step -= scaled
        step *= 2.0
        step /= e
        step -= prev
        prev, cur = cur, step
    return cur


def _own(product, *inputs) -> np.ndarray:
    """``product``, copied where it shares memory with an input."""
    product = np.asarray(product)
    if any(np.may_share_memory(product, x) for x in inputs):
        return product.copy()
    return product


def _rayleigh_ritz(op, V, k):
    W = op @ V
    mu, S = np.linalg.eigh((V.T @ W + W.T @ V) / 2)
    mu, S = mu[::-1], S[:, ::-1]
    V, W = V @ S, W @ S
    res = np.linalg.norm(W[:, :k] - V[:, :k] * mu[:k], axis=0)
    return mu, V, res


def subspace_eigenpairs(op, k: int, *, tol: float | None = None, max_iter: int = 200,
                        degree: int = 8, random_state=0):
    """Largest ``k`` eigenpairs of a symmetric operator with spectrum in ``[0, 1]``, every copy of a
    repeated eigenvalue among them.

    ``p = k + max(k, 8)`` columns, Chebyshev filter, orthonormalization and Rayleigh-Ritz until
    the ``k`` residuals are at most ``tol`` (None: :func:`stop_tolerance`).

    Returns
    -------
    values : ndarray, shape (k,), descending
    vectors : ndarray, shape (n, k), sign-fixed

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators.laplacians import ZhouLaplacian
    >>> from hyperclust.operators.eigensolvers import NormalizedAffinity
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4, 5], [6, 7]])
    >>> M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    >>> values, V = subspace_eigenpairs(NormalizedAffinity(M, d), 3)
    >>> np.round(values, 8).tolist(), V.shape
    ([1.0, 1.0, 1.0], (8, 3))
    """
    tol = stop_tolerance() if tol is None else tol
    n = op.shape[0]
    p = min(n, k + max(k, 8))
    V = orthonormal_basis(np.random.default_rng(random_state).normal(size=(n, p)))
    mu, V, res = _rayleigh_ritz(op, V, k)
    it = 0
    while res.max() > tol and it < int(max_iter):
        it += 1
        V = orthonormal_basis(_chebyshev(op, V, int(degree), float(mu[-1])))
        mu, V, res = _rayleigh_ritz(op, V, k)
    if res.max() > tol:
        warnings.warn(f"subspace iteration did not reach tol={tol} in {max_iter} iterations "
                      f"(largest residual {res.max():.2e})", ConvergenceWarning, stacklevel=2)
    return mu[:k], fix_signs(V[:, :k])
