"""Top eigenpairs by Chebyshev-filtered subspace iteration, in memory.

Lanczos (ARPACK) grows one Krylov vector at a time, so in exact arithmetic it sees one
vector per distinct eigenvalue: of an eigenvalue repeated ``r`` times it returns one copy
(or a few, by rounding) and the next eigenvalues in place of the others. Isomorphic small
components (common in co-authorship hypergraphs) repeat eigenvalues; on cora-ca with its
320 isolated nodes the regularized Zhou affinity has one repeated 7 times at columns
11-17, and ARPACK's 15 leading pairs held it once. A block method finds every copy up to
its block width. The same iteration runs on row blocks in
:func:`hyperclust.distributed.eigen.top_eigenpairs`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .signs import fix_signs

__all__ = ["subspace_eigenpairs"]


def _chebyshev(op, V, degree: int, upper: float) -> np.ndarray:
    """``T_degree((A - c) / e) V`` damping ``[0, upper]``; plain powers when nothing is left
    to damp."""
    if upper <= 1e-3:
        for _ in range(degree):
            V = op @ V
        return V
    c = e = upper / 2.0
    prev, cur = V, (op @ V - c * V) / e
    for _ in range(degree - 1):
        prev, cur = cur, 2.0 * (op @ cur - c * cur) / e - prev
    return cur


def _rayleigh_ritz(op, V, k):
    W = op @ V
    mu, S = np.linalg.eigh((V.T @ W + W.T @ V) / 2)
    mu, S = mu[::-1], S[:, ::-1]
    V, W = V @ S, W @ S
    res = np.linalg.norm(W[:, :k] - V[:, :k] * mu[:k], axis=0)
    return mu, V, res


def subspace_eigenpairs(op, k: int, *, tol: float = 1e-8, max_iter: int = 200,
                        degree: int = 8, random_state=0):
    """Largest ``k`` eigenpairs of a symmetric operator with spectrum in ``[0, 1]`` (a
    normalized affinity), every copy of a repeated eigenvalue among them.

    ``p = k + max(k, 8)`` columns (at most ``n``): filter by a degree-``degree`` Chebyshev
    polynomial damping ``[0, mu_p]``, orthonormalize, Rayleigh-Ritz; stop when the ``k``
    residuals are at most ``tol``.

    Parameters
    ----------
    op : LinearOperator or matrix, shape (n, n)
    k : int
    tol : float, default 1e-8
    max_iter : int, default 200
    degree : int, default 8
    random_state : int
        Seeds the start block.

    Returns
    -------
    values : ndarray, shape (k,), descending
    vectors : ndarray, shape (n, k), sign-fixed (:func:`~hyperclust.operators.signs.fix_signs`)

    Examples
    --------
    Two identical triangles and an edge: the affinity's eigenvalue 1 is repeated 3 times
    (one per component), which this finds and Lanczos from one start vector would not.

    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators.laplacians import ZhouLaplacian
    >>> from hyperclust.operators.eigensolvers import NormalizedAffinity
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [3, 4, 5], [6, 7]])
    >>> M, d = ZhouLaplacian(hg, kind="unnormalized").affinity()
    >>> values, V = subspace_eigenpairs(NormalizedAffinity(M, d), 3)
    >>> np.round(values, 8).tolist(), V.shape
    ([1.0, 1.0, 1.0], (8, 3))
    """
    n = op.shape[0]
    p = min(n, k + max(k, 8))
    V = np.linalg.qr(np.random.default_rng(random_state).normal(size=(n, p)))[0]
    mu, V, res = _rayleigh_ritz(op, V, k)
    it = 0
    while res.max() > tol and it < int(max_iter):
        it += 1
        V = np.linalg.qr(_chebyshev(op, V, int(degree), float(mu[-1])))[0]
        mu, V, res = _rayleigh_ritz(op, V, k)
    if res.max() > tol:
        warnings.warn(f"subspace iteration did not reach tol={tol} in {max_iter} iterations "
                      f"(largest residual {res.max():.2e})", ConvergenceWarning, stacklevel=2)
    return mu[:k], fix_signs(V[:, :k])
