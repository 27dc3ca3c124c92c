"""Leading eigenpairs of a symmetric block operator by thick-restart Lanczos (Wu and Simon):
one one-column product per step, as the single process's ARPACK Lanczos; DGKS
reorthogonalization. Like ARPACK one start vector finds one copy of a repeated eigenvalue.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import blas
from sklearn.exceptions import ConvergenceWarning

from ._tasks import RETRIES
from .eigen import fix_signs_blocks
from .linalg import keyed_random_blocks, random_blocks

__all__ = ["lanczos_eigenpairs"]

#: Rows per chunk of the Ritz vectors' product (8,192 x 20 columns: 1.3 MB).
_CHUNK = 8192

#: DGKS: a second Gram-Schmidt pass only when the first left less than this share of the
#: norm (ARPACK's ``dsaitr`` uses the same 0.717 ~ 1/sqrt(2)).
_REORTH = 0.717

#: Below this relative size a new vector is taken as lying in the basis (an invariant
#: subspace was found; the iteration goes on from a fresh random vector).
_BREAKDOWN = 1e-10


def _dots(w, *pieces):
    """``V_b^T w_b`` (the basis pieces of one block stacked) and ``w_b^T w_b``."""
    w = w[:, 0]
    return np.concatenate([P.T @ w for P in pieces] + [[w @ w]])


def _subtract(w, c, scale, *pieces):
    """``(w_b - V_b c) * scale``, in place, one column at a time."""
    out = np.array(w, order="F")
    start = 0
    for P in pieces:
        if P.shape[1] == 1:
            blas.daxpy(P[:, 0], out[:, 0], a=-c[start])
        else:
            out -= P @ c[start:start + P.shape[1], None]
        start += P.shape[1]
    if scale != 1.0:
        out *= scale
    return out


def _ritz(Y, *pieces):
    """``V_b Y`` of one block, by chunks of rows."""
    n_rows = pieces[0].shape[0]
    out = np.empty((n_rows, Y.shape[1]))
    for lo in range(0, n_rows, _CHUNK):
        hi = min(lo + _CHUNK, n_rows)
        out[lo:hi] = np.hstack([P[lo:hi] for P in pieces]) @ Y
    return out


class _Basis:
    """The Lanczos vectors in row blocks and the projected matrix ``T``."""

    def __init__(self, client, ncv):
        self.client, self.pieces, self.size = client, [], 0
        self.T = np.zeros((ncv, ncv))

    def _each(self, fn, blocks, *args):
        pieces = self.pieces or [[] for _ in blocks]
        return [self.client.submit(fn, x, *args, *ps, retries=RETRIES, pure=False)
                for x, ps in zip(blocks, pieces)]

    def _sum(self, futures):
        return np.sum(self.client.gather(futures), axis=0)

    def orthogonalize(self, w):
        """``(blocks of w orthonormalized against the basis, coefficients, beta)``.

        A second pass runs only when the first removed most of ``w`` (DGKS).
        """
        first = self._sum(self._each(_dots, w))
        h = first[:-1]
        beta = float(np.sqrt(max(first[-1] - h @ h, 0.0)))
        if self.size and beta < _REORTH * np.sqrt(first[-1]):
            w = self._each(_subtract, w, h, 1.0)
            second = self._sum(self._each(_dots, w))
            beta = float(np.sqrt(max(second[-1] - second[:-1] @ second[:-1], 0.0)))
            h, w = h + second[:-1], self._each(_subtract, w, second[:-1],
                                               1.0 / max(beta, 1e-300))
            return w, h, beta
        return self._each(_subtract, w, h, 1.0 / max(beta, 1e-300)), h, beta

    def append(self, v):
        self.pieces = [ps + [x] for ps, x in zip(self.pieces or [[] for _ in v], v)]
        self.size += 1

    def ritz_vectors(self, Y):
        """Blocks of ``V Y``."""
        return [self.client.submit(_ritz, Y, *ps, retries=RETRIES, pure=False)
                for ps in self.pieces]

    def restart(self, Y, theta, coupling):
        """Keep the Ritz vectors ``V Y`` (values ``theta``, ``T`` coupling ``beta y_last``)."""
        kept = Y.shape[1]
        self.pieces = [[x] for x in self.ritz_vectors(Y)]
        self.size = kept
        self.T[:] = 0.0
        self.T[np.arange(kept), np.arange(kept)] = theta
        self.T[:kept, kept] = self.T[kept, :kept] = coupling


def _start(client, operator, row_keys, seed):
    if row_keys is None:
        return random_blocks(client, operator.bounds, 1, seed)
    return keyed_random_blocks(client, row_keys, 1, seed)


def _fresh(client, operator, basis, row_keys, seed):
    """A unit vector orthogonal to the basis (None when the basis spans everything)."""
    v, _, norm = basis.orthogonalize(_start(client, operator, row_keys, seed))
    return None if norm <= _BREAKDOWN * np.sqrt(operator.shape[0]) else v


def _ritz_pairs(T, beta, k):
    """Descending Ritz values and vectors of ``T``, and the first ``k`` relative residuals."""
    theta, Y = np.linalg.eigh((T + T.T) / 2)
    theta, Y = theta[::-1], Y[:, ::-1]
    if theta.size < k:
        return theta, Y, np.full(k, np.inf)
    return theta, Y, np.abs(beta * Y[-1, :k]) / np.maximum(np.abs(theta[:k]), 1e-300)


def lanczos_eigenpairs(operator, k: int, *, tol: float = 1e-8, max_iter: int = 200,
                       ncv: int | None = None, random_state=0, row_keys=None, callback=None,
                       cuts=None):
    """Largest ``k`` eigenpairs of a symmetric block operator by thick-restart Lanczos.

    Parameters
    ----------
    operator : BlockOperator
    k : int
    tol : float, default 1e-8
        Stop when ``||A u - theta u|| <= tol |theta|`` for the first ``k`` pairs.
    max_iter : int, default 200
        Restarts.
    ncv : int, optional
        Lanczos vectors held (default ``max(2 k + 1, 20)``, capped by ``n``).
    random_state : int
    row_keys : list of futures, optional
        Node ranks per row block: the start is drawn by rank.
    callback : callable, optional
        ``callback(n_products, relative_residuals)`` after each product.
    cuts : LineageCut, optional
        Cuts the task history at restarts where due.

    Returns
    -------
    values : ndarray, shape (k,), descending
    vectors : list of futures of the row blocks, ``(n_b, k)``, sign-fixed
    n_products : int

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` restarts did not reach ``tol``.

    Examples
    --------
    The two leading eigenvalues of a regularized affinity on 5 nodes, against ``eigh`` of
    the dense matrix (the Krylov space closes after at most 5 products):

    >>> import tempfile, numpy as np, distributed
    >>> from hyperclust import Hypergraph
    >>> from hyperclust.operators import ZhouLaplacian
    >>> from hyperclust.operators.eigensolvers import NormalizedAffinity
    >>> from hyperclust.distributed import write_partitioned
    >>> from hyperclust.distributed.operator import normalized_affinity
    >>> hg = Hypergraph.from_edges([[0, 1], [1, 2, 3], [3, 4]])
    >>> dense = NormalizedAffinity(*ZhouLaplacian(hg, kind="unnormalized").affinity(),
    ...                            tau=0.5) @ np.eye(5)
    >>> phg = write_partitioned(hg, tempfile.mkdtemp(), block_size=3)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     values, _, products = lanczos_eigenpairs(normalized_affinity(phg, c, tau=0.5), 2)
    >>> bool(np.allclose(values, np.linalg.eigvalsh(dense)[::-1][:2])), products <= 5
    (True, True)
    """
    n, client = operator.shape[0], operator.client
    ncv = min(n, max(2 * k + 1, 20) if ncv is None else int(ncv))
    basis = _Basis(client, ncv)
    start = _fresh(client, operator, basis, row_keys, random_state)
    theta, Y, products = _iterate(operator, basis, start, k, tol, max_iter,
                                  lambda draw: _fresh(client, operator, basis, row_keys,
                                                      random_state + draw), callback, cuts)
    vectors = basis.ritz_vectors(Y[:, :k])
    return theta[:k], fix_signs_blocks(client, vectors), products


def _iterate(operator, basis, v, k, tol, max_iter, fresh, callback, cuts=None):
    """Lanczos steps from ``v`` until ``k`` Ritz pairs converge: ``(values, Y, products)``."""
    ncv = basis.T.shape[0]
    products = restarts = draws = 0
    while True:
        basis.append(v)
        j = basis.size - 1
        v, h, beta = basis.orthogonalize(operator.apply(v))
        products += 1
        basis.T[:j + 1, j] = basis.T[j, :j + 1] = h
        theta, Y, res = _ritz_pairs(basis.T[:j + 1, :j + 1], beta, k)
        done = bool(np.all(res <= tol))
        if callback is not None:
            callback(products, res)
        if beta <= _BREAKDOWN * max(1.0, np.abs(h).max()):
            # an invariant subspace: exact pairs, but a repeated eigenvalue may have more
            # copies outside it; go on from a new direction (decoupled in T) while one is left
            draws += 1
            v = fresh(draws)
            beta, done = 0.0, v is None
        if done:
            return theta, Y, products
        if basis.size < ncv:
            continue
        if restarts == int(max_iter):
            warnings.warn(f"Lanczos did not reach tol={tol} in {max_iter} restarts; raise "
                          f"max_iter or tol", ConvergenceWarning, stacklevel=3)
            return theta, Y, products
        restarts += 1
        kept = k + (ncv - k) // 2
        basis.restart(Y[:, :kept], theta[:kept], beta * Y[-1, :kept])
        if cuts is not None and cuts.due(products):
            pieces, v = cuts.cut([ps[0] for ps in basis.pieces], v)
            basis.pieces = [[p] for p in pieces]
