"""The likelihood pieces of :class:`~hyperclust.cluster.hsbm.HypergraphSBM`.

Hyperedges enter through their weighted clique expansion (never formed): hyperedge ``e`` adds
``w_e / (|e| - 1)`` to each member pair. Pair counts are Poisson with degree-corrected block
rates (Karrer & Newman); attributes a spherical Gaussian mixture with shared variance
(all-zero rows contribute nothing).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["CliqueExpansion", "attribute_loglik", "block_rates", "soft_assign", "one_hot",
           "edge_cluster_counts", "row_max", "row_argmax"]

#: Pseudo-count added to every block count, so an empty block has a finite log-rate.
RATE_PRIOR = 0.5


class CliqueExpansion:
    """The weighted clique expansion ``A`` of a hypergraph as an operator (never formed).

    ``degrees`` (n,): ``A 1``, the weight of the hyperedges of size >= 2 at each node.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> A = CliqueExpansion(Hypergraph.from_edges([[0, 1, 2], [2, 3]]))
    >>> A.degrees.tolist(), (A @ np.eye(4)[:, [0]]).ravel().tolist()
    ([1.0, 1.0, 2.0, 1.0], [0.0, 0.5, 0.5, 0.0])
    """

    def __init__(self, hypergraph):
        H = hypergraph.incidence
        size = np.asarray(hypergraph.edge_sizes, dtype=np.float64)
        w = np.asarray(hypergraph.weights, dtype=np.float64)
        self._H = H
        self._Ht = hypergraph.incidence_t
        self._a = np.where(size >= 2, w / np.maximum(size - 1.0, 1.0), 0.0)
        self._self = np.asarray(H @ self._a).ravel()
        self.degrees = np.asarray(H @ (self._a * np.maximum(size - 1.0, 0.0))).ravel()

    def __matmul__(self, Q):
        """``A Q``, shape (n, K), in ``O(nnz(H) K)``."""
        Q = np.asarray(Q, dtype=np.float64)
        return np.asarray(self._H @ (self._a[:, None] * (self._Ht @ Q))) - self._self[:, None] * Q


def block_rates(AQ, Q, degrees):
    """``log omega`` (K, K) of memberships ``Q`` (n, K), given ``AQ = A Q`` and the degrees.

    ``log((M + RATE_PRIOR) / (E + RATE_PRIOR))``, ``M = Q^T A Q`` the block counts, ``E`` their
    expectation when pairs ignore the blocks (0: the null rate).

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> A = CliqueExpansion(Hypergraph.from_edges([[0, 1], [1, 2], [3, 4], [4, 5]]))
    >>> Q = one_hot(np.array([0, 0, 0, 1, 1, 1]), 2)
    >>> log_omega = block_rates(A @ Q, Q, A.degrees)
    >>> bool(log_omega[0, 0] > 0 > log_omega[0, 1])
    True
    """
    M = Q.T @ AQ
    M = 0.5 * (M + M.T)
    kappa = Q.T @ degrees
    expected = np.outer(kappa, kappa) / max(float(kappa.sum()), 1e-12)
    return np.log(M + RATE_PRIOR) - np.log(expected + RATE_PRIOR)


def attribute_loglik(Z, Q, has_row, sq_norms=None):
    """Spherical-Gaussian log-likelihood of every node under every cluster, shape (n, K).

    ``-||z_i - mu_c||^2 / (2 sigma^2)`` for row-normalised attributes ``Z`` (n, d) and
    memberships ``Q`` (n, K); 0 on rows not in ``has_row``. ``sq_norms``:
    ``np.sum(Z * Z, axis=1)``, if already computed.

    Examples
    --------
    >>> Z = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> L = attribute_loglik(Z, one_hot(np.array([0, 0, 1, 1]), 2), Z.any(axis=1))
    >>> int(L[0].argmax()), int(L[2].argmax()), L[3].tolist()
    (0, 1, [0.0, 0.0])
    """
    every_row = bool(has_row.all())
    Qf = Q if every_row else Q * has_row[:, None]
    mass = Qf.sum(axis=0)
    mu = (Qf.T @ Z) / np.maximum(mass, 1e-12)[:, None]
    if sq_norms is None:
        sq_norms = np.sum(Z * Z, axis=1)
    # in place, in the order of ||z||^2 - 2 z.mu + ||mu||^2 (a - b and a + (-b) round alike)
    sq = Z @ mu.T
    sq *= -2.0
    sq += sq_norms[:, None]
    sq += np.sum(mu * mu, axis=1)[None, :]
    np.maximum(sq, 0.0, out=sq)
    n_rows = max(int(has_row.sum()), 1)
    sigma2 = max(float(np.sum(Qf * sq)) / (n_rows * Z.shape[1]), 1e-6)
    sq /= -2.0 * sigma2  # -x / (2 s) and x / (-2 s) round alike
    if not every_row:
        sq[~has_row] = 0.0
    return sq


def soft_assign(log_potential):
    """Row-wise softmax of ``log_potential`` (shape (n, K)), computed stably.

    Examples
    --------
    >>> soft_assign(np.array([[0.0, 0.0], [1000.0, 0.0]])).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    P = log_potential - row_max(log_potential)[:, None]
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    return P


def row_max(X):
    """``X.max(axis=1)`` of an ``(n, K)`` array, looping over the ``K`` columns (faster).

    Examples
    --------
    >>> row_max(np.array([[1.0, 3.0, 2.0], [-1.0, -2.0, -3.0]])).tolist()
    [3.0, -1.0]
    """
    m = X[:, 0].copy()
    for c in range(1, X.shape[1]):
        np.maximum(m, X[:, c], out=m)
    return m


def row_argmax(X):
    """``X.argmax(axis=1)`` of an ``(n, K)`` array without NaN, as :func:`row_max` does.

    Examples
    --------
    >>> row_argmax(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])).tolist()
    [1, 0]
    """
    best, idx = X[:, 0].copy(), np.zeros(X.shape[0], dtype=np.intp)
    for c in range(1, X.shape[1]):
        better = X[:, c] > best
        idx[better] = c
        np.maximum(best, X[:, c], out=best)
    return idx


def one_hot(labels, k):
    """Dense ``(n, k)`` one-hot matrix of integer ``labels`` in ``0..k-1``.

    Examples
    --------
    >>> one_hot(np.array([1, 0]), 2).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    Q = np.zeros((labels.size, k))
    Q[np.arange(labels.size), labels] = 1.0
    return Q


def edge_cluster_counts(incidence_t, labels, k):
    """``(m, k)`` CSR: how many members of each hyperedge lie in each cluster.

    Examples
    --------
    >>> from hyperclust import Hypergraph
    >>> hg = Hypergraph.from_edges([[0, 1, 2], [2, 3]])
    >>> edge_cluster_counts(hg.incidence_t, np.array([0, 0, 1, 1]), 2).toarray().tolist()
    [[2.0, 1.0], [0.0, 2.0]]
    """
    n = labels.size
    B = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k))
    return (incidence_t @ B).tocsr()
