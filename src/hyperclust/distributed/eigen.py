"""Leading eigenvectors of a symmetric block operator by Chebyshev-filtered subspace
iteration with Rayleigh-Ritz (block products on the cluster, small problems here).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._tasks import RETRIES
from .linalg import combine, inner, keyed_random_blocks, random_blocks, tsqr

__all__ = ["top_eigenpairs", "fix_signs_blocks"]


def _residual2(W, V, mu):
    """Squared norms of the first ``len(mu)`` Ritz residual columns ``W - V diag(mu)``."""
    R = W[:, :mu.size] - V[:, :mu.size] * mu
    return np.einsum("ij,ij->j", R, R)


def _signed_peak(X):
    if X.shape[0] == 0:
        return np.zeros(X.shape[1]), np.zeros(X.shape[1])
    idx = np.argmax(np.abs(X), axis=0)
    vals = X[idx, np.arange(X.shape[1])]
    return np.abs(vals), vals


def fix_signs_blocks(client, blocks):
    """Row blocks with each column's largest-magnitude entry made positive (as ``fix_signs``).

    Examples
    --------
    >>> import numpy as np, distributed
    >>> from hyperclust.distributed.linalg import gather_blocks, scatter_blocks
    >>> X = np.array([[1.0, 0.5], [-3.0, 0.2], [2.0, -0.1]])
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     Y = gather_blocks(c, fix_signs_blocks(c, scatter_blocks(c, X, [0, 1, 3])))
    >>> Y.tolist()
    [[-1.0, 0.5], [3.0, 0.2], [-2.0, -0.1]]
    """
    peaks = client.gather([client.submit(_signed_peak, X, retries=RETRIES, pure=False)
                           for X in blocks])
    mags = np.stack([p[0] for p in peaks])
    vals = np.stack([p[1] for p in peaks])
    best = vals[np.argmax(mags, axis=0), np.arange(mags.shape[1])]
    signs = np.where(best < 0, -1.0, 1.0)
    return combine(client, blocks, np.diag(signs))


def _cheb_step(AY, Y, c, e, Yprev):
    """One Chebyshev step on ``[c - e, c + e]``: ``2 (A Y - c Y) / e - Y_prev``."""
    Z = (AY - c * Y) / e
    if Yprev is None:
        return Z
    Z *= 2.0
    Z -= Yprev
    return Z


def chebyshev_filter(operator, V, degree, lower, upper):
    """Blocks of ``T_degree((A - c I) / e) V``, ``[c - e, c + e] = [lower, upper]``, at once."""
    c, e = (upper + lower) / 2.0, (upper - lower) / 2.0
    prev, cur = None, V
    for _ in range(int(degree)):
        nxt = operator.apply(cur, then=[(_cheb_step, c, e, p)
                                        for p in (prev or [None] * len(cur))])
        prev, cur = cur, nxt
    return cur


def _rayleigh_ritz(operator, V, k):
    client = operator.client
    W = operator.apply(V)
    T = inner(client, V, W)
    mu, S = np.linalg.eigh((T + T.T) / 2)
    mu, S = mu[::-1], S[:, ::-1]
    V, W = combine(client, V, S), combine(client, W, S)
    res = np.sqrt(np.sum(client.gather([client.submit(_residual2, w, v, mu[:k],
                                                      retries=RETRIES, pure=False)
                                        for w, v in zip(W, V)]), axis=0))
    return mu, V, res


def _beside(V, F, n_locked):
    """The first ``n_locked`` columns of ``V`` beside ``F``."""
    return np.hstack([V[:, :n_locked], F])


#: Most growth of the filter at the top of the spectrum: the unlocked columns' rounding
#: along the leading eigenvectors grows by it (at 1e29, degree 32 on a block model, the
#: bulk columns were lost; 1e14, degree 16, converged as degree 8 did).
MAX_GROWTH = 1e14


def _filtered(operator, V, upper: float, degree: int, top: float = 1.0):
    """``V`` filtered by a Chebyshev polynomial damping ``[0, upper]`` (growth <= MAX_GROWTH)."""
    if upper > 1e-3:
        ratio = max((2.0 * top - upper) / upper, 1.0 + 1e-12)
        fits = int(np.arccosh(MAX_GROWTH) / np.arccosh(ratio))
        degree = max(min(degree, 8), min(degree, fits))
        return chebyshev_filter(operator, V, degree, 0.0, upper)
    for _ in range(int(degree)):
        V = operator.apply(V)
    return V


def _start(operator, p, seed, row_keys):
    """The start block: drawn per row block, or by node rank when ``row_keys`` are given."""
    client = operator.client
    if row_keys is None:
        return random_blocks(client, operator.bounds, p, seed)
    return keyed_random_blocks(client, row_keys, p, seed)


def top_eigenpairs(operator, k: int, *, tol: float = 1e-8, max_iter: int = 200,
                   degree: int = 8, oversample: int | None = None, random_state=0,
                   callback=None, row_keys=None, cuts=None, last_tol: float | None = None):
    """Largest ``k`` eigenpairs of a symmetric block operator with spectrum in ``[0, 1]``.

    Chebyshev-filtered subspace iteration on ``k + oversample`` columns, TSQR, Rayleigh-Ritz;
    converged leading columns are locked. Stops when the first ``k`` residuals are <= ``tol``.

    Parameters
    ----------
    operator : BlockOperator
    k : int
    tol : float, default 1e-8
    max_iter : int, default 200
    degree : int, default 8
    oversample : int, optional
        Extra columns (default ``max(k, 8)``, capped by ``n``).
    random_state : int
    callback : callable, optional
        ``callback(iteration, residuals)`` after each iteration.
    row_keys : list of futures, optional
        Node ranks per row block: the start is drawn by rank.
    cuts : LineageCut, optional
        Cuts the task history where due (:mod:`~hyperclust.distributed.lineage`).
    last_tol : float, optional
        Residual at which the ``k``-th column stops (default ``tol``).

    Returns
    -------
    values : ndarray, shape (k,), descending
    vectors : list of futures of the row blocks, sign-fixed
    n_iter : int

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` iterations did not reach ``tol``.

    Examples
    --------
    Zhou's normalized affinity has top eigenpair ``(1, sqrt(Dv) / ||sqrt(Dv)||)``, here
    ``sqrt([1, 1, 2, 1] / 5)``:

    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.linalg import gather_blocks
    >>> from hyperclust.distributed.operator import normalized_affinity
    >>> phg = write_partitioned(Hypergraph.from_edges([[0, 1, 2], [2, 3]]), tempfile.mkdtemp(),
    ...                         block_size=2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     values, vectors, n_iter = top_eigenpairs(normalized_affinity(phg, c), 1)
    ...     u = gather_blocks(c, vectors)
    >>> values.round(8).tolist(), bool(np.allclose(u[:, 0], np.sqrt([0.2, 0.2, 0.4, 0.2])))
    ([1.0], True)
    """
    client, n = operator.client, operator.shape[0]
    p = min(n, k + (max(k, 8) if oversample is None else int(oversample)))
    V, _ = tsqr(client, _start(operator, p, random_state, row_keys), gather_r=False)
    tols = np.full(k, float(tol))
    tols[-1] = tol if last_tol is None else last_tol
    mu, V, res = _rayleigh_ritz(operator, V, k)
    it = 0
    while np.any(res > tols) and it < int(max_iter):
        it += 1
        # locking: the leading columns already at tol are not filtered again
        locked = int(np.argmin(np.append(res <= tols, False)))
        active = V if locked == 0 else combine(client, V, np.eye(p)[:, locked:])
        F = _filtered(operator, active, float(mu[-1]), degree, float(mu[0]))
        if locked:
            F = [client.submit(_beside, v, f, locked, retries=RETRIES, pure=False)
                 for v, f in zip(V, F)]
        V, _ = tsqr(client, F, gather_r=False)
        mu, V, res = _rayleigh_ritz(operator, V, k)
        V = cuts.cut(V) if cuts is not None and cuts.due(it * (degree + 1)) else V
        if callback is not None:
            callback(it, res)
    if np.any(res > tols):
        warnings.warn(f"subspace iteration did not reach tol={tol} in {max_iter} iterations "
                      f"(largest residual {res.max():.2e}); raise max_iter or tol",
                      ConvergenceWarning, stacklevel=2)
    return mu[:k], fix_signs_blocks(client, combine(client, V, np.eye(p)[:, :k])), it
