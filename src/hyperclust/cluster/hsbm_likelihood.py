"""The likelihood pieces of the attributed, degree-corrected hypergraph block model
(:class:`~hyperclust.cluster.hsbm.HypergraphSBM`).

The hyperedges enter through their weighted clique expansion, never formed: a hyperedge ``e``
adds ``a_e = w_e / (|e| - 1)`` to every pair of its members, so node ``i``'s expanded degree
is ``theta_i = sum_{e ni i, |e| >= 2} w_e``. Pair counts are Poisson,
``A_ij ~ Poisson(theta_i theta_j omega_{z_i z_j})`` (Karrer & Newman's degree-corrected
SBM); with soft memberships ``Q`` (rows sum to 1) the block counts are ``M = Q^T A Q`` and
the maximum-likelihood rates ``omega_cd = M_cd / (kappa_c kappa_d)``, ``kappa = Q^T theta``
(reported relative to the rate of a block-blind model, ``1 / sum(theta)``).
In the mean-field E-step the Poisson normaliser ``theta_i sum_d omega_cd kappa_d = theta_i``
is the same for every cluster (the degree correction), so node ``i``'s log-potential for
cluster ``c`` is ``log pi_c + sum_d (A Q)_id log omega_cd`` plus the attribute term.

The attributes (reduced to at most 32 columns, rows L2-normalised) are a spherical Gaussian
mixture with shared variance: ``-||x_i - mu_c||^2 / (2 sigma^2)`` per node and cluster;
all-zero (featureless) rows contribute nothing. ``A Q = H (a * (H^T Q)) - s * Q`` (``s_i``
the self-pair weight) costs ``O(nnz(H) K)``; everything else ``O(n K^2)``.
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

    Parameters
    ----------
    hypergraph : Hypergraph, n nodes, m hyperedges

    Attributes
    ----------
    degrees : ndarray, shape (n,)
        ``theta_i = (A 1)_i``: the weight of the hyperedges of size >= 2 containing ``i``.

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
    """``log omega``, shape (K, K): the log block rates of soft memberships ``Q``.

    Parameters
    ----------
    AQ : ndarray, shape (n, K)
        ``A Q`` (:class:`CliqueExpansion`).
    Q : ndarray, shape (n, K)
        Memberships (rows sum to 1; one-hot for a hard partition).
    degrees : ndarray, shape (n,)

    Returns
    -------
    ndarray, shape (K, K)
        ``log((M + RATE_PRIOR) / (E + RATE_PRIOR))`` with ``M = Q^T A Q`` the block counts
        and ``E = kappa kappa^T / sum(kappa)`` their expectation when pairs ignore the
        blocks (so 0 is the null rate, > 0 a block denser than chance).

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

    Parameters
    ----------
    Z : ndarray, shape (n, d)
        Reduced, row-normalised attributes.
    Q : ndarray, shape (n, K)
        Memberships; the means and the shared variance are their weighted fits.
    has_row : ndarray of bool, shape (n,)
        Nodes with a non-zero attribute row; the others get 0 (no evidence).
    sq_norms : ndarray, shape (n,), or None
        ``||z_i||^2`` (``np.sum(Z * Z, axis=1)``), passed by a caller that calls this once
        per EM iteration on the same ``Z``; None: computed here.

    Returns
    -------
    ndarray, shape (n, K)
        ``-||z_i - mu_c||^2 / (2 sigma^2)`` (0 on featureless rows).

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
    """``X.max(axis=1)`` of an ``(n, K)`` array, as a loop over its ``K`` columns (numpy
    reduces a short row ~15x slower at K = 4; a maximum is exact, so the result is the
    same bit for bit).

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
    """``X.argmax(axis=1)`` (the first maximum of each row) of an ``(n, K)`` array without
    NaN, as a loop over its ``K`` columns (see :func:`row_max`).

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
